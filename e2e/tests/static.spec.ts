// `zayavka build-static DIR`: the site written for a static host or CDN still takes leads, straight
// to the backend it was built for (here a real zayavka server on another origin, through CORS).
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '../support/fixtures';
import { BINARY } from '../support/server';
import { fillLead, leadForm, openLanding } from '../support/visitor';

const run = promisify(execFile);
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.svg': 'image/svg+xml' };

/** A plain static host: files as they are, `/x` from `x/index.html`, otherwise `404.html`. */
async function serveFolder(root: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    for (const candidate of [urlPath, path.join(urlPath, 'index.html')]) {
      const file = path.join(root, path.normalize(candidate));
      if (file.startsWith(root) && (await stat(file).catch(() => null))?.isFile()) {
        res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
        createReadStream(file).pipe(res);
        return;
      }
    }
    res.writeHead(404, { 'Content-Type': TYPES['.html'] });
    createReadStream(path.join(root, '404.html')).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

test('the site written by build-static sends its lead to the configured backend', async ({ page, startZayavka }) => {
  const backend = await startZayavka();
  const dir = await mkdtemp(path.join(tmpdir(), 'zayavka-static-'));
  await run(BINARY, ['build-static', dir], {
    env: { ...process.env, ZAYAVKA_BACKEND_URL: backend.baseURL, ZAYAVKA_ANON_KEY: backend.anonKey },
  });
  const site = await serveFolder(dir);
  try {
    await openLanding(page, `${site.url}/`);
    await fillLead(page, { name: 'Оксана', phone: '+380 50 765 43 21', answer: 'Ні', comment: 'зі статичного сайту' });
    await leadForm(page).submit.click();

    await page.waitForURL(`${site.url}/thank-you`);
    const leads = await backend.leads();
    expect(leads).toHaveLength(1);
    // The static site fetched its page-load proof from that backend: the lead is in the call list.
    expect(leads[0]).toMatchObject({ name: 'Оксана', phone: '+380 50 765 43 21', confirmation: 'Ні', held: null });
  } finally {
    await new Promise((resolve) => site.server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
});
