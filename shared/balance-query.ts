// What the Balances table is sorted and filtered by, shared by main (which sorts, filters and pages
// the rows of a large wallet, electron/main/store/overview-model.ts) and the renderer (which does it
// itself for a small one, renderer/src/stores/balance-table.ts): the sort keys, and the text a row's
// filter matches — both sides must agree exactly, or a page from main would differ from the rows the
// renderer would have shown.

export type SortKey = 'label' | 'address' | 'type' | 'received' | 'balance' | 'utxos' | 'confirmations' | 'activity';
export type SortDir = 'asc' | 'desc';

export const SORT_KEYS = ['label', 'address', 'type', 'received', 'balance', 'utxos', 'confirmations', 'activity'] as const satisfies readonly SortKey[];

/** Address types as people call them (the Type column). */
export const ADDRESS_TYPES: Record<string, string> = {
  p2pkh: 'P2PKH',
  p2sh: 'P2SH',
  p2wpkh: 'P2WPKH',
  p2wsh: 'P2WSH',
  p2tr: 'P2TR',
  unknown: 'Other',
};

export function addressType(type: string): string {
  return ADDRESS_TYPES[type] ?? type.toUpperCase();
}

/**
 * What the filter finds an address type by: the name in the Type column and the words wallets use
 * for it (Sparrow, Electrum: "native segwit", "taproot", "legacy"), e.g. "p2wpkh native segwit".
 */
export const TYPE_SEARCH_WORDS: Record<string, string> = {
  p2pkh: 'legacy',
  p2sh: 'script hash',
  p2wpkh: 'native segwit v0',
  p2wsh: 'native segwit v0 script',
  p2tr: 'taproot segwit v1',
};

export function typeSearchText(type: string): string {
  const words = TYPE_SEARCH_WORDS[type];
  return words ? `${addressType(type)} ${words}` : addressType(type);
}

/** Lowercased "label \0 node label \0 address \0 type names": what the filter matches (an empty label is none). */
export function searchKey(label: string | null, nodeLabel: string | null, address: string, type: string): string {
  return `${label ?? ''}\u0000${nodeLabel ?? ''}\u0000${address}\u0000${typeSearchText(type)}`.toLowerCase();
}

/** Whitespace-separated terms, lowercased; a row must contain every one. */
export function filterTerms(text: string): string[] {
  return text.trim().toLowerCase().split(/\s+/).filter((t) => t !== '');
}
