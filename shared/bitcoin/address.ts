/**
 * Faithful ports of Bitcoin Core v30's address code:
 * - base58.cpp: EncodeBase58(Check), DecodeBase58(Check) incl. max length and whitespace rules
 * - bech32.cpp: Encode, Decode, LocateErrors (error messages and positions)
 * - key_io.cpp: EncodeDestination, DecodeDestination with every error string
 * - addresstype.cpp: ExtractDestination, GetScriptForDestination
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { Network } from './networks';
import {
  OP_0,
  OP_CHECKSIG,
  OP_DUP,
  OP_EQUAL,
  OP_EQUALVERIFY,
  OP_HASH160,
  encodeOpN,
  isPayToAnchorProgram,
  solver,
  type TxoutType,
} from './script';

export type Destination =
  | { type: 'pkhash'; hash: Uint8Array }
  | { type: 'scripthash'; hash: Uint8Array }
  | { type: 'witness_v0_keyhash'; program: Uint8Array }
  | { type: 'witness_v0_scripthash'; program: Uint8Array }
  | { type: 'witness_v1_taproot'; program: Uint8Array }
  | { type: 'anchor' }
  | { type: 'witness_unknown'; version: number; program: Uint8Array }
  | { type: 'pubkey'; pubkey: Uint8Array };

// ---------------------------------------------------------------------------------------------
// Base58
// ---------------------------------------------------------------------------------------------

const B58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_MAP = new Int8Array(256).fill(-1);
for (let i = 0; i < 58; i++) B58_MAP[B58_ALPHABET.charCodeAt(i)] = i;

/** Core IsSpace: ' ', \f, \n, \r, \t, \v. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** Core EncodeBase58. */
export function encodeBase58(input: Uint8Array): string {
  let zeroes = 0;
  while (zeroes < input.length && input[zeroes] === 0) zeroes++;
  const size = (((input.length - zeroes) * 138) / 100 + 1) | 0;
  const b58 = new Uint8Array(size);
  let length = 0;
  for (let k = zeroes; k < input.length; k++) {
    let carry = input[k]!;
    let i = 0;
    for (let it = size - 1; (carry !== 0 || i < length) && it >= 0; it--, i++) {
      carry += 256 * b58[it]!;
      b58[it] = carry % 58;
      carry = (carry / 58) | 0;
    }
    length = i;
  }
  let it = size - length;
  while (it < size && b58[it] === 0) it++;
  let s = '1'.repeat(zeroes);
  for (; it < size; it++) s += B58_ALPHABET[b58[it]!];
  return s;
}

/** Core DecodeBase58(str, vch, max_ret_len). Returns null where Core returns false. */
export function decodeBase58(str: string, maxRetLen: number): Uint8Array | null {
  if (str.includes('\0')) return null; // ContainsNoNUL
  let p = 0;
  const n = str.length;
  while (p < n && isSpace(str.charCodeAt(p))) p++;
  let zeroes = 0;
  let length = 0;
  while (p < n && str.charCodeAt(p) === 0x31) {
    zeroes++;
    if (zeroes > maxRetLen) return null;
    p++;
  }
  // Core sizes this on the byte length of the remaining C string; non-ASCII chars are rejected anyway.
  const size = (((n - p) * 733) / 1000 + 1) | 0;
  const b256 = new Uint8Array(size);
  while (p < n && !isSpace(str.charCodeAt(p))) {
    const code = str.charCodeAt(p);
    let carry = code < 256 ? B58_MAP[code]! : -1;
    if (carry === -1) return null;
    let i = 0;
    for (let it = size - 1; (carry !== 0 || i < length) && it >= 0; it--, i++) {
      carry += 58 * b256[it]!;
      b256[it] = carry & 0xff;
      carry = carry >>> 8;
    }
    length = i;
    if (length + zeroes > maxRetLen) return null;
    p++;
  }
  while (p < n && isSpace(str.charCodeAt(p))) p++;
  if (p !== n) return null;
  const out = new Uint8Array(zeroes + length);
  out.set(b256.subarray(size - length), zeroes);
  return out;
}

function hash256(b: Uint8Array): Uint8Array {
  return sha256(sha256(b));
}

/** Core EncodeBase58Check. */
export function encodeBase58Check(payload: Uint8Array): string {
  const buf = new Uint8Array(payload.length + 4);
  buf.set(payload);
  buf.set(hash256(payload).subarray(0, 4), payload.length);
  return encodeBase58(buf);
}

