// Schema 80: a wallet rescan that was started and has not returned yet (importdescriptors, or a
// rescanblockchain run again). The row is written before the call and removed when the node answers;
// a row left behind means the node stopped (or the connection dropped) during the rescan, so the
// wallet's history before `from_time` may be missing until the rescan is run again from `start_height`.
import type { Database } from '../db';

export default function updateToSchemaVersion80(db: Database): void {
  db.exec(`
    CREATE TABLE wallet_rescans (
      profile_id   TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet  TEXT    NOT NULL,
      start_height INTEGER NOT NULL CHECK (start_height >= 0),
      from_time    INTEGER NOT NULL CHECK (from_time >= 0),
      kind         TEXT    NOT NULL CHECK (kind IN ('import', 'rescan')),
      started_at   TEXT    NOT NULL,
      PRIMARY KEY (profile_id, node_wallet)
    ) STRICT;
  `);
}
