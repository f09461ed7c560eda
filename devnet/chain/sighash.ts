/**
 * Core's signature hashes (script/interpreter.cpp SignatureHash, SignatureHashSchnorr): the legacy
 * one (with its SIGHASH_SINGLE "one" quirk and the scriptCode as given), BIP143's for segwit v0 and
 * BIP341's for taproot key path spends (annex included, no script path).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { sha256d } from '../../shared/bitcoin/tx';
import type { ChainTx, ChainTxOut } from './types';
import { hexToHash } from './encoding';

export const SIGHASH_ALL = 1;
export const SIGHASH_NONE = 2;
export const SIGHASH_SINGLE = 3;
export const SIGHASH_ANYONECANPAY = 0x80;
export const SIGHASH_DEFAULT = 0;

const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
};
const i64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n, true);
  return b;
};
function compact(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return concatBytes(Uint8Array.of(0xfe), u32(n));
}
const varBytes = (b: Uint8Array): Uint8Array => concatBytes(compact(b.length), b);
const outpoint = (txid: string, vout: number): Uint8Array => concatBytes(hexToHash(txid), u32(vout));
const output = (o: ChainTxOut): Uint8Array => concatBytes(i64(o.value), varBytes(o.script));

/** The legacy signature hash (SIGVERSION_BASE); scriptCode has had OP_CODESEPARATORs and the signature removed by the caller. */
export function legacySighash(tx: ChainTx, nIn: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
  const base = hashType & 0x1f;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  // SIGHASH_SINGLE without a matching output signs the number one (a bug kept by consensus).
  if (base === SIGHASH_SINGLE && nIn >= tx.vout.length) {
    const one = new Uint8Array(32);
    one[0] = 1;
    return one;
  }
  // OP_CODESEPARATORs are dropped from the scriptCode (CTransactionSignatureSerializer).
  const code = removeCodeSeparators(scriptCode);
  const parts: Uint8Array[] = [u32(tx.version)];
  const inputs = anyoneCanPay ? [nIn] : tx.vin.map((_, i) => i);
  parts.push(compact(inputs.length));
  for (const i of inputs) {
    const input = tx.vin[i]!;
    parts.push(outpoint(input.txid, input.vout));
    parts.push(i === nIn ? varBytes(code) : Uint8Array.of(0));
    const zeroSeq = i !== nIn && (base === SIGHASH_NONE || base === SIGHASH_SINGLE);
    parts.push(u32(zeroSeq ? 0 : input.sequence));
  }
  const nOut = base === SIGHASH_NONE ? 0 : base === SIGHASH_SINGLE ? nIn + 1 : tx.vout.length;
  parts.push(compact(nOut));
  for (let o = 0; o < nOut; o++) {
    if (base === SIGHASH_SINGLE && o !== nIn) parts.push(i64(-1n), Uint8Array.of(0));
    else parts.push(output(tx.vout[o]!));
  }
  parts.push(u32(tx.locktime), u32(hashType));
  return sha256d(concatBytes(...parts));
}

/** The script without its OP_CODESEPARATOR opcodes (pushes kept whole). */
function removeCodeSeparators(script: Uint8Array): Uint8Array {
  const out: number[] = [];
  let pc = 0;
  while (pc < script.length) {
    const op = script[pc]!;
    let len = 1;
    if (op > 0 && op < 0x4c) len = 1 + op;
    else if (op === 0x4c) len = 2 + (script[pc + 1] ?? 0);
    else if (op === 0x4d) len = 3 + ((script[pc + 1] ?? 0) | ((script[pc + 2] ?? 0) << 8));
    else if (op === 0x4e) len = 5 + new DataView(script.buffer, script.byteOffset + Math.min(pc + 1, script.length - 1)).getUint32(0, true);
    if (op !== 0xab) for (let k = pc; k < Math.min(pc + len, script.length); k++) out.push(script[k]!);
    pc += len;
  }
  return Uint8Array.from(out);
}

/** BIP143 (SIGVERSION_WITNESS_V0). */
export function segwitV0Sighash(tx: ChainTx, nIn: number, scriptCode: Uint8Array, amount: bigint, hashType: number): Uint8Array {
  const base = hashType & 0x1f;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const zero = new Uint8Array(32);
  const hashPrevouts = anyoneCanPay ? zero : sha256d(concatBytes(...tx.vin.map((i) => outpoint(i.txid, i.vout))));
  const hashSequence = anyoneCanPay || base === SIGHASH_SINGLE || base === SIGHASH_NONE ? zero : sha256d(concatBytes(...tx.vin.map((i) => u32(i.sequence))));
  let hashOutputs: Uint8Array = zero;
  if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) hashOutputs = sha256d(concatBytes(...tx.vout.map(output)));
  else if (base === SIGHASH_SINGLE && nIn < tx.vout.length) hashOutputs = sha256d(output(tx.vout[nIn]!));
  const input = tx.vin[nIn]!;
  return sha256d(
    concatBytes(u32(tx.version), hashPrevouts, hashSequence, outpoint(input.txid, input.vout), varBytes(scriptCode), i64(amount), u32(input.sequence), hashOutputs, u32(tx.locktime), u32(hashType)),
  );
}

function taggedHash(tag: string, msg: Uint8Array): Uint8Array {
  const t = sha256(new TextEncoder().encode(tag));
  return sha256(concatBytes(t, t, msg));
}

/**
 * BIP341 for a key path spend (ext_flag 0): null when the hash type is not a valid one, or
 * SIGHASH_SINGLE has no matching output (Core then fails with SCHNORR_SIG_HASHTYPE).
 */
export function taprootKeySighash(tx: ChainTx, nIn: number, spent: readonly ChainTxOut[], hashType: number, annex: Uint8Array | null): Uint8Array | null {
  if (!(hashType <= 0x03 || (hashType >= 0x81 && hashType <= 0x83))) return null;
  const outType = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType & 0x03;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const parts: Uint8Array[] = [Uint8Array.of(0), Uint8Array.of(hashType), u32(tx.version), u32(tx.locktime)];
  if (!anyoneCanPay) {
    parts.push(sha256(concatBytes(...tx.vin.map((i) => outpoint(i.txid, i.vout)))));
    parts.push(sha256(concatBytes(...spent.map((o) => i64(o.value)))));
    parts.push(sha256(concatBytes(...spent.map((o) => varBytes(o.script)))));
    parts.push(sha256(concatBytes(...tx.vin.map((i) => u32(i.sequence)))));
  }
  if (outType === SIGHASH_ALL) parts.push(sha256(concatBytes(...tx.vout.map(output))));
  parts.push(Uint8Array.of(annex ? 1 : 0));
  const input = tx.vin[nIn]!;
  if (anyoneCanPay) parts.push(outpoint(input.txid, input.vout), output(spent[nIn]!), u32(input.sequence));
  else parts.push(u32(nIn));
  if (annex) parts.push(sha256(varBytes(annex)));
  if (outType === SIGHASH_SINGLE) {
    if (nIn >= tx.vout.length) return null;
    parts.push(sha256(output(tx.vout[nIn]!)));
  }
  return taggedHash('TapSighash', concatBytes(...parts));
}
