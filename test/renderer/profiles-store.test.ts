import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { setApi } from '../../renderer/src/api/client';
import { emptyDraft, isPlainHttpRemote, passwordStorageLabel, useProfilesStore } from '../../renderer/src/stores/profiles';
import { validateDraft } from '../../renderer/src/lib/profile-draft';
import { fakeApi, profileView, report, type FakeApi } from './fake-api';

let api: FakeApi;

const input = { name: 'Home node', nodeUrl: 'http://127.0.0.1:8332', auth: 'password' as const, rpcUser: 'spy', cookiePath: '', wallet: 'watch', indexUrl: 'http://127.0.0.1:8000' };

beforeEach(() => {
  api = fakeApi();
  setApi(api);
  setActivePinia(createPinia());
  api.handle('profiles:list', { profiles: [profileView()], activeId: 'p1' });
  api.handle('keychain:status', { available: true, reason: null, backend: 'OS keychain (libsecret)' });
});

describe('useProfilesStore', () => {
  it('loads profiles, the active id and the keychain status', async () => {
    const s = useProfilesStore();
    expect(await s.load()).toBe(true);
    expect(s.profiles).toHaveLength(1);
    expect(s.activeProfile?.name).toBe('Home node');
    expect(s.keychain?.backend).toBe('OS keychain (libsecret)');
    expect(s.keychainAvailable).toBe(true);
  });

  it('an error envelope on load becomes error state with the message', async () => {
    api.fail('profiles:list', { code: 'internal', message: 'The profile store could not be read' });
    const s = useProfilesStore();
    expect(await s.load()).toBe(false);
    expect(s.error?.message).toBe('The profile store could not be read');
    expect(s.loaded).toBe(false);
    expect(s.loading).toBe(false);
  });

  it('does not try to save to an unavailable keychain', async () => {
    api.handle('keychain:status', { available: false, reason: 'No Secret Service provider is running', backend: 'libsecret' });
    api.handle('profiles:save', (req) => ({ ok: true, value: { profile: profileView({ id: 'new', passwordStorage: req.remember ?? 'keychain' }) } }));
    const s = useProfilesStore();
    await s.load();
    expect(s.keychainAvailable).toBe(false);
    expect(await s.save({ profile: input, password: 'pw', remember: 'keychain' })).toBeNull();
    expect(s.error?.code).toBe('keychain.unavailable');
    expect(s.error?.message).toContain('No Secret Service provider is running');
    expect(api.calls.some((c) => c.channel === 'profiles:save')).toBe(false);
    // Session-only goes through.
    const saved = await s.save({ profile: input, password: 'pw', remember: 'session' });
    expect(saved?.passwordStorage).toBe('session');
    expect(s.error).toBeNull();
  });

  it('an empty password on update is left out (keep the stored one), and the list is updated in place', async () => {
    api.handle('profiles:save', (req) => ({ ok: true, value: { profile: profileView({ id: req.id ?? 'x', name: req.profile.name }) } }));
    const s = useProfilesStore();
    await s.load();
    const saved = await s.save({ id: 'p1', profile: { ...input, name: 'Renamed' }, password: '', remember: 'keychain' });
    expect(saved?.name).toBe('Renamed');
    expect(api.calls.at(-1)).toEqual({ channel: 'profiles:save', request: { id: 'p1', profile: { ...input, name: 'Renamed' } } });
    expect(s.profiles.map((p) => p.name)).toEqual(['Renamed']);
  });

  it('a new profile with a password sends it with the remember choice', async () => {
    api.handle('profiles:save', { profile: profileView({ id: 'p2' }) });
    const s = useProfilesStore();
    await s.load();
    await s.save({ profile: input, password: 'secret', remember: 'session' });
    expect(api.calls.at(-1)).toEqual({ channel: 'profiles:save', request: { profile: input, password: 'secret', remember: 'session' } });
    expect(s.profiles.map((p) => p.id)).toEqual(['p1', 'p2']);
  });

  it('a save refused by main keeps the list and shows the message', async () => {
    api.fail('profiles:save', { code: 'input.invalid', message: 'Use an http:// or https:// URL', detail: { field: 'nodeUrl' } });
    const s = useProfilesStore();
    await s.load();
    expect(await s.save({ profile: input, remember: 'keychain' })).toBeNull();
    expect(s.error).toEqual({ code: 'input.invalid', message: 'Use an http:// or https:// URL', detail: { field: 'nodeUrl' } });
    expect(s.profiles).toHaveLength(1);
    expect(s.saving).toBe(false);
  });

  it('remove drops the profile and clears the active id', async () => {
    api.handle('profiles:delete', { deleted: true });
    const s = useProfilesStore();
    await s.load();
    expect(await s.remove('p1')).toBe(true);
    expect(s.profiles).toEqual([]);
    expect(s.activeId).toBeNull();
  });

  it('a failed remove keeps the profile', async () => {
    api.fail('profiles:delete', { code: 'profile.not_found', message: 'No such profile' });
    const s = useProfilesStore();
    await s.load();
    expect(await s.remove('p1')).toBe(false);
    expect(s.profiles).toHaveLength(1);
    expect(s.error?.code).toBe('profile.not_found');
    expect(s.removing).toBeNull();
  });

  it('test keeps either the report or the error, never both', async () => {
    api.handle('connection:test', report());
    const s = useProfilesStore();
    expect((await s.test({ profile: input, password: 'pw' }))?.node.chain).toBe('regtest');
    expect(api.calls.at(-1)).toEqual({ channel: 'connection:test', request: { profile: input, password: 'pw' } });
    expect(s.testReport).not.toBeNull();
    api.fail('connection:test', { code: 'rpc.unauthorized', message: 'The node refused the user name or password (HTTP 401)' });
    expect(await s.test({ id: 'p1', profile: input })).toBeNull();
    expect(api.calls.at(-1)).toEqual({ channel: 'connection:test', request: { id: 'p1', profile: input } });
    expect(s.testReport).toBeNull();
    expect(s.testError?.code).toBe('rpc.unauthorized');
    expect(s.testing).toBe(false);
  });

  it('listWallets fills the list or the error', async () => {
    api.handle('node:listwallets', { wallets: ['watch', 'vault'] });
    const s = useProfilesStore();
    expect(await s.listWallets({ profile: input, password: 'pw' })).toEqual(['watch', 'vault']);
    expect(s.wallets).toEqual(['watch', 'vault']);
    api.fail('node:listwallets', { code: 'net.refused', message: 'The node refused the connection' });
    expect(await s.listWallets({ profile: input })).toBeNull();
    expect(s.wallets).toBeNull();
    expect(s.walletsError?.message).toBe('The node refused the connection');
  });
});

