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

/** The checksum state while a checksum runs (module level: no closure per call). */
let csHi = 0;
let csLo = 1;

/** PolyMod's generator terms: GEN_HI/GEN_LO[t] is the xor of the constants for the set bits of t (5 bits). */
const GEN_HI = new Uint8Array(32);
const GEN_LO = new Int32Array(32);
{
  const hi = [0xf5, 0xa9, 0x1b, 0x37, 0x64];
  const lo = [0xdee51989, 0xfdca3312, 0xab10e32d, 0x06b1677a, 0x4d626ffd];
  for (let t = 0; t < 32; t++) {
    for (let k = 0; k < 5; k++) {
      if (t & (1 << k)) {
        GEN_HI[t]! ^= hi[k]!;
        GEN_LO[t]! ^= lo[k]!;
      }
    }
  }
}

/**
 * Two PolyMod steps at once: the generator terms they add are a (GF(2)-linear) function of the
 * top 10 bits of the state only, tabulated here. For top bits t1 (39..35) and t2 (34..30), the
 * first step adds G(t1), whose top 5 bits change the second step's selector to t2 ^ (G(t1) >> 35).
 */
const GEN2_HI = new Uint8Array(1024);
const GEN2_LO = new Int32Array(1024);
for (let t = 0; t < 1024; t++) {
  const t1 = t >> 5;
  const t2 = t & 31;
  const gh = GEN_HI[t1]!;
  const gl = GEN_LO[t1]!;
  const sel = t2 ^ (gh >>> 3);
  // ((G(t1) mod 2^35) << 5) ^ G(sel)
  GEN2_HI[t] = ((((gh & 7) << 5) | (gl >>> 27)) ^ GEN_HI[sel]!) & 0xff;
  GEN2_LO[t] = (gl << 5) ^ GEN_LO[sel]!;
}

/** One PolyMod step on the 40-bit state (csHi: bits 32..39, csLo as int32: bits 0..31). */
function csStep(val: number): void {
  const c0 = csHi >>> 3;
  const hi = ((csHi & 7) << 5) | (csLo >>> 27);
  csHi = hi ^ GEN_HI[c0]!;
  csLo = (csLo << 5) ^ val ^ GEN_LO[c0]!;
}

/** Two PolyMod steps: csStep(a) then csStep(b). */
function csStep2(a: number, b: number): void {
  const t = ((csHi << 2) | (csLo >>> 30)) & 1023;
  csHi = ((csLo >>> 22) & 0xff) ^ GEN2_HI[t]!;
  csLo = (csLo << 10) ^ (a << 5) ^ b ^ GEN2_LO[t]!;
}

const CHECKSUM_CODES = Uint8Array.from(CHECKSUM_CHARSET, (c) => c.charCodeAt(0));
const csOut = new Uint8Array(8);

/** The 8 zero steps and the 8 checksum characters of the final state, as codes in csOut. */
function csFinish(): void {
  csStep2(0, 0);
  csStep2(0, 0);
  csStep2(0, 0);
  csStep2(0, 0);
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

/**
 * Core DescriptorChecksum's PolyMod over `n` characters given by code(i): each character's
 * position in INPUT_CHARSET gives a symbol (pos & 31), and after every third character the
 * three groups (pos >> 5) as one more symbol. False if a character is outside the charset.
 */
function csRun(n: number, code: (i: number) => number): boolean {
  csHi = 0;
  csLo = 1;
  let i = 0;
  for (; i + 3 <= n; i += 3) {
    const c1 = code(i);
    const c2 = code(i + 1);
    const c3 = code(i + 2);
    const p1 = c1 < 128 ? INPUT_POS[c1]! : -1;
    const p2 = c2 < 128 ? INPUT_POS[c2]! : -1;
    const p3 = c3 < 128 ? INPUT_POS[c3]! : -1;
    if ((p1 | p2 | p3) < 0) return false;
    csStep2(p1 & 31, p2 & 31);
    csStep2(p3 & 31, (p1 >> 5) * 9 + (p2 >> 5) * 3 + (p3 >> 5));
  }
  if (n - i === 1) {
    const c1 = code(i);
    const p1 = c1 < 128 ? INPUT_POS[c1]! : -1;
    if (p1 < 0) return false;
    csStep2(p1 & 31, p1 >> 5);
  } else if (n - i === 2) {
    const c1 = code(i);
    const c2 = code(i + 1);
    const p1 = c1 < 128 ? INPUT_POS[c1]! : -1;
    const p2 = c2 < 128 ? INPUT_POS[c2]! : -1;
    if ((p1 | p2) < 0) return false;
    csStep2(p1 & 31, p2 & 31);
    csStep((p1 >> 5) * 3 + (p2 >> 5));
  }
  csFinish();
  return true;
}

let csStr = '';
const strCode = (i: number): number => csStr.charCodeAt(i);
const NO_BYTES = new Uint8Array(0);
let csBuf: Uint8Array = NO_BYTES;
let csBase = 0;
const bufCode = (i: number): number => csBuf[csBase + i]!;

/** Core DescriptorChecksum: 8 characters, or '' if `desc` has a character outside the charset. */
export function fastDescriptorChecksum(desc: string): string {
  csStr = desc;
  const ok = csRun(desc.length, strCode);
  csStr = '';
  if (!ok) return '';
  return String.fromCharCode(csOut[0]!, csOut[1]!, csOut[2]!, csOut[3]!, csOut[4]!, csOut[5]!, csOut[6]!, csOut[7]!);
}

/**
 * DescriptorChecksum of the ASCII descriptor in buf[start..end], written as '#' and the 8
 * characters at buf[end..end+9]; returns end + 9, or -1 (nothing written) if a character is
 * outside the charset.
 */
export function writeDescriptorChecksum(buf: Uint8Array, start: number, end: number): number {
  csBuf = buf;
  csBase = start;
  const ok = csRun(end - start, bufCode);
  csBuf = NO_BYTES;
  if (!ok) return -1;
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
