/**
 * The combiner: Core's combinepsbt (CombinePSBTs, PartiallySignedTransaction/PSBTInput/
 * PSBTOutput::Merge, src/psbt.cpp). PSBTs of the same transaction (same GetUniqueID: the unsigned
 * transaction's txid, with version 2 sequences zeroed) and version merge field by field; a field
 * the first PSBT already has is kept (std::map::insert), set fields are united.
 */
import { serializeTx, sha256d, hexReversed } from '../tx';
import { decodeBase64Core, encodeBase64 } from './base64';
import { convertPsbt } from './convert';
import { editablePsbt } from './edit';
import type { CoreVersionOption } from './generation';
import { isNull } from './json-parts';
import { computeLocktime, parsePsbt } from './model';
import { serializePsbt, unsignedTxOf } from './serialize';
import type { Psbt, PsbtInput, PsbtOutput } from './types';

/** GetUniqueID: null when the PSBT has no transaction (conflicting locktimes). */
export function uniqueId(p: Psbt): string | null {
  const tx = unsignedTxOf(p);
  if (!tx) return null;
  if (p.version >= 2) tx.vin = tx.vin.map((i) => ({ ...i, sequence: 0 }));
  return hexReversed(sha256d(serializeTx(tx, { witness: false })));
}

/** std::map::insert of every entry of `from` whose key `into` lacks. */
function insertAll<V>(into: Map<string, V>, from: ReadonlyMap<string, V>): void {
  for (const [k, v] of from) if (!into.has(k)) into.set(k, v);
}

const empty = (b: Uint8Array | undefined): boolean => !b || b.length === 0;

function mergeInput(a: PsbtInput, b: PsbtInput): void {
  if (!a.nonWitnessUtxo && b.nonWitnessUtxo) {
    a.nonWitnessUtxo = b.nonWitnessUtxo;
    a.nonWitnessUtxoBytes = b.nonWitnessUtxoBytes;
  }
  if ((!a.witnessUtxo || a.witnessUtxo.value === -1n) && b.witnessUtxo && b.witnessUtxo.value !== -1n) a.witnessUtxo = b.witnessUtxo;
  insertAll(a.partialSigs, b.partialSigs);
  insertAll(a.ripemd160, b.ripemd160);
  insertAll(a.sha256, b.sha256);
  insertAll(a.hash160, b.hash160);
  insertAll(a.hash256, b.hash256);
  insertAll(a.hdKeypaths, b.hdKeypaths);
  insertAll(a.proprietary, b.proprietary);
  insertAll(a.unknown, b.unknown);
  insertAll(a.tapScriptSigs, b.tapScriptSigs);
  insertAll(a.tapScripts, b.tapScripts);
  insertAll(a.tapBip32, b.tapBip32);
  if (empty(a.redeemScript) && !empty(b.redeemScript)) a.redeemScript = b.redeemScript;
  if (empty(a.witnessScript) && !empty(b.witnessScript)) a.witnessScript = b.witnessScript;
  if (empty(a.finalScriptSig) && !empty(b.finalScriptSig)) a.finalScriptSig = b.finalScriptSig;
  if ((!a.finalScriptWitness || a.finalScriptWitness.length === 0) && b.finalScriptWitness && b.finalScriptWitness.length > 0) {
    a.finalScriptWitness = b.finalScriptWitness;
  }
  if (empty(a.tapKeySig) && !empty(b.tapKeySig)) a.tapKeySig = b.tapKeySig;
  if (isNull(a.tapInternalKey) && !isNull(b.tapInternalKey)) a.tapInternalKey = b.tapInternalKey;
  if (isNull(a.tapMerkleRoot) && !isNull(b.tapMerkleRoot)) a.tapMerkleRoot = b.tapMerkleRoot;
  insertAll(a.musigParticipants, b.musigParticipants);
  insertAll(a.musigPubnonces, b.musigPubnonces);
  insertAll(a.musigPartialSigs, b.musigPartialSigs);
  if (!a.hasSequence && b.hasSequence) {
    a.hasSequence = true;
    a.sequence = b.sequence;
  }
  if (a.timeLocktime === undefined && b.timeLocktime !== undefined) a.timeLocktime = b.timeLocktime;
  if (a.heightLocktime === undefined && b.heightLocktime !== undefined) a.heightLocktime = b.heightLocktime;
}

