/**
 * decodepsbt's result written straight to JSON text (what writeJson(psbtToUniv(p)) gives, byte
 * for byte): the hot fields (transactions, witness UTXOs, key paths, keys, v2 outpoints and
 * outputs) are emitted directly, without an intermediate object tree; a previous transaction
 * spent by several inputs is written once.
 */
import { decodeRawTransactionJson, type ScriptUnivCache } from '../decode';
import type { Network } from '../networks';
import { scriptToAsm, sighashToStr } from '../script';
import type { ParsedTx } from '../tx';
import {
  FeeSum,
  fastWriteJson,
  globalXpubsUniv,
  isNull,
  musigDataUniv,
  musigParticipantsUniv,
  preimagesUniv,
  propUniv,
  scriptUniv,
  sortedValues,
  stringifyJson,
  tapScriptsUniv,
  unknownUniv,
} from './json-parts';
import { TextOut, put, putUint, writeBtc, writeHexArray, writeKeypaths, writeTapKeypaths } from './text-out';
import { writeSpk, writeTx } from './text-tx';
import type { Psbt, PsbtInput, PsbtOutput } from './types';

/** The v2 globals: tx_version … has_sighash_single. */
function writeV2Globals(w: TextOut, p: Psbt): void {
  w.text(',"tx_version":');
  w.num(p.txVersion);
  if (p.fallbackLocktime !== undefined) {
    w.text(',"fallback_locktime":');
    w.num(p.fallbackLocktime);
  }
  w.text(',"input_count":');
  w.num(p.inputs.length);
  w.text(',"output_count":');
  w.num(p.outputs.length);
  if (p.txModifiable !== undefined) {
    const m = p.txModifiable;
    w.text(`,"inputs_modifiable":${(m & 1) !== 0},"outputs_modifiable":${(m & 2) !== 0},"has_sighash_single":${(m & 4) !== 0}`);
  }
}

interface TextCtx {
  network: Network;
  spk: Map<string, string>;
  univCache: ScriptUnivCache;
  utxoText: Map<ParsedTx, string>;
}

function writeInput(w: TextOut, p: Psbt, input: PsbtInput, t: TextCtx): void {
  const network = t.network;
  if (input.witnessUtxo && input.witnessUtxo.value !== -1n) {
    w.key('"witness_utxo":{"amount":');
    writeBtc(w, input.witnessUtxo.value);
    w.text(',"scriptPubKey":');
    writeSpk(w, input.witnessUtxo.script, network, t.spk);
    w.text('}');
  }
  if (input.nonWitnessUtxo) {
    const nwu = input.nonWitnessUtxo;
    let j = t.utxoText.get(nwu);
    if (j === undefined) {
      j = stringifyJson(decodeRawTransactionJson(nwu, network, t.univCache));
      t.utxoText.set(nwu, j);
    }
    w.key('"non_witness_utxo":');
    w.text(j);
  }
  if (input.partialSigs.size > 0) {
    w.key('"partial_signatures":{');
    let first = true;
    for (const e of sortedValues(input.partialSigs)) {
      if (!first) w.text(',');
      first = false;
      w.qhex(e.pubkey);
      w.text(':');
      w.qhex(e.sig);
    }
    w.text('}');
  }
  if (input.sighash !== undefined) {
    w.key('"sighash":');
    w.text(fastWriteJson(sighashToStr(input.sighash & 0xff)));
  }
  if (input.redeemScript && input.redeemScript.length > 0) {
    w.key('"redeem_script":');
    w.text(fastWriteJson(scriptUniv(input.redeemScript, network)));
  }
  if (input.witnessScript && input.witnessScript.length > 0) {
    w.key('"witness_script":');
    w.text(fastWriteJson(scriptUniv(input.witnessScript, network)));
  }
  if (input.hdKeypaths.size > 0) {
    w.key('"bip32_derivs":');
    writeKeypaths(w, input.hdKeypaths);
  }
  if (input.finalScriptSig && input.finalScriptSig.length > 0) {
    w.key('"final_scriptSig":{"asm":');
    w.text(fastWriteJson(scriptToAsm(input.finalScriptSig, true)));
    w.text(',"hex":');
    w.qhex(input.finalScriptSig);
    w.text('}');
  }
  if (input.finalScriptWitness && input.finalScriptWitness.length > 0) {
    w.key('"final_scriptwitness":');
    writeHexArray(w, input.finalScriptWitness);
  }
  const preimages = [
    ['"ripemd160_preimages":', input.ripemd160],
    ['"sha256_preimages":', input.sha256],
    ['"hash160_preimages":', input.hash160],
    ['"hash256_preimages":', input.hash256],
  ] as const;
  for (const [k, m] of preimages) {
    if (m.size > 0) {
      w.key(k);
      w.text(fastWriteJson(preimagesUniv(m)));
    }
  }
  if (p.version >= 2) {
    w.key('"previous_txid":"');
    w.hexReversed32(input.prevHash);
    w.room(64);
    put(w, '","previous_vout":');
    putUint(w, input.vout);
    if (input.hasSequence) {
      put(w, ',"sequence":');
      putUint(w, input.sequence);
    }
    if (input.timeLocktime !== undefined) {
      w.text(',"time_locktime":');
      w.num(input.timeLocktime);
    }
    if (input.heightLocktime !== undefined) {
      w.text(',"height_locktime":');
      w.num(input.heightLocktime);
    }
  }
  if (input.tapKeySig && input.tapKeySig.length > 0) {
    w.key('"taproot_key_path_sig":');
    w.qhex(input.tapKeySig);
  }
  if (input.tapScriptSigs.size > 0) {
    w.key('"taproot_script_path_sigs":[');
    const sigs = sortedValues(input.tapScriptSigs);
    for (let k = 0; k < sigs.length; k++) {
      const e = sigs[k]!;
      w.text(k ? ',{"pubkey":"' : '{"pubkey":"');
      w.text(e.pubkey);
      w.text('","leaf_hash":"');
      w.text(e.leaf);
      w.text('","sig":');
      w.qhex(e.sig);
      w.text('}');
    }
    w.text(']');
  }
  if (input.tapScripts.size > 0) {
    w.key('"taproot_scripts":');
    w.text(fastWriteJson(tapScriptsUniv(input.tapScripts)));
  }
  if (input.tapBip32.size > 0) {
    w.key('"taproot_bip32_derivs":');
    writeTapKeypaths(w, input.tapBip32);
  }
  if (!isNull(input.tapInternalKey)) {
    w.key('"taproot_internal_key":');
    w.qhex(input.tapInternalKey!);
  }
  if (!isNull(input.tapMerkleRoot)) {
    w.key('"taproot_merkle_root":');
    w.qhex(input.tapMerkleRoot!);
  }
  if (input.musigParticipants.size > 0) {
    w.key('"musig2_participant_pubkeys":');
    w.text(fastWriteJson(musigParticipantsUniv(input.musigParticipants)));
  }
  if (input.musigPubnonces.size > 0) {
    w.key('"musig2_pubnonces":');
    w.text(fastWriteJson(musigDataUniv(input.musigPubnonces, 'pubnonce')));
  }
  if (input.musigPartialSigs.size > 0) {
    w.key('"musig2_partial_sigs":');
    w.text(fastWriteJson(musigDataUniv(input.musigPartialSigs, 'partial_sig')));
  }
  if (input.proprietary.size > 0) {
    w.key('"proprietary":');
    w.text(fastWriteJson(propUniv(input.proprietary)));
  }
  if (input.unknown.size > 0) {
    w.key('"unknown":');
    w.text(fastWriteJson(unknownUniv(input.unknown)));
  }
}

