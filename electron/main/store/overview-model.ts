// A large wallet's balances rows held in main, sorted, filtered and paged there (`watch:overview-page`):
// the renderer asks for the rows it shows instead of receiving 100,000 rows × 19 columns at once.
//
// Built once per version of the data (store/overview.ts reads the columns), then per query: the rows'
// order for a sort (an index list, kept per sort key and direction), the rows a filter keeps of it (the
// last few queries kept), and their totals (store/overview-totals.ts totalsOf, in bigint sats). The order and the filter are exactly the renderer's
// (renderer/src/stores/balance-table.ts sortRows / filterRows, over the same search key from
// shared/balance-query.ts); test/main/overview-page.test.ts compares them on 20,000+ rows.
import { filterTerms, searchKey, type SortDir, type SortKey } from '../../../shared/balance-query';
import type { BalanceColumns, BalancePage, BalanceQuery, BalanceTotals } from '../../../shared/ipc/contract';
import { BALANCE_FIELDS } from '../../../shared/ipc/balance-columns';
import { minus, NO_SUMS, plus, sumsOf, totalsOf, wireTotals, type Sums } from './overview-totals';

type NumericKey = 'received' | 'balance' | 'utxos' | 'confirmations' | 'activity';

interface Selection {
  rows: Uint32Array;
  totals: BalanceTotals;
}

/** How many filtered selections are kept (the query typed last, and a few before it: backspace, sort back). */
const KEEP_SELECTIONS = 6;
/** The longest stretch of work (ms) between two turns of the event loop while an order or the search keys are made. */
const SLICE_MS = 8;
/** Rows sorted in one go before the sorted runs are merged (a turn of the event loop between). */
const RUN = 4096;

/** Gives the event loop a turn (a ping, an IPC call) between two slices of work. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a selection is kept under: its order, whether hidden rows show, and its filter terms. */
const selectionKey = (query: BalanceQuery, terms: string[]): string => `${query.sort}:${query.dir}:${query.showHidden ? 1 : 0}:${terms.join(' ')}`;

export class OverviewModel {
  readonly version: string;
  readonly cols: BalanceColumns;
  readonly n: number;
  readonly hiddenRows: number;
  readonly allTotals: BalanceTotals;
  /** Totals of the rows that are not hidden (what `watch:overview` has always answered). */
  readonly shownTotals: BalanceTotals;
  readonly #orders = new Map<string, Uint32Array>();
  /** The numeric sort keys' values, made on first use. */
  readonly #values = new Map<NumericKey, Float64Array>();
  /** Orders and search keys being made (prepare), so that two callers share one. */
  readonly #making = new Map<string, Promise<void>>();
  readonly #selections = new Map<string, Selection>();
  #search: string[] | null = null;
  #sortLabel: Array<string | null> | null = null;

