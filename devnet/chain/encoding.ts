/** Byte helpers for the devnet chain: double-SHA256, little-endian writers, compact sizes. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

export function sha256d(b: Uint8Array): Uint8Array {
  return sha256(sha256(b));
}

/** Display hex (reversed) of an internal-order hash. */
export function hashToHex(h: Uint8Array): string {
  return bytesToHex(Uint8Array.from(h).reverse());
}

/** Internal-order bytes of a display-hex hash. */
export function hexToHash(hex: string): Uint8Array {
  return hexToBytes(hex).reverse();
}

export { bytesToHex, hexToBytes };

export class Writer {
  private chunks: Uint8Array[] = [];
  private len = 0;

  bytes(b: Uint8Array): this {
    this.chunks.push(b);
    this.len += b.length;
    return this;
  }
  u8(n: number): this {
    return this.bytes(Uint8Array.of(n & 0xff));
  }
  u32(n: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n >>> 0, true);
    return this.bytes(b);
  }
  i32(n: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, n | 0, true);
    return this.bytes(b);
  }
  u64(n: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, n, true);
    return this.bytes(b);
  }
  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) {
      const b = new Uint8Array(3);
      b[0] = 0xfd;
      new DataView(b.buffer).setUint16(1, n, true);
      return this.bytes(b);
    }
    if (n <= 0xffffffff) {
      const b = new Uint8Array(5);
      b[0] = 0xfe;
      new DataView(b.buffer).setUint32(1, n, true);
      return this.bytes(b);
    }
    const b = new Uint8Array(9);
    b[0] = 0xff;
    new DataView(b.buffer).setBigUint64(1, BigInt(n), true);
    return this.bytes(b);
  }
  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }
  finish(): Uint8Array {
    const out = new Uint8Array(this.len);
    let off = 0;
    for (const c of this.chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
}

export function compactSizeBytes(n: number): Uint8Array {
  return new Writer().compactSize(n).finish();
}

/** Minimal script push of a small non-negative integer (CScript << n, as in BIP34 heights). */
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

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const w = new Writer();
  for (const p of parts) w.bytes(p);
  return w.finish();
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
