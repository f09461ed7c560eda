// The app's SQLite file (better-sqlite3, synchronous, main process). Opening it sets the connection
// pragmas and brings the schema up to date (migrations/index.ts). No Electron import here: the caller
// passes the path (e.g. join(app.getPath('userData'), 'spyglass.sqlite')), so tests use real temp files.
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { assertNotFromFuture, runMigrations, SCHEMA_VERSIONS } from './migrations/index';

export type Database = BetterSqlite3.Database;

/** How long a statement waits for another connection's lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the file with the connection pragmas but runs no migration. Refuses (and leaves the file
 * untouched) a database whose schema is newer than this build knows: that check only reads, and
 * runs before anything is written.
 */
function openConnection(file: string): Database {
  const inMemory = file === ':memory:';
  if (!inMemory) mkdirSync(dirname(file), { recursive: true });
  const isNew = !inMemory && !existsSync(file);
  const db = new BetterSqlite3(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    assertNotFromFuture(db, SCHEMA_VERSIONS);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // A deleted or rewritten row leaves no copy in the file: its bytes and every freed page are
    // zeroed (and wipe.ts checkpoints the WAL after a profile is deleted).
    db.pragma('secure_delete = ON');
    // Addresses and labels are private: the file (and the -wal/-shm files SQLite creates with the
    // same mode) is readable by this user only.
    if (isNew && process.platform !== 'win32') chmodSync(file, 0o600);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Opens (creating if needed) the database and migrates it to the newest schema. */
export function openDatabase(file: string): Database {
  const db = openConnection(file);
  try {
    runMigrations(db, SCHEMA_VERSIONS);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** For migration tests: opens the database and migrates it only up to `version` (0 = no step). */
export function openDatabaseAtVersion(file: string, version: number): Database {
  const db = openConnection(file);
  try {
    updateToVersion(db, version);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * A read-only connection to an existing database that another connection keeps migrated (the PSBT
 * worker's): it never writes, and with WAL it reads what the writer has committed.
 */
export function openReadOnlyDatabase(file: string): Database {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    assertNotFromFuture(db, SCHEMA_VERSIONS);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** For migration tests: applies the app's steps up to and including `version`. */
export function updateToVersion(db: Database, version: number): void {
  runMigrations(db, SCHEMA_VERSIONS, { upTo: version });
}

export function closeDatabase(db: Database): void {
  if (!db.open) return;
  try {
    db.pragma('optimize');
  } catch {
    // Only a hint to the query planner; closing matters more.
  }
  db.close();
}
