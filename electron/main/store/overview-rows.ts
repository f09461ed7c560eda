// The overview's rows as SQLite gives them (raw arrays) and their wire columns: the queries of
// store/overview.ts (every row at once, or a range of addresses: the sliced read and the first page of
// a large wallet, store/overview-first.ts) and the mapping both use.
import type { BalanceColumns } from '../../../shared/ipc/contract';
import type { Database } from './db';
import { BALANCE_ROWS_FROM, PENDING_COLUMNS_SQL } from './watch-rows';

export type RawRow = [
  address: string,
  source: 'node' | 'user',
  state: 'fetched' | 'carried' | 'failed',
  fetchedAt: string | null,
  errorCode: string | null,
  hidden: number | null,
  received: number | null,
  receivedConfirmations: number | null,
  receivedTxCount: number | null,
  nodeLabel: string | null,
  label: string | null,
  balance: number | null,
  utxoCount: number | null,
  maxHeight: number | null,
  pendingTrusted: number | null,
  pendingUntrusted: number | null,
  pendingCount: number | null,
];

export const BALANCES_SQL = `
  SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
         r.amount_sats, r.confirmations, json_array_length(r.txids), r.node_label,
         l.label, u.bal, u.cnt, u.maxh, ${PENDING_COLUMNS_SQL}
  ${BALANCE_ROWS_FROM}`;

/**
 * The same rows for the addresses from @lo to @hi (both included) only: BALANCE_ROWS_FROM with both the
 * rows and the UTXO sums bounded, so that reading a snapshot in slices costs one pass over it in all
 * (the primary key of snapshot_fetched and the snapshot_utxos_address index serve the ranges).
 */
export const BALANCES_RANGE_SQL = `
  SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
         r.amount_sats, r.confirmations, json_array_length(r.txids), r.node_label,
         l.label, u.bal, u.cnt, u.maxh, ${PENDING_COLUMNS_SQL}
  FROM snapshot_fetched f
    LEFT JOIN addresses a ON a.profile_id = @p AND a.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND a.address = f.address
    LEFT JOIN snapshot_received r ON r.snapshot_id = f.snapshot_id AND r.address = f.address
    LEFT JOIN labels l ON l.profile_id = @p AND l.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND l.type = 'addr' AND l.ref = f.address
    LEFT JOIN (SELECT address, SUM(amount_sats) AS bal, COUNT(*) AS cnt, MAX(height) AS maxh
                 FROM snapshot_utxos WHERE snapshot_id = @s AND address BETWEEN @lo AND @hi GROUP BY address) u ON u.address = f.address
   WHERE f.snapshot_id = @s AND f.address BETWEEN @lo AND @hi
   ORDER BY f.address`;

/** Above every address (text compares as UTF-8 bytes; addresses are ASCII): the open end of a range. */
export const TOP = '\u{10FFFF}';

/**
 * The bound of a slice of snapshot rows in address order: `.get(id, after, k)` is the (k+1)th address
 * after `after`, or undefined past the last one.
 */
export function sliceBound(db: Database) {
  return db.prepare<[number, string, number], string>('SELECT address FROM snapshot_fetched WHERE snapshot_id = ? AND address > ? ORDER BY address LIMIT 1 OFFSET ?').pluck(true);
}

/** The addresses of snapshot `id` its wallet has hidden (the snapshot's own profile and wallet: the partial index addresses_hidden). */
export function hiddenAddresses(db: Database, id: number): Set<string> {
  const rows = db
    .prepare<{ s: number }, string>(
      `SELECT a.address FROM addresses a JOIN snapshot_fetched f ON f.snapshot_id = @s AND f.address = a.address
        WHERE a.profile_id = (SELECT profile_id FROM snapshots WHERE id = @s) AND a.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND a.hidden = 1`,
    )
    .pluck(true)
    .all({ s: id });
  return new Set(rows);
}

/** Gives the event loop a turn (a ping, an IPC call) between two slices of work. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function emptyColumns(n: number): BalanceColumns {
  const a = <T>(): T[] => new Array<T>(n);
  return {
    address: a(), type: a(), source: a(), hidden: a(), nodeLabel: a(), label: a(), receivedSats: a(), receivedConfirmations: a(),
    receivedTxCount: a(), balanceSats: a(), pendingTrustedSats: a(), pendingUntrustedSats: a(), pendingCount: a(), utxoCount: a(),
    minConfirmations: a(), lastActivityHeight: a(), fetchState: a(), fetchedAt: a(), errorCode: a(),
  };
}

/** Rows `raw` into the columns from row `at` on, as balances' read makes them. */
export function fill(c: BalanceColumns, at: number, raw: RawRow[], indexTip: number | null, typeOf: (address: string) => string): void {
  for (let k = 0; k < raw.length; k++) {
    const r = raw[k]!;
    const i = at + k;
    const rec = r[6];
    const maxh = r[13];
    const pt = r[14];
    const pu = r[15];
    c.address[i] = r[0];
    c.type[i] = typeOf(r[0]);
    c.source[i] = r[1];
    c.hidden[i] = r[5] === 1;
    c.nodeLabel[i] = r[9];
    c.label[i] = r[10];
    c.receivedSats[i] = rec === null ? null : String(rec);
    c.receivedConfirmations[i] = r[7];
    c.receivedTxCount[i] = r[8];
    c.balanceSats[i] = String(r[11] ?? 0);
    c.pendingTrustedSats[i] = pt === null ? null : String(pt);
    c.pendingUntrustedSats[i] = pu === null ? null : String(pu);
    c.pendingCount[i] = r[16];
    c.utxoCount[i] = r[12] ?? 0;
    c.minConfirmations[i] = indexTip === null || maxh === null ? null : Math.max(0, indexTip - maxh + 1);
    c.lastActivityHeight[i] = maxh;
    c.fetchState[i] = r[2];
    c.fetchedAt[i] = r[3];
    c.errorCode[i] = r[4];
  }
}
