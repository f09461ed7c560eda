/**
 * Many k·G + A on secp256k1 at once, for public BIP32 derivation (child = IL·G + parent) and the
 * taproot tweak (Q = t·G + P) of thousands of addresses.
 *
 * - k·G from a table of d·2^(12·j)·G, 1 ≤ d ≤ 2048 (signed 12-bit windows: a digit −d adds the
 *   entry with y negated; 7.9 MB built once per process in ~0.05 s): one point addition per
 *   non-zero window (at most 22), no doublings.
 * - All additions in affine coordinates, the n elements of a batch advancing in lockstep, their
 *   inversions shared (Montgomery's trick: one field inversion per step for the whole batch).
 * - An exceptional addition (equal x coordinates: doubling or a point plus its negation, about
 *   2^-200 likely for derived keys) makes the shared product 0; the whole batch is then redone
 *   with @noble/curves, so results are always exact.
 *
 * Public data only: variable time on purpose.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { normalizeZ } from '@noble/curves/abstract/curve.js';
import { fcanon, fcopy, ffromBig, finv, fmul, fmulSub, fneg, fsqrSub2, ftoBig, LIMBS, type Fe } from './field';

const L = LIMBS;
const Point = secp256k1.Point;
type CurvePoint = InstanceType<typeof Point>;
const CURVE_N = Point.CURVE().n;

/** Signed windows of W bits: digits in [−2^(W−1), 2^(W−1)), 22 windows cover 256 bits and a carry. */
const W = 12;
const WINDOWS = Math.ceil(256 / W);
const HALF = 1 << (W - 1);
/** Table entries per window: d = 1..HALF at index d (index 0 unused). */
const ROW = HALF + 1;

interface GTable {
  /** Entry (j, d) = d·2^(W·j)·G at offset (j·ROW + d)·11. */
  x: Fe;
  y: Fe;
}

let table: GTable | undefined;

/**
 * A multiple of p written with every limb in [2^24 + 2^20, 2^25.1): a − b + K then has limbs in
 * [0, 2^25.1) for any two reduced a, b, which a multiplication by a reduced element keeps exact
 * (11·2^25.1·2^24 < 2^53) without a carry pass.
 */
const K = ((): Fe => {
  let x = secp256k1.Point.Fp.ORDER << 9n;
  const k = new Float64Array(L);
  for (let i = 0; i < L; i++) {
    k[i] = i === L - 1 ? Number(x) : Number(x & 0xffffffn);
    x >>= 24n;
  }
  for (let i = 0; i < L - 1; i++) {
    if (k[i]! < 2 ** 24 + 2 ** 20) {
      k[i] = k[i]! + 2 ** 24;
      k[i + 1] = k[i + 1]! - 1;
    }
  }
  return k;
})();

/** o = a − b + K, limbs not carried (only for a factor of fmul). */
function lazySub(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number): void {
  for (let i = 0; i < L; i++) o[oi + i] = a[ai + i]! - b[bi + i]! + K[i]!;
}

/** o = −a − b + K, limbs not carried, |limb| < 2^25.1 (only for a factor of fmul). */
function lazyNegSub(o: Fe, oi: number, a: Fe, ai: number, b: Fe, bi: number): void {
  for (let i = 0; i < L; i++) o[oi + i] = K[i]! - a[ai + i]! - b[bi + i]!;
}

function setPoint(x: Fe, y: Fe, i: number, p: CurvePoint): void {
  const a = p.toAffine();
  ffromBig(x, i * L, a.x);
  ffromBig(y, i * L, a.y);
}

/** Scratch space, grown as needed. */
let dx = new Float64Array(0);
let pf = new Float64Array(0);
const inv = new Float64Array(L);
const ie = new Float64Array(L);
const lam = new Float64Array(L);
const t1 = new Float64Array(L);

function scratch(m: number): void {
  if (dx.length < m * L) {
    dx = new Float64Array(m * L);
    pf = new Float64Array(m * L);
  }
}