  /**
   * `all`: the sums of every row when they are known (stored with the snapshot, store/overview-totals.ts,
   * and of the same version as `cols`); else they are summed here.
   */
  constructor(version: string, cols: BalanceColumns, all?: Sums) {
    this.version = version;
    this.cols = cols;
    this.n = cols.address.length;
    const hidden: number[] = [];
    for (let i = 0; i < this.n; i++) if (cols.hidden[i]) hidden.push(i);
    this.hiddenRows = hidden.length;
    const sums = all !== undefined && all.addresses === this.n ? all : sumsOf(cols, this.#identity());
    this.allTotals = wireTotals(sums);
    this.shownTotals = hidden.length === 0 ? this.allTotals : wireTotals(minus(sums, sumsOf(cols, hidden)));
  }

  /**
   * Makes what `query` needs and has not been made — its order, the search keys, a filter's rows and
   * their totals — in slices with a turn of the event loop between them (a sort of 100,000 rows or
   * their search keys in one go would hold the main process for a few hundred ms on a loaded machine);
   * page() then only picks the rows.
   */
  async prepare(query: BalanceQuery): Promise<void> {
    const order = `${query.sort}:${query.dir}`;
    if (!this.#orders.has(order)) await this.#once(order, () => this.#makeOrder(query.sort, query.dir));
    const terms = filterTerms(query.filter);
    if (terms.length === 0) return;
    if (this.#search === null) await this.#once('search', () => this.#makeSearchKeys());
    const key = selectionKey(query, terms);
    if (!this.#selections.has(key)) await this.#once(`select:${key}`, () => this.#makeSelection(query, terms, key));
  }

  #once(key: string, make: () => Promise<void>): Promise<void> {
    let p = this.#making.get(key);
    if (p === undefined) {
      p = make().finally(() => this.#making.delete(key));
      this.#making.set(key, p);
    }
    return p;
  }

  /** Rows `from`… (at most `count`) of `query`, with the count and totals of every row it matches (after prepare: no long step). */
  page(query: BalanceQuery, from: number, count: number): BalancePage {
    const sel = this.#select(query);
    const end = Math.min(sel.rows.length, from + count);
    return {
      version: this.version,
      query,
      from,
      rows: this.#slice(sel.rows, Math.min(from, end), end),
      count: sel.rows.length,
      totals: sel.totals,
      allRows: this.n,
      hiddenRows: this.hiddenRows,
      allTotals: this.allTotals,
    };
  }

  /** The rows `query` keeps, in its order: every row index, as sortRows then filterRows would list them. */
  select(query: BalanceQuery): Uint32Array {
    return this.#select(query).rows;
  }

  #select(query: BalanceQuery): Selection {
    const terms = filterTerms(query.filter);
    const key = selectionKey(query, terms);
    const kept = this.#selections.get(key);
    if (kept !== undefined) {
      // Most recently used last.
      this.#selections.delete(key);
      this.#selections.set(key, kept);
      return kept;
    }
    const order = this.#order(query.sort, query.dir);
    let rows = order;
    if (terms.length > 0 || (!query.showHidden && this.hiddenRows > 0)) {
      const out = new Uint32Array(order.length);
      rows = out.slice(0, this.#keep(order, 0, order.length, query.showHidden, terms, terms.length > 0 ? this.#searchKeys() : null, out, 0));
    }
    return this.#keepSelection(key, { rows, totals: rows.length === this.n ? this.allTotals : !query.showHidden && terms.length === 0 ? this.shownTotals : totalsOf(this.cols, rows) });
  }

  #keepSelection(key: string, sel: Selection): Selection {
    this.#selections.set(key, sel);
    while (this.#selections.size > KEEP_SELECTIONS) this.#selections.delete(this.#selections.keys().next().value!);
    return sel;
  }

  /** Writes the rows of order[from…to) that the query shows into `out` from `k` on; returns the next k. */
  #keep(order: Uint32Array, from: number, to: number, showHidden: boolean, terms: string[], search: string[] | null, out: Uint32Array, k: number): number {
    const hidden = this.cols.hidden;
    for (let j = from; j < to; j++) {
      const i = order[j]!;
      if (!showHidden && hidden[i]) continue;
      if (search !== null) {
        const s = search[i]!;
        let ok = true;
        for (const t of terms) {
          if (!s.includes(t)) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
      }
      out[k++] = i;
    }
    return k;
  }

  /**
   * A filter's selection made in slices (prepare; its order and the search keys are made): the pass
   * over the rows and the sums of those it keeps, a turn of the event loop whenever SLICE_MS have passed.
   */
  async #makeSelection(query: BalanceQuery, terms: string[], key: string): Promise<void> {
    const order = this.#order(query.sort, query.dir);
    const search = this.#searchKeys();
    const out = new Uint32Array(order.length);
    let t = performance.now();
    const pace = async (): Promise<void> => {
      if (performance.now() - t < SLICE_MS) return;
      await turn();
      t = performance.now();
    };
    let k = 0;
    for (let from = 0; from < order.length; from += RUN) {
      k = this.#keep(order, from, Math.min(from + RUN, order.length), query.showHidden, terms, search, out, k);
      await pace();
    }
    const rows = out.slice(0, k);
    let sums = NO_SUMS;
    for (let from = 0; from < rows.length; from += RUN) {
      sums = plus(sums, sumsOf(this.cols, rows.subarray(from, from + RUN)));
      await pace();
    }
    if (!this.#selections.has(key)) this.#keepSelection(key, { rows, totals: rows.length === this.n ? this.allTotals : wireTotals(sums) });
  }

  /** Every row in the order of `sort` (made in one go when prepare did not make it). */
  #order(sort: SortKey, dir: SortDir): Uint32Array {
    const kept = this.#orders.get(`${sort}:${dir}`);
    if (kept !== undefined) return kept;
    const idx = this.#identity();
    if (sort === 'address') {
      if (dir === 'desc') idx.reverse();
    } else idx.sort(this.#comparator(sort, dir));
    this.#orders.set(`${sort}:${dir}`, idx);
    return idx;
  }

  /**
   * The same order made in slices: runs of RUN rows sorted, then merged pairwise, a turn of the event
   * loop whenever SLICE_MS have passed. The comparator is a total order (ties by row), so the result
   * is the one sort() gives.
   */
  async #makeOrder(sort: SortKey, dir: SortDir): Promise<void> {
    if (sort === 'address') {
      this.#order(sort, dir);
      return;
    }
    if (sort !== 'type') await this.#makeKeyValues(sort);
    const cmp = this.#comparator(sort, dir);
    const n = this.n;
    let src: Uint32Array = this.#identity();
    let t = performance.now();
    const pace = async (): Promise<void> => {
      if (performance.now() - t < SLICE_MS) return;
      await turn();
      t = performance.now();
    };
    for (let lo = 0; lo < n; lo += RUN) {
      src.subarray(lo, Math.min(lo + RUN, n)).sort(cmp);
      await pace();
    }
    let dst: Uint32Array = new Uint32Array(n);
    for (let width = RUN; width < n; width *= 2) {
      for (let lo = 0; lo < n; lo += 2 * width) {
        const mid = Math.min(lo + width, n);
        const hi = Math.min(lo + 2 * width, n);
        let i = lo;
        let j = mid;
        let k = lo;
        while (i < mid && j < hi) dst[k++] = cmp(src[i]!, src[j]!) <= 0 ? src[i++]! : src[j++]!;
        while (i < mid) dst[k++] = src[i++]!;
        while (j < hi) dst[k++] = src[j++]!;
        await pace();
      }
      [src, dst] = [dst, src];
    }
    this.#orders.set(`${sort}:${dir}`, src);
  }

  #identity(): Uint32Array {
    const idx = new Uint32Array(this.n);
    for (let i = 0; i < this.n; i++) idx[i] = i;
    return idx;
  }

  /** The order of `sort` as the renderer's sortRows: ties (and missing values) in address order — the rows' own order. */
  #comparator(sort: Exclude<SortKey, 'address'> | 'address', dir: SortDir): (a: number, b: number) => number {
    const sign = dir === 'asc' ? 1 : -1;
    if (sort === 'address') return (a, b) => sign * (a - b);
    if (sort === 'label' || sort === 'type') {
      const text = sort === 'label' ? this.#sortLabels() : this.cols.type;
      // Missing (no label) last in both directions; a < b on strings as the renderer compares them.
      return (a, b) => {
        const x = text[a] ?? null;
        const y = text[b] ?? null;
        if (x === null) return y === null ? a - b : 1;
        if (y === null) return -1;
        return (x < y ? -sign : x > y ? sign : 0) || a - b;
      };
    }
    const v = this.#numbers(sort);
    // NaN: missing, last in both directions (balance and UTXOs are never missing).
    return (a, b) => {
      const x = v[a]!;
      const y = v[b]!;
      if (Number.isNaN(x)) return Number.isNaN(y) ? a - b : 1;
      if (Number.isNaN(y)) return -1;
      return sign * (x - y) || a - b;
    };
  }

  /** A numeric sort key's values (NaN: missing). Amounts below 2^53, as every balance is. */
  #numbers(sort: NumericKey): Float64Array {
    let v = this.#values.get(sort);
    if (v === undefined) {
      v = new Float64Array(this.n);
      for (let i = 0; i < this.n; i++) v[i] = this.#numberOf(sort, i);
      this.#values.set(sort, v);
    }
    return v;
  }

