// Schema 20: watch-only tracking (issue 5). The watched set, the node's getaddressinfo replies, local
// labels (BIP329 records), refresh snapshots with their per-address received totals and UTXOs, and a
// cache of the index's transaction records.
//
// Amounts are INTEGER satoshis (STRICT refuses a REAL); a snapshot and all its rows are written in one
// transaction (electron/main/store/watch.ts), and deleting a snapshot deletes its rows (ON DELETE
// CASCADE), as deleting a profile deletes everything it owns.
import type { Database } from '../db';

export default function updateToSchemaVersion20(db: Database): void {
  db.exec(`
    -- The watched set: the node wallet's receive addresses ('node', synced on each refresh) and the
    -- addresses the user added ('user', looked up in the index only).
    CREATE TABLE addresses (
      profile_id TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      address    TEXT    NOT NULL,
      source     TEXT    NOT NULL CHECK (source IN ('node', 'user')),
      hidden     INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
      added_at   TEXT    NOT NULL,
      PRIMARY KEY (profile_id, address)
    ) STRICT, WITHOUT ROWID;

    -- The latest getaddressinfo reply per address, exactly as the node sent it (JSON text).
    CREATE TABLE address_info (
      profile_id TEXT NOT NULL,
      address    TEXT NOT NULL,
      info_json  TEXT NOT NULL,
      fetched_at TEXT NOT NULL,
      PRIMARY KEY (profile_id, address),
      FOREIGN KEY (profile_id, address) REFERENCES addresses (profile_id, address) ON DELETE CASCADE
    ) STRICT, WITHOUT ROWID;

    -- Local labels, one per BIP329 (type, ref). The node's own label is kept in snapshot_received.
    CREATE TABLE labels (
      profile_id TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      type       TEXT    NOT NULL CHECK (type IN ('addr', 'tx', 'output', 'input', 'pubkey', 'xpub')),
      ref        TEXT    NOT NULL,
      label      TEXT    NOT NULL,
      spendable  INTEGER NULL CHECK (spendable IN (0, 1)),
      origin     TEXT    NULL,
      updated_at TEXT    NOT NULL,
      PRIMARY KEY (profile_id, type, ref)
    ) STRICT, WITHOUT ROWID;

    -- One row per refresh. 'ok' and 'partial' rows carry data; a 'failed' row only records which step
    -- failed and why (the previous good snapshot stays the latest one). The totals are filled in by the
    -- same transaction that writes the rows, for the history chart.
    CREATE TABLE snapshots (
      id            INTEGER PRIMARY KEY,
      profile_id    TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      taken_at      TEXT    NOT NULL,
      node_height   INTEGER NULL,
      node_hash     TEXT    NULL,
      index_height  INTEGER NULL,
      index_hash    TEXT    NULL,
      status        TEXT    NOT NULL CHECK (status IN ('ok', 'partial', 'failed')),
      failed_step   TEXT    NULL CHECK (failed_step IN ('received', 'addressinfo', 'tips', 'utxos', 'write')),
      error_code    TEXT    NULL,
      error_message TEXT    NULL,
      address_count INTEGER NULL,
      received_sats INTEGER NULL,
      balance_sats  INTEGER NULL,
      utxo_count    INTEGER NULL,
      CHECK ((status = 'failed') = (failed_step IS NOT NULL))
    ) STRICT;
    -- Latest (good) snapshot of a profile; history in order.
    CREATE INDEX snapshots_profile_status ON snapshots (profile_id, status, id);
    CREATE INDEX snapshots_profile ON snapshots (profile_id, id);

    -- listreceivedbyaddress per address (node addresses only). node_unspent_*: the node's confirmed
    -- unspent outputs of the address (listunspent), a digest of their outpoints, their sum and count;
    -- NULL when the refresh did not ask the node.
    CREATE TABLE snapshot_received (
      snapshot_id        INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
      address            TEXT    NOT NULL,
      amount_sats        INTEGER NOT NULL,
      confirmations      INTEGER NOT NULL,
      txids              TEXT    NOT NULL, -- JSON array, as the node listed them
      node_label         TEXT    NOT NULL,
      node_unspent_hash  TEXT    NULL,
      node_unspent_sats  INTEGER NULL,
      node_unspent_count INTEGER NULL,
      PRIMARY KEY (snapshot_id, address)
    ) STRICT, WITHOUT ROWID;

    -- The index's unspent outputs per address at the snapshot (fetched, or carried forward unchanged).
    CREATE TABLE snapshot_utxos (
      snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
      address     TEXT    NOT NULL,
      txid        TEXT    NOT NULL,
      vout        INTEGER NOT NULL,
      amount_sats INTEGER NOT NULL,
      height      INTEGER NULL,
      PRIMARY KEY (snapshot_id, txid, vout)
    ) STRICT, WITHOUT ROWID;
    -- UTXOs of one address, and per-address sums for the balances table: covering (the primary key's
    -- txid and vout are in every index of a WITHOUT ROWID table).
    CREATE INDEX snapshot_utxos_address ON snapshot_utxos (snapshot_id, address, amount_sats, height);

    -- Every watched address of a snapshot and where its UTXOs come from: 'fetched' in this refresh,
    -- 'carried' forward unchanged from the previous snapshot, or 'failed' (the lookup failed; the
    -- previous UTXOs are carried and the next refresh asks again). fetched_at / fetched_index_height:
    -- when the UTXOs were last actually fetched (NULL: never).
    CREATE TABLE snapshot_fetched (
      snapshot_id          INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
      address              TEXT    NOT NULL,
      source               TEXT    NOT NULL CHECK (source IN ('node', 'user')),
      state                TEXT    NOT NULL CHECK (state IN ('fetched', 'carried', 'failed')),
      fetched_at           TEXT    NULL,
      fetched_index_height INTEGER NULL,
      error_code           TEXT    NULL,
      PRIMARY KEY (snapshot_id, address)
    ) STRICT, WITHOUT ROWID;

    -- Cache of the index's transaction records, per chain (genesis hash). JSON of the validated record,
    -- amounts as {"$sats": "<integer>"}.
    CREATE TABLE index_txs (
      genesis_hash TEXT NOT NULL,
      txid         TEXT NOT NULL,
      json         TEXT NOT NULL,
      fetched_at   TEXT NOT NULL,
      PRIMARY KEY (genesis_hash, txid)
    ) STRICT, WITHOUT ROWID;
  `);
}
