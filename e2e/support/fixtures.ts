// The test API every spec imports: Playwright's `test` with
// - `server`: the built zayavka binary, fresh database, on a free port (settings via `test.use`;
//   an inbox account made before the start via `test.use({ operator })`);
// - `baseURL`: that server, so `page.goto('/')` opens it;
// - `startZayavka(settings)`: another server with settings known only inside the test (a stand-in
//   backend's URL), stopped after the test;
// - `browserLog`: every browser context is watched; an uncaught page error (a hydration mismatch
//   is React error #418) or a console error the test did not announce with `browserLog.allow(...)`
//   fails the test.
import { test as base, expect, type BrowserContext, type ConsoleMessage, type TestInfo } from '@playwright/test';
import { startServer, type Operator, type RunningServer, type Settings } from './server';
import { startBackend, startOtherSite, type BackendAnswer, type BackendStandIn, type OtherSite } from './stand-ins';

export { expect };
export { ANON_KEY, type Operator } from './server';

export class BrowserLog {
  /** Console errors, as `text (url)`. */
  readonly consoleErrors: string[] = [];
  readonly pageErrors: string[] = [];
  private readonly allowed: RegExp[] = [];

  /** Console errors matching one of these are expected by the test. */
  allow(...patterns: RegExp[]): void {
    this.allowed.push(...patterns);
  }

  watch(context: BrowserContext): void {
    context.on('console', (message: ConsoleMessage) => {
      if (message.type() !== 'error') return;
      const where = message.location().url;
      this.consoleErrors.push(where ? `${message.text()} (${where})` : message.text());
    });
    context.on('weberror', (error) => {
      const e = error.error();
      this.pageErrors.push(`${e.name}: ${e.message}`);
    });
  }

  unexpected(): string[] {
    return [
      ...this.pageErrors.map((e) => `uncaught page error: ${e}`),
      ...this.consoleErrors
        .filter((text) => !this.allowed.some((pattern) => pattern.test(text)))
        .map((text) => `console error: ${text}`),
    ];
  }
}

interface Fixtures {
  settings: Settings;
  operator: Operator | undefined;
  server: RunningServer;
  startZayavka: (settings?: Settings) => Promise<RunningServer>;
  standIns: StandIns;
  browserLog: BrowserLog;
}

/** Outside services for one test, stopped after its browser context is closed. */
export interface StandIns {
  backend(answer: BackendAnswer, port?: number): Promise<BackendStandIn>;
  otherSite(title: string): Promise<OtherSite>;
}

async function attachLogs(testInfo: TestInfo, servers: RunningServer[]): Promise<void> {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const [i, server] of servers.entries()) {
    await testInfo.attach(`zayavka-${i}.log`, { body: server.log(), contentType: 'text/plain' });
  }
}

export const test = base.extend<Fixtures>({
  settings: [{}, { option: true }],
  operator: [undefined, { option: true }],

  server: async ({ settings, operator }, use, testInfo) => {
    const server = await startServer(settings, { operator });
    await use(server);
    await attachLogs(testInfo, [server]);
    await server.stop();
  },

  baseURL: async ({ server }, use) => {
    await use(server.baseURL);
  },

  startZayavka: async ({}, use, testInfo) => {
    const started: RunningServer[] = [];
    await use(async (settings = {}) => {
      const server = await startServer(settings);
      started.push(server);
      return server;
    });
    await attachLogs(testInfo, started);
    await Promise.all(started.map((server) => server.stop()));
  },

  standIns: async ({}, use) => {
    const running: Array<{ stop(): Promise<void> }> = [];
    const track = <T extends { stop(): Promise<void> }>(started: T): T => (running.push(started), started);
    await use({
      backend: async (answer, port) => track(await startBackend(answer, port)),
      otherSite: async (title) => track(await startOtherSite(title)),
    });
    await Promise.all(running.map((s) => s.stop()));
  },

  browserLog: async ({}, use) => {
    const log = new BrowserLog();
    await use(log);
    const unexpected = log.unexpected();
    if (unexpected.length > 0) {
      throw new Error(`The browser reported errors:\n  ${unexpected.join('\n  ')}`);
    }
  },

  // Servers a test starts must outlive its pages (a late favicon request to a stopped server is a
  // console error): set up before the context, they are torn down after it.
  context: async ({ browserLog, startZayavka, standIns, context }, use) => {
    void startZayavka;
    void standIns;
    browserLog.watch(context);
    await use(context);
  },
});
