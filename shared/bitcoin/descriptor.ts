/**
 * Output descriptors (port of the parts of Bitcoin Core v30 src/script/descriptor.cpp a
 * watch-only wallet imports): pk, pkh, wpkh, multi, sortedmulti, sh, wsh, tr (key path only),
 * rawtr, addr, raw; key expressions with hex keys (x-only in tr/rawtr), WIF, xpub/tpub and
 * xprv/tprv (public keys are derived; private keys are never printed), `[fingerprint/path]`
 * origins with ' or h, `/path`, `/*`, `/*'`/`/*h` and `<a;b>` multipath.
 *
 * Plus the RPC helpers getdescriptorinfo and deriveaddresses (src/rpc/output_script.cpp).
 *
 * Not ported: combo(), multi_a/sortedmulti_a, tr() script trees, musig(), miniscript.
 */
import { HDKey } from '@scure/bip32';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { hmac } from '@noble/hashes/hmac.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { taprootTweakPubkey } from '@scure/btc-signer/utils.js';
import { addChecksum, descriptorChecksum } from './descriptor-checksum';
import {
  decodeBase58Check,
  decodeDestination,
  encodeDestination,
  extractDestination,
  scriptForDestination,
  type Destination,
} from './address';
import { fromHex, isHex, toHex } from './hex';
import { inferDescriptor, type SigningProviderLike } from './infer';
import type { Network } from './networks';

const HARDENED = 0x80000000;
const MAX_PUBKEYS_PER_MULTISIG = 20;
const MAX_SCRIPT_ELEMENT_SIZE = 520;

export interface KeyOriginInfo {
  /** 4-byte fingerprint. */
  fingerprint: Uint8Array;
  /** Hardened steps have bit 0x80000000 set. */
  path: number[];
}

export interface ExpandedKey {
  /** 33-byte (or 65-byte uncompressed) public key. */
  pubkey: Uint8Array;
  /** Core's key origin for the key (for a plain hex key: its own HASH160 fingerprint, empty path). */
  origin?: KeyOriginInfo;
}

export interface Expansion {
  script: Uint8Array;
  pubkeys: ExpandedKey[];
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  /** tr(): 32-byte x-only internal key. */
  internalKey?: Uint8Array;
}

/** Error thrown by getDescriptorInfo/deriveAddresses with Core's RPC error code. */
export class DescriptorRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'DescriptorRpcError';
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function hash160(b: Uint8Array): Uint8Array {
  return ripemd160(sha256(b));
}

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

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Core FormatHDKeypath (leading '/' per step). */
function formatPath(path: readonly number[], apostrophe: boolean): string {
  let s = '';
  for (const step of path) {
    s += '/' + String(step & 0x7fffffff);
    if (step >>> 31) s += apostrophe ? "'" : 'h';
  }
  return s;
}

/** Core WriteHDKeypath: 'm' + FormatHDKeypath. */
export function writeHDKeypath(path: readonly number[], apostrophe = false): string {
  return 'm' + formatPath(path, apostrophe);
}

function isSpaceChar(c: string): boolean {
  return c === ' ' || c === '\f' || c === '\n' || c === '\r' || c === '\t' || c === '\v';
}

/** CPubKey::IsFullyValid. */
function isFullyValidPubkey(pk: Uint8Array): boolean {
  try {
    secp256k1.Point.fromBytes(pk);
    return true;
  } catch {
    return false;
  }
}

/** CPubKey size from its header byte (0 = invalid). */
function pubKeyLen(header: number | undefined): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

function pushData(data: Uint8Array): Uint8Array {
  // keys and hashes only: always < 76 bytes
  return concat(Uint8Array.of(data.length), data);
}

// ---------------------------------------------------------------------------------------------
// Span-like parsing helpers (script/parsing.cpp: Const, Func, Expr)
// ---------------------------------------------------------------------------------------------

class Span {
  constructor(
    public s: string,
    public pos = 0,
    public end = s.length,
  ) {}
  get size(): number {
    return this.end - this.pos;
  }
  text(): string {
    return this.s.slice(this.pos, this.end);
  }
  at(i: number): string {
    return this.s[this.pos + i] ?? '';
  }
}

