import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { PROOF_MAX_AGE_MS, PROOF_WAIT_MS, PageProof, WORK_BITS, fetchProof, findWork, proofUrl } from './proof';

const proofAnswer = (token: string) =>
  new Response(JSON.stringify({ proof: token }), { status: 200, headers: { 'Content-Type': 'application/json' } });

/** A fetch that answers each call with the next of `answers` and records the calls. */
function scriptedFetch(...answers: Array<() => Promise<Response>>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = ((url: string, init: RequestInit) => {
    calls.push({ url, init });
    const next = answers.shift();
    return next ? next() : Promise.reject(new Error('no more answers scripted'));
  }) as typeof fetch;
  return { calls, fetchImpl };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('proofUrl', () => {
  it('is /proof on the backend, or on the same origin when the backend URL is empty', () => {
    expect(proofUrl('')).toBe('/proof');
    expect(proofUrl('https://api.example.test/')).toBe('https://api.example.test/proof');
  });
});

describe('fetchProof', () => {
  it('asks with a plain uncached GET (no CORS preflight) and keeps the token with the time', async () => {
    const { calls, fetchImpl } = scriptedFetch(async () => proofAnswer('t0k3n'));
    const proof = await fetchProof('https://api.example.test', 1000, fetchImpl, () => 42);
    expect(proof).toEqual({ token: 't0k3n', work: await findWork('t0k3n'), fetchedAt: 42 });
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('https://api.example.test/proof');
    expect(calls[0].init.method ?? 'GET').toBe('GET');
    expect(calls[0].init.headers).toBeUndefined();
    expect(calls[0].init.cache).toBe('no-store');
  });

  it('is null where there is no proof to be had (hosted Supabase: 404, CORS or network error, junk)', async () => {
    for (const answer of [
      async () => new Response('{"message":"no Route matched"}', { status: 404 }),
      () => Promise.reject(new TypeError('Failed to fetch')),
      async () => new Response('not json', { status: 200 }),
      async () => new Response('{"proof":""}', { status: 200 }),
      async () => new Response('{"proof":7}', { status: 200 }),
      async () => new Response('null', { status: 200 }),
    ]) {
      const { fetchImpl } = scriptedFetch(answer);
      expect(await fetchProof('', 1000, fetchImpl)).toBeNull();
    }
  });

  it('gives up after its timeout', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    // A server that never answers: only the abort ends the request.
    const hanging = ((_url: string, init: RequestInit) => {
      signal = init.signal ?? undefined;
      return new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal?.reason)));
    }) as typeof fetch;
    const result = fetchProof('', 3000, hanging);
    await vi.advanceTimersByTimeAsync(2999);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await result).toBeNull();
    expect(signal?.aborted).toBe(true);
  });
});

describe('findWork', () => {
  it('finds the first counter whose SHA-256 with the token starts with WORK_BITS zero bits, as the server checks', async () => {
    const work = await findWork('1764100000.abc.def');
    expect(work).toMatch(/^\d+$/);
    const hash = createHash('sha256').update(`1764100000.abc.def.${work}`).digest();
    expect(hash.readUInt32BE(0) >>> (32 - WORK_BITS)).toBe(0);
    for (let n = 0; n < Number(work); n++) {
      const miss = createHash('sha256').update(`1764100000.abc.def.${n}`).digest();
      expect(miss.readUInt32BE(0) >>> (32 - WORK_BITS)).not.toBe(0);
    }
  });

  it('is undefined without WebCrypto (a page on plain HTTP)', async () => {
    vi.stubGlobal('crypto', {});
    try {
      expect(await findWork('t0k3n')).toBeUndefined();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('PageProof', () => {
  it('hands out the proof fetched at load while it is fresh, without asking again', async () => {
    let now = 1_000_000;
    const { calls, fetchImpl } = scriptedFetch(async () => proofAnswer('first'));
    const proof = new PageProof('', fetchImpl, () => now);
    await proof.load();
    now += PROOF_MAX_AGE_MS - 1;
    expect((await proof.forSubmit())?.token).toBe('first');
    expect(calls).toHaveLength(1);
  });

  it('replaces a proof older than an hour before it is sent', async () => {
    let now = 1_000_000;
    const { calls, fetchImpl } = scriptedFetch(async () => proofAnswer('first'), async () => proofAnswer('second'));
    const proof = new PageProof('', fetchImpl, () => now);
    await proof.load();
    now += PROOF_MAX_AGE_MS;
    expect(await proof.forSubmit()).toEqual({ token: 'second', work: await findWork('second'), fetchedAt: now });
    expect(calls).toHaveLength(2);
  });

  it('sends none when the old one cannot be replaced (a stale proof is no proof)', async () => {
    let now = 1_000_000;
    const { fetchImpl } = scriptedFetch(async () => proofAnswer('first'), () => Promise.reject(new TypeError('offline')));
    const proof = new PageProof('', fetchImpl, () => now);
    await proof.load();
    now += PROOF_MAX_AGE_MS + 1;
    expect(await proof.forSubmit()).toBeNull();
  });

  it('a quick submit joins the fetch under way instead of starting another', async () => {
    let answer: (res: Response) => void = () => {};
    const { calls, fetchImpl } = scriptedFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const proof = new PageProof('', fetchImpl);
    void proof.load();
    const submitted = proof.forSubmit();
    answer(proofAnswer('just in time'));
    expect((await submitted)?.token).toBe('just in time');
    expect(calls).toHaveLength(1);
  });

  it('a submit waits at most a few seconds for a proof, then goes without', async () => {
    vi.useFakeTimers();
    const { fetchImpl } = scriptedFetch(() => new Promise<Response>(() => {}));
    const proof = new PageProof('', fetchImpl);
    void proof.load();
    let settled: unknown = 'pending';
    void proof.forSubmit().then((value) => (settled = value));
    await vi.advanceTimersByTimeAsync(PROOF_WAIT_MS - 1);
    expect(settled).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBeNull();
  });

  it('tries again at submit when the first fetch failed', async () => {
    const { calls, fetchImpl } = scriptedFetch(() => Promise.reject(new TypeError('offline')), async () => proofAnswer('later'));
    const proof = new PageProof('', fetchImpl);
    expect(await proof.load()).toBeNull();
    expect((await proof.forSubmit())?.token).toBe('later');
    expect(calls).toHaveLength(2);
  });
});
