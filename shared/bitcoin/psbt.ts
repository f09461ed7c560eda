/**
 * PSBT decoding exactly like Bitcoin Core v30: a port of src/psbt.h Unserialize (global map,
 * inputs, outputs; BIP174 / BIP371 taproot / BIP373 MuSig2 fields, proprietary and unknown keys)
 * and of rpc/rawtransaction.cpp `decodepsbt` (result layout, fee rule).
 *
 * Core v30 has PSBT_HIGHEST_VERSION = 0: a PSBT_GLOBAL_VERSION above 0 is rejected with
 * "Unsupported version number" and the BIP370 (v2) global/input/output types are unknown keys.
 *
 * Every failure is returned as data with Core's text: `TX decode failed <what()>`, where the
 * what() of a std::ios_base::failure carries the libstdc++ suffix ": iostream error".
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { btcJson, formatBtc, moneyRange } from '../amounts';
import { jsonString, RawJson } from '../json';
import { encodeBase58Check, encodeDestination, extractDestinationFromSolved, writeSegwitAddress } from './address';
import { inferDescriptorSolved, isValidXOnlyAt, writeDescriptorChecksum } from './infer';
import { decodeRawTransactionJson, txOutUniv, type ScriptUnivCache } from './decode';
import type { Network } from './networks';
import { checkSignatureEncodingStrict, scriptToAsm, sighashToStr, solver } from './script';
import { scriptToUniv } from './script-univ';
import { ByteReader, hexOf, isCoinBase, readTx, StreamError, type ParsedTx, type TxOut } from './tx';
import { FIELD_P, curveRhs, isCurveX } from './secp';

const toHex = (b: Uint8Array): string => hexOf(b);

export type DecodePsbtResult =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: -22; message: string };

// ---------------------------------------------------------------------------------------------
// Base64 (util/strencodings.cpp DecodeBase64: length % 4 == 0, up to two '=', zero pad bits)
// ---------------------------------------------------------------------------------------------

const B64 = new Int8Array(256).fill(-1);
{
  const alpha = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 64; i++) B64[alpha.charCodeAt(i)] = i;
}

/** Core DecodeBase64; null when invalid. */
export function decodeBase64Core(str: string): Uint8Array | null {
  let n = str.length;
  if (n % 4 !== 0) return null;
  if (n >= 1 && str.charCodeAt(n - 1) === 0x3d) n--;
  if (n >= 1 && str.charCodeAt(n - 1) === 0x3d) n--;
  const out = new Uint8Array(Math.floor((n * 6) / 8));
  // Whole groups of four characters: three bytes each.
  const whole = n - (n % 4);
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const c0 = str.charCodeAt(i);
    const c1 = str.charCodeAt(i + 1);
    const c2 = str.charCodeAt(i + 2);
    const c3 = str.charCodeAt(i + 3);
    if ((c0 | c1 | c2 | c3) >= 256) return null;
    const a = B64[c0]!;
    const b = B64[c1]!;
    const c = B64[c2]!;
    const d = B64[c3]!;
    if ((a | b | c | d) < 0) return null;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o] = v >> 16;
    out[o + 1] = (v >> 8) & 0xff;
    out[o + 2] = v & 0xff;
    o += 3;
  }
  // The last 0..3 characters (before the padding) bit by bit.
  let acc = 0;
  let bits = 0;
  for (let i = whole; i < n; i++) {
    const c = str.charCodeAt(i);
    const v = c < 256 ? B64[c]! : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (bits >= 6 || ((acc << (8 - bits)) & 0xff) !== 0) return null;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public keys (CPubKey::IsFullyValid without libsecp256k1)
// ---------------------------------------------------------------------------------------------


function bytesToBig(b: Uint8Array, start: number, end: number): bigint {
  return BigInt('0x' + hexOf(b, start, end));
}

/** CPubKey::GetLen(header). */
function pubkeyLen(h: number): number {
  if (h === 2 || h === 3) return 33;
  if (h === 4 || h === 6 || h === 7) return 65;
  return 0;
}

/** CPubKey(bytes).IsFullyValid(): right size for the header and a point on secp256k1. */
export function isFullyValidPubkey(b: Uint8Array): boolean {
  const h = b[0];
  if (h === undefined || pubkeyLen(h) !== b.length) return false;
  const x = bytesToBig(b, 1, 33);
  if (b.length === 33) return isCurveX(x);
  if (x >= FIELD_P) return false;
  const y = bytesToBig(b, 33, 65);
  if (y >= FIELD_P) return false;
  if ((y * y) % FIELD_P !== curveRhs(x)) return false;
  if (h === 6 || h === 7) return Number(y & 1n) === (h & 1);
  return true;
}

/** A CPubKey built from 33 bytes (musig2 fields): valid only with a 02/03 header; else HexStr is "". */
function pk33(b: Uint8Array): { sort: string; hex: string } {
  const h = b[0];
  if (h === 2 || h === 3) {
    const hex = toHex(b);
    return { sort: hex, hex };
  }
  return { sort: 'g', hex: '' }; // invalid CPubKey: header 0xFF, size 0 (sorts last, all equal)
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function fail(msg: string): never {
  throw new StreamError(msg);
}

interface KeyOrigin {
  fp: Uint8Array;
  path: number[];
}

/** DeserializeKeyOrigin(s, length). */
function readKeyOrigin(s: ByteReader, length: number): KeyOrigin {
  if (length % 4 !== 0 || length === 0) fail('Invalid length for HD key path');
  const fp = s.bytes(4);
  const path: number[] = [];
  for (let i = 4; i < length; i += 4) path.push(s.u32());
  return { fp, path };
}

/** WriteHDKeypath(path) with 'h' for hardened steps. */
function formatHDKeypath(path: number[]): string {
  let s = 'm';
  for (const i of path) {
    s += '/' + (i & 0x7fffffff);
    if (i >= 0x80000000) s += 'h';
  }
  return s;
}

/** UnserializeFromVector: the value's stated size must equal what the reader consumed. */
function fromVector<T>(s: ByteReader, f: () => T): T {
  const expected = s.compactSize();
  const before = s.remaining;
  const v = f();
  if (s.remaining + expected !== before) fail('Size of value was not the stated size');
  return v;
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedValues<V>(m: Map<string, V>): V[] {
  const keys = [...m.keys()].sort(cmpStr);
  return keys.map((k) => m.get(k)!);
}

function isNull(b: Uint8Array | undefined): boolean {
  if (!b) return true;
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

const ZERO32_HEX = '00'.repeat(32);

/**
 * Shared empty map standing for "no entries" in the per-input/output maps, so a PSBT with
 * thousands of inputs does not allocate a dozen empty Maps each (never written to: see own()).
 */
const NO_MAP: Map<string, never> = new Map<string, never>();

/** The map itself, or a fresh one in place of the shared empty sentinel. */
function own<V>(m: Map<string, V>): Map<string, V> {
  return m === (NO_MAP as Map<string, V>) ? new Map<string, V>() : m;
}

interface Proprietary {
  identifier: Uint8Array;
  subtype: number;
  key: Uint8Array;
  value: Uint8Array;
}

/** The PSBT_*_PROPRIETARY case, shared by the three maps. */
function readProprietary(s: ByteReader, skey: ByteReader, key: Uint8Array, props: Map<string, Proprietary>): void {
  const identifier = skey.varBytes();
  const subtype = skey.compactSize();
  const k = toHex(key);
  if (props.has(k)) fail('Duplicate Key, proprietary key already found');
  const value = s.varBytes();
  props.set(k, { identifier, subtype, key, value });
}

function readUnknown(s: ByteReader, key: Uint8Array, unknown: Map<string, Uint8Array>): void {
  const k = toHex(key);
  if (unknown.has(k)) fail('Duplicate Key, key for unknown value already provided');
  unknown.set(k, s.varBytes());
}

/** DeserializeHDKeypaths into a map keyed by pubkey hex. */
function readHDKeypath(s: ByteReader, key: Uint8Array, paths: Map<string, KeyOrigin>): void {
  if (key.length !== 66 && key.length !== 34) fail('Size of key was not the expected size for the type BIP32 keypath');
  const pub = key.subarray(1);
  if (!isFullyValidPubkey(pub)) fail('Invalid pubkey');
  const k = toHex(pub);
  if (paths.has(k)) fail('Duplicate Key, pubkey derivation path already provided');
  paths.set(k, readKeyOrigin(s, s.compactSize()));
}

interface TapBip32 {
  leafHashes: string[];
  origin: KeyOrigin;
}

/** The PSBT_{IN,OUT}_TAP_BIP32_DERIVATION value. */
function readTapBip32(s: ByteReader, side: 'Input' | 'Output'): TapBip32 {
  const valueLen = s.compactSize();
  const before = s.remaining;
  const n = s.compactSize();
  let leafHashes: string[] = [];
  if (n > 0) {
    const hashes = new Set<string>();
    for (let i = 0; i < n; i++) hashes.add(hexOf(s.bytes(32)));
    leafHashes = [...hashes].sort(cmpStr);
  }
  const hashesLen = before - s.remaining;
  if (hashesLen > valueLen) fail(`${side} Taproot BIP32 keypath has an invalid length`);
  const origin = readKeyOrigin(s, valueLen - hashesLen);
  return { leafHashes, origin };
}

/** DeserializeMuSig2ParticipantPubkeys. */
function readMusigParticipants(
  s: ByteReader,
  skey: ByteReader,
  out: Map<string, { agg: string; parts: string[] }>,
  context: 'Input' | 'Output',
): void {
  const agg = pk33(skey.bytes(33));
  const val = s.varBytes();
  const parts: string[] = [];
  let p = 0;
  while (val.length - p >= 33) {
    parts.push(pk33(val.subarray(p, p + 33)).hex);
    p += 33;
  }
  if (p !== val.length) fail(`${context} musig2 participants pubkeys value size is not a multiple of 33`);
  if (!out.has(agg.sort)) out.set(agg.sort, { agg: agg.hex, parts });
}

interface MusigDatum {
  part: string;
  agg: string;
  leaf: string;
  value: string;
}

/** DeserializeMuSig2ParticipantDataIdentifier + the map insertion (first one wins). */
function readMusigIdent(skey: ByteReader): { agg: { sort: string; hex: string }; part: { sort: string; hex: string }; leaf: string } {
  const part = pk33(skey.bytes(33));
  const agg = pk33(skey.bytes(33));
  const leaf = skey.empty ? ZERO32_HEX : hexOf(skey.bytes(32));
  return { agg, part, leaf };
}

function putMusig(m: Map<string, MusigDatum>, id: ReturnType<typeof readMusigIdent>, value: string): void {
  // Sort key: (aggregate pubkey, leaf hash) then participant pubkey.
  const k = id.agg.sort + '|' + id.leaf + '|' + id.part.sort;
  if (!m.has(k)) m.set(k, { part: id.part.hex, agg: id.agg.hex, leaf: id.leaf, value });
}

// ---------------------------------------------------------------------------------------------
// Input / output maps
// ---------------------------------------------------------------------------------------------

interface PsbtInput {
  nonWitnessUtxo?: ParsedTx;
  witnessUtxo?: TxOut;
  partialSigs: Map<string, { pubkey: string; sig: string }>;
  sighash?: number;
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  hdKeypaths: Map<string, KeyOrigin>;
  finalScriptSig?: Uint8Array;
  finalScriptWitness?: Uint8Array[];
  ripemd160: Map<string, Uint8Array>;
  sha256: Map<string, Uint8Array>;
  hash160: Map<string, Uint8Array>;
  hash256: Map<string, Uint8Array>;
  tapKeySig?: Uint8Array;
  tapScriptSigs: Map<string, { pubkey: string; leaf: string; sig: Uint8Array }>;
  tapScripts: Map<string, { script: Uint8Array; scriptHex: string; ver: number; controls: Map<string, Uint8Array> }>;
  tapBip32: Map<string, TapBip32>;
  tapInternalKey?: Uint8Array;
  tapMerkleRoot?: Uint8Array;
  musigParticipants: Map<string, { agg: string; parts: string[] }>;
  musigPubnonces: Map<string, MusigDatum>;
  musigPartialSigs: Map<string, MusigDatum>;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

interface PsbtOutput {
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  hdKeypaths: Map<string, KeyOrigin>;
  tapInternalKey?: Uint8Array;
  tapTree: { depth: number; ver: number; script: Uint8Array }[];
  tapBip32: Map<string, TapBip32>;
  musigParticipants: Map<string, { agg: string; parts: string[] }>;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

/** Per-decode cache of non_witness_utxo parses keyed by their exact bytes' position-independent identity. */
interface DecodeCtx {
  utxoCache: Map<string, ParsedTx>;
}

function readKey(s: ByteReader): Uint8Array {
  return s.varBytes();
}

const ONE_CHAR: string[] = [];
for (let i = 0; i < 256; i++) ONE_CHAR.push(String.fromCharCode(i));

/**
 * One-byte keys (just a type) shared by all the maps read, so the common keys need no view
 * each. Only read, never kept: the types that keep their key (proprietary) need more than one
 * byte and throw on a one-byte key before keeping it.
 */
const ONE_BYTE_KEYS: Uint8Array[] = [];
for (let i = 0; i < 256; i++) ONE_BYTE_KEYS.push(Uint8Array.of(i));

/** readKey, with the shared view for a one-byte key. */
function readKeyShared(s: ByteReader): Uint8Array {
  const n = s.compactSize();
  if (n === 1 && s.pos < s.end) return ONE_BYTE_KEYS[s.buf[s.pos++]!]!;
  return s.bytes(n);
}

/**
 * The keys of one map checked for duplicates (Core's `key_lookup`, a std::set): a short array
 * while few (most maps hold a handful), a Set past that, so a map with thousands of keys (a
 * PSBT of many taproot script signatures, say) is not quadratic.
 */
class KeyLookup {
  private list: string[] | undefined;
  private set: Set<string> | undefined;

  /** key_lookup.emplace(key) failing: the exact key was seen before in this map. */
  seen(key: Uint8Array): boolean {
    // Any injective text of the key does: its bytes as char codes (one flat string) while short.
    const k =
      key.length === 1
        ? ONE_CHAR[key[0]!]!
        : key.length <= 256
          ? String.fromCharCode.apply(null, key as unknown as number[])
          : toHex(key);
    const set = this.set;
    if (set) {
      if (set.has(k)) return true;
      set.add(k);
      return false;
    }
    const list = (this.list ??= []);
    if (list.includes(k)) return true;
    list.push(k);
    if (list.length > 16) this.set = new Set(list);
    return false;
  }
}

function keySeen(lookup: KeyLookup, key: Uint8Array): boolean {
  return lookup.seen(key);
}

/** Parses a non_witness_utxo (TX_WITH_WITNESS) reusing an earlier parse of identical bytes. */
function readNonWitnessUtxo(s: ByteReader, ctx: DecodeCtx): ParsedTx {
  const expected = s.compactSize();
  const before = s.remaining;
  // Identical bytes repeat when several inputs spend one transaction: reuse the earlier parse.
  if (expected <= before && expected >= 10) {
    const start = s.pos;
    const view = s.buf.subarray(start, start + expected);
    const fp = fingerprint(view);
    const hit = ctx.utxoCache.get(fp);
    if (hit && hit.size === expected && sameBytes(hit, view)) {
      s.pos = start + expected;
      return hit;
    }
    const tx = readTx(s, true);
    if (s.remaining + expected !== before) fail('Size of value was not the stated size');
    rawOf.set(tx, view);
    ctx.utxoCache.set(fp, tx);
    return tx;
  }
  const tx = readTx(s, true);
  if (s.remaining + expected !== before) fail('Size of value was not the stated size');
  return tx;
}

const rawOf = new WeakMap<ParsedTx, Uint8Array>();

function fingerprint(v: Uint8Array): string {
  // Cheap identity: length and a few sampled windows; confirmed by a full compare on hit.
  const n = v.length;
  return `${n}:${hexOf(v, 0, Math.min(n, 48))}:${hexOf(v, Math.max(0, n - 48), n)}:${hexOf(v, n >> 1, Math.min(n, (n >> 1) + 32))}`;
}

function sameBytes(tx: ParsedTx, view: Uint8Array): boolean {
  const raw = rawOf.get(tx);
  if (!raw || raw.length !== view.length) return false;
  for (let i = 0; i < raw.length; i++) if (raw[i] !== view[i]) return false;
  return true;
}

const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const HEX_CODES64: number[] = new Array<number>(64).fill(0);

/** hexOf(b, start, start + 32) as one flat string (no chain of 32 concatenations). */
function hex32(b: Uint8Array, start: number): string {
  const c = HEX_CODES64;
  for (let i = 0; i < 32; i++) {
    const x = b[start + i]!;
    c[2 * i] = HEX_DIGITS[x >> 4]!;
    c[2 * i + 1] = HEX_DIGITS[x & 15]!;
  }
  return String.fromCharCode.apply(null, c);
}

/** A SpanReader over a key, past its one-byte type. */
function keyReader(key: Uint8Array): ByteReader {
  return new ByteReader(key, 1, key.length, 'SpanReader');
}

/** ByteReader.i64 (CAmount), with one BigInt for amounts below 2^53. */
function readI64(s: ByteReader): bigint {
  const lo = s.u32();
  const hi = s.u32();
  if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
  return (BigInt(hi | 0) << 32n) + BigInt(lo);
}

function readInput(s: ByteReader, ctx: DecodeCtx): PsbtInput {
  const inp: PsbtInput = {
    partialSigs: NO_MAP,
    hdKeypaths: NO_MAP,
    ripemd160: NO_MAP,
    sha256: NO_MAP,
    hash160: NO_MAP,
    hash256: NO_MAP,
    tapScriptSigs: NO_MAP,
    tapScripts: NO_MAP,
    tapBip32: NO_MAP,
    musigParticipants: NO_MAP,
    musigPubnonces: NO_MAP,
    musigPartialSigs: NO_MAP,
    proprietary: NO_MAP,
    unknown: NO_MAP,
  };
  const lookup = new KeyLookup();
  let foundSep = false;
  while (!s.empty) {
    const key = readKeyShared(s);
    if (key.length === 0) {
      foundSep = true;
      break;
    }
    // The key type (a compact size: one byte below 0xfd); the reader over the rest of the key is
    // made only for the types that read it.
    let skey: ByteReader | undefined;
    let type = key[0]!;
    if (type >= 0xfd) {
      skey = new ByteReader(key, 0, key.length, 'SpanReader');
      type = skey.compactSize();
    }
    switch (type) {
      case 0x00: // PSBT_IN_NON_WITNESS_UTXO
        if (keySeen(lookup, key)) fail('Duplicate Key, input non-witness utxo already provided');
        if (key.length !== 1) fail('Non-witness utxo key is more than one byte type');
        inp.nonWitnessUtxo = readNonWitnessUtxo(s, ctx);
        break;
      case 0x01: // PSBT_IN_WITNESS_UTXO
        if (keySeen(lookup, key)) fail('Duplicate Key, input witness utxo already provided');
        if (key.length !== 1) fail('Witness utxo key is more than one byte type');
        {
          // fromVector(s, () => ({ value: s.i64(), script: s.varBytes() })) without the closure
          const expected = s.compactSize();
          const before = s.remaining;
          const value = readI64(s);
          const script = s.varBytes();
          if (s.remaining + expected !== before) fail('Size of value was not the stated size');
          inp.witnessUtxo = { value, script };
        }
        break;
      case 0x02: {
        // PSBT_IN_PARTIAL_SIG
        if (key.length !== 66 && key.length !== 34) {
          fail('Size of key was not the expected size for the type partial signature pubkey');
        }
        const pub = key.subarray(1);
        if (!isFullyValidPubkey(pub)) fail('Invalid pubkey');
        const keyId = hexOf(ripemd160(sha256(pub)));
        if (inp.partialSigs.has(keyId)) fail('Duplicate Key, input partial signature for pubkey already provided');
        const sig = s.varBytes();
        if (sig.length === 0 || !checkSignatureEncodingStrict(sig)) fail('Signature is not a valid encoding');
        (inp.partialSigs = own(inp.partialSigs)).set(keyId, { pubkey: toHex(pub), sig: toHex(sig) });
        break;
      }
      case 0x03: // PSBT_IN_SIGHASH
        if (keySeen(lookup, key)) fail('Duplicate Key, input sighash type already provided');
        if (key.length !== 1) fail('Sighash type key is more than one byte type');
        inp.sighash = fromVector(s, () => s.i32());
        break;
      case 0x04:
        if (keySeen(lookup, key)) fail('Duplicate Key, input redeemScript already provided');
        if (key.length !== 1) fail('Input redeemScript key is more than one byte type');
        inp.redeemScript = s.varBytes();
        break;
      case 0x05:
        if (keySeen(lookup, key)) fail('Duplicate Key, input witnessScript already provided');
        if (key.length !== 1) fail('Input witnessScript key is more than one byte type');
        inp.witnessScript = s.varBytes();
        break;
      case 0x06:
        readHDKeypath(s, key, (inp.hdKeypaths = own(inp.hdKeypaths)));
        break;
      case 0x07:
        if (keySeen(lookup, key)) fail('Duplicate Key, input final scriptSig already provided');
        if (key.length !== 1) fail('Final scriptSig key is more than one byte type');
        inp.finalScriptSig = s.varBytes();
        break;
      case 0x08:
        if (keySeen(lookup, key)) fail('Duplicate Key, input final scriptWitness already provided');
        if (key.length !== 1) fail('Final scriptWitness key is more than one byte type');
        inp.finalScriptWitness = fromVector(s, () => {
          const n = s.compactSize();
          const stack: Uint8Array[] = [];
          for (let i = 0; i < n; i++) stack.push(s.varBytes());
          return stack;
        });
        break;
      case 0x0a:
      case 0x0b:
      case 0x0c:
      case 0x0d: {
        const name = type === 0x0a ? 'ripemd160' : type === 0x0b ? 'sha256' : type === 0x0c ? 'hash160' : 'hash256';
        const size = type === 0x0a || type === 0x0c ? 21 : 33;
        const map = (inp[name] = own(inp[name]));
        if (key.length !== size) fail(`Size of key was not the expected size for the type ${name} preimage`);
        const h = hexOf(key, 1);
        if (map.has(h)) fail(`Duplicate Key, input ${name} preimage already provided`);
        map.set(h, s.varBytes());
        break;
      }
      case 0x13: {
        if (keySeen(lookup, key)) fail('Duplicate Key, input Taproot key signature already provided');
        if (key.length !== 1) fail('Input Taproot key signature key is more than one byte type');
        const sig = s.varBytes();
        inp.tapKeySig = sig;
        if (sig.length < 64) fail('Input Taproot key path signature is shorter than 64 bytes');
        if (sig.length > 65) fail('Input Taproot key path signature is longer than 65 bytes');
        break;
      }
      case 0x14: {
        if (keySeen(lookup, key)) fail('Duplicate Key, input Taproot script signature already provided');
        if (key.length !== 65) fail('Input Taproot script signature key is not 65 bytes');
        const sig = s.varBytes();
        if (sig.length < 64) fail('Input Taproot script path signature is shorter than 64 bytes');
        if (sig.length > 65) fail('Input Taproot script path signature is longer than 65 bytes');
        const k = hexOf(key, 1);
        inp.tapScriptSigs = own(inp.tapScriptSigs);
        if (!inp.tapScriptSigs.has(k)) inp.tapScriptSigs.set(k, { pubkey: hexOf(key, 1, 33), leaf: hexOf(key, 33, 65), sig });
        break;
      }
      case 0x15: {
        if (keySeen(lookup, key)) fail('Duplicate Key, input Taproot leaf script already provided');
        if (key.length < 34) fail('Taproot leaf script key is not at least 34 bytes');
        if ((key.length - 2) % 32 !== 0) fail("Input Taproot leaf script key's control block size is not valid");
        const v = s.varBytes();
        if (v.length === 0) fail('Input Taproot leaf script must be at least 1 byte');
        const ver = v[v.length - 1]!;
        const script = v.subarray(0, v.length - 1);
        const scriptHex = toHex(script);
        const k = scriptHex + ':' + ver;
        inp.tapScripts = own(inp.tapScripts);
        let e = inp.tapScripts.get(k);
        if (!e) {
          e = { script, scriptHex, ver, controls: new Map() };
          inp.tapScripts.set(k, e);
        }
        const cb = key.subarray(1);
        const cbHex = toHex(cb);
        if (!e.controls.has(cbHex)) e.controls.set(cbHex, cb);
        break;
      }
      case 0x16: {
        // key_lookup holds only keys of this type that passed the length check (a wrong length
        // throws at once), so "seen" is "the map has this x-only key".
        if (key.length !== 33) fail('Input Taproot BIP32 keypath key is not at 33 bytes');
        const x = hex32(key, 1);
        const m = (inp.tapBip32 = own(inp.tapBip32));
        if (m.has(x)) fail('Duplicate Key, input Taproot BIP32 keypath already provided');
        m.set(x, readTapBip32(s, 'Input'));
        break;
      }
      case 0x17:
        if (keySeen(lookup, key)) fail('Duplicate Key, input Taproot internal key already provided');
        if (key.length !== 1) fail('Input Taproot internal key key is more than one byte type');
        {
          const expected = s.compactSize();
          const before = s.remaining;
          const k = s.bytes(32);
          if (s.remaining + expected !== before) fail('Size of value was not the stated size');
          inp.tapInternalKey = k;
        }
        break;
      case 0x18:
        if (keySeen(lookup, key)) fail('Duplicate Key, input Taproot merkle root already provided');
        if (key.length !== 1) fail('Input Taproot merkle root key is more than one byte type');
        inp.tapMerkleRoot = fromVector(s, () => s.bytes(32));
        break;
      case 0x1a:
        if (keySeen(lookup, key)) fail('Duplicate Key, input participant pubkeys for an aggregate key already provided');
        if (key.length !== 34) fail('Input musig2 participants pubkeys aggregate key is not 34 bytes');
        readMusigParticipants(s, skey ?? keyReader(key), (inp.musigParticipants = own(inp.musigParticipants)), 'Input');
        break;
      case 0x1b: {
        if (keySeen(lookup, key)) fail('Duplicate Key, input musig2 pubnonce already provided');
        if (key.length !== 67 && key.length !== 99) fail('Input musig2 pubnonce key is not expected size of 67 or 99 bytes');
        const id = readMusigIdent(skey ?? keyReader(key));
        const nonce = s.varBytes();
        if (nonce.length !== 66) fail('Input musig2 pubnonce value is not 66 bytes');
        putMusig((inp.musigPubnonces = own(inp.musigPubnonces)), id, toHex(nonce));
        break;
      }
      case 0x1c: {
        if (keySeen(lookup, key)) fail('Duplicate Key, input musig2 partial sig already provided');
        if (key.length !== 67 && key.length !== 99) fail('Input musig2 partial sig key is not expected size of 67 or 99 bytes');
        const id = readMusigIdent(skey ?? keyReader(key));
        const psig = fromVector(s, () => s.bytes(32));
        putMusig((inp.musigPartialSigs = own(inp.musigPartialSigs)), id, toHex(psig));
        break;
      }
      case 0xfc:
        readProprietary(s, skey ?? keyReader(key), key, (inp.proprietary = own(inp.proprietary)));
        break;
      default:
        readUnknown(s, key, (inp.unknown = own(inp.unknown)));
    }
  }
  if (!foundSep) fail('Separator is missing at the end of an input map');
  return inp;
}

/** TaprootBuilder::Add sequence validity + IsComplete (depths only; hashes do not matter). */
function tapTreeComplete(depths: number[]): boolean {
  const branch: boolean[] = [];
  for (const d of depths) {
    let depth = d;
    if (depth + 1 < branch.length) return false;
    while (branch.length > depth && branch[depth]) {
      branch.pop();
      if (depth === 0) return false;
      depth--;
    }
    while (branch.length <= depth) branch.push(false);
    branch[depth] = true;
  }
  return branch.length === 0 || (branch.length === 1 && branch[0] === true);
}

function readOutput(s: ByteReader): PsbtOutput {
  const out: PsbtOutput = {
    hdKeypaths: NO_MAP,
    tapTree: [],
    tapBip32: NO_MAP,
    musigParticipants: NO_MAP,
    proprietary: NO_MAP,
    unknown: NO_MAP,
  };
  const lookup = new KeyLookup();
  let foundSep = false;
  while (!s.empty) {
    const key = readKey(s);
    if (key.length === 0) {
      foundSep = true;
      break;
    }
    const skey = new ByteReader(key, 0, key.length, 'SpanReader');
    const type = skey.compactSize();
    switch (type) {
      case 0x00:
        if (keySeen(lookup, key)) fail('Duplicate Key, output redeemScript already provided');
        if (key.length !== 1) fail('Output redeemScript key is more than one byte type');
        out.redeemScript = s.varBytes();
        break;
      case 0x01:
        if (keySeen(lookup, key)) fail('Duplicate Key, output witnessScript already provided');
        if (key.length !== 1) fail('Output witnessScript key is more than one byte type');
        out.witnessScript = s.varBytes();
        break;
      case 0x02:
        readHDKeypath(s, key, (out.hdKeypaths = own(out.hdKeypaths)));
        break;
      case 0x05:
        if (keySeen(lookup, key)) fail('Duplicate Key, output Taproot internal key already provided');
        if (key.length !== 1) fail('Output Taproot internal key key is more than one byte type');
        out.tapInternalKey = fromVector(s, () => s.bytes(32));
        break;
      case 0x06: {
        if (keySeen(lookup, key)) fail('Duplicate Key, output Taproot tree already provided');
        if (key.length !== 1) fail('Output Taproot tree key is more than one byte type');
        const treeV = s.varBytes();
        const st = new ByteReader(treeV, 0, treeV.length, 'SpanReader');
        if (st.empty) fail('Output Taproot tree must not be empty');
        const depths: number[] = [];
        while (!st.empty) {
          const depth = st.u8();
          const ver = st.u8();
          const script = st.varBytes();
          if (depth > 128) fail('Output Taproot tree has as leaf greater than Taproot maximum depth');
          if ((ver & ~0xfe) !== 0) fail('Output Taproot tree has a leaf with an invalid leaf version');
          out.tapTree.push({ depth, ver, script });
          depths.push(depth);
        }
        if (!tapTreeComplete(depths)) fail('Output Taproot tree is malformed');
        break;
      }
      case 0x07: {
        if (keySeen(lookup, key)) fail('Duplicate Key, output Taproot BIP32 keypath already provided');
        if (key.length !== 33) fail('Output Taproot BIP32 keypath key is not at 33 bytes');
        const x = hexOf(key, 1);
        const v = readTapBip32(s, 'Output');
        out.tapBip32 = own(out.tapBip32);
        if (!out.tapBip32.has(x)) out.tapBip32.set(x, v);
        break;
      }
      case 0x08:
        if (keySeen(lookup, key)) fail('Duplicate Key, output participant pubkeys for an aggregate key already provided');
        if (key.length !== 34) fail('Output musig2 participants pubkeys aggregate key is not 34 bytes');
        readMusigParticipants(s, skey, (out.musigParticipants = own(out.musigParticipants)), 'Output');
        break;
      case 0xfc:
        readProprietary(s, skey, key, (out.proprietary = own(out.proprietary)));
        break;
      default:
        readUnknown(s, key, (out.unknown = own(out.unknown)));
    }
  }
  if (!foundSep) fail('Separator is missing at the end of an output map');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Whole PSBT
// ---------------------------------------------------------------------------------------------

interface GlobalXpub {
  key: Uint8Array; // 78 serialized bytes (version + BIP32 ext pubkey)
  sort: string; // pubkey then chaincode (CExtPubKey operator<)
}

interface Psbt {
  tx: ParsedTx;
  xpubs: Map<string, { origin: KeyOrigin; xpubs: GlobalXpub[] }>;
  version?: number;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
  inputs: PsbtInput[];
  outputs: PsbtOutput[];
}

/** KeyOriginInfo operator< as a sortable string: fingerprint, path length, path elements. */
function originSortKey(o: KeyOrigin): string {
  let s = hexOf(o.fp) + o.path.length.toString(16).padStart(8, '0');
  for (const p of o.path) s += p.toString(16).padStart(8, '0');
  return s;
}

function readPsbt(bytes: Uint8Array): Psbt {
  const s = new ByteReader(bytes);
  const magic = s.bytes(5);
  if (magic[0] !== 0x70 || magic[1] !== 0x73 || magic[2] !== 0x62 || magic[3] !== 0x74 || magic[4] !== 0xff) {
    fail('Invalid PSBT magic bytes');
  }
  const lookup = new KeyLookup();
  const seenXpubs = new Set<string>();
  let tx: ParsedTx | undefined;
  let version: number | undefined;
  const xpubs = new Map<string, { origin: KeyOrigin; xpubs: GlobalXpub[] }>();
  const proprietary = new Map<string, Proprietary>();
  const unknown = new Map<string, Uint8Array>();
  let foundSep = false;
  while (!s.empty) {
    const key = readKey(s);
    if (key.length === 0) {
      foundSep = true;
      break;
    }
    const skey = new ByteReader(key, 0, key.length, 'SpanReader');
    const type = skey.compactSize();
    switch (type) {
      case 0x00: {
        if (keySeen(lookup, key)) fail('Duplicate Key, unsigned tx already provided');
        if (key.length !== 1) fail('Global unsigned tx key is more than one byte type');
        const t = fromVector(s, () => readTx(s, false));
        tx = t;
        for (const txin of t.vin) {
          if (txin.scriptSig.length !== 0 || txin.witness.length !== 0) {
            fail('Unsigned tx does not have empty scriptSigs and scriptWitnesses.');
          }
        }
        break;
      }
      case 0x01: {
        if (key.length !== 79) fail('Size of key was not the expected size for the type global xpub');
        const pub = key.subarray(46, 79);
        // CExtPubKey::Decode drops the key of a depth-0 (master) xpub whose parent fingerprint or
        // child number is not zero (BIP32 test vector 5), so IsFullyValid fails as for a bad point.
        const badMaster = key[5] === 0 && (key[6]! | key[7]! | key[8]! | key[9]! | key[10]! | key[11]! | key[12]! | key[13]!) !== 0;
        if (badMaster || !isFullyValidPubkey(pub)) fail('Invalid pubkey');
        const sort = hexOf(pub) + hexOf(key, 14, 46);
        if (seenXpubs.has(sort)) fail('Duplicate key, global xpub already provided');
        seenXpubs.add(sort);
        const origin = readKeyOrigin(s, s.compactSize());
        const ok = originSortKey(origin);
        let e = xpubs.get(ok);
        if (!e) {
          e = { origin, xpubs: [] };
          xpubs.set(ok, e);
        }
        e.xpubs.push({ key: key.subarray(1), sort });
        break;
      }
      case 0xfb: {
        if (version !== undefined) fail('Duplicate Key, version already provided');
        if (key.length !== 1) fail('Global version key is more than one byte type');
        const v = fromVector(s, () => s.u32());
        version = v;
        if (v > 0) fail('Unsupported version number');
        break;
      }
      case 0xfc:
        readProprietary(s, skey, key, proprietary);
        break;
      default:
        readUnknown(s, key, unknown);
    }
  }
  if (!foundSep) fail('Separator is missing at the end of the global map');
  if (!tx) fail('No unsigned transaction was provided');

  const ctx: DecodeCtx = { utxoCache: new Map() };
  const inputs: PsbtInput[] = [];
  for (let i = 0; !s.empty && i < tx.vin.length; i++) {
    const input = readInput(s, ctx);
    inputs.push(input);
    const nwu = input.nonWitnessUtxo;
    if (nwu) {
      const txin = tx.vin[i]!;
      if (nwu.txid !== txin.prevTxid) fail('Non-witness UTXO does not match outpoint hash');
      if (txin.vout >= nwu.vout.length) fail('Input specifies output index that does not exist');
    }
  }
  if (inputs.length !== tx.vin.length) fail('Inputs provided does not match the number of inputs in transaction.');
  const outputs: PsbtOutput[] = [];
  for (let i = 0; !s.empty && i < tx.vout.length; i++) outputs.push(readOutput(s));
  if (outputs.length !== tx.vout.length) fail('Outputs provided does not match the number of outputs in transaction.');
  if (!s.empty) throw new ExtraData();
  return { tx, xpubs, version, proprietary, unknown, inputs, outputs };
}

class ExtraData extends Error {}

// ---------------------------------------------------------------------------------------------
// decodepsbt result
// ---------------------------------------------------------------------------------------------

function propUniv(props: Map<string, Proprietary>): Record<string, unknown>[] {
  return sortedValues(props).map((p) => ({
    identifier: toHex(p.identifier),
    subtype: p.subtype,
    key: toHex(p.key),
    value: toHex(p.value),
  }));
}

function unknownUniv(unknown: Map<string, Uint8Array>): Record<string, string> {
  const o: Record<string, string> = {};
  for (const k of [...unknown.keys()].sort(cmpStr)) o[k] = toHex(unknown.get(k)!);
  return o;
}

function keypathsUniv(paths: Map<string, KeyOrigin>): Record<string, unknown>[] {
  return [...paths.keys()].sort(cmpStr).map((pub) => {
    const o = paths.get(pub)!;
    return { pubkey: pub, master_fingerprint: hexOf(o.fp), path: formatHDKeypath(o.path) };
  });
}

function tapKeypathsUniv(paths: Map<string, TapBip32>): Record<string, unknown>[] {
  return [...paths.keys()].sort(cmpStr).map((x) => {
    const v = paths.get(x)!;
    return {
      pubkey: x,
      master_fingerprint: hexOf(v.origin.fp),
      path: formatHDKeypath(v.origin.path),
      leaf_hashes: v.leafHashes,
    };
  });
}

function musigParticipantsUniv(m: Map<string, { agg: string; parts: string[] }>): Record<string, unknown>[] {
  return sortedValues(m).map((e) => ({ aggregate_pubkey: e.agg, participant_pubkeys: e.parts }));
}

function musigDataUniv(m: Map<string, MusigDatum>, valueKey: string): Record<string, unknown>[] {
  return sortedValues(m).map((d) => {
    const o: Record<string, unknown> = { participant_pubkey: d.part, aggregate_pubkey: d.agg };
    if (d.leaf !== ZERO32_HEX) o.leaf_hash = d.leaf;
    o[valueKey] = d.value;
    return o;
  });
}

function scriptUniv(script: Uint8Array, network: Network): Record<string, unknown> {
  return scriptToUniv(script, { includeHex: true, includeAddress: false, network });
}

function preimagesUniv(m: Map<string, Uint8Array>): Record<string, string> {
  const o: Record<string, string> = {};
  for (const k of [...m.keys()].sort(cmpStr)) o[k] = toHex(m.get(k)!);
  return o;
}

function toUniv(p: Psbt, network: Network): Record<string, unknown> {
  const cache: ScriptUnivCache = new Map();
  const result: Record<string, unknown> = {};
  result.tx = decodeRawTransactionJson(p.tx, network, cache);

  const globalXpubs: Record<string, unknown>[] = [];
  for (const ok of [...p.xpubs.keys()].sort(cmpStr)) {
    const e = p.xpubs.get(ok)!;
    const list = [...e.xpubs].sort((a, b) => cmpStr(a.sort, b.sort));
    for (const x of list) {
      globalXpubs.push({
        xpub: encodeBase58Check(x.key),
        master_fingerprint: hexOf(e.origin.fp),
        path: formatHDKeypath(e.origin.path),
      });
    }
  }
  result.global_xpubs = globalXpubs;
  result.psbt_version = p.version ?? 0;
  result.proprietary = propUniv(p.proprietary);
  result.unknown = unknownUniv(p.unknown);

  let totalIn = 0n;
  let haveAllUtxos = true;
  const utxoJson = new Map<ParsedTx, Record<string, unknown>>();
  const inputs: Record<string, unknown>[] = [];
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    const inp: Record<string, unknown> = {};
    let haveUtxo = false;
    let value = 0n;
    if (input.witnessUtxo && input.witnessUtxo.value !== -1n) {
      value = input.witnessUtxo.value;
      inp.witness_utxo = txOutUniv(input.witnessUtxo, network, cache);
      haveUtxo = true;
    }
    if (input.nonWitnessUtxo) {
      const nwu = input.nonWitnessUtxo;
      value = nwu.vout[p.tx.vin[i]!.vout]!.value;
      let j = utxoJson.get(nwu);
      if (!j) {
        j = decodeRawTransactionJson(nwu, network, cache);
        utxoJson.set(nwu, j);
      }
      inp.non_witness_utxo = j;
      haveUtxo = true;
    }
    if (haveUtxo) {
      if (moneyRange(value) && moneyRange(totalIn + value)) totalIn += value;
      else haveAllUtxos = false;
    } else {
      haveAllUtxos = false;
    }

    if (input.partialSigs.size > 0) {
      const o: Record<string, string> = {};
      for (const e of sortedValues(input.partialSigs)) o[e.pubkey] = e.sig;
      inp.partial_signatures = o;
    }
    if (input.sighash !== undefined) inp.sighash = sighashToStr(input.sighash & 0xff);
    if (input.redeemScript && input.redeemScript.length > 0) inp.redeem_script = scriptUniv(input.redeemScript, network);
    if (input.witnessScript && input.witnessScript.length > 0) inp.witness_script = scriptUniv(input.witnessScript, network);
    if (input.hdKeypaths.size > 0) inp.bip32_derivs = keypathsUniv(input.hdKeypaths);
    if (input.finalScriptSig && input.finalScriptSig.length > 0) {
      inp.final_scriptSig = { asm: scriptToAsm(input.finalScriptSig, true), hex: toHex(input.finalScriptSig) };
    }
    if (input.finalScriptWitness && input.finalScriptWitness.length > 0) {
      inp.final_scriptwitness = input.finalScriptWitness.map((w) => toHex(w));
    }
    if (input.ripemd160.size > 0) inp.ripemd160_preimages = preimagesUniv(input.ripemd160);
    if (input.sha256.size > 0) inp.sha256_preimages = preimagesUniv(input.sha256);
    if (input.hash160.size > 0) inp.hash160_preimages = preimagesUniv(input.hash160);
    if (input.hash256.size > 0) inp.hash256_preimages = preimagesUniv(input.hash256);
    if (input.tapKeySig && input.tapKeySig.length > 0) inp.taproot_key_path_sig = toHex(input.tapKeySig);
    if (input.tapScriptSigs.size > 0) {
      inp.taproot_script_path_sigs = sortedValues(input.tapScriptSigs).map((e) => ({
        pubkey: e.pubkey,
        leaf_hash: e.leaf,
        sig: toHex(e.sig),
      }));
    }
    if (input.tapScripts.size > 0) {
      const entries = [...input.tapScripts.values()].sort((a, b) => cmpStr(a.scriptHex, b.scriptHex) || a.ver - b.ver);
      inp.taproot_scripts = entries.map((e) => ({
        script: e.scriptHex,
        leaf_ver: e.ver,
        control_blocks: [...e.controls.entries()]
          .sort((a, b) => a[1].length - b[1].length || cmpStr(a[0], b[0]))
          .map((c) => c[0]),
      }));
    }
    if (input.tapBip32.size > 0) inp.taproot_bip32_derivs = tapKeypathsUniv(input.tapBip32);
    if (!isNull(input.tapInternalKey)) inp.taproot_internal_key = toHex(input.tapInternalKey!);
    if (!isNull(input.tapMerkleRoot)) inp.taproot_merkle_root = toHex(input.tapMerkleRoot!);
    if (input.musigParticipants.size > 0) inp.musig2_participant_pubkeys = musigParticipantsUniv(input.musigParticipants);
    if (input.musigPubnonces.size > 0) inp.musig2_pubnonces = musigDataUniv(input.musigPubnonces, 'pubnonce');
    if (input.musigPartialSigs.size > 0) inp.musig2_partial_sigs = musigDataUniv(input.musigPartialSigs, 'partial_sig');
    if (input.proprietary.size > 0) inp.proprietary = propUniv(input.proprietary);
    if (input.unknown.size > 0) inp.unknown = unknownUniv(input.unknown);
    inputs.push(inp);
  }
  result.inputs = inputs;

  let outputValue = 0n;
  const outputs: Record<string, unknown>[] = [];
  for (let i = 0; i < p.outputs.length; i++) {
    const output = p.outputs[i]!;
    const out: Record<string, unknown> = {};
    if (output.redeemScript && output.redeemScript.length > 0) out.redeem_script = scriptUniv(output.redeemScript, network);
    if (output.witnessScript && output.witnessScript.length > 0) out.witness_script = scriptUniv(output.witnessScript, network);
    if (output.hdKeypaths.size > 0) out.bip32_derivs = keypathsUniv(output.hdKeypaths);
    if (!isNull(output.tapInternalKey)) out.taproot_internal_key = toHex(output.tapInternalKey!);
    if (output.tapTree.length > 0) {
      out.taproot_tree = output.tapTree.map((l) => ({ depth: l.depth, leaf_ver: l.ver, script: toHex(l.script) }));
    }
    if (output.tapBip32.size > 0) out.taproot_bip32_derivs = tapKeypathsUniv(output.tapBip32);
    if (output.musigParticipants.size > 0) out.musig2_participant_pubkeys = musigParticipantsUniv(output.musigParticipants);
    if (output.proprietary.size > 0) out.proprietary = propUniv(output.proprietary);
    if (output.unknown.size > 0) out.unknown = unknownUniv(output.unknown);
    outputs.push(out);

    const v = p.tx.vout[i]!.value;
    if (moneyRange(v) && moneyRange(outputValue + v)) outputValue += v;
    else haveAllUtxos = false;
  }
  result.outputs = outputs;
  if (haveAllUtxos) result.fee = btcJson(totalIn - outputValue);
  return result;
}

/**
 * decodepsbt "psbt": the exact result object of Bitcoin Core v30 (amounts as RawJson tokens;
 * serialize with writeJson), or `{ok: false, code: -22, message}` with Core's message.
 */
export function decodePsbt(base64: string, network: Network): DecodePsbtResult {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, message: 'TX decode failed invalid base64' };
  return decodePsbtBytes(bytes, network);
}

function readPsbtResult(bytes: Uint8Array): { ok: true; psbt: Psbt } | { ok: false; code: -22; message: string } {
  try {
    return { ok: true, psbt: readPsbt(bytes) };
  } catch (e) {
    if (e instanceof ExtraData) return { ok: false, code: -22, message: 'TX decode failed extra data after PSBT' };
    if (e instanceof StreamError) return { ok: false, code: -22, message: `TX decode failed ${e.message}: iostream error` };
    throw e;
  }
}

/** decodepsbt on raw PSBT bytes (after base64). */
export function decodePsbtBytes(bytes: Uint8Array, network: Network): DecodePsbtResult {
  const r = readPsbtResult(bytes);
  if (!r.ok) return r;
  return { ok: true, result: toUniv(r.psbt, network) };
}

/**
 * decodepsbt for an RPC reply: the result already written as JSON text (what writeJson would
 * give for {@link decodePsbt}'s result), faster for big PSBTs because a previous transaction
 * spent by several inputs is serialized once.
 */
export function decodePsbtJson(base64: string, network: Network): { ok: true; json: string } | { ok: false; code: -22; message: string } {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, message: 'TX decode failed invalid base64' };
  const r = readPsbtResult(bytes);
  if (!r.ok) return r;
  return { ok: true, json: toText(r.psbt, network) };
}

/**
 * writeJson for the small decodepsbt pieces {@link toText} does not emit itself (plain objects,
 * arrays, strings, numbers, RawJson). Strings of printable ASCII without a quote or backslash
 * (all of a decodepsbt result in practice) are written as they are; any other string goes
 * through {@link jsonString}, exactly as writeJson does.
 */
function fastWriteJson(x: unknown): string {
  const out: string[] = [];
  writeValue(x, out);
  return out.join('');
}

function strText(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) return jsonString(s);
  }
  return '"' + s + '"';
}

function writeValue(x: unknown, out: string[]): void {
  if (typeof x === 'string') {
    out.push(strText(x));
  } else if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new TypeError('non-finite number in JSON');
    out.push(String(x));
  } else if (x === null || x === undefined) {
    out.push('null');
  } else if (typeof x === 'boolean') {
    out.push(x ? 'true' : 'false');
  } else if (typeof x === 'bigint') {
    out.push(x.toString());
  } else if (x instanceof RawJson) {
    out.push(x.text);
  } else if (Array.isArray(x)) {
    out.push('[');
    for (let i = 0; i < x.length; i++) {
      if (i) out.push(',');
      writeValue(x[i], out);
    }
    out.push(']');
  } else if (typeof x === 'object') {
    let sep = '{';
    const o = x as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (v === undefined) continue;
      out.push(sep + strText(k) + ':');
      sep = ',';
      writeValue(v, out);
    }
    out.push(sep === '{' ? '{}' : '}');
  } else {
    throw new TypeError(`cannot write ${typeof x} as JSON`);
  }
}

