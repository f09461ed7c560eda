/**
 * Base58 and Base58Check, a faithful port of Bitcoin Core v30's base58.cpp: EncodeBase58(Check),
 * DecodeBase58(Check) with their maximum length and whitespace rules.
 */
import { sha256 } from '@noble/hashes/sha2.js';

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
