/**
 * The node RPC client against the real devnet over loopback: calls, batches (chunked, matched by
 * id), named params, wallets, cookie auth, every fault mode, warm-up retries, timeouts,
 * cancellation, refused connections and TLS (a self-signed certificate made with openssl at test
 * time, in front of the devnet). Every error is checked for the password.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index';
import { FAULT_MODES, type FaultMode } from '../../devnet/faults';
import { AppError, type ErrorCode } from '../../shared/errors';
import { startRecordingProxy } from '../support/recording-proxy';
import { RpcClient, readCookieFile, type RpcClientOptions, type RpcCredentials } from '../../electron/main/rpc/client';

const USER = 'spyglass';
const PASSWORD = 'Pw-7hX!q2#unguessable';
/** Strings that must never appear in an error (filled with cookie passwords as they are read). */
const SECRETS = new Set<string>([PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64')]);

let demo: Devnet;
const clients: RpcClient[] = [];
const closers: Array<() => Promise<void> | void> = [];
let tmp: string;

function client(extra: Partial<RpcClientOptions> = {}, devnet: Devnet = demo): RpcClient {
  const c = new RpcClient({ url: devnet.rpcUrl, auth: { user: USER, password: PASSWORD }, ...extra });
  clients.push(c);
  return c;
}

function assertNoSecrets(e: AppError): void {
  const text = `${e.message}\n${JSON.stringify(e.detail ?? {})}\n${JSON.stringify(e.toIpc())}`;
  for (const s of SECRETS) expect(text, `secret in "${e.message}"`).not.toContain(s);
  expect(text).not.toMatch(/Basic [A-Za-z0-9+/=]{8,}/);
}

/** Awaits a rejection and checks it is an AppError with `code` and no secret. */
async function failsWith(p: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected ${code}, got a success`).toBeInstanceOf(AppError);
  const e = caught as AppError;
  expect(e.code, e.message).toBe(code);
  assertNoSecrets(e);
  return e;
}

function entryError<T>(entry: { ok: true; value: T } | { ok: false; error: AppError } | undefined): AppError {
  expect(entry?.ok).toBe(false);
  const e = (entry as { ok: false; error: AppError }).error;
  assertNoSecrets(e);
  return e;
}

/** A loopback HTTP proxy in front of `target` that counts requests and may rewrite reply bodies. */
async function startProxy(
  target: string,
  rewrite: (body: string) => string = (b) => b,
): Promise<{ url: string; count: () => number; bodies: string[] }> {
  let n = 0;
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    n++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString('utf8'));
      const up = http.request(`${target}${req.url ?? '/'}`, { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (r) => {
        const out: Buffer[] = [];
        r.on('data', (c: Buffer) => out.push(c));
        r.on('end', () => {
          const text = rewrite(Buffer.concat(out).toString('utf8'));
          res.writeHead(r.statusCode ?? 502, { 'Content-Type': r.headers['content-type'] ?? 'text/plain', 'Content-Length': Buffer.byteLength(text) });
          res.end(text);
        });
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  const port = await listen(server);
  closers.push(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}`, count: () => n, bodies };
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'spyglass-rpc-'));
  demo = await startDevnet({ rpcUser: USER, rpcPassword: PASSWORD, scenario: 'demo' });
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const close of closers.reverse()) await close();
  await demo?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('calls', () => {
  it('getblockchaininfo, getblockhash and listwallets on the node path', async () => {
    const c = client();
    const info = await c.call<{ chain: string; blocks: number; bestblockhash: string }>('getblockchaininfo');
    expect(info.chain).toBe('regtest');
    expect(info.blocks).toBe(200);
    expect(await c.call<string>('getblockhash', [200])).toBe(info.bestblockhash);
    const wallets = await c.call<string[]>('listwallets');
    expect(wallets).toContain('watch');
    expect(wallets.length).toBeGreaterThan(1);
  });

  it('named params give the same result as positional ones', async () => {
    const c = client();
    expect(await c.call('getblockhash', { height: 7 })).toBe(await c.call('getblockhash', [7]));
  });

  it('a wallet method goes to /wallet/watch (named params), node methods still work with wallet: false', async () => {
    const c = client({ wallet: 'watch' });
    const rows = await c.call<Array<{ address: string; amount: number; label: string }>>('listreceivedbyaddress', { minconf: 0 });
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.some((r) => r.label === 'payroll')).toBe(true);
    const utxos = await c.call<Array<{ amount: number }>>('listunspent');
    expect(utxos.length).toBeGreaterThan(0);
    // Amounts come back as JSON.parse gives them; no transformation.
    expect(typeof utxos[0]!.amount).toBe('number');
    expect(await c.call<number>('getblockcount', [], { wallet: false })).toBe(200);
    // The same wallet method without the wallet path is refused here, unsent.
    const e = await failsWith(c.call('listunspent', [], { wallet: false }), 'rpc.wallet_not_specified');
    expect(e.message).toMatch(/does not send listunspent .*choose a wallet/);
  });

  it('a wallet call is sent only to /wallet/<name>: with no wallet it is refused unsent, node calls go to /', async () => {
    const proxy = await startRecordingProxy(demo.rpcUrl);
    closers.push(() => proxy.close());
    const none = client({ url: proxy.url });
    expect(await none.call<number>('getblockcount')).toBe(200);
    for (const m of ['listunspent', 'getwalletinfo', 'getnewaddress', 'listsinceblock', 'walletcreatefundedpsbt']) {
      await failsWith(none.call(m), 'rpc.wallet_not_specified');
    }
    const batch = await failsWith(none.batch([{ method: 'getblockcount' }, { method: 'getaddressinfo', params: ['x'] }]), 'rpc.wallet_not_specified');
    expect(batch.detail).toMatchObject({ method: 'getaddressinfo' });
    expect(await none.call<string[]>('listwallets')).toContain('watch');
    const named = client({ url: proxy.url, wallet: 'watch' });
    await named.call('getwalletinfo');
    await named.call('getwalletinfo', [], { wallet: 'miner' });
    await named.batch([{ method: 'getaddressinfo', params: [(await named.call<Array<{ address: string }>>('listunspent'))[0]!.address] }]);
    expect(proxy.calls).toEqual([
      { path: '/', method: 'getblockcount' },
      { path: '/', method: 'listwallets' },
      { path: '/wallet/watch', method: 'getwalletinfo' },
      { path: '/wallet/miner', method: 'getwalletinfo' },
      { path: '/wallet/watch', method: 'listunspent' },
      { path: '/wallet/watch', method: 'getaddressinfo' },
    ]);
  });

  it('requests are JSON-RPC 2.0 POSTs with string ids, text/plain and basic auth', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const j = JSON.parse(body) as { jsonrpc: string; id: unknown; method: string; params: unknown };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', result: { method: req.method, path: req.url, request: j }, id: j.id }));
      });
    });
    const port = await listen(server);
    closers.push(() => closeServer(server));
    const c = client({ url: `http://127.0.0.1:${port}`, wallet: 'my wallet/ü' });
    const echo = await c.call<{ method: string; path: string; request: { jsonrpc: string; id: unknown; method: string; params: unknown } }>('getbalances');
    expect(echo.method).toBe('POST');
    expect(echo.path).toBe('/wallet/my%20wallet%2F%C3%BC');
    expect(echo.request.jsonrpc).toBe('2.0');
    expect(echo.request.id).toMatch(/^spyglass-\d+$/);
    expect(echo.request.params).toEqual([]);
    expect(seen[0]!['content-type']).toBe('text/plain');
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);
    expect(seen[0]!.connection).toBe('keep-alive');
  });

  it('a wallet name with spaces and slashes is URL-encoded and reaches the node decoded', async () => {
    const empty = await startDevnet({ rpcUser: USER, rpcPassword: PASSWORD });
    closers.push(() => empty.close());
    const node = client({}, empty);
    await node.call('createwallet', { wallet_name: 'my wallet/ü' });
    const w = client({ wallet: 'my wallet/ü' }, empty);
    expect(await w.call<string>('getnewaddress')).toMatch(/^bcrt1/);
  });
});

