/**
 * The per-input and per-output steps every PSBT role of Core shares (src/psbt.cpp): GetUTXO,
 * PrecomputePSBTData, PSBTInputSignedAndVerified, SignPSBTInput (without keys: it fills what the
 * provider knows, checks the sighash types, finalizes when the signatures are complete and
 * verify), UpdatePSBTOutput and RemoveUnnecessaryTransactions.
 */
import { witnessProgram } from '../script';
import type { Tx, TxOut } from '../tx';
import { TxChecker } from './checker';
import { verifyScript } from './interp';
import { DUMMY_CREATOR, keylessCreator, produceSignature, type Creator } from './produce';
import type { SolvingProvider } from './provider';
import { signingCreator, type KeySigner } from './signer';
import { SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_DEFAULT, SighashData } from './sighash';
import { applyToInput, applyToOutput, inputSigData, isFinalInput, outputSigData, type SigData } from './sigdata';
import { unsignedTxOf } from './serialize';
import type { Psbt, PsbtInput } from './types';

/** common::PSBTError. */
export type PsbtError = 'OK' | 'INCOMPLETE' | 'MISSING_INPUTS' | 'SIGHASH_MISMATCH' | 'INVALID_TX';

/** PSBTErrorString. */
export const PSBT_ERROR_TEXT: Record<Exclude<PsbtError, 'OK'>, string> = {
  INCOMPLETE: 'Input needs additional signatures or other data',
  MISSING_INPUTS: 'Inputs missing or spent',
  SIGHASH_MISMATCH: 'Specified sighash value does not match value stored in PSBT',
  INVALID_TX: 'The transaction cannot be valid',
};

/** The output a non_witness_utxo says the input spends; null when it is not that transaction or has no such output. */
function fromNonWitness(i: PsbtInput): TxOut | null {
  const nwu = i.nonWitnessUtxo!;
  if (i.vout >= nwu.vout.length || nwu.txid !== i.prevTxid) return null;
  return nwu.vout[i.vout]!;
}

/** PSBTInput::GetUTXO: the spent output (a non_witness_utxo must be the transaction spent). */
export function getUtxo(i: PsbtInput): TxOut | null {
  if (i.nonWitnessUtxo) return fromNonWitness(i);
  if (i.witnessUtxo && i.witnessUtxo.value !== -1n) return i.witnessUtxo;
  return null;
}

/** PrecomputePSBTData: null when the PSBT has no transaction (conflicting locktimes). */
export function precompute(p: Psbt): { tx: Tx; data: SighashData } | null {
  const tx = unsignedTxOf(p);
  if (!tx) return null;
  const spent: TxOut[] = [];
  let all = true;
  for (const i of p.inputs) {
    const u = getUtxo(i);
    if (u) spent.push(u);
    else all = false;
  }
  return { tx, data: new SighashData(tx, all ? spent : null) };
}

/** PSBTInputSignedAndVerified: the input is final and its final scripts verify. */
export function inputSignedAndVerified(p: Psbt, index: number, tx: Tx, data: SighashData | null): boolean {
  const i = p.inputs[index]!;
  let utxo: TxOut;
  if (i.nonWitnessUtxo) {
    const u = fromNonWitness(i);
    if (!u) return false;
    utxo = u;
  } else if (i.witnessUtxo && i.witnessUtxo.value !== -1n) utxo = i.witnessUtxo;
  else return false;
  const checker = new TxChecker(tx, index, utxo.value, data);
  return verifyScript(i.finalScriptSig ?? new Uint8Array(0), utxo.script, i.finalScriptWitness ?? [], checker) === null;
}

export interface SignInputOptions {
  /** The sighash type asked for (undefined: the PSBT's, else DEFAULT for taproot and ALL otherwise). */
  sighashType?: number;
  finalize: boolean;
  /** The keys to sign with (signer.ts; a node's wallet): without one, nothing new is signed. */
  signer?: KeySigner;
}

const isTaproot = (s: Uint8Array): boolean => s.length === 34 && s[0] === 0x51 && s[1] === 0x20;

/**
 * SignPSBTInput without private keys. `data` null stands for Core's call without precomputed
 * data, which signs with the dummy signature creator (analyzepsbt's size estimate). `out`
 * receives what is missing.
 */
