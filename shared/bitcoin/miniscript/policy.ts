/**
 * A descriptor's spending policy: every way its coins can be spent (the "spending paths"), each
 * with the keys that must sign (thresholds kept as thresholds: "2 of A, B, C"), the relative
 * timelock older(N) (BIP68: blocks, or 512-second units), the absolute after(N) (height or time,
 * BIP65) and any hash preimages — read from the parsed descriptor (wsh/sh miniscript, multi,
 * sortedmulti, tr() with its key path and leaves, multi_a/sortedmulti_a, single keys).
 *
 * Paths are the satisfying branches of the script as policy: and_* multiplies, or_* and andor
 * add, thresh(k, …) chooses k of its subs (or is one k-of-n key threshold when every sub is a
 * single key). Keys are named A, B, C… in order of first appearance; one name per signer key
 * (same fingerprint, origin path and xpub), whatever is derived after the xpub.
 */
import type { Descriptor } from '../descriptor/api';
import { fingerprintOf, keyPublicString, deriveKey, type KeyExpr } from '../descriptor/keys';
import type { Node } from '../descriptor/parse';
import { writeHDKeypath } from '../descriptor/helpers';
import { toHex } from '../hex';
import type { MsNode } from './node';
import { pathWords, policyWords } from './policy-words';
import { decodeAfter, decodeOlder, LOCKTIME_THRESHOLD, SEQUENCE_LOCKTIME_TYPE_FLAG, type AbsoluteLock, type RelativeLock } from '../locktime';

export { decodeAfter, decodeOlder, type AbsoluteLock, type RelativeLock };

/** BIP341's unspendable H point (x-only): a tr() internal key nobody can sign for. */
export const NUMS_H = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
/** More paths than this is refused rather than listed (a policy nobody could read). */
export const MAX_POLICY_PATHS = 256;

export interface PolicyKey {
  /** 'A', 'B', … in order of first appearance. */
  name: string;
  /** 8 hex digits: the origin's fingerprint, else the key's own (Core's rule for keys without origin). */
  fingerprint: string;
  /** The origin path ("m/48h/1h/0h/2h"), or null when the key has no origin. */
  originPath: string | null;
  /** The extended public key, when the key is one. */
  xpub: string | null;
  /** A plain public key (hex), when the key is one. */
  pubkey: string | null;
  /** musig(): the names of its participants are not separate signers; the aggregate is one key here. */
  musig: boolean;
}

/** k of these keys (indices into Policy.keys) must sign. */
export interface SigThreshold {
  k: number;
  keys: number[];
}

export interface HashLock {
  fn: 'sha256' | 'hash256' | 'ripemd160' | 'hash160';
  digest: string;
}

export interface SpendPath {
  /** Stable id within the policy: 'key' for a taproot key path, 'p0'… or 'leaf1.p0'… */
  id: string;
  kind: 'key-path' | 'script';
  /** tr(): the leaf's index in tree order. */
  leaf?: number;
  sigs: SigThreshold[];
  older?: RelativeLock;
  after?: AbsoluteLock;
  hashes: HashLock[];
  /** The path in words ("key B after 10 blocks (~1 h 40 min)"). */
  words: string;
}

export interface Policy {
  keys: PolicyKey[];
  paths: SpendPath[];
  /** tr(): whether the key path can be spent (false when the internal key is the H point). */
  keyPath: 'none' | 'spendable' | 'unspendable';
  /** The whole policy in words ("Key A, or key B after 10 blocks (~1 h 40 min)"). */
  words: string;
}

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

/** A path while it is built: key names not assigned yet (exprs are KeyExprs). */
interface RawPath {
  sigs: { k: number; keys: KeyExpr[] }[];
  older?: number;
  after?: number;
  hashes: HashLock[];
}

const EMPTY: RawPath = { sigs: [], hashes: [] };

