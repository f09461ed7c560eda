// ProfileRepository against a real SQLite file in a temp folder.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../shared/ipc/contract';
import { closeDatabase, openDatabase } from '../../electron/main/store/db';
import type { Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { appError } from '../support/watch-data';
import { CredentialStore, keytarBackend } from '../../electron/main/credentials';

const KEYRING = process.env.SPYGLASS_TEST_KEYRING === '1';

let dir: string;
let file: string;
let db: Database;
let repo: ProfileRepository;

function input(over: Partial<ProfileInput> = {}): ProfileInput {
  return {
    name: 'Home node',
    nodeUrl: 'http://127.0.0.1:8332/',
    auth: 'password',
    rpcUser: 'spy',
    cookiePath: '',
    wallet: 'watch',
    indexUrl: 'http://127.0.0.1:3000/',
    ...over,
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-store-'));
  file = join(dir, 'spyglass.sqlite');
  db = openDatabase(file);
  repo = new ProfileRepository(db);
});

afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

describe('ProfileRepository', () => {
  it('creates, reads and lists profiles', () => {
    expect(repo.list()).toEqual([]);
    const p = repo.create(input(), { passwordStorage: 'keychain' });
    expect(p.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(p).toMatchObject({ ...input(), passwordStorage: 'keychain', isDemo: false });
    expect(new Date(p.createdAt).toISOString()).toBe(p.createdAt);
    expect(p.updatedAt).toBe(p.createdAt);
    expect(repo.get(p.id)).toEqual(p);
    expect(repo.require(p.id)).toEqual(p);

    const q = repo.create(input({ name: 'Another', auth: 'cookie', rpcUser: '', cookiePath: '/home/me/.bitcoin/.cookie', wallet: '' }), { passwordStorage: 'none' });
    expect(q.id).not.toBe(p.id);
    expect(repo.list().map((x) => x.name)).toEqual(['Another', 'Home node']);
    expect(Object.keys(p).sort()).toEqual(['auth', 'cookiePath', 'createdAt', 'id', 'indexUrl', 'isDemo', 'lastError', 'name', 'nodeUrl', 'passwordStorage', 'rpcUser', 'updatedAt', 'wallet']);
  });

  it('keeps profiles across closing and reopening the file', () => {
    const p = repo.create(input(), { passwordStorage: 'session' });
    repo.setActiveId(p.id);
    closeDatabase(db);
    db = openDatabase(file);
    repo = new ProfileRepository(db);
    expect(repo.get(p.id)).toEqual(p);
    expect(repo.getActiveId()).toBe(p.id);
  });

  it('an unknown id: get → null, require → profile.not_found, delete → false', () => {
    expect(repo.get('nope')).toBeNull();
    const e = appError(() => repo.require('nope'));
    expect(e.code).toBe('profile.not_found');
    expect(appError(() => repo.update('nope', input(), 'none')).code).toBe('profile.not_found');
    expect(appError(() => repo.setPasswordStorage('nope', 'none')).code).toBe('profile.not_found');
    expect(appError(() => repo.setActiveId('nope')).code).toBe('profile.not_found');
    expect(repo.delete('nope')).toBe(false);
  });

  it('updates fields, keeps createdAt, and keeps the password storage unless given', async () => {
    const p = repo.create(input(), { passwordStorage: 'keychain' });
    await new Promise((r) => setTimeout(r, 5));
    const u = repo.update(p.id, input({ name: 'Renamed', wallet: '', nodeUrl: 'https://node.example:8332/' }));
    expect(u).toMatchObject({ id: p.id, name: 'Renamed', wallet: '', nodeUrl: 'https://node.example:8332/', passwordStorage: 'keychain', createdAt: p.createdAt });
    expect(u.updatedAt > p.updatedAt).toBe(true);
    expect(repo.update(p.id, input({ name: 'Renamed' }), 'session').passwordStorage).toBe('session');
    expect(repo.setPasswordStorage(p.id, 'none').passwordStorage).toBe('none');
    expect(repo.get(p.id)?.passwordStorage).toBe('none');
  });

  it('names are unique regardless of case, with a clear error on the name field', () => {
    const p = repo.create(input({ name: 'Home node' }), { passwordStorage: 'none' });
    const e = appError(() => repo.create(input({ name: 'HOME NODE' }), { passwordStorage: 'none' }));
    expect(e.code).toBe('input.invalid');
    expect(e.message).toBe('A profile named "HOME NODE" already exists');
    expect(e.detail).toEqual({ field: 'name' });
    // Beyond ASCII too (SQLite's NOCASE alone would not see these as equal).
    repo.create(input({ name: 'Ärger' }), { passwordStorage: 'none' });
    expect(appError(() => repo.create(input({ name: 'ärger' }), { passwordStorage: 'none' })).code).toBe('input.invalid');
    // A profile may keep or re-case its own name, not take another's.
    expect(repo.update(p.id, input({ name: 'home Node' })).name).toBe('home Node');
    expect(appError(() => repo.update(p.id, input({ name: 'ÄRGER' }))).detail).toEqual({ field: 'name' });
    expect(repo.list()).toHaveLength(2);
  });

  it('validates input with the IPC schema', () => {
    const e = appError(() => repo.create(input({ nodeUrl: 'ftp://x' }), { passwordStorage: 'none' }));
    expect(e.code).toBe('input.invalid');
    expect(e.detail).toEqual({ field: 'nodeUrl' });
    expect(appError(() => repo.create(input({ rpcUser: '' }), { passwordStorage: 'none' })).detail).toEqual({ field: 'rpcUser' });
    expect(appError(() => repo.create(input(), { passwordStorage: 'disk' as never })).detail).toEqual({ field: 'passwordStorage' });
    // Names are trimmed as the form's schema does.
    expect(repo.create(input({ name: '  Spaced  ' }), { passwordStorage: 'none' }).name).toBe('Spaced');
    expect(repo.list()).toHaveLength(1);
  });

  it('the active profile: set, clear, and cleared when that profile is deleted', () => {
    const a = repo.create(input({ name: 'A' }), { passwordStorage: 'none' });
    const b = repo.create(input({ name: 'B' }), { passwordStorage: 'none' });
    expect(repo.getActiveId()).toBeNull();
    repo.setActiveId(a.id);
    expect(repo.getActiveId()).toBe(a.id);
    repo.setActiveId(b.id);
    expect(repo.getActiveId()).toBe(b.id);
    repo.setActiveId(null);
    expect(repo.getActiveId()).toBeNull();

    repo.setActiveId(a.id);
    expect(repo.delete(b.id)).toBe(true); // not the active one
    expect(repo.getActiveId()).toBe(a.id);
    expect(repo.delete(a.id)).toBe(true);
    expect(repo.getActiveId()).toBeNull();
    expect(repo.list()).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM settings').get()).toEqual({ n: 0 });
  });

  it('one demo profile at most, found by findDemo', () => {
    expect(repo.findDemo()).toBeNull();
    repo.create(input({ name: 'Mine' }), { passwordStorage: 'keychain' });
    const demo = repo.create(input({ name: 'Demo' }), { passwordStorage: 'session', isDemo: true });
    expect(demo.isDemo).toBe(true);
    expect(repo.findDemo()).toEqual(demo);
    expect(appError(() => repo.create(input({ name: 'Demo 2' }), { passwordStorage: 'session', isDemo: true })).code).toBe('input.invalid');
    expect(repo.list().map((p) => p.name)).toEqual(['Mine', 'Demo']); // the demo sorts last
  });
});

describe('passwords and the SQLite file', () => {
  // With the real keychain under scripts/with-keyring.sh; otherwise the session half still runs.
  it(`a password saved through CredentialStore never reaches the database file or its WAL (${KEYRING ? 'keychain and session' : 'session only: keychain half needs scripts/with-keyring.sh'})`, async () => {
    const service = `Spyglass-test-${process.pid}-${randomBytes(4).toString('hex')}`;
    const credentials = new CredentialStore(KEYRING ? keytarBackend(service) : null);
    const secrets = [`kc-${randomBytes(16).toString('hex')}`, `ss-${randomBytes(16).toString('hex')}`];
    const [kcSecret, ssSecret] = secrets as [string, string];

    const remembered = repo.create(input({ name: 'Remembered' }), { passwordStorage: 'none' });
    const forSession = repo.create(input({ name: 'Session only' }), { passwordStorage: 'none' });
    try {
      if (KEYRING) {
        expect(repo.setPasswordStorage(remembered.id, await credentials.save(remembered.id, kcSecret, 'keychain')).passwordStorage).toBe('keychain');
        expect(await credentials.get(remembered.id)).toBe(kcSecret);
      }
      expect(repo.setPasswordStorage(forSession.id, await credentials.save(forSession.id, ssSecret, 'session')).passwordStorage).toBe('session');
      expect(await credentials.get(forSession.id)).toBe(ssSecret);
      repo.update(forSession.id, input({ name: 'Session only', wallet: 'renamed' }));
      repo.setActiveId(forSession.id);

      const needles = secrets.flatMap((s) => [Buffer.from(s, 'utf8'), Buffer.from(s, 'utf16le')]);
      const wal = readFileSync(`${file}-wal`);
      expect(wal.length).toBeGreaterThan(0); // the rows above are in the WAL until a checkpoint
      expect(wal.includes(Buffer.from(forSession.id))).toBe(true); // so the search below looks at real data
      for (const bytes of [readFileSync(file), wal]) for (const n of needles) expect(bytes.includes(n)).toBe(false);

      // After the checkpoint at close, the main file holds everything: still no password.
      closeDatabase(db);
      expect(existsSync(`${file}-wal`)).toBe(false);
      const main = readFileSync(file);
      expect(main.includes(Buffer.from(forSession.id))).toBe(true);
      for (const n of needles) expect(main.includes(n)).toBe(false);
      expect(readdirSync(dir)).toEqual(['spyglass.sqlite']); // and no other file of ours appeared
    } finally {
      await credentials.forget(remembered.id);
      await credentials.forget(forSession.id);
      db = openDatabase(file);
    }
  });
});