/**
 * writeJson for big trees (a previous transaction): the engine's JSON.stringify, with RawJson
 * tokens spliced in afterwards. The same text as writeJson for decodepsbt values (their strings
 * hold no control characters or DEL).
 */
function stringifyJson(x: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(x, function (this: Record<string, unknown>, k: string, v: unknown) {
    const orig = this[k];
    return orig instanceof RawJson ? `\u0000${raws.push(orig.text) - 1}\u0000` : v;
  });
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i: string) => raws[Number(i)]!);
}

// ---------------------------------------------------------------------------------------------
// decodepsbt as JSON text
// ---------------------------------------------------------------------------------------------

const UTF8 = new TextDecoder();
/** Pieces longer than this are kept as strings of their own rather than copied into the buffer. */
const BIG_TEXT = 2048;
/** The buffer grows (doubling) up to this size; past it, full buffers are turned into strings. */
const MAX_BUF = 1 << 23;
/** A buffer up to this size is kept for the next reply. */
const KEEP_BUF = 1 << 21;

/** The buffer of the last reply, reused by the next one (replies are written synchronously). */
let spareBuf: Uint8Array | undefined;

/**
 * The reply text under construction: ASCII bytes in one buffer, turned into a string by one
 * TextDecoder call at the end, instead of thousands of small strings concatenated and flattened
 * by a final join. Long or non-ASCII pieces are kept as strings of their own.
 */