/** Core DecodeBase58Check(str, vch, max_ret_len). Returns the payload without checksum, or null. */
export function decodeBase58Check(str: string, maxRetLen: number): Uint8Array | null {
  const v = decodeBase58(str, maxRetLen > 0x7fffffff - 4 ? 0x7fffffff : maxRetLen + 4);
  if (!v || v.length < 4) return null;
  const payload = v.subarray(0, v.length - 4);
  const h = hash256(payload);
  for (let i = 0; i < 4; i++) if (h[i] !== v[v.length - 4 + i]) return null;
  return payload;
}

// ---------------------------------------------------------------------------------------------
// Bech32 / Bech32m (bech32.cpp)
// ---------------------------------------------------------------------------------------------

export type Bech32Encoding = 'bech32' | 'bech32m';

export const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CHARSET_REV = new Int8Array(128).fill(-1);
for (let i = 0; i < 32; i++) {
  CHARSET_REV[CHARSET.charCodeAt(i)] = i;
  CHARSET_REV[CHARSET.toUpperCase().charCodeAt(i)] = i;
}
const CHECKSUM_SIZE = 6;
const BECH32_CHAR_LIMIT = 90;
export const BECH32_CONST = 1;
export const BECH32M_CONST = 0x2bc830a3;

function encodingConstant(e: Bech32Encoding): number {
  return e === 'bech32' ? BECH32_CONST : BECH32M_CONST;
}

/** One step of the BIP173 checksum (PolyMod) over a 5-bit value. */
export function polyModStep(c: number, v: number): number {
  const c0 = c >>> 25;
  c = ((c & 0x1ffffff) << 5) ^ v;
  if (c0 & 1) c ^= 0x3b6a57b2;
  if (c0 & 2) c ^= 0x26508e6d;
  if (c0 & 4) c ^= 0x1ea119fa;
  if (c0 & 8) c ^= 0x3d4233dd;
  if (c0 & 16) c ^= 0x2a1462b3;
  return c >>> 0;
}

/** PolyMod(PreparePolynomialCoefficients(hrp, values) [+ extra zeros]). `hrp` is lowercase. */
function polyModHrp(hrp: string, values: ArrayLike<number>, extraZeros = 0): number {
  let c = 1;
  for (let i = 0; i < hrp.length; i++) c = polyModStep(c, hrp.charCodeAt(i) >> 5);
  c = polyModStep(c, 0);
  for (let i = 0; i < hrp.length; i++) c = polyModStep(c, hrp.charCodeAt(i) & 0x1f);
  for (let i = 0; i < values.length; i++) c = polyModStep(c, values[i]!);
  for (let i = 0; i < extraZeros; i++) c = polyModStep(c, 0);
  return c;
}

/** Core bech32::Encode. `values` are 5-bit; hrp must be lowercase. */
export function bech32Encode(encoding: Bech32Encoding, hrp: string, values: ArrayLike<number>): string {
  const mod = (polyModHrp(hrp, values, CHECKSUM_SIZE) ^ encodingConstant(encoding)) >>> 0;
  let s = hrp + '1';
  for (let i = 0; i < values.length; i++) s += CHARSET[values[i]!];
  for (let i = 0; i < CHECKSUM_SIZE; i++) s += CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return s;
}

/** CheckCharacters: indices of invalid characters (mixed case or outside 33..126). */
function checkCharacters(str: string): number[] {
  const errors: number[] = [];
  let lower = false;
  let upper = false;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) {
      if (upper) errors.push(i);
      else lower = true;
    } else if (c >= 0x41 && c <= 0x5a) {
      if (lower) errors.push(i);
      else upper = true;
    } else if (c < 33 || c > 126) {
      errors.push(i);
    }
  }
  return errors;
}

function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export interface Bech32Decoded {
  encoding: Bech32Encoding;
  hrp: string;
  /** 5-bit values without the checksum. */
  data: Uint8Array;
}

