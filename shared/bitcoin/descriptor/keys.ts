/**
 * Key expressions (Core's PubkeyProvider family in src/script/descriptor.cpp): parsing hex/WIF/
 * xpub/xprv keys with origins, `/path`, `/*` and `<a;b>` multipath, deriving them and printing them.
 */
import { HDKey } from '@scure/bip32';
import { sha512 } from '@noble/hashes/sha2.js';
import { hmac } from '@noble/hashes/hmac.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decodeBase58Check } from '../address';
import { fromHex, isHex, toHex } from '../hex';
import type { Network } from '../networks';
import type { ExpandedKey, KeyOriginInfo } from './types';
import type { CoreVersion } from '../psbt/generation';
import { isMusig, musigBranches, musigDerive, musigIsRange, musigString, parseMusig, type MusigKey } from './musig';
import { HARDENED, ParseError, concat, formatPath, hash160, isFullyValidPubkey, isSpaceChar, pubKeyLen } from './helpers';

// Key expressions
// ---------------------------------------------------------------------------------------------

/** 'musig': a participant of musig() (compressed keys and extended keys only). */
export type Ctx = 'top' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'musig';
export type DeriveType = 'none' | 'unhardened' | 'hardened';

export interface ConstKey {
  kind: 'const';
  /** Full public key (for an x-only key: 02||x). */
  pubkey: Uint8Array;
  xonly: boolean;
  hasPrivate: boolean;
}

export interface Bip32Key {
  kind: 'bip32';
  /** Root extended key as given (private if an xprv was given). */
  root: HDKey;
  /** One path per multipath alternative (a single path normally). */
  paths: number[][];
  /** Index of the `<a;b>` step in the path, or -1. */
  multiAt: number;
  derive: DeriveType;
}

export interface KeyExpr {
  base: ConstKey | Bip32Key | MusigKey;
  origin?: KeyOriginInfo;
  /** Whether ' (rather than h) was the last hardened marker of this key expression. */
  apostrophe: boolean;
}


export function keyBranches(k: KeyExpr): number {
  if (k.base.kind === 'musig') return musigBranches(k.base);
  return k.base.kind === 'bip32' ? k.base.paths.length : 1;
}

export function keyIsRange(k: KeyExpr): boolean {
  if (k.base.kind === 'musig') return musigIsRange(k.base);
  return k.base.kind === 'bip32' && k.base.derive !== 'none';
}

export function keySize(k: KeyExpr): number {
  return k.base.kind === 'const' ? k.base.pubkey.length : 33;
}

/** Core ParseKeyPathElement. */
export function parseKeyPathNum(elem: string, state: { apostrophe: boolean; hardened: boolean }): number {
  let hardened = false;
  if (elem.length > 0) {
    const last = elem[elem.length - 1];
    if (last === "'" || last === 'h') {
      elem = elem.slice(0, -1);
      hardened = true;
      state.apostrophe = last === "'";
      state.hardened = true;
    }
  }
  if (!/^[0-9]+$/.test(elem) || Number(elem) > 0xffffffff) {
    throw new ParseError(`Key path value '${elem}' is not a valid uint32`);
  }
  const p = Number(elem);
  if (p > 0x7fffffff) throw new ParseError(`Key path value ${p} is out of range`);
  return (p | (hardened ? HARDENED : 0)) >>> 0;
}

/** Core ParseKeyPath over split[1..]; returns one path per multipath alternative. */
export function parseKeyPath(
  split: string[],
  state: { apostrophe: boolean; hardened: boolean },
  allowMultipath: boolean,
): { paths: number[][]; multiAt: number } {
  const path: number[] = [];
  let values: number[] | null = null;
  let multiAt = -1;
  for (let i = 1; i < split.length; i++) {
    const elem = split[i]!;
    if (elem.length > 0 && elem.startsWith('<') && elem.endsWith('>')) {
      if (!allowMultipath) {
        throw new ParseError(`Key path value '${elem}' specifies multipath in a section where multipath is not allowed`);
      }
      if (values) throw new ParseError('Multiple multipath key path specifiers found');
      const nums = elem.slice(1, -1).split(';');
      if (nums.length < 2) throw new ParseError('Multipath key path specifiers must have at least two items');
      values = [];
      for (const num of nums) {
        const v = parseKeyPathNum(num, state);
        if (values.includes(v)) throw new ParseError(`Duplicated key path value ${v} in multipath specifier`);
        values.push(v);
      }
      path.push(0);
      multiAt = path.length - 1;
    } else {
      path.push(parseKeyPathNum(elem, state));
    }
  }
  if (!values) return { paths: [path], multiAt: -1 };
  return {
    paths: values.map((v) => {
      const p = path.slice();
      p[multiAt] = v;
      return p;
    }),
    multiAt,
  };
}