class TextOut {
  buf: Uint8Array;
  pos = 0;
  parts: string[] = [];
  /** Nothing written yet in the current object (see key). */
  first = true;

  constructor() {
    this.buf = spareBuf ?? new Uint8Array(1 << 16);
    spareBuf = undefined;
  }

  /** Makes room for n more bytes in buf. */
  room(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    const need = this.pos + n;
    if (need <= MAX_BUF) {
      let size = this.buf.length * 2;
      while (size < need) size *= 2;
      const b = new Uint8Array(size);
      b.set(this.buf.subarray(0, this.pos));
      this.buf = b;
    } else {
      this.flush();
      if (n > this.buf.length) this.buf = new Uint8Array(n);
    }
  }

  flush(): void {
    if (this.pos > 0) {
      this.parts.push(UTF8.decode(this.buf.subarray(0, this.pos)));
      this.pos = 0;
    }
  }

  /** Already-JSON text (a literal, a number, a written value). */
  text(s: string): void {
    const n = s.length;
    if (n > BIG_TEXT) {
      this.flush();
      this.parts.push(s);
      return;
    }
    this.room(n);
    const b = this.buf;
    const p = this.pos;
    let or = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      or |= c;
      b[p + i] = c;
    }
    if (or < 0x80) {
      this.pos = p + n;
    } else {
      this.flush();
      this.parts.push(s);
    }
  }

  /** A member name (`"name":`), preceded by a comma unless it is the object's first. */
  key(k: string): void {
    if (this.first) this.first = false;
    else {
      this.room(1);
      this.buf[this.pos++] = 0x2c;
    }
    this.text(k);
  }

  /** HexStr(src[start..end]). */
  hex(src: Uint8Array, start = 0, end = src.length): void {
    this.room(2 * (end - start));
    const b = this.buf;
    let p = this.pos;
    for (let i = start; i < end; i++) {
      const x = src[i]!;
      b[p] = HEX_DIGITS[x >> 4]!;
      b[p + 1] = HEX_DIGITS[x & 15]!;
      p += 2;
    }
    this.pos = p;
  }

  /** `"` + HexStr + `"`. */
  qhex(src: Uint8Array, start = 0, end = src.length): void {
    this.room(2 * (end - start) + 2);
    this.buf[this.pos++] = 0x22;
    this.hex(src, start, end);
    this.buf[this.pos++] = 0x22;
  }

  /** A number as JSON (String(n)); non-negative integers written digit by digit. */
  num(n: number): void {
    if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n)) {
      this.text(String(n));
      return;
    }
    this.room(16);
    putUint(this, n);
  }

  /** The whole text (the writer is done after this). */
  result(): string {
    this.flush();
    if (this.buf.length <= KEEP_BUF) spareBuf = this.buf;
    return this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
  }
}

