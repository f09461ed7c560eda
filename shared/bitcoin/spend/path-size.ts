/**
 * The size of spending a coin along one spending path of its descriptor (wsh/sh-wsh miniscript,
 * tr() key path and script leaves): the largest witness any satisfaction along that path can
 * have, so a fee computed from it is never below the one asked for once signed (size.ts's
 * contract: ECDSA signatures at 72 bytes with the sighash byte, Schnorr at 65).
 *
 * The witness sizes are Core's (script/miniscript.h CalcWitnessSize: a signature 1 + 72 or
 * 1 + 65 in tapscript, a key 1 + 33 or 1 + 32, multi's dummy, or_i's 0x01 / empty push, d:'s and
 * j:'s dissatisfactions, thresh's dissatisfied subs), written anew and restricted to the chosen
 * path: the branches of or_* / andor / thresh the path does not take are dissatisfied, at their
 * largest dissatisfaction. Two places where we count more than Core, on purpose: a hash
 * fragment's dissatisfaction (Core has none; a 32-byte non-preimage is the malleable one, 33
 * bytes) and a tr() script leaf (Core's TRDescriptor::MaxSatSize assumes the key path, a
 * "FIXME: can lead to very large underestimations"): we count the leaf's script and its control
 * block (33 + 32 × depth), as BIP341 spends it.
 *
 * The paths are those of policy.ts (same enumeration, same identities), so a path the user picks
 * there is sized here by its id.
 */
import type { Descriptor } from '../descriptor/api';
import type { KeyExpr } from '../descriptor/keys';
import type { Node } from '../descriptor/parse';
import type { MsNode } from '../miniscript/node';
import { analyzePolicy, PolicyError, subsets, type HashLock, type Policy, type SpendPath } from '../miniscript/policy';
import { toHex } from '../hex';
import { compactSizeLen } from '../tx';
import { SpendError } from './errors';
import { multisigScriptSize, WITNESS_SCALE_FACTOR, type InputKind } from './size';

/** Witness bytes (each element with its length prefix) and the number of elements. */
interface Size {
  b: number;
  n: number;
}

const ZERO: Size = { b: 0, n: 0 };
const add = (...xs: Size[]): Size => xs.reduce((a, x) => ({ b: a.b + x.b, n: a.n + x.n }), ZERO);
const maxSize = (a: Size, x: Size): Size => ({ b: Math.max(a.b, x.b), n: Math.max(a.n, x.n) });

interface RawPath {
  sigs: { k: number; keys: KeyExpr[] }[];
  older?: number;
  after?: number;
  hashes: HashLock[];
}

interface Branch {
  raw: RawPath;
  sat: Size;
}

interface Sized {
  branches: Branch[];
  /** The largest dissatisfaction, or null when the fragment cannot be dissatisfied. */
  dsat: Size | null;
}

const EMPTY: RawPath = { sigs: [], hashes: [] };

function andRaw(a: RawPath, b: RawPath): RawPath {
  const out: RawPath = { sigs: [...a.sigs, ...b.sigs], hashes: [...a.hashes, ...b.hashes] };
  // policy.ts has already refused mixed kinds; the larger lock is what the path needs
  const older = a.older === undefined ? b.older : b.older === undefined ? a.older : Math.max(a.older, b.older);
  const after = a.after === undefined ? b.after : b.after === undefined ? a.after : Math.max(a.after, b.after);
  if (older !== undefined) out.older = older;
  if (after !== undefined) out.after = after;
  return out;
}

function product(xs: Branch[], ys: Branch[]): Branch[] {
  const out: Branch[] = [];
  for (const x of xs) for (const y of ys) out.push({ raw: andRaw(x.raw, y.raw), sat: add(x.sat, y.sat) });
  return out;
}

function plus(bs: Branch[], extra: Size | null): Branch[] {
  if (extra === null) return []; // a branch that needs an impossible dissatisfaction is no satisfaction
  return bs.map((b) => ({ raw: b.raw, sat: add(b.sat, extra) }));
}

