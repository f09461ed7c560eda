// The schema runner against real SQLite files in a temp folder.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, openDatabaseAtVersion, updateToVersion } from '../../electron/main/store/db';
import type { Database } from '../../electron/main/store/db';
import {
  checkSchemaVersions,
  DBVersionFromFutureError,
  getUserVersion,
  latestSchemaVersion,
  runMigrations,
  SCHEMA_VERSIONS,
} from '../../electron/main/store/migrations/index';
import type { SchemaVersion } from '../../electron/main/store/migrations/index';

let dir: string;
let file: string;
const open: Database[] = [];

function track(db: Database): Database {
  open.push(db);
  return db;
}

function tables(db: Database): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((r) => r.name);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-migrations-'));
  file = join(dir, 'spyglass.sqlite');
});

afterEach(() => {
  for (const db of open.splice(0)) closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

describe('schema versions', () => {
  it('are strictly increasing multiples of 10 up to 90 (then the slots after it: 95 the wallet history cache, 98 the pending coins)', () => {
    expect(() => checkSchemaVersions(SCHEMA_VERSIONS)).not.toThrow();
    for (const v of SCHEMA_VERSIONS) if (v.version <= 90) expect(v.version % 10).toBe(0);
    expect(latestSchemaVersion()).toBe(SCHEMA_VERSIONS.at(-1)?.version);
  });

  it('a list out of order or with a repeated version is refused before anything runs', () => {
    const noop = (): void => {};
    expect(() => checkSchemaVersions([{ version: 20, update: noop }, { version: 10, update: noop }])).toThrow(/strictly increase/);
    expect(() => checkSchemaVersions([{ version: 10, update: noop }, { version: 10, update: noop }])).toThrow(/strictly increase/);
    expect(() => checkSchemaVersions([{ version: 0, update: noop }])).toThrow(/positive integer/);
    const db = track(new BetterSqlite3(file));
    let ran = false;
    expect(() => runMigrations(db, [{ version: 20, update: () => { ran = true; } }, { version: 10, update: noop }])).toThrow(/strictly increase/);
    expect(ran).toBe(false);
    expect(getUserVersion(db)).toBe(0);
  });
});

describe('openDatabase', () => {
  it('a fresh file gets the newest schema, the connection pragmas and STRICT tables', () => {
    const db = track(openDatabase(file));
    expect(getUserVersion(db)).toBe(latestSchemaVersion());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(tables(db)).toEqual(expect.arrayContaining(['profiles', 'settings']));
    const strict = db.prepare<[], { name: string; strict: number }>("SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name IN ('profiles', 'settings')").all();
    expect(strict).toHaveLength(2);
    for (const t of strict) expect(t.strict, t.name).toBe(1);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('no table has a column that could hold a password or secret', () => {
    const db = track(openDatabase(file));
    for (const t of tables(db)) {
      const cols = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${t}')`).all().map((c) => c.name);
      for (const c of cols.filter((c) => c !== 'password_storage')) expect(c, `${t}.${c}`).not.toMatch(/pass|secret|cookie_value|token/i);
    }
  });

  it('the CHECK and STRICT constraints hold', () => {
    const db = track(openDatabase(file));
    const insert = (auth: unknown, storage: unknown, isDemo: unknown) =>
      db
        .prepare(
          `INSERT INTO profiles (id, name, node_url, auth, index_url, password_storage, is_demo, created_at, updated_at)
           VALUES (?, ?, 'http://127.0.0.1:8332/', ?, 'http://127.0.0.1:3000/', ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
        )
        .run(`id-${Math.random()}`, `n-${Math.random()}`, auth, storage, isDemo);
    expect(() => insert('password', 'keychain', 0)).not.toThrow();
    expect(() => insert('oauth', 'keychain', 0)).toThrow(/CHECK constraint/);
    expect(() => insert('cookie', 'disk', 0)).toThrow(/CHECK constraint/);
    expect(() => insert('cookie', 'none', 'yes')).toThrow(/cannot store TEXT value in INTEGER column/);
  });

  it('opening twice runs nothing the second time', () => {
    closeDatabase(openDatabase(file));
    const db = track(openDatabase(file));
    expect(runMigrations(db)).toEqual({ from: latestSchemaVersion(), to: latestSchemaVersion(), applied: [] });
  });

  it('an old file (user_version 0, other state) migrates forward and keeps its data', () => {
    const raw = new BetterSqlite3(file);
    raw.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL); INSERT INTO notes (body) VALUES ('kept'), ('also kept');");
    expect(getUserVersion(raw)).toBe(0);
    raw.close();

    const db = track(openDatabase(file));
    expect(getUserVersion(db)).toBe(latestSchemaVersion());
    expect(tables(db)).toEqual(expect.arrayContaining(['notes', 'profiles', 'settings']));
    expect(db.prepare<[], { body: string }>('SELECT body FROM notes ORDER BY id').all().map((r) => r.body)).toEqual(['kept', 'also kept']);
  });

  it('openDatabaseAtVersion stops where told and updateToVersion continues', () => {
    const db = track(openDatabaseAtVersion(file, 0));
    expect(getUserVersion(db)).toBe(0);
    expect(tables(db)).not.toContain('profiles');
    updateToVersion(db, 10);
    expect(getUserVersion(db)).toBe(10);
    expect(tables(db)).toContain('profiles');
    expect(() => updateToVersion(db, 0)).toThrow(/already at schema 10/);
  });

  it('a database from a newer Spyglass is refused with a clear message and left untouched', () => {
    const future = latestSchemaVersion() + 990;
    const raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    raw.exec("CREATE TABLE things_from_the_future (x TEXT) STRICT; INSERT INTO things_from_the_future VALUES ('hello');");
    raw.pragma(`user_version = ${future}`);
    raw.close();
    const before = readFileSync(file);

    let caught: unknown;
    try {
      track(openDatabase(file));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DBVersionFromFutureError);
    expect((caught as Error).message).toBe(
      `This database was written by a newer Spyglass (schema ${future}, this version knows up to ${latestSchemaVersion()}). Update Spyglass or choose another data folder.`,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false); // the refused connection was closed

    const check = new BetterSqlite3(file, { readonly: true });
    expect(getUserVersion(check)).toBe(future);
    expect(tables(check)).toEqual(['things_from_the_future']);
    check.close();

    // runMigrations on an open handle refuses too.
    const again = track(new BetterSqlite3(file));
    expect(() => runMigrations(again)).toThrow(DBVersionFromFutureError);
  });

  it('a failing step rolls back every step of the run and the user_version bump', () => {
    const raw = track(new BetterSqlite3(file));
    raw.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('before');");
    const failing: SchemaVersion = {
      version: latestSchemaVersion() + 10,
      update(db) {
        db.exec("CREATE TABLE half_done (x TEXT) STRICT; INSERT INTO notes VALUES ('during');");
        throw new Error('step failed on purpose');
      },
    };
    expect(() => runMigrations(raw, [...SCHEMA_VERSIONS, failing])).toThrow('step failed on purpose');
    expect(getUserVersion(raw)).toBe(0);
    expect(tables(raw)).toEqual(['notes']);
    expect(raw.prepare<[], { body: string }>('SELECT body FROM notes').all().map((r) => r.body)).toEqual(['before']);
    raw.close();

    // The app's own list still applies cleanly afterwards.
    const db = track(openDatabase(file));
    expect(getUserVersion(db)).toBe(latestSchemaVersion());
  });

  it('a later step (a future kind) applies on top of a populated database', () => {
    const db = track(openDatabase(file));
    db.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
    const next: SchemaVersion = {
      version: latestSchemaVersion() + 10,
      update(d) {
        d.exec('CREATE TABLE later_things (profile_id TEXT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, address TEXT NOT NULL, PRIMARY KEY (profile_id, address)) STRICT;');
      },
    };
    expect(runMigrations(db, [...SCHEMA_VERSIONS, next])).toEqual({ from: latestSchemaVersion(), to: next.version, applied: [next.version] });
    expect(getUserVersion(db)).toBe(next.version);
    expect(db.prepare<[], { value: string }>("SELECT value FROM settings WHERE key = 'k'").get()?.value).toBe('v');
    // foreign_keys = ON is in force for later tables.
    expect(() => db.prepare("INSERT INTO later_things VALUES ('no-such-profile', 'bc1q')").run()).toThrow(/FOREIGN KEY/);
  });

  it('a step’s afterCommit runs once its transaction committed (VACUUM can run there), and only when the step was applied', () => {
    const db = track(openDatabase(file));
    const seen: Array<{ version: number; inTransaction: boolean }> = [];
    const next: SchemaVersion = {
      version: latestSchemaVersion() + 10,
      update(d) {
        d.exec('CREATE TABLE after_things (x TEXT) STRICT;');
      },
      afterCommit(d) {
        seen.push({ version: getUserVersion(d), inTransaction: d.inTransaction });
        d.exec('VACUUM');
      },
    };
    runMigrations(db, [...SCHEMA_VERSIONS, next]);
    expect(seen).toEqual([{ version: next.version, inTransaction: false }]);
    runMigrations(db, [...SCHEMA_VERSIONS, next]);
    expect(seen).toHaveLength(1);
  });
});

describe('schema 40: the last connection failure of a profile', () => {
  it('a file at 30 gains profiles.last_error (null), and a failure recorded reads back', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openDatabaseAtVersion, openDatabase, closeDatabase } = await import('../../electron/main/store/db');
    const { ProfileRepository } = await import('../../electron/main/store/profiles');
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-m40-'));
    try {
      const file = join(dir, 'spyglass.sqlite');
      const v30 = openDatabaseAtVersion(file, 30);
      const p = new ProfileRepository(v30).create({ name: 'Old', nodeUrl: 'http://127.0.0.1:1', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: '', indexUrl: 'http://127.0.0.1:2' }, { passwordStorage: 'none' }).id;
      closeDatabase(v30);
      const db = openDatabase(file);
      const repo = new ProfileRepository(db);
      expect(repo.require(p).lastError).toBeNull();
      repo.setLastError(p, { code: 'net.refused', message: 'refused' }, new Date('2026-11-25T10:00:00Z'));
      expect(repo.require(p).lastError).toEqual({ code: 'net.refused', message: 'refused', at: '2026-11-25T10:00:00.000Z' });
      repo.setLastError(p, null);
      expect(repo.require(p).lastError).toBeNull();
      closeDatabase(db);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('schema 80: wallet rescans started and not answered', () => {
  it('a file at 70 (with a stored wallet) gains wallet_rescans; a record reads back, is replaced, cleared, and goes with its profile', async () => {
    const { ProfileRepository } = await import('../../electron/main/store/profiles');
    const { WalletRepository } = await import('../../electron/main/store/wallets');
    const v70 = track(openDatabaseAtVersion(file, 70));
    const p = new ProfileRepository(v70).create({ name: 'Old', nodeUrl: 'http://127.0.0.1:1', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'vault', indexUrl: 'http://127.0.0.1:2' }, { passwordStorage: 'none' }).id;
    v70.prepare("INSERT INTO wallets (profile_id, node_wallet, description, created_at) VALUES (?, 'vault', '{}', '2026-11-01T00:00:00.000Z')").run(p);
    expect(tables(v70)).not.toContain('wallet_rescans');
    updateToVersion(v70, 80);
    expect(getUserVersion(v70)).toBe(80);
    const repo = new WalletRepository(v70);
    expect(repo.rescan(p, 'vault')).toBeNull();
    expect(repo.startRescan(p, 'vault', { startHeight: 120, fromTime: 1_700_000_000, kind: 'import' }, new Date('2026-11-25T06:00:00Z'))).toEqual({
      profileId: p, nodeWallet: 'vault', startHeight: 120, fromTime: 1_700_000_000, kind: 'import', startedAt: '2026-11-25T06:00:00.000Z',
    });
    expect(repo.startRescan(p, 'vault', { startHeight: 120, fromTime: 1_700_000_000, kind: 'rescan' }).kind).toBe('rescan');
    expect(() => v70.prepare("INSERT INTO wallet_rescans VALUES (?, 'x', -1, 0, 'import', 'now')").run(p)).toThrow(/CHECK constraint/);
    expect(() => v70.prepare("INSERT INTO wallet_rescans VALUES (?, 'x', 0, 0, 'other', 'now')").run(p)).toThrow(/CHECK constraint/);
    expect(() => v70.prepare("INSERT INTO wallet_rescans VALUES ('no-such-profile', 'x', 0, 0, 'import', 'now')").run()).toThrow(/FOREIGN KEY/);
    repo.clearRescan(p, 'vault');
    expect(repo.rescan(p, 'vault')).toBeNull();
    repo.startRescan(p, 'vault', { startHeight: 0, fromTime: 0, kind: 'import' });
    new ProfileRepository(v70).delete(p);
    expect(v70.prepare('SELECT count(*) AS n FROM wallet_rescans').get()).toEqual({ n: 0 });
  });
});
