// Each page's script hydrates the component its page was prerendered with (else a hydration mismatch).
import { describe, expect, it, vi } from 'vitest';
import { PAGES } from '../pages';

const hydratePage = vi.hoisted(() => vi.fn());
vi.mock('../client', () => ({ hydratePage }));

describe("each page's script", () => {
  for (const page of PAGES.filter((p) => p.entry !== null)) {
    it(`src/entries/${page.entry}.tsx hydrates ${page.file} with the component it was prerendered with`, async () => {
      hydratePage.mockClear();
      await import(`./${page.entry}.tsx`);
      expect(hydratePage).toHaveBeenCalledTimes(1);
      expect(hydratePage).toHaveBeenCalledWith(page.page);
    });
  }
});
