// Schema 70: the watch-only wallets a profile imported or attached, by their name on the node: their
// public descriptors (the normalized WalletDescription as JSON), so that receive addresses and compose
// work offline, and the next receive index handed out here.
import type { Database } from '../db';

export default function updateToSchemaVersion70(db: Database): void {
  db.exec(`
    CREATE TABLE wallets (
      profile_id   TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet  TEXT    NOT NULL,
      description  TEXT    NOT NULL,
      receive_next INTEGER NOT NULL DEFAULT 0 CHECK (receive_next >= 0),
      created_at   TEXT    NOT NULL,
      PRIMARY KEY (profile_id, node_wallet)
    ) STRICT;
  `);
}