const addN = (a: Size | null, b: Size | null): Size | null => (a === null || b === null ? null : add(a, b));
const orN = (a: Size | null, b: Size | null): Size | null => (a === null ? b : b === null ? a : maxSize(a, b));

function singleKey(bs: Branch[]): KeyExpr | null {
  if (bs.length !== 1) return null;
  const p = bs[0]!.raw;
  if (p.older !== undefined || p.after !== undefined || p.hashes.length || p.sigs.length !== 1) return null;
  const s = p.sigs[0]!;
  return s.k === 1 && s.keys.length === 1 ? s.keys[0]! : null;
}

/** Size of a signature and of a key push in the node's context. */
function units(tap: boolean): { sig: number; key: number } {
  return tap ? { sig: 1 + 65, key: 1 + 32 } : { sig: 1 + 72, key: 1 + 33 };
}

function msSized(n: MsNode, keys: KeyExpr[]): Sized {
  const { sig, key } = units(n.ctx === 'tapscript');
  const sub = (i: number): Sized => msSized(n.subs[i]!, keys);
  const one = (raw: RawPath, sat: Size, dsat: Size | null): Sized => ({ branches: [{ raw, sat }], dsat });
  switch (n.frag) {
    case 'just_0':
      return { branches: [], dsat: ZERO };
    case 'just_1':
      return one(EMPTY, ZERO, null);
    case 'pk_k':
      return one({ sigs: [{ k: 1, keys: [keys[n.keys[0]!]!] }], hashes: [] }, { b: sig, n: 1 }, { b: 1, n: 1 });
    case 'pk_h':
      return one({ sigs: [{ k: 1, keys: [keys[n.keys[0]!]!] }], hashes: [] }, { b: sig + key, n: 2 }, { b: 1 + key, n: 2 });
    case 'multi':
      return one({ sigs: [{ k: n.k, keys: n.keys.map((i) => keys[i]!) }], hashes: [] }, { b: 1 + n.k * sig, n: n.k + 1 }, { b: 1 + n.k, n: n.k + 1 });
    case 'multi_a': {
      const total = n.keys.length;
      return one({ sigs: [{ k: n.k, keys: n.keys.map((i) => keys[i]!) }], hashes: [] }, { b: n.k * sig + (total - n.k), n: total }, { b: total, n: total });
    }
    case 'older':
      return one({ sigs: [], hashes: [], older: n.k }, ZERO, null);
    case 'after':
      return one({ sigs: [], hashes: [], after: n.k }, ZERO, null);
    case 'sha256':
    case 'hash256':
    case 'ripemd160':
    case 'hash160':
      return one({ sigs: [], hashes: [{ fn: n.frag, digest: toHex(n.data) }] }, { b: 33, n: 1 }, { b: 33, n: 1 });
    case 'wrap_a':
    case 'wrap_s':
    case 'wrap_c':
    case 'wrap_n':
      return sub(0);
    case 'wrap_d': {
      const x = sub(0);
      return { branches: plus(x.branches, { b: 2, n: 1 }), dsat: { b: 1, n: 1 } };
    }
    case 'wrap_v':
      return { branches: sub(0).branches, dsat: null };
    case 'wrap_j':
      return { branches: sub(0).branches, dsat: { b: 1, n: 1 } };
    case 'and_v': {
      const [x, y] = [sub(0), sub(1)];
      return { branches: product(x.branches, y.branches), dsat: null };
    }
    case 'and_b': {
      const [x, y] = [sub(0), sub(1)];
      return { branches: product(x.branches, y.branches), dsat: addN(x.dsat, y.dsat) };
    }
    case 'or_b': {
      const [x, z] = [sub(0), sub(1)];
      return { branches: [...plus(x.branches, z.dsat), ...plus(z.branches, x.dsat)], dsat: addN(x.dsat, z.dsat) };
    }
    case 'or_c': {
      const [x, z] = [sub(0), sub(1)];
      return { branches: [...x.branches, ...plus(z.branches, x.dsat)], dsat: null };
    }
    case 'or_d': {
      const [x, z] = [sub(0), sub(1)];
      return { branches: [...x.branches, ...plus(z.branches, x.dsat)], dsat: addN(x.dsat, z.dsat) };
    }
    case 'or_i': {
      const [x, z] = [sub(0), sub(1)];
      const left = { b: 2, n: 1 };
      const right = { b: 1, n: 1 };
      return {
        branches: [...plus(x.branches, left), ...plus(z.branches, right)],
        dsat: orN(addN(x.dsat, left), addN(z.dsat, right)),
      };
    }
    case 'andor': {
      const [x, y, z] = [sub(0), sub(1), sub(2)];
      return { branches: [...product(x.branches, y.branches), ...plus(z.branches, x.dsat)], dsat: addN(x.dsat, z.dsat) };
    }
    case 'thresh':
      return threshSized(n, keys);
  }
}

