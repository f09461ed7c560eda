/**
 * Miniscript's type system, following Bitcoin Core src/script/miniscript.cpp (ComputeType,
 * SanitizeType, ComputeScriptLen). Our own code; the rules (the property algebra) are Core's.
 *
 * Basic types B (base), V (verify), K (key), W (wrapped); properties z/o/n/d/u (correctness),
 * e/f/s/m (malleability), x (expensive verify), g/h/i/j (relative time / relative height /
 * absolute time / absolute height timelocks present) and k (no mix of heights and times).
 */
import { LOCKTIME_THRESHOLD, SEQUENCE_LOCKTIME_TYPE_FLAG } from '../locktime';

export type Fragment =
  | 'just_0'
  | 'just_1'
  | 'pk_k'
  | 'pk_h'
  | 'older'
  | 'after'
  | 'sha256'
  | 'hash256'
  | 'ripemd160'
  | 'hash160'
  | 'wrap_a'
  | 'wrap_s'
  | 'wrap_c'
  | 'wrap_d'
  | 'wrap_v'
  | 'wrap_j'
  | 'wrap_n'
  | 'and_v'
  | 'and_b'
  | 'or_b'
  | 'or_c'
  | 'or_d'
  | 'or_i'
  | 'andor'
  | 'thresh'
  | 'multi'
  | 'multi_a';

export type MsContext = 'p2wsh' | 'tapscript';

const LETTERS = 'BVKWzondufesmxghijk';
const BIT: Record<string, number> = {};
for (let i = 0; i < LETTERS.length; i++) BIT[LETTERS[i]!] = 1 << i;

/** A set of type properties as a bit mask (Core's Type / "…"_mst). */
export type Type = number;

/** Core's `"…"_mst` literal. */
export function T(letters: string): Type {
  let t = 0;
  for (const c of letters) {
    const b = BIT[c];
    if (b === undefined) throw new Error(`Unknown character in type literal: ${c}`);
    t |= b;
  }
  return t;
}

/** Core's `x << y`: x has every property of y. */
export function has(x: Type, y: Type | string): boolean {
  const m = typeof y === 'string' ? T(y) : y;
  return (m & ~x) === 0;
}

/** Core's `Type::If`. */
function iff(t: Type | string, cond: boolean): Type {
  return cond ? (typeof t === 'string' ? T(t) : t) : 0;
}

/** The properties of a type as letters (for messages and tests). */
export function typeString(t: Type): string {
  let s = '';
  for (const c of LETTERS) if (t & BIT[c]!) s += c;
  return s;
}

/** k is lost when x and y mix heights and times of the same kind of lock. */
function mixes(x: Type, y: Type): boolean {
  return (has(x, 'g') && has(y, 'h')) || (has(x, 'h') && has(y, 'g')) || (has(x, 'i') && has(y, 'j')) || (has(x, 'j') && has(y, 'i'));
}

/** Core SanitizeType: a type with not exactly one of K/V/B/W is no type at all. */
function sanitize(e: Type): Type {
  const n = (has(e, 'K') ? 1 : 0) + (has(e, 'V') ? 1 : 0) + (has(e, 'B') ? 1 : 0) + (has(e, 'W') ? 1 : 0);
  if (n === 0) return 0;
  return e;
}

