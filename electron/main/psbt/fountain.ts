/**
 * The BC-UR fountain decoder (BCR-2020-005), rewritten for bounded work per part. It reads the parts
 * @ngraveio/bc-ur's encoder (and every other BC-UR encoder) writes, choosing the same fragments for a
 * mixed part — test/main/fountain.test.ts compares with the library's chooseFragments — but:
 *
 * - the library's decoder makes an array of every announced part at the first part (a part announcing
 *   4,294,967,295 parts exhausted the heap) and compares its arrays with `includes` (quadratic in the
 *   parts); here a decoder is made only for a header ur-part.ts checked (seqLen ≤ UR_MAX_SEQ_LEN), and
 *   keeps the fragments in one buffer of the message's size with a bitmap of the known ones;
 * - the library chooses a mixed part's fragments by shuffling all seqLen indexes with `splice`
 *   (quadratic in seqLen: 5–9 s for one part of 200,000) and its random numbers through bignumber.js;
 *   here only the `degree` indexes the part mixes are drawn, each in O(log seqLen), from a Xoshiro256**
 *   on 32-bit halves that gives the library's numbers bit for bit (see UrRandom.nextDouble);
 * - mixed parts are "peeled" (each keeps the XOR of its still-unknown indexes, and a map from an index
 *   to the parts waiting for it); what they may hold is bounded (mixedBudget, MAX_WAITING_FRAGMENTS).
 *
 * So one part costs at most O(seqLen log seqLen + messageLength), whatever its numbers say, and only
 * once most fragments are known; before that a part mixing many is dropped after two random numbers.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

const TWO_32 = 4294967296;
const TEN_20 = 10n ** 20n;
/** The library's divisor: the number 2^64 as bignumber.js reads it, from its shortest decimal text. */
const LIB_DIVISOR = 18446744073709552000n;
/** D = 2^64 (1 + DELTA): 384 / 2^64 = 3 · 2^-57, exactly. */
const DELTA = 3 * 2 ** -57;

/**
 * Xoshiro256** seeded with SHA-256(seed), as the library's xoshiro.ts: the state is four 64-bit words,
 * here eight 32-bit halves (hi, lo).
 */
export class UrRandom {
  readonly #s = new Uint32Array(8);

  constructor(seed: Uint8Array) {
    const d = createHash('sha256').update(seed).digest();
    for (let i = 0; i < 8; i++) this.#s[i] = d.readUInt32BE(4 * i);
  }

  /** The next 64-bit output as [hi, lo]. */
  #roll(): [number, number] {
    const s = this.#s;
    // result = rotl(s1 * 5, 7) * 9
    const m5lo = s[3]! * 5;
    const m5l = m5lo >>> 0;
    const m5h = (s[2]! * 5 + Math.floor(m5lo / TWO_32)) >>> 0;
    const rh = ((m5h << 7) | (m5l >>> 25)) >>> 0;
    const rl = ((m5l << 7) | (m5h >>> 25)) >>> 0;
    const m9lo = rl * 9;
    const outLo = m9lo >>> 0;
    const outHi = (rh * 9 + Math.floor(m9lo / TWO_32)) >>> 0;
    // t = s1 << 17
    const th = ((s[2]! << 17) | (s[3]! >>> 15)) >>> 0;
    const tl = (s[3]! << 17) >>> 0;
    s[4]! ^= s[0]!; // s2 ^= s0
    s[5]! ^= s[1]!;
    s[6]! ^= s[2]!; // s3 ^= s1
    s[7]! ^= s[3]!;
    s[2]! ^= s[4]!; // s1 ^= s2
    s[3]! ^= s[5]!;
    s[0]! ^= s[6]!; // s0 ^= s3
    s[1]! ^= s[7]!;
    s[4]! ^= th; // s2 ^= t
    s[5]! ^= tl;
    // s3 = rotl(s3, 45): swap the halves, then rotate by 13
    const h = s[7]!;
    const l = s[6]!;
    s[6] = ((h << 13) | (l >>> 19)) >>> 0;
    s[7] = ((l << 13) | (h >>> 19)) >>> 0;
    return [outHi, outLo];
  }

  /**
   * The library's nextDouble: bignumber.js divides the 64-bit output by `MAX_UINT64 + 1` — a JavaScript
   * number, 2^64, which bignumber.js reads as its decimal text 18446744073709552000 (D, 384 above 2^64) —
   * to 20 decimal places (ROUND_HALF_UP), and that decimal is read as a double. Here the quotient t =
   * output / D is formed in doubles with an error below 10^-25: its nearest double m is the library's
   * number unless t lies within 20-decimal rounding (5·10^-21) of a point halfway between two doubles, or
   * is tiny (below 2^-12) — then the library's steps are done exactly (exactDouble), about once in 10^4.
   */
  nextDouble(): number {
    const [hi, lo] = this.#roll();
    return urDouble(hi, lo);
  }

  nextInt(low: number, high: number): number {
    return Math.floor(this.nextDouble() * (high - low + 1) + low);
  }
}

