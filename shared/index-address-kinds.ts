// The address kinds a bitaps-style index looks up (spec index-api §6); any other (pay-to-anchor, a
// future segwit version) is answered 400 "invalid address". Main checks added addresses against
// them; the messages and the add dialog name them.
export const INDEX_ADDRESS_KINDS = ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'] as const;

const names = INDEX_ADDRESS_KINDS.map((k) => k.toUpperCase());

/** "P2PKH, P2SH, P2WPKH, P2WSH and P2TR". */
export const INDEX_ADDRESS_KINDS_TEXT = `${names.slice(0, -1).join(', ')} and ${names.slice(-1).join('')}`;
