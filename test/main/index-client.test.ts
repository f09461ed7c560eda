/**
 * IndexClient against the REAL devnet index over loopback: replies compared with the devnet's chain
 * and its RPC, error statuses, every fault mode, the server's 429 limit, the client's own rate limit
 * and concurrency cap as observed server-side (through a recording proxy), timeouts, cancellation.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { REGTEST_GENESIS_HASH } from '../../devnet/chain/chain';
import type { FaultMode } from '../../devnet/faults';
import { AppError, type ErrorCode } from '../../shared/errors';
import { IndexClient } from '../../electron/main/blockindex/client';
import type { IndexClientOptions } from '../../electron/main/blockindex/client-options';
import { retryAfterMs } from '../../electron/main/blockindex/http-status';
import { TestRpc } from '../support/rpc';

let devnet: Devnet;
let rpc: TestRpc;
const clients: IndexClient[] = [];

/** A client on the devnet index with short backoff (tests assert on counts, not on delays). */
function client(o: Partial<IndexClientOptions> = {}): IndexClient {
  const c = new IndexClient({ url: devnet.indexUrl, baseDelayMs: 5, ...o });
  clients.push(c);
  return c;
}

/** The AppError a promise rejects with (fails when it resolves or rejects with anything else). */
async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.message, 'no stack in the message').not.toMatch(/\n\s+at |\.ts:\d+/);
    expect(err.message.length).toBeLessThan(400);
    return err;
  }
  throw new Error('expected a rejection');
}

async function expectCode(p: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const err = await failure(p);
  expect(err.code, err.message).toBe(code);
  return err;
}