export function decodeExtKey(str: string, net: Network): HDKey | null {
  try {
    return HDKey.fromExtendedKey(str, { public: net.bip32.public, private: net.bip32.private });
  } catch {
    return null;
  }
}

/** Core DecodeSecret (WIF). */
export function decodeSecret(str: string, net: Network): { key: Uint8Array; compressed: boolean } | null {
  const data = decodeBase58Check(str, 34);
  if (!data || data.length < 1 || data[0] !== net.wif) return null;
  if (data.length === 33 || (data.length === 34 && data[33] === 1)) {
    const key = data.slice(1, 33);
    if (!secp256k1.utils.isValidSecretKey(key)) return null;
    return { key, compressed: data.length === 34 };
  }
  return null;
}

export interface ParseState {
  /** The Core generation whose parsing rules apply (default current Core). */
  coreVersion?: CoreVersion;
  net: Network;
  hasPrivateKeys: boolean;
}

export function parsePubkeyInner(st: ParseState, sp: string, ctx: Ctx, state: { apostrophe: boolean; hardened: boolean }): Omit<KeyExpr, 'origin' | 'apostrophe'> {
  const permitUncompressed = ctx === 'top' || ctx === 'p2sh';
  const split = sp.split('/');
  const str = split[0]!;
  if (str.length === 0) throw new ParseError('No key provided');
  if (isSpaceChar(str[0]!) || isSpaceChar(str[str.length - 1]!)) {
    throw new ParseError(`Key '${str}' is invalid due to whitespace`);
  }
  if (split.length === 1) {
    if (isHex(str)) {
      const data = fromHex(str);
      const validSize = data.length > 0 && pubKeyLen(data[0]) === data.length;
      if (validSize && (data[0] === 6 || data[0] === 7)) throw new ParseError('Hybrid public keys are not allowed');
      if (validSize && isFullyValidPubkey(data)) {
        if (permitUncompressed || data.length === 33) {
          return { base: { kind: 'const', pubkey: data, xonly: false, hasPrivate: false } };
        }
        throw new ParseError('Uncompressed keys are not allowed');
      } else if (data.length === 32 && ctx === 'p2tr') {
        const full = concat(Uint8Array.of(2), data);
        if (isFullyValidPubkey(full)) return { base: { kind: 'const', pubkey: full, xonly: true, hasPrivate: false } };
      }
      throw new ParseError(`Pubkey '${str}' is invalid`);
    }
    const wif = decodeSecret(str, st.net);
    if (wif) {
      if (permitUncompressed || wif.compressed) {
        st.hasPrivateKeys = true;
        const pub = secp256k1.getPublicKey(wif.key, wif.compressed);
        return { base: { kind: 'const', pubkey: pub, xonly: ctx === 'p2tr', hasPrivate: true } };
      }
      throw new ParseError('Uncompressed keys are not allowed');
    }
  }
  const ext = decodeExtKey(str, st.net);
  if (!ext || !ext.publicKey) throw new ParseError(`key '${str}' is not valid`);
  let derive: DeriveType = 'none';
  const last = split[split.length - 1];
  if (split.length > 1 && last === '*') {
    split.pop();
    derive = 'unhardened';
  } else if (split.length > 1 && (last === "*'" || last === '*h')) {
    state.apostrophe = last === "*'";
    split.pop();
    derive = 'hardened';
  }
  const { paths, multiAt } = parseKeyPath(split, state, true);
  if (ext.privateKey) st.hasPrivateKeys = true;
  return { base: { kind: 'bip32', root: ext, paths, multiAt, derive } };
}

