/**
 * PSBT decoder fuzzer: mutated fixture PSBTs through shared/bitcoin/psbt.
 *
 *   npm run fuzz [-- --count N] [--seed S] [--case I] [--out DIR] [--quiet]
 *
 * Every case is derived from (seed, case index) alone, so one case replays without the ones before
 * it (`--case I`). A case starts from a recorded decodepsbt parameter (Bitcoin Core v30 and current
 * Core fixtures, valid and invalid, PSBT versions 0 and 2) and applies 1–6 mutations: bit flips, byte edits, inserts, deletes,
 * truncations, compact-size/length fields changed (key and value length prefixes, and the counts
 * and lengths inside the unsigned transaction, non_witness_utxo, witness_utxo and final witness),
 * key-value pairs duplicated or copied between maps, pairs and maps reordered or dropped, key
 * types changed, values randomized or resized, splices of two PSBTs, random garbage, and edits of
 * the base64 text itself.
 *
 * Each input must give a result or Core's typed error (`{ok: false, code: -22, message: 'TX decode
 * failed …'}`) — anything thrown past the decoder is a failure — and take at most 1 s (a time
 * above 50 ms is confirmed by a second run, taking the smaller wall or CPU time: a loaded machine
 * does not make an input slow). Inputs are decoded as current Core (the default generation); on a
 * sample the RPC text path (decodePsbtJson) must agree with writeJson(decodePsbt()), Core v30's rules
 * must also give a result or a typed error, and a PSBT that decodes must be written back as Core
 * writes it (read again, it is written the same) and convert to the other PSBT version and back
 * (version 0 always; version 2 unless it has no version 0 form); every 10,000 cases
 * the unmutated seeds are decoded again and must give the same text (no state leaking between
 * decodes). Failing inputs are written to test-results/fuzz-failures/. A watchdog thread saves
 * the input of a case that hangs (> 10 s) before the process is killed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { convertPsbt, decodePsbt, decodePsbtJson, parsePsbt, serializePsbt, unsignedTxOf, v0Obstacle, type Psbt } from '../../shared/bitcoin/psbt';
import { serializeTx } from '../../shared/bitcoin/tx';
import { REGTEST } from '../../shared/bitcoin/networks';
import { writeJson } from '../../shared/json';
import { coreFileGroup, type CoreFile } from '../fixtures';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FAILURE_DIR = join(ROOT, 'test-results', 'fuzz-failures');
/** The correctness bound of issue 4: no input may take longer than this to decode. */
export const MAX_MS_PER_INPUT = 1000;

// ---------------------------------------------------------------------------------------------
// PRNG (sfc32, seeded through splitmix32 from seed and case index)
// ---------------------------------------------------------------------------------------------

function splitmix32(x: number): () => number {
  let s = x >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number, stream: number) {
    const sm = splitmix32((seed ^ Math.imul(stream, 0x27d4eb2f)) >>> 0);
    sm();
    this.a = sm();
    this.b = sm() ^ stream;
    this.c = sm();
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }
  /** 0 ≤ n < max (max ≥ 1). */
  int(max: number): number {
    return max <= 1 ? 0 : this.u32() % max;
  }
  chance(p: number): boolean {
    return this.u32() < p * 0x100000000;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }
}

// ---------------------------------------------------------------------------------------------
// Byte helpers and a lenient view of the key-value layout
// ---------------------------------------------------------------------------------------------

function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Replaces b[start, end) with `with`. */
function splice(b: Uint8Array, start: number, end: number, ...withParts: Uint8Array[]): Uint8Array {
  return concat(b.subarray(0, start), ...withParts, b.subarray(end));
}

/** CompactSize encoding of n; `width` forces a (possibly non-canonical) 1/3/5/9-byte form. */
export function compactSize(n: number, width?: 1 | 3 | 5 | 9): Uint8Array {
  const w = width ?? (n < 253 ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9);
  if (w === 1) return new Uint8Array([n & 0xff]);
  const out = new Uint8Array(w);
  out[0] = w === 3 ? 0xfd : w === 5 ? 0xfe : 0xff;
  let v = n;
  for (let i = 1; i < w; i++) {
    out[i] = v % 256;
    v = Math.floor(v / 256);
  }
  return out;
}

/** A length or count field: where it is, how many bytes it takes, the number it holds. */
export interface SizeField {
  pos: number;
  len: number;
  value: number;
}

function readCS(b: Uint8Array, pos: number): SizeField | undefined {
  const ch = b[pos];
  if (ch === undefined) return undefined;
  if (ch < 253) return { pos, len: 1, value: ch };
  const w = ch === 253 ? 3 : ch === 254 ? 5 : 9;
  if (pos + w > b.length) return undefined;
  let v = 0;
  for (let i = w - 1; i >= 1; i--) v = v * 256 + b[pos + i]!;
  return { pos, len: w, value: v };
}

export interface Pair {
  start: number;
  end: number;
  keyLen: SizeField;
  keyStart: number;
  valLen: SizeField;
  valStart: number;
}

export interface KvMap {
  /** 'global' for the first map, then 'input'/'output' once the unsigned tx's counts are known ('map' otherwise). */
  role: string;
  start: number;
  /** Position of the separator (0x00), or -1 when the data ends first. */
  sep: number;
  /** After the separator (or the end of what parsed). */
  end: number;
  pairs: Pair[];
}

export interface Layout {
  maps: KvMap[];
  sizes: SizeField[];
}

