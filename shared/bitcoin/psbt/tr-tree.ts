/**
 * tr(KEY,TREE) descriptors with script trees, for the updater (descriptor.ts reads tr(KEY) only):
 * the tree syntax as Core parses it (ParseScript's tr() loop: `{` `,` `}` and leaf depths), leaves
 * of the forms Core writes for descriptor wallets — pk(KEY), pkh(KEY), multi_a(k,KEY,…),
 * sortedmulti_a(k,KEY,…) — every key expression read by descriptor.ts itself (as the key of a
 * tr(KEY)); any other leaf is miniscript, parsed and built by descriptor.ts; and Core's TaprootBuilder: leaf and branch hashes, the merkle root, the output key,
 * each leaf's control block, and the tree as PSBT_OUT_TAP_TREE lists it (GetTreeTuples order).
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { descriptorChecksum } from '../descriptor-checksum';
import { parseDescriptor, type Descriptor, type ExpandedKey } from '../descriptor';
import type { Network } from '../networks';
import { hexOf } from '../tx';
import { concatBytes, hash160 } from './edit';
import { taprootTweak } from './ecc';
import { FlatProvider } from './provider';
import { tapLeafHash } from './sighash';
import type { TapLeafScript, TapTreeLeaf } from './types';

export const TAPSCRIPT = 0xc0;
/** BIP341's unspendable H point: the placeholder internal key a miniscript leaf is parsed under. */
const NUMS = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
const MAX_DEPTH = 128;

export class TreeDescriptorError extends Error {}

type LeafKind = 'pk' | 'pkh' | 'multi_a' | 'sortedmulti_a' | 'miniscript';
interface LeafExpr {
  kind: LeafKind;
  /** A miniscript leaf: the whole leaf as descriptor.ts reads it, under a placeholder internal key. */
  ms?: Descriptor;
  k: number;
  keys: Descriptor[];
  depth: number;
}

/** Core's Expr: up to the next ',' / ')' / '}' outside parentheses and braces. */
function expr(s: string, pos: number): number {
  let level = 0;
  for (let i = pos; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '{') level++;
    else if (level && (c === ')' || c === '}')) level--;
    else if (level === 0 && (c === ')' || c === '}' || c === ',')) return i;
  }
  return s.length;
}

function keyOf(text: string, net: Network): Descriptor {
  let d: Descriptor;
  try {
    d = parseDescriptor(`tr(${text})`, net);
  } catch (e) {
    throw new TreeDescriptorError((e as Error).message.replace(/^tr\(\): /, ''));
  }
  if (d.branches !== 1) throw new TreeDescriptorError('multipath keys in tr() script trees are not supported');
  return d;
}

function leafOf(text: string, depth: number, net: Network): LeafExpr {
  const m = /^(pk|pkh|multi_a|sortedmulti_a)\((.*)\)$/.exec(text);
  if (!m) {
    // any other leaf is miniscript: descriptor.ts parses and builds it (Core's checks and errors)
    const ms = parseDescriptor(`tr(${NUMS},${text})`, net);
    return { kind: 'miniscript', k: 0, keys: [], depth, ms };
  }
  const kind = m[1] as LeafKind;
  if (kind === 'pk' || kind === 'pkh') return { kind, k: 1, keys: [keyOf(m[2]!, net)], depth };
  const args: string[] = [];
  for (let p = 0; p <= m[2]!.length; ) {
    const e = expr(m[2]!, p);
    args.push(m[2]!.slice(p, e));
    p = e + 1;
  }
  const k = Number(args[0]);
  const keys = args.slice(1).map((a) => keyOf(a, net));
  if (!/^\d+$/.test(args[0]!) || k < 1 || k > keys.length || keys.length > 999) throw new TreeDescriptorError(`${kind}(): invalid threshold or key count`);
  return { kind, k, keys, depth };
}

/** A tr() descriptor with a script tree, or null for any other descriptor. Throws on one it cannot read. */
export class TreeDescriptor {
  private constructor(
    readonly internal: Descriptor,
    readonly leaves: LeafExpr[],
  ) {}