/** Writes the ASCII string s (room already made). */
function put(w: TextOut, s: string): void {
  const b = w.buf;
  let p = w.pos;
  for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
  w.pos = p;
}

/** Writes a non-negative safe integer (room for 16 bytes already made). */
function putUint(w: TextOut, n: number): void {
  const b = w.buf;
  let len = 1;
  for (let t = n; t >= 10; t = Math.floor(t / 10)) len++;
  let p = w.pos + len;
  w.pos = p;
  do {
    const q = Math.floor(n / 10);
    b[--p] = 48 + n - q * 10;
    n = q;
  } while (n > 0);
}

/** Writes HexStr(src[start..end]) (room already made). */
function putHex(w: TextOut, src: Uint8Array, start: number, end: number): void {
  const b = w.buf;
  let p = w.pos;
  for (let i = start; i < end; i++) {
    const x = src[i]!;
    b[p] = HEX_DIGITS[x >> 4]!;
    b[p + 1] = HEX_DIGITS[x & 15]!;
    p += 2;
  }
  w.pos = p;
}

/** Writes WriteHDKeypath(path) with 'h' for hardened steps, quoted (room for 2 + 12 per step made). */
function putKeypath(w: TextOut, path: number[]): void {
  put(w, '"m');
  const b = w.buf;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    b[w.pos++] = 0x2f; // '/'
    putUint(w, step & 0x7fffffff);
    if (step >= 0x80000000) b[w.pos++] = 0x68; // 'h'
  }
  b[w.pos++] = 0x22;
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** formatBtc(sats) (ValueFromAmount). */
function writeBtc(w: TextOut, sats: bigint): void {
  if (sats < 0n || sats > MAX_SAFE_BIG) {
    w.text(formatBtc(sats));
    return;
  }
  const n = Number(sats);
  let whole = Math.floor(n / 1e8);
  let frac = n - whole * 1e8;
  if (frac < 0) {
    whole--;
    frac += 1e8;
  }
  w.num(whole);
  w.room(9);
  const b = w.buf;
  const p = w.pos;
  b[p] = 0x2e;
  for (let i = 8; i >= 1; i--) {
    const q = Math.floor(frac / 10);
    b[p + i] = 48 + frac - q * 10;
    frac = q;
  }
  w.pos = p + 9;
}

