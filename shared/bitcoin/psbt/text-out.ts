/**
 * The JSON text of a decodepsbt reply under construction, and the writers of its small hot pieces
 * (amounts, key paths, hex) straight into it (text-tx.ts: transactions and scriptPubKeys): ASCII bytes in one buffer,
 * turned into a string by one TextDecoder call at the end, instead of thousands of small strings
 * concatenated and flattened by a final join.
 */
import { formatBtc } from '../../amounts';
import { cmpStr } from './json-parts';
import type { KeyOrigin, TapBip32 } from './types';

export const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

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
export class TextOut {
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

  /** HexStr of 32 bytes in reverse order (uint256::GetHex: txids), unquoted. */
  hexReversed32(src: Uint8Array): void {
    this.room(64);
    const b = this.buf;
    let p = this.pos;
    for (let k = 31; k >= 0; k--) {
      const x = src[k]!;
      b[p] = HEX_DIGITS[x >> 4]!;
      b[p + 1] = HEX_DIGITS[x & 15]!;
      p += 2;
    }
    this.pos = p;
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
export function put(w: TextOut, s: string): void {
  const b = w.buf;
  let p = w.pos;
  for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
  w.pos = p;
}

/** Writes a non-negative safe integer (room for 16 bytes already made). */
export function putUint(w: TextOut, n: number): void {
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
export function putHex(w: TextOut, src: Uint8Array, start: number, end: number): void {
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
export function putKeypath(w: TextOut, path: number[]): void {
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
export function writeBtc(w: TextOut, sats: bigint): void {
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
export function writeKeypaths(w: TextOut, paths: Map<string, KeyOrigin>): void {
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
export function writeTapKeypaths(w: TextOut, paths: Map<string, TapBip32>): void {
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
export function writeHexArray(w: TextOut, items: Uint8Array[]): void {
  w.text('[');
  for (let i = 0; i < items.length; i++) {
    if (i) w.text(',');
    w.qhex(items[i]!);
  }
  w.text(']');
}

