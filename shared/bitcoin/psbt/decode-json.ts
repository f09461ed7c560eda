/**
 * Bitcoin Core's `decodepsbt` (rpc/rawtransaction.cpp) offline: the result object of a PSBT of
 * version 0 or 2, exactly as the chosen Core generation answers (same keys, order and values;
 * amounts as RawJson tokens with 8 decimals, written with writeJson), or Core's error.
 *
 * Version 0: `tx` (the unsigned transaction), global_xpubs, psbt_version, proprietary, unknown,
 * inputs, outputs, fee. Version 2 (Core ≥ 31.99): no `tx` but tx_version, fallback_locktime (when
 * present), input_count, output_count, the tx-modifiable flags (when present), and per input
 * previous_txid, previous_vout, sequence, time_locktime, height_locktime, per output amount and
 * script.
 */
import { btcJson } from '../../amounts';
import { decodeRawTransactionJson, txOutUniv, type ScriptUnivCache } from '../decode';
import type { Network } from '../networks';
import { scriptToAsm, sighashToStr } from '../script';
import { hexOf, type ParsedTx } from '../tx';
import { decodeBase64Core } from './base64';
import type { CoreVersionOption } from './generation';
import {
  FeeSum,
  globalXpubsUniv,
  isNull,
  keypathsUniv,
  musigDataUniv,
  musigParticipantsUniv,
  preimagesUniv,
  propUniv,
  scriptUniv,
  sortedValues,
  tapKeypathsUniv,
  tapScriptsUniv,
  unknownUniv,
} from './json-parts';
import { parsePsbt } from './model';
import { toText } from './decode-text';
import type { Psbt, PsbtInput, PsbtOutput } from './types';

const toHex = (b: Uint8Array): string => hexOf(b);

export type DecodePsbtResult = { ok: true; result: Record<string, unknown> } | { ok: false; code: -22; message: string };
export type DecodePsbtJsonResult = { ok: true; json: string } | { ok: false; code: -22; message: string };

function inputUniv(p: Psbt, input: PsbtInput, network: Network, cache: ScriptUnivCache, utxoJson: Map<ParsedTx, Record<string, unknown>>): Record<string, unknown> {
  const inp: Record<string, unknown> = {};
  if (input.witnessUtxo && input.witnessUtxo.value !== -1n) inp.witness_utxo = txOutUniv(input.witnessUtxo, network, cache);
  if (input.nonWitnessUtxo) {
    const nwu = input.nonWitnessUtxo;
    let j = utxoJson.get(nwu);
    if (!j) {
      j = decodeRawTransactionJson(nwu, network, cache);
      utxoJson.set(nwu, j);
    }
    inp.non_witness_utxo = j;
  }
  if (input.partialSigs.size > 0) {
    const o: Record<string, string> = {};
    for (const e of sortedValues(input.partialSigs)) o[toHex(e.pubkey)] = toHex(e.sig);
    inp.partial_signatures = o;
  }
  if (input.sighash !== undefined) inp.sighash = sighashToStr(input.sighash & 0xff);
  if (input.redeemScript && input.redeemScript.length > 0) inp.redeem_script = scriptUniv(input.redeemScript, network);
  if (input.witnessScript && input.witnessScript.length > 0) inp.witness_script = scriptUniv(input.witnessScript, network);
  if (input.hdKeypaths.size > 0) inp.bip32_derivs = keypathsUniv(input.hdKeypaths);
  if (input.finalScriptSig && input.finalScriptSig.length > 0) {
    inp.final_scriptSig = { asm: scriptToAsm(input.finalScriptSig, true), hex: toHex(input.finalScriptSig) };
  }
  if (input.finalScriptWitness && input.finalScriptWitness.length > 0) inp.final_scriptwitness = input.finalScriptWitness.map((w) => toHex(w));
  if (input.ripemd160.size > 0) inp.ripemd160_preimages = preimagesUniv(input.ripemd160);
  if (input.sha256.size > 0) inp.sha256_preimages = preimagesUniv(input.sha256);
  if (input.hash160.size > 0) inp.hash160_preimages = preimagesUniv(input.hash160);
  if (input.hash256.size > 0) inp.hash256_preimages = preimagesUniv(input.hash256);
  if (p.version >= 2) {
    inp.previous_txid = input.prevTxid;
    inp.previous_vout = input.vout;
    if (input.hasSequence) inp.sequence = input.sequence;
    if (input.timeLocktime !== undefined) inp.time_locktime = input.timeLocktime;
    if (input.heightLocktime !== undefined) inp.height_locktime = input.heightLocktime;
  }
  if (input.tapKeySig && input.tapKeySig.length > 0) inp.taproot_key_path_sig = toHex(input.tapKeySig);
  if (input.tapScriptSigs.size > 0) {
    inp.taproot_script_path_sigs = sortedValues(input.tapScriptSigs).map((e) => ({ pubkey: e.pubkey, leaf_hash: e.leaf, sig: toHex(e.sig) }));
  }
  if (input.tapScripts.size > 0) inp.taproot_scripts = tapScriptsUniv(input.tapScripts);
  if (input.tapBip32.size > 0) inp.taproot_bip32_derivs = tapKeypathsUniv(input.tapBip32);
  if (!isNull(input.tapInternalKey)) inp.taproot_internal_key = toHex(input.tapInternalKey!);
  if (!isNull(input.tapMerkleRoot)) inp.taproot_merkle_root = toHex(input.tapMerkleRoot!);
  if (input.musigParticipants.size > 0) inp.musig2_participant_pubkeys = musigParticipantsUniv(input.musigParticipants);
  if (input.musigPubnonces.size > 0) inp.musig2_pubnonces = musigDataUniv(input.musigPubnonces, 'pubnonce');
  if (input.musigPartialSigs.size > 0) inp.musig2_partial_sigs = musigDataUniv(input.musigPartialSigs, 'partial_sig');
  if (input.proprietary.size > 0) inp.proprietary = propUniv(input.proprietary);
  if (input.unknown.size > 0) inp.unknown = unknownUniv(input.unknown);
  return inp;
}