/** The library's double of a 64-bit output [hi, lo] (see UrRandom.nextDouble). */
export function urDouble(hi: number, lo: number): number {
    if (hi >= 0x100000) {
      const a = hi * 2 ** -32; // output / 2^64 = a + b, exactly
      const b = lo * 2 ** -64;
      const r = b - (a + b) * DELTA; // t = (a + b) / (1 + DELTA) = a + r, to ~1e-25
      const m = a + r;
      const res = a - m + r; // t − m (a − m is exact: m is within a factor 2 of a)
      let e = Math.floor(Math.log2(m));
      if (2 ** e > m) e--;
      else if (2 ** (e + 1) <= m) e++;
      if (m !== 2 ** e && 2 ** (e - 53) - Math.abs(res) > 5.1e-21) return m;
    }
    return exactDouble(hi, lo);
}

/** output / D to 20 decimal places, half up, read as a double: bignumber.js's result, computed exactly. */
export function exactDouble(hi: number, lo: number): number {
  const v = (BigInt(hi) << 32n) | BigInt(lo);
  const q = (v * TEN_20 + LIB_DIVISOR / 2n) / LIB_DIVISOR;
  return q >= TEN_20 ? 1 : Number(`0.${q.toString().padStart(20, '0')}`);
}

/**
 * The degree chooser: Vose's alias tables for weights 1/1 … 1/n, exactly as @keystonehq/alias-sampling
 * builds them (the same floating-point operations in the same order). Made once per decoder.
 */
export class DegreeSampler {
  readonly #prob: Float64Array;
  readonly #alias: Int32Array;

  constructor(readonly n: number) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += 1 / (i + 1);
    // The scaled weights; an index's entry is final once it leaves the small stack (or is left over: 1).
    const prob = new Float64Array(n);
    for (let i = 0; i < n; i++) prob[i] = ((1 / (i + 1)) * n) / sum;
    this.#alias = new Int32Array(n).fill(-1);
    // One array for both stacks: small grows up from 0, large down from n − 1 (together at most n).
    const stack = new Int32Array(n);
    let ns = 0;
    let nl = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (prob[i]! < 1) stack[ns++] = i;
      else stack[n - 1 - nl++] = i;
    }
    while (ns > 0 && nl > 0) {
      const less = stack[--ns]!;
      const more = stack[n - nl--]!;
      this.#alias[less] = more;
      prob[more] = prob[more]! + prob[less]! - 1;
      if (prob[more]! < 1) stack[ns++] = more;
      else stack[n - 1 - nl++] = more;
    }
    while (nl > 0) prob[stack[n - nl--]!] = 1;
    while (ns > 0) prob[stack[--ns]!] = 1;
    this.#prob = prob;
  }

  /** A degree 1..n, or 0 where the library's draw would give no number (a double of exactly 1: p < 2^-53). */
  degree(rng: UrRandom): number {
    const c = Math.floor(rng.nextDouble() * this.n);
    if (c >= this.n) return 0;
    const outcome = rng.nextDouble() < this.#prob[c]! ? c : this.#alias[c]!;
    return outcome < 0 ? 0 : outcome + 1;
  }
}

