/**
 * Pieces the three map readers share (src/psbt.h): the read context, duplicate-key lookup, key
 * checks by generation, key origins, proprietary and unknown fields, BIP32 and taproot
 * derivations, MuSig2 participants and identifiers, and the non_witness_utxo cache.
 */
import { ByteReader, StreamError, hexOf, readTx, type ParsedTx } from '../tx';
import type { Generation } from './generation';
import type { KeySpec, MapName } from './keys';
import { isFullyValidPubkey } from './pubkey';
import type { KeyOrigin, MusigDatum, MusigParticipants, Proprietary, PsbtInput, TapBip32 } from './types';

/** Throws Core's std::ios_base::failure (its what() text). */
export function fail(msg: string): never {
  throw new StreamError(msg);
}

/** Per-read state: the generation's rules and the cache of previous transactions already parsed. */
export interface ReadCtx {
  readonly g: Generation;
  /** Core's check that a non_witness_utxo is the transaction the input spends (off for the review, which shows the mismatch). */
  readonly checkUtxoMatch: boolean;
  readonly utxoCache: Map<string, ParsedTx>;
}

const ONE_CHAR: string[] = [];
for (let i = 0; i < 256; i++) ONE_CHAR.push(String.fromCharCode(i));

/**
 * One-byte keys (just a type) shared by all the maps read, so the common keys need no view each.
 * Only read, never kept: the one type that keeps its key (proprietary) needs more than one byte
 * and throws on a one-byte key before keeping it; unknown keys are kept as hex.
 */
const ONE_BYTE_KEYS: Uint8Array[] = [];
for (let i = 0; i < 256; i++) ONE_BYTE_KEYS.push(Uint8Array.of(i));

/** A key (`<keylen><keytype><keydata>` → `<keytype><keydata>`), a shared view when it is one byte. */
export function readKey(s: ByteReader): Uint8Array {
  const n = s.compactSize();
  if (n === 1 && s.pos < s.end) return ONE_BYTE_KEYS[s.buf[s.pos++]!]!;
  return s.bytes(n);
}

/**
 * The keys of one map checked for duplicates (Core's `key_lookup`, a std::set): a short array
 * while few (most maps hold a handful), a Set past that, so a map with thousands of keys is not
 * quadratic.
 */