/** keypathsUniv as text. */
function writeKeypaths(w: TextOut, paths: Map<string, KeyOrigin>): void {
  const keys = paths.size === 1 ? [...paths.keys()] : [...paths.keys()].sort(cmpStr);
  w.text('[');
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const o = paths.get(k)!;
    w.room(k.length + 12 * o.path.length + 80);
    put(w, i ? ',{"pubkey":"' : '{"pubkey":"');
    put(w, k); // hex
    put(w, '","master_fingerprint":"');
    putHex(w, o.fp, 0, o.fp.length);
    put(w, '","path":');
    putKeypath(w, o.path);
    put(w, '}');
  }
  w.text(']');
}

/** tapKeypathsUniv as text. */
function writeTapKeypaths(w: TextOut, paths: Map<string, TapBip32>): void {
  const keys = paths.size === 1 ? [...paths.keys()] : [...paths.keys()].sort(cmpStr);
  w.text('[');
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = paths.get(k)!;
    const leaves = v.leafHashes;
    w.room(k.length + 12 * v.origin.path.length + 67 * leaves.length + 100);
    put(w, i ? ',{"pubkey":"' : '{"pubkey":"');
    put(w, k); // hex
    put(w, '","master_fingerprint":"');
    putHex(w, v.origin.fp, 0, v.origin.fp.length);
    put(w, '","path":');
    putKeypath(w, v.origin.path);
    put(w, ',"leaf_hashes":[');
    for (let j = 0; j < leaves.length; j++) {
      put(w, j ? ',"' : '"');
      put(w, leaves[j]!); // hex
      put(w, '"');
    }
    put(w, ']}');
  }
  w.text(']');
}