/** Count and length fields inside a serialized transaction starting at `pos` (stops quietly on junk). */
function txSizes(b: Uint8Array, pos: number, end: number, out: SizeField[], allowWitness: boolean): { nIn: number; nOut: number } | undefined {
  let p = pos + 4;
  const field = (): SizeField | undefined => {
    const f = readCS(b, p);
    if (!f || p + f.len > end) return undefined;
    out.push(f);
    p += f.len;
    return f;
  };
  let nIn = field();
  if (!nIn) return undefined;
  let segwit = false;
  if (allowWitness && nIn.value === 0 && b[p] === 1) {
    segwit = true;
    p++;
    nIn = field();
    if (!nIn) return undefined;
  }
  if (nIn.value > 10_000) return undefined;
  for (let i = 0; i < nIn.value; i++) {
    p += 36;
    const s = field();
    if (!s) return undefined;
    p += s.value + 4;
  }
  const nOut = field();
  if (!nOut || nOut.value > 10_000) return undefined;
  for (let i = 0; i < nOut.value; i++) {
    p += 8;
    const s = field();
    if (!s) return undefined;
    p += s.value;
  }
  if (segwit) {
    for (let i = 0; i < nIn.value; i++) {
      const n = field();
      if (!n || n.value > 10_000) return undefined;
      for (let j = 0; j < n.value; j++) {
        const s = field();
        if (!s) return undefined;
        p += s.value;
      }
    }
  }
  return { nIn: nIn.value, nOut: nOut.value };
}

/**
 * The PSBT's maps and pairs as far as they parse (magic skipped when present), plus every size
 * field found: key and value lengths, and those inside transactions, witness utxos and witnesses.
 */
export function layout(b: Uint8Array): Layout {
  const maps: KvMap[] = [];
  const sizes: SizeField[] = [];
  let p = b.length >= 5 && b[0] === 0x70 && b[1] === 0x73 && b[2] === 0x62 && b[3] === 0x74 && b[4] === 0xff ? 5 : 0;
  let counts: { nIn: number; nOut: number } | undefined;
  // Version 2: the counts are global fields of their own (PSBT_GLOBAL_INPUT_COUNT / _OUTPUT_COUNT).
  let v2In: number | undefined;
  let v2Out: number | undefined;
  while (p < b.length) {
    const m: KvMap = { role: 'map', start: p, sep: -1, end: p, pairs: [] };
    const idx = maps.length;
    if (idx === 1 && !counts && v2In !== undefined && v2Out !== undefined) counts = { nIn: v2In, nOut: v2Out };
    m.role = idx === 0 ? 'global' : counts && idx - 1 < counts.nIn ? 'input' : counts && idx - 1 - counts.nIn < counts.nOut ? 'output' : 'map';
    maps.push(m);
    let broken = false;
    for (;;) {
      const kl = readCS(b, p);
      if (!kl) {
        broken = true;
        break;
      }
      if (kl.value === 0) {
        m.sep = p;
        p += 1;
        break;
      }
      const keyStart = p + kl.len;
      if (keyStart + kl.value > b.length) {
        broken = true;
        break;
      }
      const vl = readCS(b, keyStart + kl.value);
      if (!vl) {
        broken = true;
        break;
      }
      const valStart = vl.pos + vl.len;
      if (valStart + vl.value > b.length) {
        broken = true;
        break;
      }
      const pair: Pair = { start: p, end: valStart + vl.value, keyLen: kl, keyStart, valLen: vl, valStart };
      m.pairs.push(pair);
      sizes.push(kl, vl);
      const type = b[keyStart];
      if (kl.value === 1 && m.role === 'global' && (type === 0x04 || type === 0x05)) {
        const n = readCS(b, valStart);
        if (n && n.pos + n.len <= pair.end && n.value <= 10_000) {
          sizes.push(n);
          if (type === 0x04) v2In = n.value;
          else v2Out = n.value;
        }
      } else if (kl.value === 1 && type === 0x00 && (m.role === 'global' || m.role === 'input')) {
        // The unsigned transaction is read without witness data (a 0-input one is not a segwit marker).
        const c = txSizes(b, valStart, pair.end, sizes, m.role === 'input');
        if (m.role === 'global' && c) counts = c;
      } else if (kl.value === 1 && m.role === 'input' && type === 0x01) {
        const s = readCS(b, valStart + 8);
        if (s && s.pos + s.len <= pair.end) sizes.push(s);
      } else if (kl.value === 1 && m.role === 'input' && type === 0x08) {
        let q = valStart;
        const n = readCS(b, q);
        if (n && n.value < 1000) {
          sizes.push(n);
          q += n.len;
          for (let i = 0; i < n.value; i++) {
            const s = readCS(b, q);
            if (!s || q + s.len > pair.end) break;
            sizes.push(s);
            q += s.len + s.value;
          }
        }
      }
      p = pair.end;
    }
    m.end = p;
    if (broken) break;
  }
  return { maps, sizes };
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

const MAX_SIZE = 0x02000000;
const INTERESTING_BYTES = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x20, 0x21, 0x40, 0x41, 0x4c, 0x4d, 0x4e, 0x7f, 0x80, 0xfb, 0xfc, 0xfd, 0xfe, 0xff];
const KEY_TYPES = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0xfb, 0xfc, 0xfd, 0xfe, 0xff];

type Mutation = (b: Uint8Array, r: Rng, ctx: MutationContext) => Uint8Array | undefined;

export interface MutationContext {
  seeds: readonly Uint8Array[];
}

function allPairs(l: Layout): { map: KvMap; pair: Pair; mapIndex: number }[] {
  const out: { map: KvMap; pair: Pair; mapIndex: number }[] = [];
  l.maps.forEach((map, mapIndex) => {
    for (const pair of map.pairs) out.push({ map, pair, mapIndex });
  });
  return out;
}

