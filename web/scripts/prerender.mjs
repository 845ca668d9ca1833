// Writes every page of dist/ (docs/architecture.md): runs after `vite build` (the client: one entry
// per hydrated page, the hashed assets and .vite/manifest.json) and `vite build --ssr` (dist-ssr/).
// Each page is index.html (the template) with its markup, all CSS inlined (so a page needs no second
// request; the CSS file is deleted) and its own scripts as the manifest names them.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

process.env.NODE_ENV = 'production'; // the production build of react-dom/server
const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(web, 'dist');

const { pagesManifest, prerenderAll, readManifest, uk } = await import(join(web, 'dist-ssr', 'entry-server.js'));

// The icon travels inside each page as a data: URL: as a file, a phone fetched it at high priority
// before the first paint, and Lighthouse's simulated LCP waited for it (bench/RESULTS.md, 28 Nov).
const iconLink = '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />';
const icon = encodeURIComponent(readFileSync(join(web, 'public', 'favicon.svg'), 'utf8').trim());
const template = readFileSync(join(web, 'index.html'), 'utf8').replace(
  iconLink,
  () => `<link rel="icon" href="data:image/svg+xml,${icon}" type="image/svg+xml" />`,
);
if (!template.includes('href="data:image/svg+xml,')) throw new Error(`index.html template lacks ${iconLink}`);
const manifestFile = join(dist, '.vite', 'manifest.json');
const { scripts, css: cssFiles } = readManifest(JSON.parse(readFileSync(manifestFile, 'utf8')));
const css = cssFiles.map((file) => readFileSync(join(dist, file), 'utf8')).join('\n');

for (const { file, html } of prerenderAll(template, css, scripts)) {
  if (/\sstyle=/i.test(html)) throw new Error(`${file}: style attribute found (the CSP forbids it)`);
  writeFileSync(join(dist, file), html);
  console.log(`prerendered ${file.padEnd(20)} ${String(Buffer.byteLength(html)).padStart(6)} B, ${gzipSync(html, { level: 9 }).length} B gzip`);
}
// The server routes by this list (src/site.rs), so the pages are listed once, in src/pages.ts.
writeFileSync(join(dist, 'pages.json'), `${JSON.stringify(pagesManifest(), null, 2)}\n`);
for (const file of cssFiles) rmSync(join(dist, file));
// Not a file to serve: the binary embeds everything in dist/.
rmSync(join(dist, '.vite'), { recursive: true, force: true });
rmSync(join(web, 'dist-ssr'), { recursive: true, force: true });

// The visitor's texts travel in each page's zayavka-texts block (src/texts.ts), never in a script: a
// component that imports content/uk.ts would put them there and grow every page's JavaScript.
const texts = [];
const collect = (value) => {
  if (typeof value === 'string') texts.push(value);
  else if (value && typeof value === 'object') Object.values(value).forEach(collect);
};
collect(uk);
for (const name of readdirSync(join(dist, 'assets')).filter((n) => n.endsWith('.js') && !n.startsWith('admin-'))) {
  const code = readFileSync(join(dist, 'assets', name), 'utf8');
  const found = texts.filter((text) => text.length >= 12 && code.includes(text));
  if (found.length > 0) {
    throw new Error(`assets/${name} holds visitor texts (${found.slice(0, 2).join(' | ')}): read them with useTexts()`);
  }
}

// The hashed assets never change after the build, so they are compressed here, at the highest
// levels, once; the server embeds these twins and only compresses the pages (whose settings it
// fills in at start-up) itself.
const assets = join(dist, 'assets');
for (const name of readdirSync(assets).filter((n) => /\.(js|css|svg|json)$/.test(n))) {
  const data = readFileSync(join(assets, name));
  writeFileSync(join(assets, `${name}.gz`), gzipSync(data, { level: 9 }));
  writeFileSync(
    join(assets, `${name}.br`),
    brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
  );
}