export function parsePubkey(st: ParseState, sp: string, ctx: Ctx): KeyExpr {
  if (isMusig(sp)) return parseMusig(st, sp, ctx);
  const originSplit = sp.split(']');
  if (originSplit.length > 2) throw new ParseError("Multiple ']' characters found for a single pubkey");
  const state = { apostrophe: false, hardened: false };
  if (originSplit.length === 1) {
    const inner = parsePubkeyInner(st, originSplit[0]!, ctx, state);
    return { ...inner, apostrophe: state.apostrophe };
  }
  const o0 = originSplit[0]!;
  if (o0.length === 0 || o0[0] !== '[') {
    throw new ParseError(`Key origin start '[ character expected but not found, got '${o0.length === 0 ? ']' : o0[0]}' instead`);
  }
  const slashSplit = o0.slice(1).split('/');
  const fpr = slashSplit[0]!;
  if (fpr.length !== 8) throw new ParseError(`Fingerprint is not 4 bytes (${fpr.length} characters instead of 8 characters)`);
  if (!isHex(fpr)) throw new ParseError(`Fingerprint '${fpr}' is not hex`);
  const { paths } = parseKeyPath(slashSplit, state, false);
  const inner = parsePubkeyInner(st, originSplit[1]!, ctx, state);
  return { ...inner, origin: { fingerprint: fromHex(fpr), path: paths[0]! }, apostrophe: state.apostrophe };
}

// ---------------------------------------------------------------------------------------------
// Key derivation and printing
// ---------------------------------------------------------------------------------------------

export const deriveCache = new WeakMap<HDKey, Map<string, HDKey>>();

export function deriveHd(root: HDKey, path: readonly number[]): HDKey {
  let m = deriveCache.get(root);
  if (!m) {
    m = new Map();
    deriveCache.set(root, m);
  }
  const id = path.join('/');
  let hd = m.get(id);
  if (!hd) {
    hd = root;
    for (const step of path) {
      if (step >= HARDENED && !hd.privateKey) throw new Error('Cannot derive script without private keys');
      hd = hd.deriveChild(step);
    }
    if (m.size > 64) m.clear();
    m.set(id, hd);
  }
  return hd;
}

export type CurvePoint = ReturnType<typeof secp256k1.Point.fromBytes>;
export const parentPoints = new WeakMap<HDKey, CurvePoint>();
export const CURVE_N = secp256k1.Point.CURVE().n;

/**
 * BIP32 CKDpub for the last, non-hardened step: the child public key only. Public derivation
 * needs no constant-time arithmetic, so this uses variable-time multiplication and caches the
 * parent point; it is several times faster than HDKey.deriveChild, which also builds a whole key
 * object. Returns null for the (astronomically rare) invalid child, like HDKey would throw.
 */
export function publicChildKey(parent: HDKey, index: number): Uint8Array | null {
  let point = parentPoints.get(parent);
  if (!point) {
    point = secp256k1.Point.fromBytes(parent.publicKey!);
    parentPoints.set(parent, point);
  }
  const data = new Uint8Array(37);
  data.set(parent.publicKey!, 0);
  new DataView(data.buffer).setUint32(33, index >>> 0, false);
  const i = hmac(sha512, parent.chainCode!, data);
  let il = 0n;
  for (let k = 0; k < 32; k++) il = (il << 8n) | BigInt(i[k]!);
  if (il === 0n || il >= CURVE_N) return null;
  const child = secp256k1.Point.BASE.multiplyUnsafe(il).add(point);
  if (child.equals(secp256k1.Point.ZERO)) return null;
  return child.toBytes(true);
}

export function fingerprintOf(pubkey: Uint8Array): Uint8Array {
  return hash160(pubkey).slice(0, 4);
}

