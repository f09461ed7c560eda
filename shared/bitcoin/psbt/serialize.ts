/**
 * Writing the model as Bitcoin Core writes a PSBT (PartiallySignedTransaction / PSBTInput /
 * PSBTOutput::Serialize, src/psbt.h): its key order (std::map / std::set order within a type), its
 * value encodings, and what it leaves out — empty scripts, a null witness_utxo (amount -1), zero
 * taproot keys, the version key of a version 0 PSBT, and the signing data of a finalized input
 * (partial signatures, sighash, scripts, derivations, preimages, taproot and MuSig2 fields).
 */
import { fromHex } from '../hex';
import { compactSizeLen, serializeTx, type Tx } from '../tx';
import { GLOBAL, IN, OUT } from './keys';
import { cmpStr, isNull, sortedValues } from './json-parts';
import type { KeyOrigin, MusigDatum, MusigParticipants, Proprietary, Psbt, PsbtInput, PsbtOutput, TapBip32 } from './types';

/** A growable little-endian byte writer. */
class Writer {
  buf = new Uint8Array(1 << 12);
  pos = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.pos));
    this.buf = b;
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v & 0xff;
  }
  u32(v: number): void {
    this.room(4);
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
    } else {
      this.u8(254);
      this.u32(n);
    }
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  varBytes(b: Uint8Array): void {
    this.compactSize(b.length);
    this.bytes(b);
  }
  /** A key: its length, its type, its data. */
  key(type: number, ...data: Uint8Array[]): void {
    this.compactSize(1 + data.reduce((a, d) => a + d.length, 0));
    this.u8(type);
    for (const d of data) this.bytes(d);
  }
  /** SerializeToVector of a uint32 value. */
  u32Value(v: number): void {
    this.u8(4);
    this.u32(v);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

const EMPTY = new Uint8Array(0);

/** GetUnsignedTx: the transaction the PSBT describes (no scriptSigs or witnesses); null when its locktime cannot be computed. */
export function unsignedTxOf(p: Psbt): Tx | null {
  if (p.locktime === null) return null;
  return {
    version: p.txVersion,
    locktime: p.locktime,
    vin: p.inputs.map((i) => ({ prevTxid: i.prevTxid, prevHash: i.prevHash, vout: i.vout, scriptSig: EMPTY, sequence: i.sequence, witness: [] })),
    vout: p.outputs.map((o) => ({ value: o.value, script: o.script })),
  };
}

/** SerializeHDKeypath: the origin as a length-prefixed value. */
function origin(w: Writer, o: KeyOrigin): void {
  w.compactSize((o.path.length + 1) * 4);
  w.bytes(o.fp);
  for (const step of o.path) w.u32(step);
}

function keypaths(w: Writer, type: number, paths: Map<string, KeyOrigin>): void {
  for (const pub of [...paths.keys()].sort(cmpStr)) {
    w.key(type, fromHex(pub));
    origin(w, paths.get(pub)!);
  }
}

function tapBip32(w: Writer, type: number, paths: Map<string, TapBip32>): void {
  for (const x of [...paths.keys()].sort(cmpStr)) {
    const v = paths.get(x)!;
    w.key(type, fromHex(x));
    const len = compactSizeLen(v.leafHashes.length) + 32 * v.leafHashes.length + 4 + 4 * v.origin.path.length;
    w.compactSize(len);
    w.compactSize(v.leafHashes.length);
    for (const h of v.leafHashes) w.bytes(fromHex(h));
    w.bytes(v.origin.fp);
    for (const step of v.origin.path) w.u32(step);
  }
}

function musigParticipants(w: Writer, type: number, m: Map<string, MusigParticipants>): void {
  for (const e of sortedValues(m)) {
    w.key(type, fromHex(e.agg));
    w.varBytes(fromHex(e.parts.join('')));
  }
}

function musigData(w: Writer, type: number, m: Map<string, MusigDatum>, fixed: boolean): void {
  for (const d of sortedValues(m)) {
    if (d.part === '' || d.agg === '') throw new RangeError('a MuSig2 key that is not a valid point (kept by Core v30 rules) cannot be written');
    const leaf = d.leaf === '00'.repeat(32) ? EMPTY : fromHex(d.leaf);
    w.key(type, fromHex(d.part), fromHex(d.agg), leaf);
    const v = fromHex(d.value);
    if (fixed) {
      w.compactSize(32);
      w.bytes(v);
    } else w.varBytes(v);
  }
}

function propsAndUnknown(w: Writer, props: Map<string, Proprietary>, unknown: Map<string, Uint8Array> | null): void {
  for (const p of sortedValues(props)) {
    w.varBytes(p.key);
    w.varBytes(p.value);
  }
  if (unknown) unknownFields(w, unknown);
}

function unknownFields(w: Writer, unknown: Map<string, Uint8Array>): void {
  for (const k of [...unknown.keys()].sort(cmpStr)) {
    w.varBytes(fromHex(k));
    w.varBytes(unknown.get(k)!);
  }
}

function preimages(w: Writer, type: number, m: Map<string, Uint8Array>): void {
  for (const h of [...m.keys()].sort(cmpStr)) {
    w.key(type, fromHex(h));
    w.varBytes(m.get(h)!);
  }
}

/** The signing data Core writes only while an input is not finalized. */
function signingData(w: Writer, i: PsbtInput): void {
  for (const e of sortedValues(i.partialSigs)) {
    w.key(IN.PARTIAL_SIG, e.pubkey);
    w.varBytes(e.sig);
  }
  if (i.sighash !== undefined) {
    w.key(IN.SIGHASH);
    w.u32Value(i.sighash >>> 0);
  }
  if (i.redeemScript && i.redeemScript.length > 0) {
    w.key(IN.REDEEM_SCRIPT);
    w.varBytes(i.redeemScript);
  }
  if (i.witnessScript && i.witnessScript.length > 0) {
    w.key(IN.WITNESS_SCRIPT);
    w.varBytes(i.witnessScript);
  }
  keypaths(w, IN.BIP32_DERIVATION, i.hdKeypaths);
  preimages(w, IN.RIPEMD160, i.ripemd160);
  preimages(w, IN.SHA256, i.sha256);
  preimages(w, IN.HASH160, i.hash160);
  preimages(w, IN.HASH256, i.hash256);
  if (i.tapKeySig && i.tapKeySig.length > 0) {
    w.key(IN.TAP_KEY_SIG);
    w.varBytes(i.tapKeySig);
  }
  for (const k of [...i.tapScriptSigs.keys()].sort(cmpStr)) {
    w.key(IN.TAP_SCRIPT_SIG, fromHex(k));
    w.varBytes(i.tapScriptSigs.get(k)!.sig);
  }
  const leaves = [...i.tapScripts.values()].sort((a, b) => cmpStr(a.scriptHex, b.scriptHex) || a.ver - b.ver);
  for (const leaf of leaves) {
    const controls = [...leaf.controls.entries()].sort((a, b) => a[1].length - b[1].length || cmpStr(a[0], b[0]));
    for (const [, cb] of controls) {
      w.key(IN.TAP_LEAF_SCRIPT, cb);
      w.compactSize(leaf.script.length + 1);
      w.bytes(leaf.script);
      w.u8(leaf.ver);
    }
  }
  tapBip32(w, IN.TAP_BIP32_DERIVATION, i.tapBip32);
  if (!isNull(i.tapInternalKey)) {
    w.key(IN.TAP_INTERNAL_KEY);
    w.varBytes(i.tapInternalKey!);
  }
  if (!isNull(i.tapMerkleRoot)) {
    w.key(IN.TAP_MERKLE_ROOT);
    w.varBytes(i.tapMerkleRoot!);
  }
  musigParticipants(w, IN.MUSIG2_PARTICIPANT_PUBKEYS, i.musigParticipants);
  musigData(w, IN.MUSIG2_PUB_NONCE, i.musigPubnonces, false);
  musigData(w, IN.MUSIG2_PARTIAL_SIG, i.musigPartialSigs, true);
}

function input(w: Writer, i: PsbtInput, version: number): void {
  if (i.nonWitnessUtxo) {
    w.key(IN.NON_WITNESS_UTXO);
    // TX_NO_WITNESS: the bytes as read unless they carried a witness.
    w.varBytes(i.nonWitnessUtxo.hasWitness || !i.nonWitnessUtxoBytes ? serializeTx(i.nonWitnessUtxo, { witness: false }) : i.nonWitnessUtxoBytes);
  }
  if (i.witnessUtxo && i.witnessUtxo.value !== -1n) {
    w.key(IN.WITNESS_UTXO);
    w.compactSize(8 + compactSizeLen(i.witnessUtxo.script.length) + i.witnessUtxo.script.length);
    w.i64(i.witnessUtxo.value);
    w.varBytes(i.witnessUtxo.script);
  }
  const finalSig = i.finalScriptSig && i.finalScriptSig.length > 0 ? i.finalScriptSig : undefined;
  const finalWitness = i.finalScriptWitness && i.finalScriptWitness.length > 0 ? i.finalScriptWitness : undefined;
  if (!finalSig && !finalWitness) signingData(w, i);
  if (finalSig) {
    w.key(IN.FINAL_SCRIPTSIG);
    w.varBytes(finalSig);
  }
  if (finalWitness) {
    w.key(IN.FINAL_SCRIPTWITNESS);
    let len = compactSizeLen(finalWitness.length);
    for (const item of finalWitness) len += compactSizeLen(item.length) + item.length;
    w.compactSize(len);
    w.compactSize(finalWitness.length);
    for (const item of finalWitness) w.varBytes(item);
  }
  if (version >= 2) {
    w.key(IN.PREVIOUS_TXID);
    w.varBytes(i.prevHash);
    w.key(IN.OUTPUT_INDEX);
    w.u32Value(i.vout);
    if (i.hasSequence) {
      w.key(IN.SEQUENCE);
      w.u32Value(i.sequence);
    }
    if (i.timeLocktime !== undefined) {
      w.key(IN.REQUIRED_TIME_LOCKTIME);
      w.u32Value(i.timeLocktime);
    }
    if (i.heightLocktime !== undefined) {
      w.key(IN.REQUIRED_HEIGHT_LOCKTIME);
      w.u32Value(i.heightLocktime);
    }
  }
  propsAndUnknown(w, i.proprietary, i.unknown);
  w.u8(0);
}

function output(w: Writer, o: PsbtOutput, version: number): void {
  if (o.redeemScript && o.redeemScript.length > 0) {
    w.key(OUT.REDEEM_SCRIPT);
    w.varBytes(o.redeemScript);
  }
  if (o.witnessScript && o.witnessScript.length > 0) {
    w.key(OUT.WITNESS_SCRIPT);
    w.varBytes(o.witnessScript);
  }
  keypaths(w, OUT.BIP32_DERIVATION, o.hdKeypaths);
  if (version >= 2) {
    w.key(OUT.AMOUNT);
    w.u8(8);
    w.i64(o.value);
    w.key(OUT.SCRIPT);
    w.varBytes(o.script);
  }
  // Core writes an output's proprietary fields before its taproot and MuSig2 fields.
  propsAndUnknown(w, o.proprietary, null);
  if (!isNull(o.tapInternalKey)) {
    w.key(OUT.TAP_INTERNAL_KEY);
    w.varBytes(o.tapInternalKey!);
  }
  if (o.tapTree.length > 0) {
    w.key(OUT.TAP_TREE);
    let len = 0;
    for (const l of o.tapTree) len += 2 + compactSizeLen(l.script.length) + l.script.length;
    w.compactSize(len);
    for (const l of o.tapTree) {
      w.u8(l.depth);
      w.u8(l.ver);
      w.varBytes(l.script);
    }
  }
  tapBip32(w, OUT.TAP_BIP32_DERIVATION, o.tapBip32);
  musigParticipants(w, OUT.MUSIG2_PARTICIPANT_PUBKEYS, o.musigParticipants);
  unknownFields(w, o.unknown);
  w.u8(0);
}

/**
 * The PSBT's bytes as Core writes them (at the model's version). Throws a RangeError for a v0
 * model whose transaction cannot be built (see unsignedTxOf); a model read from bytes never is one.
 */
export function serializePsbt(p: Psbt): Uint8Array {
  const w = new Writer();
  w.bytes(Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff));
  if (p.version < 2) {
    const tx = unsignedTxOf(p);
    if (!tx) throw new RangeError('a version 0 PSBT needs a transaction: its inputs require both a time and a height locktime');
    w.key(GLOBAL.UNSIGNED_TX);
    w.varBytes(serializeTx(tx, { witness: false }));
  }
  for (const ok of [...p.xpubs.keys()].sort(cmpStr)) {
    const e = p.xpubs.get(ok)!;
    for (const x of [...e.xpubs].sort((a, b) => cmpStr(a.sort, b.sort))) {
      w.key(GLOBAL.XPUB, x.key);
      origin(w, e.origin);
    }
  }
  if (p.version >= 2) {
    w.key(GLOBAL.TX_VERSION);
    w.u32Value(p.txVersion);
    if (p.fallbackLocktime !== undefined) {
      w.key(GLOBAL.FALLBACK_LOCKTIME);
      w.u32Value(p.fallbackLocktime);
    }
    w.key(GLOBAL.INPUT_COUNT);
    w.compactSize(compactSizeLen(p.inputs.length));
    w.compactSize(p.inputs.length);
    w.key(GLOBAL.OUTPUT_COUNT);
    w.compactSize(compactSizeLen(p.outputs.length));
    w.compactSize(p.outputs.length);
    if (p.txModifiable !== undefined) {
      w.key(GLOBAL.TX_MODIFIABLE);
      w.u8(1);
      w.u8(p.txModifiable);
    }
  }
  if (p.version > 0) {
    w.key(GLOBAL.VERSION);
    w.u32Value(p.version);
  }
  propsAndUnknown(w, p.proprietary, p.unknown);
  w.u8(0);
  for (const i of p.inputs) input(w, i, p.version);
  for (const o of p.outputs) output(w, o, p.version);
  return w.result();
}
