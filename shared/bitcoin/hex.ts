/**
 * Hex helpers (Core util/strencodings: HexStr, IsHex, ParseHex), table driven and linear time.
 */

const HEX_CHARS = '0123456789abcdef';
/** Byte -> its two lowercase ASCII hex char codes packed as (hi << 8) | lo. */
const BYTE_TO_CODES = new Uint16Array(256);
/** ASCII char code -> nibble value, or -1. */
const CODE_TO_NIBBLE = new Int8Array(256).fill(-1);

for (let i = 0; i < 256; i++) {
  BYTE_TO_CODES[i] = (HEX_CHARS.charCodeAt(i >> 4) << 8) | HEX_CHARS.charCodeAt(i & 15);
}
for (let i = 0; i < 16; i++) {
  CODE_TO_NIBBLE[HEX_CHARS.charCodeAt(i)] = i;
  CODE_TO_NIBBLE[HEX_CHARS.toUpperCase().charCodeAt(i)] = i;
}

const CHUNK = 8192;

// TextDecoder is a global in browsers and Node (no import needed); ASCII decodes identically.
const DECODER: { decode(b: Uint8Array): string } | undefined =
  typeof TextDecoder === 'function' ? new TextDecoder('latin1') : undefined;

/** Turns an array of ASCII codes into a string without quadratic concatenation. */
export function asciiToString(codes: Uint8Array | Uint16Array, length = codes.length): string {
  if (DECODER && codes instanceof Uint8Array && length > 256) return DECODER.decode(codes.subarray(0, length));
  if (length <= CHUNK) {
    return String.fromCharCode.apply(null, Array.from(codes.subarray(0, length)));
  }
  const parts: string[] = [];
  for (let i = 0; i < length; i += CHUNK) {
    parts.push(String.fromCharCode.apply(null, Array.from(codes.subarray(i, Math.min(length, i + CHUNK)))));
  }
  return parts.join('');
}

/** Core HexStr: lowercase hex of the bytes. */
export function toHex(b: Uint8Array): string {
  const n = b.length;
  if (n === 0) return '';
  if (n <= 32) {
    let s = '';
    for (let i = 0; i < n; i++) {
      const c = BYTE_TO_CODES[b[i]!]!;
      s += String.fromCharCode(c >> 8, c & 0xff);
    }
    return s;
  }
  const out = new Uint8Array(n * 2);
  for (let i = 0, j = 0; i < n; i++, j += 2) {
    const c = BYTE_TO_CODES[b[i]!]!;
    out[j] = c >> 8;
    out[j + 1] = c & 0xff;
  }
  return asciiToString(out);
}

/** Strict hex decode (either case). Throws on odd length or a non-hex character. Empty -> empty. */
export function fromHex(h: string): Uint8Array {
  const n = h.length;
  if (n % 2 !== 0) throw new Error('hex string has odd length');
  const out = new Uint8Array(n / 2);
  for (let i = 0, j = 0; i < n; i += 2, j++) {
    const c1 = h.charCodeAt(i);
    const c2 = h.charCodeAt(i + 1);
    const hi = c1 < 256 ? CODE_TO_NIBBLE[c1]! : -1;
    const lo = c2 < 256 ? CODE_TO_NIBBLE[c2]! : -1;
    if (hi < 0 || lo < 0) throw new Error(`invalid hex character at position ${hi < 0 ? i : i + 1}`);
    out[j] = (hi << 4) | lo;
  }
  return out;
}

/** Core IsHex: non-empty, even length, every character a hex digit (either case). */
export function isHex(s: string): boolean {
  const n = s.length;
  if (n === 0 || n % 2 !== 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 256 || CODE_TO_NIBBLE[c]! < 0) return false;
  }
  return true;
}

/** Byte-reverses a hex string (internal <-> display order of hashes). Throws like fromHex. */
export function reverseHex(h: string): string {
  return toHex(fromHex(h).reverse());
}
