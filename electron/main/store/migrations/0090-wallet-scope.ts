// Schema 90: the wallet is the unit of data (#26). A profile is a node connection; under it, each node
// wallet (by its name on the node) has its own watched set, address info, labels and snapshots — and
// with them its history, balances, UTXOs and notifications. Drafts, frozen coins, the send cache and
// rescans already carried `node_wallet` (0050, 0060, 0080).
//
// Today's rows move to the wallet they came from: the wallet the profile names (trimmed). A profile
// that named none watched whatever single wallet its node had loaded; its rows keep the empty name
// until the profile names its wallet, and then move to it (store/profiles.ts `update`). Nothing is
// dropped: labels, addresses and address info are copied into tables whose keys carry the wallet,
// snapshots gain the column in place (their rows hang off the snapshot id).
//
// SQLite cannot change a primary key in place, so `labels`, `addresses` and `address_info` are
// rebuilt. `address_info` references `addresses`: its rows wait in a temporary table while
// `addresses` is rebuilt (dropping a parent with foreign keys on would delete its children).
import type { Database } from '../db';

export default function updateToSchemaVersion90(db: Database): void {
  db.exec(`
    CREATE TEMP TABLE wallet_of_profile AS SELECT id AS profile_id, trim(wallet) AS node_wallet FROM profiles;

    -- Labels: one per BIP329 (type, ref) of each wallet.
    CREATE TABLE labels_90 (
      profile_id  TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet TEXT    NOT NULL,
      type        TEXT    NOT NULL CHECK (type IN ('addr', 'tx', 'output', 'input', 'pubkey', 'xpub')),
      ref         TEXT    NOT NULL,
      label       TEXT    NOT NULL,
      spendable   INTEGER NULL CHECK (spendable IN (0, 1)),
      origin      TEXT    NULL,
      updated_at  TEXT    NOT NULL,
      PRIMARY KEY (profile_id, node_wallet, type, ref)
    ) STRICT, WITHOUT ROWID;
    INSERT INTO labels_90 (profile_id, node_wallet, type, ref, label, spendable, origin, updated_at)
      SELECT l.profile_id, w.node_wallet, l.type, l.ref, l.label, l.spendable, l.origin, l.updated_at
        FROM labels l JOIN wallet_of_profile w ON w.profile_id = l.profile_id;
    DROP TABLE labels;
    ALTER TABLE labels_90 RENAME TO labels;

    -- The watched set and the stored getaddressinfo replies, per wallet.
    CREATE TEMP TABLE address_info_90 AS
      SELECT i.profile_id, w.node_wallet, i.address, i.info_json, i.fetched_at
        FROM address_info i JOIN wallet_of_profile w ON w.profile_id = i.profile_id;
    DROP TABLE address_info;

    CREATE TABLE addresses_90 (
      profile_id  TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet TEXT    NOT NULL,
      address     TEXT    NOT NULL,
      source      TEXT    NOT NULL CHECK (source IN ('node', 'user')),
      hidden      INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
      added_at    TEXT    NOT NULL,
      PRIMARY KEY (profile_id, node_wallet, address)
    ) STRICT, WITHOUT ROWID;
    INSERT INTO addresses_90 (profile_id, node_wallet, address, source, hidden, added_at)
      SELECT a.profile_id, w.node_wallet, a.address, a.source, a.hidden, a.added_at
        FROM addresses a JOIN wallet_of_profile w ON w.profile_id = a.profile_id;
    DROP TABLE addresses;
    ALTER TABLE addresses_90 RENAME TO addresses;

    -- ON UPDATE CASCADE: a profile's unnamed wallet getting its name moves the info with its address.
    CREATE TABLE address_info (
      profile_id  TEXT NOT NULL,
      node_wallet TEXT NOT NULL,
      address     TEXT NOT NULL,
      info_json   TEXT NOT NULL,
      fetched_at  TEXT NOT NULL,
      PRIMARY KEY (profile_id, node_wallet, address),
      FOREIGN KEY (profile_id, node_wallet, address) REFERENCES addresses (profile_id, node_wallet, address) ON DELETE CASCADE ON UPDATE CASCADE
    ) STRICT, WITHOUT ROWID;
    INSERT INTO address_info (profile_id, node_wallet, address, info_json, fetched_at)
      SELECT profile_id, node_wallet, address, info_json, fetched_at FROM address_info_90;
    DROP TABLE address_info_90;

    -- Snapshots: the wallet they were taken of.
    ALTER TABLE snapshots ADD COLUMN node_wallet TEXT NOT NULL DEFAULT '';
    UPDATE snapshots SET node_wallet = (SELECT w.node_wallet FROM wallet_of_profile w WHERE w.profile_id = snapshots.profile_id);
    DROP INDEX snapshots_profile_status;
    DROP INDEX snapshots_profile;
    CREATE INDEX snapshots_wallet_status ON snapshots (profile_id, node_wallet, status, id);
    CREATE INDEX snapshots_wallet ON snapshots (profile_id, node_wallet, id);

    -- Drafts are listed per wallet.
    CREATE INDEX drafts_by_wallet ON drafts (profile_id, node_wallet, updated_at);

    DROP TABLE wallet_of_profile;
  `);
}