/**
 * For e < m: (ax, ay)[idx[e]] += (px, ±py)[poff[e]] in affine coordinates (y negated where
 * neg[e]), one shared inversion. Returns false (nothing changed) when some pair had equal x
 * coordinates.
 */
function addPass(m: number, idx: Int32Array, ax: Fe, ay: Fe, px: Fe, py: Fe, poff: Int32Array, neg: Uint8Array | null): boolean {
  if (m === 0) return true;
  scratch(m);
  for (let e = 0; e < m; e++) {
    lazySub(dx, e * L, px, poff[e]!, ax, idx[e]! * L);
    if (e === 0) fmul(pf, 0, dx, 0, ONE, 0);
    else fmul(pf, e * L, dx, e * L, pf, (e - 1) * L);
  }
  if (!finv(inv, 0, pf, (m - 1) * L)) return false;
  for (let e = m - 1; e >= 0; e--) {
    const ai = idx[e]! * L;
    const pi = poff[e]!;
    if (e > 0) {
      fmul(ie, 0, inv, 0, pf, (e - 1) * L);
      fmul(inv, 0, dx, e * L, inv, 0);
    } else {
      fcopy(ie, 0, inv, 0);
    }
    if (neg && neg[e]) lazyNegSub(t1, 0, py, pi, ay, ai);
    else lazySub(t1, 0, py, pi, ay, ai);
    fmul(lam, 0, t1, 0, ie, 0);
    // x3 = λ² − ax − px ; y3 = λ·(ax − x3) − ay
    fsqrSub2(t1, 0, lam, 0, ax, ai, px, pi);
    lazySub(ie, 0, ax, ai, t1, 0);
    fmulSub(ay, ai, ie, 0, lam, 0, ay, ai);
    fcopy(ax, ai, t1, 0);
  }
  return true;
}

const ONE = ((): Fe => {
  const o = new Float64Array(L);
  o[0] = 1;
  return o;
})();

/**
 * The d·2^(W·j)·G table (built on first use). The powers 2^k·2^(W·j)·G come from @noble/curves;
 * then generation k fills entries 2^k + r (0 < r < 2^k) of every window as entry r + entry 2^k:
 * W − 2 batched passes, one inversion each.
 */
function gTable(): GTable {
  if (table) return table;
  const x = new Float64Array(WINDOWS * ROW * L);
  const y = new Float64Array(WINDOWS * ROW * L);
  const powers: CurvePoint[] = [];
  let b = Point.BASE;
  for (let j = 0; j < WINDOWS; j++) {
    for (let k = 0; k < W; k++) {
      powers.push(b);
      b = b.double();
    }
  }
  const affine = normalizeZ(Point, powers);
  for (let j = 0; j < WINDOWS; j++) {
    for (let k = 0; k < W; k++) setPoint(x, y, j * ROW + (1 << k), affine[j * W + k]!);
  }
  for (let k = 1; k < W - 1; k++) {
    const step = 1 << k;
    const m = WINDOWS * (step - 1);
    const idx = new Int32Array(m);
    const poff = new Int32Array(m);
    let e = 0;
    for (let j = 0; j < WINDOWS; j++) {
      for (let r = 1; r < step; r++) {
        const at = j * ROW + step + r;
        fcopy(x, at * L, x, (j * ROW + r) * L);
        fcopy(y, at * L, y, (j * ROW + r) * L);
        idx[e] = at;
        poff[e] = (j * ROW + step) * L;
        e++;
      }
    }
    if (!addPass(m, idx, x, y, x, y, poff, null)) throw new Error('secp256k1 table: exceptional addition');
  }
  for (let i = 0; i < x.length; i += L) {
    fcanon(x, i);
    fcanon(y, i);
  }
  table = { x, y };
  return table;
}

