// Snapshot writes of the watch-only repository, each in ONE transaction: a new good snapshot
// (writeSnapshot), an unchanged refresh recorded in place (touchSnapshot), a failed refresh
// (recordFailure), and pruning old snapshots. Functions taking the db (store/watch.ts delegates).
//
// writeSnapshot writes the snapshot row, the node's received totals, the UTXOs fetched in this
// refresh, the UTXOs of unchanged addresses copied from the previous snapshot (INSERT … SELECT),
// the watched-set and address-info updates of the refresh, and the totals (the history's, and the
// Balances totals of snapshot_totals). A process killed during
// the write leaves the previous snapshot as the latest one and no row of the new one (WAL: an
// uncommitted transaction is rolled back when the file is next opened).
import { redactGeneric } from '../../../shared/redact';
import type { Database } from './db';
import { getSnapshot, lastAttempt, latestSnapshot } from './snapshot-read';
import { checkNewSnapshot, checkWalletState, HEX64, invalid, requireProfile, walletKey } from './watch-checks';
import { rangeSums, storeSums } from './overview-totals';
import { upsertInfos } from './watched-set';
import { pendingJson } from './watch-rows';
import { REFRESH_STEPS, type AddressSource, type FailureRecord, type FetchState, type NewSnapshot, type ReceivedRecord, type Tip, type WalletScope } from './watch-types';

/**
 * Writes a good snapshot ('ok', or 'partial' when some lookup failed) in ONE transaction and returns
 * its id. 'carried' and 'failed' addresses keep their UTXOs of `previousId`, copied with one
 * INSERT … SELECT. Node addresses of `received` join the watched set; `infos` are stored.
 */