/** Core bech32::Decode (CharLimit::BECH32 = 90). Null where Core returns Encoding::INVALID. */
export function bech32Decode(str: string, limit = BECH32_CHAR_LIMIT): Bech32Decoded | null {
  if (checkCharacters(str).length > 0) return null;
  const pos = str.lastIndexOf('1');
  if (str.length > limit) return null;
  if (pos === -1 || pos === 0 || pos + CHECKSUM_SIZE >= str.length) return null;
  const values = new Uint8Array(str.length - 1 - pos);
  for (let i = 0; i < values.length; i++) {
    const c = str.charCodeAt(i + pos + 1);
    const rev = c < 128 ? CHARSET_REV[c]! : -1;
    if (rev === -1) return null;
    values[i] = rev;
  }
  const hrp = lowerAscii(str.slice(0, pos));
  const check = polyModHrp(hrp, values);
  let encoding: Bech32Encoding;
  if (check === BECH32_CONST) encoding = 'bech32';
  else if (check === BECH32M_CONST) encoding = 'bech32m';
  else return null;
  return { encoding, hrp, data: values.subarray(0, values.length - CHECKSUM_SIZE) };
}

// GF(1024) tables for error location (GenerateGFTables).
const GF1024_EXP = new Int16Array(1023);
const GF1024_LOG = new Int16Array(1024);
const SYNDROME_CONSTS = new Uint32Array(25);
(() => {
  const GF32_EXP = new Int8Array(31);
  const GF32_LOG = new Int8Array(32);
  const fmod = 41;
  GF32_EXP[0] = 1;
  GF32_LOG[0] = -1;
  GF32_LOG[1] = 0;
  let v = 1;
  for (let i = 1; i < 31; i++) {
    v <<= 1;
    if (v & 32) v ^= fmod;
    GF32_EXP[i] = v;
    GF32_LOG[v] = i;
  }
  GF1024_EXP[0] = 1;
  GF1024_LOG[0] = -1;
  GF1024_LOG[1] = 0;
  v = 1;
  for (let i = 1; i < 1023; i++) {
    const v0 = v & 31;
    const v1 = v >> 5;
    const v0n = v1 ? GF32_EXP[(GF32_LOG[v1]! + GF32_LOG[23]!) % 31]! : 0;
    const v1n = (v1 ? GF32_EXP[(GF32_LOG[v1]! + GF32_LOG[9]!) % 31]! : 0) ^ v0;
    v = (v1n << 5) | v0n;
    GF1024_EXP[i] = v;
    GF1024_LOG[v] = i;
  }
  for (let k = 1; k < 6; k++) {
    for (let shift = 0; shift < 5; shift++) {
      const b = GF1024_LOG[1 << shift]!;
      const c0 = GF1024_EXP[(997 * k + b) % 1023]!;
      const c1 = GF1024_EXP[(998 * k + b) % 1023]!;
      const c2 = GF1024_EXP[(999 * k + b) % 1023]!;
      SYNDROME_CONSTS[5 * (k - 1) + shift] = ((c2 << 20) | (c1 << 10) | c0) >>> 0;
    }
  }
})();

function syndrome(residue: number): number {
  const low = residue & 0x1f;
  let result = low ^ (low << 10) ^ (low << 20);
  for (let i = 0; i < 25; i++) {
    if ((residue >>> (5 + i)) & 1) result ^= SYNDROME_CONSTS[i]!;
  }
  return result >>> 0;
}

const gexp = (i: number): number => GF1024_EXP[i]!;
const glog = (i: number): number => GF1024_LOG[i]!;

