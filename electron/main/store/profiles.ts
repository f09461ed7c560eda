// Connection profiles in SQLite. A profile holds where the node and the index are and how to log in,
// never the password: that lives in the OS keychain or in memory (electron/main/credentials.ts), and
// the row only says where (`password_storage`).
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import { redactGeneric } from '../../../shared/redact';
import { ProfileInputSchema } from '../../../shared/ipc/contract';
import type { PasswordStorage, ProfileInput, ProfileView } from '../../../shared/ipc/contract';
import type { Database } from './db';
import { adoptUnnamedWallet } from './wallet-adopt';
import { checkpointTruncate } from './wipe';

const ACTIVE_PROFILE_KEY = 'activeProfileId';
const PASSWORD_STORAGES: readonly PasswordStorage[] = ['keychain', 'session', 'none'];

interface ProfileRow {
  id: string;
  name: string;
  node_url: string;
  auth: 'password' | 'cookie';
  rpc_user: string;
  cookie_path: string;
  wallet: string;
  index_url: string;
  password_storage: PasswordStorage;
  is_demo: number;
  created_at: string;
  updated_at: string;
  last_error: string | null;
}

function lastErrorOf(text: string | null): ProfileView['lastError'] {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as { code?: unknown; message?: unknown; at?: unknown };
    return typeof v.code === 'string' && typeof v.message === 'string' && typeof v.at === 'string' ? { code: v.code, message: v.message, at: v.at } : null;
  } catch {
    return null;
  }
}

function toView(r: ProfileRow): ProfileView {
  return {
    id: r.id,
    name: r.name,
    nodeUrl: r.node_url,
    auth: r.auth,
    rpcUser: r.rpc_user,
    cookiePath: r.cookie_path,
    wallet: r.wallet,
    indexUrl: r.index_url,
    passwordStorage: r.password_storage,
    isDemo: r.is_demo === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastError: lastErrorOf(r.last_error),
  };
}

/** 16 url-safe characters (96 random bits). */
export function newProfileId(): string {
  return randomBytes(12).toString('base64url');
}

/** The same check the IPC layer runs, so nothing unchecked reaches the table whoever calls. */
function parseInput(input: ProfileInput): ProfileInput {
  const parsed = ProfileInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  throw new AppError('input.invalid', issue?.message ?? 'The profile is not valid', field === '' ? undefined : { field });
}

function checkStorage(s: PasswordStorage): void {
  if (!PASSWORD_STORAGES.includes(s)) throw new AppError('input.invalid', `Unknown password storage "${String(s)}"`, { field: 'passwordStorage' });
}

/** Case-insensitive in the Unicode sense (SQLite's NOCASE, the index's backstop, folds ASCII only). */
function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

