// What keeps deleted or rewritten rows from leaving a copy in the data folder (#27). The connection
// runs with `PRAGMA secure_delete = ON` (db.ts): SQLite zeroes the bytes of every row it deletes or
// rewrites, and every page it frees. In WAL mode the zeroed pages go to the WAL, while the database
// file — and earlier frames of the WAL — still hold the old ones until a checkpoint copies the new
// pages back: `checkpointTruncate` does that and truncates the WAL to nothing. `vacuum` rebuilds the
// whole file from its live rows: free pages and free space written before secure_delete was on go too.
import type { Database } from './db';

/**
 * Copies every page of the WAL into the database file and truncates the WAL to zero bytes. Returns
 * false when a reader (the PSBT worker's connection) kept the checkpoint from finishing within the
 * busy timeout; the next checkpoint completes it.
 */
export function checkpointTruncate(db: Database): boolean {
  const rows = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  return rows[0]?.busy === 0;
}

/** Rebuilds the database file from its live rows (outside any transaction), then checkpoints and truncates the WAL. */
export function vacuum(db: Database): void {
  db.exec('VACUUM');
  checkpointTruncate(db);
}