describe('batches', () => {
  it('more calls than batchChunkSize: chunked, results in input order', async () => {
    const proxy = await startProxy(demo.rpcUrl);
    const c = client({ url: proxy.url, batchChunkSize: 40 });
    const heights = Array.from({ length: 130 }, (_, i) => (i * 37) % 201);
    const results = await c.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    expect(proxy.count()).toBe(4); // 40 + 40 + 40 + 10
    const sizes = proxy.bodies.map((b) => (JSON.parse(b) as unknown[]).length);
    expect(sizes).toEqual([40, 40, 40, 10]);
    const direct = await client().call<string>('getblockhash', [heights[77]!]);
    expect(results).toHaveLength(130);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results[77]).toEqual({ ok: true, value: direct });
    const first = JSON.parse(proxy.bodies[0]!) as Array<{ jsonrpc: string; id: string }>;
    expect(first.every((x) => x.jsonrpc === '2.0' && /^spyglass-\d+$/.test(x.id))).toBe(true);
    expect(new Set(first.map((x) => x.id)).size).toBe(40);
  });

  it('mixed ok and error entries, each with its own typed error', async () => {
    const c = client();
    const [a, b, d, e, f] = await c.batch([
      { method: 'getblockhash', params: [0] },
      { method: 'nosuchmethod' },
      { method: 'getblockhash', params: [99999] },
      { method: 'getblockhash', params: { height: 1 } },
      { method: 'getblockcount' },
    ]);
    expect(a?.ok && typeof a.value).toBe('string');
    expect(entryError(b).code).toBe('rpc.method_not_found');
    const core = entryError(d);
    expect(core.code).toBe('rpc.error');
    expect(core.message).toBe('Bitcoin Core error -8: Block height out of range');
    expect(e?.ok).toBe(true);
    expect(f).toEqual({ ok: true, value: 200 });
  });

  it('replies are matched by id, not position; a call without a reply is rpc.bad_reply', async () => {
    const reversed = await startProxy(demo.rpcUrl, (body) => JSON.stringify((JSON.parse(body) as unknown[]).reverse()));
    const heights = [3, 1, 4, 1, 5, 9, 2, 6];
    const direct = await client().batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    const viaReverse = await client({ url: reversed.url }).batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    expect(viaReverse).toEqual(direct);

    const dropSecond = await startProxy(demo.rpcUrl, (body) => JSON.stringify((JSON.parse(body) as unknown[]).filter((_, i) => i !== 1)));
    const out = await client({ url: dropSecond.url }).batch([{ method: 'getblockcount' }, { method: 'getbestblockhash' }, { method: 'getblockcount' }]);
    expect(out[0]).toEqual({ ok: true, value: 200 });
    const missing = entryError(out[1]);
    expect(missing.code).toBe('rpc.bad_reply');
    expect(missing.message).toContain('"getbestblockhash"');
    expect(out[2]).toEqual({ ok: true, value: 200 });
  });

  it('a single reply whose id does not match is rpc.bad_reply', async () => {
    const wrongId = await startProxy(demo.rpcUrl, (body) => body.replace(/"id":"spyglass-\d+"/, '"id":"someone-else"'));
    await failsWith(client({ url: wrongId.url }).call('getblockcount'), 'rpc.bad_reply');
  });

  it('an empty batch sends nothing', async () => {
    const proxy = await startProxy(demo.rpcUrl);
    expect(await client({ url: proxy.url }).batch([])).toEqual([]);
    expect(proxy.count()).toBe(0);
  });
});

