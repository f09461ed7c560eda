// Echoed credentials are never written (#27): a node — or a proxy in front of it — that quotes the
// request's Authorization header in its errors, and an index whose errors quote a proxy's credentials.
// The real services through the IPC handler table (connection:test, profiles:save/connect/activate/
// delete, connection:changed events), a real SQLite file, the real OS keychain (under
// scripts/with-keyring.sh), real HTTP servers on loopback. Afterwards neither the password, nor
// user:password, nor its base64 (nor a long prefix of it), nor the cookie may appear in any reply,
// any event, the log, or any byte of any file of the data folder — the SQLite file, its WAL and
// shared-memory files, free pages included — before and after the profile is deleted.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { RpcClient } from '../../electron/main/rpc/client';
import type { ConnectionState } from '../../shared/ipc/contract';

const keyring = Boolean(process.env.SPYGLASS_TEST_KEYRING);
const rand = (n: number): string => Array.from({ length: n }, () => 'abcdefghijkmnpqrstuvwxyz23456789'[Math.floor(Math.random() * 32)]).join('');

const USER = 'alice';
const PASSWORD = `pw${rand(22)}`;
const COOKIE_HEX = Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
const PROXY_USER = 'gatekeeper';
const PROXY_PASSWORD = `px${rand(22)}`;
const URL_PASSWORD = `ux${rand(22)}`;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** Every form of a secret that must never be written: the secret, user:secret, its base64 and the first 16 characters of that. */
function forms(user: string, password: string): string[] {
  const pair = `${user}:${password}`;
  const enc = b64(pair).replace(/=+$/, '');
  return [password, password.slice(0, 10), pair, enc, enc.slice(0, 16), Buffer.from(pair).toString('base64url'), encodeURIComponent(pair)];
}
const SECRETS = [...forms(USER, PASSWORD), ...forms('__cookie__', COOKIE_HEX), ...forms(PROXY_USER, PROXY_PASSWORD), ...forms('u', URL_PASSWORD)];

/** The forms found in `text` (none expected). */
function leaks(text: string | Buffer): string[] {
  const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return SECRETS.filter((s) => buf.includes(Buffer.from(s, 'utf8')));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Each file of the data folder (read raw, as bytes) that holds a form of a secret, with the forms. */
function fileLeaks(dir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of filesUnder(dir)) {
    const found = leaks(readFileSync(f));
    if (found.length > 0) out[f.slice(dir.length + 1)] = found;
  }
  return out;
}

// ——— the servers ———

type NodeMode = 'jsonrpc' | 'http500' | 'html';

function listen(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

/** What a careless proxy says about a request: its Authorization header, every raw header, the credentials decoded and as a URL. */
function echoOf(req: IncomingMessage): string {
  const auth = req.headers.authorization ?? '';
  const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  const [u = '', p = ''] = decoded.split(/:(.*)/s);
  return `echo ${auth} | ${req.method} ${req.url} ${req.rawHeaders.join(' ')} | credentials ${decoded} | upstream http://${encodeURIComponent(u)}:${encodeURIComponent(p)}@127.0.0.1:8332/`;
}

/** A node that answers every JSON-RPC call with an error quoting the request's headers (`mode` picks how). */
async function echoNode(): Promise<{ server: Server; url: string; setMode(m: NodeMode): void }> {
  let mode: NodeMode = 'jsonrpc';
  const { server, url } = await listen((req, body, res) => {
    const echo = echoOf(req);
    if (mode === 'http500') {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(echo);
      return;
    }
    if (mode === 'html') {
      res.writeHead(502, { 'Content-Type': 'text/html' }).end(`<html><head><title>Bad gateway</title></head><body><p>${echo}</p></body></html>`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = { id: null };
    }
    const one = (r: unknown): unknown => ({ result: null, error: { code: -32603, message: echo }, id: (r as { id?: unknown })?.id ?? null });
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed)));
  });
  return { server, url, setMode: (m) => (mode = m) };
}