/** The last sampler made, for the next scan of the same part count (a scan started over, another copy of the QR). */
let lastSampler: DegreeSampler | null = null;
const samplerFor = (n: number): DegreeSampler => (lastSampler?.n === n ? lastSampler : (lastSampler = new DegreeSampler(n)));

const seedOf = (seqNum: number, checksum: number): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(seqNum >>> 0, 0);
  b.writeUInt32BE(checksum >>> 0, 4);
  return b;
};

/** Below this many indexes a sorted list finds the remaining one quicker than a Fenwick tree over seqLen. */
const SMALL_DEGREE = 48;

/**
 * The fragment indexes part `seqNum` mixes (the library's chooseFragments): [seqNum − 1] for the first
 * seqLen parts; else `degree` indexes, the first `degree` of the library's shuffle of 0..seqLen−1 (each
 * step takes the k-th of the indexes not taken yet). Empty where the library's own choice is undefined;
 * null, without drawing them, when the part mixes more than `maxDegree` fragments.
 */
export function chooseFragments(seqNum: number, seqLen: number, checksum: number, sampler: DegreeSampler, maxDegree = seqLen): Int32Array | null {
  if (seqNum <= seqLen) return Int32Array.of(seqNum - 1);
  if (sampler.n !== seqLen) throw new RangeError(`degree sampler for ${sampler.n} parts used for ${seqLen}`);
  const rng = new UrRandom(seedOf(seqNum, checksum));
  const degree = sampler.degree(rng);
  if (degree > maxDegree) return null;
  const out = new Int32Array(degree);
  if (degree <= SMALL_DEGREE) {
    const taken: number[] = []; // ascending
    for (let j = 0; j < degree; j++) {
      const k = rng.nextInt(0, seqLen - j - 1);
      if (k >= seqLen - j) return new Int32Array(0);
      let x = k;
      let at = 0;
      for (; at < taken.length && taken[at]! <= x; at++) x++;
      taken.splice(at, 0, x);
      out[j] = x;
    }
    return out;
  }
  // A Fenwick tree of the indexes not taken yet (all ones at first: node i holds lowbit(i)).
  const tree = new Int32Array(seqLen + 1);
  for (let i = 1; i <= seqLen; i++) tree[i] = i & -i;
  let top = 1;
  while (top * 2 <= seqLen) top *= 2;
  for (let j = 0; j < degree; j++) {
    const k = rng.nextInt(0, seqLen - j - 1);
    if (k >= seqLen - j) return new Int32Array(0);
    // The (k+1)-th index still there.
    let pos = 0;
    let rest = k + 1;
    for (let step = top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= seqLen && tree[next]! < rest) {
        pos = next;
        rest -= tree[next]!;
      }
    }
    out[j] = pos; // 1-based pos + 1 is the index + 1
    for (let i = pos + 1; i <= seqLen; i += i & -i) tree[i]!--;
  }
  return out;
}

interface Mixed {
  fragment: Uint8Array;
  /** How many of its indexes are still unknown, and the XOR of those indexes (the last one, at 1). */
  unknown: number;
  indexXor: number;
}

/**
 * The memory mixed parts waiting for fragments may hold: 4 MiB plus twice the message. A stored part
 * costs its fragment, ~64 bytes, and ~16 per index it waits for; a mixed part that would go beyond is
 * dropped (it mixes fragments that later parts carry too: the scan goes on, it only needs more frames).
 */
const mixedBudget = (messageLength: number): number => 4 * 1024 * 1024 + 2 * messageLength;

/**
 * A mixed part still missing more than this many fragments is not kept: it would help only once all but
 * one of them are known, and keeping it costs memory and time per index. (The reference decoder keeps
 * every part; with seqLen in the hundreds of thousands half of all mixed parts mix over a thousand.) So a
 * part mixing more fragments than are known plus this is dropped as soon as its degree is drawn.
 */
export const MAX_WAITING_FRAGMENTS = 64;

export interface FountainHeader {
  seqLen: number;
  messageLength: number;
  checksum: number;
  fragmentLength: number;
}

