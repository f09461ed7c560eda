/**
 * An HTTP proxy in front of a node's RPC port that serves every method but some: those are answered
 * as a node without them answers (-32601 "Method not found": HTTP 404 alone, an entry of a batch
 * otherwise), the rest forwarded unchanged — a node behind a method whitelist or a restricting proxy.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Call = { jsonrpc?: string; id?: unknown; method?: unknown };

export async function startRefusingProxy(target: string, refused: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const notFound = (c: Call) => ({ ...(c.jsonrpc === '2.0' ? { jsonrpc: '2.0' } : { result: null }), error: { code: -32601, message: 'Method not found' }, id: c.id ?? null });
  const forward = (req: http.IncomingMessage, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url ?? '/', headers: { ...req.headers, host: to.host, 'content-length': String(body.length) } }, (up) => {
        const chunks: Buffer[] = [];
        up.on('data', (c: Buffer) => chunks.push(c));
        up.on('end', () => resolve({ status: up.statusCode ?? 502, headers: up.headers, body: Buffer.concat(chunks) }));
      });
      out.on('error', reject);
      out.end(body);
    });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        let parsed: unknown;
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          parsed = null;
        }
        const isRefused = (c: unknown): boolean => typeof c === 'object' && c !== null && refused.includes(String((c as Call).method));
        const send = (status: number, json: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(`${JSON.stringify(json)}\n`);
        };
        if (!Array.isArray(parsed)) {
          if (isRefused(parsed)) return send(404, notFound(parsed as Call));
          const up = await forward(req, body);
          res.writeHead(up.status, up.headers);
          return res.end(up.body);
        }
        const rest = parsed.filter((c) => !isRefused(c));
        let answers: Call[] = [];
        if (rest.length > 0) {
          const up = await forward(req, Buffer.from(JSON.stringify(rest)));
          if (up.status !== 200) {
            res.writeHead(up.status, up.headers);
            return res.end(up.body);
          }
          answers = JSON.parse(up.body.toString('utf8')) as Call[];
        }
        send(200, parsed.map((c: Call) => (isRefused(c) ? notFound(c) : answers.find((a) => a.id === c.id))));
      })().catch(() => {
        res.writeHead(502);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
