// The write of an incremental refresh (electron/main/refresh/incremental.ts): the latest good snapshot
// is brought up to date IN PLACE, in ONE transaction, touching only what changed:
//   - the snapshot row: time, node and index tips, wallet state; its totals (and the Balances totals
//     of snapshot_totals) moved by what changed;
//   - the node's received entries: every confirmed one gets the new blocks' confirmations (one
//     UPDATE), then the entries of the affected addresses are replaced by the node's new answer;
//   - the UTXOs and fetch state of the addresses looked up again in the index.
// A process killed during the write leaves the snapshot as it was (WAL rollback).
import { AppError } from '../../../shared/errors';
import type { Database } from './db';
import { addressSums, minus, plus, storedSums, storeSums } from './overview-totals';
import { walletKey } from './watch-checks';
import { pendingJson } from './watch-rows';
import type { ReceivedRecord, Tip, UtxoRecord, WalletScope } from './watch-types';

export interface IncrementalWrite {
  snapshotId: number;
  takenAt: string;
  node: Tip;
  index: Tip;
  walletState: string | null;
  /** Blocks the wallet moved forward since the snapshot's recorded block (added to confirmed entries). */
  blocks: number;
  /** The node's new entries for the affected addresses (each already in the snapshot). */
  received: readonly ReceivedRecord[];
  /** Addresses looked up again in the index, with the UTXOs the index gave. */
  lookedUp: ReadonlyArray<{ address: string; utxos: readonly UtxoRecord[] }>;
}

export function applyIncrement(db: Database, scope: WalletScope, w: IncrementalWrite): void {
  if (!Number.isSafeInteger(w.blocks) || w.blocks < 0) throw new AppError('input.invalid', `${w.blocks} is not a number of blocks.`);
  db.transaction(() => {
    const k = walletKey(db, scope);
    const latest = db
      .prepare<[string, string], { id: number }>("SELECT id FROM snapshots WHERE profile_id = ? AND node_wallet = ? AND status IN ('ok', 'partial') ORDER BY id DESC LIMIT 1")
      .get(k.profileId, k.wallet);
    const last = db.prepare<[string, string], { id: number }>('SELECT id FROM snapshots WHERE profile_id = ? AND node_wallet = ? ORDER BY id DESC LIMIT 1').get(k.profileId, k.wallet);
    if (latest?.id !== w.snapshotId || last?.id !== w.snapshotId) {
      throw new AppError('input.invalid', `Snapshot ${w.snapshotId} is not the last refresh of this wallet; it cannot be brought up to date in place.`);
    }
    const id = w.snapshotId;
    db.prepare('UPDATE snapshots SET taken_at = ?, node_height = ?, node_hash = ?, index_height = ?, index_hash = ?, wallet_state = ? WHERE id = ?').run(
      w.takenAt,
      w.node.height,
      w.node.hash,
      w.index.height,
      w.index.hash,
      w.walletState,
      id,
    );
    // The Balances totals (snapshot_totals) move by what the touched rows sum to before and after.
    const stored = storedSums(db, id);
    const touched = [...w.received.map((r) => r.address), ...w.lookedUp.map((l) => l.address)];
    const before = stored === null ? null : addressSums(db, id, touched);
    if (w.blocks > 0) db.prepare('UPDATE snapshot_received SET confirmations = confirmations + ? WHERE snapshot_id = ? AND confirmations > 0').run(w.blocks, id);
    // Totals follow by difference (the rows of untouched addresses are not read).
    let receivedDelta = 0n;
    let balanceDelta = 0n;
    let countDelta = 0;
    const oldAmount = db.prepare<[number, string], { a: number | bigint }>('SELECT amount_sats AS a FROM snapshot_received WHERE snapshot_id = ? AND address = ?');
    const held = db.prepare<[number, string], { s: number | bigint | null; c: number }>('SELECT SUM(amount_sats) AS s, COUNT(*) AS c FROM snapshot_utxos WHERE snapshot_id = ? AND address = ?');
    const upd = db.prepare(
      `UPDATE snapshot_received SET amount_sats = @amount, confirmations = @conf, txids = @txids, node_label = @label,
              node_unspent_hash = @uh, node_unspent_sats = @us, node_unspent_count = @uc, node_pending = @up
        WHERE snapshot_id = @id AND address = @address`,
    );
    for (const r of w.received) {
      const was = oldAmount.get(id, r.address);
      if (was !== undefined) receivedDelta += r.amountSats - BigInt(was.a);
      const n = upd.run({
        id,
        address: r.address,
        amount: r.amountSats,
        conf: r.confirmations,
        txids: JSON.stringify(r.txids),
        label: r.nodeLabel,
        uh: r.nodeUnspent?.hash ?? null,
        us: r.nodeUnspent?.sats ?? null,
        uc: r.nodeUnspent?.count ?? null,
        up: pendingJson(r.nodeUnspent?.pending),
      }).changes;
      if (n === 0) throw new AppError('input.invalid', `${r.address} is not a node address of snapshot ${id}.`);
    }
    const del = db.prepare('DELETE FROM snapshot_utxos WHERE snapshot_id = ? AND address = ?');
    const ins = db.prepare('INSERT OR IGNORE INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, ?, ?, ?)');
    const fetched = db.prepare(
      `UPDATE snapshot_fetched SET state = 'fetched', fetched_at = ?, fetched_index_height = ?, error_code = NULL WHERE snapshot_id = ? AND address = ?`,
    );
    for (const l of w.lookedUp) {
      const h0 = held.get(id, l.address)!;
      del.run(id, l.address);
      for (const u of l.utxos) ins.run(id, l.address, u.txid, u.vout, u.amountSats, u.height);
      const h1 = held.get(id, l.address)!;
      balanceDelta += BigInt(h1.s ?? 0) - BigInt(h0.s ?? 0);
      countDelta += h1.c - h0.c;
      if (fetched.run(w.takenAt, w.index.height, id, l.address).changes === 0) throw new AppError('input.invalid', `${l.address} is not an address of snapshot ${id}.`);
    }
    db.prepare('UPDATE snapshots SET received_sats = received_sats + ?, balance_sats = balance_sats + ?, utxo_count = utxo_count + ? WHERE id = ?').run(
      receivedDelta,
      balanceDelta,
      countDelta,
      id,
    );
    if (stored !== null && before !== null) storeSums(db, id, plus(minus(stored, before), addressSums(db, id, touched)));
  })();
}

