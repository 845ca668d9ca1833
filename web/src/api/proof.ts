// The page-load proof: an opaque token the zayavka server signs (`GET {backend}/proof`), sent back
// with the lead so the server can tell a person who opened the page from a script that never did.
// A hosted Supabase backend has no such endpoint: then there is no proof, and the lead goes without.
import { REQUEST_TIMEOUT_MS } from './leads';

export interface Proof {
  token: string;
  /** The proof of work for the token (`findWork`); absent where the browser has no WebCrypto. */
  work?: string;
  /** When it was fetched (ms since the epoch), to know when it is too old to send. */
  fetchedAt: number;
}

/** Leading zero bits the server asks of SHA-256(`TOKEN.WORK`) (src/abuse.rs, WORK_BITS). */
export const WORK_BITS = 11;

/**
 * The proof of work for a token: the first counter whose SHA-256 of `TOKEN.COUNTER` starts with
 * `bits` zero bits, some 2,000 hashes (about 0.1 s on a mid-range phone, done while the visitor
 * reads). Undefined without WebCrypto, which browsers give only to secure pages (HTTPS and
 * localhost); over plain HTTP the server does not ask for it.
 */
export async function findWork(token: string, bits: number = WORK_BITS): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return undefined;
  const encoder = new TextEncoder();
  // In batches: one digest at a time would wait on a promise per hash.
  for (let start = 0; ; start += 64) {
    const counters = Array.from({ length: 64 }, (_, i) => String(start + i));
    const hashes = await Promise.all(counters.map((n) => subtle.digest('SHA-256', encoder.encode(`${token}.${n}`))));
    const found = hashes.findIndex((hash) => new DataView(hash).getUint32(0) >>> (32 - bits) === 0);
    if (found >= 0) return counters[found];
    // A task of its own per batch: the whole search in one would block taps and the page's hydration.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** A proof older than this is replaced before the lead is sent (the server lets proofs expire). */
export const PROOF_MAX_AGE_MS = 60 * 60 * 1000;

/** How long a submit waits for a proof: a person must not wait on it, a lead goes without one. */
export const PROOF_WAIT_MS = 3_000;

export function proofUrl(backendUrl: string): string {
  return backendUrl.replace(/\/+$/, '') + '/proof';
}

/**
 * Asks the backend for a proof. Null when there is none to be had (no such endpoint, an error, an
 * answer without a token, or no answer within `timeoutMs`).
 */
export async function fetchProof(
  backendUrl: string,
  timeoutMs: number,
  fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis),
  now: () => number = () => Date.now(),
): Promise<Proof | null> {
  // Its age counts from the asking: the proof of work below may take a moment.
  const fetchedAt = now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    // A plain GET without custom headers: no CORS preflight, on another origin too.
    const res = await fetchImpl(proofUrl(backendUrl), { cache: 'no-store', signal: controller.signal });
    if (!res.ok) return null;
    const token: unknown = (await res.json())?.proof;
    if (typeof token !== 'string' || token === '') return null;
    const work = await findWork(token).catch(() => undefined);
    return { token, work, fetchedAt };
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** `promise`'s value, or null if it takes longer than `ms`. */
function within<T>(promise: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The page's proof: fetched once the page runs, replaced when too old, waited for only briefly. */
export class PageProof {
  private proof: Proof | null = null;
  private pending: Promise<Proof | null> | null = null;

  constructor(
    private readonly backendUrl: string,
    private readonly fetchImpl?: typeof fetch,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Starts fetching a proof unless a fetch is already under way; settles with its result. */
  load(timeoutMs: number = REQUEST_TIMEOUT_MS): Promise<Proof | null> {
    this.pending ??= fetchProof(this.backendUrl, timeoutMs, this.fetchImpl, this.now).then((proof) => {
      if (proof) this.proof = proof;
      this.pending = null;
      return proof;
    });
    return this.pending;
  }

  /**
   * The proof to send with a lead: the one held while it is fresh; else a new one (or the fetch
   * under way), waited for at most PROOF_WAIT_MS. Null means the lead goes without.
   */
  async forSubmit(): Promise<Proof | null> {
    // One still being fetched (or worked on) is waited for, and then judged by its age too.
    if (!this.proof && this.pending && !(await within(this.pending, PROOF_WAIT_MS))) return null;
    if (this.proof && this.now() - this.proof.fetchedAt < PROOF_MAX_AGE_MS) return this.proof;
    return within(this.load(PROOF_WAIT_MS), PROOF_WAIT_MS);
  }
}
