// A data folder as Spyglass wrote it before the wallet scope (schema 80, #26): a profile's watched
// address, its getaddressinfo reply, its label, one snapshot holding one UTXO, and a draft — written
// with the SQL of that schema, for the migration tests (unit, and through the built `npm run web`).
import type { Database } from '../../electron/main/store/db';

export const H = (c: string): string => c.repeat(64);

export function writeV80Rows(db: Database, profileId: string, address: string, sats: number, txc: string, label = 'rent'): void {
  db.prepare("INSERT INTO addresses (profile_id, address, source, hidden, added_at) VALUES (?, ?, 'node', 0, '2026-11-01T00:00:00Z')").run(profileId, address);
  db.prepare("INSERT INTO address_info (profile_id, address, info_json, fetched_at) VALUES (?, ?, '{\"ismine\":true}', '2026-11-01T00:00:00Z')").run(profileId, address);
  db.prepare("INSERT INTO labels (profile_id, type, ref, label, updated_at) VALUES (?, 'addr', ?, ?, '2026-11-01T00:00:00Z')").run(profileId, address, label);
  const id = Number(
    db
      .prepare(
        "INSERT INTO snapshots (profile_id, taken_at, node_height, node_hash, index_height, index_hash, status, address_count, received_sats, balance_sats, utxo_count) VALUES (?, '2026-11-01T00:00:00Z', 101, ?, 101, ?, 'ok', 1, ?, ?, 1)",
      )
      .run(profileId, H('1'), H('1'), sats, sats).lastInsertRowid,
  );
  db.prepare("INSERT INTO snapshot_received (snapshot_id, address, amount_sats, confirmations, txids, node_label) VALUES (?, ?, ?, 1, ?, '')").run(id, address, sats, JSON.stringify([H(txc)]));
  db.prepare("INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at, fetched_index_height) VALUES (?, ?, 'node', 'fetched', '2026-11-01T00:00:00Z', 101)").run(id, address);
  db.prepare('INSERT INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, 0, ?, 101)').run(id, address, H(txc), sats);
}

/** A draft of `wallet` paying `to` 0.1 BTC (as the drafts table held it at schema 60–80). */
export function writeV80Draft(db: Database, profileId: string, wallet: string, id: string, to: string, unsignedTxid = H('d')): void {
  const summary = { sentSats: '10000000', feeSats: '1410', outputs: [{ index: 0, role: 'recipient', address: to, amountSats: '10000000', label: '', dataHex: null }] };
  db.prepare(
    "INSERT INTO drafts (id, profile_id, node_wallet, name, status, unsigned_txid, psbt, form, summary, created_at, updated_at) VALUES (?, ?, ?, 'Rent', 'unsigned', ?, 'cHNidP8=', '{}', ?, '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z')",
  ).run(id, profileId, wallet, unsignedTxid, JSON.stringify(summary));
}
