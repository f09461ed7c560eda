import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { setApi } from '../../renderer/src/api/client';
import { coreVersion, nodeVersionLabel, syncPercent, useConnectionStore } from '../../renderer/src/stores/connection';
import { useProfilesStore } from '../../renderer/src/stores/profiles';
import { fakeApi, profileView, report, type FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = fakeApi();
  setApi(api);
  setActivePinia(createPinia());
});

describe('events the window may have missed while it loaded', () => {
  const flush = () => new Promise((r) => setTimeout(r, 0));

  it('the bridge: a change main made before the event stream opened is picked up when it opens, with the profile it names', async () => {
    let state: 'none' | 'connected' = 'none';
    api.handle('connection:status', () => ({ ok: true, value: state === 'none' ? { state: 'none' } : { state: 'connected', profileId: 'p1', report: report() } }));
    let list: ReturnType<typeof profileView>[] = [];
    api.handle('profiles:list', () => ({ ok: true, value: { profiles: list, activeId: state === 'none' ? null : 'p1' } }));
    api.handle('keychain:status', { available: true, backend: 'fake', reason: null });
    const profiles = useProfilesStore();
    await profiles.load();
    const conn = useConnectionStore();
    await conn.load();
    expect(conn.state?.state).toBe('none');
    // Main activates a profile made elsewhere; its connection:changed went out before the stream was open (not emitted here).
    state = 'connected';
    list = [profileView({ id: 'p1' })];
    expect(conn.state?.state).toBe('none');
    api.openEvents();
    await flush();
    await flush();
    expect(conn.state).toMatchObject({ state: 'connected', profileId: 'p1' });
    expect(profiles.byId('p1')?.name).toBe('Home node');
    expect(profiles.activeId).toBe('p1');
    // Opened again (a reconnect) with nothing changed: asked again, nothing delivered.
    const statusCalls = () => api.calls.filter((c) => c.channel === 'connection:status').length;
    const before = statusCalls();
    let delivered = 0;
    const off = (await import('../../renderer/src/api/spyglass')).onConnectionChanged(() => delivered++);
    api.openEvents();
    await flush();
    expect(statusCalls()).toBe(before + 1);
    expect(delivered).toBe(0);
    off();
  });

  it('an event that arrives while that question is out wins over its (older) answer', async () => {
    let answer: (v: unknown) => void = () => {};
    let n = 0;
    api.handle('connection:status', () => {
      if (n++ === 0) return { ok: true, value: { state: 'none' } };
      return new Promise((r) => (answer = r)) as never; // the resync's question: answered below, late
    });
    const conn = useConnectionStore();
    await conn.load();
    api.openEvents();
    await flush();
    expect(n).toBe(2);
    api.emit('connection:changed', { state: 'connected', profileId: 'p1', report: report() });
    answer({ ok: true, value: { state: 'connecting', profileId: 'p1' } }); // read before the event was sent
    await flush();
    await flush();
    expect(conn.state?.state).toBe('connected');
  });

  it('Electron (no stream): the state is asked once more right after subscribing', async () => {
    const { onEventsOpen: _stream, openEvents: _open, ...preloadLike } = api;
    setApi(preloadLike);
    let n = 0;
    api.handle('connection:status', () => ({ ok: true, value: n++ === 0 ? { state: 'none' } : { state: 'connected', profileId: 'p1', report: report() } }));
    const conn = useConnectionStore();
    await conn.load();
    await flush();
    await flush();
    expect(conn.state).toMatchObject({ state: 'connected', profileId: 'p1' });
    expect(n).toBe(2);
  });
});

