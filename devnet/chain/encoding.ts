/** Byte helpers for the devnet chain: hash byte order and BIP34 height pushes. */
import { bytesToHex, hexToBytes, concatBytes } from '@noble/hashes/utils.js';
export { sha256d } from '../../shared/bitcoin/tx';

/** Display hex (reversed) of an internal-order hash. */
export function hashToHex(h: Uint8Array): string {
  return bytesToHex(Uint8Array.from(h).reverse());
}

/** Internal-order bytes of a display-hex hash. */
export function hexToHash(hex: string): Uint8Array {
  return hexToBytes(hex).reverse();
}

export { bytesToHex, hexToBytes, concatBytes };

/** Minimal script push of a non-negative integer (CScript << n, as in BIP34 heights). */
export function scriptNumPush(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00);
  if (n >= 1 && n <= 16) return Uint8Array.of(0x50 + n);
  const bytes: number[] = [];
  let v = n;
  while (v > 0) {
    bytes.push(v & 0xff);
    v = Math.floor(v / 256);
  }
  if ((bytes[bytes.length - 1]! & 0x80) !== 0) bytes.push(0);
  return Uint8Array.from([bytes.length, ...bytes]);
}