function outputUniv(p: Psbt, output: PsbtOutput, network: Network, cache: ScriptUnivCache): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (output.redeemScript && output.redeemScript.length > 0) out.redeem_script = scriptUniv(output.redeemScript, network);
  if (output.witnessScript && output.witnessScript.length > 0) out.witness_script = scriptUniv(output.witnessScript, network);
  if (output.hdKeypaths.size > 0) out.bip32_derivs = keypathsUniv(output.hdKeypaths);
  if (p.version >= 2) {
    const spk = txOutUniv({ value: output.value, script: output.script }, network, cache);
    out.amount = spk.amount;
    out.script = spk.scriptPubKey;
  }
  if (!isNull(output.tapInternalKey)) out.taproot_internal_key = toHex(output.tapInternalKey!);
  if (output.tapTree.length > 0) out.taproot_tree = output.tapTree.map((l) => ({ depth: l.depth, leaf_ver: l.ver, script: toHex(l.script) }));
  if (output.tapBip32.size > 0) out.taproot_bip32_derivs = tapKeypathsUniv(output.tapBip32);
  if (output.musigParticipants.size > 0) out.musig2_participant_pubkeys = musigParticipantsUniv(output.musigParticipants);
  if (output.proprietary.size > 0) out.proprietary = propUniv(output.proprietary);
  if (output.unknown.size > 0) out.unknown = unknownUniv(output.unknown);
  return out;
}

/** The decodepsbt result object of a parsed PSBT. */
export function psbtToUniv(p: Psbt, network: Network): Record<string, unknown> {
  const cache: ScriptUnivCache = new Map();
  const result: Record<string, unknown> = {};
  if (p.version < 2) result.tx = decodeRawTransactionJson(p.unsignedTx!, network, cache);
  result.global_xpubs = globalXpubsUniv(p);
  if (p.version >= 2) {
    result.tx_version = p.txVersion;
    if (p.fallbackLocktime !== undefined) result.fallback_locktime = p.fallbackLocktime;
    result.input_count = p.inputs.length;
    result.output_count = p.outputs.length;
    if (p.txModifiable !== undefined) {
      result.inputs_modifiable = (p.txModifiable & 1) !== 0;
      result.outputs_modifiable = (p.txModifiable & 2) !== 0;
      result.has_sighash_single = (p.txModifiable & 4) !== 0;
    }
  }
  result.psbt_version = p.version;
  result.proprietary = propUniv(p.proprietary);
  result.unknown = unknownUniv(p.unknown);

  const sum = new FeeSum();
  const utxoJson = new Map<ParsedTx, Record<string, unknown>>();
  result.inputs = p.inputs.map((input) => {
    sum.input(input);
    return inputUniv(p, input, network, cache, utxoJson);
  });
  result.outputs = p.outputs.map((output) => {
    sum.output(output.value);
    return outputUniv(p, output, network, cache);
  });
  const fee = sum.fee;
  if (fee !== null) result.fee = btcJson(fee);
  return result;
}

/**
 * decodepsbt "psbt": the exact result object of the chosen Core generation (default the newest;
 * amounts as RawJson tokens: serialize with writeJson), or `{ok: false, code: -22, message}` with
 * Core's message.
 */
export function decodePsbt(base64: string, network: Network, opts: CoreVersionOption = {}): DecodePsbtResult {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, message: 'TX decode failed invalid base64' };
  return decodePsbtBytes(bytes, network, opts);
}

/** decodepsbt on raw PSBT bytes (after base64). */
export function decodePsbtBytes(bytes: Uint8Array, network: Network, opts: CoreVersionOption = {}): DecodePsbtResult {
  const r = parsePsbt(bytes, opts);
  if (!r.ok) return r;
  return { ok: true, result: psbtToUniv(r.psbt, network) };
}

/**
 * decodepsbt for an RPC reply: the result already written as JSON text (what writeJson would
 * give for {@link decodePsbt}'s result), faster for big PSBTs because a previous transaction
 * spent by several inputs is serialized once.
 */
export function decodePsbtJson(base64: string, network: Network, opts: CoreVersionOption = {}): DecodePsbtJsonResult {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, message: 'TX decode failed invalid base64' };
  return decodePsbtBytesJson(bytes, network, opts);
}

/** {@link decodePsbtJson} on raw PSBT bytes. */
export function decodePsbtBytesJson(bytes: Uint8Array, network: Network, opts: CoreVersionOption = {}): DecodePsbtJsonResult {
  const r = parsePsbt(bytes, opts);
  if (!r.ok) return r;
  return { ok: true, json: toText(r.psbt, network) };
}
