// The schema runner (after Signal-Desktop's ts/sql/migrations): one function per numbered file, listed
// here in order; the database's `PRAGMA user_version` says which have run. Every pending step and the
// user_version bump run in ONE transaction, so a failing step leaves the file exactly as it was.
// Versions are multiples of 10 (10, 20, …); the numbers in between are for hotfix migrations.
// Never edit a shipped step: add a new one. A step may also have work that cannot run inside a
// transaction (VACUUM): its `afterCommit` runs once the transaction has committed, in order.
import type { Database } from '../db';
import updateToSchemaVersion10 from './0010-profiles';
import updateToSchemaVersion20 from './0020-watch';
import updateToSchemaVersion30 from './0030-wallet-state';
import updateToSchemaVersion40 from './0040-profile-last-error';
import updateToSchemaVersion50 from './0050-send';
import updateToSchemaVersion60 from './0060-drafts';
import updateToSchemaVersion70 from './0070-wallets';
import updateToSchemaVersion80 from './0080-wallet-rescans';
import updateToSchemaVersion90 from './0090-wallet-scope';
import updateToSchemaVersion95 from './0095-wallet-history-cache';
import updateToSchemaVersion98 from './0098-pending-coins';
import updateToSchemaVersion100, { afterSchemaVersion100 } from './0100-redact-stored-errors';
import updateToSchemaVersion110 from './0110-snapshot-totals';

export interface SchemaVersion {
  readonly version: number;
  update(db: Database): void;
  /** Runs after the transaction that applied the step committed (e.g. VACUUM); an error here is thrown from runMigrations. */
  afterCommit?(db: Database): void;
}

export const SCHEMA_VERSIONS: readonly SchemaVersion[] = [
  { version: 10, update: updateToSchemaVersion10 },
  { version: 20, update: updateToSchemaVersion20 },
  { version: 30, update: updateToSchemaVersion30 },
  { version: 40, update: updateToSchemaVersion40 },
  { version: 50, update: updateToSchemaVersion50 },
  { version: 60, update: updateToSchemaVersion60 },
  { version: 70, update: updateToSchemaVersion70 },
  { version: 80, update: updateToSchemaVersion80 },
  { version: 90, update: updateToSchemaVersion90 },
  { version: 95, update: updateToSchemaVersion95 },
  { version: 98, update: updateToSchemaVersion98 },
  { version: 100, update: updateToSchemaVersion100, afterCommit: afterSchemaVersion100 },
  { version: 110, update: updateToSchemaVersion110 },
];

/** An older Spyglass opening a database written by a newer one: refuse rather than guess. */
export class DBVersionFromFutureError extends Error {
  readonly dbVersion: number;
  readonly knownVersion: number;

  constructor(dbVersion: number, knownVersion: number) {
    super(
      `This database was written by a newer Spyglass (schema ${dbVersion}, this version knows up to ${knownVersion}). ` +
        'Update Spyglass or choose another data folder.',
    );
    this.name = 'DBVersionFromFutureError';
    this.dbVersion = dbVersion;
    this.knownVersion = knownVersion;
  }
}

export interface MigrationResult {
  /** user_version before. */
  from: number;
  /** user_version after. */
  to: number;
  /** The versions applied, in order (empty when the database was current). */
  applied: number[];
}

/** Throws unless the versions are positive integers in strictly increasing order. */
export function checkSchemaVersions(versions: readonly SchemaVersion[]): void {
  let previous = 0;
  for (const { version } of versions) {
    if (!Number.isSafeInteger(version) || version <= 0) throw new Error(`Schema version ${version} is not a positive integer`);
    if (version <= previous) throw new Error(`Schema versions must strictly increase: ${version} comes after ${previous}`);
    previous = version;
  }
}

export function latestSchemaVersion(versions: readonly SchemaVersion[] = SCHEMA_VERSIONS): number {
  return versions.at(-1)?.version ?? 0;
}

export function getUserVersion(db: Database): number {
  const v = db.pragma('user_version', { simple: true });
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`Unexpected PRAGMA user_version: ${String(v)}`);
  return v;
}

/** Reads only: safe to call before anything has been written to the file. */
export function assertNotFromFuture(db: Database, versions: readonly SchemaVersion[] = SCHEMA_VERSIONS): void {
  const current = getUserVersion(db);
  const latest = latestSchemaVersion(versions);
  if (current > latest) throw new DBVersionFromFutureError(current, latest);
}

/**
 * Applies every step of `versions` newer than the database's user_version (up to `upTo` when given,
 * for migration tests), then sets user_version to the last step applied, all in one transaction;
 * then the applied steps' `afterCommit` work.
 */
export function runMigrations(db: Database, versions: readonly SchemaVersion[] = SCHEMA_VERSIONS, options: { upTo?: number } = {}): MigrationResult {
  checkSchemaVersions(versions);
  const from = getUserVersion(db);
  const latest = latestSchemaVersion(versions);
  if (from > latest) throw new DBVersionFromFutureError(from, latest);
  const target = options.upTo ?? latest;
  if (from > target) throw new Error(`The database is already at schema ${from}, past the requested ${target}`);

  const pending = versions.filter((v) => v.version > from && v.version <= target);
  const last = pending.at(-1);
  if (last === undefined) return { from, to: from, applied: [] };

  db.transaction(() => {
    for (const step of pending) step.update(db);
    // A pragma cannot take a bound parameter; the value is a checked safe integer.
    db.pragma(`user_version = ${last.version}`);
  })();
  for (const step of pending) step.afterCommit?.(db);
  return { from, to: last.version, applied: pending.map((v) => v.version) };
}