/** BIP32PubkeyProvider/ConstPubkeyProvider/OriginPubkeyProvider::GetPubKey. */
export function deriveKey(k: KeyExpr, branch: number, pos: number): ExpandedKey {
  let pubkey: Uint8Array;
  let origin: KeyOriginInfo;
  const b = k.base;
  if (b.kind === 'musig') return musigDerive(b, branch, pos);
  if (b.kind === 'const') {
    pubkey = b.pubkey;
    origin = { fingerprint: fingerprintOf(pubkey), path: [] };
  } else {
    const path = (b.paths[branch] ?? b.paths[0]!).slice();
    if (b.derive === 'unhardened') path.push(pos >>> 0);
    if (b.derive === 'hardened') path.push((pos | HARDENED) >>> 0);
    // derive the non-ranged part once (cached), then the final step
    const base = b.derive === 'none' ? path : path.slice(0, -1);
    let hd = deriveHd(b.root, base);
    const step = path[path.length - 1]!;
    const fast = b.derive === 'unhardened' ? publicChildKey(hd, step) : null;
    if (fast) {
      pubkey = fast;
    } else {
      if (b.derive !== 'none') {
        if (step >= HARDENED && !hd.privateKey) throw new Error('Cannot derive script without private keys');
        hd = hd.deriveChild(step);
      }
      pubkey = hd.publicKey!;
    }
    origin = { fingerprint: fingerprintOf(b.root.publicKey!), path };
  }
  if (k.origin) origin = { fingerprint: k.origin.fingerprint, path: [...k.origin.path, ...origin.path] };
  return { pubkey, origin };
}

export function formatMultiPath(b: Bip32Key, apostrophe: boolean, from = 0, to = b.paths[0]!.length): string {
  const first = b.paths[0]!;
  let s = '';
  for (let i = from; i < to; i++) {
    if (i === b.multiAt) {
      s += '/<' + b.paths.map((p) => formatPath([p[i]!], apostrophe).slice(1)).join(';') + '>';
    } else {
      s += formatPath([first[i]!], apostrophe);
    }
  }
  return s;
}

export function bip32PublicString(b: Bip32Key, apostrophe: boolean, branch: number | null): string {
  let s = b.root.publicExtendedKey;
  s += branch === null ? formatMultiPath(b, apostrophe) : formatPath(b.paths[branch]!, apostrophe);
  if (b.derive !== 'none') {
    s += '/*';
    if (b.derive === 'hardened') s += apostrophe ? "'" : 'h';
  }
  return s;
}

export function baseString(k: KeyExpr, apostrophe: boolean, branch: number | null): string {
  const b = k.base;
  if (b.kind === 'const') return b.xonly ? toHex(b.pubkey.subarray(1)) : toHex(b.pubkey);
  if (b.kind === 'musig') return musigString(b, branch, false);
  return bip32PublicString(b, apostrophe, branch);
}

/** PubkeyProvider::ToString(PUBLIC). */
export function keyPublicString(k: KeyExpr, branch: number | null): string {
  if (k.base.kind === 'musig') return musigString(k.base, branch, false);
  const s = baseString(k, k.apostrophe, branch);
  if (!k.origin) return s;
  return `[${toHex(k.origin.fingerprint)}${formatPath(k.origin.path, k.apostrophe)}]${s}`;
}

/** PubkeyProvider::ToNormalizedString (public; never prints private keys). */
export function keyNormalizedString(k: KeyExpr, branch: number | null): string {
  const b = k.base;
  if (b.kind === 'musig') return musigString(b, branch, true);
  let s: string;
  if (b.kind === 'const') {
    s = baseString(k, false, branch);
  } else if (b.derive === 'hardened') {
    s = bip32PublicString(b, false, branch);
  } else {
    const path = b.paths[branch ?? 0]!;
    let last = -1;
    for (let i = path.length - 1; i >= 0; i--) {
      if (path[i]! >= HARDENED) {
        last = i;
        break;
      }
    }
    if (last === -1) {
      s = bip32PublicString(b, k.apostrophe, branch);
    } else if (!b.root.privateKey || (branch === null && b.multiAt !== -1 && b.multiAt <= last)) {
      // Core cannot normalize without the private key; print the public form with 'h'.
      s = bip32PublicString(b, false, branch);
    } else {
      const prefix = path.slice(0, last + 1);
      const xpub = deriveHd(b.root, prefix).publicExtendedKey;
      const rest = branch === null ? formatMultiPath(b, false, last + 1) : formatPath(path.slice(last + 1), false);
      s = `[${toHex(fingerprintOf(b.root.publicKey!))}${formatPath(prefix, false)}]${xpub}${rest}`;
      if (b.derive === 'unhardened') s += '/*';
    }
  }
  if (!k.origin) return s;
  const originStr = toHex(k.origin.fingerprint) + formatPath(k.origin.path, false);
  // MergeNormalizedOrigin
  if (s.startsWith('[')) return '[' + originStr + s.slice(9);
  return '[' + originStr + ']' + s;
}