/** A new number for a size field: near the old one, a boundary of the encoding, or huge. */
function perturbedSize(r: Rng, v: number): number {
  switch (r.int(10)) {
    case 0: return v + 1;
    case 1: return Math.max(0, v - 1);
    case 2: return v + 1 + r.int(16);
    case 3: return Math.max(0, v - 1 - r.int(16));
    case 4: return r.pick([0, 1, 2, 32, 33, 64, 65, 252, 253, 254, 255, 0xffff, 0x10000]);
    case 5: return r.pick([MAX_SIZE - 1, MAX_SIZE, MAX_SIZE + 1]);
    case 6: return r.pick([0xffffffff, 0x100000000, Number.MAX_SAFE_INTEGER]);
    case 7: return r.int(256);
    case 8: return v * 2;
    default: return r.u32();
  }
}

export const MUTATIONS: Record<string, Mutation> = {
  bitflip(b, r) {
    if (b.length === 0) return undefined;
    const o = b.slice();
    for (let n = 1 + r.int(4); n > 0; n--) {
      const i = r.int(o.length);
      o[i]! ^= 1 << r.int(8);
    }
    return o;
  },
  byte(b, r) {
    if (b.length === 0) return undefined;
    const o = b.slice();
    o[r.int(o.length)] = r.chance(0.5) ? r.pick(INTERESTING_BYTES) : r.u32() & 0xff;
    return o;
  },
  insert(b, r) {
    const pos = r.int(b.length + 1);
    const ins = r.chance(0.3) ? new Uint8Array([r.pick(INTERESTING_BYTES)]) : r.bytes(1 + r.int(16));
    return splice(b, pos, pos, ins);
  },
  delete(b, r) {
    if (b.length === 0) return undefined;
    const pos = r.int(b.length);
    return splice(b, pos, Math.min(b.length, pos + 1 + r.int(r.chance(0.7) ? 4 : 64)));
  },
  truncate(b, r) {
    if (b.length === 0) return undefined;
    if (r.chance(0.5)) {
      // At or around a structural boundary.
      const l = layout(b);
      const cuts: number[] = [];
      for (const m of l.maps) {
        cuts.push(m.start, m.end);
        if (m.sep >= 0) cuts.push(m.sep);
        for (const p of m.pairs) cuts.push(p.start, p.keyStart, p.valLen.pos, p.valStart, p.end);
      }
      if (cuts.length) return b.subarray(0, Math.max(0, Math.min(b.length, r.pick(cuts) + r.int(3) - 1))).slice();
    }
    return b.subarray(0, r.int(b.length)).slice();
  },
  size(b, r) {
    const l = layout(b);
    if (l.sizes.length === 0) return undefined;
    const f = r.pick(l.sizes);
    const v = perturbedSize(r, f.value);
    let width: 1 | 3 | 5 | 9 | undefined;
    if (r.chance(0.15)) width = r.pick([3, 5, 9] as const); // non-canonical (or too-short) encodings
    if (width === 3 && v > 0xffff) width = undefined;
    if (width === 5 && v > 0xffffffff) width = undefined;
    if (v >= 253 && width === 1) width = undefined;
    return splice(b, f.pos, f.pos + f.len, compactSize(v, width));
  },
  dupPair(b, r) {
    const ps = allPairs(layout(b));
    if (ps.length === 0) return undefined;
    const { map, pair } = r.pick(ps);
    const copy = b.slice(pair.start, pair.end);
    const at = r.chance(0.5) ? pair.end : r.pick([map.start, ...map.pairs.map((p) => p.end)]);
    return splice(b, at, at, copy);
  },
  copyPair(b, r, ctx) {
    // A pair from any map (of this PSBT or another seed) into some map of this one.
    const l = layout(b);
    if (l.maps.length === 0) return undefined;
    const donor = r.chance(0.3) ? r.pick(ctx.seeds) : b;
    const ps = allPairs(donor === b ? l : layout(donor));
    if (ps.length === 0) return undefined;
    const { pair } = r.pick(ps);
    const target = r.pick(l.maps);
    const at = r.pick([target.start, ...target.pairs.map((p) => p.end)]);
    return splice(b, at, at, donor.slice(pair.start, pair.end));
  },
  swapPairs(b, r) {
    const maps = layout(b).maps.filter((m) => m.pairs.length >= 2);
    if (maps.length === 0) return undefined;
    const m = r.pick(maps);
    const i = r.int(m.pairs.length);
    let j = r.int(m.pairs.length - 1);
    if (j >= i) j++;
    const [x, y] = i < j ? [m.pairs[i]!, m.pairs[j]!] : [m.pairs[j]!, m.pairs[i]!];
    return concat(b.subarray(0, x.start), b.subarray(y.start, y.end), b.subarray(x.end, y.start), b.subarray(x.start, x.end), b.subarray(y.end));
  },
  shuffleMap(b, r) {
    const maps = layout(b).maps.filter((m) => m.pairs.length >= 2);
    if (maps.length === 0) return undefined;
    const m = r.pick(maps);
    const parts = m.pairs.map((p) => b.subarray(p.start, p.end));
    for (let i = parts.length - 1; i > 0; i--) {
      const j = r.int(i + 1);
      [parts[i], parts[j]] = [parts[j]!, parts[i]!];
    }
    const first = m.pairs[0]!.start;
    const last = m.pairs[m.pairs.length - 1]!.end;
    return splice(b, first, last, ...parts);
  },
  swapMaps(b, r) {
    const maps = layout(b).maps.filter((m) => m.sep >= 0);
    if (maps.length < 2) return undefined;
    const i = r.int(maps.length);
    let j = r.int(maps.length - 1);
    if (j >= i) j++;
    const [x, y] = i < j ? [maps[i]!, maps[j]!] : [maps[j]!, maps[i]!];
    return concat(b.subarray(0, x.start), b.subarray(y.start, y.end), b.subarray(x.end, y.start), b.subarray(x.start, x.end), b.subarray(y.end));
  },
  dropPair(b, r) {
    const ps = allPairs(layout(b));
    if (ps.length === 0) return undefined;
    const { pair } = r.pick(ps);
    return splice(b, pair.start, pair.end);
  },
  dropMap(b, r) {
    const maps = layout(b).maps;
    if (maps.length === 0) return undefined;
    const m = r.pick(maps);
    return splice(b, m.start, m.end);
  },
  keyType(b, r) {
    const ps = allPairs(layout(b)).filter((x) => x.pair.keyLen.value > 0);
    if (ps.length === 0) return undefined;
    const { pair } = r.pick(ps);
    const o = b.slice();
    o[pair.keyStart] = r.chance(0.9) ? r.pick(KEY_TYPES) : r.u32() & 0xff;
    return o;
  },
  valueRandom(b, r) {
    const ps = allPairs(layout(b)).filter((x) => x.pair.valLen.value > 0);
    if (ps.length === 0) return undefined;
    const { pair } = r.pick(ps);
    const o = b.slice();
    const n = pair.valLen.value;
    const from = r.chance(0.5) ? pair.valStart : pair.valStart + r.int(n);
    const to = r.chance(0.5) ? pair.valStart + n : Math.min(pair.valStart + n, from + 1 + r.int(8));
    for (let i = from; i < to; i++) o[i] = r.u32() & 0xff;
    return o;
  },
  valueResize(b, r) {
    // Grow or shrink a value (or key) and rewrite its length prefix: structure stays consistent.
    const ps = allPairs(layout(b));
    if (ps.length === 0) return undefined;
    const { pair } = r.pick(ps);
    const isKey = r.chance(0.3);
    const lenField = isKey ? pair.keyLen : pair.valLen;
    const dataStart = isKey ? pair.keyStart : pair.valStart;
    const old = lenField.value;
    const delta = r.chance(0.5) ? -(1 + r.int(Math.max(1, Math.min(old, 33)))) : 1 + r.int(r.chance(0.8) ? 33 : 300);
    const n = Math.max(0, old + delta);
    const data = n <= old ? b.subarray(dataStart, dataStart + n) : concat(b.subarray(dataStart, dataStart + old), r.bytes(n - old));
    return splice(b, lenField.pos, dataStart + old, compactSize(n), data);
  },
  splice(b, r, ctx) {
    const other = r.pick(ctx.seeds);
    const a = r.int(b.length + 1);
    const c = r.int(other.length + 1);
    return concat(b.subarray(0, a), other.subarray(c));
  },
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);
/** How often each mutation is drawn (weights, same order as MUTATION_NAMES). */
const WEIGHTS: Record<string, number> = {
  bitflip: 12, byte: 10, insert: 6, delete: 6, truncate: 8, size: 16, dupPair: 8, copyPair: 6,
  swapPairs: 5, shuffleMap: 3, swapMaps: 4, dropPair: 5, dropMap: 3, keyType: 8, valueRandom: 8,
  valueResize: 10, splice: 3,
};
export const WEIGHTED: string[] = MUTATION_NAMES.flatMap((n) => Array<string>(WEIGHTS[n] ?? 1).fill(n));

