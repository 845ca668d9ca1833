// Starts the real, built `zayavka` binary on a free loopback port with a fresh SQLite file, the way
// an operator would (environment variables only), and reads the stored leads back with the
// operator's own command (`zayavka leads export --format jsonl`). An inbox operator is created
// before the start with the operator's own command too (`zayavka admin add-user --password-stdin`).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BINARY = process.env.ZAYAVKA_BIN ?? path.resolve(here, '../../target/release/zayavka');
export const ANON_KEY = 'e2e-anon-key-3f9c';

/**
 * Run-time settings a test may set; keys are the contract's variable names. Null leaves a setting
 * the fixtures give (below) at the server's own default.
 */
export type Settings = Partial<
  Record<
    | 'ZAYAVKA_REDIRECT_URL'
    | 'ZAYAVKA_BACKEND_URL'
    | 'ZAYAVKA_CONTACT_PHONE'
    | 'ZAYAVKA_BRAND'
    | 'ZAYAVKA_ANON_KEY'
    | 'ZAYAVKA_WEBHOOK_URL'
    | 'ZAYAVKA_MIN_FILL_SECONDS'
    | 'ZAYAVKA_RATE_LIMIT_PER_MINUTE'
    | 'ZAYAVKA_HOLD_WITHOUT_PROOF'
    | 'ZAYAVKA_REQUIRE_2FA'
    // The team's calendar and the background scan (reminders, escalations).
    | 'ZAYAVKA_WORKING_HOURS'
    | 'ZAYAVKA_CLOSED_DAYS'
    | 'ZAYAVKA_ESCALATE_AFTER_HOURS'
    | 'ZAYAVKA_REMINDER_SCAN_SECONDS'
    // A PostgreSQL database of the test's own instead of the fresh SQLite file (`leads()` and
    // `sql()` read the SQLite file only).
    | 'ZAYAVKA_DATABASE_URL',
    string | null
  >
>;

/** The settings every server of these tests starts with, before the test's own. */
const FIXTURE_SETTINGS = {
  ZAYAVKA_LISTEN: '127.0.0.1:0',
  ZAYAVKA_ANON_KEY: ANON_KEY,
  ZAYAVKA_LOG: 'info',
  // Abuse resistance (DESIGN "Settings") would count a robot's quick fill (never enough alone to
  // hold a lead) and a test's many leads from one address as a burst: off here; the tests of those
  // features (quarantine.spec.ts) give them back their defaults with null.
  ZAYAVKA_MIN_FILL_SECONDS: '0',
  ZAYAVKA_RATE_LIMIT_PER_MINUTE: '0',
  NO_COLOR: '1',
};

export interface Lead {
  id: number;
  created_at: string;
  name: string;
  phone: string;
  confirmation: string;
  comment: string | null;
  /** Null for a lead in the call list; else why it is held for review (reason codes, e.g. "automation"). */
  held: string[] | null;
}

/** An inbox account (docs/admin-api.md), created before the server starts. */
export interface Operator {
  email: string;
  /** At least 10 characters (the server's minimum). */
  password: string;
}

export interface StartOptions {
  operator?: Operator;
}

export interface RunningServer {
  baseURL: string;
  origin: string;
  anonKey: string;
  /** The SQLite file the server writes (WAL mode: another process may write it while it runs). */
  databaseFile: string;
  /** Every lead on disk, oldest first, as `zayavka leads export --format jsonl` prints them. */
  leads(): Promise<Lead[]>;
  /**
   * Runs one SQL statement on the live database, from another process (Python's sqlite3, waiting
   * up to 5 s for the server's write lock): for what no API can do, such as making a lead older.
   * `params` bind to `?` placeholders. Answers the number of rows changed.
   */
  sql(statement: string, params?: Array<string | number | null>): Promise<number>;
  /** The server's log so far (attached to a failing test's report). */
  log(): string;
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startServer(settings: Settings = {}, options: StartOptions = {}): Promise<RunningServer> {
  if (!existsSync(BINARY)) {
    throw new Error(`${BINARY} is missing: run \`make build\` in the repository first`);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'zayavka-e2e-'));
  const databaseFile = `${dir}/leads.db`;
  const databaseUrl = `sqlite://${databaseFile}`;
  if (options.operator) {
    try {
      await addOperator(databaseUrl, options.operator);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }
  // Port 0: the system picks a free port and the server's start-up line names it. A port picked
  // free beforehand could be taken by another socket before the server binds it.
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...FIXTURE_SETTINGS,
    ZAYAVKA_DATABASE_URL: databaseUrl,
  };
  for (const [name, value] of Object.entries(settings)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  const child = spawn(BINARY, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  let baseURL: string;
  try {
    baseURL = await waitUntilReady(child, () => output);
  } catch (error) {
    await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    baseURL,
    origin: baseURL,
    anonKey: env.ZAYAVKA_ANON_KEY ?? '',
    databaseFile,
    log: () => output,
    sql: (statement, params = []) => runSql(databaseFile, statement, params),
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

/** `zayavka admin add-user EMAIL --password-stdin`, as an operator sets up the first account. */
function addOperator(databaseUrl: string, operator: Operator): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, ['admin', 'add-user', operator.email, '--password-stdin'], {
      env: { ...process.env, ZAYAVKA_DATABASE_URL: databaseUrl, ZAYAVKA_LOG: 'warn', NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`zayavka admin add-user exited with ${code}:\n${output}`)),
    );
    child.stdin!.end(`${operator.password}\n`);
  });
}

// Python's own sqlite3 module (Python 3 is on every machine this runs on; Node 20 has no SQLite).
const SQL_SCRIPT = `
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=5)
with db:
    changed = db.execute(sys.argv[2], json.loads(sys.argv[3])).rowcount
db.close()
print(changed)
`;

async function runSql(file: string, statement: string, params: Array<string | number | null>): Promise<number> {
  const { stdout } = await run(process.env.PYTHON ?? 'python3', ['-c', SQL_SCRIPT, file, statement, JSON.stringify(params)]);
  return Number(stdout.trim());
}

/** Waits for the start-up line naming the bound address, then for `/readyz`; answers the base URL. */
async function waitUntilReady(child: ChildProcess, output: () => string): Promise<string> {
  const deadline = Date.now() + 10_000;
  let baseURL: string | undefined;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`zayavka exited with ${child.exitCode} at start:\n${output()}`);
    }
    baseURL ??= /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
    if (baseURL) {
      try {
        const res = await fetch(`${baseURL}/readyz`);
        if (res.status === 200) return baseURL;
      } catch {
        // not answering yet
      }
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