function mergeOutput(a: PsbtOutput, b: PsbtOutput): void {
  insertAll(a.hdKeypaths, b.hdKeypaths);
  insertAll(a.proprietary, b.proprietary);
  insertAll(a.unknown, b.unknown);
  insertAll(a.tapBip32, b.tapBip32);
  if (empty(a.redeemScript) && !empty(b.redeemScript)) a.redeemScript = b.redeemScript;
  if (empty(a.witnessScript) && !empty(b.witnessScript)) a.witnessScript = b.witnessScript;
  if (isNull(a.tapInternalKey) && !isNull(b.tapInternalKey)) a.tapInternalKey = b.tapInternalKey;
  if (a.tapTree.length === 0 && b.tapTree.length > 0) a.tapTree = b.tapTree;
  insertAll(a.musigParticipants, b.musigParticipants);
}

/** PartiallySignedTransaction::Merge into `a` (an editable copy); false for different transactions or versions. */
function merge(a: Psbt, b: Psbt): boolean {
  const ida = uniqueId(a);
  const idb = uniqueId(b);
  if (ida === null || idb === null || ida !== idb) return false;
  if (a.version !== b.version) return false;
  a.inputs.forEach((inp, i) => mergeInput(inp, b.inputs[i]!));
  a.outputs.forEach((out, i) => mergeOutput(out, b.outputs[i]!));
  for (const [k, e] of b.xpubs) {
    const mine = a.xpubs.get(k);
    if (!mine) a.xpubs.set(k, { origin: e.origin, xpubs: [...e.xpubs] });
    else for (const x of e.xpubs) if (!mine.xpubs.some((y) => y.sort === x.sort)) mine.xpubs.push(x);
  }
  if (a.fallbackLocktime === undefined && b.fallbackLocktime !== undefined) a.fallbackLocktime = b.fallbackLocktime;
  if (a.txModifiable !== undefined || b.txModifiable !== undefined) {
    const x = a.txModifiable ?? 0;
    const y = b.txModifiable ?? 0;
    a.txModifiable = (x & y & ~4) | ((x | y) & 4);
  }
  insertAll(a.proprietary, b.proprietary);
  insertAll(a.unknown, b.unknown);
  a.locktime = computeLocktime(a);
  return true;
}

export type CombineResult = { ok: true; psbt: Psbt } | { ok: false; code: number; error: string };

export interface CombineOptions {
  /**
   * Core refuses to combine a version 0 and a version 2 PSBT of the same transaction ("PSBTs not
   * compatible"). `convert: true` first converts every PSBT to the first one's version (losslessly,
   * convert.ts), so a cosigner answering in the other version still combines. Default false: Core.
   */
  convert?: boolean;
}

/** CombinePSBTs: the first PSBT with every other merged in, or Core's combinepsbt error. */
export function combinePsbts(psbts: readonly Psbt[], opts: CombineOptions = {}): CombineResult {
  if (psbts.length === 0) return { ok: false, code: -8, error: "Parameter 'txs' cannot be empty" };
  const out = editablePsbt(psbts[0]!);
  for (const [k, p0] of psbts.slice(1).entries()) {
    let p = p0;
    if (opts.convert && p.version !== out.version) {
      const c = convertPsbt(p, out.version);
      if (!c.ok) return { ok: false, code: -8, error: `PSBT ${k + 1} cannot be converted to version ${out.version}: ${c.message}` };
      p = c.psbt;
    }
    if (!merge(out, p)) return { ok: false, code: -8, error: 'PSBTs not compatible (different transactions)' };
  }
  return { ok: true, psbt: out };
}

export type CombineBase64Result = { ok: true; psbt: string } | { ok: false; code: number; error: string };

/** combinepsbt: base64 PSBTs in, the combined PSBT's base64 out, Core's errors as data. */
export function combinePsbtsBase64(psbts: readonly string[], opts: CoreVersionOption & CombineOptions = {}): CombineBase64Result {
  const parsed: Psbt[] = [];
  for (const text of psbts) {
    const bytes = decodeBase64Core(text);
    if (!bytes) return { ok: false, code: -22, error: 'TX decode failed invalid base64' };
    const r = parsePsbt(bytes, opts);
    if (!r.ok) return { ok: false, code: -22, error: r.message };
    parsed.push(r.psbt);
  }
  const r = combinePsbts(parsed, opts);
  return r.ok ? { ok: true, psbt: encodeBase64(serializePsbt(r.psbt)) } : r;
}
