// A stand-in for the Rust server, to look at dist/ in a browser: it serves the prerendered pages with
// the tokens filled in (HTML-escaped, as the server does), a 404 page for unknown paths, and a strict
// Content-Security-Policy built like the server's (hash of the one inline <style>), so a CSP
// violation shows up in the browser console. Usage: node scripts/serve-dist.mjs [--raw] [--port N]
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const args = process.argv.slice(2);
const raw = args.includes('--raw');
const port = Number(args[args.indexOf('--port') + 1]) || 4173;

const values = {
  __ZAYAVKA_BRAND__: 'Програма підтримки',
  __ZAYAVKA_PHONE__: '+380 44 000 00 00',
  __ZAYAVKA_PHONE_HREF__: 'tel:+380440000000',
  __ZAYAVKA_REDIRECT_URL__: '/thank-you',
  __ZAYAVKA_BACKEND_URL__: '',
  __ZAYAVKA_ANON_KEY__: 'example-anon-key',
  __ZAYAVKA_TODAY__: new Date().toLocaleDateString('uk-UA'),
};
const escape = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const fill = (html) =>
  raw ? html : html.replace(new RegExp(Object.keys(values).join('|'), 'g'), (t) => escape(values[t]));

// The pages as the build lists them for the server (src/pages.ts).
const manifest = JSON.parse(readFileSync(join(dist, 'pages.json'), 'utf8'));
const pages = Object.fromEntries(manifest.routes.map(({ path, file }) => [path, file]));
const types = { '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.txt': 'text/plain' };

function csp(html) {
  const hash = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  const loader = /<script type="module">([\s\S]*?)<\/script>/.exec(html)?.[1];
  const scripts = loader === undefined ? "'self'" : `'self' ${hash(loader)}`;
  return `default-src 'none'; script-src ${scripts}; style-src ${hash(style)}; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  if (req.method === 'POST') {
    // Enough of the server to try the form: accept everything.
    req.resume();
    req.on('end', () => {
      if (path === '/leads') res.writeHead(303, { Location: '/thank-you' }).end();
      else res.writeHead(201).end();
    });
    return;
  }
  let file = pages[path];
  let status = 200;
  if (!file) {
    const candidate = normalize(join(dist, path));
    const servable = !path.endsWith('.html') && path !== '/pages.json';
    if (servable && candidate.startsWith(dist) && existsSync(candidate) && statSync(candidate).isFile()) {
      const type = types[extname(candidate)] ?? 'application/octet-stream';
      return res.writeHead(200, { 'Content-Type': type }).end(readFileSync(candidate));
    }
    file = manifest.notFound;
    status = 404;
  }
  const html = fill(readFileSync(join(dist, file), 'utf8'));
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp(html) });
  res.end(html);
}).listen(port, '127.0.0.1', () => console.log(`dist/ on http://127.0.0.1:${port}/${raw ? ' (raw tokens)' : ''}`));