/** An index behind a proxy that adds its own credentials upstream and quotes them in its errors. */
async function echoIndex(): Promise<{ server: Server; url: string }> {
  return listen((req, _body, res) => {
    const proxy = `Authorization: Basic ${b64(`${PROXY_USER}:${PROXY_PASSWORD}`)} to http://${PROXY_USER}:${PROXY_PASSWORD}@10.0.0.5:3000${req.url}`;
    const echo = `echo ${proxy} | ${req.method} ${req.url} ${req.rawHeaders.join(' ')}`;
    if (req.url?.includes('/block/0')) {
      res.writeHead(404, { 'Content-Type': 'text/html' }).end(`<html><head><title>${echo}</title></head><body>${echo}</body></html>`);
      return;
    }
    res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error_code: 500, message: echo, details: echo }));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

// ——— the app ———

let devnet: Devnet;
let node: Awaited<ReturnType<typeof echoNode>>;
let index: Awaited<ReturnType<typeof echoIndex>>;
let dir: string;
/** The node's data directory, where its cookie file lives (not the app's data folder). */
let nodeDir: string;
let app: SpyglassApp;
let appClosed = false;
/** Everything that crossed to the renderer: replies and events, as JSON. */
const seen: string[] = [];

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'empty', rpcUser: USER, rpcPassword: PASSWORD });
  node = await echoNode();
  index = await echoIndex();
  dir = mkdtempSync(join(tmpdir(), 'spyglass-echo-'));
  nodeDir = mkdtempSync(join(tmpdir(), 'spyglass-echo-node-'));
  writeFileSync(join(nodeDir, '.cookie'), `__cookie__:${COOKIE_HEX}`, { mode: 0o600 });
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, ...(keyring ? {} : { secretBackend: null }) });
  app.services.on('connection:changed', (s: ConnectionState) => seen.push(`event connection:changed ${JSON.stringify(s)}`));
});

afterAll(async () => {
  if (!appClosed) await app?.close();
  await Promise.all([node && close(node.server), index && close(index.server), devnet?.close()]);
  for (const d of [dir, nodeDir]) if (d) rmSync(d, { recursive: true, force: true });
});

async function call(channel: string, payload: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
  const r = await app.dispatch(channel, payload);
  seen.push(`reply ${channel} ${JSON.stringify(r)}`);
  return r as never;
}

const passwordProfile = { name: 'Echoing node', nodeUrl: '', auth: 'password', rpcUser: USER, wallet: '', indexUrl: '' };

function expectNoLeak(): void {
  const inReplies = seen.filter((s) => leaks(s).length > 0);
  expect(inReplies, 'replies and events').toEqual([]);
  expect(fileLeaks(dir), 'files of the data folder').toEqual({});
}