/** The addresses holding outpoints `keys` ("txid:vout") in snapshot `id` (missing ones are absent). */
export function outpointOwners(db: Database, id: number, keys: readonly string[]): Map<string, string> {
  const st = db.prepare<[number, string, number], { address: string }>('SELECT address FROM snapshot_utxos WHERE snapshot_id = ? AND txid = ? AND vout = ?');
  const out = new Map<string, string>();
  for (const k of keys) {
    const [txid, vout] = k.split(':');
    const r = st.get(id, txid!, Number(vout));
    if (r) out.set(k, r.address);
  }
  return out;
}

/**
 * The node addresses of snapshot `id` the index must be asked about again although the node shows
 * nothing new for them (the full refresh's rules, engine.ts #mustLookUp): the node's confirmed
 * unspent outputs (sum, count) differ from the UTXOs the snapshot holds, or the last lookup was made
 * at an index height below the block of the address's latest receive (`walletHeight` is the height
 * the snapshot's confirmations count from).
 */
export function needRecheck(db: Database, id: number, walletHeight: number): string[] {
  return db
    .prepare<{ id: number; h: number }, { address: string }>(
      // The UTXO totals by a correlated subquery on the covering index (snapshot_utxos_address), only
      // for rows the cheaper tests let through: a third of the time of one GROUP BY over all UTXOs.
      `SELECT r.address FROM snapshot_received r
         JOIN snapshot_fetched f ON f.snapshot_id = r.snapshot_id AND f.address = r.address
        WHERE r.snapshot_id = @id
          AND (f.state = 'failed' OR f.fetched_at IS NULL
               OR (r.confirmations > 0 AND f.fetched_index_height IS NOT NULL AND @h - r.confirmations + 1 > f.fetched_index_height)
               OR (r.node_unspent_sats IS NOT NULL AND (r.node_unspent_sats, r.node_unspent_count) IS NOT
                    (SELECT COALESCE(SUM(u.amount_sats), 0), COUNT(*) FROM snapshot_utxos u WHERE u.snapshot_id = @id AND u.address = r.address)))`,
    )
    .all({ id, h: walletHeight })
    .map((r) => r.address);
}

/** Whether the watched set of the wallet is exactly snapshot `id`'s (same addresses, same sources). */
export function sameWatchSet(db: Database, scope: WalletScope, id: number): boolean {
  const k = walletKey(db, scope);
  // Every user-added address is in the snapshot and every snapshot row has its address's source. A
  // node address missing from it is one the wallet no longer names: a change address whose coins
  // were spent (refresh/engine.ts changeRecords); the wallet's own changes come through listsinceblock.
  const r = db
    .prepare<{ p: string; w: string; id: number }, { bad: number; missing: number }>(
      `SELECT (SELECT COUNT(*) FROM snapshot_fetched f LEFT JOIN addresses a ON a.profile_id = @p AND a.node_wallet = @w AND a.address = f.address
                WHERE f.snapshot_id = @id AND (a.address IS NULL OR a.source <> f.source)) AS bad,
              (SELECT COUNT(*) FROM addresses a LEFT JOIN snapshot_fetched f ON f.snapshot_id = @id AND f.address = a.address
                WHERE a.profile_id = @p AND a.node_wallet = @w AND a.source = 'user' AND f.address IS NULL) AS missing`,
    )
    .get({ p: k.profileId, w: k.wallet, id })!;
  return r.bad === 0 && r.missing === 0;
}

/** The user-added addresses of snapshot `id`. */
export function userAddresses(db: Database, id: number): string[] {
  return db
    .prepare<[number], { address: string }>("SELECT address FROM snapshot_fetched WHERE snapshot_id = ? AND source = 'user'")
    .all(id)
    .map((r) => r.address);
}
