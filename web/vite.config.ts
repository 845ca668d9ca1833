import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { visualizer } from 'rollup-plugin-visualizer';
import { defineConfig } from 'vitest/config';

/** Every file in src/entries/ is one page's script, named after it (src/pages.ts: `entry`). */
const entries = fileURLToPath(new URL('src/entries/', import.meta.url));
const input = Object.fromEntries(
  readdirSync(entries)
    .filter((name) => /^[\w-]+\.tsx$/.test(name))
    .map((name) => [name.replace(/\.tsx$/, ''), entries + name]),
);

export default defineConfig({
  plugins: [
    react(),
    // `npm run analyze`: what each script holds, module by module, in dist-stats/stats.html (sizes
    // before minification: read them as shares, bench/RESULTS.md has the real ones).
    process.env.ANALYZE
      ? visualizer({ filename: 'dist-stats/stats.html', template: 'treemap', gzipSize: true, brotliSize: true })
      : null,
  ],
  build: {
    // One entry per hydrated page: a page loads only its own code and the chunks it shares with the
    // others (React above all, cached from one page to the next). No index.html input:
    // scripts/prerender.mjs writes each page from the template and this manifest.
    manifest: true,
    rolldownOptions: { input },
    // The polyfill would be the only code older browsers need it for; every browser we serve has
    // native modulepreload, and an inline polyfill would break the strict CSP.
    modulePreload: { polyfill: false },
    // Fonts or images, if any ever come, stay files (inline data: URLs would bloat the HTML).
    assetsInlineLimit: 0,
  },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
    setupFiles: ['src/test-setup.ts'],
    // Vitest runs beside the PostgreSQL tests in CI; on a slow machine (4 Dec: the compile 570 s
    // against 297 s) a whole inbox test outlasted the default 5 s.
    testTimeout: 15_000,
  },
});