function Const(str: string, sp: Span, skip = true): boolean {
  if (sp.size >= str.length && sp.s.startsWith(str, sp.pos)) {
    if (skip) sp.pos += str.length;
    return true;
  }
  return false;
}

function Func(str: string, sp: Span): boolean {
  if (sp.size >= str.length + 2 && sp.at(str.length) === '(' && sp.at(sp.size - 1) === ')' && sp.s.startsWith(str, sp.pos)) {
    sp.pos += str.length + 1;
    sp.end -= 1;
    return true;
  }
  return false;
}

function Expr(sp: Span): Span {
  let level = 0;
  let it = sp.pos;
  while (it < sp.end) {
    const c = sp.s[it];
    if (c === '(' || c === '{') ++level;
    else if (level && (c === ')' || c === '}')) --level;
    else if (level === 0 && (c === ')' || c === '}' || c === ',')) break;
    ++it;
  }
  const ret = new Span(sp.s, sp.pos, it);
  sp.pos = it;
  return ret;
}

// ---------------------------------------------------------------------------------------------
// Key expressions
// ---------------------------------------------------------------------------------------------

type Ctx = 'top' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';
type DeriveType = 'none' | 'unhardened' | 'hardened';

interface ConstKey {
  kind: 'const';
  /** Full public key (for an x-only key: 02||x). */
  pubkey: Uint8Array;
  xonly: boolean;
  hasPrivate: boolean;
}

interface Bip32Key {
  kind: 'bip32';
  /** Root extended key as given (private if an xprv was given). */
  root: HDKey;
  /** One path per multipath alternative (a single path normally). */
  paths: number[][];
  /** Index of the `<a;b>` step in the path, or -1. */
  multiAt: number;
  derive: DeriveType;
}

interface KeyExpr {
  base: ConstKey | Bip32Key;
  origin?: KeyOriginInfo;
  /** Whether ' (rather than h) was the last hardened marker of this key expression. */
  apostrophe: boolean;
}

class ParseError extends Error {}

function keyBranches(k: KeyExpr): number {
  return k.base.kind === 'bip32' ? k.base.paths.length : 1;
}

function keyIsRange(k: KeyExpr): boolean {
  return k.base.kind === 'bip32' && k.base.derive !== 'none';
}

function keySize(k: KeyExpr): number {
  return k.base.kind === 'const' ? k.base.pubkey.length : 33;
}

