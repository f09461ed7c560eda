/**
 * Raw transactions the way Bitcoin Core (v30) serializes them (primitives/transaction.h,
 * serialize.h), fast: parsing works on a Uint8Array with offsets and hands out subarray views,
 * hashes are computed over the original bytes (no re-serialization).
 *
 * Errors are thrown as {@link StreamError} carrying exactly the text of Core's
 * `std::ios_base::failure` (without the libstdc++ ": iostream error" suffix).
 */
import { sha256 } from '@noble/hashes/sha2.js';

/** Core's serialize.h MAX_SIZE: the largest size ReadCompactSize accepts. */
export const MAX_SIZE = 0x02000000;

/** A C++ `std::ios_base::failure` thrown by a Core deserializer; `message` is its what() text minus the suffix. */
export class StreamError extends Error {}

// ---------------------------------------------------------------------------------------------
// Hex helpers for hashes (display order is byte-reversed)
// ---------------------------------------------------------------------------------------------

const BYTE_HEX: string[] = [];
for (let i = 0; i < 256; i++) BYTE_HEX.push(i.toString(16).padStart(2, '0'));

/** Lowercase hex of bytes in reverse order (uint256::GetHex). */
export function hexReversed(b: Uint8Array, start = 0, end = b.length): string {
  let s = '';
  for (let i = end - 1; i >= start; i--) s += BYTE_HEX[b[i]!]!;
  return s;
}

const HEX_CODES = new Uint16Array(256);
for (let i = 0; i < 256; i++) HEX_CODES[i] = BYTE_HEX[i]!.charCodeAt(0) | (BYTE_HEX[i]!.charCodeAt(1) << 8);
const LATIN1 = new TextDecoder('latin1');

/** Lowercase hex of a byte range (HexStr): string concatenation when short, one decode when long. */
export function hexOf(b: Uint8Array, start = 0, end = b.length): string {
  const n = end - start;
  if (n <= 48) {
    let s = '';
    for (let i = start; i < end; i++) s += BYTE_HEX[b[i]!]!;
    return s;
  }
  const codes = new Uint16Array(n);
  for (let i = 0; i < n; i++) codes[i] = HEX_CODES[b[start + i]!]!;
  return LATIN1.decode(codes);
}

/** Double SHA-256. */
export function sha256d(b: Uint8Array): Uint8Array {
  return sha256(sha256(b));
}

// ---------------------------------------------------------------------------------------------
// Reader (DataStream / SpanReader)
// ---------------------------------------------------------------------------------------------

/**
 * A read cursor over a byte array, standing for Core's DataStream ("DataStream::read(): end of
 * data") or SpanReader ("SpanReader::read(): end of data"); the name only changes that text.
 */
