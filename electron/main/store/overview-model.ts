// A large wallet's balances rows held in main, sorted, filtered and paged there (`watch:overview-page`):
// the renderer asks for the rows it shows instead of receiving 100,000 rows × 19 columns at once.
//
// Built once per version of the data (store/overview.ts reads the columns), then per query: the rows'
// order for a sort (an index list, kept per sort key and direction), the rows a filter keeps of it (the
// last few queries kept), and their totals. The order and the filter are exactly the renderer's
// (renderer/src/stores/balance-table.ts sortRows / filterRows, over the same search key from
// shared/balance-query.ts); test/main/overview-page.test.ts compares them on 20,000+ rows.
import { filterTerms, searchKey, type SortDir, type SortKey } from '../../../shared/balance-query';
import type { BalanceColumns, BalancePage, BalanceQuery, BalanceTotals } from '../../../shared/ipc/contract';
import { BALANCE_FIELDS } from '../../../shared/ipc/balance-columns';

interface Selection {
  rows: Uint32Array;
  totals: BalanceTotals;
}

/** How many filtered selections are kept (the query typed last, and a few before it: backspace, sort back). */
const KEEP_SELECTIONS = 6;

export class OverviewModel {
  readonly version: string;
  readonly cols: BalanceColumns;
  readonly n: number;
  readonly hiddenRows: number;
  readonly allTotals: BalanceTotals;
  /** Totals of the rows that are not hidden (what `watch:overview` has always answered). */
  readonly shownTotals: BalanceTotals;
  readonly #orders = new Map<string, Uint32Array>();
  readonly #selections = new Map<string, Selection>();
  #search: string[] | null = null;
  #sortLabel: Array<string | null> | null = null;

  constructor(version: string, cols: BalanceColumns) {
    this.version = version;
    this.cols = cols;
    this.n = cols.address.length;
    const all = new Uint32Array(this.n);
    let hidden = 0;
    for (let i = 0; i < this.n; i++) {
      all[i] = i;
      if (cols.hidden[i]) hidden++;
    }
    this.hiddenRows = hidden;
    this.allTotals = this.#totals(all);
    this.shownTotals = hidden === 0 ? this.allTotals : this.#totals(all.filter((i) => !cols.hidden[i]));
  }

  /** Rows `from`… (at most `count`) of `query`, with the count and totals of every row it matches. */
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
    const key = `${query.sort}:${query.dir}:${query.showHidden ? 1 : 0}:${terms.join(' ')}`;
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
      const search = terms.length > 0 ? this.#searchKeys() : null;
      const hidden = this.cols.hidden;
      const out = new Uint32Array(order.length);
      let k = 0;
      for (let j = 0; j < order.length; j++) {
        const i = order[j]!;
        if (!query.showHidden && hidden[i]) continue;
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
      rows = out.slice(0, k);
    }
    const sel: Selection = { rows, totals: rows.length === this.n ? this.allTotals : !query.showHidden && terms.length === 0 ? this.shownTotals : this.#totals(rows) };
    this.#selections.set(key, sel);
    while (this.#selections.size > KEEP_SELECTIONS) this.#selections.delete(this.#selections.keys().next().value!);
    return sel;
  }

  /** Every row in the order of `sort`: ties (and missing values) in address order — the rows' own order. */
  #order(sort: SortKey, dir: SortDir): Uint32Array {
    const key = `${sort}:${dir}`;
    const kept = this.#orders.get(key);
    if (kept !== undefined) return kept;
    const c = this.cols;
    const n = this.n;
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    const sign = dir === 'asc' ? 1 : -1;
    if (sort === 'address') {
      if (dir === 'desc') idx.reverse();
    } else if (sort === 'label' || sort === 'type') {
      const text = sort === 'label' ? this.#sortLabels() : c.type;
      // Missing (no label) last in both directions; a < b on strings as the renderer compares them.
      idx.sort((a, b) => {
        const x = text[a] ?? null;
        const y = text[b] ?? null;
        if (x === null) return y === null ? a - b : 1;
        if (y === null) return -1;
        return (x < y ? -sign : x > y ? sign : 0) || a - b;
      });
    } else {
      const v = this.#numbers(sort);
      // NaN: missing, last in both directions (balance and UTXOs are never missing).
      idx.sort((a, b) => {
        const x = v[a]!;
        const y = v[b]!;
        if (Number.isNaN(x)) return Number.isNaN(y) ? a - b : 1;
        if (Number.isNaN(y)) return -1;
        return sign * (x - y) || a - b;
      });
    }
    this.#orders.set(key, idx);
    return idx;
  }

  /** A numeric sort key's values (NaN: missing). Amounts below 2^53, as every balance is. */
  #numbers(sort: 'received' | 'balance' | 'utxos' | 'confirmations' | 'activity'): Float64Array {
    const c = this.cols;
    const v = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) {
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
      v[i] = x === null ? NaN : Number(x);
    }
    return v;
  }

  /** Lowercased label for sorting (the local one, else the node's; an empty one is none): null when none. */
  #sortLabels(): Array<string | null> {
    if (this.#sortLabel === null) {
      const c = this.cols;
      const out = new Array<string | null>(this.n);
      for (let i = 0; i < this.n; i++) {
        const label = c.label[i] || c.nodeLabel[i] || '';
        out[i] = label === '' ? null : label.toLowerCase();
      }
      this.#sortLabel = out;
    }
    return this.#sortLabel;
  }

  #searchKeys(): string[] {
    if (this.#search === null) {
      const c = this.cols;
      const out = new Array<string>(this.n);
      for (let i = 0; i < this.n; i++) out[i] = searchKey(c.label[i] || null, c.nodeLabel[i] || null, c.address[i]!, c.type[i]!);
      this.#search = out;
    }
    return this.#search;
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

  /**
   * Totals of `rows`, as the renderer's totalsOf and the overview's totals make them: sums as numbers
   * while exact (every term non-negative, so every partial sum below 2^53 is exact), else again as bigint.
   */
  #totals(rows: Uint32Array): BalanceTotals {
    const c = this.cols;
    let received = 0;
    let balance = 0;
    let pendingTrusted = 0;
    let pendingUntrusted = 0;
    let pendingUnknown = 0;
    let utxos = 0;
    for (let j = 0; j < rows.length; j++) {
      const i = rows[j]!;
      const rec = c.receivedSats[i];
      if (rec !== null && rec !== undefined) received += Number(rec);
      balance += Number(c.balanceSats[i]);
      const pt = c.pendingTrustedSats[i];
      const pu = c.pendingUntrustedSats[i];
      if (pt === null || pu === null || pt === undefined || pu === undefined) pendingUnknown++;
      else {
        pendingTrusted += Number(pt);
        pendingUntrusted += Number(pu);
      }
      utxos += c.utxoCount[i]!;
    }
    const exact = (sum: number, col: Array<string | null>): string => {
      if (Number.isSafeInteger(sum)) return String(sum);
      let t = 0n;
      for (let j = 0; j < rows.length; j++) t += BigInt(col[rows[j]!] ?? '0');
      return t.toString();
    };
    const balanceSats = exact(balance, c.balanceSats);
    const pendingTrustedSats = exact(pendingTrusted, c.pendingTrustedSats);
    return {
      receivedSats: exact(received, c.receivedSats),
      balanceSats,
      pendingTrustedSats,
      pendingUntrustedSats: exact(pendingUntrusted, c.pendingUntrustedSats),
      trustedSats: (BigInt(balanceSats) + BigInt(pendingTrustedSats)).toString(),
      pendingUnknown,
      utxoCount: utxos,
      addresses: rows.length,
    };
  }
}