/** Signed digits of every scalar, window by window (digits[j·n + i] in [−HALF, HALF)). */
function digits(n: number, scalars: Uint8Array): Int16Array {
  const out = new Int16Array(WINDOWS * n);
  const words = new Uint32Array(9);
  for (let i = 0; i < n; i++) {
    const off = i * 32;
    // 256 bits as eight 32-bit words, least significant first
    for (let k = 0; k < 8; k++) {
      const e = off + 31 - 4 * k;
      words[k] = (scalars[e]! | (scalars[e - 1]! << 8) | (scalars[e - 2]! << 16) | (scalars[e - 3]! << 24)) >>> 0;
    }
    let carry = 0;
    for (let j = 0; j < WINDOWS; j++) {
      const lo = j * W;
      const wi = lo >>> 5;
      const sh = lo & 31;
      let v = words[wi]! >>> sh;
      if (sh + W > 32) v |= words[wi + 1]! << (32 - sh);
      let d = (v & ((1 << W) - 1)) + carry;
      carry = 0;
      if (d >= HALF) {
        d -= 1 << W;
        carry = 1;
      }
      out[j * n + i] = d;
    }
  }
  return out;
}

/**
 * out[i] = k_i·G + A_i for i < n, as affine coordinates (11 limbs each in outX/outY; reduced,
 * not necessarily canonical: read them with ftoBytes/ftoBig).
 * `scalars`: n 32-byte big-endian scalars, each in [1, N). `ax`/`ay`: the addends A_i (affine, 11
 * limbs each), or null for k·G alone. Throws if a result is the point at infinity.
 */
export function mulGAdd(n: number, scalars: Uint8Array, ax: Fe | null, ay: Fe | null, outX: Fe, outY: Fe): void {
  const tab = gTable();
  const dig = digits(n, scalars);
  const started = new Uint8Array(n);
  const idx = new Int32Array(n);
  const poff = new Int32Array(n);
  const neg = new Uint8Array(n);
  let ok = true;
  for (let j = 0; j < WINDOWS && ok; j++) {
    let m = 0;
    for (let i = 0; i < n; i++) {
      const d = dig[j * n + i]!;
      if (d === 0) continue;
      const at = (j * ROW + (d < 0 ? -d : d)) * L;
      if (!started[i]) {
        started[i] = 1;
        fcopy(outX, i * L, tab.x, at);
        if (d < 0) fneg(outY, i * L, tab.y, at);
        else fcopy(outY, i * L, tab.y, at);
      } else {
        idx[m] = i;
        poff[m] = at;
        neg[m] = d < 0 ? 1 : 0;
        m++;
      }
    }
    ok = addPass(m, idx, outX, outY, tab.x, tab.y, poff, neg);
  }
  for (let i = 0; i < n; i++) if (!started[i]) throw new Error('Scalar is zero');
  if (ok && ax && ay) {
    for (let i = 0; i < n; i++) {
      idx[i] = i;
      poff[i] = i * L;
    }
    ok = addPass(n, idx, outX, outY, ax, ay, poff, null);
  }
  if (!ok) slowMulGAdd(n, scalars, ax, ay, outX, outY);
}

/** The same with @noble/curves, element by element (exceptional batches). */
function slowMulGAdd(n: number, scalars: Uint8Array, ax: Fe | null, ay: Fe | null, outX: Fe, outY: Fe): void {
  for (let i = 0; i < n; i++) {
    let k = 0n;
    for (let b = 0; b < 32; b++) k = (k << 8n) | BigInt(scalars[i * 32 + b]!);
    if (k === 0n || k >= CURVE_N) throw new Error('Scalar out of range');
    let p = Point.BASE.multiply(k);
    if (ax && ay) p = p.add(Point.fromAffine({ x: ftoBig(ax, i * L), y: ftoBig(ay, i * L) }));
    if (p.is0()) throw new Error('Point at infinity');
    setPoint(outX, outY, i, p);
  }
}

/** Test hook: forces the slow path for a batch (exceptional-case coverage). */
export function mulGAddSlow(n: number, scalars: Uint8Array, ax: Fe | null, ay: Fe | null, outX: Fe, outY: Fe): void {
  slowMulGAdd(n, scalars, ax, ay, outX, outY);
}