export class ByteReader {
  pos: number;
  readonly end: number;
  constructor(
    readonly buf: Uint8Array,
    pos = 0,
    end = buf.length,
    readonly streamName: 'DataStream' | 'SpanReader' = 'DataStream',
  ) {
    this.pos = pos;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  get empty(): boolean {
    return this.pos >= this.end;
  }

  eod(): never {
    throw new StreamError(`${this.streamName}::read(): end of data`);
  }

  u8(): number {
    if (this.pos >= this.end) this.eod();
    return this.buf[this.pos++]!;
  }

  u16(): number {
    if (this.end - this.pos < 2) this.eod();
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 2;
    return b[p]! | (b[p + 1]! << 8);
  }

  u32(): number {
    if (this.end - this.pos < 4) this.eod();
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
  }

  i32(): number {
    return this.u32() | 0;
  }

  /** int64 little endian (CAmount). */
  i64(): bigint {
    const lo = this.u32();
    const hi = this.u32();
    return (BigInt(hi | 0) << 32n) + BigInt(lo);
  }

  /** Core ReadCompactSize(range_check = true). */
  compactSize(): number {
    const ch = this.u8();
    let n: number;
    if (ch < 253) return ch;
    if (ch === 253) {
      n = this.u16();
      if (n < 253) throw new StreamError('non-canonical ReadCompactSize()');
    } else if (ch === 254) {
      n = this.u32();
      if (n < 0x10000) throw new StreamError('non-canonical ReadCompactSize()');
    } else {
      const lo = this.u32();
      const hi = this.u32();
      if (hi === 0) throw new StreamError('non-canonical ReadCompactSize()');
      n = hi * 0x100000000 + lo; // > MAX_SIZE anyway
    }
    if (n > MAX_SIZE) throw new StreamError('ReadCompactSize(): size too large');
    return n;
  }

  /** `n` raw bytes as a view. */
  bytes(n: number): Uint8Array {
    if (this.end - this.pos < n) this.eod();
    const p = this.pos;
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }

  /** A length-prefixed byte vector (std::vector<unsigned char>, CScript) as a view. */
  varBytes(): Uint8Array {
    return this.bytes(this.compactSize());
  }
}

// ---------------------------------------------------------------------------------------------
// Transactions
// ---------------------------------------------------------------------------------------------

export interface TxIn {
  /** Previous txid in display (reversed) hex. */
  prevTxid: string;
  /** Previous txid bytes in internal (serialization) order (a view); set by the parser, optional when building. */
  prevHash?: Uint8Array;
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
  witness: Uint8Array[];
}

export interface TxOut {
  /** int64 amount in satoshis (may be out of money range: the parser does not judge). */
  value: bigint;
  script: Uint8Array;
}

export interface Tx {
  /** Core v28+ stores `version` as uint32 and prints it unsigned (0..4294967295). */
  version: number;
  locktime: number;
  vin: TxIn[];
  vout: TxOut[];
}

/** A parsed transaction with the numbers Core derives from it. */
export interface ParsedTx extends Tx {
  txid: string;
  wtxid: string;
  /** Serialized size with witness data (GetTotalSize). */
  size: number;
  /** Serialized size without witness data. */
  strippedSize: number;
  weight: number;
  vsize: number;
  hasWitness: boolean;
}

const EMPTY = new Uint8Array(0);

function readVin(r: ByteReader): TxIn[] {
  const n = r.compactSize();
  const vin: TxIn[] = [];
  for (let i = 0; i < n; i++) {
    const prevHash = r.bytes(32);
    const vout = r.u32();
    const scriptSig = r.varBytes();
    const sequence = r.u32();
    vin.push({ prevTxid: hexReversed(prevHash), prevHash, vout, scriptSig, sequence, witness: [] });
  }
  return vin;
}

function readVout(r: ByteReader): TxOut[] {
  const n = r.compactSize();
  const vout: TxOut[] = [];
  for (let i = 0; i < n; i++) {
    const value = r.i64();
    const script = r.varBytes();
    vout.push({ value, script });
  }
  return vout;
}

/**
 * Core's UnserializeTransaction from the reader's current position (advances it). Throws
 * {@link StreamError} with Core's messages.
 */
export function readTx(r: ByteReader, allowWitness: boolean): ParsedTx {
  const start = r.pos;
  const version = r.u32();
  let vin = readVin(r);
  let vout: TxOut[] = [];
  let flags = 0;
  let bodyStart = start + 4;
  if (vin.length === 0 && allowWitness) {
    flags = r.u8();
    if (flags !== 0) {
      bodyStart = r.pos;
      vin = readVin(r);
      vout = readVout(r);
    }
  } else {
    vout = readVout(r);
  }
  let witStart = -1;
  let hasWitness = false;
  if (flags & 1 && allowWitness) {
    flags ^= 1;
    witStart = r.pos;
    for (const txin of vin) {
      const n = r.compactSize();
      const stack: Uint8Array[] = [];
      for (let j = 0; j < n; j++) stack.push(r.varBytes());
      txin.witness = stack;
      if (n > 0) hasWitness = true;
    }
    if (!hasWitness) throw new StreamError('Superfluous witness record');
  }
  if (flags) throw new StreamError('Unknown transaction optional data');
  const lockPos = r.pos;
  const locktime = r.u32();
  const end = r.pos;
  const raw = r.buf.subarray(start, end);

  let txid: string;
  let wtxid: string;
  let strippedSize: number;
  if (hasWitness) {
    const bodyLen = witStart - bodyStart;
    strippedSize = 8 + bodyLen;
    const stripped = new Uint8Array(strippedSize);
    stripped.set(r.buf.subarray(start, start + 4), 0);
    stripped.set(r.buf.subarray(bodyStart, witStart), 4);
    stripped.set(r.buf.subarray(lockPos, end), 4 + bodyLen);
    txid = hexReversed(sha256d(stripped));
    wtxid = hexReversed(sha256d(raw));
  } else {
    strippedSize = raw.length;
    txid = hexReversed(sha256d(raw));
    wtxid = txid;
  }
  const size = raw.length;
  const weight = strippedSize * 3 + size;
  return {
    version,
    locktime,
    vin,
    vout,
    txid,
    wtxid,
    size,
    strippedSize,
    weight,
    vsize: Math.floor((weight + 3) / 4),
    hasWitness,
  };
}

export interface ParseTxOptions {
  /** TX_WITH_WITNESS (default true) or TX_NO_WITNESS. */
  allowWitness?: boolean;
}

/**
 * Parses one whole transaction. Throws {@link StreamError} on malformed data, and
 * `StreamError('extra data after transaction')` when bytes are left over (Core's DecodeTx
 * then ignores that decoding).
 */
export function parseTx(bytes: Uint8Array, opts: ParseTxOptions = {}): ParsedTx {
  const r = new ByteReader(bytes);
  const tx = readTx(r, opts.allowWitness ?? true);
  if (!r.empty) throw new StreamError('extra data after transaction');
  return tx;
}

// ---------------------------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------------------------

export function compactSizeLen(n: number): number {
  return n < 253 ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

class Writer {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  u8(v: number): void {
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    const b = this.buf;
    b[this.pos++] = v & 0xff;
    b[this.pos++] = (v >>> 8) & 0xff;
    b[this.pos++] = (v >>> 16) & 0xff;
    b[this.pos++] = (v >>> 24) & 0xff;
  }
  i64(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    this.u32(Number(u & 0xffffffffn));
    this.u32(Number(u >> 32n));
  }
  compactSize(n: number): void {
    if (n < 253) this.u8(n);
    else if (n <= 0xffff) {
      this.u8(253);
      this.u8(n & 0xff);
      this.u8(n >>> 8);
    } else if (n <= 0xffffffff) {
      this.u8(254);
      this.u32(n);
    } else {
      this.u8(255);
      this.u32(n % 0x100000000);
      this.u32(Math.floor(n / 0x100000000));
    }
  }
  bytes(b: Uint8Array): void {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  varBytes(b: Uint8Array): void {
    this.compactSize(b.length);
    this.bytes(b);
  }
}

function varLen(b: Uint8Array): number {
  return compactSizeLen(b.length) + b.length;
}

/** Internal-order bytes of a display-hex txid. */
function prevHashBytes(txin: TxIn): Uint8Array {
  if (txin.prevHash && txin.prevHash.length === 32) return txin.prevHash;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[31 - i] = parseInt(txin.prevTxid.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Core's SerializeTransaction. With `witness: true` the extended format is used only when some
 * input has a witness (like Core); `witness: false` is TX_NO_WITNESS.
 */
export function serializeTx(tx: Tx, opts: { witness: boolean }): Uint8Array {
  const useWitness = opts.witness && tx.vin.some((i) => i.witness.length > 0);
  let len = 4 + compactSizeLen(tx.vin.length) + compactSizeLen(tx.vout.length) + 4;
  for (const i of tx.vin) {
    len += 32 + 4 + varLen(i.scriptSig) + 4;
    if (useWitness) {
      len += compactSizeLen(i.witness.length);
      for (const w of i.witness) len += varLen(w);
    }
  }
  for (const o of tx.vout) len += 8 + varLen(o.script);
  if (useWitness) len += 2;
  const w = new Writer(new Uint8Array(len));
  w.u32(tx.version >>> 0);
  if (useWitness) {
    w.u8(0);
    w.u8(1);
  }
  w.compactSize(tx.vin.length);
  for (const i of tx.vin) {
    w.bytes(prevHashBytes(i));
    w.u32(i.vout >>> 0);
    w.varBytes(i.scriptSig ?? EMPTY);
    w.u32(i.sequence >>> 0);
  }
  w.compactSize(tx.vout.length);
  for (const o of tx.vout) {
    w.i64(o.value);
    w.varBytes(o.script);
  }
  if (useWitness) {
    for (const i of tx.vin) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  w.u32(tx.locktime >>> 0);
  return w.buf;
}

/** Core CTransaction::IsCoinBase. */
export function isCoinBase(tx: Tx): boolean {
  if (tx.vin.length !== 1) return false;
  const i = tx.vin[0]!;
  if (i.vout !== 0xffffffff) return false;
  if (!i.prevHash) return /^0{64}$/.test(i.prevTxid);
  for (let k = 0; k < 32; k++) if (i.prevHash[k] !== 0) return false;
  return true;
}