describe('useConnectionStore', () => {
  it('loads the state and keeps the report of a connected profile', async () => {
    const r = report();
    api.handle('connection:status', { state: 'connected', profileId: 'p1', report: r });
    const conn = useConnectionStore();
    expect(conn.state).toBeNull();
    expect(await conn.load()).toBe(true);
    expect(conn.loaded).toBe(true);
    expect(conn.state?.state).toBe('connected');
    expect(conn.report).toEqual(r);
    expect(conn.chain).toBe('regtest');
    expect(useProfilesStore().activeId).toBe('p1');
  });

  it('turns an error envelope into error state with its message and code', async () => {
    api.fail('connection:status', { code: 'internal', message: 'The Spyglass bridge is not reachable: HTTP 502' });
    const conn = useConnectionStore();
    expect(await conn.load()).toBe(false);
    expect(conn.loaded).toBe(false);
    expect(conn.loading).toBe(false);
    expect(conn.error).toEqual({ code: 'internal', message: 'The Spyglass bridge is not reachable: HTTP 502' });
    expect(conn.state).toBeNull();
  });

  it('a thrown invoke (IPC itself broken) becomes an internal error, not an exception', async () => {
    api.handle('connection:refresh', () => Promise.reject(new Error('channel closed')));
    const conn = useConnectionStore();
    expect(await conn.refresh()).toBe(false);
    expect(conn.error?.code).toBe('internal');
    expect(conn.error?.message).toContain('channel closed');
    expect(conn.busy).toBeNull();
  });

  it('follows connection:changed events', async () => {
    const conn = useConnectionStore();
    expect(api.listenerCount('connection:changed')).toBe(1);
    api.emit('connection:changed', { state: 'connecting', profileId: 'p1' });
    expect(conn.state).toEqual({ state: 'connecting', profileId: 'p1' });
    const r = report();
    api.emit('connection:changed', { state: 'connected', profileId: 'p1', report: r });
    expect(conn.report?.node.blocks).toBe(201);
    // Checking again keeps the last report of the same profile on screen…
    api.emit('connection:changed', { state: 'connecting', profileId: 'p1' });
    expect(conn.report).toEqual(r);
    // …but never shows it for another profile.
    api.emit('connection:changed', { state: 'failed', profileId: 'p2', error: { code: 'net.refused', message: 'The node refused the connection' }, since: '2026-01-01T00:00:00.000Z' });
    expect(conn.report).toBeNull();
    expect(conn.profileId).toBe('p2');
    api.emit('connection:changed', { state: 'none' });
    expect(conn.profileId).toBeNull();
    expect(useProfilesStore().activeId).toBeNull();
  });

  it('activate sends the id and takes the reply state', async () => {
    api.handle('profiles:activate', (req) => ({ ok: true, value: { state: 'failed', profileId: req.id, error: { code: 'rpc.unauthorized', message: 'The node refused the user name or password' }, since: '2026-01-01T00:00:00.000Z' } }));
    const conn = useConnectionStore();
    expect(await conn.activate('p7')).toBe(true);
    expect(api.calls.at(-1)).toEqual({ channel: 'profiles:activate', request: { id: 'p7' } });
    expect(conn.state?.state).toBe('failed');
    expect(conn.error).toBeNull(); // a failed connection is state, not a failed action
  });

  it('activate shows connecting at once and restores the previous state when the call itself fails', async () => {
    const r = report();
    api.handle('connection:status', { state: 'connected', profileId: 'p1', report: r });
    let release: () => void = () => {};
    api.handle('profiles:activate', () => new Promise((resolve) => {
      release = () => resolve({ ok: false, error: { code: 'profile.not_found', message: 'This profile no longer exists.' } });
    }));
    const conn = useConnectionStore();
    await conn.load();
    const pending = conn.activate('p2');
    expect(conn.state).toEqual({ state: 'connecting', profileId: 'p2' });
    expect(conn.busy).toBe('activate');
    release();
    expect(await pending).toBe(false);
    expect(conn.state).toEqual({ state: 'connected', profileId: 'p1', report: r });
    expect(conn.report).toEqual(r);
    expect(conn.error?.message).toBe('This profile no longer exists.');
  });

  it('a failed call does not undo a state that an event brought meanwhile', async () => {
    api.handle('connection:status', { state: 'connected', profileId: 'p1', report: report() });
    let release: () => void = () => {};
    api.handle('connection:refresh', () => new Promise((resolve) => {
      release = () => resolve({ ok: false, error: { code: 'internal', message: 'The Spyglass bridge is not reachable: HTTP 502' } });
    }));
    const conn = useConnectionStore();
    await conn.load();
    const pending = conn.refresh();
    const failed = { state: 'failed' as const, profileId: 'p1', error: { code: 'net.refused' as const, message: 'The node refused the connection' }, since: '2026-01-01T00:00:00.000Z' };
    api.emit('connection:changed', failed);
    release();
    expect(await pending).toBe(false);
    expect(conn.state).toEqual(failed);
  });

  it('startDemo connects and reloads the profile list', async () => {
    api.handle('demo:start', { state: 'connected', profileId: 'demo', report: report() });
    api.handle('profiles:list', { profiles: [profileView({ id: 'demo', name: 'Demo', isDemo: true })], activeId: 'demo' });
    api.handle('keychain:status', { available: true, reason: null, backend: 'test' });
    const conn = useConnectionStore();
    expect(await conn.startDemo()).toBe(true);
    expect(conn.state?.state).toBe('connected');
    expect(useProfilesStore().profiles.map((p) => p.name)).toEqual(['Demo']);
  });

  it('startDemo failure leaves the error for the welcome screen', async () => {
    api.fail('demo:start', { code: 'demo.failed', message: 'The demo devnet could not start: port in use' });
    const conn = useConnectionStore();
    expect(await conn.startDemo()).toBe(false);
    expect(conn.error).toEqual({ code: 'demo.failed', message: 'The demo devnet could not start: port in use' });
    expect(api.calls.map((c) => c.channel)).toEqual(['demo:start']);
  });

  it('unlock does not ask for the keychain when it is unavailable', async () => {
    api.handle('profiles:list', { profiles: [profileView({ passwordStorage: 'session' })], activeId: 'p1' });
    api.handle('keychain:status', { available: false, reason: 'No Secret Service provider is running', backend: 'libsecret' });
    api.handle('profiles:unlock', { state: 'connecting', profileId: 'p1' });
    await useProfilesStore().load();
    const conn = useConnectionStore();
    expect(await conn.unlock('p1', 'pw', 'keychain')).toBe(false);
    expect(conn.error?.code).toBe('keychain.unavailable');
    expect(conn.error?.message).toContain('No Secret Service provider is running');
    expect(api.calls.some((c) => c.channel === 'profiles:unlock')).toBe(false);
    expect(await conn.unlock('p1', 'pw', 'session')).toBe(true);
    expect(api.calls.at(-1)).toEqual({ channel: 'profiles:unlock', request: { id: 'p1', password: 'pw', remember: 'session' } });
  });
});

describe('report formatting', () => {
  it('formats Core versions like FormatVersion', () => {
    expect(coreVersion(300000)).toBe('30.0.0');
    expect(coreVersion(290100)).toBe('29.1.0');
    expect(coreVersion(250002)).toBe('25.0.2');
    expect(nodeVersionLabel({ version: 300000, subversion: '/Satoshi:30.0.0/' })).toBe('Bitcoin Core 30.0.0 (/Satoshi:30.0.0/)');
  });

  it('never rounds sync progress up to 100 %', () => {
    expect(syncPercent({ verificationProgress: 0.999999 })).toBe('99.99 %');
    expect(syncPercent({ verificationProgress: 1 })).toBe('100.00 %');
    expect(syncPercent({ verificationProgress: 0.5 })).toBe('50.00 %');
  });
});
