/**
 * The multiplication kernels of field.ts (unrolled: 11×11 limb products, then the reduction): a·b,
 * a², and the fused a·b − c and a² − b − c whose subtraction rides in the product's carry pass.
 *
 * Column sums: one factor reduced (limbs < 2^24 + a few), the other with |limb| < 2^25.1 → each
 * column < 11·2^49.1 = 2^52.56; the subtracted terms (< 2^26) and the folds of the high half
 * (< 2^47) keep it below 2^53, so every operation is exact in doubles. The high columns are
 * carried first, folded down with 2^264 ≡ 2^40 + 250112 (mod p), then the low ones are carried and
 * the last carry folded once more.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';

/** Storage for field elements: element k of an array lives at offset 11·k. */
export type Fe = Float64Array;

/** Limbs per element. */
export const LIMBS = 11;

export const B = 16777216; // 2^24
export const IB = 1 / B;
/** 2^264 mod p = 2^40 + 250112: a limb h at 2^264 adds h·250112 at its place and h·2^16 one limb up. */
export const R0 = 250112;
export const R1 = 65536;

export const P = secp256k1.Point.Fp.ORDER;

/** 2^9·p in limbs (limb 10 above 2^24): added in subtraction so the result stays positive. */
export const P512 = limbsOf(P << 9n, true);

export function limbsOf(x: bigint, loose = false): Fe {
  const o = new Float64Array(LIMBS);
  for (let i = 0; i < LIMBS; i++) {
    o[i] = i === LIMBS - 1 && loose ? Number(x) : Number(x & 0xffffffn);
    x >>= 24n;
  }
  return o;
}

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