  static parse(text: string, net: Network): TreeDescriptor | null {
    const [body, sum, extra] = text.split('#');
    if (extra !== undefined || !body!.startsWith('tr(') || !body!.endsWith(')')) return null;
    const inner = body!.slice(3, -1);
    const keyEnd = expr(inner, 0);
    if (keyEnd >= inner.length || inner[keyEnd] !== ',') return null;
    if (sum !== undefined && descriptorChecksum(body!) !== sum) throw new TreeDescriptorError(`Provided checksum '${sum}' does not match computed checksum '${descriptorChecksum(body!)}'`);
    const internal = keyOf(inner.slice(0, keyEnd), net);
    const leaves: LeafExpr[] = [];
    const branches: boolean[] = [];
    let p = keyEnd + 1;
    do {
      while (inner[p] === '{') {
        branches.push(false);
        p++;
        if (branches.length > MAX_DEPTH) throw new TreeDescriptorError(`tr() supports at most ${MAX_DEPTH} nesting levels`);
      }
      const e = expr(inner, p);
      leaves.push(leafOf(inner.slice(p, e), branches.length, net));
      p = e;
      while (branches.length && branches[branches.length - 1]) {
        if (inner[p] !== '}') throw new TreeDescriptorError("tr(): expected '}' after script expression");
        branches.pop();
        p++;
      }
      if (branches.length && !branches[branches.length - 1]) {
        if (inner[p] !== ',') throw new TreeDescriptorError("tr(): expected ',' after script expression");
        branches[branches.length - 1] = true;
        p++;
      }
    } while (branches.length);
    if (p !== inner.length) throw new TreeDescriptorError("tr(): expected ')' after script expression");
    return new TreeDescriptor(internal, leaves);
  }

  get hasPrivateKeys(): boolean {
    return this.internal.hasPrivateKeys || this.leaves.some((l) => l.ms?.hasPrivateKeys || l.keys.some((k) => k.hasPrivateKeys));
  }

  isRange(): boolean {
    return this.internal.isRange() || this.leaves.some((l) => l.ms?.isRange() || l.keys.some((k) => k.isRange()));
  }

  /** The output script and the FlatSigningProvider of one index. */
  expand(index: number): { script: Uint8Array; provider: FlatProvider } {
    const p = new FlatProvider();
    const key = (d: Descriptor): ExpandedKey => {
      const k = d.expand(index)[0]!.pubkeys[0]!;
      p.addExpandedKey(k);
      return k;
    };
    const internal = key(this.internal).pubkey.subarray(1, 33);
    const leaves = this.leaves.map((l) => {
      if (l.ms) {
        const e = l.ms.expand(index)[0]!;
        // the leaf's keys (after the placeholder internal key), and their x-only HASH160s for pk_h
        for (const k of e.pubkeys.slice(1)) {
          p.addExpandedKey(k);
          p.addXonlyHash(k.pubkey.subarray(1, 33));
        }
        return { depth: l.depth, ver: TAPSCRIPT, script: e.tapLeaves![0]!.script };
      }
      const xs = l.keys.map((d) => key(d).pubkey.subarray(1, 33));
      if (l.kind === 'pkh') p.addXonlyHash(xs[0]!);
      return { depth: l.depth, ver: TAPSCRIPT, script: leafScript(l.kind as Exclude<LeafKind, 'miniscript'>, l.k, xs) };
    });
    const built = buildTaproot(internal, leaves);
    if (!built) throw new TreeDescriptorError('tr(): the tree does not make a valid output key');
    p.trees.set(hexOf(built.outputKey), { internalKey: internal, merkleRoot: built.merkleRoot, scripts: built.scripts, tree: built.tuples });
    return { script: concatBytes(Uint8Array.of(0x51, 0x20), built.outputKey), provider: p };
  }
}

/** CScript() << n for a threshold (OP_n up to 16, else a minimal CScriptNum push). */
function pushNumber(n: number): Uint8Array {
  if (n <= 16) return Uint8Array.of(n === 0 ? 0 : 0x50 + n);
  const b: number[] = [];
  for (let v = n; v > 0; v >>= 8) b.push(v & 0xff);
  if (b[b.length - 1]! & 0x80) b.push(0);
  return Uint8Array.of(b.length, ...b);
}

function leafScript(kind: Exclude<LeafKind, 'miniscript'>, k: number, xs: Uint8Array[]): Uint8Array {
  if (kind === 'pk') return concatBytes(Uint8Array.of(0x20), xs[0]!, Uint8Array.of(0xac));
  if (kind === 'pkh') return concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), hash160(xs[0]!), Uint8Array.of(0x88, 0xac));
  const keys = kind === 'sortedmulti_a' ? [...xs].sort((a, b) => (hexOf(a) < hexOf(b) ? -1 : hexOf(a) > hexOf(b) ? 1 : 0)) : xs;
  const parts: Uint8Array[] = [];
  keys.forEach((x, i) => parts.push(Uint8Array.of(0x20), x, Uint8Array.of(i === 0 ? 0xac : 0xba)));
  return concatBytes(...parts, pushNumber(k), Uint8Array.of(0x9c));
}