function writeOutput(w: TextOut, p: Psbt, output: PsbtOutput, t: TextCtx): void {
  const network = t.network;
  if (output.redeemScript && output.redeemScript.length > 0) {
    w.key('"redeem_script":');
    w.text(fastWriteJson(scriptUniv(output.redeemScript, network)));
  }
  if (output.witnessScript && output.witnessScript.length > 0) {
    w.key('"witness_script":');
    w.text(fastWriteJson(scriptUniv(output.witnessScript, network)));
  }
  if (output.hdKeypaths.size > 0) {
    w.key('"bip32_derivs":');
    writeKeypaths(w, output.hdKeypaths);
  }
  if (p.version >= 2) {
    w.key('"amount":');
    writeBtc(w, output.value);
    w.text(',"script":');
    writeSpk(w, output.script, network, t.spk);
  }
  if (!isNull(output.tapInternalKey)) {
    w.key('"taproot_internal_key":');
    w.qhex(output.tapInternalKey!);
  }
  if (output.tapTree.length > 0) {
    w.key('"taproot_tree":[');
    for (let k = 0; k < output.tapTree.length; k++) {
      const l = output.tapTree[k]!;
      w.text(k ? ',{"depth":' : '{"depth":');
      w.num(l.depth);
      w.text(',"leaf_ver":');
      w.num(l.ver);
      w.text(',"script":');
      w.qhex(l.script);
      w.text('}');
    }
    w.text(']');
  }
  if (output.tapBip32.size > 0) {
    w.key('"taproot_bip32_derivs":');
    writeTapKeypaths(w, output.tapBip32);
  }
  if (output.musigParticipants.size > 0) {
    w.key('"musig2_participant_pubkeys":');
    w.text(fastWriteJson(musigParticipantsUniv(output.musigParticipants)));
  }
  if (output.proprietary.size > 0) {
    w.key('"proprietary":');
    w.text(fastWriteJson(propUniv(output.proprietary)));
  }
  if (output.unknown.size > 0) {
    w.key('"unknown":');
    w.text(fastWriteJson(unknownUniv(output.unknown)));
  }
}

/** The decodepsbt result of a parsed PSBT as JSON text. */
export function toText(p: Psbt, network: Network): string {
  const t: TextCtx = { network, spk: new Map(), univCache: new Map(), utxoText: new Map() };
  const w = new TextOut();
  if (p.version < 2) {
    w.text('{"tx":');
    writeTx(w, p.unsignedTx!, network, t.spk);
    w.text(',"global_xpubs":');
  } else {
    w.text('{"global_xpubs":');
  }
  w.text(fastWriteJson(globalXpubsUniv(p)));
  if (p.version >= 2) writeV2Globals(w, p);
  w.text(',"psbt_version":');
  w.num(p.version);
  w.text(',"proprietary":');
  w.text(fastWriteJson(propUniv(p.proprietary)));
  w.text(',"unknown":');
  w.text(fastWriteJson(unknownUniv(p.unknown)));
  w.text(',"inputs":[');
  const sum = new FeeSum();
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    sum.input(input);
    w.text(i ? ',{' : '{');
    w.first = true;
    writeInput(w, p, input, t);
    w.text('}');
  }
  w.text('],"outputs":[');
  for (let i = 0; i < p.outputs.length; i++) {
    const output = p.outputs[i]!;
    sum.output(output.value);
    w.text(i ? ',{' : '{');
    w.first = true;
    writeOutput(w, p, output, t);
    w.text('}');
  }
  w.text(']');
  const fee = sum.fee;
  if (fee !== null) {
    w.text(',"fee":');
    writeBtc(w, fee);
  }
  w.text('}');
  return w.result();
}
