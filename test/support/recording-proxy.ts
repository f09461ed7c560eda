/**
 * A recording HTTP proxy in front of a node's RPC port (the devnet or real Core): every request is
 * forwarded unchanged and recorded as its URL path and the JSON-RPC methods in its body, so a test can
 * check which wallet path each call was sent to.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  /** The request's URL path: `/` or `/wallet/<name>` (percent-encoded as sent). */
  path: string;
  method: string;
}

export interface RecordingProxy {
  url: string;
  calls: RecordedCall[];
  /** The recorded calls of `methods` (all of them when empty). */
  of(...methods: string[]): RecordedCall[];
  close(): Promise<void>;
}

function methodsOf(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.map((c) => (c && typeof c === 'object' && typeof (c as { method?: unknown }).method === 'string' ? (c as { method: string }).method : '?'));
  } catch {
    return ['?'];
  }
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const calls: RecordedCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      for (const method of methodsOf(body.toString('utf8'))) calls.push({ path, method });
      const out = http.request(
        { host: to.hostname, port: to.port, method: req.method, path, headers: { ...req.headers, host: to.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.on('error', () => res.destroy());
          up.pipe(res);
        },
      );
      // The node went away: a 502 when nothing was sent yet, else the reply cut (headers cannot be sent twice).
      out.on('error', () => {
        if (res.headersSent) return void res.destroy();
        res.writeHead(502);
        res.end();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    of: (...methods) => (methods.length ? calls.filter((c) => methods.includes(c.method)) : calls),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