interface Node {
  hash: Uint8Array;
  leaves: Array<{ script: Uint8Array; ver: number; branch: Uint8Array[] }>;
}

function branchHash(a: Uint8Array, b: Uint8Array): Uint8Array {
  return hexOf(a) < hexOf(b) ? schnorr.utils.taggedHash('TapBranch', a, b) : schnorr.utils.taggedHash('TapBranch', b, a);
}

/** TaprootBuilder::Combine: a's leaves first (the node being inserted), then b's. */
function combine(a: Node, b: Node): Node {
  for (const l of a.leaves) l.branch.push(b.hash);
  for (const l of b.leaves) l.branch.push(a.hash);
  return { hash: branchHash(a.hash, b.hash), leaves: [...a.leaves, ...b.leaves] };
}

export interface BuiltTaproot {
  outputKey: Uint8Array;
  merkleRoot: Uint8Array;
  scripts: Map<string, TapLeafScript>;
  tuples: TapTreeLeaf[];
}

/** TaprootBuilder: Add each leaf at its depth (DFS order), Finalize with the internal key; null when the depths do not make a tree. */
export function buildTaproot(internal: Uint8Array, leaves: readonly TapTreeLeaf[]): BuiltTaproot | null {
  const branch: Array<Node | null> = [];
  for (const leaf of leaves) {
    let node: Node = { hash: tapLeafHash(leaf.script, leaf.ver), leaves: [{ script: leaf.script, ver: leaf.ver, branch: [] }] };
    let depth = leaf.depth;
    if (depth + 1 < branch.length) return null;
    while (branch.length > depth && branch[depth]) {
      node = combine(node, branch[depth]!);
      branch.pop();
      if (depth === 0) return null;
      depth--;
    }
    while (branch.length <= depth) branch.push(null);
    branch[depth] = node;
  }
  if (branch.length !== 1 || !branch[0]) return null;
  const root = branch[0];
  const tweak = schnorr.utils.taggedHash('TapTweak', internal, root.hash);
  const out = taprootTweak(internal, tweak);
  if (!out) return null;
  const scripts = new Map<string, TapLeafScript>();
  for (const l of root.leaves) {
    const cb = concatBytes(Uint8Array.of(l.ver | (out.odd ? 1 : 0)), internal, ...l.branch);
    const scriptHex = hexOf(l.script);
    const k = scriptHex + ':' + l.ver;
    let e = scripts.get(k);
    if (!e) scripts.set(k, (e = { script: l.script, scriptHex, ver: l.ver, controls: new Map() }));
    e.controls.set(hexOf(cb), cb);
  }
  const tuples = root.leaves.map((l) => ({ depth: l.branch.length, ver: l.ver, script: l.script }));
  return { outputKey: out.x, merkleRoot: root.hash, scripts, tuples };
}

/**
 * The keys a tapscript leaf of the forms above checks, as miniscript's satisfier asks for them:
 * x-only keys (pk, multi_a), or the HASH160 a pkh() names. Null for any other script (Core would
 * try it as miniscript; Spyglass leaves it alone).
 */
export function tapLeafKeys(script: Uint8Array): { xonly: Uint8Array[] } | { keyHash: Uint8Array } | null {
  const n = script.length;
  if (n === 34 && script[0] === 0x20 && script[33] === 0xac) return { xonly: [script.subarray(1, 33)] };
  if (n === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac) return { keyHash: script.subarray(3, 23) };
  const xs: Uint8Array[] = [];
  let p = 0;
  while (p + 34 <= n && script[p] === 0x20 && script[p + 33] === (xs.length === 0 ? 0xac : 0xba)) {
    xs.push(script.subarray(p + 1, p + 33));
    p += 34;
  }
  if (xs.length === 0 || script[n - 1] !== 0x9c) return null;
  const k = script.subarray(p, n - 1);
  const ok = (k.length === 1 && k[0]! >= 0x51 && k[0]! <= 0x60) || (k.length >= 2 && k[0] === k.length - 1 && hexOf(pushNumber(numberOf(k.subarray(1)))) === hexOf(k));
  return ok ? { xonly: xs } : null;
}

function numberOf(le: Uint8Array): number {
  let v = 0;
  for (let i = le.length - 1; i >= 0; i--) v = v * 256 + le[i]!;
  return v;
}