export function writeSnapshot(db: Database, scope: WalletScope, s: NewSnapshot): number {
  checkNewSnapshot(s);
  return db.transaction(() => {
    const k = walletKey(db, scope);
    requireProfile(db, k.profileId);
    if (s.previousId !== null) {
      const prev = getSnapshot(db, s.previousId);
      if (prev === null || prev.profileId !== k.profileId || prev.wallet !== k.wallet || prev.status === 'failed') {
        throw invalid(`Snapshot ${s.previousId} is not a good snapshot of this wallet; nothing can be carried forward from it.`);
      }
    }
    // The watched set: node addresses join (or are upgraded from 'user').
    const addAddress = db.prepare(
      `INSERT INTO addresses (profile_id, node_wallet, address, source, hidden, added_at) VALUES (?, ?, ?, ?, 0, ?)
       ON CONFLICT (profile_id, node_wallet, address) DO UPDATE SET source = 'node' WHERE excluded.source = 'node' AND source <> 'node'`,
    );
    const known = new Map(
      db
        .prepare<[string, string], { address: string; source: AddressSource }>('SELECT address, source FROM addresses WHERE profile_id = ? AND node_wallet = ?')
        .all(k.profileId, k.wallet)
        .map((r) => [r.address, r.source]),
    );
    for (const a of s.addresses) {
      const was = known.get(a.address);
      if (was === undefined || (a.source === 'node' && was !== 'node')) addAddress.run(k.profileId, k.wallet, a.address, a.source, s.takenAt);
    }
    if (s.infos !== undefined && s.infos.length > 0) upsertInfos(db, k, s.infos, s.takenAt);

    const partial = s.addresses.some((a) => a.state === 'failed');
    const id = Number(
      db
        .prepare(
          `INSERT INTO snapshots (profile_id, node_wallet, taken_at, node_height, node_hash, index_height, index_hash, status, wallet_state)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(k.profileId, k.wallet, s.takenAt, s.node.height, s.node.hash, s.index.height, s.index.hash, partial ? 'partial' : 'ok', s.walletState ?? null).lastInsertRowid,
    );

    const insReceived = db.prepare(
      `INSERT INTO snapshot_received (snapshot_id, address, amount_sats, confirmations, txids, node_label, node_unspent_hash, node_unspent_sats, node_unspent_count, node_pending)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const r of s.received) {
      insReceived.run(id, r.address, r.amountSats, r.confirmations, JSON.stringify(r.txids), r.nodeLabel, r.nodeUnspent?.hash ?? null, r.nodeUnspent?.sats ?? null, r.nodeUnspent?.count ?? null, pendingJson(r.nodeUnspent?.pending));
    }

    const insFetched = db.prepare(
      `INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at, fetched_index_height, error_code) VALUES (?, ?, ?, 'fetched', ?, ?, NULL)`,
    );
    // An outpoint belongs to one script; should an index list it under two addresses, the first keeps it.
    const insUtxo = db.prepare('INSERT OR IGNORE INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, ?, ?, ?)');
    const kept: Array<[string, AddressSource, FetchState, string | null]> = [];
    for (const a of s.addresses) {
      if (a.state === 'fetched') {
        insFetched.run(id, a.address, a.source, s.takenAt, s.index.height);
        for (const u of a.utxos) insUtxo.run(id, a.address, u.txid, u.vout, u.amountSats, u.height);
      } else {
        kept.push([a.address, a.source, a.state, a.state === 'failed' ? a.errorCode : null]);
      }
    }
    // Carried and failed addresses keep the fetch time of the previous snapshot (one statement for all).
    if (kept.length > 0) {
      db.prepare(
        `INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at, fetched_index_height, error_code)
         SELECT @id, k.value ->> 0, k.value ->> 1, k.value ->> 2, p.fetched_at, p.fetched_index_height, k.value ->> 3
           FROM json_each(@kept) k
           LEFT JOIN snapshot_fetched p ON p.snapshot_id = @prev AND p.address = k.value ->> 0`,
      ).run({ id, prev: s.previousId, kept: JSON.stringify(kept) });
    }
    if (s.previousId !== null) {
      db.prepare(
        `INSERT OR IGNORE INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height)
         SELECT @id, u.address, u.txid, u.vout, u.amount_sats, u.height
           FROM snapshot_fetched f
           JOIN snapshot_utxos u ON u.snapshot_id = @prev AND u.address = f.address
          WHERE f.snapshot_id = @id AND f.state IN ('carried', 'failed')`,
      ).run({ id, prev: s.previousId });
    }

    db.prepare(
      `UPDATE snapshots SET
         address_count = (SELECT COUNT(*) FROM snapshot_fetched WHERE snapshot_id = @id),
         received_sats = (SELECT COALESCE(SUM(amount_sats), 0) FROM snapshot_received WHERE snapshot_id = @id),
         balance_sats  = (SELECT COALESCE(SUM(amount_sats), 0) FROM snapshot_utxos WHERE snapshot_id = @id),
         utxo_count    = (SELECT COUNT(*) FROM snapshot_utxos WHERE snapshot_id = @id)
       WHERE id = @id`,
    ).run({ id });
    // The Balances totals of its rows, for the first overview (store/overview-totals.ts).
    storeSums(db, id, rangeSums(db, id));
    return id;
  })();
}

/**
 * Records a refresh that found nothing changed, without a new snapshot (ONE transaction): the latest
 * good snapshot `id` — which must also be the wallet's last attempt, so that no failure recorded
 * after it would be hidden — takes the check's time, tips and wallet state, and the node's entries whose
 * confirmations, label or txid order moved are updated in place. Its UTXO rows are not touched.
 * So the history gets no identical snapshot, the latest one's `takenAt` is the last successful
 * check, and the diff of the latest snapshot stays what changed when it was first written.
 * The caller guarantees that the UTXO set, fetch states, received amounts, txid sets and
 * node-unspent digests are those of `id`; a received address the snapshot lacks is refused.
 * `refetched`: addresses looked up again by this check that got exactly the UTXOs `id` holds for
 * them: their fetch time and index height become the check's (state 'fetched').
 */
export function touchSnapshot(
  db: Database,
  scope: WalletScope,
  id: number,
  c: { takenAt: string; node: Tip; index: Tip; received: readonly ReceivedRecord[]; walletState?: string | null; refetched?: readonly string[] },
): void {
  checkWalletState(c.walletState);
  for (const t of [c.node, c.index]) {
    if (!Number.isSafeInteger(t.height) || t.height < 0 || !HEX64.test(t.hash)) throw invalid(`${JSON.stringify(t)} is not a block tip.`);
  }
  if (Number.isNaN(Date.parse(c.takenAt))) throw invalid(`"${c.takenAt}" is not a time.`);
  db.transaction(() => {
    const k = walletKey(db, scope);
    const latest = latestSnapshot(db, k);
    const last = lastAttempt(db, k);
    if (latest === null || latest.id !== id || last?.id !== id) throw invalid(`Snapshot ${id} is not the last refresh of this wallet; it cannot be updated in place.`);
    db.prepare('UPDATE snapshots SET taken_at = ?, node_height = ?, node_hash = ?, index_height = ?, index_hash = ?, wallet_state = ? WHERE id = ?').run(
      c.takenAt,
      c.node.height,
      c.node.hash,
      c.index.height,
      c.index.hash,
      c.walletState ?? null,
      id,
    );
    const upd = db.prepare(
      `UPDATE snapshot_received SET confirmations = @confirmations, txids = @txids, node_label = @label
        WHERE snapshot_id = @id AND address = @address AND (confirmations <> @confirmations OR txids <> @txids OR node_label <> @label)`,
    );
    const exists = db.prepare<[number, string], { x: number }>('SELECT 1 AS x FROM snapshot_received WHERE snapshot_id = ? AND address = ?');
    for (const r of c.received) {
      if (!Number.isSafeInteger(r.confirmations) || r.confirmations < 0) throw invalid(`${r.address}: ${r.confirmations} is not a number of confirmations.`);
      const txids = JSON.stringify(r.txids);
      if (upd.run({ id, address: r.address, confirmations: r.confirmations, txids, label: r.nodeLabel }).changes === 0 && exists.get(id, r.address) === undefined) {
        throw invalid(`${r.address} is not a node address of snapshot ${id}.`);
      }
    }
    // Looked up again with the same UTXOs as the snapshot holds: they are now that fresh.
    const fetched = db.prepare(
      `UPDATE snapshot_fetched SET state = 'fetched', fetched_at = @at, fetched_index_height = @height, error_code = NULL WHERE snapshot_id = @id AND address = @address`,
    );
    for (const address of c.refetched ?? []) {
      if (fetched.run({ id, address, at: c.takenAt, height: c.index.height }).changes === 0) throw invalid(`${address} is not an address of snapshot ${id}.`);
    }
  })();
}

/**
 * Records a refresh that failed at `step` (the latest good snapshot stays as it is). Returns the row id.
 * The message is redacted (the generic rules of shared/redact.ts) before it is cut to 1,000 characters.
 */
export function recordFailure(db: Database, scope: WalletScope, f: FailureRecord): number {
  if (!(REFRESH_STEPS as readonly string[]).includes(f.step)) throw invalid(`Unknown refresh step "${String(f.step)}".`);
  return db.transaction(() => {
    const k = walletKey(db, scope);
    requireProfile(db, k.profileId);
    return Number(
      db
        .prepare(
          `INSERT INTO snapshots (profile_id, node_wallet, taken_at, node_height, node_hash, index_height, index_hash, status, failed_step, error_code, error_message)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'failed', ?, ?, ?)`,
        )
        .run(k.profileId, k.wallet, f.takenAt, f.node?.height ?? null, f.node?.hash ?? null, f.index?.height ?? null, f.index?.hash ?? null, f.step, f.code, redactGeneric(f.message).slice(0, 1000))
        .lastInsertRowid,
    );
  })();
}

/**
 * Deletes old snapshots: keeps the `keep` newest good ones and the failures after the oldest kept
 * one. Returns the number of snapshot rows deleted (their rows go with them).
 */
export function prune(db: Database, scope: WalletScope, keep: number): number {
  if (!Number.isSafeInteger(keep) || keep < 1) throw invalid('keep must be a whole number ≥ 1.');
  return db.transaction(() => {
    const k = walletKey(db, scope);
    const oldestKept = db
      .prepare<[string, string, number], { id: number }>(
        "SELECT id FROM snapshots WHERE profile_id = ? AND node_wallet = ? AND status IN ('ok', 'partial') ORDER BY id DESC LIMIT 1 OFFSET ?",
      )
      .get(k.profileId, k.wallet, keep - 1);
    if (oldestKept === undefined) return 0;
    return db.prepare('DELETE FROM snapshots WHERE profile_id = ? AND node_wallet = ? AND id < ?').run(k.profileId, k.wallet, oldestKept.id).changes;
  })();
}
