/**
 * encodeQr: text or segments → the module matrix of a QR Code symbol, versions 1–40, levels L/M/Q/H, a given or
 * automatically chosen mask. All work happens in typed arrays reused from call to call (one encode at a time
 * per thread: the functions are synchronous), so encoding thousands of animated-QR frames allocates little
 * beyond each result's rows.
 */
import { getLayout, PAD, xorArrays, type Layout } from './layout';
import { penalty, penaltyTotal, type MaskRules, type Penalty } from './penalty';
import { interleaveWithEc } from './reed-solomon';
import { bestMode, fitVersion, prepareSegment, segmentsBits, writeDataCodewords, type PreparedSegment, type QrMode, type QrSegment } from './segments';
import { blockLayout, checkEcLevel, checkVersion, dataCapacityBits, MAX_VERSION, totalCodewords, type EcLevel } from './tables';

export interface QrOptions {
  /** Error correction level; default 'M' (as the qrcode package). Animated UR frames use 'L'. */
  level?: EcLevel;
  /** Exactly this version (throws if the data does not fit); default: the smallest that fits, from minVersion. */
  version?: number;
  minVersion?: number;
  /** Data mask 0–7; default: the lowest penalty under `maskRules`. */
  mask?: number;
  /** Penalty rules for the automatic mask (see penalty.ts); default 'iso'. */
  maskRules?: MaskRules;
  /** For a string: its single segment's mode; default 'auto', the narrowest mode that holds all of it. */
  mode?: QrMode | 'auto';
}

/** A QR symbol: `size` × `size` modules; row r is words rows[r·words .. r·words + words), module c = bit c&31 of word c>>5 (1 = dark). */
export interface QrMatrix {
  version: number;
  level: EcLevel;
  mask: number;
  size: number;
  words: number;
  rows: Int32Array;
}

export function isDark(m: QrMatrix, r: number, c: number): boolean {
  return ((m.rows[r * m.words + (c >> 5)]! >>> (c & 31)) & 1) === 1;
}

/** One byte per module, row-major, 1 = dark (for renderers and tests). */
export function toModules(m: QrMatrix): Uint8Array {
  const out = new Uint8Array(m.size * m.size);
  for (let r = 0; r < m.size; r++) for (let c = 0; c < m.size; c++) out[r * m.size + c] = (m.rows[r * m.words + (c >> 5)]! >>> (c & 31)) & 1;
  return out;
}

// Scratch buffers sized for version 40.
const MAX_WORDS_LEN = 6 * (177 + 2 * PAD);
const baseR = new Int32Array(MAX_WORDS_LEN);
// One stride more for C: place() writes (zeros, unless rows straddle two words) one word on.
const baseC = new Int32Array(MAX_WORDS_LEN + 177 + 2 * PAD);
const dataBuf = new Uint8Array(totalCodewords(MAX_VERSION));
const codewordBuf = new Uint8Array(totalCodewords(MAX_VERSION));
const ecBuf = new Uint8Array(totalCodewords(MAX_VERSION));

// Result rows are views into shared slabs: one backing store per 64 Ki words rather than one per symbol.
const SLAB_WORDS = 1 << 16;
let slab = new Int32Array(SLAB_WORDS);
let slabUsed = 0;
function allocRows(n: number): Int32Array {
  if (slabUsed + n > SLAB_WORDS) {
    slab = new Int32Array(SLAB_WORDS);
    slabUsed = 0;
  }
  const rows = slab.subarray(slabUsed, slabUsed + n);
  slabUsed += n;
  return rows;
}

function toSegments(input: string | Uint8Array | readonly QrSegment[], mode: QrMode | 'auto'): PreparedSegment[] {
  if (typeof input === 'string') return mode === 'auto' ? [prepareSegment({ mode: bestMode(input), data: input }, true)] : [prepareSegment({ mode, data: input })];
  if (input instanceof Uint8Array) return [prepareSegment({ mode: 'byte', data: input })];
  return input.map((seg) => prepareSegment(seg));
}

// Bits 1,3,5,7 (right column) and 0,2,4,6 (left column) of a codeword gathered into 4 bits, lowest row first:
// upward codewords fill rows from the bottom (bit 1 lands lowest), downward ones from the top (bit 7 lands lowest).
const gather = (byte: number, from: number, down: boolean): number => {
  let v = 0;
  for (let q = 0; q < 4; q++) v |= ((byte >> (from + 2 * q)) & 1) << (down ? 3 - q : q);
  return v;
};
const RIGHT_UP = Uint8Array.from({ length: 256 }, (_, b) => gather(b, 1, false));
const LEFT_UP = Uint8Array.from({ length: 256 }, (_, b) => gather(b, 0, false));
const RIGHT_DOWN = Uint8Array.from({ length: 256 }, (_, b) => gather(b, 1, true));
const LEFT_DOWN = Uint8Array.from({ length: 256 }, (_, b) => gather(b, 0, true));

