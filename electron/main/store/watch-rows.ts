// Row mapping of the watch-only repository: the shapes of the SQLite rows, their conversion to the
// public types (INTEGER amounts → bigint sats, tips, confirmations), and BALANCE_ROWS_FROM, the SQL
// fragment the balances table and the overview query (store/overview.ts) share.
import { AppError } from '../../../shared/errors';
import type { Label, LabelType, PendingCoin, ReceivedRecord, RefreshStep, Snapshot, SnapshotStatus, Tip, UtxoRow } from './watch-types';

export interface SnapshotRowDb {
  id: number;
  profile_id: string;
  node_wallet: string;
  taken_at: string;
  node_height: number | null;
  node_hash: string | null;
  index_height: number | null;
  index_hash: string | null;
  status: SnapshotStatus;
  failed_step: RefreshStep | null;
  error_code: string | null;
  error_message: string | null;
  address_count: number | null;
  received_sats: number | bigint | null;
  balance_sats: number | bigint | null;
  utxo_count: number | null;
  wallet_state: string | null;
}

export interface LabelRowDb {
  type: LabelType;
  ref: string;
  label: string;
  spendable: number | null;
  origin: string | null;
  updated_at: string;
}

export interface UtxoRowDb {
  address: string;
  txid: string;
  vout: number;
  amount_sats: number | bigint;
  height: number | null;
}

/** INTEGER → bigint satoshis. Every amount is ≤ 21e14 sats < 2^53, so a JS number holds it exactly. */
export function sats(v: number | bigint): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isSafeInteger(v)) throw new AppError('internal', `The database holds an amount that is not a whole number of satoshis (${v}).`);
  return BigInt(v);
}

export function satsOrNull(v: number | bigint | null): bigint | null {
  return v === null ? null : sats(v);
}

function tipOf(height: number | null, hash: string | null): Tip | null {
  return height === null || hash === null ? null : { height, hash };
}

/**
 * The rows of the balances table for profile @p and snapshot @s (of one of its wallets), one per address of the snapshot in
 * address order: f = its fetch state, a = the watched-set entry, r = the node's received entry (null
 * for user addresses), l = its local label, u = its UTXO sum, count and youngest height (null when it
 * has none). Shared by WatchRepository.balances and the overview query (store/overview.ts).
 */
export const BALANCE_ROWS_FROM = `FROM snapshot_fetched f
    LEFT JOIN addresses a ON a.profile_id = @p AND a.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND a.address = f.address
    LEFT JOIN snapshot_received r ON r.snapshot_id = f.snapshot_id AND r.address = f.address
    LEFT JOIN labels l ON l.profile_id = @p AND l.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND l.type = 'addr' AND l.ref = f.address
    LEFT JOIN (SELECT address, SUM(amount_sats) AS bal, COUNT(*) AS cnt, MAX(height) AS maxh
                 FROM snapshot_utxos WHERE snapshot_id = @s GROUP BY address) u ON u.address = f.address
   WHERE f.snapshot_id = @s
   ORDER BY f.address`;

export function toSnapshot(r: SnapshotRowDb): Snapshot {
  return {
    id: r.id,
    profileId: r.profile_id,
    wallet: r.node_wallet,
    takenAt: r.taken_at,
    node: tipOf(r.node_height, r.node_hash),
    index: tipOf(r.index_height, r.index_hash),
    status: r.status,
    failedStep: r.failed_step,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    addressCount: r.address_count,
    receivedSats: satsOrNull(r.received_sats),
    balanceSats: satsOrNull(r.balance_sats),
    utxoCount: r.utxo_count,
    walletState: r.wallet_state,
  };
}

export function toLabel(r: LabelRowDb): Label {
  return { type: r.type, ref: r.ref, label: r.label, spendable: r.spendable === null ? null : r.spendable === 1, origin: r.origin, updatedAt: r.updated_at };
}

export function confirmationsAt(tipHeight: number | null, height: number | null): number | null {
  return tipHeight === null || height === null ? null : Math.max(0, tipHeight - height + 1);
}

export function toUtxoRow(r: UtxoRowDb, tipHeight: number | null): UtxoRow {
  return { address: r.address, txid: r.txid, vout: r.vout, amountSats: sats(r.amount_sats), height: r.height, confirmations: confirmationsAt(tipHeight, r.height) };
}

/** The columns of a snapshot_received row that make a ReceivedRecord (its address aside). */
export interface ReceivedRowDb {
  amount_sats: number | bigint;
  confirmations: number;
  txids: string;
  node_label: string;
  node_unspent_hash: string | null;
  node_unspent_sats: number | bigint | null;
  node_unspent_count: number | null;
  node_pending: string | null;
}

/**
 * SQL over a snapshot_received row `r` (schema 98's node_pending): the sums of its pending coins, our
 * own (safe: Core's trusted) and from others (untrusted_pending), and their count — NULL when not
 * known (no node data for the row, or a row from before schema 98).
 */
const pendingSum = (safe: 0 | 1): string =>
  `CASE WHEN r.node_unspent_sats IS NULL OR r.node_pending IS NULL THEN NULL WHEN r.node_pending = '[]' THEN 0
        ELSE (SELECT COALESCE(SUM(CAST(json_extract(j.value, '$[2]') AS INTEGER)), 0) FROM json_each(r.node_pending) j WHERE json_extract(j.value, '$[3]') = ${safe}) END`;
export const PENDING_COLUMNS_SQL = `${pendingSum(1)} AS pending_trusted, ${pendingSum(0)} AS pending_untrusted,
  CASE WHEN r.node_unspent_sats IS NULL OR r.node_pending IS NULL THEN NULL ELSE json_array_length(r.node_pending) END AS pending_count`;

/** The columns of snapshot_received that toReceived reads (after `address`). */
export const RECEIVED_COLUMNS = 'amount_sats, confirmations, txids, node_label, node_unspent_hash, node_unspent_sats, node_unspent_count, node_pending';

/** Pending coins → the node_pending column (schema 98): [txid, vout, "sats", safe] each; null: not known. */
export function pendingJson(pending: readonly PendingCoin[] | null | undefined): string | null {
  if (pending === null || pending === undefined) return null;
  return JSON.stringify(pending.map((c) => [c.txid, c.vout, c.amountSats.toString(), c.safe]));
}

/** The node_pending column → pending coins (null: not known). A value this code did not write is refused. */
export function parsePending(text: string | null): PendingCoin[] | null {
  if (text === null) return null;
  const v: unknown = JSON.parse(text);
  if (!Array.isArray(v)) throw new AppError('internal', 'A snapshot row holds pending coins that are not a list.');
  return v.map((e: unknown) => {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'number' || typeof e[2] !== 'string' || !/^\d+$/.test(e[2]) || typeof e[3] !== 'boolean') {
      throw new AppError('internal', 'A snapshot row holds a pending coin that is not [txid, vout, sats, safe].');
    }
    return { txid: e[0], vout: e[1], amountSats: BigInt(e[2]), safe: e[3] };
  });
}

export function toReceived(address: string, r: ReceivedRowDb): ReceivedRecord {
  return {
    address,
    amountSats: sats(r.amount_sats),
    confirmations: r.confirmations,
    txids: JSON.parse(r.txids) as string[],
    nodeLabel: r.node_label,
    nodeUnspent:
      r.node_unspent_hash === null || r.node_unspent_sats === null || r.node_unspent_count === null
        ? null
        : { hash: r.node_unspent_hash, sats: sats(r.node_unspent_sats), count: r.node_unspent_count, pending: parsePending(r.node_pending) },
  };
}
