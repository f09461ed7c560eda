/**
 * Mask penalty (ISO/IEC 18004 §7.8.3, Table 11), evaluated 31–32 modules at a time on the bit-packed lines of
 * layout.ts: a rule along rows works on the column lines (C) and one along columns on the row lines (R), so that
 * neighbours are whole words and each word holds one module of 31 or 32 parallel rows (or columns).
 *
 *  N1  a run of 5 + i modules of one colour in a row or column: 3 + i.
 *      Counted as (windows of 5 equal modules) + 2 × (runs of ≥ 5): a run of L has L − 4 windows, L − 2 points.
 *  N2  each 2×2 block of one colour: 3.
 *  N3  dark-light-dark-dark-dark-light-dark (1:1:3:1:1) in a row or column with four light modules before it,
 *      and again with four light modules after it: 40 each.
 *  N4  10 points per full 5 % step that the dark share P deviates from 50 %.
 *
 * Two rule sets (MaskRules):
 *  'iso'     as above, with the quiet zone around the symbol (light, four modules wide, as the standard requires)
 *            counting as light for N3, and N4 = 10·⌊|P − 50| / 5⌋ (the table's bands "50 ± 5k % to 50 ± 5(k+1) %").
 *            Where readings of the standard differ, this one follows the widely used encoders: the quiet zone
 *            counts as light as in ZXing and Nayuki's library; a pattern with light on both sides scores twice
 *            (before, after) as in Nayuki's library and the qrcode package (ZXing scores it once).
 *  'qrcode'  what the qrcode package (1.5.4, lib/core/mask-pattern.js) computes, which differs in exactly two
 *            places: N3 only sees the four light modules inside the symbol (a 1:1:3:1:1 within four modules of the
 *            edge never scores), and N4 = 10·|⌈P / 5⌉ − 10|, which is one step (10 points) more than the standard
 *            whenever P > 50 % and P is not a multiple of 5 (e.g. P = 52 % scores 10 instead of 0).
 * The chosen mask is the first with the lowest total, as in the qrcode package.
 */
import { PAD, type Layout } from './layout';

export type MaskRules = 'iso' | 'qrcode';

export interface Penalty {
  n1: number;
  n2: number;
  n3: number;
  n4: number;
  total: number;
}

