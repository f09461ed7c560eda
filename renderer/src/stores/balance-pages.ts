// A large wallet's Balances rows, fetched page by page from main (`watch:overview-page`): main sorts
// and filters them (electron/main/store/overview-model.ts); the store keeps the pages it was sent for
// one query and one version of the data, and shows the rows not fetched yet as LoadingRow
// placeholders (the table asks for the pages of the rows it shows). Part of the watch store
// (stores/watch.ts): a small wallet's rows are all in the overview and never come through here.
import type { BalancePage, BalanceQuery, BalanceTotals } from '../../../shared/ipc/contract';
import { OVERVIEW_PAGE_ROWS } from '../../../shared/ipc/watch';
import { prepareColumns, type BalanceRow } from './balance-row';
import type { Totals } from './balance-table';

/** Rows per page asked of main (the overview's first page is one). */
export const PAGE_ROWS = OVERVIEW_PAGE_ROWS;

/**
 * A row whose page has not arrived yet: only its key (a text no address can be: its place), shown
 * as loading. Made on each read (the table reads every row's key to find the active one).
 */
export class LoadingRow {
  readonly loading = true;
  readonly address: string;

  constructor(index: number) {
    this.address = `\u0000${index}`;
  }
}

/** Whether `r` is a placeholder (LoadingRow) in the place of a row not fetched yet. */
export function isLoading(r: BalanceRow): boolean {
  return (r as unknown) instanceof LoadingRow;
}

/** One query's rows as far as they were fetched, with its count and totals (from main). */
export interface PagedView {
  version: string;
  query: BalanceQuery;
  count: number;
  totals: Totals;
  allTotals: Totals;
  allRows: number;
  hiddenRows: number;
  /** Rows by page number (page p holds rows p × PAGE_ROWS …). */
  pages: Map<number, BalanceRow[]>;
}

export function totalsFrom(t: BalanceTotals): Totals {
  return {
    rows: t.addresses,
    received: BigInt(t.receivedSats),
    balance: BigInt(t.balanceSats),
    trusted: BigInt(t.trustedSats),
    pendingTrusted: BigInt(t.pendingTrustedSats),
    untrustedPending: BigInt(t.pendingUntrustedSats),
    pendingUnknown: t.pendingUnknown,
    utxos: t.utxoCount,
  };
}

export function sameQuery(a: BalanceQuery, b: BalanceQuery): boolean {
  return a.sort === b.sort && a.dir === b.dir && a.filter === b.filter && a.showHidden === b.showHidden;
}

/** A view of `page` alone (a new query, or new data). */
export function viewOf(page: BalancePage): PagedView {
  const view: PagedView = {
    version: page.version,
    query: page.query,
    count: page.count,
    totals: totalsFrom(page.totals),
    allTotals: totalsFrom(page.allTotals),
    allRows: page.allRows,
    hiddenRows: page.hiddenRows,
    pages: new Map(),
  };
  addPage(view, page);
  return view;
}

/** Files `page`'s rows into `view` by page number (a page may span several when asked at another size). */
export function addPage(view: PagedView, page: BalancePage): void {
  const rows = prepareColumns(page.rows);
  for (let k = 0; k < rows.length; ) {
    const at = page.from + k;
    const p = Math.floor(at / PAGE_ROWS);
    const start = p * PAGE_ROWS;
    const end = Math.min(start + PAGE_ROWS, view.count);
    // Only whole pages are kept, so that a page present is a page complete.
    if (at === start && page.from + rows.length >= end) view.pages.set(p, rows.slice(k, k + (end - start)));
    k += end - at;
  }
}

/** The pages rows `first`…`last` (excluded) need that `view` lacks. */
export function missingPages(view: PagedView, first: number, last: number): number[] {
  const out: number[] = [];
  const end = Math.min(last, view.count);
  for (let p = Math.floor(first / PAGE_ROWS); p * PAGE_ROWS < end; p++) if (!view.pages.has(p)) out.push(p);
  return out;
}

/**
 * The rows of `view` as the table reads them: `count` long, row i its row when its page is here,
 * else a LoadingRow. An array in every way the table uses one (length, [i], some, find), without
 * 100,000 entries.
 */
export function pagedRows(view: PagedView): readonly BalanceRow[] {
  const rowAt = (i: number): BalanceRow => view.pages.get(Math.floor(i / PAGE_ROWS))?.[i % PAGE_ROWS] ?? (new LoadingRow(i) as unknown as BalanceRow);
  const index = (k: string | symbol): number => {
    if (typeof k !== 'string') return -1;
    const i = Number(k);
    return Number.isInteger(i) && i >= 0 && i < view.count && String(i) === k ? i : -1;
  };
  return new Proxy<BalanceRow[]>([], {
    get(target, k, receiver) {
      if (k === 'length') return view.count;
      const i = index(k);
      if (i >= 0) return rowAt(i);
      return Reflect.get(target, k, receiver) as unknown;
    },
    has(target, k) {
      return index(k) >= 0 || Reflect.has(target, k);
    },
  });
}
