// Profiles are isolated (#18): "Save and connect" makes a profile active only when its connection
// works (else the active one stays and the profile keeps why); a node whose named wallet is missing
// is refused at the test, not connected to fail every refresh; with several and none named, none is watched; snapshots are numbered per
// profile. Real services, SQLite file and two devnets over loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { ConnectionState, HistoryView, ProfileView } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { TestRpc } from '../support/rpc';

let a: Devnet;
let b: Devnet;
let app: SpyglassApp;
const dir = mkdtempSync(join(tmpdir(), 'spyglass-isolation-'));

const input = (d: Devnet, name: string, wallet = 'watch') => ({ name, nodeUrl: d.rpcUrl, auth: 'password', rpcUser: 'u', wallet, indexUrl: d.indexUrl });
const save = async (profile: object): Promise<string> => (await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', { profile, password: 'p', remember: 'session' })).profile.id;
const profiles = async (): Promise<ProfileView[]> => (await dispatchOk<{ profiles: ProfileView[] }>(app, 'profiles:list')).profiles;

beforeAll(async () => {
  a = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  b = await startDevnet({ scenario: 'demo', seed: 'second', rpcUser: 'u', rpcPassword: 'p' });
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null });
});
afterAll(async () => {
  await app?.close();
  await a?.close();
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('profile isolation', () => {
  let first = '';
  let second = '';

  it('save and connect: the working profile becomes active', async () => {
    first = await save(input(a, 'A'));
    const r = await dispatchOk<{ connected: boolean; state: ConnectionState }>(app, 'profiles:connect', { id: first });
    expect(r.connected).toBe(true);
    expect(app.services.connectionState()).toMatchObject({ state: 'connected', profileId: first });
  });

  it('a profile whose node is down is saved, not activated; the active one stays; it keeps why', async () => {
    const down = await save({ ...input(a, 'Down'), nodeUrl: 'http://127.0.0.1:9' });
    const r = await dispatchOk<{ connected: boolean; state: ConnectionState; error: { code: string } | null }>(app, 'profiles:connect', { id: down });
    expect(r.connected).toBe(false);
    expect(r.error?.code).toMatch(/^net\./);
    expect(app.services.connectionState()).toMatchObject({ state: 'connected', profileId: first });
    expect((await dispatchOk<{ activeId: string }>(app, 'profiles:list')).activeId).toBe(first);
    const listed = (await profiles()).find((p) => p.id === down)!;
    expect(listed.lastError).toMatchObject({ code: r.error!.code, message: expect.stringContaining('127.0.0.1:9') });
    await dispatchOk(app, 'profiles:delete', { id: down });
  });

  it('a node with several wallets and none chosen connects watching none, saying so; a wallet it has not loaded is refused at the test, with the field', async () => {
    await new TestRpc(b.rpcUrl, 'u', 'p').call('createwallet', ['second-wallet']);
    const none = await save(input(b, 'No wallet chosen', ''));
    const r = await dispatchOk<{ connected: boolean; state: ConnectionState; error: unknown }>(app, 'profiles:connect', { id: none });
    expect(r.connected).toBe(true);
    expect(r.state.state === 'connected' && r.state.report.node.wallet).toBeNull();
    expect(r.state.state === 'connected' && r.state.report.warnings.find((w) => w.code === 'no-wallet')?.message).toMatch(/wallets loaded \(.*"watch".*\)\. Choose a wallet/);
    expect((await dispatchOk<{ connected: boolean }>(app, 'profiles:connect', { id: first })).connected).toBe(true);
    const missing = await save(input(b, 'Wrong wallet', 'nope'));
    const r2 = await dispatchOk<{ connected: boolean; error: { code: string } | null }>(app, 'profiles:connect', { id: missing });
    expect(r2.error?.code).toBe('rpc.wallet_not_found');
    expect(app.services.connectionState()).toMatchObject({ state: 'connected', profileId: first });
    await dispatchOk(app, 'profiles:delete', { id: none });
    await dispatchOk(app, 'profiles:delete', { id: missing });
  });

  it('snapshots are numbered per profile', async () => {
    await dispatchOk(app, 'watch:refresh');
    await dispatchOk(app, 'watch:refresh');
    second = await save(input(b, 'B'));
    expect((await dispatchOk<{ connected: boolean }>(app, 'profiles:connect', { id: second })).connected).toBe(true);
    await dispatchOk(app, 'watch:refresh');
    const h = await dispatchOk<HistoryView>(app, 'watch:history');
    expect(h.points.map((p) => p.number)).toEqual([1]);
    expect(h.diff).toMatchObject({ fromNumber: null, toNumber: 1 });
    await dispatchOk(app, 'profiles:activate', { id: first });
    const h1 = await dispatchOk<HistoryView>(app, 'watch:history');
    expect(h1.points.map((p) => p.number)).toEqual([1, 2].slice(0, h1.points.length));
    expect(h1.points.every((p) => p.snapshotId !== h.points[0]!.snapshotId)).toBe(true);
  });
});
