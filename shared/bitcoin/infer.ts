/**
 * Port of Bitcoin Core v30 descriptor.cpp InferDescriptor(script, provider)->ToString()
 * (checksummed), for the descriptor kinds a watch-only wallet meets: pk, pkh, wpkh, sh, wsh,
 * multi, rawtr, tr (key path only), addr, raw.
 *
 * Not ported: miniscript inference inside wsh()/tr() (Core tries miniscript::FromScript for
 * P2WSH/tapscript leaves), multi_a, and tr() script trees. For those scripts this module
 * behaves as if inference of the inner script failed (Core then falls back to addr()/raw()).
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { encodeDestination, extractDestinationFromSolved, scriptForDestination } from './address';
import { hexOf as toHex } from './tx';
import type { Network } from './networks';
import { solver, type TxoutType } from './script';
import { isCurveXAt } from './secp';

export interface KeyOrigin {
  /** 4-byte master key fingerprint. */
  fingerprint: Uint8Array;
  /** BIP32 path; hardened steps have bit 0x80000000 set. */
  path: number[];
}

/**
 * What InferDescriptor may ask a SigningProvider. Every method is optional; absent means
 * "not known" (Core's DUMMY_SIGNING_PROVIDER answers false to everything).
 */
export interface SigningProviderLike {
  /** GetPubKey(CKeyID): the public key whose HASH160 is `h` (20 bytes). */
  getPubKeyByHash160?(h: Uint8Array): Uint8Array | undefined;
  /** GetKeyOrigin(pubkey.GetID()). */
  getKeyOrigin?(pubkey: Uint8Array): KeyOrigin | undefined;
  /**
   * GetCScript(CScriptID): the script whose CScriptID is `hash` (20 bytes). For P2SH that is
   * HASH160(script); for P2WSH Core asks for RIPEMD160(witness program) = RIPEMD160(SHA256(script)).
   */
  getScript?(hash: Uint8Array): Uint8Array | undefined;
  /**
   * GetTaprootSpendData (key-path only): the 32-byte internal key of the taproot output key
   * `outputKey`, if known and the output has no script tree.
   */
  getTaprootInternalKey?(outputKey: Uint8Array): Uint8Array | undefined;
  /** GetKeyOriginByXOnly. If absent, getKeyOrigin is tried with 02||x then 03||x (like Core). */
  getKeyOriginByXOnly?(xonly: Uint8Array): KeyOrigin | undefined;
}

type Ctx = 'top' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';

// ---------------------------------------------------------------------------------------------
// Key helpers
// ---------------------------------------------------------------------------------------------

/**
 * isValidXOnly results by a 30-bit prefix of the key; an entry holds the 32 key bytes and the
 * result (byte 32), so a prefix collision just misses. Cleared when it grows past 20,000.
 */
const xonlyCache = new Map<number, Uint8Array>();

/** XOnlyPubKey::IsFullyValid of the 32 bytes at b[off..off+32]: x < p and x^3 + 7 is a square mod p. Cached. */
export function isValidXOnlyAt(b: Uint8Array, off: number): boolean {
  const k = (b[off]! << 22) | (b[off + 1]! << 14) | (b[off + 2]! << 6) | (b[off + 3]! >> 2);
  const hit = xonlyCache.get(k);
  if (hit !== undefined) {
    let same = true;
    for (let i = 0; i < 32; i++) {
      if (hit[i] !== b[off + i]) {
        same = false;
        break;
      }
    }
    if (same) return hit[32] === 1;
  }
  const ok = isCurveXAt(b, off);
  if (xonlyCache.size >= 20000) xonlyCache.clear();
  const e = new Uint8Array(33);
  e.set(b.subarray(off, off + 32));
  e[32] = ok ? 1 : 0;
  xonlyCache.set(k, e);
  return ok;
}

/** XOnlyPubKey::IsFullyValid: 32 bytes, x < p and x^3 + 7 is a square mod p. Cached. */
export function isValidXOnly(x: Uint8Array): boolean {
  return x.length === 32 && isValidXOnlyAt(x, 0);
}

/** CPubKey::IsValidNonHybrid (syntactic: a valid-size key with header 02, 03 or 04). */
function isValidNonHybrid(pk: Uint8Array): boolean {
  const h = pk[0];
  if (h === 2 || h === 3) return pk.length === 33;
  if (h === 4) return pk.length === 65;
  return false;
}

/** FormatHDKeypath with apostrophe=false ('h' for hardened), as InferDescriptor prints. */
export function formatKeyPath(path: number[]): string {
  let s = '';
  for (const step of path) {
    s += '/' + String(step & 0x7fffffff);
    if (step >>> 31) s += 'h';
  }
  return s;
}

function withOrigin(key: string, origin: KeyOrigin | undefined): string {
  if (!origin) return key;
  return `[${toHex(origin.fingerprint)}${formatKeyPath(origin.path)}]${key}`;
}

