/** secp256k1 field checks used to tell valid keys the way Core's CPubKey/XOnlyPubKey do. */

/** The field prime p = 2^256 − 2^32 − 977. */
export const FIELD_P = 2n ** 256n - 2n ** 32n - 977n;

/** Jacobi symbol (a/n) for odd n > 0: 1, −1, or 0 (BigInt reference; slow, ~60 µs for 256 bits). */
export function jacobi(a: bigint, n: bigint): number {
  a %= n;
  let t = 1;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    const tmp = a;
    a = n;
    n = tmp;
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
}

/** x³ + 7 mod p: the curve's right-hand side for x. */
export function curveRhs(x: bigint): bigint {
  return (((x * x) % FIELD_P) * x + 7n) % FIELD_P;
}

// ---------------------------------------------------------------------------------------------
// Fast Legendre symbol mod p without BigInt.
//
// Binary-GCD style: f (odd) and g (≥ 0) start as p and the value; each "posdivstep" either halves
// an even g, or (g odd) adds a multiple of f to g or swaps f and g, so both stay non-negative and
// f stays odd. The symbol (g | f) is tracked through the steps: halving g flips it when
// f ≡ 3, 5 (mod 8); swapping flips it when f ≡ g ≡ 3 (mod 4) (quadratic reciprocity); adding a
// multiple of f leaves it. Once f = 1 the symbol (g | 1) is 1, so the answer is the flips' parity.
//
// 26 steps are planned at a time on the low 28 bits of f and g (the steps only look at low bits;
// the Jacobi bookkeeping needs f mod 8 on top of the 26 bits being cancelled), giving a matrix
// [u v; q r] with u + v ≤ 2^26 and q + r ≤ 2^26 such that f' = (u·f + v·g) / 2^26 and
// g' = (q·f + r·g) / 2^26 exactly. f and g are held as ten 26-bit limbs in doubles, so every
// u·limb + v·limb + carry stays below 2^53 and is exact.
// ---------------------------------------------------------------------------------------------

const LIMB = 67108864; // 2^26
const LIMBS = 10; // 260 bits ≥ 256

/** INV256[k] = (2k + 1)^-1 mod 256. */
const INV256 = new Uint8Array(128);
for (let k = 0; k < 128; k++) {
  const f = 2 * k + 1;
  let x = f; // f·f ≡ 1 (mod 8)
  for (let i = 0; i < 3; i++) x = (x * (2 - ((f * x) & 255))) & 255;
  INV256[k] = x & 255;
}

const P_LIMBS = new Float64Array(LIMBS);
{
  let v = FIELD_P;
  for (let i = 0; i < LIMBS; i++) {
    P_LIMBS[i] = Number(v & 0x3ffffffn);
    v >>= 26n;
  }
}

const jf = new Float64Array(LIMBS);
const jg = new Float64Array(LIMBS);

/**
 * (g | p) for the value held in `jg` (ten 26-bit limbs, 0 < g < p): 1 or −1; 0 if it did not
 * settle within the round limit (never seen; the caller then uses the BigInt algorithm).
 */
function legendreLimbs(): number {
  jf.set(P_LIMBS);
  let len = LIMBS;
  let eta = -1;
  let jac = 0;
  for (let round = 0; round < 64; round++) {
    // Plan 26 steps on the low 28 bits.
    let f = jf[0]! + (jf[1]! % 4) * LIMB;
    let g = jg[0]! + (jg[1]! % 4) * LIMB;
    f |= 0;
    g |= 0;
    let u = 1;
    let v = 0;
    let q = 0;
    let r = 1;
    let i = 26;
    for (;;) {
      const low = g | (-1 << i);
      const zeros = 31 - Math.clz32(low & -low);
      g >>>= zeros;
      u <<= zeros;
      v <<= zeros;
      eta -= zeros;
      i -= zeros;
      jac ^= zeros & ((f >> 1) ^ (f >> 2));
      if (i === 0) break;
      if (eta < 0) {
        eta = -eta;
        jac ^= (f & g) >> 1;
        let t = f;
        f = g;
        g = t;
        t = u;
        u = q;
        q = t;
        t = v;
        v = r;
        r = t;
      }
      const limit = eta + 1 > i ? i : eta + 1;
      const m = (0xffffffff >>> (32 - limit)) & 255;
      const w = Math.imul(-g, INV256[(f >> 1) & 127]!) & m;
      g = (g + Math.imul(f, w)) | 0;
      q += u * w;
      r += v * w;
    }
    // Apply the matrix to the whole numbers (the low 26 bits of each sum are zero).
    let cf = (u * jf[0]! + v * jg[0]!) / LIMB;
    let cg = (q * jf[0]! + r * jg[0]!) / LIMB;
    for (let k = 1; k < len; k++) {
      cf += u * jf[k]! + v * jg[k]!;
      cg += q * jf[k]! + r * jg[k]!;
      const hf = (cf / LIMB) | 0; // < 2^27: the sums stay below 2^53
      const hg = (cg / LIMB) | 0;
      jf[k - 1] = cf - hf * LIMB;
      jg[k - 1] = cg - hg * LIMB;
      cf = hf;
      cg = hg;
    }
    jf[len - 1] = cf;
    jg[len - 1] = cg;
    if (jf[0] === 1) {
      let rest = 0;
      for (let k = 1; k < len; k++) rest += jf[k]!;
      if (rest === 0) return jac & 1 ? -1 : 1;
    }
    if (len > 1 && jf[len - 1] === 0 && jg[len - 1] === 0) len--;
  }
  return 0;
}

/** Loads v (0 ≤ v < 2^260) into `jg`: 13 hex digits (52 bits, exact in a double) make two limbs. */
function loadG(v: bigint): void {
  const hex = v.toString(16).padStart(65, '0');
  for (let k = 0; k < 5; k++) {
    const chunk = parseInt(hex.slice(52 - 13 * k, 65 - 13 * k), 16);
    const hi = Math.floor(chunk / LIMB);
    jg[2 * k] = chunk - hi * LIMB;
    jg[2 * k + 1] = hi;
  }
}

/** The Legendre symbol (a | p) for 0 ≤ a < p: 1, −1, or 0 (a = 0). Same as jacobi(a, FIELD_P). */
export function legendreP(a: bigint): number {
  if (a === 0n) return 0;
  loadG(a);
  const s = legendreLimbs();
  return s !== 0 ? s : jacobi(a, FIELD_P);
}

/** Some point of the curve has this x coordinate (x < p and x³ + 7 is a square mod p). */
export function isCurveX(x: bigint): boolean {
  return x < FIELD_P && legendreP(curveRhs(x)) !== -1;
}

const HEX2: string[] = [];
for (let i = 0; i < 256; i++) HEX2.push(i.toString(16).padStart(2, '0'));

/** isCurveX of the 32-byte big-endian x at b[off..off+32] (XOnlyPubKey::IsFullyValid). */
export function isCurveXAt(b: Uint8Array, off: number): boolean {
  let hex = '0x';
  for (let i = off; i < off + 32; i++) hex += HEX2[b[i]!]!;
  return isCurveX(BigInt(hex));
}
