/**
 * Data encoding (ISO/IEC 18004 §7.4): numeric, alphanumeric and byte segments, the version that fits them, and
 * the data codewords (mode indicators, character counts, data bits, terminator, padding).
 */
import { checkVersion, dataCapacityBits, MAX_VERSION, type EcLevel } from './tables';

export type QrMode = 'numeric' | 'alphanumeric' | 'byte';

/** One segment: numeric and alphanumeric take text in their character set; byte takes bytes or text (as UTF-8). */
export interface QrSegment {
  mode: QrMode;
  data: string | Uint8Array;
}

/** The 45 characters of alphanumeric mode, in value order. UR parts uppercased use only these. */
export const ALPHANUMERIC_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';
const ALNUM_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHANUMERIC_CHARS.length; i++) ALNUM_VALUE[ALPHANUMERIC_CHARS.charCodeAt(i)] = i;

const MODE_BITS: Record<QrMode, number> = { numeric: 0b0001, alphanumeric: 0b0010, byte: 0b0100 };
// Character count indicator length for versions 1–9, 10–26, 27–40 (Table 3).
const COUNT_BITS: Record<QrMode, readonly [number, number, number]> = { numeric: [10, 12, 14], alphanumeric: [9, 11, 13], byte: [8, 16, 16] };

export const countBits = (mode: QrMode, version: number): number => COUNT_BITS[mode][version < 10 ? 0 : version < 27 ? 1 : 2];

export function isNumeric(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export function isAlphanumeric(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || ALNUM_VALUE[c]! < 0) return false;
  }
  return true;
}

/** The narrowest single mode that holds the whole text. */
export function bestMode(text: string): QrMode {
  let numeric = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || ALNUM_VALUE[c]! < 0) return 'byte';
    if (c < 48 || c > 57) numeric = false;
  }
  return numeric ? 'numeric' : 'alphanumeric';
}

/** A segment checked and measured: `count` characters (or bytes) and `bits` data bits, header excluded. */
export interface PreparedSegment {
  mode: QrMode;
  text: string;
  bytes: Uint8Array | null;
  count: number;
  bits: number;
}

const utf8 = new TextEncoder();

/** `checked`: the text is known to fit the mode (bestMode said so). */
export function prepareSegment(seg: QrSegment, checked = false): PreparedSegment {
  const { mode, data } = seg;
  if (mode === 'byte') {
    const bytes = typeof data === 'string' ? utf8.encode(data) : data;
    return { mode, text: '', bytes, count: bytes.length, bits: bytes.length * 8 };
  }
  if (typeof data !== 'string') throw new TypeError(`QR ${mode} segment needs text`);
  if (mode === 'numeric') {
    if (!checked && !isNumeric(data)) throw new RangeError('QR numeric segment: only digits 0-9 can be encoded');
    const n = data.length;
    return { mode, text: data, bytes: null, count: n, bits: 10 * Math.floor(n / 3) + [0, 4, 7][n % 3]! };
  }
  if (mode === 'alphanumeric') {
    if (!checked && !isAlphanumeric(data)) throw new RangeError(`QR alphanumeric segment: only "${ALPHANUMERIC_CHARS}" can be encoded (uppercase the text first)`);
    const n = data.length;
    return { mode, text: data, bytes: null, count: n, bits: 11 * (n >> 1) + 6 * (n & 1) };
  }
  throw new RangeError(`unknown QR mode ${String(mode)}`);
}

export function segmentsBits(segs: readonly PreparedSegment[], version: number): number {
  let bits = 0;
  for (const s of segs) {
    if (s.count >= 1 << countBits(s.mode, version)) return Infinity;
    bits += 4 + countBits(s.mode, version) + s.bits;
  }
  return bits;
}

/** The smallest version ≥ minVersion that holds the segments at this level, or throws saying how much too big. */
export function fitVersion(segs: readonly PreparedSegment[], level: EcLevel, minVersion = 1): number {
  checkVersion(minVersion);
  for (let v = minVersion; v <= MAX_VERSION; v++) if (segmentsBits(segs, v) <= dataCapacityBits(v, level)) return v;
  const need = segmentsBits(segs, MAX_VERSION);
  throw new RangeError(`QR data too long: ${need} bits, a version 40 symbol at level ${level} holds ${dataCapacityBits(MAX_VERSION, level)}`);
}

/** MSB-first bit writer into a byte array: bits gather in a small accumulator and leave a byte at a time. */
class BitWriter {
  bitLength = 0;
  #pos = 0;
  #acc = 0;
  #n = 0;
  constructor(readonly buf: Uint8Array) {}
  /** The n low bits of value (n ≤ 16), most significant first. */
  put(value: number, n: number): void {
    const acc = (this.#acc << n) | value;
    let k = this.#n + n;
    while (k >= 8) {
      k -= 8;
      this.buf[this.#pos++] = acc >>> k;
    }
    this.#acc = acc & ((1 << k) - 1);
    this.#n = k;
    this.bitLength += n;
  }
  /** Zero bits up to the next byte boundary; returns the number of bytes written. */
  flush(): number {
    if (this.#n > 0) this.buf[this.#pos++] = this.#acc << (8 - this.#n);
    this.#acc = 0;
    this.#n = 0;
    return this.#pos;
  }
}

/** Data codewords (dataCodewords(version, level) bytes) of the segments in `out`. */
export function writeDataCodewords(segs: readonly PreparedSegment[], version: number, capacityBits: number, out: Uint8Array): Uint8Array {
  const w = new BitWriter(out);
  for (const s of segs) {
    w.put(MODE_BITS[s.mode], 4);
    w.put(s.count, countBits(s.mode, version));
    if (s.mode === 'byte') {
      const b = s.bytes!;
      for (let i = 0; i < b.length; i++) w.put(b[i]!, 8);
    } else if (s.mode === 'alphanumeric') {
      const t = s.text;
      let i = 0;
      for (; i + 1 < t.length; i += 2) w.put(ALNUM_VALUE[t.charCodeAt(i)]! * 45 + ALNUM_VALUE[t.charCodeAt(i + 1)]!, 11);
      if (i < t.length) w.put(ALNUM_VALUE[t.charCodeAt(i)]!, 6);
    } else {
      const t = s.text;
      let i = 0;
      for (; i + 2 < t.length; i += 3) w.put(Number(t.slice(i, i + 3)), 10);
      if (t.length - i === 2) w.put(Number(t.slice(i)), 7);
      else if (t.length - i === 1) w.put(Number(t.slice(i)), 4);
    }
  }
  if (w.bitLength > capacityBits) throw new RangeError('QR data does not fit the chosen version');
  // Terminator (up to four 0 bits), then 0 bits to a byte boundary, then pad codewords.
  let i = w.flush();
  for (const used = Math.ceil(Math.min(w.bitLength + 4, capacityBits) / 8); i < used; i++) out[i] = 0;
  for (let pad = 0xec; i < capacityBits >> 3; i++, pad ^= 0xec ^ 0x11) out[i] = pad;
  return out.subarray(0, capacityBits >> 3);
}