/** Core ParseKeyPathElement. */
function parseKeyPathNum(elem: string, state: { apostrophe: boolean; hardened: boolean }): number {
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
function parseKeyPath(
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

function decodeExtKey(str: string, net: Network): HDKey | null {
  try {
    return HDKey.fromExtendedKey(str, { public: net.bip32.public, private: net.bip32.private });
  } catch {
    return null;
  }
}

/** Core DecodeSecret (WIF). */
function decodeSecret(str: string, net: Network): { key: Uint8Array; compressed: boolean } | null {
  const data = decodeBase58Check(str, 34);
  if (!data || data.length < 1 || data[0] !== net.wif) return null;
  if (data.length === 33 || (data.length === 34 && data[33] === 1)) {
    const key = data.slice(1, 33);
    if (!secp256k1.utils.isValidSecretKey(key)) return null;
    return { key, compressed: data.length === 34 };
  }
  return null;
}

interface ParseState {
  net: Network;
  hasPrivateKeys: boolean;
}

function parsePubkeyInner(st: ParseState, sp: string, ctx: Ctx, state: { apostrophe: boolean; hardened: boolean }): Omit<KeyExpr, 'origin' | 'apostrophe'> {
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

function parsePubkey(st: ParseState, sp: string, ctx: Ctx): KeyExpr {
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

const deriveCache = new WeakMap<HDKey, Map<string, HDKey>>();

function deriveHd(root: HDKey, path: readonly number[]): HDKey {
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

type CurvePoint = ReturnType<typeof secp256k1.Point.fromBytes>;
const parentPoints = new WeakMap<HDKey, CurvePoint>();
const CURVE_N = secp256k1.Point.CURVE().n;

/**
 * BIP32 CKDpub for the last, non-hardened step: the child public key only. Public derivation
 * needs no constant-time arithmetic, so this uses variable-time multiplication and caches the
 * parent point; it is several times faster than HDKey.deriveChild, which also builds a whole key
 * object. Returns null for the (astronomically rare) invalid child, like HDKey would throw.
 */
function publicChildKey(parent: HDKey, index: number): Uint8Array | null {
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

function fingerprintOf(pubkey: Uint8Array): Uint8Array {
  return hash160(pubkey).slice(0, 4);
}

/** BIP32PubkeyProvider/ConstPubkeyProvider/OriginPubkeyProvider::GetPubKey. */
function deriveKey(k: KeyExpr, branch: number, pos: number): ExpandedKey {
  let pubkey: Uint8Array;
  let origin: KeyOriginInfo;
  const b = k.base;
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

function formatMultiPath(b: Bip32Key, apostrophe: boolean, from = 0, to = b.paths[0]!.length): string {
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

function bip32PublicString(b: Bip32Key, apostrophe: boolean, branch: number | null): string {
  let s = b.root.publicExtendedKey;
  s += branch === null ? formatMultiPath(b, apostrophe) : formatPath(b.paths[branch]!, apostrophe);
  if (b.derive !== 'none') {
    s += '/*';
    if (b.derive === 'hardened') s += apostrophe ? "'" : 'h';
  }
  return s;
}

function baseString(k: KeyExpr, apostrophe: boolean, branch: number | null): string {
  const b = k.base;
  if (b.kind === 'const') return b.xonly ? toHex(b.pubkey.subarray(1)) : toHex(b.pubkey);
  return bip32PublicString(b, apostrophe, branch);
}

/** PubkeyProvider::ToString(PUBLIC). */
function keyPublicString(k: KeyExpr, branch: number | null): string {
  const s = baseString(k, k.apostrophe, branch);
  if (!k.origin) return s;
  return `[${toHex(k.origin.fingerprint)}${formatPath(k.origin.path, k.apostrophe)}]${s}`;
}

/** PubkeyProvider::ToNormalizedString (public; never prints private keys). */
function keyNormalizedString(k: KeyExpr, branch: number | null): string {
  const b = k.base;
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

// ---------------------------------------------------------------------------------------------
// Descriptor tree
// ---------------------------------------------------------------------------------------------

type Node =
  | { t: 'pk' | 'pkh' | 'wpkh' | 'tr' | 'rawtr'; key: KeyExpr }
  | { t: 'multi'; k: number; keys: KeyExpr[]; sorted: boolean }
  | { t: 'sh' | 'wsh'; sub: Node }
  | { t: 'addr'; dest: Destination }
  | { t: 'raw'; script: Uint8Array };

function parseScript(st: ParseState, sp: Span, ctx: Ctx): Node {
  const expr = Expr(sp);
  if (Func('pk', expr)) {
    return { t: 'pk', key: wrapKeyError('pk(): ', () => parsePubkey(st, expr.text(), ctx)) };
  }
  if ((ctx === 'top' || ctx === 'p2sh' || ctx === 'p2wsh') && Func('pkh', expr)) {
    return { t: 'pkh', key: wrapKeyError('pkh(): ', () => parsePubkey(st, expr.text(), ctx)) };
  }
  if (Func('combo', new Span(expr.s, expr.pos, expr.end))) {
    if (ctx !== 'top') throw new ParseError('Can only have combo() at top level');
    throw new ParseError('combo() descriptors are not supported');
  }
  const multi = Func('multi', expr);
  const sortedmulti = !multi && Func('sortedmulti', expr);
  if ((ctx === 'top' || ctx === 'p2sh' || ctx === 'p2wsh') && (multi || sortedmulti)) {
    const threshold = Expr(expr).text();
    if (!/^[0-9]+$/.test(threshold) || Number(threshold) > 0xffffffff) {
      throw new ParseError(`Multi threshold '${threshold}' is not valid`);
    }
    const thres = Number(threshold);
    const keys: KeyExpr[] = [];
    let scriptSize = 0;
    while (expr.size) {
      if (!Const(',', expr)) throw new ParseError(`Multi: expected ',', got '${expr.at(0)}'`);
      const arg = Expr(expr);
      const key = wrapKeyError('Multi: ', () => parsePubkey(st, arg.text(), ctx));
      scriptSize += keySize(key) + 1;
      keys.push(key);
    }
    if (keys.length === 0 || keys.length > MAX_PUBKEYS_PER_MULTISIG) {
      throw new ParseError(`Cannot have ${keys.length} keys in multisig; must have between 1 and ${MAX_PUBKEYS_PER_MULTISIG} keys, inclusive`);
    } else if (thres < 1) {
      throw new ParseError(`Multisig threshold cannot be ${thres}, must be at least 1`);
    } else if (thres > keys.length) {
      throw new ParseError(`Multisig threshold cannot be larger than the number of keys; threshold is ${thres} but only ${keys.length} keys specified`);
    }
    if (ctx === 'top' && keys.length > 3) {
      throw new ParseError(`Cannot have ${keys.length} pubkeys in bare multisig; only at most 3 pubkeys`);
    }
    if (ctx === 'p2sh' && scriptSize + 3 > MAX_SCRIPT_ELEMENT_SIZE) {
      throw new ParseError(`P2SH script is too large, ${scriptSize + 3} bytes is larger than ${MAX_SCRIPT_ELEMENT_SIZE} bytes`);
    }
    const n = Math.max(...keys.map(keyBranches));
    if (keys.some((k) => keyBranches(k) !== 1 && keyBranches(k) !== n)) {
      throw new ParseError('multi(): Multipath derivation paths have mismatched lengths');
    }
    return { t: 'multi', k: thres, keys, sorted: sortedmulti };
  } else if (multi || sortedmulti) {
    throw new ParseError('Can only have multi/sortedmulti at top level, in sh(), or in wsh()');
  }
  if ((ctx === 'top' || ctx === 'p2sh') && Func('wpkh', expr)) {
    return { t: 'wpkh', key: wrapKeyError('wpkh(): ', () => parsePubkey(st, expr.text(), 'p2wpkh')) };
  } else if (Func('wpkh', expr)) {
    throw new ParseError('Can only have wpkh() at top level or inside sh()');
  }
  if (ctx === 'top' && Func('sh', expr)) {
    const sub = parseScript(st, expr, 'p2sh');
    if (expr.size) throw new ParseError('');
    return { t: 'sh', sub };
  } else if (Func('sh', expr)) {
    throw new ParseError('Can only have sh() at top level');
  }
  if ((ctx === 'top' || ctx === 'p2sh') && Func('wsh', expr)) {
    const sub = parseScript(st, expr, 'p2wsh');
    if (expr.size) throw new ParseError('');
    return { t: 'wsh', sub };
  } else if (Func('wsh', expr)) {
    throw new ParseError('Can only have wsh() at top level or inside sh()');
  }
  if (ctx === 'top' && Func('addr', expr)) {
    const dec = decodeDestination(expr.text(), st.net);
    if (!dec.ok) throw new ParseError('Address is not valid');
    return { t: 'addr', dest: dec.dest };
  } else if (Func('addr', expr)) {
    throw new ParseError('Can only have addr() at top level');
  }
  if (ctx === 'top' && Func('tr', expr)) {
    const arg = Expr(expr);
    const key = wrapKeyError('tr(): ', () => parsePubkey(st, arg.text(), 'p2tr'));
    if (expr.size) {
      if (!Const(',', expr)) throw new ParseError(`tr: expected ',', got '${expr.at(0)}'`);
      throw new ParseError('tr(): script trees are not supported');
    }
    return { t: 'tr', key };
  } else if (Func('tr', expr)) {
    throw new ParseError('Can only have tr at top level');
  }
  if (ctx === 'top' && Func('rawtr', expr)) {
    const arg = Expr(expr);
    if (expr.size) throw new ParseError('rawtr(): only one key expected.');
    return { t: 'rawtr', key: wrapKeyError('rawtr(): ', () => parsePubkey(st, arg.text(), 'p2tr')) };
  } else if (Func('rawtr', expr)) {
    throw new ParseError('Can only have rawtr at top level');
  }
  if (ctx === 'top' && Func('raw', expr)) {
    const str = expr.text();
    if (!isHex(str)) throw new ParseError('Raw script is not hex');
    return { t: 'raw', script: fromHex(str) };
  } else if (Func('raw', expr)) {
    throw new ParseError('Can only have raw() at top level');
  }
  if (ctx === 'p2sh') throw new ParseError('A function is needed within P2SH');
  if (ctx === 'p2wsh') throw new ParseError('A function is needed within P2WSH');
  throw new ParseError(`'${expr.text()}' is not a valid descriptor function`);
}

function wrapKeyError<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParseError) throw new ParseError(prefix + e.message);
    throw e;
  }
}

function nodeKeys(n: Node): KeyExpr[] {
  switch (n.t) {
    case 'multi':
      return n.keys;
    case 'sh':
    case 'wsh':
      return nodeKeys(n.sub);
    case 'addr':
    case 'raw':
      return [];
    default:
      return [n.key];
  }
}

function checkBranches(n: Node): number {
  const counts = nodeKeys(n).map(keyBranches);
  const max = counts.length ? Math.max(...counts) : 1;
  return max;
}

type StrMode = 'public' | 'normalized';

function nodeString(n: Node, mode: StrMode, branch: number | null, net: Network): string {
  const key = (k: KeyExpr): string => (mode === 'public' ? keyPublicString(k, branch) : keyNormalizedString(k, branch));
  switch (n.t) {
    case 'pk':
    case 'pkh':
    case 'wpkh':
    case 'tr':
    case 'rawtr':
      return `${n.t}(${key(n.key)})`;
    case 'multi':
      return `${n.sorted ? 'sortedmulti' : 'multi'}(${n.k},${n.keys.map(key).join(',')})`;
    case 'sh':
    case 'wsh':
      return `${n.t}(${nodeString(n.sub, mode, branch, net)})`;
    case 'addr':
      return `addr(${encodeDestination(n.dest, net)})`;
    case 'raw':
      return `raw(${toHex(n.script)})`;
  }
}

interface Built {
  script: Uint8Array;
  pubkeys: ExpandedKey[];
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  internalKey?: Uint8Array;
  /** For inference: scripts by HASH160, taproot internal keys by output key. */
  scripts: Map<string, Uint8Array>;
  tr: Map<string, Uint8Array>;
}

function multisigScript(k: number, keys: Uint8Array[]): Uint8Array {
  const op = (n: number): Uint8Array => Uint8Array.of(n === 0 ? 0 : 0x50 + n);
  return concat(op(k), ...keys.map(pushData), op(keys.length), Uint8Array.of(0xae));
}

function build(n: Node, branch: number, pos: number, net: Network): Built {
  const fresh = (script: Uint8Array, pubkeys: ExpandedKey[]): Built => ({ script, pubkeys, scripts: new Map(), tr: new Map() });
  switch (n.t) {
    case 'pk': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(pushData(k.pubkey), Uint8Array.of(0xac)), [k]);
    }
    case 'pkh': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(Uint8Array.of(0x76, 0xa9), pushData(hash160(k.pubkey)), Uint8Array.of(0x88, 0xac)), [k]);
    }
    case 'wpkh': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(Uint8Array.of(0), pushData(hash160(k.pubkey))), [k]);
    }
    case 'multi': {
      const ks = n.keys.map((k) => deriveKey(k, branch, pos));
      const pubs = ks.map((k) => k.pubkey);
      if (n.sorted) pubs.sort(compareBytes);
      return fresh(multisigScript(n.k, pubs), ks);
    }
    case 'sh': {
      const sub = build(n.sub, branch, pos, net);
      const id = hash160(sub.script);
      sub.scripts.set(toHex(id), sub.script);
      const witnessScript = n.sub.t === 'wsh' ? sub.witnessScript : undefined;
      return {
        ...sub,
        script: concat(Uint8Array.of(0xa9), pushData(id), Uint8Array.of(0x87)),
        redeemScript: sub.script,
        ...(witnessScript ? { witnessScript } : {}),
      };
    }
    case 'wsh': {
      const sub = build(n.sub, branch, pos, net);
      sub.scripts.set(toHex(hash160(sub.script)), sub.script);
      return { ...sub, script: concat(Uint8Array.of(0), pushData(sha256(sub.script))), witnessScript: sub.script };
    }
    case 'tr': {
      const k = deriveKey(n.key, branch, pos);
      const x = k.pubkey.slice(1, 33);
      const [q] = taprootTweakPubkey(x, new Uint8Array(0));
      const b = fresh(concat(Uint8Array.of(0x51), pushData(q)), [k]);
      b.internalKey = x;
      b.tr.set(toHex(q), x);
      return b;
    }
    case 'rawtr': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(Uint8Array.of(0x51), pushData(k.pubkey.slice(1, 33))), [k]);
    }
    case 'addr':
      return fresh(scriptForDestination(n.dest), []);
    case 'raw':
      return fresh(n.script, []);
  }
}

