/**
 * Symbol layout per version, computed once and cached: function patterns (finders, separators, timing,
 * alignment, version information, the dark module), the format information positions, where each data bit goes
 * (the two-column zigzag of ISO/IEC 18004 §7.7.3), and the eight data masks (§7.8.2).
 *
 * Everything is kept bit-packed twice, so that a penalty rule along rows and one along columns are both word
 * operations between neighbouring lines and never shift bits across words:
 *  - "R" lines are rows: line r, bit c of word c>>5 (32 modules a word). R is also the output layout.
 *  - "C" lines are columns: line c, bit j of word k is row 31k+j (31 rows a word, plus bit 31 repeating the
 *    next word's first row, so that a pair of vertically adjacent modules always sits in one word).
 * Both are stored word-major with PAD empty lines before and after each word's run of lines:
 *   index = k * stride + PAD + line, stride = size + 2·PAD,
 * so the penalty loops read lines -4..size+3 without bounds checks (ISO counts the quiet zone as light).
 */
import { alignmentCoords, formatBits, symbolSize, totalCodewords, versionBits, type EcLevel } from './tables';

export const PAD = 4;

export interface Layout {
  version: number;
  size: number;
  stride: number;
  /** Words per R line (32 modules each) and per C line (31 modules each). */
  wordsR: number;
  wordsC: number;
  /** Dark function modules (format information left light), packed as R and as C. */
  funcR: Int32Array;
  funcC: Int32Array;
  /** Data bit t (in placement order) → (word index << 5 | bit) in R and in C; C entries for rows 31k, k ≥ 1, also set bit 31 of word k−1 (see place()). */
  placeR: Uint16Array;
  placeC: Uint16Array;
  /**
   * Per codeword, a fast path when its 8 modules form one of the zigzag's regular shapes (codewordPlan): planA =
   * R index of its first row << 8 | bit of the left column << 3 | shape (1 aligned up, 2 aligned down, 3 shifted
   * up, 4 shifted down; 0: placed bit by bit); planB = C index of the base column at its lowest row << 5 | that
   * row's bit (rows past a word's 31st continue at bit 0 of the next word, one stride on).
   */
  planA: Int32Array;
  planB: Int32Array;
  /** Number of data bits placed: 8 × total codewords (remainder bits stay light before masking). */
  dataBits: number;
  /** [row, col] of format bit i (0 = least significant) in its two copies. */
  formatA: readonly (readonly [number, number])[];
  formatB: readonly (readonly [number, number])[];
  /** Mask p's dark modules on data modules only, packed as R and C (built on first use). */
  maskR: (Int32Array | undefined)[];
  maskC: (Int32Array | undefined)[];
  /** Per level: mask p's modules plus format information for (level, p) — what one XOR turns base into a masked symbol. */
  xorR: Map<EcLevel, Int32Array[]>;
  xorC: Map<EcLevel, Int32Array[]>;
  /** Reserved (function or format) modules, row-major, 1 byte each: for tests and the reference implementation. */
  reserved: Uint8Array;
}

const layouts: (Layout | undefined)[] = [];

export function getLayout(version: number): Layout {
  return (layouts[version] ??= buildLayout(version));
}

/** Mask condition of ISO/IEC 18004 Table 10 for module (i = row, j = column). */
export function maskBit(mask: number, i: number, j: number): boolean {
  switch (mask) {
    case 0: return (i + j) % 2 === 0;
    case 1: return i % 2 === 0;
    case 2: return j % 3 === 0;
    case 3: return (i + j) % 3 === 0;
    case 4: return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5: return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6: return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    case 7: return (((i + j) % 2) + ((i * j) % 3)) % 2 === 0;
    default: throw new RangeError(`QR mask must be 0..7, got ${mask}`);
  }
}

export const indexR = (L: Layout, r: number, c: number): number => (c >> 5) * L.stride + PAD + r;
const wordC = (r: number): number => Math.floor(r / 31);
export const indexC = (L: Layout, r: number, c: number): number => wordC(r) * L.stride + PAD + c;

/** Set module (r, c) dark in an R array and a C array of this layout (C: also its copy in bit 31 of the word above). */
export function setModule(L: Layout, R: Int32Array, C: Int32Array, r: number, c: number): void {
  R[indexR(L, r, c)]! |= 1 << (c & 31);
  const k = wordC(r);
  const j = r - 31 * k;
  C[k * L.stride + PAD + c]! |= 1 << j;
  if (j === 0 && k > 0) C[(k - 1) * L.stride + PAD + c]! |= 1 << 31;
}