describe('errors from the node', () => {
  it('a wrong password is rpc.unauthorized with the remedy and no secret', async () => {
    SECRETS.add('wrong-Pw-5512');
    SECRETS.add(Buffer.from(`${USER}:wrong-Pw-5512`).toString('base64'));
    const c = new RpcClient({ url: demo.rpcUrl, auth: { user: USER, password: 'wrong-Pw-5512' } });
    clients.push(c);
    const e = await failsWith(c.call('getblockcount'), 'rpc.unauthorized');
    expect(e.message).toBe(
      'The node rejected the RPC user name or password (HTTP 401). Check rpcuser/rpcpassword or rpcauth in bitcoin.conf — or, with cookie auth, that the cookie file belongs to the running node.',
    );
    await failsWith(c.batch([{ method: 'getblockcount' }]), 'rpc.unauthorized');
  });

  it('an unknown method is rpc.method_not_found naming it', async () => {
    const e = await failsWith(client().call('nosuchmethod', []), 'rpc.method_not_found');
    expect(e.message).toBe('The node does not know the method "nosuchmethod". It may be too old or the method may be disabled.');
    expect(e.detail).toMatchObject({ method: 'nosuchmethod' });
  });

  it('a Core error keeps Core\'s code and message verbatim', async () => {
    const e = await failsWith(client().call('getblockhash', [99999]), 'rpc.error');
    expect(e.message).toBe('Bitcoin Core error -8: Block height out of range');
    expect(e.detail).toMatchObject({ coreCode: -8, method: 'getblockhash' });
    const typed = await failsWith(client().call('getblockhash', ['x']), 'rpc.error');
    expect(typed.detail).toMatchObject({ coreCode: -3 });
    expect(typed.message).toContain('JSON value of type string is not of expected type number');
  });

  it('a wallet that is not loaded is rpc.wallet_not_found (-18) with Core\'s message and the remedy', async () => {
    const e = await failsWith(client({ wallet: 'nope' }).call('listunspent'), 'rpc.wallet_not_found');
    expect(e.message).toBe('Requested wallet does not exist or is not loaded. Load it with `bitcoin-cli loadwallet nope` or pick one of the loaded wallets.');
    expect(e.detail).toMatchObject({ coreCode: -18, wallet: 'nope' });
  });

  it('a wallet that is not loaded is -18; a wallet call with no wallet named is refused unsent, whatever the node has loaded', async () => {
    const empty = await startDevnet({ rpcUser: USER, rpcPassword: PASSWORD });
    closers.push(() => empty.close());
    const node = client({}, empty);
    const none = await failsWith(client({ wallet: 'first' }, empty).call('getnewaddress'), 'rpc.wallet_not_found');
    expect(none.message).toContain('Requested wallet does not exist or is not loaded');
    expect(await node.call('createwallet', ['first'])).toEqual({ name: 'first' });
    // One wallet loaded: Core would answer at / from it, but the client never sends a wallet call there.
    await failsWith(node.call('getnewaddress'), 'rpc.wallet_not_specified');
    expect(await node.call('createwallet', { wallet_name: 'second', disable_private_keys: true, blank: true })).toEqual({ name: 'second' });
    expect(await node.call<string[]>('listwallets')).toEqual(['first', 'second']);
    expect(await client({ wallet: 'first' }, empty).call<string>('getnewaddress')).toMatch(/^bcrt1/);
  });
});

