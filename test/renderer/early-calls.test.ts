import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setApi } from '../../renderer/src/api/client';
import { dropEarlyCalls, mayOpenOnBalances, startEarlyCalls, type PageReply } from '../../renderer/src/api/early';
import * as api from '../../renderer/src/api/spyglass';
import { fakeApi, type FakeApi } from './fake-api';

let fake: FakeApi;

beforeEach(() => {
  fake = fakeApi();
  setApi(fake);
  fake.handle('connection:status', { state: 'none' });
  fake.handle('profiles:list', { profiles: [], activeId: null });
  fake.handle('keychain:status', { available: true, reason: null, backend: 'test' });
});

afterEach(() => {
  dropEarlyCalls();
  setApi(null);
});

const count = (channel: string): number => fake.calls.filter((c) => c.channel === channel).length;

describe('early calls', () => {
  it('go out at once; each helper takes its reply once, later calls ask again', async () => {
    fake.handle('watch:overview', () => ({ ok: false, error: { code: 'internal', message: 'early' } }));
    startEarlyCalls('#/balances');
    expect(fake.calls.map((c) => c.channel)).toEqual(['connection:status', 'profiles:list', 'keychain:status', 'watch:overview']);
    // A large wallet's overview is paged: its first page in the order the window kept (none here: main's default).
    expect(fake.calls[3]!.request).toEqual({ page: { query: { sort: 'balance', dir: 'desc', filter: '', showHidden: false } } });
    fake.handle('connection:status', { state: 'needs-password', profileId: 'p1' });
    expect(await api.connectionStatus()).toEqual({ state: 'none' }); // the early reply
    expect(await api.connectionStatus()).toEqual({ state: 'needs-password', profileId: 'p1' }); // asked again
    expect(count('connection:status')).toBe(2);
    // A failed early call fails the helper that takes it, like a call of its own would.
    await expect(api.watchOverview()).rejects.toThrow('early');
  });

  it('what the first screen did not take is dropped', async () => {
    startEarlyCalls('#/');
    dropEarlyCalls();
    fake.handle('profiles:list', { profiles: [], activeId: 'p2' });
    expect((await api.listProfiles()).activeId).toBe('p2');
    expect(count('profiles:list')).toBe(2);
  });

  it('takes over the calls public/early.js sent: preload results, or bridge responses through the bridge checks', async () => {
    const json = (body: unknown, status = 200): Promise<PageReply> => Promise.resolve({ status, statusText: '', json: body });
    startEarlyCalls('#/balances', {
      kind: 'http',
      calls: {
        'connection:status': json({ ok: true, value: { state: 'none' } }),
        'profiles:list': json({ ok: false, error: { code: 'internal', message: 'from main' } }),
        'keychain:status': Promise.resolve({ status: 200, statusText: 'OK', json: undefined }),
        'watch:overview': json({}, 401),
      },
    });
    expect(fake.calls).toEqual([]); // nothing asked again
    expect(await api.connectionStatus()).toEqual({ state: 'none' });
    await expect(api.listProfiles()).rejects.toThrow('from main');
    await expect(api.keychainStatus()).rejects.toThrow('the reply was not JSON');
    await expect(api.watchOverview()).rejects.toThrow('HTTP 401');
    dropEarlyCalls();

    // In Electron: the preload's results; a channel the page did not send is asked by the app.
    startEarlyCalls('#/balances', { kind: 'ipc', calls: { 'connection:status': Promise.resolve({ ok: true, value: { state: 'needs-password', profileId: 'p9' } }) } });
    expect(fake.calls.map((c) => c.channel)).toEqual(['profiles:list', 'keychain:status', 'watch:overview']);
    expect(await api.connectionStatus()).toEqual({ state: 'needs-password', profileId: 'p9' });
  });

  it('the overview only when the app may open on the balances', () => {
    expect(['', '#', '#/', '#/balances', '#/balances?x=1'].map(mayOpenOnBalances)).toEqual([true, true, true, true, true]);
    expect(['#/settings', '#/psbt', '#/address/bcrt1qx', '#/welcome'].map(mayOpenOnBalances)).toEqual([false, false, false, false]);
    startEarlyCalls('#/psbt');
    expect(count('watch:overview')).toBe(0);
  });
});