/** Core bech32::LocateErrors: [message, error positions]. Message '' when the string is valid. */
export function bech32LocateErrors(str: string, limit = BECH32_CHAR_LIMIT): { error: string; locations: number[] } {
  if (str.length > limit) {
    const locations: number[] = [];
    for (let i = limit; i < str.length; i++) locations.push(i);
    return { error: 'Bech32 string too long', locations };
  }
  const bad = checkCharacters(str);
  if (bad.length > 0) return { error: 'Invalid character or mixed case', locations: bad };
  const pos = str.lastIndexOf('1');
  if (pos === -1) return { error: 'Missing separator', locations: [] };
  if (pos === 0 || pos + CHECKSUM_SIZE >= str.length) return { error: 'Invalid separator position', locations: [pos] };
  const hrp = lowerAscii(str.slice(0, pos));
  const length = str.length - 1 - pos;
  const values = new Uint8Array(length);
  for (let i = pos + 1; i < str.length; i++) {
    const c = str.charCodeAt(i);
    const rev = c < 128 ? CHARSET_REV[c]! : -1;
    if (rev === -1) return { error: 'Invalid Base 32 character', locations: [i] };
    values[i - pos - 1] = rev;
  }
  let errorLocations: number[] = [];
  let errorEncoding: Bech32Encoding | undefined;
  const base = polyModHrp(hrp, values);
  for (const encoding of ['bech32', 'bech32m'] as const) {
    const possible: number[] = [];
    const residue = (base ^ encodingConstant(encoding)) >>> 0;
    if (residue === 0) return { error: '', locations: [] };
    const syn = syndrome(residue);
    const s0 = syn & 0x3ff;
    const s1 = (syn >>> 10) & 0x3ff;
    const s2 = syn >>> 20;
    const ls0 = glog(s0);
    const ls1 = glog(s1);
    const ls2 = glog(s2);
    if (ls0 !== -1 && ls1 !== -1 && ls2 !== -1 && (2 * ls1 - ls2 - ls0 + 2046) % 1023 === 0) {
      const p1 = (ls1 - ls0 + 1023) % 1023;
      const le1 = ls0 + (1023 - 997) * p1;
      if (p1 < length && !(le1 % 33)) possible.push(str.length - p1 - 1);
    } else {
      for (let p1 = 0; p1 < length; p1++) {
        const s2s1p1 = s2 ^ (s1 === 0 ? 0 : gexp((ls1 + p1) % 1023));
        if (s2s1p1 === 0) continue;
        const ls2s1p1 = glog(s2s1p1);
        const s1s0p1 = s1 ^ (s0 === 0 ? 0 : gexp((ls0 + p1) % 1023));
        if (s1s0p1 === 0) continue;
        const ls1s0p1 = glog(s1s0p1);
        const p2 = (ls2s1p1 - ls1s0p1 + 1023) % 1023;
        if (p2 >= length || p1 === p2) continue;
        const s1s0p2 = s1 ^ (s0 === 0 ? 0 : gexp((ls0 + p2) % 1023));
        if (s1s0p2 === 0) continue;
        const ls1s0p2 = glog(s1s0p2);
        const invp1p2 = 1023 - glog(gexp(p1) ^ gexp(p2));
        const le2 = ls1s0p1 + invp1p2 + (1023 - 997) * p2;
        if (le2 % 33) continue;
        const le1 = ls1s0p2 + invp1p2 + (1023 - 997) * p1;
        if (le1 % 33) continue;
        if (p1 > p2) possible.push(str.length - p1 - 1, str.length - p2 - 1);
        else possible.push(str.length - p2 - 1, str.length - p1 - 1);
        break;
      }
    }
    if (errorLocations.length === 0 || (possible.length > 0 && possible.length < errorLocations.length)) {
      errorLocations = possible;
      if (errorLocations.length > 0) errorEncoding = encoding;
    }
  }
  const error =
    errorEncoding === 'bech32m' ? 'Invalid Bech32m checksum' : errorEncoding === 'bech32' ? 'Invalid Bech32 checksum' : 'Invalid checksum';
  return { error, locations: errorLocations };
}