function buildLayout(version: number): Layout {
  const size = symbolSize(version);
  const stride = size + 2 * PAD;
  const wordsR = Math.ceil(size / 32);
  const wordsC = Math.ceil(size / 31);
  const reserved = new Uint8Array(size * size);
  const dark = new Uint8Array(size * size);
  const put = (r: number, c: number, on: boolean): void => {
    reserved[r * size + c] = 1;
    dark[r * size + c] = on ? 1 : 0;
  };
  // Finder patterns with their separators, clipped at the symbol's edge.
  for (const [fr, fc] of [[0, 0], [0, size - 7], [size - 7, 0]] as const) {
    for (let r = -1; r <= 7; r++) {
      for (let c = -1; c <= 7; c++) {
        if (fr + r < 0 || fr + r >= size || fc + c < 0 || fc + c >= size) continue;
        const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
        put(fr + r, fc + c, ring !== 2 && ring !== 4);
      }
    }
  }
  // Timing patterns.
  for (let i = 8; i < size - 8; i++) {
    put(6, i, i % 2 === 0);
    put(i, 6, i % 2 === 0);
  }
  // Alignment patterns, except where they would overlap the finders.
  const ac = alignmentCoords(version);
  for (let a = 0; a < ac.length; a++) {
    for (let b = 0; b < ac.length; b++) {
      if ((a === 0 && b === 0) || (a === 0 && b === ac.length - 1) || (a === ac.length - 1 && b === 0)) continue;
      for (let r = -2; r <= 2; r++) for (let c = -2; c <= 2; c++) put(ac[a]! + r, ac[b]! + c, Math.max(Math.abs(r), Math.abs(c)) !== 1);
    }
  }
  // Format information (reserved here, written per level and mask) and the dark module.
  const formatA: [number, number][] = [];
  const formatB: [number, number][] = [];
  for (let i = 0; i < 15; i++) {
    formatA.push(i < 6 ? [i, 8] : i < 8 ? [i + 1, 8] : [size - 15 + i, 8]);
    formatB.push(i < 8 ? [8, size - 1 - i] : i < 9 ? [8, 7] : [8, 14 - i]);
  }
  for (const [r, c] of [...formatA, ...formatB]) put(r, c, false);
  put(size - 8, 8, true);
  // Version information (versions 7 and up): 6×3 blocks above the bottom-left and left of the top-right finder.
  if (version >= 7) {
    const bits = versionBits(version);
    for (let i = 0; i < 18; i++) {
      const on = ((bits >> i) & 1) === 1;
      put(Math.floor(i / 3), size - 11 + (i % 3), on);
      put(size - 11 + (i % 3), Math.floor(i / 3), on);
    }
  }

  const L: Layout = {
    version, size, stride, wordsR, wordsC,
    funcR: new Int32Array(wordsR * stride),
    funcC: new Int32Array(wordsC * stride),
    placeR: new Uint16Array(0), placeC: new Uint16Array(0), planA: new Int32Array(0), planB: new Int32Array(0),
    dataBits: totalCodewords(version) * 8,
    formatA, formatB,
    maskR: [], maskC: [], xorR: new Map(), xorC: new Map(),
    reserved,
  };
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (dark[r * size + c]) setModule(L, L.funcR, L.funcC, r, c);

  // Data placement: column pairs from the right, upwards then downwards, skipping the vertical timing pattern.
  const placeR = new Uint16Array(L.dataBits);
  const placeC = new Uint16Array(L.dataBits);
  const rowOf = new Int32Array(L.dataBits);
  const colOf = new Int32Array(L.dataBits);
  let t = 0;
  for (let right = size - 1, upward = true; right >= 1; right -= 2, upward = !upward) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const r = upward ? size - 1 - step : step;
      for (let c = right; c >= right - 1; c--) {
        if (reserved[r * size + c] || t >= L.dataBits) continue;
        placeR[t] = (indexR(L, r, c) << 5) | (c & 31);
        placeC[t] = (indexC(L, r, c) << 5) | (r % 31);
        rowOf[t] = r;
        colOf[t] = c;
        t++;
      }
    }
  }
  L.placeR = placeR;
  L.placeC = placeC;
  const codewords = L.dataBits >> 3;
  L.planA = new Int32Array(codewords);
  L.planB = new Int32Array(codewords);
  for (let j = 0; j < codewords; j++) {
    const plan = codewordPlan(L, rowOf, colOf, 8 * j);
    L.planA[j] = plan[0];
    L.planB[j] = plan[1];
  }
  return L;
}