/** Base64 text edits (what DecodeBase64 sees): characters, padding, length. */
export function mutateBase64(text: string, r: Rng): string {
  const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
  const pos = r.int(text.length + 1);
  switch (r.int(6)) {
    case 0: return text.slice(0, pos) + ALPHA[r.int(ALPHA.length)] + text.slice(pos + 1);
    case 1: return text.slice(0, pos) + r.pick(['=', '==', ' ', '\n', '-', '_', '\u00e9', '\u0000']) + text.slice(pos);
    case 2: return text.slice(0, pos) + text.slice(pos + 1 + r.int(3));
    case 3: return text.replace(/=+$/, '') + r.pick(['', '=', '==', '===']);
    case 4: return text.slice(0, pos);
    default: return text.slice(0, pos) + ALPHA[r.int(64)]! + ALPHA[r.int(64)]! + ALPHA[r.int(64)]! + ALPHA[r.int(64)]! + text.slice(pos);
  }
}

export interface FuzzCase {
  /** The base64 text handed to decodePsbt. */
  base64: string;
  /** The PSBT bytes (before any base64 text edit). */
  bytes: Uint8Array;
  /** What was done, for the report and the saved failure. */
  steps: string[];
}

/** Case `index` of run `seed`: a pure function of both. */
export function makeCase(seeds: readonly Uint8Array[], seed: number, index: number): FuzzCase {
  const r = new Rng(seed, index);
  const ctx: MutationContext = { seeds };
  const steps: string[] = [];
  let b: Uint8Array;
  const kind = r.int(100);
  if (kind < 2) {
    b = r.bytes(r.int(r.chance(0.5) ? 64 : 2048));
    if (r.chance(0.5)) b = concat(new Uint8Array([0x70, 0x73, 0x62, 0x74, 0xff]), b);
    steps.push(`garbage ${b.length} bytes`);
  } else {
    const s = r.int(seeds.length);
    b = seeds[s]!;
    steps.push(`seed ${s}`);
  }
  // 1 mutation half of the time, then geometrically more (at most 6).
  let n = 1;
  while (n < 6 && r.chance(0.5)) n++;
  if (kind < 2) n = r.int(2);
  for (let i = 0; i < n; i++) {
    const name = r.pick(WEIGHTED);
    const next = MUTATIONS[name]!(b, r, ctx);
    if (next) {
      b = next;
      steps.push(name);
    }
  }
  let base64 = Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
  if (r.chance(0.03)) {
    base64 = mutateBase64(base64, r);
    steps.push('base64 text');
  }
  return { base64, bytes: b, steps };
}

