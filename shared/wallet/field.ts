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

/** Storage for field elements: element k of an array lives at offset 11·k. */
export type Fe = Float64Array;

/** Limbs per element. */
export const LIMBS = 11;

const B = 16777216; // 2^24
const IB = 1 / B;
/** 2^264 mod p = 2^40 + 250112: a limb h at 2^264 adds h·250112 at its place and h·2^16 one limb up. */
const R0 = 250112;
const R1 = 65536;

const Fp = secp256k1.Point.Fp;
const P = Fp.ORDER;

/** o = a·b (mod p). */
export function fmul(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number): void {
  const a0 = a[ai + 0]!, a1 = a[ai + 1]!, a2 = a[ai + 2]!, a3 = a[ai + 3]!, a4 = a[ai + 4]!, a5 = a[ai + 5]!, a6 = a[ai + 6]!, a7 = a[ai + 7]!, a8 = a[ai + 8]!, a9 = a[ai + 9]!, a10 = a[ai + 10]!;
  const b0 = b[bi + 0]!, b1 = b[bi + 1]!, b2 = b[bi + 2]!, b3 = b[bi + 3]!, b4 = b[bi + 4]!, b5 = b[bi + 5]!, b6 = b[bi + 6]!, b7 = b[bi + 7]!, b8 = b[bi + 8]!, b9 = b[bi + 9]!, b10 = b[bi + 10]!;
  let c0 = a0 * b0;
  let c1 = a0 * b1 + a1 * b0;
  let c2 = a0 * b2 + a1 * b1 + a2 * b0;
  let c3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  let c4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0;
  let c5 = a0 * b5 + a1 * b4 + a2 * b3 + a3 * b2 + a4 * b1 + a5 * b0;
  let c6 = a0 * b6 + a1 * b5 + a2 * b4 + a3 * b3 + a4 * b2 + a5 * b1 + a6 * b0;
  let c7 = a0 * b7 + a1 * b6 + a2 * b5 + a3 * b4 + a4 * b3 + a5 * b2 + a6 * b1 + a7 * b0;
  let c8 = a0 * b8 + a1 * b7 + a2 * b6 + a3 * b5 + a4 * b4 + a5 * b3 + a6 * b2 + a7 * b1 + a8 * b0;
  let c9 = a0 * b9 + a1 * b8 + a2 * b7 + a3 * b6 + a4 * b5 + a5 * b4 + a6 * b3 + a7 * b2 + a8 * b1 + a9 * b0;
  let c10 = a0 * b10 + a1 * b9 + a2 * b8 + a3 * b7 + a4 * b6 + a5 * b5 + a6 * b4 + a7 * b3 + a8 * b2 + a9 * b1 + a10 * b0;
  let c11 = a1 * b10 + a2 * b9 + a3 * b8 + a4 * b7 + a5 * b6 + a6 * b5 + a7 * b4 + a8 * b3 + a9 * b2 + a10 * b1;
  let c12 = a2 * b10 + a3 * b9 + a4 * b8 + a5 * b7 + a6 * b6 + a7 * b5 + a8 * b4 + a9 * b3 + a10 * b2;
  let c13 = a3 * b10 + a4 * b9 + a5 * b8 + a6 * b7 + a7 * b6 + a8 * b5 + a9 * b4 + a10 * b3;
  let c14 = a4 * b10 + a5 * b9 + a6 * b8 + a7 * b7 + a8 * b6 + a9 * b5 + a10 * b4;
  let c15 = a5 * b10 + a6 * b9 + a7 * b8 + a8 * b7 + a9 * b6 + a10 * b5;
  let c16 = a6 * b10 + a7 * b9 + a8 * b8 + a9 * b7 + a10 * b6;
  let c17 = a7 * b10 + a8 * b9 + a9 * b8 + a10 * b7;
  let c18 = a8 * b10 + a9 * b9 + a10 * b8;
  let c19 = a9 * b10 + a10 * b9;
  let c20 = a10 * b10;
  let t: number;
  // carry the high columns (weights 2^264 … 2^504) to 24-bit limbs; c21 takes the last carry
  t = Math.floor(c11 * IB); c11 -= t * B; c12 += t;
  t = Math.floor(c12 * IB); c12 -= t * B; c13 += t;
  t = Math.floor(c13 * IB); c13 -= t * B; c14 += t;
  t = Math.floor(c14 * IB); c14 -= t * B; c15 += t;
  t = Math.floor(c15 * IB); c15 -= t * B; c16 += t;
  t = Math.floor(c16 * IB); c16 -= t * B; c17 += t;
  t = Math.floor(c17 * IB); c17 -= t * B; c18 += t;
  t = Math.floor(c18 * IB); c18 -= t * B; c19 += t;
  t = Math.floor(c19 * IB); c19 -= t * B; c20 += t;
  t = Math.floor(c20 * IB); c20 -= t * B;
  const c21 = t;
  // 2^264 ≡ 2^40 + 250112: fold them onto the low columns (still exact: < 2^53)
  c0 += c11 * R0; c1 += c11 * R1;
  c1 += c12 * R0; c2 += c12 * R1;
  c2 += c13 * R0; c3 += c13 * R1;
  c3 += c14 * R0; c4 += c14 * R1;
  c4 += c15 * R0; c5 += c15 * R1;
  c5 += c16 * R0; c6 += c16 * R1;
  c6 += c17 * R0; c7 += c17 * R1;
  c7 += c18 * R0; c8 += c18 * R1;
  c8 += c19 * R0; c9 += c19 * R1;
  c9 += c20 * R0; c10 += c20 * R1;
  c10 += c21 * R0;
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
  t += c21 * R1;
  const hi = Math.floor(t * IB);
  const lo = t - hi * B;
  c0 += lo * R0; c1 += lo * R1 + hi * R0; c2 += hi * R1;
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

/** o = a² (mod p). */
export function fsqr(o: Fe, oi: number, a: Fe, ai: number): void {
  const a0 = a[ai + 0]!, a1 = a[ai + 1]!, a2 = a[ai + 2]!, a3 = a[ai + 3]!, a4 = a[ai + 4]!, a5 = a[ai + 5]!, a6 = a[ai + 6]!, a7 = a[ai + 7]!, a8 = a[ai + 8]!, a9 = a[ai + 9]!, a10 = a[ai + 10]!;
  const d0 = 2 * a0, d1 = 2 * a1, d2 = 2 * a2, d3 = 2 * a3, d4 = 2 * a4, d5 = 2 * a5, d6 = 2 * a6, d7 = 2 * a7, d8 = 2 * a8, d9 = 2 * a9;
  let c0 = a0 * a0;
  let c1 = d0 * a1;
  let c2 = d0 * a2 + a1 * a1;
  let c3 = d0 * a3 + d1 * a2;
  let c4 = d0 * a4 + d1 * a3 + a2 * a2;
  let c5 = d0 * a5 + d1 * a4 + d2 * a3;
  let c6 = d0 * a6 + d1 * a5 + d2 * a4 + a3 * a3;
  let c7 = d0 * a7 + d1 * a6 + d2 * a5 + d3 * a4;
  let c8 = d0 * a8 + d1 * a7 + d2 * a6 + d3 * a5 + a4 * a4;
  let c9 = d0 * a9 + d1 * a8 + d2 * a7 + d3 * a6 + d4 * a5;
  let c10 = d0 * a10 + d1 * a9 + d2 * a8 + d3 * a7 + d4 * a6 + a5 * a5;
  let c11 = d1 * a10 + d2 * a9 + d3 * a8 + d4 * a7 + d5 * a6;
  let c12 = d2 * a10 + d3 * a9 + d4 * a8 + d5 * a7 + a6 * a6;
  let c13 = d3 * a10 + d4 * a9 + d5 * a8 + d6 * a7;
  let c14 = d4 * a10 + d5 * a9 + d6 * a8 + a7 * a7;
  let c15 = d5 * a10 + d6 * a9 + d7 * a8;
  let c16 = d6 * a10 + d7 * a9 + a8 * a8;
  let c17 = d7 * a10 + d8 * a9;
  let c18 = d8 * a10 + a9 * a9;
  let c19 = d9 * a10;
  let c20 = a10 * a10;
  let t: number;
  // carry the high columns (weights 2^264 … 2^504) to 24-bit limbs; c21 takes the last carry
  t = Math.floor(c11 * IB); c11 -= t * B; c12 += t;
  t = Math.floor(c12 * IB); c12 -= t * B; c13 += t;
  t = Math.floor(c13 * IB); c13 -= t * B; c14 += t;
  t = Math.floor(c14 * IB); c14 -= t * B; c15 += t;
  t = Math.floor(c15 * IB); c15 -= t * B; c16 += t;
  t = Math.floor(c16 * IB); c16 -= t * B; c17 += t;
  t = Math.floor(c17 * IB); c17 -= t * B; c18 += t;
  t = Math.floor(c18 * IB); c18 -= t * B; c19 += t;
  t = Math.floor(c19 * IB); c19 -= t * B; c20 += t;
  t = Math.floor(c20 * IB); c20 -= t * B;
  const c21 = t;
  // 2^264 ≡ 2^40 + 250112: fold them onto the low columns (still exact: < 2^53)
  c0 += c11 * R0; c1 += c11 * R1;
  c1 += c12 * R0; c2 += c12 * R1;
  c2 += c13 * R0; c3 += c13 * R1;
  c3 += c14 * R0; c4 += c14 * R1;
  c4 += c15 * R0; c5 += c15 * R1;
  c5 += c16 * R0; c6 += c16 * R1;
  c6 += c17 * R0; c7 += c17 * R1;
  c7 += c18 * R0; c8 += c18 * R1;
  c8 += c19 * R0; c9 += c19 * R1;
  c9 += c20 * R0; c10 += c20 * R1;
  c10 += c21 * R0;
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
  t += c21 * R1;
  const hi = Math.floor(t * IB);
  const lo = t - hi * B;
  c0 += lo * R0; c1 += lo * R1 + hi * R0; c2 += hi * R1;
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

/** o = a·b − c (mod p), one carry pass (c reduced). */
export function fmulSub(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number, c: Fe, ci: number): void {
  const a0 = a[ai + 0]!, a1 = a[ai + 1]!, a2 = a[ai + 2]!, a3 = a[ai + 3]!, a4 = a[ai + 4]!, a5 = a[ai + 5]!, a6 = a[ai + 6]!, a7 = a[ai + 7]!, a8 = a[ai + 8]!, a9 = a[ai + 9]!, a10 = a[ai + 10]!;
  const b0 = b[bi + 0]!, b1 = b[bi + 1]!, b2 = b[bi + 2]!, b3 = b[bi + 3]!, b4 = b[bi + 4]!, b5 = b[bi + 5]!, b6 = b[bi + 6]!, b7 = b[bi + 7]!, b8 = b[bi + 8]!, b9 = b[bi + 9]!, b10 = b[bi + 10]!;
  let c0 = a0 * b0 + P512[0]! - c[ci + 0]!;
  let c1 = a0 * b1 + a1 * b0 + P512[1]! - c[ci + 1]!;
  let c2 = a0 * b2 + a1 * b1 + a2 * b0 + P512[2]! - c[ci + 2]!;
  let c3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + P512[3]! - c[ci + 3]!;
  let c4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0 + P512[4]! - c[ci + 4]!;
  let c5 = a0 * b5 + a1 * b4 + a2 * b3 + a3 * b2 + a4 * b1 + a5 * b0 + P512[5]! - c[ci + 5]!;
  let c6 = a0 * b6 + a1 * b5 + a2 * b4 + a3 * b3 + a4 * b2 + a5 * b1 + a6 * b0 + P512[6]! - c[ci + 6]!;
  let c7 = a0 * b7 + a1 * b6 + a2 * b5 + a3 * b4 + a4 * b3 + a5 * b2 + a6 * b1 + a7 * b0 + P512[7]! - c[ci + 7]!;
  let c8 = a0 * b8 + a1 * b7 + a2 * b6 + a3 * b5 + a4 * b4 + a5 * b3 + a6 * b2 + a7 * b1 + a8 * b0 + P512[8]! - c[ci + 8]!;
  let c9 = a0 * b9 + a1 * b8 + a2 * b7 + a3 * b6 + a4 * b5 + a5 * b4 + a6 * b3 + a7 * b2 + a8 * b1 + a9 * b0 + P512[9]! - c[ci + 9]!;
  let c10 = a0 * b10 + a1 * b9 + a2 * b8 + a3 * b7 + a4 * b6 + a5 * b5 + a6 * b4 + a7 * b3 + a8 * b2 + a9 * b1 + a10 * b0 + P512[10]! - c[ci + 10]!;
  let c11 = a1 * b10 + a2 * b9 + a3 * b8 + a4 * b7 + a5 * b6 + a6 * b5 + a7 * b4 + a8 * b3 + a9 * b2 + a10 * b1;
  let c12 = a2 * b10 + a3 * b9 + a4 * b8 + a5 * b7 + a6 * b6 + a7 * b5 + a8 * b4 + a9 * b3 + a10 * b2;
  let c13 = a3 * b10 + a4 * b9 + a5 * b8 + a6 * b7 + a7 * b6 + a8 * b5 + a9 * b4 + a10 * b3;
  let c14 = a4 * b10 + a5 * b9 + a6 * b8 + a7 * b7 + a8 * b6 + a9 * b5 + a10 * b4;
  let c15 = a5 * b10 + a6 * b9 + a7 * b8 + a8 * b7 + a9 * b6 + a10 * b5;
  let c16 = a6 * b10 + a7 * b9 + a8 * b8 + a9 * b7 + a10 * b6;
  let c17 = a7 * b10 + a8 * b9 + a9 * b8 + a10 * b7;
  let c18 = a8 * b10 + a9 * b9 + a10 * b8;
  let c19 = a9 * b10 + a10 * b9;
  let c20 = a10 * b10;
  let t: number;
  // carry the high columns (weights 2^264 … 2^504) to 24-bit limbs; c21 takes the last carry
  t = Math.floor(c11 * IB); c11 -= t * B; c12 += t;
  t = Math.floor(c12 * IB); c12 -= t * B; c13 += t;
  t = Math.floor(c13 * IB); c13 -= t * B; c14 += t;
  t = Math.floor(c14 * IB); c14 -= t * B; c15 += t;
  t = Math.floor(c15 * IB); c15 -= t * B; c16 += t;
  t = Math.floor(c16 * IB); c16 -= t * B; c17 += t;
  t = Math.floor(c17 * IB); c17 -= t * B; c18 += t;
  t = Math.floor(c18 * IB); c18 -= t * B; c19 += t;
  t = Math.floor(c19 * IB); c19 -= t * B; c20 += t;
  t = Math.floor(c20 * IB); c20 -= t * B;
  const c21 = t;
  // 2^264 ≡ 2^40 + 250112: fold them onto the low columns (still exact: < 2^53)
  c0 += c11 * R0; c1 += c11 * R1;
  c1 += c12 * R0; c2 += c12 * R1;
  c2 += c13 * R0; c3 += c13 * R1;
  c3 += c14 * R0; c4 += c14 * R1;
  c4 += c15 * R0; c5 += c15 * R1;
  c5 += c16 * R0; c6 += c16 * R1;
  c6 += c17 * R0; c7 += c17 * R1;
  c7 += c18 * R0; c8 += c18 * R1;
  c8 += c19 * R0; c9 += c19 * R1;
  c9 += c20 * R0; c10 += c20 * R1;
  c10 += c21 * R0;
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
  t += c21 * R1;
  const hi = Math.floor(t * IB);
  const lo = t - hi * B;
  c0 += lo * R0; c1 += lo * R1 + hi * R0; c2 += hi * R1;
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

/** o = a² − b − c (mod p), one carry pass (b, c reduced). */
export function fsqrSub2(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number, c: Fe, ci: number): void {
  const a0 = a[ai + 0]!, a1 = a[ai + 1]!, a2 = a[ai + 2]!, a3 = a[ai + 3]!, a4 = a[ai + 4]!, a5 = a[ai + 5]!, a6 = a[ai + 6]!, a7 = a[ai + 7]!, a8 = a[ai + 8]!, a9 = a[ai + 9]!, a10 = a[ai + 10]!;
  const d0 = 2 * a0, d1 = 2 * a1, d2 = 2 * a2, d3 = 2 * a3, d4 = 2 * a4, d5 = 2 * a5, d6 = 2 * a6, d7 = 2 * a7, d8 = 2 * a8, d9 = 2 * a9;
  let c0 = a0 * a0 + 2 * P512[0]! - b[bi + 0]! - c[ci + 0]!;
  let c1 = d0 * a1 + 2 * P512[1]! - b[bi + 1]! - c[ci + 1]!;
  let c2 = d0 * a2 + a1 * a1 + 2 * P512[2]! - b[bi + 2]! - c[ci + 2]!;
  let c3 = d0 * a3 + d1 * a2 + 2 * P512[3]! - b[bi + 3]! - c[ci + 3]!;
  let c4 = d0 * a4 + d1 * a3 + a2 * a2 + 2 * P512[4]! - b[bi + 4]! - c[ci + 4]!;
  let c5 = d0 * a5 + d1 * a4 + d2 * a3 + 2 * P512[5]! - b[bi + 5]! - c[ci + 5]!;
  let c6 = d0 * a6 + d1 * a5 + d2 * a4 + a3 * a3 + 2 * P512[6]! - b[bi + 6]! - c[ci + 6]!;
  let c7 = d0 * a7 + d1 * a6 + d2 * a5 + d3 * a4 + 2 * P512[7]! - b[bi + 7]! - c[ci + 7]!;
  let c8 = d0 * a8 + d1 * a7 + d2 * a6 + d3 * a5 + a4 * a4 + 2 * P512[8]! - b[bi + 8]! - c[ci + 8]!;
  let c9 = d0 * a9 + d1 * a8 + d2 * a7 + d3 * a6 + d4 * a5 + 2 * P512[9]! - b[bi + 9]! - c[ci + 9]!;
  let c10 = d0 * a10 + d1 * a9 + d2 * a8 + d3 * a7 + d4 * a6 + a5 * a5 + 2 * P512[10]! - b[bi + 10]! - c[ci + 10]!;
  let c11 = d1 * a10 + d2 * a9 + d3 * a8 + d4 * a7 + d5 * a6;
  let c12 = d2 * a10 + d3 * a9 + d4 * a8 + d5 * a7 + a6 * a6;
  let c13 = d3 * a10 + d4 * a9 + d5 * a8 + d6 * a7;
  let c14 = d4 * a10 + d5 * a9 + d6 * a8 + a7 * a7;
  let c15 = d5 * a10 + d6 * a9 + d7 * a8;
  let c16 = d6 * a10 + d7 * a9 + a8 * a8;
  let c17 = d7 * a10 + d8 * a9;
  let c18 = d8 * a10 + a9 * a9;
  let c19 = d9 * a10;
  let c20 = a10 * a10;
  let t: number;
  // carry the high columns (weights 2^264 … 2^504) to 24-bit limbs; c21 takes the last carry
  t = Math.floor(c11 * IB); c11 -= t * B; c12 += t;
  t = Math.floor(c12 * IB); c12 -= t * B; c13 += t;
  t = Math.floor(c13 * IB); c13 -= t * B; c14 += t;
  t = Math.floor(c14 * IB); c14 -= t * B; c15 += t;
  t = Math.floor(c15 * IB); c15 -= t * B; c16 += t;
  t = Math.floor(c16 * IB); c16 -= t * B; c17 += t;
  t = Math.floor(c17 * IB); c17 -= t * B; c18 += t;
  t = Math.floor(c18 * IB); c18 -= t * B; c19 += t;
  t = Math.floor(c19 * IB); c19 -= t * B; c20 += t;
  t = Math.floor(c20 * IB); c20 -= t * B;
  const c21 = t;
  // 2^264 ≡ 2^40 + 250112: fold them onto the low columns (still exact: < 2^53)
  c0 += c11 * R0; c1 += c11 * R1;
  c1 += c12 * R0; c2 += c12 * R1;
  c2 += c13 * R0; c3 += c13 * R1;
  c3 += c14 * R0; c4 += c14 * R1;
  c4 += c15 * R0; c5 += c15 * R1;
  c5 += c16 * R0; c6 += c16 * R1;
  c6 += c17 * R0; c7 += c17 * R1;
  c7 += c18 * R0; c8 += c18 * R1;
  c8 += c19 * R0; c9 += c19 * R1;
  c9 += c20 * R0; c10 += c20 * R1;
  c10 += c21 * R0;
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
  t += c21 * R1;
  const hi = Math.floor(t * IB);
  const lo = t - hi * B;
  c0 += lo * R0; c1 += lo * R1 + hi * R0; c2 += hi * R1;
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

/** 2^9·p in limbs (limb 10 above 2^24): added in subtraction so the result stays positive. */
const P512 = limbsOf(P << 9n, true);

function limbsOf(x: bigint, loose = false): Fe {
  const o = new Float64Array(LIMBS);
  for (let i = 0; i < LIMBS; i++) {
    o[i] = i === LIMBS - 1 && loose ? Number(x) : Number(x & 0xffffffn);
    x >>= 24n;
  }
  return o;
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
