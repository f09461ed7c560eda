/** The order of Core's address book (std::map<CTxDestination>): by destination kind, then bytes. */
import type { Destination } from '../../shared/bitcoin/address';

/** CTxDestination variant order in Core (addresstype.h), used for address book ordering. */
const DEST_ORDER: Record<Destination['type'], number> = {
  pubkey: 1,
  pkhash: 2,
  scripthash: 3,
  witness_v0_scripthash: 4,
  witness_v0_keyhash: 5,
  witness_v1_taproot: 6,
  anchor: 7,
  witness_unknown: 8,
};

function destBytes(d: Destination): Uint8Array {
  switch (d.type) {
    case 'pkhash':
    case 'scripthash':
      return d.hash;
    case 'pubkey':
      return d.pubkey;
    case 'anchor':
      return new Uint8Array(0);
    case 'witness_unknown':
      return Uint8Array.from([d.version, ...d.program]);
    default:
      return d.program;
  }
}

export function compareDestinations(a: Destination, b: Destination): number {
  const t = DEST_ORDER[a.type] - DEST_ORDER[b.type];
  if (t !== 0) return t;
  const x = destBytes(a);
  const y = destBytes(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
