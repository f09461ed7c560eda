// The Balances table's pure operations over prepared rows (balance-row.ts): sort (keys, default
// directions, a total and stable order), the filter (every term in a row's search key), and totals
// (exact sums as Core's getbalances names them). The store (stores/watch.ts) keeps their results.
import type { BalanceRow } from './balance-row';

import { filterTerms, SORT_KEYS, type SortDir, type SortKey } from '../../../shared/balance-query';

export { filterTerms, SORT_KEYS, type SortDir, type SortKey };
export interface SortState {
  key: SortKey;
  dir: SortDir;
}

/** Numbers sort largest first on the first click; text A→Z. */
export const DEFAULT_DIR: Record<SortKey, SortDir> = {
  label: 'asc',
  address: 'asc',
  type: 'asc',
  received: 'desc',
  balance: 'desc',
  utxos: 'desc',
  confirmations: 'asc',
  activity: 'desc',
};

/** Compares two amounts in satoshis given as canonical decimal text (no sign, no leading zeros) without parsing them. */
function cmpSats(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function cmp<T extends string | number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two possibly-missing values; missing ones go last in both directions. */
function cmpMissingLast<T extends string | number | bigint>(a: T | null, b: T | null, sign: number): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  return sign * cmp(a, b);
}

function compareBy(key: SortKey, a: BalanceRow, b: BalanceRow, sign: number): number {
  switch (key) {
    case 'label':
      return cmpMissingLast(a.sortLabel === '' ? null : a.sortLabel, b.sortLabel === '' ? null : b.sortLabel, sign);
    case 'address':
      return sign * cmp(a.address, b.address);
    case 'type':
      return sign * cmp(a.type, b.type);
    case 'received':
      if (a.receivedSats === null) return b.receivedSats === null ? 0 : 1;
      if (b.receivedSats === null) return -1;
      return sign * cmpSats(a.receivedSats, b.receivedSats);
    case 'balance':
      return sign * cmpSats(a.balanceSats, b.balanceSats);
    case 'utxos':
      return sign * cmp(a.utxoCount, b.utxoCount);
    case 'confirmations':
      return cmpMissingLast(a.confirmations, b.confirmations, sign);
    case 'activity':
      return cmpMissingLast(a.lastActivityHeight, b.lastActivityHeight, sign);
  }
}

/** A sorted copy; ties (and missing values) in address order, so the order is total and stable. */
export function sortRows(rows: readonly BalanceRow[], sort: SortState): BalanceRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return rows.slice().sort((a, b) => compareBy(sort.key, a, b, sign) || cmp(a.address, b.address));
}

export function filterRows(rows: readonly BalanceRow[], text: string, showHidden: boolean): BalanceRow[] {
  const terms = filterTerms(text);
  if (terms.length === 0 && (showHidden || !rows.some((r) => r.hidden))) return rows as BalanceRow[];
  const out: BalanceRow[] = [];
  for (const r of rows) {
    if (!showHidden && r.hidden) continue;
    let ok = true;
    for (const t of terms) {
      if (!r.search.includes(t)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(r);
  }
  return out;
}

export interface Totals {
  rows: number;
  received: bigint;
  /** Confirmed. */
  balance: bigint;
  /** Named as Core's getbalances: trusted = confirmed + our own unconfirmed change; untrusted_pending. */
  trusted: bigint;
  pendingTrusted: bigint;
  untrustedPending: bigint;
  /** Rows whose pending coins are not known (not in the sums). */
  pendingUnknown: number;
  utxos: number;
}

export function totalsOf(rows: readonly BalanceRow[]): Totals {
  // Summed as numbers (one bigint per total, not one per row): exact while the sum stays below
  // 2^53 — every term is non-negative, so then every partial sum is exact too. Balances always do
  // (≤ 21e14 sats); a total received past that (coins received over and over) is summed again as bigint.
  let received = 0;
  let balance = 0;
  let utxos = 0;
  let pendingTrusted = 0n;
  let untrustedPending = 0n;
  let pendingUnknown = 0;
  for (const r of rows) {
    if (r.receivedSats !== null) received += Number(r.receivedSats);
    balance += Number(r.balanceSats);
    utxos += r.utxoCount;
    // Few rows have pending coins: summed as bigint where there are.
    if (r.pendingTrustedSats === null || r.pendingUntrustedSats === null) pendingUnknown++;
    else {
      if (r.pendingTrustedSats !== '0') pendingTrusted += BigInt(r.pendingTrustedSats);
      if (r.pendingUntrustedSats !== '0') untrustedPending += BigInt(r.pendingUntrustedSats);
    }
  }
  const exact = (sum: number, of: (r: BalanceRow) => bigint | null): bigint =>
    Number.isSafeInteger(sum) ? BigInt(sum) : rows.reduce((a, r) => a + (of(r) ?? 0n), 0n);
  const confirmed = exact(balance, (r) => r.balance);
  return { rows: rows.length, received: exact(received, (r) => r.received), balance: confirmed, trusted: confirmed + pendingTrusted, pendingTrusted, untrustedPending, pendingUnknown, utxos };
}
