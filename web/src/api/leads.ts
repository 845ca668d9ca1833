// The product's one backend call (docs/product.md, Sending): insert one lead row into the CRN table through a
// PostgREST-compatible endpoint — the zayavka server itself, or a hosted Supabase project.
import type { AutomationFlag, LeadPayload } from '../form/lead';

export interface LeadEndpoint {
  /** Empty means the same origin as the page. */
  backendUrl: string;
  anonKey: string;
}

/** A slow phone connection may take long, but the visitor must not wait on a dead request forever. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** What a lead carries besides its fields when the backend handed out a page-load proof (api/proof.ts). */
export interface LeadEvidence {
  /** The proof's token, as the backend gave it. */
  proof: string;
  /** Its proof of work (api/proof.ts), when the browser could do it. */
  work?: string;
  flags: readonly AutomationFlag[];
}

export class LeadRequestError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string) {
    super(`Lead insert failed with HTTP ${status}`);
    this.name = 'LeadRequestError';
    this.status = status;
    this.body = body;
  }
}

export function leadsUrl(backendUrl: string): string {
  return backendUrl.replace(/\/+$/, '') + '/rest/v1/CRN';
}

/**
 * The insert. The proof and flag headers go only with a proof: a backend that gave none (hosted
 * Supabase) gets exactly the request it always got, as headers it does not know would fail its CORS.
 */
export function leadRequest(endpoint: LeadEndpoint, payload: LeadPayload, evidence?: LeadEvidence): RequestInit {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    apikey: endpoint.anonKey,
    Authorization: 'Bearer ' + endpoint.anonKey,
    Prefer: 'return=minimal',
  };
  if (evidence) {
    headers['X-Zayavka-Proof'] = evidence.proof;
    if (evidence.work !== undefined) headers['X-Zayavka-Work'] = evidence.work;
    if (evidence.flags.length > 0) headers['X-Zayavka-Flags'] = evidence.flags.join(' ');
  }
  return {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: payload.name,
      phone: payload.phone,
      confirmation: payload.confirmation,
      comment: payload.comment,
      ...payload.attribution,
    }),
  };
}

/**
 * Sends the lead. Resolves when the server answered 2xx; rejects with a LeadRequestError for any other
 * status, or with the network error (or an AbortError after REQUEST_TIMEOUT_MS).
 */
export async function createLead(
  endpoint: LeadEndpoint,
  payload: LeadPayload,
  evidence?: LeadEvidence,
  fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  try {
    const send = (lead: LeadPayload) =>
      fetchImpl(leadsUrl(endpoint.backendUrl), { ...leadRequest(endpoint, lead, evidence), signal: controller.signal });
    let res = await send(payload);
    let body = res.ok ? '' : await res.text().catch(() => '');
    // A hosted Supabase table made before the attribution columns refuses them (PGRST204): the lead
    // matters more than where it came from, so it goes again without them.
    const attributed = Object.keys(payload.attribution ?? {}).length > 0;
    if (res.status === 400 && attributed && unknownColumn(body)) {
      res = await send({ ...payload, attribution: undefined });
      body = res.ok ? '' : await res.text().catch(() => '');
    }
    if (!res.ok) {
      throw new LeadRequestError(res.status, body);
    }
  } finally {
    clearTimeout(timer);
  }
}

function unknownColumn(body: string): boolean {
  try {
    return JSON.parse(body)?.code === 'PGRST204';
  } catch {
    return false;
  }
}

/**
 * What the visitor must change, when the server refused the lead itself: a 400 whose PostgREST body
 * `{code, message, details, hint}` has `details` (zayavka writes there, in Ukrainian, which field
 * to fix and how). Null for anything else — a network error, another status, another body — where
 * trying again may help.
 */
export function refusalDetails(error: unknown): string | null {
  if (!(error instanceof LeadRequestError) || error.status !== 400) return null;
  try {
    const details: unknown = JSON.parse(error.body)?.details;
    return typeof details === 'string' && details.trim() !== '' ? details.trim() : null;
  } catch {
    return null;
  }
}
