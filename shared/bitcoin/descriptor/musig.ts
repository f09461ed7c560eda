/**
 * musig() key expressions (BIP390) as Core parses and derives them (src/script/descriptor.cpp
 * ParsePubkey's musig branch and MuSigPubkeyProvider): participants are compressed keys or
 * extended keys (no x-only, no uncompressed), sorted (BIP327 KeySort) and aggregated (KeyAgg);
 * an optional unhardened `/path` (and `/*`) after musig() derives from the aggregate as a
 * synthetic xpub with BIP328's chain code. Only in tr() and rawtr() (internal key or leaves).
 * Core 30.99 and 31.99 both accept it (checked against the shipped builds, see
 * test/fixtures/miniscript/).
 */
import { HDKey } from '@scure/bip32';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { fromHex, toHex } from '../hex';
import type { ExpandedKey } from './types';
import { Const, Expr, Func, ParseError, Span, compareBytes, concat, formatPath } from './helpers';
import {
  deriveKey,
  fingerprintOf,
  keyBranches,
  keyIsRange,
  keyNormalizedString,
  keyPublicString,
  parseKeyPath,
  parsePubkey,
  type Ctx,
  type DeriveType,
  type KeyExpr,
  type ParseState,
} from './keys';

export interface MusigKey {
  kind: 'musig';
  participants: KeyExpr[];
  /** Derivation after musig(): one path per multipath alternative ([[]] when none). */
  paths: number[][];
  derive: DeriveType;
}

/** BIP328: the chain code of the synthetic xpub of an aggregate key. */
export const MUSIG_CHAINCODE = fromHex('868087ca02a6f974c4598924c36b57762d32cb45717167e300622c7167e38965');
const N = secp256k1.Point.CURVE().n;

/**
 * BIP327 KeySort then KeyAgg over 33-byte keys (as BIP390): the aggregate point, compressed. On
 * @noble/curves, not the finalizer's libsecp256k1 (psbt/musig2.ts keyAggregate): descriptors are
 * derived in the renderer too, whose CSP (script-src 'self') forbids compiling WebAssembly.
 * test/bitcoin/musig2-bip327.test.ts checks the two agree.
 */
export function keyAgg(unsorted: Uint8Array[]): Uint8Array {
  const pubkeys = unsorted.slice().sort(compareBytes);
  const L = schnorr.utils.taggedHash('KeyAgg list', concat(...pubkeys));
  const second = pubkeys.find((p) => compareBytes(p, pubkeys[0]!) !== 0);
  let q = secp256k1.Point.ZERO;
  for (const pk of pubkeys) {
    const a = second && compareBytes(pk, second) === 0 ? 1n : bytesToNumberBE(schnorr.utils.taggedHash('KeyAgg coefficient', L, pk)) % N;
    q = q.add(secp256k1.Point.fromBytes(pk).multiply(a));
  }
  return q.toBytes(true);
}

/** Whether `text` is a musig() expression (Core checks this before origins). */
export function isMusig(text: string): boolean {
  return text.startsWith('musig(');
}

/** Core ParsePubkey's musig() branch. */
export function parseMusig(st: ParseState, text: string, ctx: Ctx): KeyExpr {
  if (ctx !== 'p2tr') throw new ParseError('musig() is only allowed in tr() and rawtr()');
  const close = text.indexOf(')');
  if (close !== -1 && text.indexOf(')', close + 1) !== -1) throw new ParseError("Too many ')' in musig() expression");
  const inner = new Span(close === -1 ? text : text.slice(0, close + 1));
  const rest = close === -1 ? '' : text.slice(close + 1);
  if (!Func('musig', inner)) throw new ParseError('Invalid musig() expression');
  const participants: KeyExpr[] = [];
  while (inner.size) {
    if (participants.length && !Const(',', inner)) throw new ParseError(`musig(): expected ',', got '${inner.at(0)}'`);
    const arg = Expr(inner);
    try {
      participants.push(parsePubkey(st, arg.text(), 'musig'));
    } catch (e) {
      if (e instanceof ParseError) throw new ParseError('musig(): ' + e.message);
      throw e;
    }
  }
  if (!participants.length) throw new ParseError('musig(): Must contain key expressions');
  let derive: DeriveType = 'none';
  let paths: number[][] = [[]];
  if (rest.startsWith('/')) {
    if (!participants.every((p) => p.base.kind === 'bip32')) {
      throw new ParseError('musig(): derivation requires all participants to be xpubs or xprvs');
    }
    if (participants.some(keyIsRange)) throw new ParseError('musig(): Cannot have ranged participant keys if musig() also has derivation');
    const split = rest.split('/');
    const last = split[split.length - 1];
    if (last === "*'" || last === '*h') throw new ParseError('musig(): Cannot have hardened child derivation');
    if (last === '*') {
      split.pop();
      derive = 'unhardened';
    }
    const state = { apostrophe: false, hardened: false };
    try {
      paths = parseKeyPath(split, state, true).paths;
    } catch (e) {
      if (e instanceof ParseError) throw new ParseError('musig(): ' + e.message);
      throw e;
    }
    if (state.hardened) throw new ParseError('musig(): cannot have hardened derivation steps');
  }
  const maxParticipant = Math.max(...participants.map(keyBranches));
  if (maxParticipant > 1 && paths.length > 1) {
    throw new ParseError('musig(): Cannot have multipath participant keys if musig() is also multipath');
  }
  if (participants.some((p) => keyBranches(p) !== 1 && keyBranches(p) !== maxParticipant)) {
    throw new ParseError('musig(): Multipath derivation paths have mismatched lengths');
  }
  return { base: { kind: 'musig', participants, paths, derive }, apostrophe: false };
}