/**
 * The fast-path plan of the codeword whose bits are t0..t0+7 (see Layout.planA), or [0, 0]. Two shapes fill long
 * stretches of every strip (both columns in one R word): aligned (4 rows, each right then left module) and shifted
 * by one module after an alignment pattern covered one column (the left module of a first row, 3 rows of pairs,
 * the right module of a fifth row).
 */
function codewordPlan(L: Layout, rowOf: Int32Array, colOf: Int32Array, t0: number): [number, number] {
  const same = (t: number, r: number, c: number): boolean => rowOf[t] === r && colOf[t] === c;
  const lowest = (r: number, c: number): number => (indexC(L, r, c) << 5) | (r % 31);
  const r0 = rowOf[t0]!;
  // Aligned: (r0, c) (r0, c−1) (r0+d, c) (r0+d, c−1) … four rows.
  {
    const c = colOf[t0]!;
    const d = rowOf[t0 + 2]! - r0;
    let ok = (d === 1 || d === -1) && (c & 31) !== 0;
    for (let q = 0; q < 4 && ok; q++) ok = same(t0 + 2 * q, r0 + q * d, c) && same(t0 + 2 * q + 1, r0 + q * d, c - 1);
    if (ok) return [(indexR(L, r0, c) << 8) | (((c - 1) & 31) << 3) | (d === -1 ? 1 : 2), lowest(Math.min(r0, r0 + 3 * d), c)];
  }
  // Shifted: (r0, c−1), then (r0+d, c) (r0+d, c−1) … for three rows, then (r0+4d, c).
  {
    const c = colOf[t0]! + 1;
    const d = rowOf[t0 + 1]! - r0;
    let ok = (d === 1 || d === -1) && (c & 31) !== 0 && same(t0 + 7, r0 + 4 * d, c);
    for (let q = 1; q < 4 && ok; q++) ok = same(t0 + 2 * q - 1, r0 + q * d, c) && same(t0 + 2 * q, r0 + q * d, c - 1);
    // C base: the column whose four rows start lower (up: the right one from r0−4; down: the left one from r0).
    if (ok) return [(indexR(L, r0, c) << 8) | (((c - 1) & 31) << 3) | (d === -1 ? 3 : 4), d === -1 ? lowest(r0 - 4, c) : lowest(r0, c - 1)];
  }
  return [0, 0];
}

/** Mask p on the data modules of this layout, as R and C arrays. */
export function maskArrays(L: Layout, p: number): [Int32Array, Int32Array] {
  let R = L.maskR[p];
  let C = L.maskC[p];
  if (!R || !C) {
    R = new Int32Array(L.wordsR * L.stride);
    C = new Int32Array(L.wordsC * L.stride);
    const n = L.size;
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (!L.reserved[r * n + c] && maskBit(p, r, c)) setModule(L, R, C, r, c);
    L.maskR[p] = R;
    L.maskC[p] = C;
  }
  return [R, C];
}

/** For each mask p at this level: mask p's modules together with the dark bits of the format information for (level, p). */
export function xorArrays(L: Layout, level: EcLevel): { R: Int32Array[]; C: Int32Array[] } {
  let rs = L.xorR.get(level);
  let cs = L.xorC.get(level);
  if (!rs || !cs) {
    rs = [];
    cs = [];
    for (let m = 0; m < 8; m++) {
      const [mr, mc] = maskArrays(L, m);
      const R = mr.slice();
      const C = mc.slice();
      const bits = formatBits(level, m);
      for (let i = 0; i < 15; i++) {
        if (((bits >> i) & 1) === 0) continue;
        setModule(L, R, C, L.formatA[i]![0], L.formatA[i]![1]);
        setModule(L, R, C, L.formatB[i]![0], L.formatB[i]![1]);
      }
      rs.push(R);
      cs.push(C);
    }
    L.xorR.set(level, rs);
    L.xorC.set(level, cs);
  }
  return { R: rs, C: cs };
}
