// Snapshot reads of the watch-only repository: the snapshot rows (latest, previous, last attempt,
// all), the node's received entries and fetch states of a snapshot, the balances table, UTXOs, the
// diff between two snapshots and the balance history. Functions taking the db (store/watch.ts
// delegates to them).
import type { Database } from './db';
import { invalid, walletKey } from './watch-checks';
import { BALANCE_ROWS_FROM, confirmationsAt, PENDING_COLUMNS_SQL, RECEIVED_COLUMNS, sats, satsOrNull, toReceived, toSnapshot, toUtxoRow, type ReceivedRowDb, type SnapshotRowDb, type UtxoRowDb } from './watch-rows';
import type { AddressFetch, AddressSource, BalanceRow, DiffSummary, FetchState, HistoryPoint, ReceivedRecord, Snapshot, SnapshotDiff, UtxoRow, WalletScope } from './watch-types';

/** The node's received entries of snapshot `id` for `addresses` only (absent: not a node address of it). */
export function receivedOf(db: Database, id: number, addresses: Iterable<string>): Map<string, ReceivedRecord> {
  const out = new Map<string, ReceivedRecord>();
  const st = db.prepare<[number, string], ReceivedRowDb>(
    `SELECT ${RECEIVED_COLUMNS} FROM snapshot_received WHERE snapshot_id = ? AND address = ?`,
  );
  for (const address of addresses) {
    if (out.has(address)) continue;
    const r = st.get(id, address);
    if (r === undefined) continue;
    out.set(address, toReceived(address, r));
  }
  return out;
}

export function getSnapshot(db: Database, id: number): Snapshot | null {
  const r = db.prepare<[number], SnapshotRowDb>('SELECT * FROM snapshots WHERE id = ?').get(id);
  return r === undefined ? null : toSnapshot(r);
}

/** The latest good ('ok' or 'partial') snapshot of the wallet: what the screens show. */
export function latestSnapshot(db: Database, scope: WalletScope): Snapshot | null {
  const k = walletKey(db, scope);
  const r = db
    .prepare<[string, string], SnapshotRowDb>("SELECT * FROM snapshots WHERE profile_id = ? AND node_wallet = ? AND status IN ('ok', 'partial') ORDER BY id DESC LIMIT 1")
    .get(k.profileId, k.wallet);
  return r === undefined ? null : toSnapshot(r);
}

/** The good snapshot before `id` (or before the latest one when `id` is omitted). */
export function previousSnapshot(db: Database, scope: WalletScope, id?: number): Snapshot | null {
  const k = walletKey(db, scope);
  const before = id ?? latestSnapshot(db, k)?.id;
  if (before === undefined) return null;
  const r = db
    .prepare<[string, string, number], SnapshotRowDb>("SELECT * FROM snapshots WHERE profile_id = ? AND node_wallet = ? AND status IN ('ok', 'partial') AND id < ? ORDER BY id DESC LIMIT 1")
    .get(k.profileId, k.wallet, before);
  return r === undefined ? null : toSnapshot(r);
}

/** The most recent refresh of any outcome (a failure after the latest good snapshot shows here). */
export function lastAttempt(db: Database, scope: WalletScope): Snapshot | null {
  const k = walletKey(db, scope);
  const r = db.prepare<[string, string], SnapshotRowDb>('SELECT * FROM snapshots WHERE profile_id = ? AND node_wallet = ? ORDER BY id DESC LIMIT 1').get(k.profileId, k.wallet);
  return r === undefined ? null : toSnapshot(r);
}

/** Every snapshot row of the wallet, newest first (failed ones included). */
export function listSnapshots(db: Database, scope: WalletScope): Snapshot[] {
  const k = walletKey(db, scope);
  return db.prepare<[string, string], SnapshotRowDb>('SELECT * FROM snapshots WHERE profile_id = ? AND node_wallet = ? ORDER BY id DESC').all(k.profileId, k.wallet).map(toSnapshot);
}

/** The node's listreceivedbyaddress entries of a snapshot, by address. */
export function received(db: Database, snapshotId: number): Map<string, ReceivedRecord> {
  const rows = db
    .prepare<[number], ReceivedRowDb & { address: string }>(
      `SELECT address, ${RECEIVED_COLUMNS} FROM snapshot_received WHERE snapshot_id = ?`,
    )
    .all(snapshotId);
  const out = new Map<string, ReceivedRecord>();
  for (const r of rows) out.set(r.address, toReceived(r.address, r));
  return out;
}

/**
 * A slice of received(): at most `limit` entries, in address order, after address `after` (null: from
 * the first). Read slice by slice, 10,000 entries never hold the thread in one step (the refresh's
 * warm read of the previous snapshot, refresh/received-step.ts).
 */
export function receivedSlice(db: Database, snapshotId: number, after: string | null, limit: number): ReceivedRecord[] {
  return db
    .prepare<[number, string, number], ReceivedRowDb & { address: string }>(
      `SELECT address, ${RECEIVED_COLUMNS} FROM snapshot_received WHERE snapshot_id = ? AND address > ? ORDER BY address LIMIT ?`,
    )
    .all(snapshotId, after ?? '', limit)
    .map((r) => toReceived(r.address, r));
}

