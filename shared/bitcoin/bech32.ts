/**
 * Bech32 and Bech32m, a faithful port of Bitcoin Core v30's bech32.cpp: Encode, Decode,
 * LocateErrors (error messages and positions), and ConvertBits.
 */

export type Bech32Encoding = 'bech32' | 'bech32m';

export const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CHARSET_REV = new Int8Array(128).fill(-1);
for (let i = 0; i < 32; i++) {
  CHARSET_REV[CHARSET.charCodeAt(i)] = i;
  CHARSET_REV[CHARSET.toUpperCase().charCodeAt(i)] = i;
}
/** Characters of the checksum at the end of every Bech32(m) string. */
export const CHECKSUM_SIZE = 6;
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

/** ASCII letters lowercased (what Core's ToLower does); other characters unchanged. */
export function lowerAscii(s: string): string {
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
