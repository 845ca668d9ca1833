// ESLint for web/src (`npm run lint`, run by `make test`): typescript-eslint, the rules of hooks
// and jsx-a11y, as the Vite React templates set them up, plus what the server's Content-Security-
// Policy and our "visitor text is never HTML" rule need (SECURITY.md): no inline style, and no
// string ever parsed as markup.
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Ways a string becomes markup or script in the page. */
const NO_MARKUP = [
  {
    selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
    message: 'Render text, never HTML: visitors write what the inbox and the site show.',
  },
  {
    selector: "MemberExpression[property.name=/^(innerHTML|outerHTML)$/]",
    message: 'Set textContent, never HTML.',
  },
  {
    selector: "CallExpression[callee.property.name=/^(insertAdjacentHTML|write|writeln|createContextualFragment)$/]",
    message: 'Build nodes, never parse HTML.',
  },
];

/** The CSP allows no inline style (`style-src 'self'` plus hashes): classes in the stylesheets instead. */
const NO_INLINE_STYLE = {
  selector: "JSXAttribute[name.name='style']",
  message: "The Content-Security-Policy refuses inline styles: use a class from the stylesheet.",
};

export default defineConfig([
  globalIgnores(['dist', 'dist-ssr']),
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommended,
      reactHooks.configs.flat.recommended,
      jsxA11y.flatConfigs.recommended,
    ],
    languageOptions: {
      ecmaVersion: 2022,
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-restricted-syntax': ['error', ...NO_MARKUP, NO_INLINE_STYLE],
      // A leading underscore marks a binding left unused on purpose (as tsc's noUnusedParameters reads it).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests run in Node too, and set up prerendered markup on purpose (the page as the server sends it).
    files: ['src/**/*.test.{ts,tsx}', 'src/**/test-*.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: { 'no-restricted-syntax': ['error', NO_INLINE_STYLE] },
  },
]);