/** A slice of fetchStates(), as receivedSlice. */
export function fetchStatesSlice(db: Database, snapshotId: number, after: string | null, limit: number): AddressFetch[] {
  return db
    .prepare<
      [number, string, number],
      { address: string; source: AddressSource; state: FetchState; fetched_at: string | null; fetched_index_height: number | null; error_code: string | null }
    >('SELECT address, source, state, fetched_at, fetched_index_height, error_code FROM snapshot_fetched WHERE snapshot_id = ? AND address > ? ORDER BY address LIMIT ?')
    .all(snapshotId, after ?? '', limit)
    .map((r) => ({ address: r.address, source: r.source, state: r.state, fetchedAt: r.fetched_at, fetchedIndexHeight: r.fetched_index_height, errorCode: r.error_code }));
}

/** Per address of a snapshot: where its UTXOs come from and when they were last fetched. */
export function fetchStates(db: Database, snapshotId: number): Map<string, AddressFetch> {
  const rows = db
    .prepare<
      [number],
      { address: string; source: AddressSource; state: FetchState; fetched_at: string | null; fetched_index_height: number | null; error_code: string | null }
    >('SELECT address, source, state, fetched_at, fetched_index_height, error_code FROM snapshot_fetched WHERE snapshot_id = ?')
    .all(snapshotId);
  return new Map(
    rows.map((r) => [
      r.address,
      { address: r.address, source: r.source, state: r.state, fetchedAt: r.fetched_at, fetchedIndexHeight: r.fetched_index_height, errorCode: r.error_code },
    ]),
  );
}

/** The balances table of a snapshot: one row per watched address of the snapshot, by address. */
export function balances(db: Database, scope: WalletScope, snapshotId: number): BalanceRow[] {
  const k = walletKey(db, scope);
  const snap = requireSnapshot(db, k, snapshotId);
  const rows = db
    .prepare<
      { p: string; s: number },
      {
        address: string;
        source: AddressSource;
        state: FetchState;
        fetched_at: string | null;
        error_code: string | null;
        hidden: number | null;
        received: number | bigint | null;
        rconf: number | null;
        tx_count: number | null;
        node_label: string | null;
        node_unspent_sats: number | bigint | null;
        node_unspent_count: number | null;
        pending_trusted: number | bigint | null;
        pending_untrusted: number | bigint | null;
        pending_count: number | null;
        label: string | null;
        bal: number | bigint | null;
        cnt: number | null;
        maxh: number | null;
      }
    >(
      `SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
              r.amount_sats AS received, r.confirmations AS rconf, json_array_length(r.txids) AS tx_count, r.node_label,
              r.node_unspent_sats, r.node_unspent_count, ${PENDING_COLUMNS_SQL},
              l.label, u.bal, u.cnt, u.maxh
       ${BALANCE_ROWS_FROM}`,
    )
    .all({ p: k.profileId, s: snapshotId });
  const tip = snap.index?.height ?? null;
  return rows.map((r) => ({
    address: r.address,
    source: r.source,
    hidden: r.hidden === 1,
    nodeLabel: r.node_label,
    label: r.label,
    receivedSats: satsOrNull(r.received),
    receivedConfirmations: r.rconf,
    receivedTxCount: r.tx_count,
    balanceSats: r.bal === null ? 0n : sats(r.bal),
    utxoCount: r.cnt ?? 0,
    minConfirmations: confirmationsAt(tip, r.maxh),
    lastActivityHeight: r.maxh,
    nodeUnspentSats: satsOrNull(r.node_unspent_sats),
    nodeUnspentCount: r.node_unspent_count,
    pendingTrustedSats: satsOrNull(r.pending_trusted),
    pendingUntrustedSats: satsOrNull(r.pending_untrusted),
    pendingCount: r.pending_count,
    fetchState: r.state,
    fetchedAt: r.fetched_at,
    errorCode: r.error_code,
  }));
}

/** Per address of snapshot `snapshotId` with UTXOs: their sum and count (addresses without any are absent). */
export function utxoTotals(db: Database, snapshotId: number): Map<string, { sats: bigint; count: number }> {
  const rows = db
    .prepare<[number], [string, number | bigint, number]>('SELECT address, SUM(amount_sats), COUNT(*) FROM snapshot_utxos WHERE snapshot_id = ? GROUP BY address')
    .raw(true)
    .all(snapshotId);
  return new Map(rows.map(([address, sum, count]) => [address, { sats: sats(sum), count }]));
}