// ---------------------------------------------------------------------------------------------
// Checking one input
// ---------------------------------------------------------------------------------------------

export interface CheckResult {
  /** 'ok' or Core's error message. */
  outcome: string;
  /** Set when the decoder broke its contract. */
  failure?: string;
  ms: number;
  /** The result text when decoded. */
  text?: string;
}

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e);
}

/** Above this, a first timing is confirmed by a second run (see {@link intrinsicMs}). */
const CONFIRM_MS = 50;

/**
 * The time an input costs the decoder: a wall-clock time above {@link CONFIRM_MS} is confirmed by
 * running `f` again and taking the smaller of that run's wall and CPU time (and of the first
 * time). Descheduling on a loaded machine inflates only wall time, parallel GC threads only CPU
 * time; a genuinely slow input is slow in both, every time.
 */
function intrinsicMs(first: number, f: () => unknown): number {
  if (first <= CONFIRM_MS) return first;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  try {
    f();
  } catch {
    return first; // it did not throw the first time; reported by the caller
  }
  const wall = performance.now() - w0;
  const c = process.cpuUsage(c0);
  return Math.min(first, wall, (c.user + c.system) / 1000);
}

/**
 * decodePsbt on one input: a result (written with writeJson) or `{ok: false, code: -22,
 * message: 'TX decode failed …'}`; nothing thrown; at most {@link MAX_MS_PER_INPUT}. With
 * `crossCheck`, decodePsbtJson must give the same text or the same error.
 */
export function checkInput(base64: string, crossCheck: boolean): CheckResult {
  let outcome: string;
  let text: string | undefined;
  const decode = (): string | undefined => {
    const r = decodePsbt(base64, REGTEST);
    return r.ok ? writeJson(r.result) : undefined;
  };
  const t0 = performance.now();
  try {
    const r = decodePsbt(base64, REGTEST);
    if (r.ok) {
      text = writeJson(r.result);
      outcome = 'ok';
    } else {
      if (r.code !== -22 || typeof r.message !== 'string' || !r.message.startsWith('TX decode failed ')) {
        return { outcome: String(r.message), failure: `untyped error ${JSON.stringify(r)}`, ms: performance.now() - t0 };
      }
      outcome = r.message;
    }
  } catch (e) {
    return { outcome: 'threw', failure: `decodePsbt threw: ${describeError(e)}`, ms: performance.now() - t0 };
  }
  let ms = intrinsicMs(performance.now() - t0, decode);
  if (ms > MAX_MS_PER_INPUT) return { outcome, failure: `decodePsbt took ${ms.toFixed(0)} ms (> ${MAX_MS_PER_INPUT} ms)`, ms, text };
  if (crossCheck) {
    const t1 = performance.now();
    let j: ReturnType<typeof decodePsbtJson>;
    try {
      j = decodePsbtJson(base64, REGTEST);
    } catch (e) {
      return { outcome, failure: `decodePsbtJson threw: ${describeError(e)}`, ms };
    }
    const ms2 = intrinsicMs(performance.now() - t1, () => decodePsbtJson(base64, REGTEST));
    ms = Math.max(ms, ms2);
    if (ms2 > MAX_MS_PER_INPUT) return { outcome, failure: `decodePsbtJson took ${ms2.toFixed(0)} ms (> ${MAX_MS_PER_INPUT} ms)`, ms, text };
    const other = j.ok ? 'ok' : j.message;
    if (other !== outcome) return { outcome, failure: `decodePsbtJson disagrees: ${other} vs ${outcome}`, ms, text };
    if (j.ok && j.json !== text) return { outcome, failure: 'decodePsbtJson text differs from writeJson(decodePsbt().result)', ms, text };
    const failure = checkOtherRoles(base64);
    if (failure) return { outcome, failure, ms, text };
  }
  return { outcome, ms, text };
}

