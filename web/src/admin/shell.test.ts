// The inbox's HTML shell against the server's Content-Security-Policy (`script-src 'self';
// style-src 'self' <hashes>`): no inline script, no inline style. The sources are ESLint's
// (eslint.config.js: no `style` attribute, no string parsed as HTML), which cannot read HTML files.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const shell = readFileSync(join(here, '..', '..', 'admin.html'), 'utf8');

describe('admin.html', () => {
  it('is a Ukrainian page that search engines leave out', () => {
    expect(shell).toContain('<html lang="uk">');
    expect(shell).toContain('<meta name="robots" content="noindex" />');
    expect(shell).toContain('<title>Заявки — вхід для операторів</title>');
  });

  it('loads its one script from a file and has no inline script or style', () => {
    expect([...shell.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script type="module" src="/src/admin/main.tsx">',
    ]);
    expect(shell).not.toMatch(/<script\b[^>]*>[^<\s]/);
    expect(shell).not.toMatch(/<style|\sstyle=/i);
  });
});