/** ConvertBits<from, to, pad>. Null where Core returns false. */
export function convertBits(data: ArrayLike<number>, from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const maxv = (1 << to) - 1;
  const maxAcc = (1 << (from + to - 1)) - 1;
  const out: number[] = [];
  for (let i = 0; i < data.length; i++) {
    acc = ((acc << from) | data[i]!) & maxAcc;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & maxv);
    }
  }
  if (pad) {
    if (bits) out.push((acc << (to - bits)) & maxv);
  } else if (bits >= from || ((acc << (to - bits)) & maxv)) {
    return null;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// key_io.cpp
// ---------------------------------------------------------------------------------------------

const ANCHOR_PROGRAM = Uint8Array.of(0x4e, 0x73);

const CHARSET_CODES = Uint8Array.from(CHARSET, (c) => c.charCodeAt(0));

/** PolyMod generator terms for the top 5 bits t of the state (xor of the constants for t's bits). */
const BECH_GEN = new Int32Array(32);
for (let t = 0; t < 32; t++) BECH_GEN[t] = polyModStep(t << 25, 0);

/**
 * Two PolyMod steps at once (see polyModStep2): the terms they add depend only on the top 10
 * bits of the state. With t1 = bits 29..25 and t2 = bits 24..20, the first step adds G(t1),
 * whose top 5 bits change the second step's selector to t2 ^ (G(t1) >>> 25).
 */
const BECH_GEN2 = new Int32Array(1024);
for (let t = 0; t < 1024; t++) {
  const g1 = BECH_GEN[t >> 5]!;
  BECH_GEN2[t] = ((g1 & 0x1ffffff) << 5) ^ BECH_GEN[(t & 31) ^ (g1 >>> 25)]!;
}

/** polyModStep(polyModStep(c, a), b). */
function polyModStep2(c: number, a: number, b: number): number {
  return ((c & 0xfffff) << 10) ^ (a << 5) ^ b ^ BECH_GEN2[c >>> 20]!;
}

/** PolyMod state after the expanded hrp, per hrp. */
const hrpStates = new Map<string, number>();

function hrpState(hrp: string): number {
  let c = hrpStates.get(hrp);
  if (c === undefined) {
    c = 1;
    for (let i = 0; i < hrp.length; i++) c = polyModStep(c, hrp.charCodeAt(i) >> 5);
    c = polyModStep(c, 0);
    for (let i = 0; i < hrp.length; i++) c = polyModStep(c, hrp.charCodeAt(i) & 0x1f);
    if (hrpStates.size < 64) hrpStates.set(hrp, c);
  }
  return c;
}

/**
 * Writes the segwit address of (version, program[start..end]) as ASCII into `out` at `pos` and
 * returns the position after it: bech32::Encode(encoding, hrp, [version, ConvertBits<8, 5,
 * true>(program)]) without the intermediate arrays. `hrp` is lowercase ASCII; `out` must have
 * room for hrp.length + 8 + ceil(8·(end − start)/5) bytes.
 */
export function writeSegwitAddress(
  out: Uint8Array,
  pos: number,
  hrp: string,
  version: number,
  program: Uint8Array,
  start: number,
  end: number,
  bech32m: boolean,
): number {
  for (let i = 0; i < hrp.length; i++) out[pos++] = hrp.charCodeAt(i);
  out[pos++] = 0x31; // '1'
  // The 5-bit values (version, then the program regrouped) go out as characters first; the
  // checksum then runs over those characters two at a time.
  const v0 = pos;
  out[pos++] = version;
  let acc = 0;
  let bits = 0;
  for (let i = start; i < end; i++) {
    acc = ((acc << 8) | program[i]!) & 0xfff;
    bits += 8;
    if (bits >= 10) {
      bits -= 10;
      out[pos] = (acc >> (bits + 5)) & 31;
      out[pos + 1] = (acc >> bits) & 31;
      pos += 2;
    } else if (bits >= 5) {
      bits -= 5;
      out[pos++] = (acc >> bits) & 31;
    }
  }
  if (bits >= 5) {
    bits -= 5;
    out[pos++] = (acc >> bits) & 31;
  }
  if (bits > 0) out[pos++] = (acc << (5 - bits)) & 31;
  let c = hrpState(hrp);
  let i = v0;
  for (; i + 2 <= pos; i += 2) {
    const a = out[i]!;
    const b = out[i + 1]!;
    c = polyModStep2(c, a, b);
    out[i] = CHARSET_CODES[a]!;
    out[i + 1] = CHARSET_CODES[b]!;
  }
  if (i < pos) {
    const a = out[i]!;
    out[i] = CHARSET_CODES[a]!;
    c = polyModStep2(c, a, 0); // the last value and the first of the six zeros
    c = polyModStep2(c, 0, 0);
    c = polyModStep2(c, 0, 0);
    c = polyModStep(c, 0);
  } else {
    c = polyModStep2(c, 0, 0);
    c = polyModStep2(c, 0, 0);
    c = polyModStep2(c, 0, 0);
  }
  const mod = (c ^ (bech32m ? BECH32M_CONST : BECH32_CONST)) >>> 0;
  for (let k = 0; k < CHECKSUM_SIZE; k++) out[pos++] = CHARSET_CODES[(mod >>> (5 * (5 - k))) & 31]!;
  return pos;
}

let addrScratch = new Uint8Array(128);

function segwitEncode(encoding: Bech32Encoding, hrp: string, version: number, program: Uint8Array): string {
  const need = hrp.length + 8 + Math.ceil((program.length * 8) / 5);
  if (addrScratch.length < need) addrScratch = new Uint8Array(need);
  const n = writeSegwitAddress(addrScratch, 0, hrp, version, program, 0, program.length, encoding === 'bech32m');
  return String.fromCharCode.apply(null, addrScratch.subarray(0, n) as unknown as number[]);
}

function prefixed(prefix: number, hash: Uint8Array): Uint8Array {
  const b = new Uint8Array(1 + hash.length);
  b[0] = prefix;
  b.set(hash, 1);
  return b;
}

/** Core EncodeDestination; '' for destinations without an address (pubkey) like Core. */
export function encodeDestination(dest: Destination, net: Network): string {
  switch (dest.type) {
    case 'pkhash':
      return encodeBase58Check(prefixed(net.pubKeyHash, dest.hash));
    case 'scripthash':
      return encodeBase58Check(prefixed(net.scriptHash, dest.hash));
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      return segwitEncode('bech32', net.bech32, 0, dest.program);
    case 'witness_v1_taproot':
      return segwitEncode('bech32m', net.bech32, 1, dest.program);
    case 'anchor':
      return segwitEncode('bech32m', net.bech32, 1, ANCHOR_PROGRAM);
    case 'witness_unknown':
      if (dest.version < 1 || dest.version > 16 || dest.program.length < 2 || dest.program.length > 40) return '';
      return segwitEncode('bech32m', net.bech32, dest.version, dest.program);
    case 'pubkey':
      return '';
  }
}

export type DecodeResult =
  | { ok: true; dest: Destination; script: Uint8Array }
  | { ok: false; error: string; errorLocations?: number[] };

const BECH32_WITNESS_PROG_MAX_LEN = 40;

function fail(error: string, errorLocations?: number[]): DecodeResult {
  return errorLocations && errorLocations.length > 0 ? { ok: false, error, errorLocations } : { ok: false, error };
}

function success(dest: Destination): DecodeResult {
  return { ok: true, dest, script: scriptForDestination(dest) };
}

/**
 * Core v30 DecodeDestination(str, params, error_str, error_locations). On failure `error` is
 * Core's error_str (possibly '', in which case RPCs print 'Invalid address'), and
 * `errorLocations` the Bech32 error positions when Core reports some.
 */
export function decodeDestination(addr: string, net: Network): DecodeResult {
  const hrp = net.bech32;
  // Note this will be false if it is a valid Bech32 address for a different network
  const isBech32 = lowerAscii(addr.slice(0, hrp.length)) === hrp;

  if (!isBech32) {
    const data = decodeBase58Check(addr, 21);
    if (data) {
      if (data.length === 21 && data[0] === net.pubKeyHash) return success({ type: 'pkhash', hash: data.slice(1) });
      if (data.length === 21 && data[0] === net.scriptHash) return success({ type: 'scripthash', hash: data.slice(1) });
      if ((data.length >= 1 && data[0] === net.scriptHash) || (data.length >= 1 && data[0] === net.pubKeyHash)) {
        return fail('Invalid length for Base58 address (P2PKH or P2SH)');
      }
      return fail('Invalid or unsupported Base58-encoded address.');
    }
    if (!decodeBase58(addr, 100)) return fail('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
    return fail('Invalid checksum or length of Base58 address (P2PKH or P2SH)');
  }

  const dec = bech32Decode(addr);
  if (dec) {
    if (dec.data.length === 0) return fail('Empty Bech32 data section');
    if (dec.hrp !== hrp) {
      return fail(`Invalid or unsupported prefix for Segwit (Bech32) address (expected ${hrp}, got ${dec.hrp}).`);
    }
    const version = dec.data[0]!;
    if (version === 0 && dec.encoding !== 'bech32') return fail('Version 0 witness address must use Bech32 checksum');
    if (version !== 0 && dec.encoding !== 'bech32m') return fail('Version 1+ witness address must use Bech32m checksum');
    const bytes = convertBits(dec.data.subarray(1), 5, 8, false);
    if (!bytes) return fail('Invalid padding in Bech32 data section');
    const data = Uint8Array.from(bytes);
    const byteStr = data.length === 1 ? 'byte' : 'bytes';
    if (version === 0) {
      if (data.length === 20) return success({ type: 'witness_v0_keyhash', program: data });
      if (data.length === 32) return success({ type: 'witness_v0_scripthash', program: data });
      return fail(`Invalid Bech32 v0 address program size (${data.length} ${byteStr}), per BIP141`);
    }
    if (version === 1 && data.length === 32) return success({ type: 'witness_v1_taproot', program: data });
    if (isPayToAnchorProgram(version, data)) return success({ type: 'anchor' });
    if (version > 16) return fail('Invalid Bech32 address witness version');
    if (data.length < 2 || data.length > BECH32_WITNESS_PROG_MAX_LEN) {
      return fail(`Invalid Bech32 address program size (${data.length} ${byteStr})`);
    }
    return success({ type: 'witness_unknown', version, program: data });
  }

  const res = bech32LocateErrors(addr);
  return fail(res.error, res.locations);
}

/** Core IsValidDestinationString. */
export function isValidDestinationString(addr: string, net: Network): boolean {
  return decodeDestination(addr, net).ok;
}

// ---------------------------------------------------------------------------------------------
// addresstype.cpp
// ---------------------------------------------------------------------------------------------

function witnessScript(version: number, program: Uint8Array): Uint8Array {
  const s = new Uint8Array(2 + program.length);
  s[0] = encodeOpN(version);
  s[1] = program.length;
  s.set(program, 2);
  return s;
}

/** Core GetScriptForDestination. */
export function scriptForDestination(dest: Destination): Uint8Array {
  switch (dest.type) {
    case 'pkhash': {
      const s = new Uint8Array(25);
      s[0] = OP_DUP;
      s[1] = OP_HASH160;
      s[2] = 20;
      s.set(dest.hash.subarray(0, 20), 3);
      s[23] = OP_EQUALVERIFY;
      s[24] = OP_CHECKSIG;
      return s;
    }
    case 'scripthash': {
      const s = new Uint8Array(23);
      s[0] = OP_HASH160;
      s[1] = 20;
      s.set(dest.hash.subarray(0, 20), 2);
      s[22] = OP_EQUAL;
      return s;
    }
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      return witnessScript(OP_0, dest.program);
    case 'witness_v1_taproot':
      return witnessScript(1, dest.program);
    case 'anchor':
      return witnessScript(1, ANCHOR_PROGRAM);
    case 'witness_unknown':
      return witnessScript(dest.version, dest.program);
    case 'pubkey': {
      // CScript() << pubkey << OP_CHECKSIG (keys are 33 or 65 bytes: direct push)
      const s = new Uint8Array(dest.pubkey.length + 2);
      s[0] = dest.pubkey.length;
      s.set(dest.pubkey, 1);
      s[s.length - 1] = OP_CHECKSIG;
      return s;
    }
  }
}

/**
 * Core v30 ExtractDestination, returning the destination where Core returns true and null where
 * it returns false. Like v30 (since v26), bare P2PK gives false (null): use
 * {@link extractDestinationWithPubkey} to get the PubKeyDestination Core also fills in then.
 */
export function extractDestination(script: Uint8Array): Destination | null {
  return extractDestinationFromSolved(solver(script));
}

/** ExtractDestination on an already computed Solver result. */
export function extractDestinationFromSolved(solved: { type: TxoutType; solutions: Uint8Array[] }): Destination | null {
  const { type, solutions } = solved;
  const s0 = solutions[0];
  switch (type) {
    case 'pubkeyhash':
      return { type: 'pkhash', hash: s0!.slice() };
    case 'scripthash':
      return { type: 'scripthash', hash: s0!.slice() };
    case 'witness_v0_keyhash':
      return { type: 'witness_v0_keyhash', program: s0!.slice() };
    case 'witness_v0_scripthash':
      return { type: 'witness_v0_scripthash', program: s0!.slice() };
    case 'witness_v1_taproot':
      return { type: 'witness_v1_taproot', program: s0!.slice() };
    case 'anchor':
      return { type: 'anchor' };
    case 'witness_unknown':
      return { type: 'witness_unknown', version: s0![0]!, program: solutions[1]!.slice() };
    default:
      return null;
  }
}

/** ExtractDestination's out-parameter even when it returns false: P2PK gives a pubkey destination. */
export function extractDestinationWithPubkey(script: Uint8Array): Destination | null {
  const d = extractDestination(script);
  if (d) return d;
  const { type, solutions } = solver(script);
  if (type === 'pubkey') return { type: 'pubkey', pubkey: solutions[0]!.slice() };
  return null;
}