describe('cookie auth', () => {
  it('reads the cookie once, keeps it, and reads it again after a 401 when the node restarted with a new one', async () => {
    const datadir = join(tmp, 'cookie-node');
    const first = await startDevnet({ rpcUser: USER, rpcPassword: PASSWORD, datadir, seed: 'first' });
    expect(first.cookieFile).toBe(join(datadir, 'regtest', '.cookie'));
    const reads: string[] = [];
    const readCookie = async (path: string): Promise<RpcCredentials> => {
      const creds = await readCookieFile(path);
      reads.push(creds.password);
      SECRETS.add(creds.password);
      SECRETS.add(Buffer.from(`${creds.user}:${creds.password}`).toString('base64'));
      return creds;
    };
    const c = client({ auth: { cookieFile: first.cookieFile! }, readCookie }, first);
    expect(await c.call('getblockcount')).toBe(0);
    expect(await c.call('getblockcount')).toBe(0);
    expect(reads).toHaveLength(1);
    const oldCookie = readFileSync(first.cookieFile!, 'utf8');
    expect(oldCookie.startsWith('__cookie__:')).toBe(true);

    // "Restart" the node on the same port: a new cookie is written.
    const port = Number(new URL(first.rpcUrl).port);
    await first.close();
    const second = await startDevnet({ rpcUser: USER, rpcPassword: PASSWORD, datadir, seed: 'second', rpcPort: port });
    closers.push(() => second.close());
    expect(readFileSync(second.cookieFile!, 'utf8')).not.toBe(oldCookie);
    expect(await c.call('getblockcount')).toBe(0);
    expect(reads).toHaveLength(2);
    expect(reads[0]).not.toBe(reads[1]);
    expect((await c.batch([{ method: 'getblockcount' }]))[0]).toEqual({ ok: true, value: 0 });
    expect(reads).toHaveLength(2);

    // The default reader works the same way.
    expect(await client({ auth: { cookieFile: second.cookieFile! } }, second).call('getblockcount')).toBe(0);
  });

  it('a cookie that stays wrong is rpc.unauthorized after one re-read; a missing file is cookie.unreadable', async () => {
    const datadir = join(tmp, 'cookie-stale');
    const node = await startDevnet({ rpcUser: USER, rpcPassword: PASSWORD, datadir });
    closers.push(() => node.close());
    const stale = join(tmp, 'stale.cookie');
    SECRETS.add('0123456789abcdef-stale');
    writeFileSync(stale, '__cookie__:0123456789abcdef-stale');
    let reads = 0;
    const c = client({ auth: { cookieFile: stale }, readCookie: (p) => (reads++, readCookieFile(p)) }, node);
    await failsWith(c.call('getblockcount'), 'rpc.unauthorized');
    expect(reads).toBe(2);

    const missing = await failsWith(client({ auth: { cookieFile: join(tmp, 'nope', '.cookie') } }, node).call('getblockcount'), 'cookie.unreadable');
    expect(missing.message).toContain('does not exist');
    const garbage = join(tmp, 'garbage.cookie');
    writeFileSync(garbage, 'not a cookie');
    const bad = await failsWith(client({ auth: { cookieFile: garbage } }, node).call('getblockcount'), 'cookie.unreadable');
    expect(bad.message).not.toContain('not a cookie');
  });
});

