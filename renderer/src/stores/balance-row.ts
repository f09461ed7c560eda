// A balances row as the Balances table uses it (BalanceRow: the wire row plus values derived on first
// use), made from an overview's columns, and the words the filter finds an address type by.
// Kept out of the store (stores/watch.ts) so that the table's pure operations (balance-table.ts) and
// the tests use them without a Pinia store.
import type { BalanceColumns, BalanceRowView } from '../../../shared/ipc/contract';
import { searchKey } from '../../../shared/balance-query';

/**
 * A balances row as the table uses it: the wire row plus derived values. Those are computed on
 * first use and kept (an overview has 10,000+ rows; parsing every amount and lowercasing every label
 * before the first screenful is painted would cost more than the rendering): amounts are parsed
 * for the rows shown and for totals, the search key on the first filter keystroke (or when the
 * page is idle, warmSearchKeys), the sort label when sorting by label.
 */
export class BalanceRow implements BalanceRowView {
  #received: bigint | null | undefined = undefined;
  #balance: bigint | undefined = undefined;
  #search: string | undefined = undefined;
  #sortLabel: string | undefined = undefined;
  readonly label: string | null;
  readonly nodeLabel: string | null;

  constructor(
    readonly address: string,
    readonly type: string,
    readonly source: BalanceRowView['source'],
    readonly hidden: boolean,
    nodeLabel: string | null,
    label: string | null,
    readonly receivedSats: string | null,
    readonly receivedConfirmations: number | null,
    readonly receivedTxCount: number | null,
    readonly balanceSats: string,
    readonly pendingTrustedSats: string | null,
    readonly pendingUntrustedSats: string | null,
    readonly pendingCount: number | null,
    readonly utxoCount: number,
    readonly minConfirmations: number | null,
    readonly lastActivityHeight: number | null,
    readonly fetchState: BalanceRowView['fetchState'],
    readonly fetchedAt: string | null,
    readonly errorCode: string | null,
  ) {
    // An empty label is no label.
    this.label = label === '' ? null : label;
    this.nodeLabel = nodeLabel === '' ? null : nodeLabel;
  }

  get received(): bigint | null {
    if (this.#received === undefined) this.#received = this.receivedSats === null ? null : BigInt(this.receivedSats);
    return this.#received;
  }

  get balance(): bigint {
    if (this.#balance === undefined) this.#balance = BigInt(this.balanceSats);
    return this.#balance;
  }

  /** The node wallet's unconfirmed coins at the address (own change and from others); null: not known. */
  get pending(): bigint | null {
    if (this.pendingTrustedSats === null || this.pendingUntrustedSats === null) return null;
    return BigInt(this.pendingTrustedSats) + BigInt(this.pendingUntrustedSats);
  }

  /** Confirmations shown: the youngest UTXO's, else the node's for the last receive. */
  get confirmations(): number | null {
    return this.minConfirmations ?? this.receivedConfirmations;
  }

  /** Lowercased "label \0 node label \0 address \0 type names": what the filter matches. */
  get search(): string {
    if (this.#search === undefined) this.#search = searchKey(this.label, this.nodeLabel, this.address, this.type);
    return this.#search;
  }

  /** Lowercased label used for sorting (the local one, else the node's); '' when none. */
  get sortLabel(): string {
    if (this.#sortLabel === undefined) this.#sortLabel = (this.label ?? this.nodeLabel ?? '').toLowerCase();
    return this.#sortLabel;
  }

  /** The wire row (for a changed copy: prepareRow({ ...row.view(), label })). */
  view(): BalanceRowView {
    return {
      address: this.address,
      type: this.type,
      source: this.source,
      hidden: this.hidden,
      nodeLabel: this.nodeLabel,
      label: this.label,
      receivedSats: this.receivedSats,
      receivedConfirmations: this.receivedConfirmations,
      receivedTxCount: this.receivedTxCount,
      balanceSats: this.balanceSats,
      pendingTrustedSats: this.pendingTrustedSats,
      pendingUntrustedSats: this.pendingUntrustedSats,
      pendingCount: this.pendingCount,
      utxoCount: this.utxoCount,
      minConfirmations: this.minConfirmations,
      lastActivityHeight: this.lastActivityHeight,
      fetchState: this.fetchState,
      fetchedAt: this.fetchedAt,
      errorCode: this.errorCode,
    };
  }
}

export function prepareRow(v: BalanceRowView): BalanceRow {
  return new BalanceRow(
    v.address, v.type, v.source, v.hidden, v.nodeLabel, v.label, v.receivedSats, v.receivedConfirmations, v.receivedTxCount,
    v.balanceSats, v.pendingTrustedSats, v.pendingUntrustedSats, v.pendingCount, v.utxoCount, v.minConfirmations, v.lastActivityHeight, v.fetchState, v.fetchedAt, v.errorCode,
  );
}

/** The rows of an overview's columns, as prepareRow makes them (no intermediate row objects). */
export function prepareColumns(c: BalanceColumns): BalanceRow[] {
  const n = c.address.length;
  const out = new Array<BalanceRow>(n);
  for (let i = 0; i < n; i++) {
    out[i] = new BalanceRow(
      c.address[i]!, c.type[i]!, c.source[i]!, c.hidden[i]!, c.nodeLabel[i] ?? null, c.label[i] ?? null, c.receivedSats[i] ?? null,
      c.receivedConfirmations[i] ?? null, c.receivedTxCount[i] ?? null, c.balanceSats[i]!, c.pendingTrustedSats[i] ?? null,
      c.pendingUntrustedSats[i] ?? null, c.pendingCount[i] ?? null, c.utxoCount[i]!, c.minConfirmations[i] ?? null,
      c.lastActivityHeight[i] ?? null, c.fetchState[i]!, c.fetchedAt[i] ?? null, c.errorCode[i] ?? null,
    );
  }
  return out;
}

// What the filter finds an address type by (shared with main, which filters a large wallet's rows).
export { TYPE_SEARCH_WORDS, typeSearchText } from '../../../shared/balance-query';

/** Computes the search keys of `rows` ahead of the first filter keystroke. */
export function warmSearchKeys(rows: readonly BalanceRow[]): void {
  for (const r of rows) void r.search;
}