export function signPsbtInput(provider: SolvingProvider, p: Psbt, index: number, pre: { tx: Tx; data: SighashData | null }, opts: SignInputOptions, out?: SigData): PsbtError {
  const input = p.inputs[index]!;
  const { tx, data } = pre;
  if (inputSignedAndVerified(p, index, tx, data)) return 'OK';
  const sd = inputSigData(input);
  let utxo: TxOut;
  let requireWitnessSig = false;
  if (input.nonWitnessUtxo) {
    const u = fromNonWitness(input);
    if (!u) return 'MISSING_INPUTS';
    utxo = u;
  } else if (input.witnessUtxo && input.witnessUtxo.value !== -1n) {
    utxo = input.witnessUtxo;
    requireWitnessSig = true;
  } else return 'MISSING_INPUTS';

  const taproot = isTaproot(utxo.script);
  const sighash = opts.sighashType ?? (taproot ? SIGHASH_DEFAULT : SIGHASH_ALL);
  if (input.sighash !== undefined && input.sighash !== sighash) return 'SIGHASH_MISMATCH';
  if (taproot ? sighash !== SIGHASH_DEFAULT : sighash !== SIGHASH_DEFAULT && sighash !== SIGHASH_ALL) input.sighash = sighash;
  const keySig = input.tapKeySig && input.tapKeySig.length > 0 ? input.tapKeySig : null;
  if (sighash === SIGHASH_DEFAULT) {
    if (keySig && keySig.length !== 64) return 'SIGHASH_MISMATCH';
    for (const s of input.tapScriptSigs.values()) if (s.sig.length !== 64) return 'SIGHASH_MISMATCH';
  } else {
    if (keySig && (keySig.length !== 65 || keySig[64] !== sighash)) return 'SIGHASH_MISMATCH';
    for (const s of input.tapScriptSigs.values()) if (s.sig.length !== 65 || s.sig[64] !== sighash) return 'SIGHASH_MISMATCH';
    for (const s of input.partialSigs.values()) if (s.sig[s.sig.length - 1] !== sighash) return 'SIGHASH_MISMATCH';
  }

  sd.witness = false;
  const checker = data ? new TxChecker(tx, index, utxo.value, data) : null;
  const creator: Creator = checker ? (opts.signer ? signingCreator(checker, opts.signer, sighash) : keylessCreator(checker, sighash)) : DUMMY_CREATOR;
  const complete = produceSignature(provider, creator, utxo.script, sd);
  if (requireWitnessSig && !sd.witness) return 'INCOMPLETE';
  if (!opts.finalize && sd.complete) sd.complete = false;
  applyToInput(input, sd);
  if (sd.witness) input.witnessUtxo = utxo;
  if (out) {
    out.missingPubkeys = sd.missingPubkeys;
    out.missingSigs = sd.missingSigs;
    out.missingRedeemScript = sd.missingRedeemScript;
    out.missingWitnessScript = sd.missingWitnessScript;
    if (sd.miniscript) out.miniscript = sd.miniscript;
    out.musigNotes = sd.musigNotes;
  }
  return complete ? 'OK' : 'INCOMPLETE';
}

/** UpdatePSBTOutput: the output's scripts and key paths from what the provider knows. */
export function updatePsbtOutput(provider: SolvingProvider, p: Psbt, index: number): void {
  const tx = unsignedTxOf(p);
  if (!tx) return;
  const o = p.outputs[index]!;
  const sd = outputSigData(o);
  produceSignature(provider, keylessCreator(new TxChecker(tx, 0, o.value, null)), o.script, sd);
  applyToOutput(o, sd);
}

/** RemoveUnnecessaryTransactions: drop every non_witness_utxo when all inputs are segwit v1+ without ANYONECANPAY. */
export function removeUnnecessaryTransactions(p: Psbt): void {
  const drop: PsbtInput[] = [];
  for (const i of p.inputs) {
    const wp = i.witnessUtxo && i.witnessUtxo.value !== -1n ? witnessProgram(i.witnessUtxo.script) : null;
    if (!wp || wp.version === 0) return;
    if (i.sighash !== undefined && (i.sighash & 0x80) === SIGHASH_ANYONECANPAY) return;
    if (i.nonWitnessUtxo) drop.push(i);
  }
  for (const i of drop) {
    delete i.nonWitnessUtxo;
    delete i.nonWitnessUtxoBytes;
  }
}

export { isFinalInput };
