// Schema 110 (#27, the paged Balances overview): each good snapshot keeps the totals of its rows, so
// that the first Balances page of a large wallet shows its totals without reading every row. One
// row per snapshot, of EVERY row of it (hidden ones included: hiding an address writes no snapshot
// row; the rows not hidden are every row less the hidden ones, read through `addresses_hidden`).
// The columns are the table's footer as store/overview-totals.ts sums it: INTEGER satoshis (STRICT),
// `pending_unknown` the rows whose pending coins are not known (in no pending sum).
//
// Written by the transaction that writes the snapshot (store/snapshot-write.ts) and moved by an
// incremental refresh (store/incremental.ts). A snapshot written before this schema has no row: its
// totals are summed on its first overview (store/overview.ts, in slices) and stored then — this step
// only makes the table, so that opening an old file stays instant whatever its size.
import type { Database } from '../db';

export default function updateToSchemaVersion110(db: Database): void {
  db.exec(`
    CREATE TABLE snapshot_totals (
      snapshot_id            INTEGER PRIMARY KEY REFERENCES snapshots (id) ON DELETE CASCADE,
      addresses              INTEGER NOT NULL CHECK (addresses >= 0),
      received_sats          INTEGER NOT NULL CHECK (received_sats >= 0),
      balance_sats           INTEGER NOT NULL CHECK (balance_sats >= 0),
      pending_trusted_sats   INTEGER NOT NULL CHECK (pending_trusted_sats >= 0),
      pending_untrusted_sats INTEGER NOT NULL CHECK (pending_untrusted_sats >= 0),
      pending_unknown        INTEGER NOT NULL CHECK (pending_unknown >= 0),
      utxo_count             INTEGER NOT NULL CHECK (utxo_count >= 0)
    ) STRICT;
    -- The hidden addresses of a wallet, without a pass over all of them.
    CREATE INDEX addresses_hidden ON addresses (profile_id, node_wallet, address) WHERE hidden = 1;
  `);
}