export class KeyLookup {
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
          : hexOf(key);
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

/** Core ≥ 31.99: every key is checked for a repeat before anything else. */
export function checkDuplicate(c: ReadCtx, lookup: KeyLookup, key: Uint8Array, map: MapName): void {
  if (c.g.modern && lookup.seen(key)) fail(`Duplicate Key, ${map} key "${hexOf(key)}" already provided`);
}

/**
 * The key checks of a type with a fixed key size: Core ≥ 31.99 ExpectedKeySize (the repeat was
 * checked already); Core v30 the type's own repeat check, then its size check.
 */
export function checkKey(c: ReadCtx, lookup: KeyLookup, key: Uint8Array, k: KeySpec): void {
  if (c.g.modern) {
    if (key.length !== k.size) fail(`Size of key was not ${k.size} for the type ${k.name}`);
    return;
  }
  if (lookup.seen(key)) fail(k.v30Dup!);
  if (key.length !== k.size) fail(k.v30Size!);
}

/** Core ≥ 31.99's key-size check alone (types whose v30 checks differ in order). */
export function expectedKeySize(key: Uint8Array, k: KeySpec): void {
  if (key.length !== k.size) fail(`Size of key was not ${k.size} for the type ${k.name}`);
}

/** DeserializeKeyOrigin(s, length). */
export function readKeyOrigin(s: ByteReader, length: number): KeyOrigin {
  if (length % 4 !== 0 || length === 0) fail('Invalid length for HD key path');
  const fp = s.bytes(4);
  const path: number[] = [];
  for (let i = 4; i < length; i += 4) path.push(s.u32());
  return { fp, path };
}

/** UnserializeFromVector: the value's stated size must equal what the reader consumed. */
export function fromVector<T>(s: ByteReader, f: () => T): T {
  const expected = s.compactSize();
  const before = s.remaining;
  const v = f();
  if (s.remaining + expected !== before) fail('Size of value was not the stated size');
  return v;
}

/** ByteReader.i64 (CAmount), with one BigInt for amounts below 2^53. */
export function readI64(s: ByteReader): bigint {
  const lo = s.u32();
  const hi = s.u32();
  if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
  return (BigInt(hi | 0) << 32n) + BigInt(lo);
}

/** A SpanReader over a key, past its one-byte type. */
export function keyReader(key: Uint8Array): ByteReader {
  return new ByteReader(key, 1, key.length, 'SpanReader');
}

/**
 * Shared empty map standing for "no entries" in the per-input/output maps, so a PSBT with
 * thousands of inputs does not allocate a dozen empty Maps each (never written to: see own()).
 */
export const NO_MAP: Map<string, never> = new Map<string, never>();

/** The map itself, or a fresh one in place of the shared empty sentinel. */
export function own<V>(m: Map<string, V>): Map<string, V> {
  return m === (NO_MAP as Map<string, V>) ? new Map<string, V>() : m;
}

/** The PSBT_*_PROPRIETARY case, shared by the three maps. */
export function readProprietary(s: ByteReader, skey: ByteReader, key: Uint8Array, props: Map<string, Proprietary>): void {
  const identifier = skey.varBytes();
  const subtype = skey.compactSize();
  const k = hexOf(key);
  if (props.has(k)) fail('Duplicate Key, proprietary key already found'); // v30 only: a repeat fails earlier in 31.99
  const value = s.varBytes();
  props.set(k, { identifier, subtype, key, value });
}

/** An unknown key's value (the `default:` case). */
export function readUnknown(s: ByteReader, key: Uint8Array, unknown: Map<string, Uint8Array>): void {
  const k = hexOf(key);
  if (unknown.has(k)) fail('Duplicate Key, key for unknown value already provided'); // v30 only (see above)
  unknown.set(k, s.varBytes());
}

/** DeserializeHDKeypaths into a map keyed by pubkey hex. */
export function readHDKeypath(s: ByteReader, key: Uint8Array, paths: Map<string, KeyOrigin>): void {
  if (key.length !== 66 && key.length !== 34) fail('Size of key was not the expected size for the type BIP32 keypath');
  const pub = key.subarray(1);
  if (!isFullyValidPubkey(pub)) fail('Invalid pubkey');
  const k = hexOf(pub);
  if (paths.has(k)) fail('Duplicate Key, pubkey derivation path already provided'); // v30 only
  paths.set(k, readKeyOrigin(s, s.compactSize()));
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The PSBT_{IN,OUT}_TAP_BIP32_DERIVATION value. */
export function readTapBip32(s: ByteReader, side: 'Input' | 'Output'): TapBip32 {
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

/** DeserializeMuSig2ParticipantPubkeys: the aggregate key and every participant key must be valid points. */
export function readMusigParticipants(s: ByteReader, skey: ByteReader, out: Map<string, MusigParticipants>, side: 'Input' | 'Output'): void {
  const aggBytes = skey.bytes(33);
  if (!isFullyValidPubkey(aggBytes)) fail(`${side} musig2 aggregate pubkey is invalid`);
  const agg = hexOf(aggBytes);
  const val = s.varBytes();
  const parts: string[] = [];
  let p = 0;
  while (val.length - p >= 33) {
    const part = val.subarray(p, p + 33);
    if (!isFullyValidPubkey(part)) fail(`${side} musig2 participant pubkey is invalid`);
    parts.push(hexOf(part));
    p += 33;
  }
  if (p !== val.length) fail(`${side} musig2 participants pubkeys value size is not a multiple of 33`);
  if (!out.has(agg)) out.set(agg, { agg, parts });
}

export const ZERO32_HEX = '00'.repeat(32);

export interface MusigIdent {
  /** Sort keys: the key's hex, "g" for a key Core v30 keeps invalid (it sorts after every valid one). */
  aggSort: string;
  partSort: string;
  /** Hex as decodepsbt shows it ("" for an invalid key). */
  agg: string;
  part: string;
  leaf: string;
}

/**
 * A 33-byte CPubKey as Core v30's CPubKey::Set makes it without checking the point: kept with a
 * 02/03 header, else invalid (HexStr "", header 0xFF: it sorts after every valid key).
 */
function pk33(b: Uint8Array): { sort: string; hex: string } {
  const h = b[0];
  if (h === 2 || h === 3) {
    const hex = hexOf(b);
    return { sort: hex, hex };
  }
  return { sort: 'g', hex: '' };
}

/**
 * DeserializeMuSig2ParticipantDataIdentifier: participant, aggregate, optional leaf hash. Core ≥
 * 31.99 requires both keys to be valid points; Core v30 takes any bytes (see pk33).
 */
export function readMusigIdent(c: ReadCtx, skey: ByteReader): MusigIdent {
  const partBytes = skey.bytes(33);
  const aggBytes = skey.bytes(33);
  let agg: { sort: string; hex: string };
  let part: { sort: string; hex: string };
  if (c.g.modern) {
    if (!isFullyValidPubkey(aggBytes)) fail('musig2 aggregate pubkey is invalid');
    if (!isFullyValidPubkey(partBytes)) fail('musig2 participant pubkey is invalid');
    const a = hexOf(aggBytes);
    const p = hexOf(partBytes);
    agg = { sort: a, hex: a };
    part = { sort: p, hex: p };
  } else {
    agg = pk33(aggBytes);
    part = pk33(partBytes);
  }
  const leaf = skey.empty ? ZERO32_HEX : hexOf(skey.bytes(32));
  return { aggSort: agg.sort, partSort: part.sort, agg: agg.hex, part: part.hex, leaf };
}

/** The map insertion of a pubnonce / partial signature (first one wins). */
export function putMusig(m: Map<string, MusigDatum>, id: MusigIdent, value: string): void {
  // Sort key: (aggregate pubkey, leaf hash) then participant pubkey.
  const k = id.aggSort + '|' + id.leaf + '|' + id.partSort;
  if (!m.has(k)) m.set(k, { part: id.part, agg: id.agg, leaf: id.leaf, value });
}

/** Previous transactions already parsed in this read, by their exact bytes (see readNonWitnessUtxo). */
const rawOf = new WeakMap<ParsedTx, Uint8Array>();

function fingerprint(v: Uint8Array): string {
  // Cheap identity: length and a few sampled windows; confirmed by a full compare on hit.
  const n = v.length;
  return `${n}:${hexOf(v, 0, Math.min(n, 48))}:${hexOf(v, Math.max(0, n - 48), n)}:${hexOf(v, n >> 1, Math.min(n, (n >> 1) + 32))}`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Reads a non_witness_utxo (TX_WITH_WITNESS) into the input, reusing an earlier parse of
 * identical bytes: inputs spending outputs of one transaction carry it again and again.
 */
export function readNonWitnessUtxo(c: ReadCtx, s: ByteReader, inp: PsbtInput): void {
  const expected = s.compactSize();
  const before = s.remaining;
  const start = s.pos;
  if (expected <= before && expected >= 10) {
    const view = s.buf.subarray(start, start + expected);
    const fp = fingerprint(view);
    const hit = c.utxoCache.get(fp);
    if (hit && hit.size === expected) {
      const raw = rawOf.get(hit);
      if (raw && sameBytes(raw, view)) {
        s.pos = start + expected;
        inp.nonWitnessUtxo = hit;
        inp.nonWitnessUtxoBytes = view;
        return;
      }
    }
    const tx = readTx(s, true);
    if (s.remaining + expected !== before) fail('Size of value was not the stated size');
    rawOf.set(tx, view);
    c.utxoCache.set(fp, tx);
    inp.nonWitnessUtxo = tx;
    inp.nonWitnessUtxoBytes = view;
    return;
  }
  const tx = readTx(s, true);
  if (s.remaining + expected !== before) fail('Size of value was not the stated size');
  inp.nonWitnessUtxo = tx;
  inp.nonWitnessUtxoBytes = s.buf.subarray(start, s.pos);
}