function providerFor(b: Built): SigningProviderLike {
  const pubs = new Map<string, Uint8Array>();
  const origins = new Map<string, KeyOriginInfo>();
  for (const k of b.pubkeys) {
    const id = toHex(hash160(k.pubkey));
    if (!pubs.has(id)) pubs.set(id, k.pubkey);
    // An explicit origin takes precedence (OriginPubkeyProvider); the first one otherwise.
    if (k.origin && !origins.has(toHex(k.pubkey))) origins.set(toHex(k.pubkey), k.origin);
  }
  return {
    getPubKeyByHash160: (h) => pubs.get(toHex(h)),
    getKeyOrigin: (pk) => origins.get(toHex(pk)),
    getScript: (h) => b.scripts.get(toHex(h)),
    getTaprootInternalKey: (q) => b.tr.get(toHex(q)),
  };
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

export interface ExpansionWithProvider extends Expansion {
  /** What Core's FlatSigningProvider of this expansion knows (for InferDescriptor etc.). */
  provider: SigningProviderLike;
}

export class Descriptor {
  /** @internal */
  constructor(
    private readonly node: Node,
    readonly network: Network,
    /** Whether the input contained at least one private key (xprv or WIF). */
    readonly hasPrivateKeys: boolean,
    /** Number of multipath alternatives (1 normally). */
    readonly branches: number,
  ) {}

  /** Core Descriptor::IsRange. */
  isRange(): boolean {
    return nodeKeys(this.node).some(keyIsRange);
  }

  /** Core Descriptor::IsSolvable (false for addr() and raw()). */
  isSolvable(): boolean {
    return this.node.t !== 'addr' && this.node.t !== 'raw';
  }

  /** True for addr()/raw(). */
  isAddrOrRaw(): boolean {
    return this.node.t === 'addr' || this.node.t === 'raw';
  }

  /** One element per multipath alternative (one normally). Throws 'Cannot derive script without private keys'. */
  expand(index: number): Expansion[] {
    return this.expandWithProvider(index).map(({ provider: _p, ...e }) => e);
  }

  /** Expansions already derived, by index (derivation costs about a millisecond per key). */
  private readonly expansions = new Map<number, ExpansionWithProvider[]>();

  expandWithProvider(index: number): ExpansionWithProvider[] {
    if (!Number.isInteger(index) || index < 0 || index > 0x7fffffff) throw new Error(`Invalid derivation index ${index}`);
    const cached = this.expansions.get(index);
    if (cached) return cached;
    const out: ExpansionWithProvider[] = [];
    for (let b = 0; b < this.branches; b++) {
      const built = build(this.node, b, index, this.network);
      const e: ExpansionWithProvider = { script: built.script, pubkeys: built.pubkeys, provider: providerFor(built) };
      if (built.redeemScript) e.redeemScript = built.redeemScript;
      if (built.witnessScript) e.witnessScript = built.witnessScript;
      if (built.internalKey) e.internalKey = built.internalKey;
      out.push(e);
    }
    this.expansions.set(index, out);
    return out;
  }

  /** The single-branch descriptors of a multipath descriptor (just [this] otherwise). */
  expandMultipath(): Descriptor[] {
    if (this.branches === 1) return [this];
    const out: Descriptor[] = [];
    for (let b = 0; b < this.branches; b++) out.push(new Descriptor(selectBranch(this.node, b), this.network, this.hasPrivateKeys, 1));
    return out;
  }

  private str(mode: StrMode): string {
    let out = this.#strings.get(mode);
    if (out === undefined) {
      out = addChecksum(nodeString(this.node, mode, this.branches === 1 ? 0 : null, this.network));
      this.#strings.set(mode, out);
    }
    return out;
  }

  /** The node tree never changes after parsing, so each string form is computed once. */
  readonly #strings = new Map<StrMode, string>();

  /**
   * Core ToNormalizedString with checksum (what listdescriptors / getaddressinfo parent_desc
   * print): origins with 'h', xprvs replaced by the xpub at the last hardened step.
   */
  toString(): string {
    return this.str('normalized');
  }

  /** Core Descriptor::ToString() (getdescriptorinfo 'descriptor'): public keys, the input's hardened marker. */
  toPublicString(): string {
    return this.str('public');
  }

  /**
   * InferDescriptor(script, provider)->ToString() for the expansion at `index` (branch 0 or
   * `branch`): the descriptor getaddressinfo shows as `desc`.
   */
  expandedString(index: number, branch = 0): string {
    const key = `${index}/${branch}`;
    const memo = this.#expandedStrings.get(key);
    if (memo !== undefined) return memo;
    const e = this.expandWithProvider(index)[branch];
    if (!e) throw new Error(`No multipath branch ${branch}`);
    const out = inferDescriptor(e.script, this.network, e.provider);
    this.#expandedStrings.set(key, out);
    return out;
  }

  /** inferDescriptor per (index, branch): wallets ask for the same ones on every listunspent. */
  readonly #expandedStrings = new Map<string, string>();
}

function selectBranch(n: Node, b: number): Node {
  const key = (k: KeyExpr): KeyExpr => {
    if (k.base.kind !== 'bip32' || k.base.paths.length === 1) return k;
    return { ...k, base: { ...k.base, paths: [k.base.paths[b]!], multiAt: -1 } };
  };
  switch (n.t) {
    case 'multi':
      return { ...n, keys: n.keys.map(key) };
    case 'sh':
    case 'wsh':
      return { ...n, sub: selectBranch(n.sub, b) };
    case 'addr':
    case 'raw':
      return n;
    default:
      return { ...n, key: key(n.key) };
  }
}

/** Core CheckChecksum; returns the part before '#'. */
function checkChecksum(text: string, requireChecksum: boolean): string {
  const parts = text.split('#');
  if (parts.length > 2) throw new Error("Multiple '#' symbols");
  if (parts.length === 1 && requireChecksum) throw new Error('Missing checksum');
  if (parts.length === 2 && parts[1]!.length !== 8) {
    throw new Error(`Expected 8 character checksum, not ${parts[1]!.length} characters`);
  }
  const checksum = descriptorChecksum(parts[0]!);
  if (checksum === '') throw new Error('Invalid characters in payload');
  if (parts.length === 2 && parts[1] !== checksum) {
    throw new Error(`Provided checksum '${parts[1]}' does not match computed checksum '${checksum}'`);
  }
  return parts[0]!;
}

/** Core Parse(descriptor, provider, error, require_checksum). Throws Error(Core's message). */
export function parseDescriptor(text: string, net: Network, opts: { requireChecksum?: boolean } = {}): Descriptor {
  const body = checkChecksum(text, opts.requireChecksum ?? false);
  const st: ParseState = { net, hasPrivateKeys: false };
  const sp = new Span(body);
  let node: Node;
  try {
    node = parseScript(st, sp, 'top');
  } catch (e) {
    if (e instanceof ParseError) throw new Error(e.message);
    throw e;
  }
  if (sp.size) throw new Error('');
  const branches = checkBranches(node);
  return new Descriptor(node, net, st.hasPrivateKeys, branches);
}

/** Core GetDescriptorChecksum: checksum of the part before '#', '' if the input is invalid there. */
export function getDescriptorChecksum(text: string): string {
  try {
    return descriptorChecksum(checkChecksum(text, false));
  } catch {
    return '';
  }
}

export interface DescriptorInfo {
  descriptor: string;
  multipath_expansion?: string[];
  checksum: string;
  isrange: boolean;
  issolvable: boolean;
  hasprivatekeys: boolean;
}

/** Core getdescriptorinfo result (key order as Core). Throws DescriptorRpcError(-5, parse error). */
export function getDescriptorInfo(text: string, net: Network): DescriptorInfo {
  let d: Descriptor;
  try {
    d = parseDescriptor(text, net);
  } catch (e) {
    throw new DescriptorRpcError(-5, (e as Error).message);
  }
  const parts = d.expandMultipath();
  const result: DescriptorInfo = { descriptor: parts[0]!.toPublicString() } as DescriptorInfo;
  if (parts.length > 1) result.multipath_expansion = parts.map((p) => p.toPublicString());
  result.checksum = getDescriptorChecksum(text);
  result.isrange = d.isRange();
  result.issolvable = d.isSolvable();
  result.hasprivatekeys = d.hasPrivateKeys;
  return result;
}

/** Core ParseDescriptorRange (rpc/util.cpp). Throws DescriptorRpcError(-8). */
export function parseDescriptorRange(value: unknown): [number, number] {
  let low: number;
  let high: number;
  if (typeof value === 'number') {
    low = 0;
    high = value;
  } else if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number') {
    low = value[0];
    high = value[1];
    if (low > high) throw new DescriptorRpcError(-8, 'Range specified as [begin,end] must not have begin after end');
  } else {
    throw new DescriptorRpcError(-8, 'Range must be specified as end or as [begin,end]');
  }
  if (!Number.isInteger(low) || !Number.isInteger(high)) throw new DescriptorRpcError(-1, 'JSON integer out of range');
  if (low < 0) throw new DescriptorRpcError(-8, 'Range should be greater or equal than 0');
  if (Math.floor(high / 2 ** 31) !== 0) throw new DescriptorRpcError(-8, 'End of range is too high');
  if (high >= low + 1000000) throw new DescriptorRpcError(-8, 'Range is too large');
  return [low, high];
}