export function popcount(v: number): number {
  let x = v - ((v >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Valid-bit mask of word k of a line with `bitsPerWord` modules per word and `size` modules in all. */
function validBits(size: number, bitsPerWord: number, k: number): number {
  const n = Math.min(bitsPerWord, size - bitsPerWord * k);
  return n >= 32 ? -1 : (1 << n) - 1;
}

// Running sums of the word scans (module-level to keep the hot path free of allocations).
let weighted = 0; // N1 points + 3 × N2 blocks
let finders = 0;
let dark = 0;

// Lines of one word where a 1011101 pattern starts, and its lanes (sized for version 40).
const candP = new Int32Array(177);
const candI = new Int32Array(177);

// The merged last word (see penaltyTotal), and a word of zeros to XOR it with.
const merged = new Int32Array(177 + 2 * PAD);
const zeros = new Int32Array(177 + 2 * PAD);

const M1 = 0x55555555;
const M2 = 0x33333333;
const M4 = 0x0f0f0f0f;

/** Per-nibble bit counts of x (each 0..4). */
const nibbleCounts = (x: number): number => {
  const y = x - ((x >>> 1) & M1);
  return (y & M2) + ((y >>> 2) & M2);
};

/**
 * One word of `size` lines (line i = B[b+i] ^ X[b+i]; lines −4..−1 and size..size+3 are the zero PAD lines): N1
 * and N3 over the lanes in `vm`, and, with `withBlocks`, N2's 2×2 blocks over the lane pairs (j, j+1) in `vm2`
 * and the dark modules of the lanes in `vmDark` (C lines: lane j+1 of a pair may be bit 31, the next word's
 * first row). Lines are read once each, into rolling registers l0..l6 = lines i..i+6.
 *  N1: s_j = "line j equals line j+1"; w = s_i & s_i+1 & s_i+2 & s_i+3 marks a window of 5 equal modules starting
 *      at i; w & ~s_i-1 marks those that start a run. Points: windows + 2 × runs.
 *  N2: s_i & (s_i >>> 1) & "lane j equals lane j+1" marks a 2×2 block.
 *  N3: l0 & ~l1 & l2 & l3 & l4 & ~l5 & l6 marks 1011101 starting at i; lines i−4..i−1 or i+7..i+10 all light.
 * N1 + 3·N2 is summed without branches: per-nibble counts, weighted, then bytes added with one multiply.
 */
function scanWord(B: Int32Array, X: Int32Array, b: number, size: number, vm: number, vm2: number, vmDark: number, iso: boolean, withBlocks: boolean): void {
  let w1 = 0;
  let n3 = 0;
  let d = 0;
  let l0 = B[b]! ^ X[b]!;
  let l1 = B[b + 1]! ^ X[b + 1]!;
  let l2 = B[b + 2]! ^ X[b + 2]!;
  let l3 = B[b + 3]! ^ X[b + 3]!;
  let l4 = B[b + 4]! ^ X[b + 4]!;
  let l5 = B[b + 5]! ^ X[b + 5]!;
  let prev = 0;
  let s1 = ~(l0 ^ l1);
  let s2 = ~(l1 ^ l2);
  let s3 = ~(l2 ^ l3);
  let cand = 0;
  for (let i = 0; i <= size - 5; i++) {
    const l6 = B[b + i + 6]! ^ X[b + i + 6]!;
    const s4 = ~(l3 ^ l4);
    const w = s1 & s2 & s3 & s4 & vm;
    // windows + 2 × run starts, per nibble ≤ 4 + 8, then per byte ≤ 24
    let t = nibbleCounts(w) + (nibbleCounts(w & ~prev) << 1);
    t = (t & M4) + ((t >>> 4) & M4);
    if (withBlocks) {
      const blk = s1 & (s1 >>> 1) & ~(l0 ^ (l0 >>> 1)) & vm2;
      let u = nibbleCounts(blk);
      u = (u + (u >>> 4)) & M4; // per byte ≤ 8
      t += u + (u << 1); // per byte ≤ 48
      let dk = nibbleCounts(l0 & vmDark);
      dk = (dk + (dk >>> 4)) & M4;
      d += Math.imul(dk, 0x01010101) >>> 24;
    }
    w1 += Math.imul(t, 0x01010101) >>> 24;
    // 1011101 candidates are queued without a branch (the slot is reused while p is 0) and checked below.
    const p = l0 & l2 & l3 & l4 & l6 & ~(l1 | l5) & vm;
    candP[cand] = p;
    candI[cand] = i;
    cand += (p | -p) >>> 31;
    prev = s1;
    s1 = s2;
    s2 = s3;
    s3 = s4;
    l0 = l1;
    l1 = l2;
    l2 = l3;
    l3 = l4;
    l4 = l5;
    l5 = l6;
  }
  // Candidates with four light lines before, and with four light lines after; past the edge is the light quiet
  // zone for ISO, nothing for the qrcode package.
  for (let e = 0; e < cand; e++) {
    const p = candP[e]!;
    const i = candI[e]!;
    const j = b + i;
    if (iso || i >= 4) n3 += popcount(p & ~((B[j - 4]! ^ X[j - 4]!) | (B[j - 3]! ^ X[j - 3]!) | (B[j - 2]! ^ X[j - 2]!) | (B[j - 1]! ^ X[j - 1]!)));
    if (iso || i + 10 < size) n3 += popcount(p & ~((B[j + 7]! ^ X[j + 7]!) | (B[j + 8]! ^ X[j + 8]!) | (B[j + 9]! ^ X[j + 9]!) | (B[j + 10]! ^ X[j + 10]!)));
  }
  if (withBlocks) {
    // The last four lines: blocks with their right neighbour (none for the last), dark modules.
    for (let i = size - 4; i < size; i++) {
      const a = B[b + i]! ^ X[b + i]!;
      if (i < size - 1) {
        const s = ~(a ^ (B[b + i + 1]! ^ X[b + i + 1]!));
        const blk = popcount(s & (s >>> 1) & ~(a ^ (a >>> 1)) & vm2);
        w1 += 3 * blk;
      }
      d += popcount(a & vmDark);
    }
  }
  weighted += w1;
  finders += n3;
  dark += d;
}

export function n4Points(darkModules: number, total: number, rules: MaskRules): number {
  if (rules === 'qrcode') return 10 * Math.abs(Math.ceil((darkModules * 20) / total) - 10);
  return 10 * Math.floor(Math.abs(darkModules * 20 - total * 10) / total);
}

/**
 * All lines of the symbol base ^ mask: R lines BR ^ XR, C lines BC ^ XC (see encode.ts). The last C word and the
 * last R word are often nearly empty (version 13: 7 and 5 lanes); when their lanes fit one word, they are scanned
 * together as one (C lanes low, R lanes above), which saves a sixth of the work there. Stops once the running
 * total (N4 aside, which is never negative) reaches `limit`; returns false then.
 */
function scanAll(L: Layout, BR: Int32Array, XR: Int32Array, BC: Int32Array, XC: Int32Array, iso: boolean, limit: number): boolean {
  const { size, stride, wordsC, wordsR } = L;
  weighted = finders = dark = 0;
  const lastC = size - 31 * (wordsC - 1);
  const lastR = size - 32 * (wordsR - 1);
  const merge = wordsC > 1 && lastC + lastR <= 32;
  for (let k = 0; k < wordsC - (merge ? 1 : 0); k++) {
    const vm = validBits(size, 31, k);
    scanWord(BC, XC, k * stride + PAD, size, vm, validBits(size - 1, 31, k), vm, iso, true);
    if (weighted + 40 * finders >= limit) return false;
  }
  for (let k = 0; k < wordsR - (merge ? 1 : 0); k++) {
    scanWord(BR, XR, k * stride + PAD, size, validBits(size, 32, k), 0, 0, iso, false);
    if (weighted + 40 * finders >= limit) return false;
  }
  if (merge) {
    const c = (wordsC - 1) * stride;
    const r = (wordsR - 1) * stride;
    for (let i = 0; i < size + 2 * PAD; i++) merged[i] = (BC[c + i]! ^ XC[c + i]!) | ((BR[r + i]! ^ XR[r + i]!) << lastC);
    const vmC = (1 << lastC) - 1;
    scanWord(merged, zeros, PAD, size, lastC + lastR >= 32 ? -1 : (1 << (lastC + lastR)) - 1, (1 << (lastC - 1)) - 1, vmC, iso, true);
  }
  return true;
}

/**
 * Penalty of the symbol base ^ mask: R lines BR ^ XR and C lines BC ^ XC (see encode.ts). Stops early and returns
 * a total ≥ limit once the running total reaches `limit`: every rule only adds points.
 */
export function penaltyTotal(L: Layout, BR: Int32Array, XR: Int32Array, BC: Int32Array, XC: Int32Array, rules: MaskRules, limit = Infinity): number {
  if (!scanAll(L, BR, XR, BC, XC, rules === 'iso', limit)) return limit;
  return weighted + 40 * finders + n4Points(dark, L.size * L.size, rules);
}

/** N2's 2×2 blocks alone, plainly (for penalty(): the scans only keep N1 + 3·N2). */
function countBlocks(L: Layout, BC: Int32Array, XC: Int32Array): number {
  const { size, stride, wordsC } = L;
  let n = 0;
  for (let k = 0; k < wordsC; k++) {
    const vm2 = validBits(size - 1, 31, k);
    for (let j = k * stride + PAD, end = j + size - 1; j < end; j++) {
      const a = BC[j]! ^ XC[j]!;
      const s = ~(a ^ (BC[j + 1]! ^ XC[j + 1]!));
      n += popcount(s & (s >>> 1) & ~(a ^ (a >>> 1)) & vm2);
    }
  }
  return n;
}

/** The four rule scores of a masked symbol (no early stop). */
export function penalty(L: Layout, BR: Int32Array, XR: Int32Array, BC: Int32Array, XC: Int32Array, rules: MaskRules): Penalty {
  scanAll(L, BR, XR, BC, XC, rules === 'iso', Infinity);
  const blocks = countBlocks(L, BC, XC);
  const out: Penalty = { n1: weighted - 3 * blocks, n2: 3 * blocks, n3: 40 * finders, n4: n4Points(dark, L.size * L.size, rules), total: 0 };
  out.total = out.n1 + out.n2 + out.n3 + out.n4;
  return out;
}