describe('devnet fault modes', () => {
  const expected: Record<FaultMode, { code: ErrorCode; status?: number; text?: string }> = {
    http500: { code: 'rpc.http', status: 500, text: 'HTTP 500 ("Internal Server Error")' },
    http502: { code: 'rpc.http', status: 502, text: 'HTTP 502 ("502: Bad Gateway")' },
    http503: { code: 'rpc.http', status: 503, text: 'rpcworkqueue' },
    html: { code: 'rpc.bad_reply', status: 502, text: 'text/html: "502 Bad Gateway 502 Bad Gateway nginx"' },
    truncated: { code: 'rpc.bad_reply', status: 200, text: 'cut off' },
    reset: { code: 'net.reset' },
    garbage: { code: 'rpc.bad_reply', status: 200, text: 'HTTP 200, application/json' },
  };

  afterAll(() => demo.setFaults('rpc', {}));

  for (const mode of FAULT_MODES) {
    it(`${mode} → ${expected[mode].code}`, async () => {
      const c = client();
      demo.setFaults('rpc', { mode });
      try {
        const e = await failsWith(c.call('getblockchaininfo'), expected[mode].code);
        if (expected[mode].status !== undefined) expect(e.detail).toMatchObject({ status: expected[mode].status });
        if (expected[mode].text) expect(e.message).toContain(expected[mode].text);
        expect(e.message.length).toBeLessThan(400);
        await failsWith(c.batch([{ method: 'getblockcount' }, { method: 'getbestblockhash' }]), expected[mode].code);
      } finally {
        demo.setFaults('rpc', {});
      }
      expect(await c.call('getblockcount')).toBe(200);
    });
  }
});