/** A loopback proxy in front of the devnet index that records what the SERVER side sees. */
interface Proxy {
  url: string;
  arrivals: { t: number; path: string }[];
  maxInFlight: number;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const state = { arrivals: [] as { t: number; path: string }[], inFlight: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    state.arrivals.push({ t: performance.now(), path: req.url ?? '' });
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const up = http.request(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers, agent }, (ur) => {
      const chunks: Buffer[] = [];
      ur.on('data', (c: Buffer) => chunks.push(c));
      ur.on('end', () => {
        // Counted out BEFORE the reply leaves, so the count never includes a request the client has finished.
        state.inFlight--;
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        res.end(Buffer.concat(chunks));
      });
    });
    up.on('error', () => {
      state.inFlight--;
      res.destroy();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get arrivals() {
      return state.arrivals;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((r) => {
        agent.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** The most arrivals in any half-open window [t, t + ms) that starts at an arrival. */
function maxPerWindow(times: number[], ms: number): number {
  const ts = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0; i < ts.length; i++) {
    let n = 0;
    for (let j = i; j < ts.length && ts[j]! < ts[i]! + ms; j++) n++;
    max = Math.max(max, n);
  }
  return max;
}

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', seed: 'index-client', rpcUser: 'u', rpcPassword: 'p' });
  rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
}, 120_000);

afterEach(() => {
  devnet.setFaults('index', {});
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await devnet?.close();
});

describe('replies match the devnet chain', () => {
  it('block 0, a height, a hash, last; tip and genesisHash agree with the RPC', async () => {
    const c = client();
    const chain = devnet.node.chain;
    const genesis = await c.block(0);
    expect(genesis.hash).toBe(REGTEST_GENESIS_HASH);
    expect(genesis.hash).toBe(await rpc.call('getblockhash', [0]));
    expect(await c.genesisHash()).toBe(REGTEST_GENESIS_HASH);

    const b = await c.block(42);
    const cb = chain.blockAt(42)!;
    expect([b.height, b.hash, b.merkleRoot, b.previousBlockHash, b.transactionsCount]).toEqual([42, cb.hash, cb.merkleRoot, cb.prevHash, cb.txs.length]);
    expect(b.hash).toBe(await rpc.call('getblockhash', [42]));
    expect(typeof b.amount).toBe('bigint');
    expect(b.amount).toBe(cb.txs.reduce((s, tx) => s + tx.vout.reduce((a, o) => a + o.value, 0n), 0n));
    expect(await c.block('42')).toEqual(b);
    expect(await c.block(cb.hash.toUpperCase())).toEqual(b);
    expect(await c.blockHash(42)).toBe(cb.hash);

    const tipHeight = await rpc.call<number>('getblockcount');
    const tipHash = await rpc.call<string>('getbestblockhash');
    expect(tipHeight).toBe(chain.tipHeight());
    expect(await c.tip()).toEqual({ height: tipHeight, hash: tipHash });
    const last = await c.block('last');
    expect([last.height, last.hash, last.nextBlockHash, last.confirmations]).toEqual([tipHeight, tipHash, null, 1]);
    expect(c.stats).toMatchObject({ retries: 0, rateLimited: 0 });
  });

  it('transactions: txid, amounts as bigint, vIn/vOut counts and values, fee (confirmed, coinbase, mempool)', async () => {
    const c = client();
    const chain = devnet.node.chain;
    let checked = 0;
    for (let h = 1; h <= chain.tipHeight() && checked < 12; h++) {
      const block = chain.blockAt(h)!;
      if (block.txs.length < 2) continue;
      for (const [i, ctx] of block.txs.entries()) {
        const t = await c.transaction(ctx.txid);
        expect(t.txId).toBe(ctx.txid);
        expect(t.hash).toBe(ctx.wtxid);
        expect([t.blockHeight, t.blockHash, t.blockIndex, t.coinbase]).toEqual([h, block.hash, i, ctx.coinbase]);
        expect(t.vIn).toHaveLength(ctx.vin.length);
        expect(t.vOut).toHaveLength(ctx.vout.length);
        expect(t.vOut.map((o) => o.value)).toEqual(ctx.vout.map((o) => o.value));
        expect(t.vOut.every((o) => typeof o.value === 'bigint')).toBe(true);
        expect(t.amount).toBe(ctx.vout.reduce((s, o) => s + o.value, 0n));
        if (ctx.coinbase) {
          expect(t.vIn[0]).toMatchObject({ coinbase: true, amount: null });
          expect(t.fee).toBe(0n);
        } else {
          const ins = ctx.vin.map((v) => chain.output(v.txid, v.vout)!.value);
          expect(t.vIn.map((x) => x.amount)).toEqual(ins);
          expect(t.vIn.map((x) => [x.txId, x.vOut])).toEqual(ctx.vin.map((v) => [v.txid, v.vout]));
          expect(t.fee).toBe(ins.reduce((s, v) => s + v, 0n) - t.amount);
          expect(t.fee > 0n).toBe(true);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);

    const mempool = chain.mempoolTxs()[0]!;
    const m = await c.transaction(mempool.txid);
    expect([m.blockHeight, m.confirmations, m.merkleProof]).toEqual([null, null, null]);
    expect(m.mempoolRank).toBeGreaterThanOrEqual(1);
  });

  it('addressUtxo equals the chain’s confirmed unspent outputs (a watched address and the mining address, paged)', async () => {
    const chain = devnet.node.chain;
    const rows = await rpc.call<Array<{ address: string }>>('listunspent', [1], 'watch');
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.address, (counts.get(r.address) ?? 0) + 1);
    const watched = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const coinbase = await client().transaction(chain.blockAt(1)!.txs[0]!.txid);
    const miner = coinbase.vOut[0]!.address!;
    expect(miner).toMatch(/^bcrt1/);

    for (const [address, pageSize] of [[watched, 5000], [miner, 7]] as const) {
      const c = client({ utxoPageSize: pageSize });
      const got = await c.addressUtxo(address);
      const want = chain
        .unspentForScript(devnet.node.scriptFor(address))
        .filter((o) => o.height !== null)
        .map((o) => ({ txId: o.txid, vOut: o.vout, block: o.height, txIndex: o.txIndex, amount: o.value }));
      expect(want.length, address).toBeGreaterThan(0);
      expect(got.map(({ type: _type, ...u }) => u)).toEqual(want);
      expect(got.every((u) => typeof u.amount === 'bigint')).toBe(true);
      expect(c.stats.requests).toBe(Math.floor(want.length / pageSize) + 1);
      if (pageSize === 7) expect(want.length).toBeGreaterThan(14); // really several pages
    }
  });
});

describe('P2PKH addresses and the P2PK outputs of their key', () => {
  it('a P2PKH address gets only the outputs paying its own script (asked with type=P2PKH), not those paying its key directly', async () => {
    const address = await rpc.call<string>('getnewaddress', ['p2pk test', 'legacy'], 'watch');
    expect(address).toMatch(/^[mn]/);
    const { pubkey } = await rpc.call<{ pubkey: string }>('getaddressinfo', [address], 'watch');
    await rpc.call('sendtoaddress', [address, 0.25], 'miner');
    // A block whose coinbase pays the key directly: <pubkey> OP_CHECKSIG.
    const p2pk = Uint8Array.from(Buffer.from(`21${pubkey}ac`, 'hex'));
    devnet.node.mine(1, p2pk);
    const coinbase = devnet.node.chain.blockAt(devnet.node.chain.tipHeight())!.txs[0]!;
    // The index offers both when asked without `type` (so this test can fail):
    const raw = (await (await fetch(`${devnet.indexUrl}/v1/blockchain/address/utxo/${address}`)).json()) as { data: Array<{ txId: string; type: string }> };
    expect(raw.data.map((e) => e.type).sort()).toEqual(['P2PKH', 'PUBKEY']);
    expect(raw.data.find((e) => e.type === 'PUBKEY')!.txId).toBe(coinbase.txid);

    const proxy = await startProxy(devnet.indexUrl);
    try {
      const c = new IndexClient({ url: proxy.url });
      clients.push(c);
      const got = await c.addressUtxo(address);
      expect(proxy.arrivals.map((a) => a.path)).toEqual([`/v1/blockchain/address/utxo/${address}?limit=5000&page=1&type=P2PKH`]);
      const want = devnet.node.chain.unspentForScript(devnet.node.scriptFor(address));
      expect(got.map((u) => `${u.txId}:${u.vOut}:${u.amount}`)).toEqual(want.map((o) => `${o.txid}:${o.vout}:${o.value}`));
      expect(got.map((u) => u.amount)).toEqual([25_000_000n]);
      // Other kinds of address are asked without `type`.
      const bech = await rpc.call<string>('getnewaddress', [], 'watch');
      await c.addressUtxo(bech);
      expect(proxy.arrivals.at(-1)!.path).toBe(`/v1/blockchain/address/utxo/${bech}?limit=5000&page=1`);
    } finally {
      await proxy.close();
    }
  });
});

describe('not found and invalid', () => {
  it('unknown transaction, block beyond the tip, unknown block hash → index.not_found', async () => {
    const c = client();
    const unknown = 'ab'.repeat(32);
    const e1 = await expectCode(c.transaction(unknown), 'index.not_found');
    expect(e1.message).toContain(unknown);
    const beyond = devnet.node.chain.tipHeight() + 1;
    const e2 = await expectCode(c.block(beyond), 'index.not_found');
    expect(e2.message).toContain(`height ${beyond}`);
    expect(e2.detail).toMatchObject({ status: 404, errorCode: 0 });
    await expectCode(c.block('cd'.repeat(32)), 'index.not_found');
    expect(c.stats.retries).toBe(0);
  });

  it('a bad address → index.invalid with the server’s message', async () => {
    const c = client();
    const e = await expectCode(c.addressUtxo('bcrt1qinvalidaddressxxxxxxxxxxxxxxxxxxxxxx'), 'index.invalid');
    expect(e.message).toContain('invalid address');
    expect(e.detail).toMatchObject({ status: 400, errorCode: 5, serverMessage: 'invalid address' });
    const main = await expectCode(c.addressUtxo('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'), 'index.invalid');
    expect(main.message).toContain('mainnet address is invalid for testnet');
  });

  it('malformed arguments are rejected locally, before any request', async () => {
    const c = client();
    await expectCode(c.transaction('xyz'), 'input.invalid');
    await expectCode(c.transaction('g'.repeat(64)), 'input.invalid');
    await expectCode(c.transaction('ab'.repeat(31)), 'input.invalid');
    await expectCode(c.transaction('../block/0'), 'input.invalid');
    await expectCode(c.block(-1), 'input.invalid');
    await expectCode(c.block(1.5), 'input.invalid');
    await expectCode(c.block('12abc'), 'input.invalid');
    await expectCode(c.block('tip'), 'input.invalid');
    await expectCode(c.addressUtxo('bcrt1q/../../x'), 'input.invalid');
    await expectCode(c.addressUtxo(''), 'input.invalid');
    expect(c.stats.requests).toBe(0);
  });

  it('bad options and URLs are rejected by the constructor', () => {
    for (const o of [{ url: 'not a url' }, { url: 'ftp://x' }, { url: 'http://u:p@x' }, { url: 'http://x/?a=1' }, { url: 'http://x', concurrency: 0 }, { url: 'http://x', retries: -1 }, { url: 'http://x', rateLimit: { requests: 0, perMs: 1 } }]) {
      expect(() => new IndexClient(o), JSON.stringify(o)).toThrow(AppError);
    }
  });
});

describe('fault modes of the devnet index', () => {
  const cases: [FaultMode, ErrorCode, boolean, RegExp][] = [
    ['http500', 'index.http', false, /HTTP 500.*internal server error/],
    ['http502', 'index.http', true, /HTTP 502.*502: Bad Gateway/],
    ['http503', 'index.http', true, /HTTP 503.*503: Service Unavailable/],
    ['html', 'index.http', true, /HTTP 502.*HTML page.*502 Bad Gateway/],
    ['truncated', 'index.bad_reply', false, /its JSON is cut off/],
    ['reset', 'net.reset', true, /reset/],
    ['garbage', 'index.bad_reply', false, /not valid JSON/],
  ];
  it.each(cases)('%s → %s (retried: %s)', async (mode, code, retried, message) => {
    devnet.setFaults('index', { mode });
    const c = client({ retries: 2 });
    const e = await expectCode(c.block(3), code);
    expect(e.message).toMatch(message);
    expect(c.stats.retries).toBe(retried ? 2 : 0);
    expect(c.stats.requests).toBe(retried ? 3 : 1);
  });

  it('a transient 503 is retried and the call succeeds', async () => {
    devnet.setFaults('index', { mode: 'http503', every: 2 });
    const c = client();
    expect((await c.block(1)).height).toBe(1); // request 1 passes
    expect((await c.block(2)).height).toBe(2); // request 2 is a 503, its retry passes
    expect(c.stats).toMatchObject({ requests: 3, retries: 1 });
  });

  it('a reset on a kept-alive connection is retried transparently', async () => {
    devnet.setFaults('index', { mode: 'reset', every: 2 });
    const c = client();
    // Requests 2, 4, 6, … are reset: every call after the first meets one reset and retries once.
    for (let h = 0; h < 6; h++) expect((await c.block(h)).height).toBe(h);
    expect(c.stats).toMatchObject({ requests: 11, retries: 5 });
  });
});

describe('the server’s rate limit (429)', () => {
  it('a burst of 10 calls against 3 per second: all succeed after honouring Ratelimit-Reset', async () => {
    devnet.setFaults('index', { rateLimit: { limit: 3, windowSeconds: 1 } });
    const c = client({ retries: 6 });
    const blocks = await Promise.all(Array.from({ length: 10 }, (_, i) => c.block(i)));
    expect(blocks.map((b) => b.height)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(c.stats.rateLimited).toBeGreaterThan(0);
    expect(c.stats.retries).toBe(c.stats.rateLimited);
    expect(c.stats.requests).toBe(10 + c.stats.rateLimited);
    expect(c.stats.throttledMs).toBeGreaterThan(500);
  });

  it('still limited after the retries → index.rate_limited with retryAfterMs', async () => {
    devnet.setFaults('index', { rateLimit: { limit: 1, windowSeconds: 5 } });
    const c = client({ retries: 0 });
    await c.block(0);
    const e = await expectCode(c.block(1), 'index.rate_limited');
    expect(e.message).toMatch(/^The index is rate-limiting us \(HTTP 429\); try again in [1-5] s or raise its limit\.$/);
    expect(e.retryAfterMs).toBeGreaterThan(0);
    expect(e.retryAfterMs).toBeLessThanOrEqual(5000);
    expect(c.stats).toMatchObject({ requests: 2, rateLimited: 1, retries: 0 });
  });

  it('a Ratelimit-Reset longer than maxRetryAfterMs is not waited for', async () => {
    devnet.setFaults('index', { rateLimit: { limit: 1, windowSeconds: 30 } });
    const c = client({ retries: 3, maxRetryAfterMs: 1000 });
    await c.block(0);
    const t0 = performance.now();
    const e = await expectCode(c.block(1), 'index.rate_limited');
    expect(e.retryAfterMs).toBeGreaterThan(1000);
    expect(c.stats).toMatchObject({ requests: 2, retries: 0 });
    // Not retried (above), and not waited for: the reset is most of 30 s away, which no busy
    // machine mistakes for the few milliseconds of two loopback requests.
    expect(performance.now() - t0).toBeLessThan(e.retryAfterMs! / 2);
  });

  it('retryAfterMs reads delta seconds, UNIX times and Retry-After', () => {
    const now = 1_700_000_000_000;
    expect(retryAfterMs({ 'ratelimit-reset': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'ratelimit-reset': '1700000004' }, now)).toBe(4000);
    expect(retryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': new Date(now + 7000).toUTCString() }, now)).toBe(7000);
    expect(retryAfterMs({}, now)).toBeUndefined();
    expect(retryAfterMs({ 'ratelimit-reset': 'soon' }, now)).toBeUndefined();
  });
});

describe('the client’s own limits, observed server-side', () => {
  it('rateLimit 5 per 1000 ms: 12 calls never make more than 5 requests in any 1000 ms window', async () => {
    const proxy = await startProxy(devnet.indexUrl);
    try {
      const c = new IndexClient({ url: proxy.url, rateLimit: { requests: 5, perMs: 1000 } });
      clients.push(c);
      const blocks = await Promise.all(Array.from({ length: 12 }, (_, i) => c.block(i)));
      expect(blocks.map((b) => b.height)).toEqual([...Array(12).keys()]);
      const times = proxy.arrivals.map((a) => a.t);
      expect(times).toHaveLength(12);
      expect(maxPerWindow(times, 1000)).toBe(5);
      expect(c.stats.throttledMs).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('defaults: 15 per 5 s and 4 at once for a remote host, no limit and 16 at once on loopback', () => {
    const remote = new IndexClient({ url: 'https://index.example.invalid' });
    clients.push(remote);
    expect(remote.settings).toMatchObject({ rateLimit: { requests: 15, perMs: 5000 }, concurrency: 4, retries: 3, timeoutMs: 20_000, maxRetryAfterMs: 60_000 });
    const local = new IndexClient({ url: devnet.indexUrl });
    clients.push(local);
    expect(local.settings).toMatchObject({ rateLimit: null, concurrency: 16 });
    const v6 = new IndexClient({ url: 'http://[::1]:3000', rateLimit: { requests: 2, perMs: 100 } });
    clients.push(v6);
    expect(v6.settings).toMatchObject({ rateLimit: { requests: 2, perMs: 100 }, concurrency: 16 });
  });

  it('concurrency 3: at most 3 requests in flight at the server, FIFO order', async () => {
    devnet.setFaults('index', { latencyMs: 60 });
    const proxy = await startProxy(devnet.indexUrl);
    try {
      const c = new IndexClient({ url: proxy.url, concurrency: 3 });
      clients.push(c);
      await Promise.all(Array.from({ length: 12 }, (_, i) => c.block(i)));
      expect(proxy.maxInFlight).toBe(3);

      const one = new IndexClient({ url: proxy.url, concurrency: 1 });
      clients.push(one);
      proxy.arrivals.length = 0;
      await Promise.all([5, 3, 8, 1, 7].map((h) => one.block(h)));
      expect(proxy.arrivals.map((a) => a.path)).toEqual([5, 3, 8, 1, 7].map((h) => `/v1/blockchain/block/${h}`));
    } finally {
      await proxy.close();
    }
  });

  it('requests are GETs with Content-Type: application/json on kept-alive connections', async () => {
    const seen: { method?: string; type?: string; port?: number }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ method: req.method, type: req.headers['content-type'], port: req.socket.remotePort });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data": [], "time": 0.0}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const c = new IndexClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/` });
      clients.push(c);
      expect(await c.addressUtxo('bcrt1qexampleexampleexample')).toEqual([]);
      expect(await c.addressUtxo('bcrt1qexampleexampleexample')).toEqual([]);
      expect(seen).toHaveLength(2);
      expect(seen.every((s) => s.method === 'GET' && s.type === 'application/json')).toBe(true);
      expect(seen[0]!.port).toBe(seen[1]!.port); // one connection, kept alive
      c.close();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

/** A loopback server that answers with the given replies in turn (the last one repeats). */
async function scripted(replies: { status: number; headers?: Record<string, string>; body: string }[]): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = http.createServer((_req, res) => {
    const r = replies[Math.min(n++, replies.length - 1)]!;
    res.writeHead(r.status, r.headers ?? { 'Content-Type': 'application/json' }).end(r.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => n,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('replies the devnet does not produce (scripted server)', () => {
  const OK_UTXO = { status: 200, body: '{"data": [], "time": 0.0}' };
  const ADDRESS = 'bcrt1qexampleexampleexample';

  it('429 without Ratelimit-Reset: backs off (capped by maxRetryAfterMs) and retries', async () => {
    const s = await scripted([{ status: 429, headers: { 'Content-Type': 'text/plain' }, body: 'slow down' }, OK_UTXO]);
    try {
      const c = new IndexClient({ url: s.url, maxRetryAfterMs: 50 });
      clients.push(c);
      expect(await c.addressUtxo(ADDRESS)).toEqual([]);
      expect(c.stats).toMatchObject({ requests: 2, retries: 1, rateLimited: 1 });
    } finally {
      await s.close();
    }
  });

  it('a server that ignores type=P2PKH: its "PUBKEY" entries are dropped, paging still counts them', async () => {
    const p2pkh = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn'; // a regtest P2PKH address
    const entry = (vOut: number, type: string): string => `{"txId": "${'ab'.repeat(32)}", "vOut": ${vOut}, "block": 5, "txIndex": 1, "amount": 1000, "type": "${type}"}`;
    const s = await scripted([
      { status: 200, body: `{"data": [${entry(0, 'P2PKH')}, ${entry(1, 'PUBKEY')}], "time": 0.0}` },
      { status: 200, body: `{"data": [${entry(2, 'PUBKEY')}], "time": 0.0}` },
    ]);
    try {
      const c = new IndexClient({ url: s.url, utxoPageSize: 2 });
      clients.push(c);
      expect((await c.addressUtxo(p2pkh)).map((u) => [u.vOut, u.type])).toEqual([[0, 'P2PKH']]);
      expect(s.hits()).toBe(2); // a full page of 2 (one of them PUBKEY) asks for the next
    } finally {
      await s.close();
    }
  });

  it('a short page of 100+ entries is followed by the next (the server drops mempool-spent outputs after paging); a repeated page ends the list', async () => {
    const address = 'bcrt1qexampleexampleexample';
    const entries = (from: number, n: number): string =>
      Array.from({ length: n }, (_, i) => `{"txId": "${'cd'.repeat(32)}", "vOut": ${from + i}, "block": 7, "txIndex": 2, "amount": 546}`).join(', ');
    const page = (from: number, n: number) => ({ status: 200, body: `{"data": [${entries(from, n)}], "time": 0.0}` });
    // limit 200: page 1 lost 50 entries to mempool spends (150 left), page 2 has 10 more.
    let s = await scripted([page(0, 150), page(200, 10)]);
    try {
      const c = new IndexClient({ url: s.url, utxoPageSize: 200 });
      clients.push(c);
      expect((await c.addressUtxo(address)).map((u) => u.vOut)).toEqual([...Array.from({ length: 150 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 200 + i)]);
      expect(s.hits()).toBe(2);
    } finally {
      await s.close();
    }
    // Fewer than 100 entries on a page that is not full: the last page, no further request.
    s = await scripted([page(0, 99), page(200, 10)]);
    try {
      const c = new IndexClient({ url: s.url, utxoPageSize: 200 });
      clients.push(c);
      expect(await c.addressUtxo(address)).toHaveLength(99);
      expect(s.hits()).toBe(1);
    } finally {
      await s.close();
    }
    // A server that ignores `page` and sends the same full page every time: stops at the first repeat.
    s = await scripted([page(0, 200)]);
    try {
      const c = new IndexClient({ url: s.url, utxoPageSize: 200 });
      clients.push(c);
      expect(await c.addressUtxo(address)).toHaveLength(200);
      expect(s.hits()).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('a transaction the server marks invalid (it lost a double spend) → index.not_found saying so, not a bad reply', async () => {
    // The devnet's record of a real transaction, turned into what the server sends once it was double-spent (spec §3.4).
    const txid = devnet.node.chain.blockAt(2)!.txs[0]!.txid;
    const real = (await (await fetch(`${devnet.indexUrl}/v1/blockchain/transaction/${txid}`)).json()) as { data: Record<string, unknown> };
    const { blockHash: _h, blockHeight: _bh, blockIndex: _bi, blockTime: _bt, adjustedTimestamp: _at, confirmations: _c, ...rest } = real.data;
    const body = JSON.stringify({ data: { ...rest, valid: false, conflict: { doublespend: ['ef'.repeat(32)] } }, time: 0.001 });
    const s = await scripted([{ status: 200, body }]);
    try {
      const c = new IndexClient({ url: s.url });
      clients.push(c);
      const e = await expectCode(c.transaction(txid), 'index.not_found');
      expect(e.message).toBe(`The index marks transaction ${txid} invalid: it lost a double spend, so it is in neither the chain nor the mempool.`);
      expect(s.hits()).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('504 is retried; 200 with an HTML page and 400 without a bitaps body are not', async () => {
    const s = await scripted([{ status: 504, headers: { 'Content-Type': 'text/html' }, body: '<html><title>504 Gateway Time-out</title></html>' }, OK_UTXO]);
    try {
      const c = new IndexClient({ url: s.url, baseDelayMs: 1 });
      clients.push(c);
      expect(await c.addressUtxo(ADDRESS)).toEqual([]);
      expect(c.stats.retries).toBe(1);
    } finally {
      await s.close();
    }
    const html = await scripted([{ status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html><head><title>Captive portal</title></head></html>' }]);
    try {
      const c = new IndexClient({ url: html.url });
      clients.push(c);
      const e = await expectCode(c.block(1), 'index.bad_reply');
      expect(e.message).toBe("The index's reply to GET /v1/blockchain/block/1 is not what a bitaps-style index sends: it is an HTML page, not JSON (Captive portal).");
      expect(html.hits()).toBe(1);
    } finally {
      await html.close();
    }
    const plain = await scripted([{ status: 400, headers: { 'Content-Type': 'text/plain' }, body: 'Bad Request' }]);
    try {
      const c = new IndexClient({ url: plain.url });
      clients.push(c);
      const e = await expectCode(c.addressUtxo(ADDRESS), 'index.invalid');
      expect(e.message).toContain('"Bad Request"');
    } finally {
      await plain.close();
    }
  });

  it('a reply for another block or transaction than asked is a bad reply', async () => {
    const block = JSON.parse(readFileSync('/work/shared/fixtures/index-samples/bgl_block_37258.json', 'utf8')) as unknown;
    const s = await scripted([{ status: 200, body: JSON.stringify(block) }]);
    try {
      const c = new IndexClient({ url: s.url });
      clients.push(c);
      expect((await c.block('last')).height).toBe(37258);
      expect((await expectCode(c.block(5), 'index.bad_reply')).message).toContain('it holds the block at height 37258, not 5');
    } finally {
      await s.close();
    }
  });
});

describe('timeouts, cancellation, unreachable', () => {
  it('latency beyond timeoutMs → net.timeout, retried', async () => {
    devnet.setFaults('index', { latencyMs: 400 });
    const c = client({ timeoutMs: 100, retries: 1 });
    const e = await expectCode(c.block(0), 'net.timeout');
    expect(e.message).toMatch(/did not answer within 0\.1 s/);
    expect(c.stats).toMatchObject({ requests: 2, retries: 1 });
  });

  it('abort of a running request → cancelled', async () => {
    // The index holds its answer 30 s: the request is cancelled long before it (a margin no busy
    // machine eats), not answered, nor failed when the answer finally came.
    const LATENCY_MS = 30_000;
    devnet.setFaults('index', { latencyMs: LATENCY_MS });
    const c = client({ timeoutMs: 2 * LATENCY_MS });
    const ac = new AbortController();
    const t0 = performance.now();
    const p = c.block(0, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const e = await expectCode(p, 'cancelled');
    expect(e.message).toBe('The request to the index was cancelled.');
    expect(performance.now() - t0).toBeLessThan(LATENCY_MS / 2);
    await expectCode(c.block(0, { signal: ac.signal }), 'cancelled'); // already aborted
  });

  it('abort of a queued request removes it from the queue: it is never sent', async () => {
    devnet.setFaults('index', { latencyMs: 150 });
    const c = client({ concurrency: 1 });
    const ac = new AbortController();
    const first = c.block(1);
    const second = c.block(2, { signal: ac.signal });
    const third = c.block(3);
    ac.abort();
    await expectCode(second, 'cancelled');
    expect((await first).height).toBe(1);
    expect((await third).height).toBe(3);
    expect(c.stats.requests).toBe(2);
  });

  it('abort while waiting to retry → cancelled', async () => {
    devnet.setFaults('index', { mode: 'http503' });
    const c = client({ retries: 10, baseDelayMs: 2000 });
    const ac = new AbortController();
    const p = c.block(0, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expectCode(p, 'cancelled');
  });

  it('abort while waiting for the client’s own rate limit → cancelled, not sent', async () => {
    const c = client({ rateLimit: { requests: 1, perMs: 60_000 } });
    await c.block(0);
    const ac = new AbortController();
    const p = c.block(1, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expectCode(p, 'cancelled');
    expect(c.stats.requests).toBe(1);
  });

  it('close() cancels running and queued calls', async () => {
    devnet.setFaults('index', { latencyMs: 1000 });
    const c = client({ concurrency: 1 });
    const [running, queued] = [expectCode(c.block(0), 'cancelled'), expectCode(c.block(1), 'cancelled')];
    setTimeout(() => c.close(), 50);
    expect((await running).message).toContain('closed');
    expect((await queued).message).toContain('closed');
    expect(c.stats.requests).toBe(1);
    await expectCode(c.block(2), 'cancelled');
  });

  it('a refused port → net.refused, not retried', async () => {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const c = new IndexClient({ url: `http://127.0.0.1:${port}` });
    clients.push(c);
    const e = await expectCode(c.block(0), 'net.refused');
    expect(e.message).toContain(`127.0.0.1:${port}`);
    expect(c.stats).toMatchObject({ requests: 1, retries: 0 });
  });

  it('a wrong base URL (the catch-all 404) → index.http telling to check the URL', async () => {
    const c = new IndexClient({ url: `${devnet.indexUrl}/v1/blockchain` });
    clients.push(c);
    const e = await expectCode(c.block(0), 'index.http');
    expect(e.message).toMatch(/Check the index URL/);
  });
});
