// What the inbox's test files share (App, Team, Setup): the real app at an address, and a clean
// slate around every test.
import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { AdminRoot } from './App';
import { expectNoUnexpectedRequests } from './test-server';

/** The real inbox app, under its /admin router, opened at `path`. */
export function openInbox(path: string): void {
  window.history.replaceState(null, '', path);
  render(<AdminRoot />);
}

/**
 * Call once at the top of a test file: each test starts at a blank address with empty tab
 * storage, and ends with the app unmounted, real timers and globals back, and no request the fake
 * server did not expect.
 */
export function isolateEachTest(): void {
  beforeEach(() => {
    window.history.replaceState(null, '', '/');
    sessionStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    expectNoUnexpectedRequests();
  });
}