describe('a node that echoes the Authorization header in its errors', () => {
  let passwordId = '';
  let cookieId = '';

  it('connection:test: the error is the node’s, without the credentials — in each way the node may say it', async () => {
    for (const mode of ['jsonrpc', 'http500', 'html'] as const) {
      node.setMode(mode);
      const r = await call('connection:test', { profile: { ...passwordProfile, nodeUrl: node.url }, password: PASSWORD });
      expect(r.ok).toBe(false);
      expect(r.error?.code).toBe(mode === 'jsonrpc' ? 'rpc.error' : mode === 'http500' ? 'rpc.http' : 'rpc.bad_reply');
      // The node's own words stay, with the secret cut out.
      expect(r.error?.message).toContain('echo Basic');
      expect(leaks(JSON.stringify(r)), mode).toEqual([]);
    }
    node.setMode('jsonrpc');
    expectNoLeak();
  });

  it('password in the keychain: profiles:save, profiles:connect, profiles:activate, the stored last error', async () => {
    const saved = await call('profiles:save', { profile: { ...passwordProfile, nodeUrl: node.url }, password: PASSWORD, remember: keyring ? 'keychain' : 'session' });
    expect(saved.ok).toBe(true);
    passwordId = (saved.value as { profile: { id: string; passwordStorage: string } }).profile.id;
    expect((saved.value as { profile: { passwordStorage: string } }).profile.passwordStorage).toBe(keyring ? 'keychain' : 'session');

    const connected = await call('profiles:connect', { id: passwordId });
    expect(connected.ok).toBe(true);
    expect(connected.value).toMatchObject({ connected: false, error: { code: 'rpc.error' } });
    const activated = await call('profiles:activate', { id: passwordId });
    expect(activated.value).toMatchObject({ state: 'failed', profileId: passwordId, error: { code: 'rpc.error' } });
    await call('connection:refresh', {});
    const list = await call('profiles:list', {});
    const stored = (list.value as { profiles: Array<{ id: string; lastError: { code: string; message: string } | null }> }).profiles.find((p) => p.id === passwordId);
    expect(stored?.lastError).toMatchObject({ code: 'rpc.error' });
    expect(stored?.lastError?.message).toContain('echo Basic');
    expect(seen.some((s) => s.startsWith('event connection:changed') && s.includes('"failed"'))).toBe(true);
    expectNoLeak();
  });

  it('cookie auth: the cookie file’s contents never appear', async () => {
    const profile = { ...passwordProfile, name: 'Echoing node, cookie', nodeUrl: node.url, auth: 'cookie', rpcUser: '', cookiePath: join(nodeDir, '.cookie') };
    const tested = await call('connection:test', { profile });
    expect(tested.error?.code).toBe('rpc.error');
    const saved = await call('profiles:save', { profile });
    cookieId = (saved.value as { profile: { id: string } }).profile.id;
    const connected = await call('profiles:connect', { id: cookieId });
    expect(connected.value).toMatchObject({ connected: false, error: { code: 'rpc.error' } });
    const activated = await call('profiles:activate', { id: cookieId });
    expect(activated.value).toMatchObject({ state: 'failed', error: { code: 'rpc.error' } });
    expectNoLeak();
  });

  it('an index whose errors quote a proxy’s credentials, and an index URL with credentials in it', async () => {
    const profile = { ...passwordProfile, nodeUrl: devnet.rpcUrl, indexUrl: index.url };
    const tested = await call('connection:test', { profile, password: PASSWORD });
    expect(tested.ok).toBe(false);
    expect(tested.error?.code).toMatch(/^index\./);
    expect(tested.error?.message).toContain('echo');
    const withUserinfo = await call('connection:test', { profile: { ...profile, indexUrl: `http://u:${URL_PASSWORD}@127.0.0.1:9/` }, password: PASSWORD });
    expect(withUserinfo.error?.code).toBe('input.invalid');
    const saved = await call('profiles:save', { profile: { ...profile, indexUrl: `http://u:${URL_PASSWORD}@127.0.0.1:9/` }, password: PASSWORD, remember: 'session' });
    expect(saved.error?.code).toBe('input.invalid');
    expectNoLeak();
  });

  it('after the profiles are deleted and the app is closed, no byte of any file holds a secret', async () => {
    for (const id of [passwordId, cookieId]) expect((await call('profiles:delete', { id })).ok).toBe(true);
    await app.close();
    appClosed = true;
    expectNoLeak();
    const db = new BetterSqlite3(join(dir, 'spyglass.sqlite'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    expectNoLeak();
    // The log said what failed: the node's echo, without the secret.
    expect(readFileSync(join(dir, 'logs', 'main.log'), 'utf8')).toContain('echo Basic');
  });
});

describe('the RPC client’s batches', () => {
  it('each entry’s error, and a reply that is no batch, are redacted', async () => {
    const rpc = new RpcClient({ url: node.url, auth: { user: USER, password: PASSWORD }, warmup: { attempts: 0, baseDelayMs: 1 } });
    try {
      node.setMode('jsonrpc');
      const entries = await rpc.batch([{ method: 'getblockcount' }, { method: 'getbestblockhash' }], { wallet: false });
      expect(entries.map((e) => !e.ok && e.error.code)).toEqual(['rpc.error', 'rpc.error']);
      for (const e of entries) if (!e.ok) expect(e.error.message).toContain('echo Basic');
      expect(leaks(JSON.stringify(entries.map((e) => !e.ok && e.error.toIpc())))).toEqual([]);
      node.setMode('http500');
      const whole = await rpc.batch([{ method: 'getblockcount' }], { wallet: false }).then(
        () => null,
        (e: unknown) => e as { code: string; message: string; toIpc(): unknown },
      );
      expect(whole?.code).toBe('rpc.http');
      expect(leaks(JSON.stringify(whole?.toIpc()))).toEqual([]);
    } finally {
      node.setMode('jsonrpc');
      rpc.close();
    }
  });
});
