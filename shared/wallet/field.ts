/**
 * Arithmetic modulo the secp256k1 field prime p = 2^256 − 2^32 − 977 on plain JavaScript numbers,
 * for deriving many public keys fast (BigInt arithmetic costs ~1 µs a multiplication; this ~0.1 µs).
 *
 * An element is 11 limbs of 24 bits held in doubles (a Float64Array at an offset), value < 2^264,
 * not necessarily below p. Results of every operation have limbs below 2^24 except limb 3, which
 * may exceed it by a few units. A multiplication takes one such factor and one whose limbs are
 * below 2^25.1 in absolute value (ec-batch.ts feeds it uncarried differences): each column then
 * sums at most 11 products below 2^49.1, and with the folds stays below 2^53, so everything is
 * exact in doubles. 2^264 ≡ 2^40 + 250112 (mod p) folds the top down.
 *
 * Only public data goes through here (public keys, public derivation): none of this is
 * constant-time, on purpose.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { B, IB, LIMBS, limbsOf, P512, R0, R1, type Fe } from './field-mul';

export { fmul, fmulSub, fsqr, fsqrSub2, LIMBS, type Fe } from './field-mul';

const Fp = secp256k1.Point.Fp;

/**
 * Carries o[oi..oi+10] in place: any limbs with |limb| < 2^50 whose value is ≥ 0 and below
 * 2^267 become limbs < 2^24 (limb 3 a few units more), the value reduced below 2^264 + 2^44.
 */
export function fcarry(o: Fe, oi: number): void {
  let c0 = o[oi + 0]!, c1 = o[oi + 1]!, c2 = o[oi + 2]!, c3 = o[oi + 3]!, c4 = o[oi + 4]!, c5 = o[oi + 5]!, c6 = o[oi + 6]!, c7 = o[oi + 7]!, c8 = o[oi + 8]!, c9 = o[oi + 9]!, c10 = o[oi + 10]!;
  let t: number;
  t = Math.floor(c0 * IB); c0 -= t * B; c1 += t;
  t = Math.floor(c1 * IB); c1 -= t * B; c2 += t;
  t = Math.floor(c2 * IB); c2 -= t * B; c3 += t;
  t = Math.floor(c3 * IB); c3 -= t * B; c4 += t;
  t = Math.floor(c4 * IB); c4 -= t * B; c5 += t;
  t = Math.floor(c5 * IB); c5 -= t * B; c6 += t;
  t = Math.floor(c6 * IB); c6 -= t * B; c7 += t;
  t = Math.floor(c7 * IB); c7 -= t * B; c8 += t;
  t = Math.floor(c8 * IB); c8 -= t * B; c9 += t;
  t = Math.floor(c9 * IB); c9 -= t * B; c10 += t;
  t = Math.floor(c10 * IB); c10 -= t * B;
  // t·2^264 (t ≥ 0, small)
  c0 += t * R0; c1 += t * R1;
  t = Math.floor(c0 * IB); c0 -= t * B; c1 += t;
  t = Math.floor(c1 * IB); c1 -= t * B; c2 += t;
  t = Math.floor(c2 * IB); c2 -= t * B; c3 += t;
  o[oi + 0] = c0;
  o[oi + 1] = c1;
  o[oi + 2] = c2;
  o[oi + 3] = c3;
  o[oi + 4] = c4;
  o[oi + 5] = c5;
  o[oi + 6] = c6;
  o[oi + 7] = c7;
  o[oi + 8] = c8;
  o[oi + 9] = c9;
  o[oi + 10] = c10;
}

/** o = a + b. */
export function fadd(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number): void {
  for (let i = 0; i < LIMBS; i++) o[oi + i] = a[ai + i]! + b[bi + i]!;
  fcarry(o, oi);
}

/** o = a − b (mod p). */
export function fsub(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number): void {
  for (let i = 0; i < LIMBS; i++) o[oi + i] = a[ai + i]! - b[bi + i]! + P512[i]!;
  fcarry(o, oi);
}

/** o = −a (mod p). */
export function fneg(o: Fe, oi: number, a: Fe, ai: number): void {
  fsub(o, oi, ZERO, 0, a, ai);
}

const ZERO = new Float64Array(LIMBS);

