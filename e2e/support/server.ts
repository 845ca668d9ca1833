// Starts the real, built `zayavka` binary on a free loopback port with a fresh SQLite file, the way
// an operator would (environment variables only), and reads the stored leads back with the
// operator's own command (`zayavka leads export --format jsonl`).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './stand-ins';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BINARY = process.env.ZAYAVKA_BIN ?? path.resolve(here, '../../target/release/zayavka');
export const ANON_KEY = 'e2e-anon-key-3f9c';

/** Run-time settings a test may set; keys are the contract's variable names. */
export type Settings = Partial<
  Record<
    | 'ZAYAVKA_REDIRECT_URL'
    | 'ZAYAVKA_BACKEND_URL'
    | 'ZAYAVKA_CONTACT_PHONE'
    | 'ZAYAVKA_BRAND'
    | 'ZAYAVKA_ANON_KEY',
    string
  >
>;

export interface Lead {
  id: number;
  created_at: string;
  name: string;
  phone: string;
  confirmation: string;
  comment: string | null;
}

export interface RunningServer {
  baseURL: string;
  origin: string;
  anonKey: string;
  /** Every lead on disk, oldest first, as `zayavka leads export --format jsonl` prints them. */
  leads(): Promise<Lead[]>;
  /** The server's log so far (attached to a failing test's report). */
  log(): string;
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startServer(settings: Settings = {}): Promise<RunningServer> {
  if (!existsSync(BINARY)) {
    throw new Error(`${BINARY} is missing: run \`make build\` in the repository first`);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'zayavka-e2e-'));
  const databaseUrl = `sqlite://${dir}/leads.db`;
  // A port picked free can be taken by another worker before the server binds it: try again.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const env = {
      ...process.env,
      ZAYAVKA_LISTEN: `127.0.0.1:${port}`,
      ZAYAVKA_DATABASE_URL: databaseUrl,
      ZAYAVKA_ANON_KEY: ANON_KEY,
      ZAYAVKA_LOG: 'info',
      // Abuse resistance (DESIGN "Settings") would treat a robot's quick fill as a bot: off here;
      // tests of those features set them themselves.
      ZAYAVKA_MIN_FILL_SECONDS: '0',
      ZAYAVKA_RATE_LIMIT_PER_MINUTE: '0',
      NO_COLOR: '1',
      ...settings,
    };
    const child = spawn(BINARY, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const baseURL = `http://127.0.0.1:${port}`;
    try {
      await waitUntilReady(baseURL, child, () => output);
    } catch (error) {
      lastError = error;
      await stopProcess(child);
      continue;
    }
    return {
      baseURL,
      origin: baseURL,
      anonKey: env.ZAYAVKA_ANON_KEY,
      log: () => output,
      async leads() {
        const { stdout } = await run(BINARY, ['leads', 'export', '--format', 'jsonl'], {
          env: { ...process.env, ZAYAVKA_DATABASE_URL: databaseUrl, NO_COLOR: '1' },
        });
        return stdout
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Lead);
      },
      async stop() {
        await stopProcess(child);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}

async function waitUntilReady(baseURL: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`zayavka exited with ${child.exitCode} at start:\n${output()}`);
    }
    try {
      const res = await fetch(`${baseURL}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`zayavka was not ready within 10 s:\n${output()}`);
}

/** SIGTERM (graceful drain); SIGKILL if it has not stopped after 5 s. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
