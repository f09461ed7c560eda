// The IPC handler table through `dispatch` — the entry both the Electron shell and the bridge use —
// on real services: a real SQLite file, the devnet on loopback, and (under scripts/with-keyring.sh)
// the real OS keychain. No part is faked.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { accountOf } from '../../electron/main/services';
import { keytarBackend } from '../../electron/main/credentials';
import type { IpcResult } from '../../shared/errors';

const keyring = Boolean(process.env.SPYGLASS_TEST_KEYRING);
const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-secret`;

let devnet: Devnet;
let other: Devnet;
let app: SpyglassApp;
let dir: string;

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: PASSWORD });
  other = await startDevnet({ scenario: 'empty', seed: 'another-chain' });
  // Another regtest chain: the same block 0 as every regtest chain, different blocks after it.
  other.node.mine(3, other.node.scriptFor('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'));
  dir = mkdtempSync(join(tmpdir(), 'spyglass-ipc-'));
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, ...(keyring ? {} : { secretBackend: null }) });
});

afterAll(async () => {
  await app?.close();
  await devnet?.close();
  await other?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (channel: string, payload: unknown): Promise<IpcResult<unknown>> => app.dispatch(channel, payload);
const profile = (over: Record<string, unknown> = {}) => ({ name: 'Home node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl, ...over });
// For the validation table (built before the devnet starts): these never reach a network.
const offline = (over: Record<string, unknown> = {}) => ({ name: 'Home node', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: 'http://127.0.0.1:9', ...over });

describe('input validation', () => {
  it.each([
    ['unknown channel', 'fs:read', {}, 'Unknown IPC channel'],
    ['extra field', 'profiles:list', { evil: 1 }, 'unexpected field evil'],
    ['not an object', 'profiles:delete', 'x', 'Invalid request for profiles:delete'],
    ['bad id', 'profiles:delete', { id: '../../etc/passwd' }, 'id: Not a profile id'],
    ['missing profile', 'connection:test', {}, 'profile'],
    ['javascript: URL', 'connection:test', { profile: offline({ nodeUrl: 'javascript:alert(1)' }), password: 'x' }, 'profile.nodeUrl: Use an http:// or https:// URL'],
    ['URL with credentials', 'connection:test', { profile: offline({ nodeUrl: 'http://u:p@127.0.0.1:1/' }), password: 'x' }, 'profile.nodeUrl'],
    ['empty name', 'profiles:save', { profile: offline({ name: ' ' }), password: 'x' }, 'profile.name: Give the profile a name'],
    ['cookie without path', 'profiles:save', { profile: offline({ auth: 'cookie' }) }, 'profile.cookiePath'],
    ['unknown auth', 'profiles:save', { profile: offline({ auth: 'token' }), password: 'x' }, 'profile.auth'],
    ['remember value', 'profiles:save', { profile: offline(), password: 'x', remember: 'disk' }, 'remember'],
    ['huge password', 'profiles:save', { profile: offline(), password: 'x'.repeat(5000) }, 'password'],
  ])('%s is refused with a specific message', async (_what, channel, payload, expected) => {
    const r = await call(channel, payload);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('input.invalid');
      expect(r.error.message).toContain(expected);
      expect(JSON.stringify(r)).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    }
  });

  it('a refused save leaves nothing behind', async () => {
    await call('profiles:save', { profile: profile({ name: '' }), password: PASSWORD });
    const r = await call('profiles:list', {});
    expect(r).toEqual({ ok: true, value: { profiles: [], activeId: null } });
  });
});

describe('connecting through the handler table', () => {
  it('tests a connection without saving: node version, chain, heights', async () => {
    const r = await call('connection:test', { profile: profile(), password: PASSWORD });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    const report = r.value as { node: { chain: string; blocks: number; wallet: string; version: number }; index: { height: number }; network: string };
    expect(report.node.chain).toBe('regtest');
    expect(report.network).toBe('regtest');
    expect(report.node.blocks).toBe(devnet.node.chain.tipHeight());
    expect(report.index.height).toBe(devnet.node.chain.tipHeight());
    expect(report.node.wallet).toBe('watch');
    expect(report.node.version).toBeGreaterThan(0);
  });

  it('wrong password → the 401 message', async () => {
    const r = await call('connection:test', { profile: profile(), password: 'wrong' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('rpc.unauthorized');
      expect(r.error.message).toMatch(/401/);
    }
  });

  it('an index of another regtest chain → chain mismatch', async () => {
    const r = await call('connection:test', { profile: profile({ indexUrl: other.indexUrl }), password: PASSWORD });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('chain.mismatch');
      expect(r.error.message).toContain('The index follows another chain than the node');
    }
  });

  it('lists the wallets of the node', async () => {
    const r = await call('node:listwallets', { profile: profile({ wallet: '' }), password: PASSWORD });
    expect(r.ok && (r.value as { wallets: string[] }).wallets).toContain('watch');
  });

  it('saves, activates and reports connected; the secret is nowhere but the secret store', async () => {
    const events: unknown[] = [];
    const off = app.services.onConnectionChanged((s) => events.push(s));
    const saved = await call('profiles:save', { profile: profile(), password: PASSWORD, remember: keyring ? 'keychain' : 'session' });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    if (!saved.ok) return;
    const p = (saved.value as { profile: { id: string; passwordStorage: string } }).profile;
    expect(p.passwordStorage).toBe(keyring ? 'keychain' : 'session');
    const state = await call('profiles:activate', { id: p.id });
    expect(state.ok && (state.value as { state: string }).state).toBe('connected');
    off();
    expect(events.map((e) => (e as { state: string }).state)).toEqual(['connecting', 'connected']);

    if (keyring) expect(await keytarBackend().get(accountOf(p.id))).toBe(PASSWORD);

    const replies = [saved, state, await call('profiles:list', {}), await call('connection:status', {})].map((r) => JSON.stringify(r));
    for (const text of [...replies, ...events.map((e) => JSON.stringify(e))]) expect(text).not.toContain(PASSWORD);
    for (const f of readdirSync(dir, { recursive: true }) as string[]) {
      if (!statSync(join(dir, f)).isFile()) continue;
      const bytes = readFileSync(join(dir, f), { flag: 'r' }).toString('latin1');
      expect(bytes.includes(PASSWORD), `${f} holds the password`).toBe(false);
    }
    expect(readFileSync(app.logFile, 'utf8')).toContain('connected');
  });
});
