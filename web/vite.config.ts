import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  build: {
    // The polyfill would be the only code older browsers need it for; every browser we serve has
    // native modulepreload, and an inline polyfill would break the strict CSP.
    modulePreload: { polyfill: false },
    // Fonts or images, if any ever come, stay files (inline data: URLs would bloat the HTML).
    assetsInlineLimit: 0,
  },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
  },
});