export class ProfileRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  list(): ProfileView[] {
    const rows = this.#db.prepare<[], ProfileRow>('SELECT * FROM profiles ORDER BY is_demo, name COLLATE NOCASE, created_at').all();
    return rows.map(toView);
  }

  get(id: string): ProfileView | null {
    const row = this.#db.prepare<[string], ProfileRow>('SELECT * FROM profiles WHERE id = ?').get(id);
    return row === undefined ? null : toView(row);
  }

  require(id: string): ProfileView {
    const p = this.get(id);
    if (p === null) throw new AppError('profile.not_found', 'This profile no longer exists. It may have been deleted in another window.', { id });
    return p;
  }

  create(input: ProfileInput, opts: { passwordStorage: PasswordStorage; isDemo?: boolean }): ProfileView {
    const p = parseInput(input);
    checkStorage(opts.passwordStorage);
    const isDemo = opts.isDemo === true;
    return this.#db.transaction(() => {
      this.#checkNameFree(p.name, null);
      if (isDemo && this.findDemo() !== null) throw new AppError('input.invalid', 'A demo profile already exists', { field: 'isDemo' });
      let id = newProfileId();
      while (this.get(id) !== null) id = newProfileId();
      const now = new Date().toISOString();
      this.#db
        .prepare(
          `INSERT INTO profiles (id, name, node_url, auth, rpc_user, cookie_path, wallet, index_url, password_storage, is_demo, created_at, updated_at)
           VALUES (@id, @name, @nodeUrl, @auth, @rpcUser, @cookiePath, @wallet, @indexUrl, @passwordStorage, @isDemo, @now, @now)`,
        )
        .run({ ...p, id, passwordStorage: opts.passwordStorage, isDemo: isDemo ? 1 : 0, now });
      return this.require(id);
    })();
  }

  /** Replaces the profile's fields; `passwordStorage` omitted = unchanged. */
  update(id: string, input: ProfileInput, passwordStorage?: PasswordStorage): ProfileView {
    const p = parseInput(input);
    if (passwordStorage !== undefined) checkStorage(passwordStorage);
    return this.#db.transaction(() => {
      const current = this.require(id);
      this.#checkNameFree(p.name, id);
      this.#db
        .prepare(
          `UPDATE profiles SET name = @name, node_url = @nodeUrl, auth = @auth, rpc_user = @rpcUser, cookie_path = @cookiePath,
             wallet = @wallet, index_url = @indexUrl, password_storage = @passwordStorage, updated_at = @now
           WHERE id = @id`,
        )
        .run({ ...p, id, passwordStorage: passwordStorage ?? current.passwordStorage, now: new Date().toISOString() });
      return this.require(id);
    })();
  }

  /**
   * Names the wallet a profile that named none was watching: the connection found the node's one
   * loaded wallet and it is safe to watch (#26). The rows kept under the empty name came from that
   * wallet, so they move to it — unless the wallet already has data of its own, and then they stay
   * where they are (never merged with another wallet's, never deleted).
   */
  nameWallet(id: string, wallet: string): ProfileView {
    const name = wallet.trim();
    return this.#db.transaction(() => {
      const current = this.require(id);
      if (current.wallet.trim() !== '' || name === '') return current;
      this.#db.prepare('UPDATE profiles SET wallet = ?, updated_at = ? WHERE id = ?').run(name, new Date().toISOString(), id);
      adoptUnnamedWallet(this.#db, id, name);
      return this.require(id);
    })();
  }

  setPasswordStorage(id: string, storage: PasswordStorage): ProfileView {
    checkStorage(storage);
    const info = this.#db
      .prepare('UPDATE profiles SET password_storage = ?, updated_at = ? WHERE id = ?')
      .run(storage, new Date().toISOString(), id);
    if (info.changes === 0) this.require(id); // throws profile.not_found
    return this.require(id);
  }

  /**
   * Records why connecting to the profile failed (null: it worked). Does not change `updated_at`. The
   * message was redacted where the node's text entered (rpc/client.ts); the generic rules run again
   * here, so nothing credential-shaped is ever written to the file (#27).
   */
  setLastError(id: string, error: { code: string; message: string } | null, at: Date = new Date()): void {
    const text = error === null ? null : JSON.stringify({ code: error.code, message: redactGeneric(error.message), at: at.toISOString() });
    this.#db.prepare('UPDATE profiles SET last_error = ? WHERE id = ?').run(text, id);
  }

  /**
   * Deletes the profile (and clears the active id if it was the active one). False if there was none.
   * The connection runs with secure_delete (db.ts), so the freed rows are zeroed in the pages written;
   * the WAL is then checkpointed and truncated, so no older copy of those pages stays behind in the
   * database file or the WAL either.
   */
  delete(id: string): boolean {
    const deleted = this.#db.transaction(() => {
      const info = this.#db.prepare('DELETE FROM profiles WHERE id = ?').run(id);
      if (info.changes === 0) return false;
      this.#db.prepare('DELETE FROM settings WHERE key = ? AND value = ?').run(ACTIVE_PROFILE_KEY, id);
      return true;
    })();
    if (deleted) checkpointTruncate(this.#db);
    return deleted;
  }

  getActiveId(): string | null {
    const row = this.#db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(ACTIVE_PROFILE_KEY);
    return row?.value ?? null;
  }

  /** Sets (or with null clears) the active profile; throws 'profile.not_found' for an unknown id. */
  setActiveId(id: string | null): void {
    this.#db.transaction(() => {
      if (id === null) {
        this.#db.prepare('DELETE FROM settings WHERE key = ?').run(ACTIVE_PROFILE_KEY);
        return;
      }
      this.require(id);
      this.#db
        .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(ACTIVE_PROFILE_KEY, id);
    })();
  }

  findDemo(): ProfileView | null {
    const row = this.#db.prepare<[], ProfileRow>('SELECT * FROM profiles WHERE is_demo = 1').get();
    return row === undefined ? null : toView(row);
  }

  #checkNameFree(name: string, exceptId: string | null): void {
    const key = nameKey(name);
    const taken = this.#db
      .prepare<[], { id: string; name: string }>('SELECT id, name FROM profiles')
      .all()
      .some((r) => r.id !== exceptId && nameKey(r.name) === key);
    if (taken) throw new AppError('input.invalid', `A profile named "${name}" already exists`, { field: 'name' });
  }
}
