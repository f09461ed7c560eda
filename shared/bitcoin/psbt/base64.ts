/**
 * Base64 as Bitcoin Core reads and writes it (util/strencodings.cpp): DecodeBase64 wants a length
 * that is a multiple of 4, at most two '=' and zero padding bits; EncodeBase64 always pads.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64 = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) B64[ALPHABET.charCodeAt(i)] = i;
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

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

const LATIN1 = new TextDecoder('latin1');

/** Core EncodeBase64 (padded with '='). */
export function encodeBase64(b: Uint8Array): string {
  const n = b.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out[o] = CODES[v >> 18]!;
    out[o + 1] = CODES[(v >> 12) & 63]!;
    out[o + 2] = CODES[(v >> 6) & 63]!;
    out[o + 3] = CODES[v & 63]!;
    o += 4;
  }
  if (i < n) {
    const v = (b[i]! << 16) | ((i + 1 < n ? b[i + 1]! : 0) << 8);
    out[o] = CODES[v >> 18]!;
    out[o + 1] = CODES[(v >> 12) & 63]!;
    out[o + 2] = i + 1 < n ? CODES[(v >> 6) & 63]! : 0x3d;
    out[o + 3] = 0x3d;
  }
  return LATIN1.decode(out);
}