/** InferPubkey(...)->ToString(), or null where Core returns nullptr. */
function inferPubkey(pk: Uint8Array, ctx: Ctx, provider: SigningProviderLike): string | null {
  if (!isValidNonHybrid(pk)) return null;
  if (ctx !== 'top' && ctx !== 'p2sh' && pk.length !== 33) return null;
  return withOrigin(toHex(pk), provider.getKeyOrigin?.(pk));
}

/** InferXOnlyPubkey(...)->ToString(). */
function inferXOnlyPubkey(x: Uint8Array, provider: SigningProviderLike): string {
  let origin = provider.getKeyOriginByXOnly?.(x);
  if (!origin && provider.getKeyOrigin) {
    for (const prefix of [2, 3]) {
      const full = new Uint8Array(33);
      full[0] = prefix;
      full.set(x, 1);
      origin = provider.getKeyOrigin(full);
      if (origin) break;
    }
  }
  return withOrigin(toHex(x), origin);
}

// ---------------------------------------------------------------------------------------------
// InferScript
// ---------------------------------------------------------------------------------------------

type Solved = { type: TxoutType; solutions: Uint8Array[] };

function inferScript(
  script: Uint8Array,
  ctx: Ctx,
  provider: SigningProviderLike,
  net: Network,
  solved: Solved = solver(script),
  knownAddress?: string | null,
): string | null {
  const { type, solutions: data } = solved;
  const keyCtx = ctx === 'top' || ctx === 'p2sh' || ctx === 'p2wsh';

  if (type === 'pubkey' && keyCtx) {
    const k = inferPubkey(data[0]!, ctx, provider);
    if (k !== null) return `pk(${k})`;
  }
  if (type === 'pubkeyhash' && keyCtx) {
    const pk = provider.getPubKeyByHash160?.(data[0]!);
    if (pk) {
      const k = inferPubkey(pk, ctx, provider);
      if (k !== null) return `pkh(${k})`;
    }
  }
  if (type === 'witness_v0_keyhash' && (ctx === 'top' || ctx === 'p2sh')) {
    const pk = provider.getPubKeyByHash160?.(data[0]!);
    if (pk) {
      const k = inferPubkey(pk, 'p2wpkh', provider);
      if (k !== null) return `wpkh(${k})`;
    }
  }
  if (type === 'multisig' && keyCtx) {
    const keys: string[] = [];
    let ok = true;
    for (let i = 1; i + 1 < data.length; i++) {
      const k = inferPubkey(data[i]!, ctx, provider);
      if (k === null) {
        ok = false;
        break;
      }
      keys.push(k);
    }
    if (ok) return `multi(${data[0]![0]!},${keys.join(',')})`;
  }
  if (type === 'scripthash' && ctx === 'top') {
    const sub = provider.getScript?.(data[0]!);
    if (sub) {
      const inner = inferScript(sub, 'p2sh', provider, net);
      if (inner !== null) return `sh(${inner})`;
    }
  }
  if (type === 'witness_v0_scripthash' && (ctx === 'top' || ctx === 'p2sh')) {
    if (provider.getScript) {
      const sub = provider.getScript(ripemd160(data[0]!));
      if (sub) {
        const inner = inferScript(sub, 'p2wsh', provider, net);
        if (inner !== null) return `wsh(${inner})`;
      }
    }
  }
  if (type === 'witness_v1_taproot' && ctx === 'top') {
    const outputKey = data[0]!;
    const internal = provider.getTaprootInternalKey?.(outputKey);
    if (internal) return `tr(${inferXOnlyPubkey(internal, provider)})`;
    if (isValidXOnly(outputKey)) return `rawtr(${inferXOnlyPubkey(outputKey, provider)})`;
  }

  if (ctx !== 'top') return null;

  if (knownAddress !== undefined) {
    if (knownAddress !== null) return `addr(${knownAddress})`;
  } else {
    const dest = extractDestinationFromSolved(solved);
    if (dest && bytesEqual(scriptForDestination(dest), script)) {
      return `addr(${encodeDestination(dest, net)})`;
    }
  }
  return `raw(${toHex(script)})`;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const NO_PROVIDER: SigningProviderLike = {};

// ---------------------------------------------------------------------------------------------
// Descriptor checksum (same result as descriptor-checksum.ts, without BigInt: ~10x faster)
// ---------------------------------------------------------------------------------------------

const INPUT_CHARSET =
  '0123456789()[],\'/*abcdefgh@:$%{}' + 'IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~' + 'ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const INPUT_POS = new Int16Array(128).fill(-1);
for (let i = 0; i < INPUT_CHARSET.length; i++) INPUT_POS[INPUT_CHARSET.charCodeAt(i)] = i;

/** The checksum state while fastDescriptorChecksum runs (module level: no closure per call). */
let csHi = 0;
let csLo = 1;

/** One PolyMod step on the 40-bit state (csHi: bits 32..39, csLo as int32: bits 0..31). */
function csStep(val: number): void {
  const c0 = csHi >>> 3;
  let hi = ((csHi & 7) << 5) | (csLo >>> 27);
  let lo = (csLo << 5) ^ val;
  if (c0 & 1) { hi ^= 0xf5; lo ^= 0xdee51989; }
  if (c0 & 2) { hi ^= 0xa9; lo ^= 0xfdca3312; }
  if (c0 & 4) { hi ^= 0x1b; lo ^= 0xab10e32d; }
  if (c0 & 8) { hi ^= 0x37; lo ^= 0x06b1677a; }
  if (c0 & 16) { hi ^= 0x64; lo ^= 0x4d626ffd; }
  csHi = hi;
  csLo = lo;
}

/** The 8 checksum characters of the finished state (csHi:csLo, 40 bits) as codes, via csOut. */
function csFinish(): void {
  for (let j = 0; j < 8; j++) csStep(0);
  const hi = csHi;
  const lo = (csLo ^ 1) >>> 0;
  // Groups of 5 bits from the top: bits 35..39, 30..34 (crossing the halves), 25..29, ..., 0..4.
  csOut[0] = CHECKSUM_CODES[(hi >>> 3) & 31]!;
  csOut[1] = CHECKSUM_CODES[((hi << 2) | (lo >>> 30)) & 31]!;
  csOut[2] = CHECKSUM_CODES[(lo >>> 25) & 31]!;
  csOut[3] = CHECKSUM_CODES[(lo >>> 20) & 31]!;
  csOut[4] = CHECKSUM_CODES[(lo >>> 15) & 31]!;
  csOut[5] = CHECKSUM_CODES[(lo >>> 10) & 31]!;
  csOut[6] = CHECKSUM_CODES[(lo >>> 5) & 31]!;
  csOut[7] = CHECKSUM_CODES[lo & 31]!;
}

const CHECKSUM_CODES = Uint8Array.from(CHECKSUM_CHARSET, (c) => c.charCodeAt(0));
const csOut = new Uint8Array(8);

/** Core DescriptorChecksum: 8 characters, or '' if `desc` has a character outside the charset. */
export function fastDescriptorChecksum(desc: string): string {
  csHi = 0;
  csLo = 1;
  let cls = 0;
  let clscount = 0;
  for (let i = 0; i < desc.length; i++) {
    const code = desc.charCodeAt(i);
    const pos = code < 128 ? INPUT_POS[code]! : -1;
    if (pos === -1) return '';
    csStep(pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clscount === 3) {
      csStep(cls);
      cls = 0;
      clscount = 0;
    }
  }
  if (clscount > 0) csStep(cls);
  csFinish();
  return String.fromCharCode(csOut[0]!, csOut[1]!, csOut[2]!, csOut[3]!, csOut[4]!, csOut[5]!, csOut[6]!, csOut[7]!);
}

/**
 * DescriptorChecksum of the ASCII descriptor in buf[start..end], written as '#' and the 8
 * characters at buf[end..end+9]; returns end + 9, or -1 (nothing written) if a character is
 * outside the charset.
 */
export function writeDescriptorChecksum(buf: Uint8Array, start: number, end: number): number {
  csHi = 0;
  csLo = 1;
  let cls = 0;
  let clscount = 0;
  for (let i = start; i < end; i++) {
    const code = buf[i]!;
    const pos = code < 128 ? INPUT_POS[code]! : -1;
    if (pos === -1) return -1;
    csStep(pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clscount === 3) {
      csStep(cls);
      cls = 0;
      clscount = 0;
    }
  }
  if (clscount > 0) csStep(cls);
  csFinish();
  buf[end] = 0x23; // '#'
  for (let j = 0; j < 8; j++) buf[end + 1 + j] = csOut[j]!;
  return end + 9;
}

/** InferDescriptor(script, provider)->ToString() with '#checksum' appended. */
export function inferDescriptor(script: Uint8Array, net: Network, provider?: SigningProviderLike): string {
  const d = inferScript(script, 'top', provider ?? NO_PROVIDER, net)!;
  return `${d}#${fastDescriptorChecksum(d)}`;
}

/**
 * inferDescriptor for callers that already ran Solver and ExtractDestination + EncodeDestination
 * on `script` (ScriptToUniv): `address` is the encoded destination, or null if ExtractDestination
 * failed. Same result as inferDescriptor, without repeating that work.
 */
export function inferDescriptorSolved(
  script: Uint8Array,
  net: Network,
  provider: SigningProviderLike | undefined,
  solved: Solved,
  address: string | null,
): string {
  const d = inferScript(script, 'top', provider ?? NO_PROVIDER, net, solved, address)!;
  return `${d}#${fastDescriptorChecksum(d)}`;
}