describe('warm-up (-28)', () => {
  afterAll(() => demo.setFaults('rpc', {}));

  it('is retried with backoff until the node is ready', async () => {
    const c = client({ warmup: { attempts: 6, baseDelayMs: 100 } });
    demo.setFaults('rpc', { warmup: { message: 'Loading block index…', untilMs: Date.now() + 1500 } });
    const t0 = Date.now();
    expect(await c.call('getblockcount')).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
  });

  it('batch entries answering -28 are retried too', async () => {
    const c = client({ warmup: { attempts: 6, baseDelayMs: 100 } });
    demo.setFaults('rpc', { warmup: { message: 'Verifying blocks…', untilMs: Date.now() + 500 } });
    expect(await c.batch([{ method: 'getblockcount' }, { method: 'getblockhash', params: [0] }])).toEqual([
      { ok: true, value: 200 },
      { ok: true, value: expect.any(String) },
    ]);
  });

  it('longer than the retry budget surfaces rpc.warming_up with Core\'s message', async () => {
    const c = client({ warmup: { attempts: 2, baseDelayMs: 50 } });
    demo.setFaults('rpc', { warmup: { message: 'Loading block index…' } });
    const t0 = Date.now();
    const e = await failsWith(c.call('getblockcount'), 'rpc.warming_up');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140); // 50 + 100 ms of backoff
    expect(e.message).toContain('Loading block index…');
    expect(e.detail).toMatchObject({ coreCode: -28 });
    const [entry] = await c.batch([{ method: 'getblockcount' }]);
    expect(entryError(entry).code).toBe('rpc.warming_up');
  });

  it('cancelling during the backoff is cancelled at once', async () => {
    // No clock: the backoff's own timer (7,777 ms, a delay nothing else uses) shows the client is
    // waiting; the abort must then settle the call before the event loop's next turn, which a wait
    // that ignored the signal (or noticed it only at the next attempt) cannot do.
    const BACKOFF_MS = 7_777;
    const c = client({ warmup: { attempts: 5, baseDelayMs: BACKOFF_MS } });
    demo.setFaults('rpc', { warmup: { message: 'Loading block index…' } });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      const ac = new AbortController();
      let outcome: unknown = 'pending';
      const call = c.call('getblockcount', [], { signal: ac.signal }).then(
        () => 'answered',
        (e: unknown) => e,
      );
      void call.then((o) => (outcome = o));
      const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
      while (!timers.mock.calls.some((args) => args[1] === BACKOFF_MS)) {
        expect(outcome).toBe('pending');
        await nextTurn();
      }
      ac.abort();
      await nextTurn();
      expect(outcome).toBeInstanceOf(AppError);
      expect((outcome as AppError).code).toBe('cancelled');
    } finally {
      timers.mockRestore();
    }
  });
});