function maxLock(a: number | undefined, b: number | undefined, what: string): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const kind = (n: number): boolean => (what === 'older' ? (n & SEQUENCE_LOCKTIME_TYPE_FLAG) !== 0 : n >= LOCKTIME_THRESHOLD);
  if (kind(a) !== kind(b)) throw new PolicyError(`A spending path mixes ${what}() timelocks in blocks and in time`);
  return Math.max(a, b);
}

function andPath(a: RawPath, b: RawPath): RawPath {
  const out: RawPath = { sigs: [...a.sigs, ...b.sigs], hashes: [...a.hashes, ...b.hashes] };
  const older = maxLock(a.older, b.older, 'older');
  const after = maxLock(a.after, b.after, 'after');
  if (older !== undefined) out.older = older;
  if (after !== undefined) out.after = after;
  return out;
}

function product(xs: RawPath[], ys: RawPath[]): RawPath[] {
  if (xs.length * ys.length > MAX_POLICY_PATHS) tooMany();
  const out: RawPath[] = [];
  for (const x of xs) for (const y of ys) out.push(andPath(x, y));
  return out;
}

function tooMany(): never {
  throw new PolicyError(`This descriptor has more than ${MAX_POLICY_PATHS} spending paths; Spyglass does not list them`);
}

function union(...lists: RawPath[][]): RawPath[] {
  const out = lists.flat();
  if (out.length > MAX_POLICY_PATHS) tooMany();
  return out;
}

/** A single key and nothing else (a thresh sub that can join a k-of-n key threshold). */
function singleKey(paths: RawPath[]): KeyExpr | null {
  if (paths.length !== 1) return null;
  const p = paths[0]!;
  if (p.older !== undefined || p.after !== undefined || p.hashes.length || p.sigs.length !== 1) return null;
  const s = p.sigs[0]!;
  return s.k === 1 && s.keys.length === 1 ? s.keys[0]! : null;
}

/** k-subsets of [0, n), in order; a PolicyError past MAX_POLICY_PATHS of them. */
export function subsets(n: number, k: number): number[][] {
  const out: number[][] = [];
  const cur: number[] = [];
  const rec = (start: number): void => {
    if (out.length > MAX_POLICY_PATHS) tooMany();
    if (cur.length === k) {
      out.push(cur.slice());
      return;
    }
    for (let i = start; i <= n - (k - cur.length); i++) {
      cur.push(i);
      rec(i + 1);
      cur.pop();
    }
  };
  rec(0);
  return out;
}

function msPaths(n: MsNode, keys: KeyExpr[]): RawPath[] {
  const sub = (i: number): RawPath[] => msPaths(n.subs[i]!, keys);
  switch (n.frag) {
    case 'just_0':
      return [];
    case 'just_1':
      return [EMPTY];
    case 'pk_k':
    case 'pk_h':
      return [{ sigs: [{ k: 1, keys: [keys[n.keys[0]!]!] }], hashes: [] }];
    case 'multi':
    case 'multi_a':
      return [{ sigs: [{ k: n.k, keys: n.keys.map((i) => keys[i]!) }], hashes: [] }];
    case 'older':
      return [{ sigs: [], hashes: [], older: n.k }];
    case 'after':
      return [{ sigs: [], hashes: [], after: n.k }];
    case 'sha256':
    case 'hash256':
    case 'ripemd160':
    case 'hash160':
      return [{ sigs: [], hashes: [{ fn: n.frag, digest: toHex(n.data) }] }];
    case 'wrap_a':
    case 'wrap_s':
    case 'wrap_c':
    case 'wrap_d':
    case 'wrap_v':
    case 'wrap_j':
    case 'wrap_n':
      return sub(0);
    case 'and_v':
    case 'and_b':
      return product(sub(0), sub(1));
    case 'or_b':
    case 'or_c':
    case 'or_d':
    case 'or_i':
      return union(sub(0), sub(1));
    case 'andor':
      return union(product(sub(0), sub(1)), sub(2));
    case 'thresh': {
      // the subs that are one key each make one "k - j of them" threshold, beside each choice of
      // j other subs: thresh(2,pk(A),s:pk(B),s:pk(C),sln:older(20)) is "2 of A, B, C" or
      // "1 of A, B, C after 20 blocks"
      const each = n.subs.map((_, i) => sub(i));
      const single = each.map(singleKey);
      const singles = single.filter((k): k is KeyExpr => k !== null);
      const others = each.filter((_, i) => single[i] === null);
      const out: RawPath[] = [];
      for (let j = 0; j <= Math.min(n.k, others.length); j++) {
        const fromKeys = n.k - j;
        if (fromKeys > singles.length) continue;
        for (const pick of subsets(others.length, j)) {
          let acc: RawPath[] = [fromKeys ? { sigs: [{ k: fromKeys, keys: singles }], hashes: [] } : EMPTY];
          for (const i of pick) acc = product(acc, others[i]!);
          out.push(...acc);
          if (out.length > MAX_POLICY_PATHS) tooMany();
        }
      }
      return out;
    }
  }
}

