/**
 * QR Code constants of ISO/IEC 18004: error correction block structure per version and level, symbol
 * geometry, and the BCH-coded format and version information words. Pure functions and small tables.
 */

/** Error correction level: L (~7 % recoverable), M (~15 %), Q (~25 %), H (~30 %). */
export type EcLevel = 'L' | 'M' | 'Q' | 'H';
export const EC_LEVELS: readonly EcLevel[] = ['L', 'M', 'Q', 'H'];

/** The two format bits of each level (ISO/IEC 18004 Table 12): L=01, M=00, Q=11, H=10. */
const EC_FORMAT_BITS: Record<EcLevel, number> = { L: 1, M: 0, Q: 3, H: 2 };

const EC_INDEX: Record<EcLevel, number> = { L: 0, M: 1, Q: 2, H: 3 };

// ISO/IEC 18004 Table 9, per level, versions 1..40 (index 0 unused): error correction codewords per block…
const EC_PER_BLOCK: readonly (readonly number[])[] = [
  [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
];
// …and the number of blocks.
const EC_BLOCKS: readonly (readonly number[])[] = [
  [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
];

export const MIN_VERSION = 1;
export const MAX_VERSION = 40;

export function checkVersion(version: number): void {
  if (!Number.isInteger(version) || version < MIN_VERSION || version > MAX_VERSION) throw new RangeError(`QR version must be an integer 1..40, got ${version}`);
}

export function checkEcLevel(level: string): asserts level is EcLevel {
  if (!(level in EC_INDEX)) throw new RangeError(`QR error correction level must be L, M, Q or H, got ${level}`);
}

/** Modules per side: 21 for version 1, +4 per version, 177 for version 40. */
export const symbolSize = (version: number): number => version * 4 + 17;

/** Modules left for data and error correction once every function pattern is placed (ISO/IEC 18004 Table 1). */
export function rawDataModules(version: number): number {
  let n = (16 * version + 128) * version + 64; // whole symbol minus finders, separators, timing, format info
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    n -= (25 * align - 10) * align - 55; // alignment patterns, less their overlap with the timing patterns
    if (version >= 7) n -= 36; // two version information blocks
  }
  return n;
}

export const totalCodewords = (version: number): number => rawDataModules(version) >> 3;

export interface BlockLayout {
  /** Error correction codewords per block (the same for every block). */
  ecPerBlock: number;
  /** Number of blocks: the first `shortBlocks` carry `shortData` data codewords, the rest one more. */
  blocks: number;
  shortBlocks: number;
  shortData: number;
  /** Data codewords of the whole symbol. */
  dataCodewords: number;
}

export function blockLayout(version: number, level: EcLevel): BlockLayout {
  const li = EC_INDEX[level];
  const ecPerBlock = EC_PER_BLOCK[li]![version]!;
  const blocks = EC_BLOCKS[li]![version]!;
  const total = totalCodewords(version);
  const dataCodewords = total - ecPerBlock * blocks;
  const longBlocks = total % blocks;
  return { ecPerBlock, blocks, shortBlocks: blocks - longBlocks, shortData: Math.floor(total / blocks) - ecPerBlock, dataCodewords };
}

const DATA_CODEWORDS = new Int32Array(4 * 41);
for (let v = MIN_VERSION; v <= MAX_VERSION; v++) for (const level of EC_LEVELS) DATA_CODEWORDS[EC_INDEX[level] * 41 + v] = blockLayout(v, level).dataCodewords;

/** Data capacity in bits of a symbol (what the segments, their headers and the terminator must fit in). */
export const dataCapacityBits = (version: number, level: EcLevel): number => DATA_CODEWORDS[EC_INDEX[level] * 41 + version]! * 8;

/** Row/column coordinates of the alignment pattern centres (ISO/IEC 18004 Annex E); none for version 1. */
export function alignmentCoords(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = symbolSize(version);
  const step = version === 32 ? 26 : Math.ceil((size - 13) / (2 * count - 2)) * 2;
  const coords = [6];
  for (let pos = size - 7, i = 0; i < count - 1; i++, pos -= step) coords.splice(1, 0, pos);
  return coords;
}

/** Remainder of a polynomial division over GF(2): `value` (already shifted) modulo `generator`. */
function bchRemainder(value: number, generator: number): number {
  const degree = 31 - Math.clz32(generator);
  let v = value;
  for (let bit = 31 - Math.clz32(v); bit >= degree; bit = 31 - Math.clz32(v)) v ^= generator << (bit - degree);
  return v;
}

/** The 15-bit format information word: level and mask, BCH(15,5), XOR 101010000010010. */
export function formatBits(level: EcLevel, mask: number): number {
  const data = (EC_FORMAT_BITS[level] << 3) | mask;
  return ((data << 10) | bchRemainder(data << 10, 0b10100110111)) ^ 0b101010000010010;
}

/** The 18-bit version information word (versions 7..40): version, BCH(18,6). */
export function versionBits(version: number): number {
  return (version << 12) | bchRemainder(version << 12, 0b1111100100101);
}