/** `[` HexStr, … `]` of a witness stack. */
function writeHexArray(w: TextOut, items: Uint8Array[]): void {
  w.text('[');
  for (let i = 0; i < items.length; i++) {
    if (i) w.text(',');
    w.qhex(items[i]!);
  }
  w.text(']');
}

/** ScriptToUniv(include_hex, include_address) as text, memoized per script within one decode. */
function spkText(script: Uint8Array, network: Network, cache: Map<string, string>): string {
  const hex = hexOf(script);
  let t = cache.get(hex);
  if (t === undefined) {
    // scriptToUniv(script, {includeHex: true, includeAddress: true}) written directly.
    const solved = solver(script);
    const dest = extractDestinationFromSolved(solved);
    const address = dest ? encodeDestination(dest, network) : null;
    t =
      '{"asm":' + strText(scriptToAsm(script)) + ',"desc":' + strText(inferDescriptorSolved(script, network, undefined, solved, address)) +
      ',"hex":"' + hex + (address !== null && solved.type !== 'pubkey' ? '","address":' + strText(address) : '"') +
      ',"type":"' + solved.type + '"}';
    cache.set(hex, t);
  }
  return t;
}

/**
 * ScriptToUniv(include_hex, include_address) of a P2WPKH, P2WSH or P2TR script, written
 * straight into the buffer: asm "0|1 <program>", desc rawtr(<x-only key>) for a valid taproot
 * output key else addr(<address>) (InferDescriptor without a signing provider), with its
 * checksum computed over the bytes just written.
 */
