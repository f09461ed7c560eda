/** Building and reading the devnet's transactions (Core serialization, BIP144 witness). */
import type { ChainTx, ChainTxIn, ChainTxOut } from './types';
import { hashToHex, hexToHash, sha256d, Writer } from './encoding';

export const COINBASE_TXID = '0'.repeat(64);

export interface TxParts {
  version: number;
  locktime: number;
  vin: ChainTxIn[];
  vout: ChainTxOut[];
}

export function serializeTx(tx: TxParts, withWitness: boolean): Uint8Array {
  const hasWitness = withWitness && tx.vin.some((i) => i.witness.length > 0);
  const w = new Writer().i32(tx.version);
  if (hasWitness) w.u8(0).u8(1);
  w.compactSize(tx.vin.length);
  for (const i of tx.vin) {
    w.bytes(hexToHash(i.txid)).u32(i.vout).varBytes(i.scriptSig).u32(i.sequence);
  }
  w.compactSize(tx.vout.length);
  for (const o of tx.vout) w.u64(o.value).varBytes(o.script);
  if (hasWitness) {
    for (const i of tx.vin) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  return w.u32(tx.locktime).finish();
}

/** Freezes transaction parts into a ChainTx with ids and sizes. */
export function makeChainTx(parts: TxParts): ChainTx {
  const stripped = serializeTx(parts, false);
  const full = serializeTx(parts, true);
  const segwit = full.length !== stripped.length;
  const txid = hashToHex(sha256d(stripped));
  return {
    txid,
    wtxid: segwit ? hashToHex(sha256d(full)) : txid,
    version: parts.version,
    locktime: parts.locktime,
    vin: parts.vin,
    vout: parts.vout,
    raw: full,
    size: full.length,
    strippedSize: stripped.length,
    weight: stripped.length * 3 + full.length,
    segwit,
    coinbase: parts.vin.length === 1 && parts.vin[0]!.txid === COINBASE_TXID && parts.vin[0]!.vout === 0xffffffff,
  };
}

class Reader {
  pos = 0;
  private view: DataView;
  constructor(private readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  need(n: number): void {
    if (this.pos + n > this.b.length) throw new Error('end of data');
  }
  u8(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }
  compactSize(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      this.need(2);
      const v = this.view.getUint16(this.pos, true);
      this.pos += 2;
      return v;
    }
    if (first === 0xfe) return this.u32();
    return Number(this.u64());
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.b.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  done(): boolean {
    return this.pos === this.b.length;
  }
}

/** Parses a serialized transaction (with or without witness) into a ChainTx. Throws on bad data. */
export function parseChainTx(raw: Uint8Array): ChainTx {
  const r = new Reader(raw);
  const version = r.i32();
  let nIn = r.compactSize();
  let segwit = false;
  if (nIn === 0) {
    const flag = r.u8();
    if (flag !== 1) throw new Error('bad segwit flag');
    segwit = true;
    nIn = r.compactSize();
  }
  const vin: { txid: string; vout: number; scriptSig: Uint8Array; sequence: number; witness: Uint8Array[] }[] = [];
  for (let i = 0; i < nIn; i++) {
    const prev = r.bytes(32);
    const vout = r.u32();
    const scriptSig = r.bytes(r.compactSize());
    const sequence = r.u32();
    vin.push({ txid: hashToHex(prev), vout, scriptSig, sequence, witness: [] });
  }
  const nOut = r.compactSize();
  const vout: ChainTxOut[] = [];
  for (let i = 0; i < nOut; i++) {
    const value = r.u64();
    vout.push({ value, script: r.bytes(r.compactSize()) });
  }
  if (segwit) {
    for (const input of vin) {
      const n = r.compactSize();
      for (let k = 0; k < n; k++) input.witness.push(r.bytes(r.compactSize()));
    }
  }
  const locktime = r.u32();
  if (!r.done()) throw new Error('trailing data after transaction');
  return makeChainTx({ version, locktime, vin, vout });
}