/** Core v30's rules, the writer and the converter on one input (see checkInput); a failure's text or undefined. */
function checkOtherRoles(base64: string): string | undefined {
  try {
    const old = decodePsbt(base64, REGTEST, { coreVersion: 30 });
    if (!old.ok && (old.code !== -22 || !old.message.startsWith('TX decode failed '))) return `untyped Core v30 error ${JSON.stringify(old)}`;
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.toString('base64') !== base64) return undefined; // not canonical base64: nothing decoded
    const r = parsePsbt(bytes);
    if (!r.ok) return undefined;
    const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
    const written = serializePsbt(r.psbt);
    const again = parsePsbt(written);
    if (!again.ok) return `the PSBT as written does not read back: ${again.message}`;
    if (hex(serializePsbt(again.psbt)) !== hex(written)) return 'the PSBT read back is written differently';
    const to = r.psbt.version === 0 ? 2 : 0;
    const there = convertPsbt(r.psbt, to);
    if (!there.ok) return r.psbt.version === 2 && v0Obstacle(r.psbt) === there.message ? undefined : `convert to ${to} failed: ${there.message}`;
    const converted = parsePsbt(serializePsbt(there.psbt));
    if (!converted.ok) return `the PSBT converted to version ${to} does not read back: ${converted.message}`;
    const back = convertPsbt(converted.psbt, r.psbt.version);
    if (!back.ok) return `convert back to ${r.psbt.version} failed: ${back.message}`;
    const txHex = (p: Psbt): string => hex(serializeTx(unsignedTxOf(p)!, { witness: false }));
    if (txHex(converted.psbt) !== txHex(r.psbt)) return `the PSBT converted to version ${to} describes another transaction`;
    const lossless =
      r.psbt.version === 0 ||
      (r.psbt.fallbackLocktime !== undefined && r.psbt.inputs.every((i) => i.hasSequence && i.timeLocktime === undefined && i.heightLocktime === undefined) && r.psbt.txModifiable === undefined);
    if (lossless && hex(serializePsbt(back.psbt)) !== hex(written)) return `version ${r.psbt.version} → ${to} → ${r.psbt.version} does not give the PSBT back`;
    return undefined;
  } catch (e) {
    return `a PSBT role threw: ${describeError(e)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------

/** BIP174's global-xpub example with its missing final separator added (mainnet xpub). */
const BIP174_XPUB_EXAMPLE =
  'cHNidP8BAJ0BAAAAAnEOp2q0XFy2Q45gflnMA3YmmBgFrp4N/ZCJASq7C+U1AQAAAAD/////GQmU1qizyMgsy8+y+6QQaqBmObhyqNRHRlwNQliNbWcAAAAAAP////8CAOH1BQAAAAAZdqkUtrwsDuVlWoQ9ea/t0MzD991kNAmIrGBa9AUAAAAAFgAUEYjvjkzgRJ6qyPsUHL9aEXbmoIgAAAAATwEEiLIeA55TDKyAAAAAPbyKXJdp8DGxfnf+oVGGAyIaGP0Y8rmlTGyMGsdcvDUC8jBYSxVdHH8c1FEgplPEjWULQxtnxbLBPyfXFCA3wWkQJ1acUDEAAIAAAACAAAAAgAABAR8A4fUFAAAAABYAFDO5gvkbKPFgySC0q5XljOUN2jpKIgIDMJaA8zx9446mpHzU7NZvH1pJdHxv+4gI7QkDkkPjrVxHMEQCIC1wTO2DDFapCTRL10K2hS3M0QPpY7rpLTjnUlTSu0JFAiAthsQ3GV30bAztoITyopHD2i1kBw92v5uQsZXn7yj3cgEiBgMwloDzPH3jjqakfNTs1m8fWkl0fG/7iAjtCQOSQ+OtXBgnVpxQMQAAgAAAAIAAAACAAAAAAAEAAAAAAQEfAOH1BQAAAAAWABQ4j7lEMH63fvRRl9CwskXgefAR3iICAsd3Fh9z0LfHK57nveZQKT0T8JW8dlatH1Jdpf0uELEQRzBEAiBMsftfhpyULg4mEAV2ElQ5F5rojcqKncO6CPeVOYj6pgIgUh9JynkcJ9cOJzybFGFphZCTYeJb4nTqIA1+CIJ+UU0BIgYCx3cWH3PQt8crnue95lApPRPwlbx2Vq0fUl2l/S4QsRAYJ1acUDEAAIAAAACAAAAAgAAAAAAAAAAAAAA=';

/** Seeds the recordings lack: global xpubs with paths, a version field, proprietary and unknown keys in every map. */
export function craftedSeeds(): Uint8Array[] {
  const xpub = concat(Buffer.from(BIP174_XPUB_EXAMPLE, 'base64'), new Uint8Array([0]));
  const hex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
  const utx = '02000000' + '01' + '11'.repeat(32) + '00000000' + '00' + 'fdffffff' + '01' + '1027000000000000' + '16' + '0014' + '22'.repeat(20) + '00000000';
  const kv = (k: string, v: string): string => compactSizeHex(k.length / 2) + k + compactSizeHex(v.length / 2) + v;
  const misc = hex(
    '70736274ff' + kv('00', utx) + kv('fb', '00000000') + kv('fc02beef0001', 'cafe') + kv('f0aa', '99') + '00' +
      kv('01', '8813000000000000' + '160014' + '33'.repeat(20)) + kv('03', '81000000') + kv('fc02beef0102', '01') + kv('f1', '') + '00' +
      kv('fc02beef0203', 'ff') + kv('f2bb', '77') + '00',
  );
  return [xpub, misc];
}

function compactSizeHex(n: number): string {
  return Buffer.from(compactSize(n)).toString('hex');
}

/** The recordings whose decodepsbt parameters seed the fuzzer: Core v30's, and current Core's (PSBT version 2 among them). */
const SEED_FILES: CoreFile[] = ['bitcoin-core-v30.jsonl', 'bitcoin-core-psbt-vectors.jsonl', 'bitcoin-core-spend.jsonl'];

/** The recorded decodepsbt parameters that base64-decode, as bytes (valid and invalid PSBTs, versions 0 and 2). */
export function fixtureSeeds(): Uint8Array[] {
  const out: Uint8Array[] = [];
  const seen = new Set<string>();
  for (const rec of SEED_FILES.flatMap((f) => coreFileGroup(f, 'decodepsbt'))) {
    const p = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
    if (typeof p !== 'string' || p.length === 0 || seen.has(p)) continue;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(p) || p.length % 4 !== 0) continue;
    seen.add(p);
    out.push(new Uint8Array(Buffer.from(p, 'base64')));
  }
  return out;
}

/** What the fuzzer mutates: the recordings, then the crafted seeds. */
export function allSeeds(): Uint8Array[] {
  return [...fixtureSeeds(), ...craftedSeeds()];
}

export interface FuzzFailure {
  index: number;
  reason: string;
  steps: string[];
  ms: number;
  /** Where the input was saved (base name; .psbt bytes, .b64 text, .json details). */
  file?: string;
}

export interface FuzzReport {
  seed: number;
  count: number;
  ok: number;
  errors: number;
  failures: FuzzFailure[];
  /** Error message → count, most frequent first. */
  histogram: [string, number][];
  /** Mutation name → how many times it was applied. */
  mutations: [string, number][];
  maxMs: number;
  slowestIndex: number;
  elapsedMs: number;
  crossChecked: number;
}

export interface FuzzOptions {
  count: number;
  seed: number;
  /** First case index (default 0). */
  start?: number;
  /** Where failing inputs go; null to keep them in memory only. */
  failureDir?: string | null;
  /** Run decodePsbtJson against decodePsbt on every n-th case (default 4). */
  crossCheckEvery?: number;
  /** Called every `progressEvery` cases. */
  onProgress?: (done: number, report: FuzzReport) => void;
  progressEvery?: number;
  /** Seeds to mutate (default: allSeeds()). */
  seeds?: Uint8Array[];
  /** Watchdog: save the input of a case still running after this many ms (0 = off; default 10,000). */
  hangMs?: number;
  /** What the watchdog does after saving: kill the process (CLI) or only save (under a test runner, whose timeout ends it). */
  hangKill?: boolean;
}

function saveFailure(dir: string, seed: number, index: number, c: FuzzCase, reason: string, ms: number): string {
  mkdirSync(dir, { recursive: true });
  const base = `seed${seed}-case${index}`;
  writeFileSync(join(dir, `${base}.psbt`), c.bytes);
  writeFileSync(join(dir, `${base}.b64`), c.base64 + '\n');
  writeFileSync(
    join(dir, `${base}.json`),
    JSON.stringify({ seed, index, reason, ms, steps: c.steps, replay: `npm run fuzz -- --seed ${seed} --case ${index}`, base64: c.base64 }, null, 2) + '\n',
  );
  return base;
}

/** Shared memory between the fuzz loop and the watchdog thread: state, case index, start time, input. */
const WATCH_INPUT_MAX = 4 * 1024 * 1024;

interface Watchdog {
  begin(index: number, base64: string): void;
  end(): void;
  stop(): Promise<void>;
}

const WATCHDOG_SRC = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { sab, dir, seed, hangMs, kill } = workerData;
const i32 = new Int32Array(sab, 0, 4);
const f64 = new Float64Array(sab, 16, 1);
const data = new Uint8Array(sab, 24);
let saved = -1;
setInterval(() => {
  if (Atomics.load(i32, 3) === 1) process.exit(0);
  if (Atomics.load(i32, 0) !== 1) return;
  const index = Atomics.load(i32, 1);
  const elapsed = Date.now() - f64[0];
  if (elapsed < hangMs || saved === index) return;
  saved = index;
  const len = Atomics.load(i32, 2);
  const text = Buffer.from(data.subarray(0, len)).toString('latin1');
  const base = 'seed' + seed + '-case' + index + '-hang';
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, base + '.b64'), text + '\\n');
    fs.writeFileSync(path.join(dir, base + '.json'), JSON.stringify({ seed, index, reason: 'still decoding after ' + elapsed + ' ms', replay: 'npm run fuzz -- --seed ' + seed + ' --case ' + index }, null, 2) + '\\n');
  } catch (e) {}
  process.stderr.write('fuzz watchdog: case ' + index + ' still decoding after ' + elapsed + ' ms; input saved to ' + path.join(dir, base + '.b64') + '\\n');
  if (kill) process.kill(process.pid, 'SIGKILL');
}, 250);
`;

function startWatchdog(dir: string, seed: number, hangMs: number, kill: boolean): Watchdog {
  const sab = new SharedArrayBuffer(24 + WATCH_INPUT_MAX);
  const i32 = new Int32Array(sab, 0, 4);
  const f64 = new Float64Array(sab, 16, 1);
  const data = new Uint8Array(sab, 24);
  const worker = new Worker(WATCHDOG_SRC, { eval: true, workerData: { sab, dir, seed, hangMs, kill } });
  worker.unref();
  return {
    begin(index, base64) {
      const n = Math.min(base64.length, WATCH_INPUT_MAX);
      // base64 is ASCII (or a few odd characters after text edits): one byte per character is enough to replay.
      for (let i = 0; i < n; i++) data[i] = base64.charCodeAt(i) & 0xff;
      Atomics.store(i32, 2, n);
      Atomics.store(i32, 1, index);
      f64[0] = Date.now();
      Atomics.store(i32, 0, 1);
    },
    end() {
      Atomics.store(i32, 0, 0);
    },
    async stop() {
      Atomics.store(i32, 3, 1);
      await worker.terminate();
    },
  };
}

/** Fuzzes `count` cases; never throws for decoder misbehaviour (that is in `failures`). */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const seeds = opts.seeds ?? allSeeds();
  const start = opts.start ?? 0;
  const every = opts.crossCheckEvery ?? 4;
  const dir = opts.failureDir === undefined ? FAILURE_DIR : opts.failureDir;
  const hangMs = opts.hangMs ?? 10_000;
  const watchdog = hangMs > 0 ? startWatchdog(dir ?? FAILURE_DIR, opts.seed, hangMs, opts.hangKill ?? false) : undefined;
  const hist = new Map<string, number>();
  const muts = new Map<string, number>();
  const report: FuzzReport = {
    seed: opts.seed,
    count: 0,
    ok: 0,
    errors: 0,
    failures: [],
    histogram: [],
    mutations: [],
    maxMs: 0,
    slowestIndex: -1,
    elapsedMs: 0,
    crossChecked: 0,
  };
  const finish = (): FuzzReport => {
    report.histogram = [...hist.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    report.mutations = [...muts.entries()].sort((a, b) => b[1] - a[1]);
    return report;
  };
  // Reference texts of the unmutated seeds: decoded again now and then, they must not change.
  const reference = seeds.map((s) => checkInput(Buffer.from(s).toString('base64'), false).text ?? '');
  const recheckSeeds = (index: number): void => {
    seeds.forEach((s, k) => {
      const b64 = Buffer.from(s).toString('base64');
      const again = checkInput(b64, false).text ?? '';
      if (again !== reference[k]) {
        report.failures.push({ index, reason: `seed ${k} decodes differently after case ${index - 1}: state leaks between decodes`, steps: [`seed ${k}`], ms: 0 });
      }
    });
  };

  const t0 = performance.now();
  const progressEvery = opts.progressEvery ?? 10_000;
  try {
    for (let i = start; i < start + opts.count; i++) {
      const c = makeCase(seeds, opts.seed, i);
      for (let k = 1; k < c.steps.length; k++) muts.set(c.steps[k]!, (muts.get(c.steps[k]!) ?? 0) + 1);
      const cross = every > 0 && i % every === 0;
      watchdog?.begin(i, c.base64);
      const r = checkInput(c.base64, cross);
      watchdog?.end();
      report.count++;
      if (cross) report.crossChecked++;
      if (r.outcome === 'ok') report.ok++;
      else if (!r.failure) {
        report.errors++;
        hist.set(r.outcome, (hist.get(r.outcome) ?? 0) + 1);
      }
      if (r.ms > report.maxMs) {
        report.maxMs = r.ms;
        report.slowestIndex = i;
      }
      if (r.failure) {
        const f: FuzzFailure = { index: i, reason: r.failure, steps: c.steps, ms: r.ms };
        if (dir) f.file = join(dir, saveFailure(dir, opts.seed, i, c, r.failure, r.ms));
        report.failures.push(f);
      }
      if ((i - start + 1) % progressEvery === 0) {
        recheckSeeds(i + 1);
        opts.onProgress?.(i - start + 1, finish());
      }
    }
    recheckSeeds(start + opts.count);
  } finally {
    await watchdog?.stop();
  }
  report.elapsedMs = performance.now() - t0;
  return finish();
}

export function formatReport(r: FuzzReport, top = 10): string {
  const lines: string[] = [];
  const perCase = r.count ? (r.elapsedMs * 1000) / r.count : 0;
  lines.push(
    `psbt fuzz: seed ${r.seed}, ${r.count.toLocaleString('en-US')} inputs in ${(r.elapsedMs / 1000).toFixed(1)} s ` +
      `(${perCase.toFixed(0)} µs/input; ${r.crossChecked.toLocaleString('en-US')} cross-checked with decodePsbtJson)`,
  );
  lines.push(`  decoded ${r.ok.toLocaleString('en-US')}, typed errors ${r.errors.toLocaleString('en-US')}, failures ${r.failures.length}`);
  lines.push(`  slowest input ${r.maxMs.toFixed(2)} ms (case ${r.slowestIndex}; limit ${MAX_MS_PER_INPUT} ms)`);
  lines.push(`  errors by message (top ${top} of ${r.histogram.length}):`);
  for (const [msg, n] of r.histogram.slice(0, top)) lines.push(`    ${n.toString().padStart(9)}  ${msg}`);
  lines.push(`  mutations applied: ${r.mutations.map(([n, c]) => `${n} ${c}`).join(', ')}`);
  for (const f of r.failures.slice(0, 20)) {
    lines.push(`  FAIL case ${f.index} [${f.steps.join(' > ')}]: ${f.reason.split('\n')[0]}${f.file ? ` (saved ${f.file}.*)` : ''}`);
  }
  if (r.failures.length > 20) lines.push(`  … ${r.failures.length - 20} more failures`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

const USAGE = `usage: npm run fuzz [-- --count N] [--seed S] [--start I] [--case I] [--out DIR] [--quiet]
  --count N   inputs to try (default 1000000)
  --seed S    PRNG seed (default 1); case I of seed S is always the same input
  --start I   first case index (default 0)
  --case I    replay one case: print its mutations and what the decoder says
  --out DIR   where failing inputs are saved (default test-results/fuzz-failures)
  --quiet     no progress lines
Exit code 0 when no input failed, 1 otherwise.`;

async function cli(argv: string[]): Promise<number> {
  let count = 1_000_000;
  let seed = 1;
  let start = 0;
  let only: number | undefined;
  let out = FAILURE_DIR;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = (): number => {
      const v = argv[++i];
      const n = Number(v);
      if (v === undefined || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new Error(`${a} needs a non-negative integer`);
      return n;
    };
    if (a === '--count') count = num();
    else if (a === '--seed') seed = num();
    else if (a === '--start') start = num();
    else if (a === '--case') only = num();
    else if (a === '--out') out = resolve(argv[++i] ?? '.');
    else if (a === '--quiet') quiet = true;
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      return 0;
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (only !== undefined) {
    const c = makeCase(allSeeds(), seed, only);
    const r = checkInput(c.base64, true);
    console.log(`case ${only} of seed ${seed}: ${c.steps.join(' > ')}`);
    console.log(`input (${c.bytes.length} bytes): ${c.base64}`);
    console.log(`outcome: ${r.outcome} in ${r.ms.toFixed(2)} ms${r.failure ? `\nFAIL: ${r.failure}` : ''}`);
    return r.failure ? 1 : 0;
  }
  const report = await runFuzz({
    count,
    seed,
    start,
    failureDir: out,
    hangKill: true,
    progressEvery: count >= 200_000 ? 100_000 : 10_000,
    onProgress: quiet
      ? undefined
      : (done, r) => {
          process.stderr.write(
            `  ${done.toLocaleString('en-US')} / ${count.toLocaleString('en-US')}: ${r.ok} decoded, ${r.errors} errors, ${r.failures.length} failures, slowest ${r.maxMs.toFixed(1)} ms\n`,
          );
        },
  });
  console.log(formatReport(report));
  return report.failures.length ? 1 : 0;
}

const invoked = process.argv[1] ? pathToFileURL(resolve(process.argv[1])).href : '';
if (import.meta.url === invoked) {
  cli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exitCode = 2;
    },
  );
}