function nodePaths(n: Node): RawPath[] {
  switch (n.t) {
    case 'pk':
    case 'pkh':
    case 'wpkh':
    case 'rawtr':
      return [{ sigs: [{ k: 1, keys: [n.key] }], hashes: [] }];
    case 'multi':
    case 'multi_a':
      return [{ sigs: [{ k: n.k, keys: n.keys }], hashes: [] }];
    case 'ms':
      return msPaths(n.ms, n.keys);
    case 'sh':
    case 'wsh':
      return nodePaths(n.sub);
    case 'tr':
    case 'addr':
    case 'raw':
      throw new PolicyError('unreachable'); // handled by the caller
  }
}

/** Whether a tr() internal key is BIP341's H point (a key path nobody can spend). */
function isNums(k: KeyExpr): boolean {
  return k.base.kind === 'const' && toHex(k.base.pubkey.slice(1)) === NUMS_H;
}

/** The signer identity of a key expression: origin + extended key, or the plain key. */
function keyInfo(k: KeyExpr): Omit<PolicyKey, 'name'> & { id: string } {
  const originPath = k.origin ? writeHDKeypath(k.origin.path) : null;
  if (k.base.kind === 'musig') {
    const text = keyPublicString(k, 0);
    const fp = k.origin ? toHex(k.origin.fingerprint) : toHex(fingerprintOf(deriveKey(k, 0, 0).pubkey));
    return { id: 'musig:' + text, fingerprint: fp, originPath, xpub: null, pubkey: null, musig: true };
  }
  if (k.base.kind === 'const') {
    const pubkey = toHex(k.base.xonly ? k.base.pubkey.slice(1) : k.base.pubkey);
    const fp = toHex(k.origin ? k.origin.fingerprint : fingerprintOf(k.base.pubkey));
    return { id: `${fp}${originPath ?? ''}|${pubkey}`, fingerprint: fp, originPath, xpub: null, pubkey, musig: false };
  }
  // the extended key as the descriptor prints it publicly, without what is derived after it
  const text = keyPublicString(k, 0);
  const xpub = text.slice(text.indexOf(']') + 1).split('/')[0]!;
  const fp = toHex(k.origin ? k.origin.fingerprint : fingerprintOf(k.base.root.publicKey!));
  return { id: `${fp}${originPath ?? ''}|${xpub}`, fingerprint: fp, originPath, xpub, pubkey: null, musig: false };
}

function keyName(i: number): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return i < 26 ? letters[i]! : letters[Math.floor(i / 26) - 1]! + letters[i % 26]!;
}

/** Names keys, merges k=1 single-key groups into one "all of" group, drops duplicate paths. */
class Namer {
  readonly keys: PolicyKey[] = [];
  readonly exprs: KeyExpr[][] = [];
  private readonly ids = new Map<string, number>();

