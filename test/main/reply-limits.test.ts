// Faults of both interfaces that the devnet does not produce, from a loopback proxy in front of it:
// 401 and 403 from the index (a bitaps index has no login, so these come from something in front of
// it), and replies just over the size limits — each refused with its own clear message, both by the
// clients and through the app's refresh, where the last snapshot stays as it was.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { IndexClient } from '../../electron/main/blockindex/client';
import { MAX_INDEX_REPLY_BYTES } from '../../electron/main/net/http';
import { RpcClient } from '../../electron/main/rpc/client';
import { AppError } from '../../shared/errors';
import type { WatchOverview } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';

/** What the proxy answers instead of forwarding: a status and body, or a body of `bytes` bytes. */
type Override = { status: number; body: string } | { bytes: number; json: 'rpc' | 'index' } | null;

interface SwitchProxy {
  url: string;
  set(o: Override): void;
  close(): Promise<void>;
}

/** A JSON body of exactly `n` bytes: a valid reply (to the JSON-RPC request `id`) padded inside a string. */
function paddedJson(n: number, kind: 'rpc' | 'index', id: unknown = null): Buffer {
  const head = kind === 'rpc' ? '{"result":"' : '{"data":"';
  const tail = kind === 'rpc' ? `","error":null,"id":${JSON.stringify(id)}}` : '"}';
  const pad = n - head.length - tail.length;
  if (pad < 0) throw new Error('too small');
  return Buffer.concat([Buffer.from(head), Buffer.alloc(pad, 0x61), Buffer.from(tail)]);
}

async function switchProxy(target: string): Promise<SwitchProxy> {
  const t = new URL(target);
  let override: Override = null;
  const server = http.createServer((req, res) => {
    const o = override;
    if (o && 'status' in o) {
      res.writeHead(o.status, { 'Content-Type': 'text/html' }).end(o.body);
      return;
    }
    if (o) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const body = paddedJson(o.bytes, o.json, text ? (JSON.parse(text) as { id?: unknown }).id : null);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length }).end(body);
      });
      return;
    }
    const up = http.request({ hostname: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (o) => (override = o),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

let devnet: Devnet;
let nodeProxy: SwitchProxy;
let indexProxy: SwitchProxy;

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  nodeProxy = await switchProxy(devnet.rpcUrl);
  indexProxy = await switchProxy(devnet.indexUrl);
});
afterAll(async () => {
  await nodeProxy?.close();
  await indexProxy?.close();
  await devnet?.close();
});

describe('index 401 and 403', () => {
  it('each has its own code and words, and is not retried', async () => {
    const index = new IndexClient({ url: indexProxy.url, baseDelayMs: 1 });
    try {
      indexProxy.set({ status: 401, body: '<html>401 Authorization Required</html>' });
      const e401 = await rejection(index.tip());
      expect(e401.code).toBe('index.unauthorized');
      expect(e401.message).toMatch(/^The index at 127\.0\.0\.1:\d+ asks for a login \(HTTP 401\)\. A bitaps-style index needs none and Spyglass sends none: the URL may lead to a proxy that wants one, or to another service\. Check the index URL\.$/);
      indexProxy.set({ status: 403, body: 'Forbidden' });
      const e403 = await rejection(index.tip());
      expect(e403.code).toBe('index.forbidden');
      expect(e403.message).toMatch(/^The index at 127\.0\.0\.1:\d+ refused this computer \(HTTP 403\)\. A proxy or firewall in front of it may allow only some addresses: allow this computer there, or check the index URL\.$/);
      expect(index.stats.requests).toBe(2);
    } finally {
      indexProxy.set(null);
      index.close();
    }
  });
});

