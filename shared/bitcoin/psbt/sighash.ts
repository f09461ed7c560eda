/**
 * Signature hashes as Core computes them (src/script/interpreter.cpp SignatureHash and
 * SignatureHashSchnorr, PrecomputedTransactionData): legacy, BIP143 (segwit v0) and BIP341/342
 * (taproot key path and tapscript), over the transaction a PSBT describes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { getScriptOp } from '../script';
import { sha256d, type Tx, type TxOut } from '../tx';

export const SIGHASH_DEFAULT = 0;
export const SIGHASH_ALL = 1;
export const SIGHASH_NONE = 2;
export const SIGHASH_SINGLE = 3;
export const SIGHASH_ANYONECANPAY = 0x80;

export type SigVersion = 'base' | 'v0' | 'taproot' | 'tapscript';

/** A growable little-endian writer for the sighash preimages. */
class Buf {
  b = new Uint8Array(256);
  n = 0;
  private room(k: number): void {
    if (this.n + k <= this.b.length) return;
    let size = this.b.length * 2;
    while (size < this.n + k) size *= 2;
    const nb = new Uint8Array(size);
    nb.set(this.b.subarray(0, this.n));
    this.b = nb;
  }
  u8(v: number): void {
    this.room(1);
    this.b[this.n++] = v & 0xff;
  }
  u32(v: number): void {
    this.room(4);
    for (let i = 0; i < 4; i++) this.b[this.n++] = (v >>> (8 * i)) & 0xff;
  }
  i64(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    this.u32(Number(u & 0xffffffffn));
    this.u32(Number(u >> 32n));
  }
  compact(k: number): void {
    if (k < 253) this.u8(k);
    else if (k <= 0xffff) {
      this.u8(253);
      this.u8(k);
      this.u8(k >>> 8);
    } else {
      this.u8(254);
      this.u32(k);
    }
  }
  bytes(d: Uint8Array): void {
    this.room(d.length);
    this.b.set(d, this.n);
    this.n += d.length;
  }
  varBytes(d: Uint8Array): void {
    this.compact(d.length);
    this.bytes(d);
  }
  out(): Uint8Array {
    return this.b.subarray(0, this.n);
  }
}

function prevHash(tx: Tx, i: number): Uint8Array {
  const h = tx.vin[i]!.prevHash;
  if (!h) throw new RangeError('a transaction input without its previous hash bytes');
  return h;
}

function output(w: Buf, o: TxOut): void {
  w.i64(o.value);
  w.varBytes(o.script);
}

/**
 * PrecomputedTransactionData: the BIP143 hashes always; the BIP341 ones only when every spent
 * output is known (`spent` has one per input).
 */
export class SighashData {
  readonly prevouts: Uint8Array;
  readonly sequences: Uint8Array;
  readonly outputs: Uint8Array;
  /** BIP341 single-SHA256 hashes; null when a spent output is missing. */
  readonly taproot: { prevouts: Uint8Array; amounts: Uint8Array; scripts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } | null;

  constructor(
    readonly tx: Tx,
    readonly spent: readonly TxOut[] | null,
  ) {
    const p = new Buf();
    const s = new Buf();
    tx.vin.forEach((txin, i) => {
      p.bytes(prevHash(tx, i));
      p.u32(txin.vout);
      s.u32(txin.sequence);
    });
    const o = new Buf();
    for (const out of tx.vout) output(o, out);
    const pSingle = sha256(p.out());
    const sSingle = sha256(s.out());
    const oSingle = sha256(o.out());
    this.prevouts = sha256(pSingle);
    this.sequences = sha256(sSingle);
    this.outputs = sha256(oSingle);
    if (spent && spent.length === tx.vin.length) {
      const a = new Buf();
      const sc = new Buf();
      for (const u of spent) {
        a.i64(u.value);
        sc.varBytes(u.script);
      }
      this.taproot = { prevouts: pSingle, amounts: sha256(a.out()), scripts: sha256(sc.out()), sequences: sSingle, outputs: oSingle };
    } else this.taproot = null;
  }
}

const OP_CODESEPARATOR_CODE = 0xab;

const ONE = (() => {
  const b = new Uint8Array(32);
  b[0] = 1;
  return b;
})();

/** The script code without its OP_CODESEPARATORs (CTransactionSignatureSerializer::SerializeScriptCode). */
function withoutCodeSeparators(script: Uint8Array): Uint8Array {
  if (!script.includes(OP_CODESEPARATOR_CODE)) return script;
  const parts: number[] = [];
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    const end = r.ok ? r.next : script.length;
    if (!(r.ok && r.op === OP_CODESEPARATOR_CODE)) for (let i = pc; i < end; i++) parts.push(script[i]!);
    pc = end;
  }
  return Uint8Array.from(parts);
}