describe('profile helpers', () => {
  it('validates with the contract schema, one message per field', () => {
    const r = validateDraft({ ...emptyDraft(), nodeUrl: 'ftp://x', indexUrl: 'http://127.0.0.1:8000' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.name).toBe('Give the profile a name');
    expect(r.errors.nodeUrl).toContain('http://');
    expect(r.errors.rpcUser).toContain('RPC user');
    expect(r.errors.indexUrl).toBeUndefined();
    const c = validateDraft({ ...input, auth: 'cookie', rpcUser: '', cookiePath: '' });
    expect(c.ok).toBe(false);
    if (!c.ok) expect(Object.keys(c.errors)).toEqual(['cookiePath']);
    expect(validateDraft(input).ok).toBe(true);
  });

  it('flags plain http to another host only', () => {
    expect(isPlainHttpRemote('http://127.0.0.1:8332')).toBe(false);
    expect(isPlainHttpRemote('http://localhost:8332')).toBe(false);
    expect(isPlainHttpRemote('http://[::1]:8332')).toBe(false);
    expect(isPlainHttpRemote('https://node.example.com')).toBe(false);
    expect(isPlainHttpRemote('http://192.168.1.20:8332')).toBe(true);
    expect(isPlainHttpRemote('not a url')).toBe(false);
  });

  it('says where a password is kept', () => {
    expect(passwordStorageLabel({ auth: 'password', passwordStorage: 'keychain' })).toBe('OS keychain');
    expect(passwordStorageLabel({ auth: 'password', passwordStorage: 'session' })).toBe('this session only');
    expect(passwordStorageLabel({ auth: 'cookie', passwordStorage: 'none' })).toBe('cookie file');
  });
});
