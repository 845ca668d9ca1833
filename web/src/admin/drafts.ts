// Calls being written, kept in this tab's session storage so a reload loses nothing typed, but only
// while someone is signed in: a signed-out tab keeps nobody's notes about a person's health.
import { OUTCOMES } from './format';
import type { Outcome } from './api';

export interface CallDraft {
  outcome: Outcome | null;
  note: string;
  /**
   * The call last sent, the `Idempotency-Key` it went under and how many calls the lead showed
   * then, until an answer says it is recorded: sent again after a lost answer (a reload too), it
   * goes under the same key and the server records it once (ADR 0084).
   */
  sending?: { call: string; key: string; calls: number };
}

const PREFIX = 'zayavka.call-draft.';

/** Drafts as storage holds them: key → stored text. */
export type StoredDrafts = Record<string, string>;

export function readDraft(leadId: number): CallDraft {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(PREFIX + leadId) ?? 'null');
    if (saved && typeof saved === 'object') {
      const { outcome, note, sending } = saved as Record<string, unknown>;
      const { call, key, calls } = (sending ?? {}) as Record<string, unknown>;
      const kept = typeof call === 'string' && typeof key === 'string' && typeof calls === 'number';
      return {
        outcome: OUTCOMES.includes(outcome as Outcome) ? (outcome as Outcome) : null,
        note: typeof note === 'string' ? note : '',
        ...(kept ? { sending: { call, key, calls } } : {}),
      };
    }
  } catch {
    // unreadable: start empty
  }
  return { outcome: null, note: '' };
}

export function saveDraft(leadId: number, draft: CallDraft) {
  try {
    if (draft.outcome === null && draft.note === '' && !draft.sending) sessionStorage.removeItem(PREFIX + leadId);
    else sessionStorage.setItem(PREFIX + leadId, JSON.stringify(draft));
  } catch {
    // Storage off or full: the draft lives as long as the page, as without it.
  }
}

export function forgetDraft(leadId: number) {
  try {
    sessionStorage.removeItem(PREFIX + leadId);
  } catch {
    // nothing kept
  }
}

/** Removes every draft from storage and returns them. */
export function takeDrafts(): StoredDrafts {
  const drafts: StoredDrafts = {};
  try {
    const keys = Array.from({ length: sessionStorage.length }, (_, i) => sessionStorage.key(i) ?? '');
    for (const key of keys) {
      if (!key.startsWith(PREFIX)) continue;
      drafts[key] = sessionStorage.getItem(key) ?? '';
      sessionStorage.removeItem(key);
    }
  } catch {
    // Storage off: nothing was kept there.
  }
  return drafts;
}

/** Puts drafts taken by `takeDrafts` back. */
export function restoreDrafts(drafts: StoredDrafts) {
  try {
    for (const [key, value] of Object.entries(drafts)) sessionStorage.setItem(key, value);
  } catch {
    // Storage off or full: they are lost, as a reload would lose them.
  }
}
