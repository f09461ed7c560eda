// The loopback bridge: the same IPC channels over HTTP, for the app in a browser (`npm run web`) and the
// Chromium e2e suite. It binds 127.0.0.1 only, checks a random bearer token on every call (constant
// time), refuses foreign Host and Origin headers (DNS rebinding, cross-site requests), caps bodies,
// and serves the built renderer with the same CSP as the Electron window.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { eventNames, type EventName, type Events } from '../../shared/ipc/contract';
import type { IpcResult } from '../../shared/errors';
import { securityHeaders } from './security';
import type { Logger } from './log';

export interface BridgeOptions {
  dispatch(channel: string, payload: unknown): Promise<IpcResult<unknown>>;
  subscribe<E extends EventName>(event: E, fn: (payload: Events[E]) => void): () => void;
  /** Folder of the built renderer (index.html + assets); omitted = API only. */
  staticDir?: string;
  port?: number;
  /** A fixed token (tests); default 32 random bytes. */
  token?: string;
  log: Logger;
  maxBodyBytes?: number;
}

export interface Bridge {
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  token: string;
  /** The page URL carrying the token once (the renderer moves it to sessionStorage). */
  pageUrl: string;
  port: number;
  close(): Promise<void>;
}

/** A build file named by its content hash (Vite: assets/<name>-<8 characters>.js|css). */
const HASHED_ASSET = /^assets\/[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(?:js|css)$/;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

function tokenMatches(given: string | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startBridge(opts: BridgeOptions): Promise<Bridge> {
  const token = opts.token ?? randomBytes(32).toString('hex');
  // The largest channel payloads are 20 MB texts (PSBTs, label files, address lists) plus JSON quoting.
  const maxBody = opts.maxBodyBytes ?? 32 * 1024 * 1024;
  const sockets = new Set<import('node:net').Socket>();
  /** The open event streams, each with what ends its subscriptions and its ping. */
  const streams = new Map<http.ServerResponse, () => void>();
  let port = 0;

  const baseHeaders = (): Record<string, string> => {
    const h: Record<string, string> = { 'Cache-Control': 'no-store' };
    for (const [k, v] of Object.entries(securityHeaders())) h[k] = v.join(', ');
    return h;
  };
  const send = (res: http.ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void => {
    res.writeHead(status, { ...baseHeaders(), 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const denied = (res: http.ServerResponse, status: number, message: string): void =>
    send(res, status, JSON.stringify({ ok: false, error: { code: 'input.invalid', message } }));

  const server = http.createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return denied(res, 421, 'Wrong Host header.');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) return denied(res, 403, 'Cross-origin requests are refused.');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);

    if (url.pathname.startsWith('/ipc/')) {
      if (req.method !== 'POST') return denied(res, 405, 'Use POST.');
      const auth = req.headers.authorization ?? '';
      if (!tokenMatches(auth.startsWith('Bearer ') ? auth.slice(7) : null, token)) return denied(res, 401, 'Missing or wrong bridge token.');
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return denied(res, 415, 'Send application/json.');
      const channel = decodeURIComponent(url.pathname.slice(5));
      const chunks: Buffer[] = [];
      let size = 0;
      let tooBig = false;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBody) {
          tooBig = true;
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (tooBig) return;
        let payload: unknown;
        try {
          payload = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        } catch {
          return send(res, 400, JSON.stringify({ ok: false, error: { code: 'input.invalid', message: 'The request body is not JSON.' } }));
        }
        opts.dispatch(channel, payload)
          .then(
            (result) => send(res, 200, JSON.stringify(result)),
            () => send(res, 500, JSON.stringify({ ok: false, error: { code: 'internal', message: 'The bridge failed to run the request.' } })),
          )
          .catch(() => res.destroy()); // the reply could not be sent (the page left): no unhandled rejection
      });
      req.on('close', () => {
        if (tooBig && !res.headersSent) denied(res, 413, 'The request is too large.');
      });
      return;
    }

    if (url.pathname === '/events') {
      if (req.method !== 'GET') return denied(res, 405, 'Use GET.');
      if (!tokenMatches(url.searchParams.get('token'), token)) return denied(res, 401, 'Missing or wrong bridge token.');
      res.writeHead(200, { ...baseHeaders(), 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
      res.write(': spyglass events\n\n');
      // Nothing is written once the stream ended: a write after end() is an 'error' event on the response.
      const write = (text: string): void => {
        if (!res.writableEnded && !res.destroyed) res.write(text);
      };
      const unsubs = eventNames.map((name) => opts.subscribe(name, (payload) => write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`)));
      const ping = setInterval(() => write(': ping\n\n'), 15_000);
      const stop = (): void => {
        clearInterval(ping);
        unsubs.forEach((u) => u());
        streams.delete(res);
      };
      streams.set(res, stop);
      req.on('close', stop);
      res.on('error', stop); // the page's connection broke: nothing more to send it
      return;
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') return denied(res, 405, 'Use GET.');
    if (!opts.staticDir) return denied(res, 404, 'Not found.');
    const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
    const file = normalize(join(opts.staticDir, rel));
    if (!file.startsWith(normalize(opts.staticDir) + sep) || !existsSync(file) || !statSync(file).isFile()) return denied(res, 404, 'Not found.');
    // Vite's content-hashed build files never change under their name: the browser may keep them (and
    // its compiled code for them) across page loads. Everything else — index.html, early.js, every
    // IPC reply — stays no-store.
    const immutable = HASHED_ASSET.test(rel) ? { 'Cache-Control': 'public, max-age=31536000, immutable' } : {};
    res.writeHead(200, { ...baseHeaders(), ...immutable, 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  opts.log.info(`bridge listening on ${origin}`);
  return {
    origin,
    token,
    port,
    pageUrl: `${origin}/?bridgeToken=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Unsubscribed first: an event emitted while the sockets close must not write to an ended stream.
        for (const [r, stop] of [...streams]) {
          stop();
          r.end();
        }
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