describe('reply size limits', () => {
  it('the index client reads a reply of exactly its limit and refuses one byte more, unread', async () => {
    const limit = 200_000;
    const index = new IndexClient({ url: indexProxy.url, maxReplyBytes: limit, retries: 0 });
    try {
      indexProxy.set({ bytes: limit, json: 'index' });
      // Read whole: it fails only later, as a record without the fields of a block.
      expect((await rejection(index.tip())).code).toBe('index.bad_reply');
      expect((await rejection(index.tip())).message).not.toContain('limit');
      indexProxy.set({ bytes: limit + 1, json: 'index' });
      const e = await rejection(index.tip());
      expect(e.code).toBe('index.bad_reply');
      expect(e.message).toMatch(/^The index at 127\.0\.0\.1:\d+ sent a reply larger than 200,000 bytes, Spyglass's limit; it was not read, and nothing it would have changed was changed\.$/);
    } finally {
      indexProxy.set(null);
      index.close();
    }
  });

  it(`the index client's default limit is ${MAX_INDEX_REPLY_BYTES / 1048576} MiB: one byte more is refused`, async () => {
    const index = new IndexClient({ url: indexProxy.url, retries: 0 });
    try {
      indexProxy.set({ bytes: MAX_INDEX_REPLY_BYTES + 1, json: 'index' });
      expect((await rejection(index.tip())).message).toContain('larger than 64 MiB');
    } finally {
      indexProxy.set(null);
      index.close();
    }
  });

  it('the node client reads a reply of exactly its limit and refuses one byte more', async () => {
    const limit = 300_000;
    const rpc = new RpcClient({ url: nodeProxy.url, auth: { user: 'u', password: 'p' }, maxReplyBytes: limit });
    try {
      nodeProxy.set({ bytes: limit, json: 'rpc' });
      expect(((await rpc.call('getbestblockhash')) as string).length).toBe(limit - '{"result":"","error":null,"id":"spyglass-1"}'.length);
      nodeProxy.set({ bytes: limit + 1, json: 'rpc' });
      const e = await rejection(rpc.call('getbestblockhash'));
      expect(e.code).toBe('rpc.bad_reply');
      expect(e.message).toMatch(/^The node at 127\.0\.0\.1:\d+ sent a reply larger than 300,000 bytes, Spyglass's limit; it was not read/);
    } finally {
      nodeProxy.set(null);
      rpc.close();
    }
  });
});

describe('through the app: a refused reply fails the refresh and keeps the last snapshot', () => {
  let app: SpyglassApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spyglass-limits-'));
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, replyLimits: { nodeBytes: 4 * 1048576, indexBytes: 1048576 } });
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Behind proxies', nodeUrl: nodeProxy.url, auth: 'password', rpcUser: 'u', wallet: 'watch', indexUrl: indexProxy.url },
      password: 'p',
      remember: 'session',
    });
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');
    await dispatchOk(app, 'watch:refresh');
  });
  afterAll(async () => {
    nodeProxy.set(null);
    indexProxy.set(null);
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, set, code, words] of [
    ['index over its limit', () => indexProxy.set({ bytes: 1048577, json: 'index' }), 'index.bad_reply', 'larger than 1 MiB'],
    ['node over its limit', () => nodeProxy.set({ bytes: 4 * 1048576 + 1, json: 'rpc' }), 'rpc.bad_reply', 'larger than 4 MiB'],
    ['index 401', () => indexProxy.set({ status: 401, body: '' }), 'index.unauthorized', 'asks for a login (HTTP 401)'],
    ['index 403', () => indexProxy.set({ status: 403, body: '' }), 'index.forbidden', 'refused this computer (HTTP 403)'],
  ] as const) {
    it(name, async () => {
      const before = await dispatchOk<WatchOverview>(app, 'watch:overview');
      expect(before.snapshot).not.toBeNull();
      // Something to look up: a payment to a watched address in a new block.
      devnet.node.mine(1, devnet.node.scriptFor(before.balances.address[0]!));
      set();
      try {
        const r = await app.dispatch('watch:refresh', {});
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.code).toBe(code);
          expect(r.error.message).toContain(words);
        }
        const after = await dispatchOk<WatchOverview>(app, 'watch:overview');
        expect(after.snapshot).toEqual(before.snapshot);
        expect(after.balances).toEqual(before.balances);
        expect(after.lastFailure?.message).toContain(words);
      } finally {
        nodeProxy.set(null);
        indexProxy.set(null);
      }
      // Once the fault is gone the next refresh takes the new block.
      await dispatchOk(app, 'watch:refresh');
      expect((await dispatchOk<WatchOverview>(app, 'watch:overview')).snapshot?.nodeHeight).toBe(devnet.node.chain.tipHeight());
    });
  }
});
