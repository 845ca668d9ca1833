// Real tiny HTTP servers on 127.0.0.1 that stand in for outside services: a backend that fails or
// is slow (the site's one call goes to it when ZAYAVKA_BACKEND_URL points at it), and another site
// to be redirected to. Nothing here answers for the zayavka server itself.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';

/** A port nothing listens on right now (and, if not used, a target that refuses connections). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface BackendStandIn {
  url: string;
  /** Every request but the CORS preflights, in arrival order. */
  requests: SeenRequest[];
  preflights: SeenRequest[];
  /** Answers the held requests (and every later one at once). */
  release(): void;
  stop(): Promise<void>;
}

export interface BackendAnswer {
  status: number;
  /** A JSON body, as PostgREST would answer; omitted for an empty body. */
  json?: unknown;
  /** Hold every answer until release() is called: a backend on a slow connection. */
  hold?: boolean;
}

function allowCors(res: ServerResponse, requestedHeaders?: string): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (requestedHeaders !== undefined) {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', requestedHeaders);
    res.setHeader('Access-Control-Max-Age', '600');
  }
}

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return address.port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * A PostgREST-shaped backend that answers every insert with the given status, on `port` if given
 * (a service that comes back where the server was told to find it).
 */
export async function startBackend(answer: BackendAnswer, port = 0): Promise<BackendStandIn> {
  const requests: SeenRequest[] = [];
  const preflights: SeenRequest[] = [];
  let held: Array<() => void> = [];
  let released = !answer.hold;

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      if (req.method === 'OPTIONS') {
        preflights.push(seen);
        allowCors(res, String(req.headers['access-control-request-headers'] ?? ''));
        res.writeHead(204).end();
        return;
      }
      requests.push(seen);
      const respond = () => {
        allowCors(res);
        if (answer.json === undefined) {
          res.writeHead(answer.status).end();
        } else {
          res.writeHead(answer.status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(answer.json));
        }
      };
      if (released) respond();
      else held.push(respond);
    });
  });
  const bound = await listen(server, port);
  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    preflights,
    release() {
      released = true;
      const waiting = held;
      held = [];
      waiting.forEach((respond) => respond());
    },
    stop: () => close(server),
  };
}

export interface OtherSite {
  origin: string;
  /** Paths (with query) of the pages it served. */
  visits: string[];
  stop(): Promise<void>;
}

/** Another site on its own origin, to be the redirect target after a successful submit. */
export async function startOtherSite(title: string): Promise<OtherSite> {
  const visits: string[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    visits.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="uk"><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`);
  });
  const port = await listen(server);
  return { origin: `http://127.0.0.1:${port}`, visits, stop: () => close(server) };
}