/** The UTXOs of a snapshot (default: the latest good one), of one address or of all, oldest first. */
export function utxos(db: Database, scope: WalletScope, address: string | null, snapshotId?: number): UtxoRow[] {
  const k = walletKey(db, scope);
  const snap = snapshotId === undefined ? latestSnapshot(db, k) : requireSnapshot(db, k, snapshotId);
  if (snap === null) return [];
  const rows =
    address === null
      ? db
          .prepare<[number], UtxoRowDb>('SELECT address, txid, vout, amount_sats, height FROM snapshot_utxos WHERE snapshot_id = ? ORDER BY height, txid, vout')
          .all(snap.id)
      : db
          .prepare<[number, string], UtxoRowDb>(
            'SELECT address, txid, vout, amount_sats, height FROM snapshot_utxos WHERE snapshot_id = ? AND address = ? ORDER BY height, txid, vout',
          )
          .all(snap.id, address);
  const tip = snap.index?.height ?? null;
  return rows.map((r) => toUtxoRow(r, tip));
}

/** What changed from `fromId` (null: nothing before) to `toId`. */
export function diff(db: Database, fromId: number | null, toId: number): SnapshotDiff {
  const to = getSnapshot(db, toId);
  if (to === null) throw invalid(`There is no snapshot ${toId}.`);
  const from = fromId === null ? null : getSnapshot(db, fromId);
  if (fromId !== null && from === null) throw invalid(`There is no snapshot ${fromId}.`);
  const prev = fromId ?? -1;
  const onlyIn = (a: number, b: number, tip: number | null): UtxoRow[] =>
    db
      .prepare<[number, number], UtxoRowDb>(
        `SELECT n.address, n.txid, n.vout, n.amount_sats, n.height FROM snapshot_utxos n
          WHERE n.snapshot_id = ? AND NOT EXISTS (SELECT 1 FROM snapshot_utxos p WHERE p.snapshot_id = ? AND p.txid = n.txid AND p.vout = n.vout)
          ORDER BY n.height, n.txid, n.vout`,
      )
      .all(a, b)
      .map((r) => toUtxoRow(r, tip));
  const newTxids = db
    .prepare<[number, number, number, number], { txid: string }>(
      `SELECT txid FROM (
         SELECT j.value AS txid FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
         UNION SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?
       ) EXCEPT SELECT txid FROM (
         SELECT j.value AS txid FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
         UNION SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?
       ) ORDER BY txid`,
    )
    .all(toId, toId, prev, prev)
    .map((r) => r.txid);
  return {
    fromId,
    toId,
    newUtxos: onlyIn(toId, prev, to.index?.height ?? null),
    spentUtxos: onlyIn(prev, toId, from?.index?.height ?? null),
    newTxids,
  };
}

/** Counts and sums of diff() without loading the rows. */
export function diffSummary(db: Database, fromId: number | null, toId: number): DiffSummary {
  const prev = fromId ?? -1;
  const side = (a: number, b: number): { n: number; s: number | bigint | null } =>
    db
      .prepare<[number, number], { n: number; s: number | bigint | null }>(
        `SELECT COUNT(*) AS n, SUM(n.amount_sats) AS s FROM snapshot_utxos n
          WHERE n.snapshot_id = ? AND NOT EXISTS (SELECT 1 FROM snapshot_utxos p WHERE p.snapshot_id = ? AND p.txid = n.txid AND p.vout = n.vout)`,
      )
      .get(a, b)!;
  const added = side(toId, prev);
  const spent = side(prev, toId);
  const txs = db
    .prepare<[number, number, number, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM (
         SELECT j.value AS txid FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
         UNION SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?
         EXCEPT SELECT j.value FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
         EXCEPT SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?)`,
    )
    .get(toId, toId, prev, prev)!;
  return { newUtxos: added.n, newSats: added.s === null ? 0n : sats(added.s), spentUtxos: spent.n, spentSats: spent.s === null ? 0n : sats(spent.s), newTxids: txs.n };
}

/** The totals of every good snapshot of the wallet, oldest first (the balance-over-time chart). */
export function history(db: Database, scope: WalletScope): HistoryPoint[] {
  const k = walletKey(db, scope);
  return db
    .prepare<[string, string], SnapshotRowDb>("SELECT * FROM snapshots WHERE profile_id = ? AND node_wallet = ? AND status IN ('ok', 'partial') ORDER BY id")
    .all(k.profileId, k.wallet)
    .map((r) => ({
      snapshotId: r.id,
      takenAt: r.taken_at,
      status: r.status as 'ok' | 'partial',
      nodeHeight: r.node_height,
      indexHeight: r.index_height,
      addressCount: r.address_count ?? 0,
      receivedSats: r.received_sats === null ? 0n : sats(r.received_sats),
      balanceSats: r.balance_sats === null ? 0n : sats(r.balance_sats),
      utxoCount: r.utxo_count ?? 0,
    }));
}

/** Snapshot `snapshotId`, which must be one of the wallet's. */
export function requireSnapshot(db: Database, scope: WalletScope, snapshotId: number): Snapshot {
  const k = walletKey(db, scope);
  const snap = getSnapshot(db, snapshotId);
  if (snap === null || snap.profileId !== k.profileId || snap.wallet !== k.wallet) throw invalid(`There is no snapshot ${snapshotId} of this wallet.`);
  return snap;
}
