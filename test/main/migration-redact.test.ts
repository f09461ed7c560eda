// Schema 100 (#27): errors stored before redaction existed lose the credentials they quote, and no copy
// of the old text stays in any file — not in a rewritten row's old bytes, not in the free space a
// deleted or overwritten row left (written without secure_delete, as every Spyglass before did), not
// in the WAL. Real SQLite files in a temp folder, read raw as bytes.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, openDatabaseAtVersion } from '../../electron/main/store/db';
import { getUserVersion } from '../../electron/main/store/migrations/index';
import { ProfileRepository } from '../../electron/main/store/profiles';

const rand = (n: number): string => Array.from({ length: n }, () => 'abcdefghijkmnpqrstuvwxyz23456789'[Math.floor(Math.random() * 32)]).join('');
const PASSWORD = `pw${rand(22)}`;
const OLD_PASSWORD = `old${rand(21)}`;
const GONE_PASSWORD = `gone${rand(20)}`;
const COOKIE_HEX = Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const SECRETS = [PASSWORD, OLD_PASSWORD, GONE_PASSWORD, COOKIE_HEX, ...[`alice:${PASSWORD}`, `alice:${OLD_PASSWORD}`, `bob:${GONE_PASSWORD}`, `__cookie__:${COOKIE_HEX}`].map((p) => b64(p).replace(/=+$/, ''))];

/** What a node that echoes its request wrote into an error, as Spyglass stored it before #27. */
const echo = (user: string, password: string): string =>
  `Bitcoin Core error -32603: echo Basic ${b64(`${user}:${password}`)} | credentials ${user}:${password} | upstream http://${user}:${password}@127.0.0.1:8332/`;
const stored = (message: string): string => JSON.stringify({ code: 'rpc.error', message, at: '2026-11-01T00:00:00.000Z' });

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-migration-redact-'));
  file = join(dir, 'spyglass.sqlite');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The secrets found in the raw bytes of each file of the folder (the database, its -wal and -shm). */
function secretsInFiles(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, name));
    const found = SECRETS.filter((s) => bytes.includes(Buffer.from(s, 'utf8')));
    if (found.length > 0) out[name] = found;
  }
  return out;
}

function insertProfile(db: ReturnType<typeof openDatabase>, id: string, user: string, lastError: string | null): void {
  db.prepare(
    `INSERT INTO profiles (id, name, node_url, auth, rpc_user, index_url, password_storage, is_demo, created_at, updated_at, last_error)
     VALUES (?, ?, 'http://127.0.0.1:8332/', 'password', ?, '', 'keychain', 0, '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z', ?)`,
  ).run(id, `Node ${id}`, user, lastError);
}

describe('schema 100: stored errors are redacted and leave no copy', () => {
  it('a data folder written at schema 95 holds the credentials; after the migration no byte of any file does', () => {
    const old = openDatabaseAtVersion(file, 95);
    old.pragma('secure_delete = OFF'); // as every Spyglass before #27 wrote
    // A long echo, later replaced by a shorter one: the new row takes only part of the old one's
    // place, and the rest of the old bytes stays in the page's free space.
    insertProfile(old, 'p1', 'alice', stored(`${echo('alice', OLD_PASSWORD)} | Content-Type text/plain ${'x'.repeat(400)}`));
    insertProfile(old, 'p2', 'bob', stored(echo('bob', GONE_PASSWORD)));
    insertProfile(old, 'p3', '', 'not the JSON the app writes: credentials http://__cookie__:' + COOKIE_HEX + '@127.0.0.1/');
    old.prepare(
      `INSERT INTO snapshots (profile_id, node_wallet, taken_at, status, failed_step, error_code, error_message)
       VALUES ('p1', '', '2026-11-01T00:00:00Z', 'failed', 'received', 'rpc.error', ?)`,
    ).run(echo('alice', PASSWORD));
    old.prepare('UPDATE profiles SET last_error = ? WHERE id = ?').run(stored(echo('alice', PASSWORD)), 'p1');
    old.prepare('DELETE FROM profiles WHERE id = ?').run('p2'); // deleted: its bytes stay too
    old.pragma('wal_checkpoint(TRUNCATE)');
    closeDatabase(old);
    // The test means something: the old bytes are in the file, live and in free space.
    expect(Object.values(secretsInFiles()).flat()).toEqual(expect.arrayContaining([PASSWORD, OLD_PASSWORD, GONE_PASSWORD, COOKIE_HEX]));

    const db = openDatabase(file);
    try {
      expect(getUserVersion(db)).toBeGreaterThanOrEqual(100);
      expect(db.pragma('secure_delete', { simple: true })).toBe(1);
      // While it is open (WAL and shared memory present) and after it is closed.
      expect(secretsInFiles()).toEqual({});
      const profiles = new ProfileRepository(db);
      const p1 = profiles.require('p1');
      expect(p1.lastError?.code).toBe('rpc.error');
      expect(p1.lastError?.message).toBe('Bitcoin Core error -32603: echo Basic [redacted] | credentials alice:[redacted] | upstream http://[redacted]@127.0.0.1:8332/');
      expect(profiles.require('p3').lastError).toBeNull();
      const failure = db.prepare<[], { error_message: string }>('SELECT error_message FROM snapshots').get();
      expect(failure?.error_message).toBe(p1.lastError?.message);
      expect(profiles.get('p2')).toBeNull();
    } finally {
      closeDatabase(db);
    }
    expect(secretsInFiles()).toEqual({});
  });

  it('a clean database keeps every stored error as it was', () => {
    const old = openDatabaseAtVersion(file, 95);
    const message = 'Cannot reach the node at 127.0.0.1:8332: the connection was refused. Is it running, and is the port right?';
    insertProfile(old, 'p1', 'alice', stored(message));
    closeDatabase(old);
    const db = openDatabase(file);
    try {
      expect(new ProfileRepository(db).require('p1').lastError).toEqual({ code: 'rpc.error', message, at: '2026-11-01T00:00:00.000Z' });
    } finally {
      closeDatabase(db);
    }
  });

  it('from now on a deleted profile leaves no copy: secure_delete, and the WAL checkpointed and truncated', () => {
    const db = openDatabase(file);
    try {
      // A row holding a secret the redactor could not know (a label, say): what matters is the delete.
      insertProfile(db, 'p1', 'alice', null);
      db.prepare("INSERT INTO labels (profile_id, node_wallet, type, ref, label, updated_at) VALUES ('p1', '', 'addr', 'bcrt1qxyz', ?, '2026-11-01T00:00:00Z')").run(`note ${PASSWORD}`);
      expect(Object.values(secretsInFiles()).flat()).toContain(PASSWORD);
      expect(new ProfileRepository(db).delete('p1')).toBe(true);
      expect(secretsInFiles()).toEqual({});
    } finally {
      closeDatabase(db);
    }
  });
});
