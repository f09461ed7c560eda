// Conversions between the balances rows (BalanceRowView, one object per address) and the columns
// `watch:overview` sends them as (BalanceColumns, shared/ipc/watch.ts).
import type { BalanceColumns, BalanceRowView } from './watch';

/** The fields of a balances row, in the order of BalanceRowView. */
export const BALANCE_FIELDS = [
  'address',
  'type',
  'source',
  'hidden',
  'nodeLabel',
  'label',
  'receivedSats',
  'receivedConfirmations',
  'receivedTxCount',
  'balanceSats',
  'pendingTrustedSats',
  'pendingUntrustedSats',
  'pendingCount',
  'utxoCount',
  'minConfirmations',
  'lastActivityHeight',
  'fetchState',
  'fetchedAt',
  'errorCode',
] as const satisfies ReadonlyArray<keyof BalanceRowView>;

// Compile-time: the list above names every field of BalanceRowView.
const _allFields: Exclude<keyof BalanceRowView, (typeof BALANCE_FIELDS)[number]> extends never ? true : never = true;
void _allFields;

/** No rows. */
export function emptyBalanceColumns(): BalanceColumns {
  const cols = {} as Record<keyof BalanceRowView, unknown[]>;
  for (const f of BALANCE_FIELDS) cols[f] = [];
  return cols as BalanceColumns;
}

/** How many rows the columns hold. */
export function balanceCount(cols: BalanceColumns): number {
  return cols.address.length;
}

/** Row `i` as an object. */
export function balanceRowAt(cols: BalanceColumns, i: number): BalanceRowView {
  const row: Record<string, unknown> = {};
  for (const f of BALANCE_FIELDS) row[f] = cols[f][i];
  return row as unknown as BalanceRowView;
}

/** Every row as an object, in order. */
export function balanceRows(cols: BalanceColumns): BalanceRowView[] {
  const n = balanceCount(cols);
  const out = new Array<BalanceRowView>(n);
  for (let i = 0; i < n; i++) out[i] = balanceRowAt(cols, i);
  return out;
}

/** The columns of `rows`. */
export function balanceColumns(rows: readonly BalanceRowView[]): BalanceColumns {
  const cols = emptyBalanceColumns() as unknown as Record<keyof BalanceRowView, unknown[]>;
  for (const r of rows) for (const f of BALANCE_FIELDS) cols[f].push(r[f]);
  return cols as unknown as BalanceColumns;
}