/** thresh(k, …) as policy.ts enumerates it: its single-key subs as one threshold, beside each choice of its other subs. */
function threshSized(n: MsNode, keys: KeyExpr[]): Sized {
  const each = n.subs.map((s) => msSized(s, keys));
  const single = each.map((e) => singleKey(e.branches));
  const singleIdx = each.map((_, i) => i).filter((i) => single[i] !== null);
  const otherIdx = each.map((_, i) => i).filter((i) => single[i] === null);
  const singles = singleIdx.map((i) => single[i]!);
  let dsatAll: Size | null = ZERO;
  for (const e of each) dsatAll = addN(dsatAll, e.dsat);
  const out: Branch[] = [];
  for (let j = 0; j <= Math.min(n.k, otherIdx.length); j++) {
    const fromKeys = n.k - j;
    if (fromKeys > singles.length) continue;
    // the single-key subs: fromKeys satisfied, the rest dissatisfied; the largest such choice
    const gains = singleIdx.map((i) => ({ sat: each[i]!.branches[0]!.sat, dsat: each[i]!.dsat }));
    if (gains.some((g) => g.dsat === null)) continue;
    gains.sort((a, b) => b.sat.b - b.dsat!.b - (a.sat.b - a.dsat!.b));
    let keysSize: Size = ZERO;
    gains.forEach((g, i) => (keysSize = add(keysSize, i < fromKeys ? g.sat : g.dsat!)));
    for (const pick of subsets(otherIdx.length, j)) {
      const rest = otherIdx.filter((_, i) => !pick.includes(i));
      let restDsat: Size | null = ZERO;
      for (const i of rest) restDsat = addN(restDsat, each[i]!.dsat);
      if (restDsat === null) continue;
      let acc: Branch[] = [{ raw: fromKeys ? { sigs: [{ k: fromKeys, keys: singles }], hashes: [] } : EMPTY, sat: add(keysSize, restDsat) }];
      for (const i of pick) acc = product(acc, each[otherIdx[i]!]!.branches);
      out.push(...acc);
    }
  }
  return { branches: out, dsat: dsatAll };
}

