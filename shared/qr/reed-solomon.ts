/**
 * Reed–Solomon error correction over GF(2^8) with the QR field polynomial x^8+x^4+x^3+x^2+1 (0x11D), and the
 * block split and interleaving of ISO/IEC 18004 §7.5–7.6. Each generator polynomial gets a multiplication table
 * (256 × degree bytes) the first time it is used, so the encoder's inner loop is one load and one XOR per term.
 */
import type { BlockLayout } from './tables';

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
}

export function gfMul(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!;
}

/** Coefficients of ∏(x − α^i), i < degree, highest power first, the leading 1 left out. */
export function generatorPoly(degree: number): Uint8Array {
  // poly[0..degree] with poly[0] the x^degree coefficient, built up one factor at a time.
  const poly = new Uint8Array(degree + 1);
  poly[0] = 1;
  for (let i = 0; i < degree; i++) {
    const root = EXP[i]!;
    for (let j = i + 1; j >= 1; j--) poly[j] = poly[j]! ^ gfMul(poly[j - 1]!, root);
  }
  return poly.subarray(1);
}

/**
 * The remainder update for feedback byte f, four coefficients per 32-bit word (little-endian: coefficient 4w+b in
 * byte b of word w), eight words (degree ≤ 32): table[f * 8 + w] = bytes (generator[4w..4w+3] · f). XOR works
 * bytewise, so one word operation updates four remainder bytes.
 */
const rsTables = new Map<number, Int32Array>();

function rsTable(degree: number): Int32Array {
  let table = rsTables.get(degree);
  if (!table) {
    if (degree > 32) throw new RangeError('Reed-Solomon degree above 32');
    const g = generatorPoly(degree);
    table = new Int32Array(256 * 8);
    for (let f = 1; f < 256; f++) for (let i = 0; i < degree; i++) table[f * 8 + (i >> 2)]! |= gfMul(g[i]!, f) << (8 * (i & 3));
    rsTables.set(degree, table);
  }
  return table;
}

/** Error correction codewords of data[start, start+length) written to out[outStart, outStart+degree). */
export function rsRemainder(data: Uint8Array, start: number, length: number, degree: number, out: Uint8Array, outStart: number): void {
  const t = rsTable(degree);
  // The remainder, 32 bytes in eight registers (the bytes past `degree` stay 0); degree ≤ 28 needs seven.
  let r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0, r6 = 0, r7 = 0; // prettier-ignore
  const end = start + length;
  if (degree <= 28) {
    for (let j = start; j < end; j++) {
      // Shift the remainder one coefficient (byte) down and add the generator times the feedback byte.
      const f = ((data[j]! ^ r0) & 0xff) << 3;
      r0 = ((r0 >>> 8) | (r1 << 24)) ^ t[f]!;
      r1 = ((r1 >>> 8) | (r2 << 24)) ^ t[f + 1]!;
      r2 = ((r2 >>> 8) | (r3 << 24)) ^ t[f + 2]!;
      r3 = ((r3 >>> 8) | (r4 << 24)) ^ t[f + 3]!;
      r4 = ((r4 >>> 8) | (r5 << 24)) ^ t[f + 4]!;
      r5 = ((r5 >>> 8) | (r6 << 24)) ^ t[f + 5]!;
      r6 = (r6 >>> 8) ^ t[f + 6]!;
    }
  } else {
    for (let j = start; j < end; j++) {
      const f = ((data[j]! ^ r0) & 0xff) << 3;
      r0 = ((r0 >>> 8) | (r1 << 24)) ^ t[f]!;
      r1 = ((r1 >>> 8) | (r2 << 24)) ^ t[f + 1]!;
      r2 = ((r2 >>> 8) | (r3 << 24)) ^ t[f + 2]!;
      r3 = ((r3 >>> 8) | (r4 << 24)) ^ t[f + 3]!;
      r4 = ((r4 >>> 8) | (r5 << 24)) ^ t[f + 4]!;
      r5 = ((r5 >>> 8) | (r6 << 24)) ^ t[f + 5]!;
      r6 = ((r6 >>> 8) | (r7 << 24)) ^ t[f + 6]!;
      r7 = (r7 >>> 8) ^ t[f + 7]!;
    }
  }
  const words = [r0, r1, r2, r3, r4, r5, r6, r7];
  for (let i = 0; i < degree; i++) out[outStart + i] = words[i >> 2]! >>> (8 * (i & 3));
}

/**
 * The final codeword sequence of a symbol (§7.6): data split into blocks (the short ones first), each given its
 * error correction codewords, then data codewords interleaved column by column, then error correction ones.
 */
export function interleaveWithEc(data: Uint8Array, layout: BlockLayout, out: Uint8Array, ecScratch: Uint8Array): Uint8Array {
  const { blocks, shortBlocks, shortData, ecPerBlock } = layout;
  const dataTotal = layout.dataCodewords;
  // Error correction of every block, block after block.
  for (let b = 0, off = 0; b < blocks; b++) {
    const len = b < shortBlocks ? shortData : shortData + 1;
    rsRemainder(data, off, len, ecPerBlock, ecScratch, b * ecPerBlock);
    off += len;
  }
  // Column i of the data: codeword i of each block; the long blocks have one more at i = shortData.
  let o = 0;
  for (let i = 0; i < shortData; i++) {
    for (let b = 0; b < blocks; b++) out[o++] = data[b * shortData + (b > shortBlocks ? b - shortBlocks : 0) + i]!;
  }
  for (let b = shortBlocks; b < blocks; b++) out[o++] = data[b * shortData + (b - shortBlocks) + shortData]!;
  for (let i = 0; i < ecPerBlock; i++) for (let b = 0; b < blocks; b++) out[o++] = ecScratch[b * ecPerBlock + i]!;
  if (o !== dataTotal + blocks * ecPerBlock) throw new Error('interleave: codeword count mismatch');
  return out;
}