describe('timeouts and cancellation', () => {
  afterAll(() => demo.setFaults('rpc', {}));

  it('latency beyond timeoutMs is net.timeout (per call and per client)', async () => {
    demo.setFaults('rpc', { latencyMs: 600 });
    const e = await failsWith(client().call('getblockcount', [], { timeoutMs: 150 }), 'net.timeout');
    expect(e.detail).toMatchObject({ timeoutMs: 150 });
    await failsWith(client({ timeoutMs: 150 }).call('getblockcount'), 'net.timeout');
    await failsWith(client({ timeoutMs: 150 }).batch([{ method: 'getblockcount' }]), 'net.timeout');
    // a limit above the latency answers; far above it, so a busy machine's slowness never counts as the node's
    expect(await client({ timeoutMs: 30_000 }).call('getblockcount')).toBe(200);
    demo.setFaults('rpc', {});
  });

  it('an AbortSignal cancels a call in flight, and an aborted signal sends nothing', async () => {
    demo.setFaults('rpc', { latencyMs: 600 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await failsWith(client().call('getblockcount', [], { signal: ac.signal }), 'cancelled');
    demo.setFaults('rpc', {});
    const proxy = await startProxy(demo.rpcUrl);
    await failsWith(client({ url: proxy.url }).call('getblockcount', [], { signal: AbortSignal.abort() }), 'cancelled');
    await failsWith(client({ url: proxy.url }).batch([{ method: 'getblockcount' }], { signal: AbortSignal.abort() }), 'cancelled');
    expect(proxy.count()).toBe(0);
  });

  it('after close(), calls are cancelled', async () => {
    const c = client();
    expect(await c.call('getblockcount')).toBe(200);
    c.close();
    await failsWith(c.call('getblockcount'), 'cancelled');
  });
});

describe('connections', () => {
  it('a closed port is net.refused', async () => {
    const server = http.createServer();
    const port = await listen(server);
    await closeServer(server);
    const e = await failsWith(client({ url: `http://127.0.0.1:${port}` }).call('getblockcount'), 'net.refused');
    expect(e.message).toContain(`127.0.0.1:${port}`);
  });

  it('https:// to the devnet\'s plain-HTTP port is net.tls', async () => {
    const url = demo.rpcUrl.replace('http://', 'https://');
    const e = await failsWith(client({ url }).call('getblockcount'), 'net.tls');
    expect(e.message).toContain('does not speak HTTPS');
  });

  it('HTTPS through a TLS proxy with a self-signed certificate: works with `ca`, net.tls without', async () => {
    const dir = join(tmp, 'tls');
    execFileSync('mkdir', ['-p', dir]);
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const target = new URL(demo.rpcUrl);
    const server = https.createServer({ key, cert }, (req, res) => {
      const up = http.request(
        { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    const port = await listen(server);
    closers.push(() => closeServer(server));
    const url = `https://127.0.0.1:${port}`;

    const trusted = client({ url, ca: cert, wallet: 'watch' });
    expect(trusted.plainHttpRemote).toBe(false);
    expect(await trusted.call('getblockcount', [], { wallet: false })).toBe(200);
    expect((await trusted.call<unknown[]>('listunspent')).length).toBeGreaterThan(0);
    const batch = await trusted.batch<number>([{ method: 'getblockcount' }, { method: 'getblockcount' }], { wallet: false });
    expect(batch).toEqual([{ ok: true, value: 200 }, { ok: true, value: 200 }]);

    const e = await failsWith(client({ url }).call('getblockcount'), 'net.tls');
    expect(e.message).toContain('not trusted');
  });

  it('a kept-alive socket the server dropped is retried once on a fresh connection; a reset on a new one is net.reset', async () => {
    // Answers the first request of each connection and resets the connection on the next one, as
    // a node that closed an idle socket (or restarted) looks to a client reusing it.
    const perSocket = new WeakMap<object, number>();
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (n > 1) {
          req.socket.destroy();
          return;
        }
        const { id } = JSON.parse(body) as { id: string };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', result: 'ok', id }));
      });
    });
    server.keepAliveTimeout = 60_000;
    const port = await listen(server);
    closers.push(() => closeServer(server));
    const c = client({ url: `http://127.0.0.1:${port}` });
    expect(await c.call('a')).toBe('ok');
    expect(await c.call('b')).toBe('ok'); // reset on the reused socket, then a new connection
    expect(requests).toBe(3);
    demo.setFaults('rpc', { mode: 'reset' });
    try {
      await failsWith(client().call('getblockcount'), 'net.reset');
    } finally {
      demo.setFaults('rpc', {});
    }
  });

  it('plainHttpRemote: http:// to a non-loopback host only', () => {
    expect(client({ url: 'http://192.0.2.1:8332' }).plainHttpRemote).toBe(true);
    expect(client({ url: 'http://127.0.0.1:8332' }).plainHttpRemote).toBe(false);
    expect(client({ url: 'http://localhost:8332' }).plainHttpRemote).toBe(false);
    expect(client({ url: 'http://[::1]:8332' }).plainHttpRemote).toBe(false);
    expect(client({ url: 'https://192.0.2.1:8332' }).plainHttpRemote).toBe(false);
  });

  it('an invalid URL is input.invalid without echoing it; credentials in the URL are never sent or shown', async () => {
    expect(() => new RpcClient({ url: 'not a url', auth: { user: USER, password: PASSWORD } })).toThrow(AppError);
    expect(() => new RpcClient({ url: 'ftp://127.0.0.1', auth: { user: USER, password: PASSWORD } })).toThrow(/http:\/\/ or https:\/\//);
    const proxy = await startProxy(demo.rpcUrl);
    const u = new URL(proxy.url);
    u.username = 'other';
    u.password = 'url-secret-xyz';
    SECRETS.add('url-secret-xyz');
    expect(await client({ url: u.href }).call('getblockcount')).toBe(200);
    const e = await failsWith(client({ url: u.href, wallet: 'nope' }).call('listunspent'), 'rpc.wallet_not_found');
    expect(e.message).not.toContain('url-secret-xyz');
  });
});