/** Core ComputeType for one node from its children's types. */
export function computeType(frag: Fragment, x: Type, y: Type, z: Type, subTypes: Type[], k: number, nSubs: number, ctx: MsContext): Type {
  const X = (s: string): Type => x & T(s);
  switch (frag) {
    case 'pk_k':
      return sanitize(T('Konudemsxk'));
    case 'pk_h':
      return sanitize(T('Knudemsxk'));
    case 'older':
      return sanitize(iff('g', (k & SEQUENCE_LOCKTIME_TYPE_FLAG) !== 0) | iff('h', (k & SEQUENCE_LOCKTIME_TYPE_FLAG) === 0) | T('Bzfmxk'));
    case 'after':
      return sanitize(iff('i', k >= LOCKTIME_THRESHOLD) | iff('j', k < LOCKTIME_THRESHOLD) | T('Bzfmxk'));
    case 'sha256':
    case 'ripemd160':
    case 'hash256':
    case 'hash160':
      return sanitize(T('Bonudmk'));
    case 'just_1':
      return sanitize(T('Bzufmxk'));
    case 'just_0':
      return sanitize(T('Bzudemsxk'));
    case 'wrap_a':
      return sanitize(iff('W', has(x, 'B')) | X('ghijk') | X('udfems') | T('x'));
    case 'wrap_s':
      return sanitize(iff('W', has(x, 'Bo')) | X('ghijk') | X('udfemsx'));
    case 'wrap_c':
      return sanitize(iff('B', has(x, 'K')) | X('ghijk') | X('ondfem') | T('us'));
    case 'wrap_d':
      return sanitize(
        iff('B', has(x, 'Vz')) | iff('o', has(x, 'z')) | iff('e', has(x, 'f')) | X('ghijk') | X('ms') | iff('u', ctx === 'tapscript') | T('ndx'),
      );
    case 'wrap_v':
      return sanitize(iff('V', has(x, 'B')) | X('ghijk') | X('zonms') | T('fx'));
    case 'wrap_j':
      return sanitize(iff('B', has(x, 'Bn')) | iff('e', has(x, 'f')) | X('ghijk') | X('oums') | T('ndx'));
    case 'wrap_n':
      return sanitize(X('ghijk') | X('Bzondfems') | T('ux'));
    case 'and_v':
      return sanitize(
        iff(y & T('KVB'), has(x, 'V')) |
          X('n') |
          iff(y & T('n'), has(x, 'z')) |
          iff((x | y) & T('o'), has(x | y, 'z')) |
          (x & y & T('dmz')) |
          ((x | y) & T('s')) |
          iff('f', has(y, 'f') || has(x, 's')) |
          (y & T('ux')) |
          ((x | y) & T('ghij')) |
          iff('k', has(x & y, 'k') && !mixes(x, y)),
      );
    case 'and_b':
      return sanitize(
        iff(x & T('B'), has(y, 'W')) |
          iff((x | y) & T('o'), has(x | y, 'z')) |
          X('n') |
          iff(y & T('n'), has(x, 'z')) |
          iff(x & y & T('e'), has(x & y, 's')) |
          (x & y & T('dzm')) |
          iff('f', has(x & y, 'f') || has(x, 'sf') || has(y, 'sf')) |
          ((x | y) & T('s')) |
          T('ux') |
          ((x | y) & T('ghij')) |
          iff('k', has(x & y, 'k') && !mixes(x, y)),
      );
    case 'or_b':
      return sanitize(
        iff('B', has(x, 'Bd') && has(y, 'Wd')) |
          iff((x | y) & T('o'), has(x | y, 'z')) |
          iff(x & y & T('m'), has(x | y, 's') && has(x & y, 'e')) |
          (x & y & T('zse')) |
          T('dux') |
          ((x | y) & T('ghij')) |
          (x & y & T('k')),
      );
    case 'or_d':
      return sanitize(
        iff(y & T('B'), has(x, 'Bdu')) |
          iff(x & T('o'), has(y, 'z')) |
          iff(x & y & T('m'), has(x, 'e') && has(x | y, 's')) |
          (x & y & T('zs')) |
          (y & T('ufde')) |
          T('x') |
          ((x | y) & T('ghij')) |
          (x & y & T('k')),
      );
    case 'or_c':
      return sanitize(
        iff(y & T('V'), has(x, 'Bdu')) |
          iff(x & T('o'), has(y, 'z')) |
          iff(x & y & T('m'), has(x, 'e') && has(x | y, 's')) |
          (x & y & T('zs')) |
          T('fx') |
          ((x | y) & T('ghij')) |
          (x & y & T('k')),
      );
    case 'or_i':
      return sanitize(
        (x & y & T('VBKufs')) |
          iff('o', has(x & y, 'z')) |
          iff((x | y) & T('e'), has(x | y, 'f')) |
          iff(x & y & T('m'), has(x | y, 's')) |
          ((x | y) & T('d')) |
          T('x') |
          ((x | y) & T('ghij')) |
          (x & y & T('k')),
      );
    case 'andor':
      return sanitize(
        iff(y & z & T('BKV'), has(x, 'Bdu')) |
          (x & y & z & T('z')) |
          iff((x | (y & z)) & T('o'), has(x | (y & z), 'z')) |
          (y & z & T('u')) |
          iff(z & T('f'), has(x, 's') || has(y, 'f')) |
          (z & T('d')) |
          iff(z & T('e'), has(x, 's') || has(y, 'f')) |
          iff(x & y & z & T('m'), has(x, 'e') && has(x | y | z, 's')) |
          (z & (x | y) & T('s')) |
          T('x') |
          ((x | y | z) & T('ghij')) |
          iff('k', has(x & y & z, 'k') && !mixes(x, y)),
      );
    case 'multi':
      return sanitize(T('Bnudemsk'));
    case 'multi_a':
      return sanitize(T('Budemsk'));
    case 'thresh': {
      let allE = true;
      let allM = true;
      let args = 0;
      let numS = 0;
      let acc = T('k');
      for (let i = 0; i < subTypes.length; i++) {
        const t = subTypes[i]!;
        if (!has(t, i ? 'Wdu' : 'Bdu')) return 0;
        if (!has(t, 'e')) allE = false;
        if (!has(t, 'm')) allM = false;
        if (has(t, 's')) numS += 1;
        args += has(t, 'z') ? 0 : has(t, 'o') ? 1 : 2;
        acc = ((acc | t) & T('ghij')) | iff('k', has(acc & t, 'k') && (k <= 1 || !mixes(acc, t)));
      }
      return sanitize(
        T('Bdu') |
          iff('z', args === 0) |
          iff('o', args === 1) |
          iff('e', allE && numS === nSubs) |
          iff('m', allE && allM && numS >= nSubs - k) |
          iff('s', numS >= nSubs - k + 1) |
          acc,
      );
    }
  }
}