  #numberOf(sort: NumericKey, i: number): number {
    const c = this.cols;
    let x: number | string | null;
    switch (sort) {
      case 'received':
        x = c.receivedSats[i] ?? null;
        break;
      case 'balance':
        x = c.balanceSats[i]!;
        break;
      case 'utxos':
        x = c.utxoCount[i]!;
        break;
      case 'confirmations':
        // As the table shows it: the youngest UTXO's, else the node's for the last receive.
        x = c.minConfirmations[i] ?? c.receivedConfirmations[i] ?? null;
        break;
      case 'activity':
        x = c.lastActivityHeight[i] ?? null;
        break;
    }
    return x === null ? NaN : Number(x);
  }

  /** Lowercased label for sorting (the local one, else the node's; an empty one is none): null when none. */
  #sortLabels(): Array<string | null> {
    if (this.#sortLabel === null) {
      const out = new Array<string | null>(this.n);
      for (let i = 0; i < this.n; i++) out[i] = this.#sortLabelOf(i);
      this.#sortLabel = out;
    }
    return this.#sortLabel;
  }

  #sortLabelOf(i: number): string | null {
    const label = this.cols.label[i] || this.cols.nodeLabel[i] || '';
    return label === '' ? null : label.toLowerCase();
  }

  /** A sort key's values made in slices before its comparator reads them (#makeOrder). */
  async #makeKeyValues(sort: Exclude<SortKey, 'address' | 'type'>): Promise<void> {
    const numeric: NumericKey | null = sort === 'label' ? null : sort;
    if (numeric === null ? this.#sortLabel !== null : this.#values.has(numeric)) return;
    const labels = numeric === null ? new Array<string | null>(this.n) : null;
    const v = new Float64Array(numeric === null ? 0 : this.n);
    let t = performance.now();
    for (let i = 0; i < this.n; i++) {
      if (numeric === null) labels![i] = this.#sortLabelOf(i);
      else v[i] = this.#numberOf(numeric, i);
      if ((i & 1023) === 1023 && performance.now() - t >= SLICE_MS) {
        await turn();
        t = performance.now();
      }
    }
    if (numeric === null) this.#sortLabel ??= labels;
    else if (!this.#values.has(numeric)) this.#values.set(numeric, v);
  }

  #searchKeys(): string[] {
    if (this.#search === null) {
      const out = new Array<string>(this.n);
      for (let i = 0; i < this.n; i++) out[i] = this.#searchKeyOf(i);
      this.#search = out;
    }
    return this.#search;
  }

  #searchKeyOf(i: number): string {
    const c = this.cols;
    return searchKey(c.label[i] || null, c.nodeLabel[i] || null, c.address[i]!, c.type[i]!);
  }

  /** The search keys made in slices (prepare). */
  async #makeSearchKeys(): Promise<void> {
    const out = new Array<string>(this.n);
    let t = performance.now();
    for (let i = 0; i < this.n; i++) {
      out[i] = this.#searchKeyOf(i);
      if ((i & 1023) === 1023 && performance.now() - t >= SLICE_MS) {
        await turn();
        t = performance.now();
      }
    }
    this.#search ??= out;
  }

  #slice(rows: Uint32Array, from: number, to: number): BalanceColumns {
    const out = {} as Record<string, unknown[]>;
    const src = this.cols as unknown as Record<string, unknown[]>;
    for (const f of BALANCE_FIELDS) {
      const col = src[f]!;
      const a = new Array<unknown>(to - from);
      for (let j = from; j < to; j++) a[j - from] = col[rows[j]!];
      out[f] = a;
    }
    return out as unknown as BalanceColumns;
  }
}