export function musigBranches(m: MusigKey): number {
  return Math.max(m.paths.length, ...m.participants.map(keyBranches));
}

export function musigIsRange(m: MusigKey): boolean {
  return m.derive !== 'none' || m.participants.some(keyIsRange);
}

/**
 * The synthetic xpub (BIP328) of a musig() whose participants are fixed (no wildcard), derived
 * along the musig() path before its wildcard: a template derives it like any xpub. Null when a
 * participant is ranged (each index has its own aggregate).
 */
export function musigFixedHd(m: MusigKey, branch: number): HDKey | null {
  if (m.participants.some(keyIsRange)) return null;
  const agg = keyAgg(m.participants.map((p) => deriveKey(p, keyBranches(p) > 1 ? branch : 0, 0).pubkey));
  let hd = new HDKey({ publicKey: agg, chainCode: MUSIG_CHAINCODE });
  for (const step of m.paths[branch] ?? m.paths[0]!) hd = hd.deriveChild(step);
  return hd;
}

const synthetic = new Map<string, HDKey>();

/** MuSigPubkeyProvider::GetPubKey: the aggregate (derived along the musig() path if any), with its sorted participants. */
export function musigDerive(m: MusigKey, branch: number, pos: number): ExpandedKey {
  const parts = m.participants.map((p) => deriveKey(p, keyBranches(p) > 1 ? branch : 0, pos)).sort((a, b) => compareBytes(a.pubkey, b.pubkey));
  const agg = keyAgg(parts.map((p) => p.pubkey));
  const musig = { agg, parts };
  const path = (m.paths[branch] ?? m.paths[0]!).slice();
  if (m.derive === 'unhardened') path.push(pos >>> 0);
  if (!path.length) return { pubkey: agg, origin: { fingerprint: fingerprintOf(agg), path: [] }, musig };
  const id = toHex(agg);
  let hd = synthetic.get(id);
  if (!hd) {
    hd = new HDKey({ publicKey: agg, chainCode: MUSIG_CHAINCODE });
    if (synthetic.size > 64) synthetic.clear();
    synthetic.set(id, hd);
  }
  for (const step of path) hd = hd.deriveChild(step);
  return { pubkey: hd.publicKey!, origin: { fingerprint: fingerprintOf(agg), path }, musig };
}

/** MuSigPubkeyProvider::ToString (public or normalized participants). */
export function musigString(m: MusigKey, branch: number | null, normalized: boolean): string {
  const part = (p: KeyExpr): string => {
    const b = keyBranches(p) === 1 ? 0 : branch;
    return normalized ? keyNormalizedString(p, b) : keyPublicString(p, b);
  };
  let s = `musig(${m.participants.map(part).join(',')})`;
  if (branch === null && m.paths.length > 1) {
    const first = m.paths[0]!;
    const at = first.findIndex((_, i) => m.paths.some((p) => p[i] !== first[i]));
    for (let i = 0; i < first.length; i++) {
      s += i === at ? '/<' + m.paths.map((p) => String(p[i])).join(';') + '>' : formatPath([first[i]!], false);
    }
  } else {
    s += formatPath(m.paths[branch ?? 0] ?? [], false);
  }
  if (m.derive === 'unhardened') s += '/*';
  return s;
}

export function musigSelect(m: MusigKey, b: number): MusigKey {
  const participants = m.participants.map((p) => {
    if (p.base.kind !== 'bip32' || p.base.paths.length === 1) return p;
    return { ...p, base: { ...p.base, paths: [p.base.paths[b]!], multiAt: -1 } };
  });
  return { ...m, participants, paths: m.paths.length > 1 ? [m.paths[b]!] : m.paths };
}