/** Size of Core's BuildScript(n) for a number: OP_0/OP_1..OP_16, else a minimal CScriptNum push. */
export function numPushSize(n: number): number {
  if (n >= 0 && n <= 16) return 1;
  return 1 + scriptNum(n).length;
}

/** CScriptNum serialization (minimal little-endian, sign bit in the last byte). */
export function scriptNum(n: number): Uint8Array {
  if (n === 0) return new Uint8Array(0);
  const neg = n < 0;
  let abs = Math.abs(n);
  const out: number[] = [];
  while (abs > 0) {
    out.push(abs & 0xff);
    abs = Math.floor(abs / 256);
  }
  if (out[out.length - 1]! & 0x80) out.push(neg ? 0x80 : 0);
  else if (neg) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

/** Core ComputeScriptLen. */
export function computeScriptLen(frag: Fragment, sub0: Type, subsize: number, k: number, nSubs: number, nKeys: number, ctx: MsContext): number {
  switch (frag) {
    case 'just_1':
    case 'just_0':
      return 1;
    case 'pk_k':
      return ctx === 'tapscript' ? 33 : 34;
    case 'pk_h':
      return 3 + 21;
    case 'older':
    case 'after':
      return 1 + numPushSize(k);
    case 'hash256':
    case 'sha256':
      return 4 + 2 + 33;
    case 'hash160':
    case 'ripemd160':
      return 4 + 2 + 21;
    case 'multi':
      return 1 + numPushSize(nKeys) + numPushSize(k) + 34 * nKeys;
    case 'multi_a':
      return (1 + 32 + 1) * nKeys + numPushSize(k) + 1;
    case 'and_v':
      return subsize;
    case 'wrap_v':
      return subsize + (has(sub0, 'x') ? 1 : 0);
    case 'wrap_s':
    case 'wrap_c':
    case 'wrap_n':
    case 'and_b':
    case 'or_b':
      return subsize + 1;
    case 'wrap_a':
    case 'or_c':
      return subsize + 2;
    case 'wrap_d':
    case 'or_d':
    case 'or_i':
    case 'andor':
      return subsize + 3;
    case 'wrap_j':
      return subsize + 4;
    case 'thresh':
      return subsize + nSubs + numPushSize(k);
  }
}