/** Legacy (pre-segwit) SignatureHash. */
export function legacySighash(tx: Tx, nIn: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
  if (nIn >= tx.vin.length) return ONE;
  const anyone = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const base = hashType & 0x1f;
  const single = base === SIGHASH_SINGLE;
  const none = base === SIGHASH_NONE;
  if (single && nIn >= tx.vout.length) return ONE;
  const code = withoutCodeSeparators(scriptCode);
  const w = new Buf();
  w.u32(tx.version);
  const ins = anyone ? [nIn] : tx.vin.map((_, i) => i);
  w.compact(ins.length);
  for (const i of ins) {
    w.bytes(prevHash(tx, i));
    w.u32(tx.vin[i]!.vout);
    if (i === nIn) w.varBytes(code);
    else w.compact(0);
    w.u32(i !== nIn && (single || none) ? 0 : tx.vin[i]!.sequence);
  }
  const nOut = none ? 0 : single ? nIn + 1 : tx.vout.length;
  w.compact(nOut);
  for (let i = 0; i < nOut; i++) {
    if (single && i !== nIn) {
      w.i64(-1n);
      w.compact(0);
    } else output(w, tx.vout[i]!);
  }
  w.u32(tx.locktime);
  w.u32(hashType);
  return sha256d(w.out());
}

const ZERO32 = new Uint8Array(32);

/** BIP143 SignatureHash (SigVersion::WITNESS_V0). */
export function segwitV0Sighash(d: SighashData, nIn: number, scriptCode: Uint8Array, amount: bigint, hashType: number): Uint8Array {
  const tx = d.tx;
  const anyone = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const base = hashType & 0x1f;
  const w = new Buf();
  w.u32(tx.version);
  w.bytes(anyone ? ZERO32 : d.prevouts);
  w.bytes(!anyone && base !== SIGHASH_SINGLE && base !== SIGHASH_NONE ? d.sequences : ZERO32);
  w.bytes(prevHash(tx, nIn));
  w.u32(tx.vin[nIn]!.vout);
  w.varBytes(scriptCode);
  w.i64(amount);
  w.u32(tx.vin[nIn]!.sequence);
  if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) w.bytes(d.outputs);
  else if (base === SIGHASH_SINGLE && nIn < tx.vout.length) {
    const o = new Buf();
    output(o, tx.vout[nIn]!);
    w.bytes(sha256d(o.out()));
  } else w.bytes(ZERO32);
  w.u32(tx.locktime);
  w.u32(hashType);
  return sha256d(w.out());
}

/**
 * BIP341 SignatureHashSchnorr (no annex; for tapscript, no OP_CODESEPARATOR executed): null when
 * it cannot be computed — an unknown hash type, SIGHASH_SINGLE without its output, or a spent
 * output missing (Core's MissingDataBehavior::FAIL).
 */
export function taprootSighash(d: SighashData, nIn: number, hashType: number, leafHash: Uint8Array | null): Uint8Array | null {
  const t = d.taproot;
  if (!t || !d.spent) return null;
  if (!(hashType <= 0x03 || (hashType >= 0x81 && hashType <= 0x83))) return null;
  const tx = d.tx;
  const outType = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType & 0x03;
  const anyone = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  if (outType === SIGHASH_SINGLE && nIn >= tx.vout.length) return null;
  const w = new Buf();
  w.u8(0); // epoch
  w.u8(hashType);
  w.u32(tx.version);
  w.u32(tx.locktime);
  if (!anyone) {
    w.bytes(t.prevouts);
    w.bytes(t.amounts);
    w.bytes(t.scripts);
    w.bytes(t.sequences);
  }
  if (outType === SIGHASH_ALL) w.bytes(t.outputs);
  w.u8(leafHash ? 2 : 0); // ext_flag * 2, no annex
  if (anyone) {
    w.bytes(prevHash(tx, nIn));
    w.u32(tx.vin[nIn]!.vout);
    output(w, d.spent[nIn]!);
    w.u32(tx.vin[nIn]!.sequence);
  } else w.u32(nIn);
  if (outType === SIGHASH_SINGLE) {
    const o = new Buf();
    output(o, tx.vout[nIn]!);
    w.bytes(sha256(o.out()));
  }
  if (leafHash) {
    w.bytes(leafHash);
    w.u8(0); // key_version
    w.u32(0xffffffff); // codesep_pos
  }
  return schnorr.utils.taggedHash('TapSighash', w.out());
}

/** BIP341 tapleaf hash of a leaf script. */
export function tapLeafHash(script: Uint8Array, leafVersion: number): Uint8Array {
  const w = new Buf();
  w.u8(leafVersion);
  w.varBytes(script);
  return schnorr.utils.taggedHash('TapLeaf', w.out());
}
