// Schema 50: what Send keeps besides the drafts (#15). Frozen coins per profile and node wallet (by
// outpoint; coin labels are BIP329 `output` labels in `labels`), the last facts the node gave for
// composing (its descriptors, unspent coins, fee estimates, mempool limits, tip) so a payment can be
// composed offline from them, the next change index handed out offline, and the previous
// transactions fetched for PSBTs — each checked against its txid before it was written.
import type { Database } from '../db';

export default function updateToSchemaVersion50(db: Database): void {
  db.exec(`
    CREATE TABLE coin_flags (
      profile_id  TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet TEXT    NOT NULL,
      outpoint    TEXT    NOT NULL,
      frozen      INTEGER NOT NULL DEFAULT 0 CHECK (frozen IN (0, 1)),
      updated_at  TEXT    NOT NULL,
      PRIMARY KEY (profile_id, node_wallet, outpoint)
    ) STRICT;

    CREATE TABLE send_cache (
      profile_id  TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet TEXT    NOT NULL,
      chain       TEXT    NOT NULL,
      facts       TEXT    NOT NULL,
      change_next INTEGER NOT NULL DEFAULT 0 CHECK (change_next >= 0),
      fetched_at  TEXT    NOT NULL,
      PRIMARY KEY (profile_id, node_wallet)
    ) STRICT;

    CREATE TABLE prev_txs (
      profile_id TEXT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      txid       TEXT NOT NULL CHECK (length(txid) = 64),
      hex        TEXT NOT NULL,
      source     TEXT NOT NULL CHECK (source IN ('node', 'index')),
      fetched_at TEXT NOT NULL,
      PRIMARY KEY (profile_id, txid)
    ) STRICT;
  `);
}