function writeSegwitSpk(w: TextOut, script: Uint8Array, network: Network): void {
  const hrp = network.bech32;
  const n = script.length;
  const v1 = script[0] === 0x51;
  w.room(8 * n + 4 * hrp.length + 256);
  const b = w.buf;
  put(w, v1 ? '{"asm":"1 ' : '{"asm":"0 ');
  const h0 = w.pos;
  putHex(w, script, 2, n);
  const h1 = w.pos;
  put(w, '","desc":"');
  const d0 = w.pos;
  let a0 = -1;
  let a1 = -1;
  if (v1 && isValidXOnlyAt(script, 2)) {
    put(w, 'rawtr(');
    b.copyWithin(w.pos, h0, h1);
    w.pos += h1 - h0;
    put(w, ')');
  } else {
    put(w, 'addr(');
    a0 = w.pos;
    a1 = w.pos = writeSegwitAddress(b, w.pos, hrp, v1 ? 1 : 0, script, 2, n, v1);
    put(w, ')');
  }
  w.pos = writeDescriptorChecksum(b, d0, w.pos);
  put(w, '","hex":"');
  putHex(w, script, 0, 2);
  b.copyWithin(w.pos, h0, h1);
  w.pos += h1 - h0;
  put(w, '","address":"');
  if (a0 < 0) {
    w.pos = writeSegwitAddress(b, w.pos, hrp, v1 ? 1 : 0, script, 2, n, v1);
  } else {
    b.copyWithin(w.pos, a0, a1);
    w.pos += a1 - a0;
  }
  put(w, v1 ? '","type":"witness_v1_taproot"}' : n === 22 ? '","type":"witness_v0_keyhash"}' : '","type":"witness_v0_scripthash"}');
}

/** ScriptToUniv(include_hex, include_address) as text. */
function writeSpk(w: TextOut, script: Uint8Array, network: Network, cache: Map<string, string>): void {
  const n = script.length;
  const op = script[0];
  if (
    (n === 34 && (op === 0x51 || op === 0x00) && script[1] === 0x20) ||
    (n === 22 && op === 0x00 && script[1] === 0x14)
  ) {
    writeSegwitSpk(w, script, network);
  } else {
    w.text(spkText(script, network, cache));
  }
}

/** TxToUniv(tx) (decodeRawTransactionJson) as text. */
function writeTx(w: TextOut, tx: ParsedTx, network: Network, cache: Map<string, string>): void {
  const coinbase = isCoinBase(tx);
  w.text('{"txid":"');
  w.text(tx.txid);
  w.text('","hash":"');
  w.text(tx.wtxid);
  w.text('","version":');
  w.num(tx.version);
  w.text(',"size":');
  w.num(tx.size);
  w.text(',"vsize":');
  w.num(tx.vsize);
  w.text(',"weight":');
  w.num(tx.weight);
  w.text(',"locktime":');
  w.num(tx.locktime);
  w.text(',"vin":[');
  for (let i = 0; i < tx.vin.length; i++) {
    const txin = tx.vin[i]!;
    w.room(200);
    put(w, i ? ',{' : '{');
    if (coinbase) {
      w.text('"coinbase":');
      w.qhex(txin.scriptSig);
    } else {
      put(w, '"txid":"');
      const h = txin.prevHash;
      if (h && h.length === 32) {
        const b = w.buf;
        let p = w.pos;
        for (let k = 31; k >= 0; k--) {
          const x = h[k]!;
          b[p] = HEX_DIGITS[x >> 4]!;
          b[p + 1] = HEX_DIGITS[x & 15]!;
          p += 2;
        }
        w.pos = p;
      } else {
        w.text(txin.prevTxid);
      }
      w.room(80);
      put(w, '","vout":');
      putUint(w, txin.vout);
      if (txin.scriptSig.length === 0) {
        put(w, ',"scriptSig":{"asm":"","hex":""}');
      } else {
        w.text(',"scriptSig":{"asm":');
        w.text(fastWriteJson(scriptToAsm(txin.scriptSig, true)));
        w.text(',"hex":');
        w.qhex(txin.scriptSig);
        w.text('}');
      }
    }
    if (txin.witness.length > 0) {
      w.text(',"txinwitness":');
      writeHexArray(w, txin.witness);
    }
    w.room(32);
    put(w, ',"sequence":');
    putUint(w, txin.sequence);
    put(w, '}');
  }
  w.text('],"vout":[');
  for (let i = 0; i < tx.vout.length; i++) {
    const out = tx.vout[i]!;
    w.text(i ? ',{"value":' : '{"value":');
    writeBtc(w, out.value);
    w.text(',"n":');
    w.num(i);
    w.text(',"scriptPubKey":');
    writeSpk(w, out.script, network, cache);
    w.text('}');
  }
  w.text(']}');
}

/**
 * toUniv written straight to JSON text (what fastWriteJson(toUniv(p)) gives): the hot fields
 * (transactions, witness UTXOs, key paths, keys) are emitted directly, without an intermediate
 * object tree; a previous transaction spent by several inputs is written once.
 */
