/**
 * Public BIP32 children of many parents over a range of indices at once (CKDpub's last,
 * unhardened step): one HMAC-SHA512 per child (hmac512.ts), then every IL·G + parent of the batch
 * together (ec-batch.ts). Shared by the fixed wallet shapes (derive.ts) and policy wallets
 * (policy-derive.ts). Public data only.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { mulGAdd } from './ec-batch';
import { ffromBytes, LIMBS, type Fe } from './field';
import { Hmac512For37 } from './hmac512';

const CURVE_N = secp256k1.Point.CURVE().n;
export const N_BYTES = ((): Uint8Array => {
  const b = new Uint8Array(32);
  let n = CURVE_N;
  for (let i = 31; i >= 0; i--, n >>= 8n) b[i] = Number(n & 0xffn);
  return b;
})();

/** a (32 bytes at off) is a valid scalar: 0 < a < n. */
export function validScalar(a: Uint8Array, off: number): boolean {
  let zero = true;
  for (let i = 0; i < 32; i++) if (a[off + i] !== 0) zero = false;
  if (zero) return false;
  for (let i = 0; i < 32; i++) {
    const d = a[off + i]! - N_BYTES[i]!;
    if (d !== 0) return d < 0;
  }
  return false;
}

/** A parent key ready for batched CKDpub: its compressed key, affine coordinates, keyed HMAC. */
export interface ParentKey {
  pubkey: Uint8Array;
  x: Fe;
  y: Fe;
  hmac: Hmac512For37;
}

/** The affine coordinates of a compressed or uncompressed public key, as field elements. */
export function affineOf(pubkey: Uint8Array): { x: Fe; y: Fe } {
  const aff = secp256k1.Point.fromBytes(pubkey).toAffine();
  const xb = new Uint8Array(32);
  const yb = new Uint8Array(32);
  for (let i = 31, v = aff.x; i >= 0; i--, v >>= 8n) xb[i] = Number(v & 0xffn);
  for (let i = 31, v = aff.y; i >= 0; i--, v >>= 8n) yb[i] = Number(v & 0xffn);
  const x = new Float64Array(LIMBS);
  const y = new Float64Array(LIMBS);
  ffromBytes(x, 0, xb);
  ffromBytes(y, 0, yb);
  return { x, y };
}

export function parentKey(pubkey: Uint8Array, chainCode: Uint8Array): ParentKey {
  return { pubkey, ...affineOf(pubkey), hmac: new Hmac512For37(chainCode) };
}

/**
 * The children start … start+count−1 of every parent: element e = k·count + j (parent k, index
 * start+j) at e·LIMBS of the returned x/y (reduced; read with ftoBytes). Throws on BIP32's invalid
 * child (IL ≥ n or zero), naming the key (1-based) and the index.
 */
export function deriveChildren(parents: readonly ParentKey[], start: number, count: number): { x: Fe; y: Fe } {
  const n = parents.length * count;
  const scalars = new Uint8Array(n * 32);
  const ax = new Float64Array(n * LIMBS);
  const ay = new Float64Array(n * LIMBS);
  const msg = new Uint8Array(37);
  parents.forEach((k, ki) => {
    msg.set(k.pubkey, 0);
    for (let j = 0; j < count; j++) {
      const i = start + j;
      msg[33] = i >>> 24;
      msg[34] = (i >>> 16) & 0xff;
      msg[35] = (i >>> 8) & 0xff;
      msg[36] = i & 0xff;
      const e = ki * count + j;
      k.hmac.il(msg, 0, scalars, e * 32);
      if (!validScalar(scalars, e * 32)) throw new Error(`Cannot derive key ${ki + 1} at index ${i} (BIP32: invalid child)`);
      ax.set(k.x, e * LIMBS);
      ay.set(k.y, e * LIMBS);
    }
  });
  const x = new Float64Array(n * LIMBS);
  const y = new Float64Array(n * LIMBS);
  if (n > 0) mulGAdd(n, scalars, ax, ay, x, y);
  return { x, y };
}