/** Puts one message back together from its parts; the header has been checked (ur-part.ts). */
export class FountainDecoder {
  readonly #message: Uint8Array;
  readonly #known: Uint8Array;
  #knownCount = 0;
  #sampler: DegreeSampler | null = null;
  readonly #waiting = new Map<number, Mixed[]>();
  #mixedBytes = 0;
  #result: Uint8Array | null = null;
  #failure: string | null = null;

  constructor(readonly header: FountainHeader) {
    this.#message = new Uint8Array(header.seqLen * header.fragmentLength);
    this.#known = new Uint8Array(header.seqLen);
  }

  get received(): number {
    return this.#knownCount;
  }

  get progress(): number {
    return this.#result ? 1 : this.#knownCount / this.header.seqLen;
  }

  get result(): Uint8Array | null {
    return this.#result;
  }

  /** Why the parts do not make the message (its CRC-32 differs), once all fragments are known. */
  get failure(): string | null {
    return this.#failure;
  }

  /** One part's fragment (of the header's length) and number; returns whether it told anything new. */
  receive(seqNum: number, fragment: Uint8Array): boolean {
    if (this.#result || this.#failure) return false;
    const { seqLen, checksum } = this.header;
    if (seqNum > seqLen) this.#sampler ??= samplerFor(seqLen);
    const indexes = chooseFragments(seqNum, seqLen, checksum, this.#sampler!, this.#knownCount + MAX_WAITING_FRAGMENTS);
    if (!indexes) return false;
    const acc = Uint8Array.from(fragment);
    let unknown = 0;
    let indexXor = 0;
    for (const i of indexes) {
      if (this.#known[i]) xorInto(acc, this.#fragment(i));
      else {
        unknown++;
        indexXor ^= i;
      }
    }
    if (unknown === 0 || unknown > MAX_WAITING_FRAGMENTS) return false;
    if (unknown === 1) {
      this.#learn(indexXor, acc);
      return true;
    }
    const cost = acc.length + 64 + 16 * unknown;
    if (this.#mixedBytes + cost > mixedBudget(this.header.messageLength)) return false;
    this.#mixedBytes += cost;
    const m: Mixed = { fragment: acc, unknown, indexXor };
    for (const i of indexes) {
      if (this.#known[i]) continue;
      const list = this.#waiting.get(i);
      if (list) list.push(m);
      else this.#waiting.set(i, [m]);
    }
    return true;
  }

  #fragment(i: number): Uint8Array {
    const n = this.header.fragmentLength;
    return this.#message.subarray(i * n, (i + 1) * n);
  }

  /** A fragment is known: store it, and peel it off every mixed part waiting for it (which may free others). */
  #learn(first: number, bytes: Uint8Array): void {
    const queue: [number, Uint8Array][] = [[first, bytes]];
    while (queue.length > 0) {
      const [i, b] = queue.pop()!;
      if (this.#known[i]) continue;
      this.#message.set(b, i * this.header.fragmentLength);
      this.#known[i] = 1;
      this.#knownCount++;
      const waiting = this.#waiting.get(i);
      if (!waiting) continue;
      this.#waiting.delete(i);
      for (const m of waiting) {
        if (m.unknown < 2) continue;
        xorInto(m.fragment, b);
        m.unknown--;
        m.indexXor ^= i;
        this.#mixedBytes -= 16;
        if (m.unknown === 1) {
          this.#mixedBytes -= m.fragment.length + 64;
          queue.push([m.indexXor, m.fragment]);
        }
      }
    }
    if (this.#knownCount === this.header.seqLen) this.#finish();
  }

  #finish(): void {
    const message = this.#message.subarray(0, this.header.messageLength);
    this.#waiting.clear();
    if (crc32(message) >>> 0 === this.header.checksum >>> 0) this.#result = message;
    else this.#failure = `the message's CRC-32 is ${(crc32(message) >>> 0).toString(16).padStart(8, '0')}, its parts say ${(this.header.checksum >>> 0).toString(16).padStart(8, '0')}`;
  }
}

function xorInto(a: Uint8Array, b: Uint8Array): void {
  for (let i = 0; i < a.length; i++) a[i]! ^= b[i]!;
}