/** Place the codewords' bits on the data modules of base arrays already holding the function patterns. */
function place(L: Layout, codewords: Uint8Array, R: Int32Array, C: Int32Array): void {
  const { placeR, placeC, planA, planB, stride } = L;
  for (let j = 0, n = L.dataBits >> 3; j < n; j++) {
    const byte = codewords[j]!;
    const a = planA[j]!;
    const kind = a & 7;
    if (kind !== 0) {
      // Two modules per row (right = the higher bit) over four rows, or shifted by one module over five. In C, a
      // column's 4 bits go at its lowest row; rows past the word's 31st go to the next word (a 0 write unless the
      // rows straddle two words).
      const s = (a >>> 3) & 31;
      const ri = a >>> 8;
      const b = planB[j]!;
      const ci = b >>> 5;
      const sh = b & 31;
      const d = (kind & 1) === 1 ? -1 : 1; // kinds 1, 3 go up
      let base: number;
      let other: number;
      if (kind <= 2) {
        R[ri]! |= ((byte >>> 6) & 3) << s;
        R[ri + d]! |= ((byte >>> 4) & 3) << s;
        R[ri + 2 * d]! |= ((byte >>> 2) & 3) << s;
        R[ri + 3 * d]! |= (byte & 3) << s;
        // Base: the right column; the left one (ci − 1) has the same rows.
        base = d < 0 ? RIGHT_UP[byte]! : RIGHT_DOWN[byte]!;
        other = d < 0 ? LEFT_UP[byte]! : LEFT_DOWN[byte]!;
        C[ci - 1]! |= other << sh;
        C[ci - 1 + stride]! |= other >>> (31 - sh);
      } else {
        // Left of the first row, pairs of the next three, right of the fifth.
        R[ri]! |= ((byte >>> 7) & 1) << s;
        R[ri + d]! |= ((byte >>> 5) & 3) << s;
        R[ri + 2 * d]! |= ((byte >>> 3) & 3) << s;
        R[ri + 3 * d]! |= ((byte >>> 1) & 3) << s;
        R[ri + 4 * d]! |= (byte & 1) << (s + 1);
        // Up: base = the right column from the fifth row (bits 0, 2, 4, 6 upwards), the left one a row higher
        // (bits 1, 3, 5, 7). Down: base = the left column from the first row (bits 7, 5, 3, 1 downwards), the right
        // one a row lower (bits 6, 4, 2, 0).
        base = d < 0 ? LEFT_UP[byte]! : RIGHT_DOWN[byte]!;
        other = d < 0 ? RIGHT_UP[byte]! : LEFT_DOWN[byte]!;
        const co = d < 0 ? ci - 1 : ci + 1;
        C[co]! |= other << (sh + 1);
        C[co + stride]! |= other >>> (30 - sh);
      }
      C[ci]! |= base << sh;
      C[ci + stride]! |= base >>> (31 - sh);
      continue;
    }
    // Bit by bit, without a branch on the data (a data-dependent branch here mispredicts about half the time).
    for (let bit = 0, t = j << 3; bit < 8; bit++, t++) {
      const v = (byte >>> (7 - bit)) & 1;
      const pr = placeR[t]!;
      const pc = placeC[t]!;
      R[pr >> 5]! |= v << pr;
      C[pc >> 5]! |= v << pc;
    }
  }
  // C words keep a copy of the next word's first row in bit 31.
  const { wordsC, size } = L;
  for (let k = 1; k < wordsC; k++) {
    for (let i = k * stride + PAD, end = i + size; i < end; i++) C[i - stride]! |= (C[i]! & 1) << 31;
  }
}

/** The penalty of each of the 8 masks (no early stop), for tests and diagnostics. */
export function maskPenalties(input: string | Uint8Array | readonly QrSegment[], options: QrOptions = {}): Penalty[] {
  const { L, level } = prepare(input, options);
  const out: Penalty[] = [];
  const x = xorArrays(L, level);
  for (let p = 0; p < 8; p++) {
    out.push(penalty(L, baseR, x.R[p]!, baseC, x.C[p]!, options.maskRules ?? 'iso'));
  }
  return out;
}

/** Segments → version → codewords → base arrays (function patterns + unmasked data) in baseR/baseC. */
function prepare(input: string | Uint8Array | readonly QrSegment[], options: QrOptions): { L: Layout; level: EcLevel } {
  const level = options.level ?? 'M';
  checkEcLevel(level);
  const segs = toSegments(input, options.mode ?? 'auto');
  let version: number;
  if (options.version !== undefined) {
    checkVersion(options.version);
    version = options.version;
    const need = segmentsBits(segs, version);
    if (need > dataCapacityBits(version, level)) throw new RangeError(`QR data does not fit version ${version} at level ${level}: ${need} bits, capacity ${dataCapacityBits(version, level)}`);
  } else {
    version = fitVersion(segs, level, options.minVersion ?? 1);
  }
  const L = getLayout(version);
  const bl = blockLayout(version, level);
  const data = writeDataCodewords(segs, version, bl.dataCodewords * 8, dataBuf);
  const codewords = interleaveWithEc(data, bl, codewordBuf, ecBuf);
  baseR.set(L.funcR);
  baseC.set(L.funcC);
  place(L, codewords, baseR, baseC);
  return { L, level };
}

export function encodeQr(input: string | Uint8Array | readonly QrSegment[], options: QrOptions = {}): QrMatrix {
  const { L, level } = prepare(input, options);
  const x = xorArrays(L, level);
  let mask = options.mask;
  if (mask !== undefined) {
    if (!Number.isInteger(mask) || mask < 0 || mask > 7) throw new RangeError(`QR mask must be 0..7, got ${mask}`);
  } else {
    const rules = options.maskRules ?? 'iso';
    let best = Infinity;
    for (let p = 0; p < 8; p++) {
      const score = penaltyTotal(L, baseR, x.R[p]!, baseC, x.C[p]!, rules, best);
      if (score < best) {
        best = score;
        mask = p;
      }
    }
  }
  // R lines of base ^ mask (word-major, padded) → rows (row-major).
  const { size, stride, wordsR } = L;
  const xr = x.R[mask!]!;
  const rows = allocRows(size * wordsR);
  for (let k = 0; k < wordsR; k++) {
    for (let r = 0, i = k * stride + PAD; r < size; r++, i++) rows[r * wordsR + k] = baseR[i]! ^ xr[i]!;
  }
  return { version: L.version, level, mask: mask!, size, words: wordsR, rows };
}
