/** Node `http` servers for both interfaces, on 127.0.0.1, with the fault layer in front. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Faults, Reply } from './faults';

/** `target` is the request target as sent (path and query, undecoded); `url` its parsed form. */
export type Handler = (req: { method: string; url: URL; target: string; headers: IncomingMessage['headers']; body: string }) => Promise<Reply> | Reply;

const MAX_BODY = 64 * 1024 * 1024;

export interface Listening {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Starts a server that applies `faults` then `handler`. Never crashes on a bad request. */
export async function listen(port: number, faults: Faults, handler: Handler): Promise<Listening> {
  const server = createServer((req, res) => {
    void serve(req, res, faults, handler);
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // After listening, a server error (an accept failing when out of file descriptors, say) drops that one
  // connection, whose client sees it fail: it must not end the devnet as an uncaught 'error' event.
  server.on('error', () => undefined);
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, faults: Faults, handler: Handler): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) {
        res.writeHead(413, { 'Content-Type': 'text/plain' }).end('Request Entity Too Large');
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const latency = faults.latency();
    if (latency > 0) await new Promise((r) => setTimeout(r, latency));
    const action = faults.next();
    if (action.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (action.kind === 'reply') {
      send(res, action.reply);
      return;
    }
    const target = req.url ?? '/';
    // Concatenated, not resolved: a target like `//x` is a path here, not a host.
    const url = new URL(`http://127.0.0.1${target.startsWith('/') ? '' : '/'}${target}`);
    const reply = await handler({ method: req.method ?? 'GET', url, target, headers: req.headers, body });
    if (action.kind === 'truncate' && reply.body.length > 1) {
      const half = Buffer.from(reply.body, 'utf8').subarray(0, Math.max(1, Math.floor(Buffer.byteLength(reply.body) / 2)));
      res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(half.length) });
      res.end(half);
      return;
    }
    send(res, reply);
  } catch (e) {
    if (!res.headersSent) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`devnet internal error: ${(e as Error).message}`);
    } else {
      res.destroy();
    }
  }
}

function send(res: ServerResponse, reply: Reply): void {
  const buf = Buffer.from(reply.body, 'utf8');
  res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(buf.length) });
  res.end(buf);
}