function deriveRange(d: Descriptor, begin: number, end: number, net: Network): string[] {
  const out: string[] = [];
  for (let i = begin; i <= end; i++) {
    let e: Expansion;
    try {
      e = d.expand(i)[0]!;
    } catch {
      throw new DescriptorRpcError(-5, 'Cannot derive script without private keys');
    }
    const dest = extractDestination(e.script);
    if (!dest) throw new DescriptorRpcError(-5, 'Descriptor does not have a corresponding address');
    out.push(encodeDestination(dest, net));
  }
  if (out.length === 0) throw new DescriptorRpcError(-1, 'Unexpected empty result');
  return out;
}

/**
 * Core deriveaddresses(descriptor, range?). `range` undefined = not given (Core checks the
 * argument count, so pass undefined rather than null to omit it). Returns string[] or, for a
 * multipath descriptor, one string[] per alternative.
 */
export function deriveAddresses(text: string, net: Network, range?: unknown): string[] | string[][] {
  let begin = 0;
  let end = 0;
  if (range !== undefined && range !== null) [begin, end] = parseDescriptorRange(range);
  let d: Descriptor;
  try {
    d = parseDescriptor(text, net, { requireChecksum: true });
  } catch (e) {
    throw new DescriptorRpcError(-5, (e as Error).message);
  }
  if (!d.isRange() && range !== undefined) {
    throw new DescriptorRpcError(-8, 'Range should not be specified for an un-ranged descriptor');
  }
  if (d.isRange() && range === undefined) {
    throw new DescriptorRpcError(-8, 'Range must be specified for a ranged descriptor');
  }
  const parts = d.expandMultipath();
  if (parts.length === 1) return deriveRange(parts[0]!, begin, end, net);
  return parts.map((p) => deriveRange(p, begin, end, net));
}