/** A non-miniscript script node (pk, pkh, multi, multi_a in a leaf or wsh): its branches and script length. */
function nodeSized(n: Node, tap: boolean): { sized: Sized; scriptLen: number } {
  const { sig, key } = units(tap);
  switch (n.t) {
    case 'ms':
      return { sized: msSized(n.ms, n.keys), scriptLen: n.ms.scriptLen };
    case 'pk':
      return { sized: { branches: [{ raw: { sigs: [{ k: 1, keys: [n.key] }], hashes: [] }, sat: { b: sig, n: 1 } }], dsat: null }, scriptLen: key + 1 };
    case 'pkh':
      return { sized: { branches: [{ raw: { sigs: [{ k: 1, keys: [n.key] }], hashes: [] }, sat: { b: sig + key, n: 2 } }], dsat: null }, scriptLen: 25 };
    case 'multi':
      return {
        sized: { branches: [{ raw: { sigs: [{ k: n.k, keys: n.keys }], hashes: [] }, sat: { b: 1 + n.k * sig, n: n.k + 1 } }], dsat: null },
        scriptLen: multisigScriptSize(n.k, n.keys.length),
      };
    case 'multi_a': {
      const total = n.keys.length;
      // <key> CHECKSIG (<key> CHECKSIGADD)… <k> NUMEQUAL
      const scriptLen = total * (key + 1) + scriptNumPushSize(n.k) + 1;
      return { sized: { branches: [{ raw: { sigs: [{ k: n.k, keys: n.keys }], hashes: [] }, sat: { b: n.k * sig + (total - n.k), n: total } }], dsat: null }, scriptLen };
    }
    default:
      throw new SpendError('spend.unsupported_input', `Cannot size a spending path of a ${n.t}() script`, { what: n.t });
  }
}

function scriptNumPushSize(k: number): number {
  if (k <= 16) return 1;
  let bytes = 0;
  for (let v = k; v > 0; v >>= 8) bytes++;
  if ((k >> ((bytes - 1) * 8)) & 0x80) bytes++;
  return 1 + bytes;
}

/** One spending path's input size. */
export interface PathInputSize {
  pathId: string;
  /** Witness bytes, with the stack item count (1 WU each). */
  witness: number;
  /** scriptSig bytes without its length prefix (sh(wsh()): the 34-byte push of the witness program). */
  scriptSig: number;
  /** The input's weight: outpoint, sequence, scriptSig with its length ×4, plus the witness. */
  weight: number;
  /** ceil(weight / 4), as coin selection prices coins. */
  vsize: number;
}

/** The dedupe key policy.ts gives each path (same fields, same order). */
function pathKey(kind: SpendPath['kind'], leaf: number | undefined, sigs: { k: number; keys: number[] }[], older: number | undefined, after: number | undefined, hashes: HashLock[]): string {
  return JSON.stringify([kind, leaf, sigs, older, after, hashes]);
}

function canonicalSigs(raw: RawPath, indexOf: (k: KeyExpr) => number): { k: number; keys: number[] }[] {
  const all: number[] = [];
  const groups: { k: number; keys: number[] }[] = [];
  for (const s of raw.sigs) {
    const keys = s.keys.map(indexOf);
    if (s.k === 1 && keys.length === 1) all.push(keys[0]!);
    else groups.push({ k: s.k, keys });
  }
  return all.length ? [{ k: all.length, keys: all }, ...groups] : groups;
}

function finishInput(pathId: string, witness: number, scriptSig: number): PathInputSize {
  const base = 32 + 4 + 4 + compactSizeLen(scriptSig) + scriptSig;
  const weight = base * WITNESS_SCALE_FACTOR + witness;
  return { pathId, witness, scriptSig, weight, vsize: Math.ceil(weight / WITNESS_SCALE_FACTOR) };
}

/**
 * The input size of each of the descriptor's spending paths (by SpendPath.id), with the policy they
 * belong to. Throws SpendError('spend.unsupported_input') for a descriptor whose paths cannot be sized
 * (pkh/wpkh/sh-multi and other single-path descriptors are size.ts's), PolicyError from the policy.
 */
