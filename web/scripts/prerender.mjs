// Writes every page of dist/ (docs/architecture.md): runs after `vite build` (the client, which wrote
// dist/index.html as the template and the hashed assets) and `vite build --ssr` (dist-ssr/).
// It inlines the CSS into each page and deletes the CSS file, so a page needs no second request.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

process.env.NODE_ENV = 'production'; // the production build of react-dom/server
const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(web, 'dist');

const { prerenderAll, stylesheetHrefs } = await import(join(web, 'dist-ssr', 'entry-server.js'));

const template = readFileSync(join(dist, 'index.html'), 'utf8');
const cssFiles = stylesheetHrefs(template).map((href) => join(dist, href.replace(/^\//, '')));
const css = cssFiles.map((file) => readFileSync(file, 'utf8')).join('\n');

for (const { file, html } of prerenderAll(template, css)) {
  if (/\sstyle=/i.test(html)) throw new Error(`${file}: style attribute found (the CSP forbids it)`);
  writeFileSync(join(dist, file), html);
  console.log(`prerendered ${file.padEnd(20)} ${String(Buffer.byteLength(html)).padStart(6)} B, ${gzipSync(html, { level: 9 }).length} B gzip`);
}
for (const file of cssFiles) rmSync(file);
rmSync(join(web, 'dist-ssr'), { recursive: true, force: true });

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