function toText(p: Psbt, network: Network): string {
  const spk = new Map<string, string>();
  const univCache: ScriptUnivCache = new Map();
  const w = new TextOut();
  w.text('{"tx":');
  writeTx(w, p.tx, network, spk);

  const globalXpubs: Record<string, unknown>[] = [];
  for (const ok of [...p.xpubs.keys()].sort(cmpStr)) {
    const e = p.xpubs.get(ok)!;
    const list = [...e.xpubs].sort((a, b) => cmpStr(a.sort, b.sort));
    for (const x of list) {
      globalXpubs.push({
        xpub: encodeBase58Check(x.key),
        master_fingerprint: hexOf(e.origin.fp),
        path: formatHDKeypath(e.origin.path),
      });
    }
  }
  w.text(',"global_xpubs":');
  w.text(fastWriteJson(globalXpubs));
  w.text(',"psbt_version":');
  w.num(p.version ?? 0);
  w.text(',"proprietary":');
  w.text(fastWriteJson(propUniv(p.proprietary)));
  w.text(',"unknown":');
  w.text(fastWriteJson(unknownUniv(p.unknown)));
  w.text(',"inputs":[');

  let totalIn = 0n;
  let haveAllUtxos = true;
  const utxoText = new Map<ParsedTx, string>();
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    w.text(i ? ',{' : '{');
    w.first = true;
    let haveUtxo = false;
    let value = 0n;
    if (input.witnessUtxo && input.witnessUtxo.value !== -1n) {
      value = input.witnessUtxo.value;
      w.key('"witness_utxo":{"amount":');
      writeBtc(w, value);
      w.text(',"scriptPubKey":');
      writeSpk(w, input.witnessUtxo.script, network, spk);
      w.text('}');
      haveUtxo = true;
    }
    if (input.nonWitnessUtxo) {
      const nwu = input.nonWitnessUtxo;
      value = nwu.vout[p.tx.vin[i]!.vout]!.value;
      let j = utxoText.get(nwu);
      if (j === undefined) {
        j = stringifyJson(decodeRawTransactionJson(nwu, network, univCache));
        utxoText.set(nwu, j);
      }
      w.key('"non_witness_utxo":');
      w.text(j);
      haveUtxo = true;
    }
    if (haveUtxo) {
      if (moneyRange(value) && moneyRange(totalIn + value)) totalIn += value;
      else haveAllUtxos = false;
    } else {
      haveAllUtxos = false;
    }
    if (input.partialSigs.size > 0) {
      const ps: Record<string, string> = {};
      for (const e of sortedValues(input.partialSigs)) ps[e.pubkey] = e.sig;
      w.key('"partial_signatures":');
      w.text(fastWriteJson(ps));
    }
    if (input.sighash !== undefined) {
      w.key('"sighash":');
      w.text(fastWriteJson(sighashToStr(input.sighash & 0xff)));
    }
    if (input.redeemScript && input.redeemScript.length > 0) {
      w.key('"redeem_script":');
      w.text(fastWriteJson(scriptUniv(input.redeemScript, network)));
    }
    if (input.witnessScript && input.witnessScript.length > 0) {
      w.key('"witness_script":');
      w.text(fastWriteJson(scriptUniv(input.witnessScript, network)));
    }
    if (input.hdKeypaths.size > 0) {
      w.key('"bip32_derivs":');
      writeKeypaths(w, input.hdKeypaths);
    }
    if (input.finalScriptSig && input.finalScriptSig.length > 0) {
      w.key('"final_scriptSig":{"asm":');
      w.text(fastWriteJson(scriptToAsm(input.finalScriptSig, true)));
      w.text(',"hex":');
      w.qhex(input.finalScriptSig);
      w.text('}');
    }
    if (input.finalScriptWitness && input.finalScriptWitness.length > 0) {
      w.key('"final_scriptwitness":');
      writeHexArray(w, input.finalScriptWitness);
    }
    if (input.ripemd160.size > 0) {
      w.key('"ripemd160_preimages":');
      w.text(fastWriteJson(preimagesUniv(input.ripemd160)));
    }
    if (input.sha256.size > 0) {
      w.key('"sha256_preimages":');
      w.text(fastWriteJson(preimagesUniv(input.sha256)));
    }
    if (input.hash160.size > 0) {
      w.key('"hash160_preimages":');
      w.text(fastWriteJson(preimagesUniv(input.hash160)));
    }
    if (input.hash256.size > 0) {
      w.key('"hash256_preimages":');
      w.text(fastWriteJson(preimagesUniv(input.hash256)));
    }
    if (input.tapKeySig && input.tapKeySig.length > 0) {
      w.key('"taproot_key_path_sig":');
      w.qhex(input.tapKeySig);
    }
    if (input.tapScriptSigs.size > 0) {
      w.key('"taproot_script_path_sigs":[');
      const sigs = sortedValues(input.tapScriptSigs);
      for (let k = 0; k < sigs.length; k++) {
        const e = sigs[k]!;
        w.text(k ? ',{"pubkey":"' : '{"pubkey":"');
        w.text(e.pubkey);
        w.text('","leaf_hash":"');
        w.text(e.leaf);
        w.text('","sig":');
        w.qhex(e.sig);
        w.text('}');
      }
      w.text(']');
    }
    if (input.tapScripts.size > 0) {
      const entries = [...input.tapScripts.values()].sort((a, b) => cmpStr(a.scriptHex, b.scriptHex) || a.ver - b.ver);
      w.key('"taproot_scripts":');
      w.text(
        fastWriteJson(
          entries.map((e) => ({
            script: e.scriptHex,
            leaf_ver: e.ver,
            control_blocks: [...e.controls.entries()]
              .sort((a, b) => a[1].length - b[1].length || cmpStr(a[0], b[0]))
              .map((c) => c[0]),
          })),
        ),
      );
    }
    if (input.tapBip32.size > 0) {
      w.key('"taproot_bip32_derivs":');
      writeTapKeypaths(w, input.tapBip32);
    }
    if (!isNull(input.tapInternalKey)) {
      w.key('"taproot_internal_key":');
      w.qhex(input.tapInternalKey!);
    }
    if (!isNull(input.tapMerkleRoot)) {
      w.key('"taproot_merkle_root":');
      w.qhex(input.tapMerkleRoot!);
    }
    if (input.musigParticipants.size > 0) {
      w.key('"musig2_participant_pubkeys":');
      w.text(fastWriteJson(musigParticipantsUniv(input.musigParticipants)));
    }
    if (input.musigPubnonces.size > 0) {
      w.key('"musig2_pubnonces":');
      w.text(fastWriteJson(musigDataUniv(input.musigPubnonces, 'pubnonce')));
    }
    if (input.musigPartialSigs.size > 0) {
      w.key('"musig2_partial_sigs":');
      w.text(fastWriteJson(musigDataUniv(input.musigPartialSigs, 'partial_sig')));
    }
    if (input.proprietary.size > 0) {
      w.key('"proprietary":');
      w.text(fastWriteJson(propUniv(input.proprietary)));
    }
    if (input.unknown.size > 0) {
      w.key('"unknown":');
      w.text(fastWriteJson(unknownUniv(input.unknown)));
    }
    w.text('}');
  }
  w.text('],"outputs":[');

  let outputValue = 0n;
  for (let i = 0; i < p.outputs.length; i++) {
    const output = p.outputs[i]!;
    w.text(i ? ',{' : '{');
    w.first = true;
    if (output.redeemScript && output.redeemScript.length > 0) {
      w.key('"redeem_script":');
      w.text(fastWriteJson(scriptUniv(output.redeemScript, network)));
    }
    if (output.witnessScript && output.witnessScript.length > 0) {
      w.key('"witness_script":');
      w.text(fastWriteJson(scriptUniv(output.witnessScript, network)));
    }
    if (output.hdKeypaths.size > 0) {
      w.key('"bip32_derivs":');
      writeKeypaths(w, output.hdKeypaths);
    }
    if (!isNull(output.tapInternalKey)) {
      w.key('"taproot_internal_key":');
      w.qhex(output.tapInternalKey!);
    }
    if (output.tapTree.length > 0) {
      w.key('"taproot_tree":[');
      for (let k = 0; k < output.tapTree.length; k++) {
        const l = output.tapTree[k]!;
        w.text(k ? ',{"depth":' : '{"depth":');
        w.num(l.depth);
        w.text(',"leaf_ver":');
        w.num(l.ver);
        w.text(',"script":');
        w.qhex(l.script);
        w.text('}');
      }
      w.text(']');
    }
    if (output.tapBip32.size > 0) {
      w.key('"taproot_bip32_derivs":');
      writeTapKeypaths(w, output.tapBip32);
    }
    if (output.musigParticipants.size > 0) {
      w.key('"musig2_participant_pubkeys":');
      w.text(fastWriteJson(musigParticipantsUniv(output.musigParticipants)));
    }
    if (output.proprietary.size > 0) {
      w.key('"proprietary":');
      w.text(fastWriteJson(propUniv(output.proprietary)));
    }
    if (output.unknown.size > 0) {
      w.key('"unknown":');
      w.text(fastWriteJson(unknownUniv(output.unknown)));
    }
    w.text('}');

    const v = p.tx.vout[i]!.value;
    if (moneyRange(v) && moneyRange(outputValue + v)) outputValue += v;
    else haveAllUtxos = false;
  }
  w.text(']');
  if (haveAllUtxos) {
    w.text(',"fee":');
    writeBtc(w, totalIn - outputValue);
  }
  w.text('}');
  return w.result();
}
