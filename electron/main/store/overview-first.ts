// The first page of a large wallet's Balances without reading every row (store/overview.ts
// firstPage): the addresses of the first `count` rows of the table's order straight from SQLite, then
// those rows alone (ROWS_SQL: BALANCES_RANGE_SQL's columns for a list of addresses). Served for the
// orders an index gives without a sort of every row, and no filter:
//   - by address (either way): the primary key of snapshot_fetched, LIMIT count;
//   - by balance, largest first (the table's default): the largest UTXO sums per address — the
//     covering snapshot_utxos_address index grouped by address, in slices of addresses (a turn of the
//     event loop between two), each keeping its own largest `count + hidden` — then, when fewer rows
//     hold coins than the page needs, the rows without (balance 0) in address order.
// The order is exactly OverviewModel's (ties in address order, the rows' own order); every other
// order, and any filter, is the model's (null here). test/main/overview-totals.test.ts compares the two.
import type { BalanceColumns, BalanceQuery } from '../../../shared/ipc/contract';
import type { Database } from './db';
import { emptyColumns, fill, sliceBound, TOP, turn, type RawRow } from './overview-rows';
import { PENDING_COLUMNS_SQL } from './watch-rows';

/** Addresses per slice of the largest-balances search (one grouped range query each). */
const TOP_SLICE = 8_000;

/** Whether firstAddresses serves `query` (else the model does). */
export function servesFirst(query: BalanceQuery): boolean {
  return query.filter.trim() === '' && (query.sort === 'address' || (query.sort === 'balance' && query.dir === 'desc'));
}

/**
 * The addresses of the first `count` rows of `query` (servesFirst) in snapshot `id`, leaving out
 * `hidden` unless the query shows hidden rows. `same()`: false once the data was written to (checked
 * after each turn of the event loop); then null, as for a query this does not serve. `slice`: addresses per
 * slice of the balance search (tests make it small).
 */
export async function firstAddresses(
  db: Database,
  id: number,
  query: BalanceQuery,
  count: number,
  hidden: ReadonlySet<string>,
  same: () => boolean,
  slice = TOP_SLICE,
): Promise<string[] | null> {
  if (!servesFirst(query)) return null;
  const shows = (a: string): boolean => query.showHidden || !hidden.has(a);
  if (query.sort === 'address') {
    // Past the hidden ones: at most count + hidden.size rows hold the first count shown.
    const rows = db
      .prepare<[number, number], string>(`SELECT address FROM snapshot_fetched WHERE snapshot_id = ? ORDER BY address ${query.dir === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`)
      .pluck(true)
      .all(id, count + (query.showHidden ? 0 : hidden.size));
    return rows.filter(shows).slice(0, count);
  }
  // The largest balances: each slice's `keep` largest; the `keep` largest of all are among them.
  const keep = count + (query.showHidden ? 0 : hidden.size);
  const bound = sliceBound(db);
  const top = db
    .prepare<{ s: number; after: string; hi: string; keep: number }, [string, bigint]>(
      `SELECT address, SUM(amount_sats) AS bal FROM snapshot_utxos
        WHERE snapshot_id = @s AND address > @after AND address <= @hi
        GROUP BY address HAVING bal > 0 ORDER BY bal DESC, address LIMIT @keep`,
    )
    .safeIntegers(true)
    .raw(true);
  let best: Array<[string, bigint]> = [];
  let truncated = false;
  for (let after = ''; ; ) {
    const hi = bound.get(id, after, slice - 1) ?? null;
    const part = top.all({ s: id, after, hi: hi ?? TOP, keep });
    if (part.length === keep) truncated = true;
    best = best.concat(part).sort(byBalanceDesc).slice(0, keep);
    if (hi === null) break;
    after = hi;
    await turn();
    if (!same()) return null;
  }
  const out = best.map(([a]) => a).filter(shows).slice(0, count);
  // Every row holding coins is in `best` unless a slice was cut short (then `best` has `keep` rows, enough).
  if (out.length < count && !truncated) {
    const zero = db
      .prepare<{ s: number; all: number; need: number }, string>(
        `SELECT f.address FROM snapshot_fetched f
           LEFT JOIN addresses a ON a.profile_id = (SELECT profile_id FROM snapshots WHERE id = @s) AND a.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND a.address = f.address
          WHERE f.snapshot_id = @s AND (@all = 1 OR a.hidden IS NULL OR a.hidden = 0)
            AND COALESCE((SELECT SUM(amount_sats) FROM snapshot_utxos u WHERE u.snapshot_id = @s AND u.address = f.address), 0) = 0
          ORDER BY f.address LIMIT @need`,
      )
      .pluck(true)
      .all({ s: id, all: query.showHidden ? 1 : 0, need: count - out.length });
    out.push(...zero);
  }
  return out;
}

/** Largest balance first; equal ones in address order (SQLite's BINARY order: addresses are ASCII). */
function byBalanceDesc(a: [string, bigint], b: [string, bigint]): number {
  if (a[1] !== b[1]) return a[1] > b[1] ? -1 : 1;
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * The rows of `addresses` in snapshot `id`, in that order, as BALANCES_RANGE_SQL reads them (the UTXO
 * sums by the covering index, per address); null when one is not a row of it.
 */
export function rowsOf(db: Database, profileId: string, id: number, addresses: readonly string[], indexTip: number | null, typeOf: (address: string) => string): BalanceColumns | null {
  const raw = db.prepare<[{ p: string; s: number; list: string }], RawRow>(ROWS_SQL).raw(true).all({ p: profileId, s: id, list: JSON.stringify(addresses) });
  const at = new Map(raw.map((r) => [r[0], r]));
  const c = emptyColumns(addresses.length);
  for (let k = 0; k < addresses.length; k++) {
    const r = at.get(addresses[k]!);
    if (r === undefined) return null;
    fill(c, k, [r], indexTip, typeOf);
  }
  return c;
}

/** BALANCES_RANGE_SQL's columns for the addresses of the JSON array @list. */
const ROWS_SQL = `
  SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
         r.amount_sats, r.confirmations, json_array_length(r.txids), r.node_label, l.label,
         (SELECT SUM(amount_sats) FROM snapshot_utxos u WHERE u.snapshot_id = @s AND u.address = f.address),
         (SELECT COUNT(*) FROM snapshot_utxos u WHERE u.snapshot_id = @s AND u.address = f.address),
         (SELECT MAX(height) FROM snapshot_utxos u WHERE u.snapshot_id = @s AND u.address = f.address),
         ${PENDING_COLUMNS_SQL}
  FROM snapshot_fetched f
    LEFT JOIN addresses a ON a.profile_id = @p AND a.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND a.address = f.address
    LEFT JOIN snapshot_received r ON r.snapshot_id = f.snapshot_id AND r.address = f.address
    LEFT JOIN labels l ON l.profile_id = @p AND l.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND l.type = 'addr' AND l.ref = f.address
   WHERE f.snapshot_id = @s AND f.address IN (SELECT value FROM json_each(@list))`;