/** Copies element a to o. */
export function fcopy(o: Fe, oi: number, a: Fe, ai: number): void {
  for (let i = 0; i < LIMBS; i++) o[oi + i] = a[ai + i]!;
}

/** Rewrites the element at o[oi] as its unique representative in [0, p), limbs < 2^24. */
export function fcanon(o: Fe, oi: number): void {
  const c = CANON;
  for (let i = 0; i < LIMBS; i++) c[i] = o[oi + i]!;
  // bits ≥ 256 (limb 10 holds bits 240..263): q·2^256 ≡ q·(2^32 + 977); at most two rounds
  for (let round = 0; round < 3; round++) {
    ripple(c);
    const q = Math.floor(c[10]! / 65536);
    if (q === 0) break;
    c[10] = c[10]! - q * 65536;
    c[0] = c[0]! + q * 977;
    c[1] = c[1]! + q * 256;
  }
  // value < 2^256 now; subtract p when value + (2^32 + 977) reaches 2^256
  const w = CANON_P;
  for (let i = 0; i < LIMBS; i++) w[i] = c[i]!;
  w[0] = w[0]! + 977;
  w[1] = w[1]! + 256;
  ripple(w);
  const src = w[10]! >= 65536 ? w : c;
  if (src === w) w[10] = w[10]! - 65536;
  for (let i = 0; i < LIMBS; i++) o[oi + i] = src[i]!;
}

const CANON = new Float64Array(LIMBS);
const CANON_P = new Float64Array(LIMBS);

/** Carries limbs 0..9 upward (nonnegative values). */
function ripple(c: Fe): void {
  for (let i = 0; i < LIMBS - 1; i++) {
    const t = Math.floor(c[i]! * IB);
    c[i] = c[i]! - t * B;
    c[i + 1] = c[i + 1]! + t;
  }
}

/** Whether the element is 0 mod p (canonicalizes a copy). */
export function fisZero(a: Fe, ai: number): boolean {
  const t = new Float64Array(LIMBS);
  fcopy(t, 0, a, ai);
  fcanon(t, 0);
  for (let i = 0; i < LIMBS; i++) if (t[i] !== 0) return false;
  return true;
}

/** Sets o from 32 big-endian bytes (any 256-bit value). */
export function ffromBytes(o: Fe, oi: number, bytes: Uint8Array, off = 0): void {
  for (let k = 0; k < 10; k++) {
    const e = off + 31 - 3 * k; // least significant byte of limb k
    o[oi + k] = bytes[e]! + bytes[e - 1]! * 256 + bytes[e - 2]! * 65536;
  }
  o[oi + 10] = bytes[off + 1]! + bytes[off]! * 256;
}

/** Writes the canonical value of a (which it canonicalizes in place) as 32 big-endian bytes. */
export function ftoBytes(a: Fe, ai: number, out: Uint8Array, off = 0): void {
  fcanon(a, ai);
  for (let k = 0; k < 10; k++) {
    const v = a[ai + k]!;
    const e = off + 31 - 3 * k;
    out[e] = v & 0xff;
    out[e - 1] = (v >>> 8) & 0xff;
    out[e - 2] = v >>> 16;
  }
  const v = a[ai + 10]!;
  out[off + 1] = v & 0xff;
  out[off] = v >>> 8;
}

/** The element as a BigInt in [0, p). */
export function ftoBig(a: Fe, ai: number): bigint {
  const t = new Float64Array(LIMBS);
  fcopy(t, 0, a, ai);
  fcanon(t, 0);
  let x = 0n;
  for (let i = LIMBS - 1; i >= 0; i--) x = (x << 24n) | BigInt(t[i]!);
  return x;
}

/** Sets o from a BigInt in [0, p). */
export function ffromBig(o: Fe, oi: number, x: bigint): void {
  const l = limbsOf(Fp.create(x));
  fcopy(o, oi, l, 0);
}

/** o = a⁻¹ (mod p); returns false when a ≡ 0 (no inverse). */
export function finv(o: Fe, oi: number, a: Fe, ai: number): boolean {
  const x = ftoBig(a, ai);
  if (x === 0n) return false;
  ffromBig(o, oi, Fp.inv(x));
  return true;
}