export function pathInputSizes(d: Descriptor): { policy: Policy; sizes: Map<string, PathInputSize> } {
  const { policy, exprs } = analyzePolicy(d);
  const index = new Map<KeyExpr, number>();
  exprs.forEach((list, i) => list.forEach((k) => index.set(k, i)));
  const indexOf = (k: KeyExpr): number => {
    const i = index.get(k);
    if (i === undefined) throw new PolicyError('A key of the script is not in the policy');
    return i;
  };
  // per path key: the largest witness of its branches (without the script/control-block part)
  const found = new Map<string, Size>();
  const collect = (branches: Branch[], kind: SpendPath['kind'], leaf: number | undefined): void => {
    for (const br of branches) {
      const k = pathKey(kind, leaf, canonicalSigs(br.raw, indexOf), br.raw.older, br.raw.after, br.raw.hashes);
      const prev = found.get(k);
      found.set(k, prev ? maxSize(prev, br.sat) : br.sat);
    }
  };
  const tree = d.tree();
  const sizes = new Map<string, PathInputSize>();
  const fill = (kind: SpendPath['kind'], leaf: number | undefined, total: (s: Size) => number, scriptSig: number): void => {
    for (const p of policy.paths) {
      if (p.kind !== kind || p.leaf !== leaf) continue;
      const s = found.get(pathKey(p.kind, p.leaf, p.sigs, p.older?.value, p.after?.value, p.hashes));
      if (!s) throw new SpendError('spend.unsupported_input', `Cannot size the spending path "${p.words}"`, { what: p.id });
      sizes.set(p.id, finishInput(p.id, total(s), scriptSig));
    }
  };
  if (tree.t === 'wsh' || (tree.t === 'sh' && tree.sub.t === 'wsh')) {
    const inner = tree.t === 'wsh' ? tree.sub : (tree.sub as { sub: Node }).sub;
    const { sized, scriptLen } = nodeSized(inner, false);
    collect(sized.branches, 'script', undefined);
    // stack: the satisfaction's elements and the witnessScript
    fill('script', undefined, (s) => compactSizeLen(s.n + 1) + s.b + compactSizeLen(scriptLen) + scriptLen, tree.t === 'sh' ? 34 + 1 : 0);
  } else if (tree.t === 'tr') {
    tree.leaves.forEach((l, i) => {
      const { sized, scriptLen } = nodeSized(l.node, true);
      collect(sized.branches, 'script', i);
      const cb = 33 + 32 * l.depth;
      fill('script', i, (s) => compactSizeLen(s.n + 2) + s.b + compactSizeLen(scriptLen) + scriptLen + compactSizeLen(cb) + cb, 0);
    });
    const kp = policy.paths.find((p) => p.kind === 'key-path');
    // key path: one 65-byte Schnorr signature (64 with SIGHASH_DEFAULT)
    if (kp) sizes.set(kp.id, finishInput(kp.id, 1 + 1 + 65, 0));
  } else {
    throw new SpendError('spend.unsupported_input', `Cannot size spending paths of a ${tree.t}() descriptor`, { what: tree.t });
  }
  return { policy, sizes };
}

/** Whether the descriptor has spending paths to choose from (wsh/sh-wsh miniscript, tr() with leaves). */
export function hasPathChoice(d: Descriptor): boolean {
  const t = d.tree();
  if (t.t === 'tr') return t.leaves.length > 0;
  if (t.t === 'wsh') return t.sub.t === 'ms';
  if (t.t === 'sh' && t.sub.t === 'wsh') return t.sub.sub.t === 'ms';
  return false;
}

/** The InputKind of spending a coin of `d` along its path `pathId` (size.ts prices coins with it). */
export function pathInputKind(d: Descriptor, pathId: string): Extract<InputKind, { type: 'path' }> {
  const { policy, sizes } = pathInputSizes(d);
  const s = sizes.get(pathId);
  const p = policy.paths.find((x) => x.id === pathId);
  if (!s || !p) throw new SpendError('spend.unsupported_input', `This descriptor has no spending path "${pathId}"`, { what: pathId });
  const t = d.tree();
  const output = t.t === 'tr' ? 'p2tr' : t.t === 'sh' ? 'p2sh-p2wsh' : 'p2wsh';
  return { type: 'path', output, witness: s.witness, scriptSig: s.scriptSig, path: p.words };
}