  name(k: KeyExpr): number {
    const { id, ...info } = keyInfo(k);
    let i = this.ids.get(id);
    if (i === undefined) {
      i = this.keys.length;
      this.ids.set(id, i);
      this.keys.push({ name: keyName(i), ...info });
      this.exprs.push([]);
    }
    if (!this.exprs[i]!.includes(k)) this.exprs[i]!.push(k);
    return i;
  }

  finish(raw: RawPath[], idOf: (j: number) => string, base: Pick<SpendPath, 'kind' | 'leaf'>): SpendPath[] {
    const seen = new Set<string>();
    const out: SpendPath[] = [];
    for (const r of raw) {
      const all: number[] = [];
      const groups: SigThreshold[] = [];
      for (const s of r.sigs) {
        const keys = s.keys.map((k) => this.name(k));
        if (s.k === 1 && keys.length === 1) all.push(keys[0]!);
        else groups.push({ k: s.k, keys });
      }
      const sigs = all.length ? [{ k: all.length, keys: all }, ...groups] : groups;
      const p: SpendPath = { id: '', ...base, sigs, hashes: r.hashes, words: '' };
      if (base.leaf === undefined) delete p.leaf;
      if (r.older !== undefined) p.older = decodeOlder(r.older);
      if (r.after !== undefined) p.after = decodeAfter(r.after);
      const key = JSON.stringify([p.kind, p.leaf, sigs, r.older, r.after, r.hashes]);
      if (seen.has(key)) continue;
      seen.add(key);
      p.id = idOf(out.length);
      out.push(p);
    }
    return out;
  }
}

export interface PolicyWithKeys {
  policy: Policy;
  /** Per policy key, the key expressions it stands for (usually one), to derive them at an index. */
  exprs: KeyExpr[][];
}

/** The descriptor's spending policy, with the key expressions behind each named key. */
export function analyzePolicy(d: Descriptor): PolicyWithKeys {
  const tree = d.tree();
  if (tree.t === 'addr' || tree.t === 'raw') {
    throw new PolicyError(`${tree.t}() descriptors do not say which keys can spend; there is no policy to show`);
  }
  const namer = new Namer();
  let paths: SpendPath[];
  let keyPath: Policy['keyPath'] = 'none';
  if (tree.t === 'tr') {
    paths = [];
    if (isNums(tree.key)) keyPath = 'unspendable';
    else {
      keyPath = 'spendable';
      paths.push(...namer.finish([{ sigs: [{ k: 1, keys: [tree.key] }], hashes: [] }], () => 'key', { kind: 'key-path' }));
    }
    const leafCount = tree.leaves.length;
    tree.leaves.forEach((l, i) => {
      const id = (j: number): string => (leafCount === 1 ? `p${j}` : `leaf${i}.p${j}`);
      paths.push(...namer.finish(nodePaths(l.node), id, { kind: 'script', leaf: i }));
    });
  } else if (tree.t === 'rawtr') {
    keyPath = 'spendable';
    paths = namer.finish(nodePaths(tree), () => 'key', { kind: 'key-path' });
  } else {
    paths = namer.finish(nodePaths(tree), (j) => `p${j}`, { kind: 'script' });
  }
  if (paths.length > MAX_POLICY_PATHS) tooMany();
  paths.forEach((p, i) => (p.words = pathWords(p, namer.keys, paths[i - 1])));
  const policy: Policy = { keys: namer.keys, paths, keyPath, words: '' };
  policy.words = policyWords(policy);
  return { policy, exprs: namer.exprs };
}

/** The descriptor's spending policy (keys, paths, words). Throws PolicyError for addr()/raw(). */
export function describePolicy(d: Descriptor): Policy {
  return analyzePolicy(d).policy;
}

/**
 * The public keys each policy key stands for at derivation `index` (multipath `branch`): compressed
 * (33 bytes) keys; in tr() compare their x-only halves.
 */
export function policyPubkeysAt(p: PolicyWithKeys, index: number, branch = 0): Uint8Array[][] {
  return p.exprs.map((list) => list.map((k) => deriveKey(k, branch, index).pubkey));
}
