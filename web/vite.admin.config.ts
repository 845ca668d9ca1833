// The operators' inbox (docs/admin-api.md), built apart from the visitor's site: its own entry
// (admin.html), run after the landing's build into the same dist/ without emptying it. A separate
// build, not a second input of vite.config.ts, so Rollup can never move shared code (React, the
// router) into a chunk the landing page would then have to load too.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  // favicon.svg and robots.txt were already copied by the landing's build.
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    // As in vite.config.ts: no inline polyfill (strict CSP), assets stay files.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: 'admin.html',
      output: {
        // Every file of this build starts with admin-, so nobody mistakes it for the landing's.
        entryFileNames: 'assets/admin-[hash].js',
        chunkFileNames: 'assets/admin-[name]-[hash].js',
        assetFileNames: 'assets/admin-[hash][extname]',
      },
    },
  },
});
