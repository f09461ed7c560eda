/**
 * SignatureData (src/script/sign.h) and its exchange with a PSBT input or output
 * (PSBTInput/PSBTOutput::FillSignatureData and FromSignatureData, src/psbt.cpp): what the signing
 * code reads from the PSBT and what it writes back. Hash preimages are read (the miniscript
 * satisfier uses them) but never written back: nothing here produces one. MuSig2 fields are read
 * (the finalizer aggregates partial signatures, musig2-sign.ts); of them only the participants
 * field is written back (what the provider knows of a musig() descriptor): nothing here makes a
 * nonce or a partial signature.
 */
import { fromHex } from '../hex';
import { hexOf } from '../tx';
import { cmpStr, isNull } from './json-parts';
import { keyIdHex } from './edit';
import type { KeyOrigin, PsbtInput, PsbtOutput, TapBip32, TapLeafScript, TapTreeLeaf } from './types';
import { buildTaproot } from './tr-tree';
import { isFullyValidPubkey } from './pubkey';
import type { SatisfyNote } from './produce-ms';
import { musigDataOf, type MusigData } from './musig2-sign';
import type { MusigParticipants } from './types';

export interface SigData {
  complete: boolean;
  /** A witness signature was produced (or would be): the input spends a segwit output. */
  witness: boolean;
  scriptSig: Uint8Array;
  scriptWitness: Uint8Array[];
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  /** By key id hex. */
  signatures: Map<string, { pubkey: Uint8Array; sig: Uint8Array }>;
  /** By key id hex. */
  miscPubkeys: Map<string, { pubkey: Uint8Array; origin: KeyOrigin }>;
  tapKeySig?: Uint8Array;
  /** By x-only hex + leaf hash hex, as the model's tapScriptSigs. */
  tapScriptSigs: Map<string, { pubkey: string; leaf: string; sig: Uint8Array }>;
  internalKey?: Uint8Array;
  merkleRoot?: Uint8Array;
  tapScripts: Map<string, TapLeafScript>;
  /** By x-only hex. */
  tapMiscPubkeys: Map<string, TapBip32>;
  /** HASH160 of an x-only key (hex) → the x-only key. */
  tapPubkeys: Map<string, Uint8Array>;
  /** An output's taproot tree (TaprootBuilder::GetTreeTuples), when the builder has scripts. */
  trTree?: TapTreeLeaf[];
  /** What the miniscript satisfier found missing (finalizer explanations), when it ran. */
  miniscript?: SatisfyNote;
  /** Hash preimages by hash hex, per hash function (PSBT_IN_SHA256 …). */
  preimages: Preimages;
  /** The input's MuSig2 participants, public nonces and partial signatures. */
  musig?: MusigData;
  /** Why a MuSig2 aggregate signature could not be made (finalizer explanations). */
  musigNotes: string[];
  missingPubkeys: string[];
  missingSigs: string[];
  missingRedeemScript?: string;
  missingWitnessScript?: string;
}

export interface Preimages {
  sha256: Map<string, Uint8Array>;
  ripemd160: Map<string, Uint8Array>;
  hash256: Map<string, Uint8Array>;
  hash160: Map<string, Uint8Array>;
}

export function newSigData(): SigData {
  return {
    complete: false,
    witness: false,
    scriptSig: new Uint8Array(0),
    scriptWitness: [],
    signatures: new Map(),
    miscPubkeys: new Map(),
    tapScriptSigs: new Map(),
    tapScripts: new Map(),
    tapMiscPubkeys: new Map(),
    tapPubkeys: new Map(),
    preimages: { sha256: new Map(), ripemd160: new Map(), hash256: new Map(), hash160: new Map() },
    missingPubkeys: [],
    missingSigs: [],
    musigNotes: [],
  };
}

const nonEmpty = (b: Uint8Array | undefined): b is Uint8Array => b !== undefined && b.length > 0;

export function isFinalInput(i: PsbtInput): boolean {
  return nonEmpty(i.finalScriptSig) || (i.finalScriptWitness !== undefined && i.finalScriptWitness.length > 0);
}

/** Adds a leaf hash to a TapBip32 entry, keeping the set sorted (std::set<uint256>). */
export function addLeafHash(e: TapBip32, leaf: string): void {
  if (!e.leafHashes.includes(leaf)) {
    e.leafHashes.push(leaf);
    e.leafHashes.sort(cmpStr);
  }
}

function copyTapBip32(m: Map<string, TapBip32>, into: Map<string, TapBip32>, tapPubkeys?: Map<string, Uint8Array>): void {
  for (const [x, v] of m) {
    if (!into.has(x)) into.set(x, { leafHashes: [...v.leafHashes], origin: v.origin });
    if (tapPubkeys) {
      const xb = fromHex(x);
      const id = keyIdHex(xb);
      if (!tapPubkeys.has(id)) tapPubkeys.set(id, xb);
    }
  }
}

/** PSBTInput::FillSignatureData. */
export function inputSigData(i: PsbtInput): SigData {
  const sd = newSigData();
  if (nonEmpty(i.finalScriptSig)) {
    sd.scriptSig = i.finalScriptSig;
    sd.complete = true;
  }
  if (i.finalScriptWitness && i.finalScriptWitness.length > 0) {
    sd.scriptWitness = i.finalScriptWitness;
    sd.complete = true;
  }
  if (sd.complete) return sd;
  for (const [id, v] of i.partialSigs) sd.signatures.set(id, v);
  if (nonEmpty(i.redeemScript)) sd.redeemScript = i.redeemScript;
  if (nonEmpty(i.witnessScript)) sd.witnessScript = i.witnessScript;
  for (const [pub, origin] of i.hdKeypaths) {
    const pubkey = fromHex(pub);
    const id = keyIdHex(pubkey);
    if (!sd.miscPubkeys.has(id)) sd.miscPubkeys.set(id, { pubkey, origin });
  }
  if (nonEmpty(i.tapKeySig)) sd.tapKeySig = i.tapKeySig;
  for (const [k, v] of i.tapScriptSigs) sd.tapScriptSigs.set(k, v);
  if (!isNull(i.tapInternalKey)) sd.internalKey = i.tapInternalKey;
  if (!isNull(i.tapMerkleRoot)) sd.merkleRoot = i.tapMerkleRoot;
  for (const [k, v] of i.tapScripts) sd.tapScripts.set(k, { ...v, controls: new Map(v.controls) });
  copyTapBip32(i.tapBip32, sd.tapMiscPubkeys, sd.tapPubkeys);
  sd.preimages = { sha256: new Map(i.sha256), ripemd160: new Map(i.ripemd160), hash256: new Map(i.hash256), hash160: new Map(i.hash160) };
  if (i.musigParticipants.size > 0) sd.musig = musigDataOf(i);
  return sd;
}

/** PSBTInput::FromSignatureData. */
export function applyToInput(i: PsbtInput, sd: SigData): void {
  if (sd.complete) {
    i.partialSigs = new Map();
    i.hdKeypaths = new Map();
    delete i.redeemScript;
    delete i.witnessScript;
    if (sd.scriptSig.length > 0) i.finalScriptSig = sd.scriptSig;
    if (sd.scriptWitness.length > 0) i.finalScriptWitness = sd.scriptWitness;
    return;
  }
  for (const [id, v] of sd.signatures) if (!i.partialSigs.has(id)) i.partialSigs.set(id, v);
  if (!nonEmpty(i.redeemScript) && nonEmpty(sd.redeemScript)) i.redeemScript = sd.redeemScript;
  if (!nonEmpty(i.witnessScript) && nonEmpty(sd.witnessScript)) i.witnessScript = sd.witnessScript;
  for (const v of sd.miscPubkeys.values()) {
    const pub = hexOf(v.pubkey);
    if (!i.hdKeypaths.has(pub)) i.hdKeypaths.set(pub, v.origin);
  }
  if (nonEmpty(sd.tapKeySig)) i.tapKeySig = sd.tapKeySig;
  for (const [k, v] of sd.tapScriptSigs) if (!i.tapScriptSigs.has(k)) i.tapScriptSigs.set(k, v);
  if (!isNull(sd.internalKey)) i.tapInternalKey = sd.internalKey;
  if (!isNull(sd.merkleRoot)) i.tapMerkleRoot = sd.merkleRoot;
  for (const [k, v] of sd.tapScripts) if (!i.tapScripts.has(k)) i.tapScripts.set(k, v);
  copyTapBip32(sd.tapMiscPubkeys, i.tapBip32);
  i.musigParticipants = withParticipants(i.musigParticipants, sd.musig);
}

/** FromSignatureData's musig2_pubkeys: an aggregate's participants, where the field has none yet. */
function withParticipants(have: Map<string, MusigParticipants>, m: MusigData | undefined): Map<string, MusigParticipants> {
  if (!m) return have;
  let out = have;
  for (const [agg, parts] of m.participants) {
    if (out.has(agg)) continue;
    if (out === have) out = new Map(have); // the parsed PSBT's maps may be shared
    out.set(agg, { agg, parts });
  }
  return out;
}

/** PSBTOutput::FillSignatureData. */
export function outputSigData(o: PsbtOutput): SigData {
  const sd = newSigData();
  if (nonEmpty(o.redeemScript)) sd.redeemScript = o.redeemScript;
  if (nonEmpty(o.witnessScript)) sd.witnessScript = o.witnessScript;
  for (const [pub, origin] of o.hdKeypaths) {
    const pubkey = fromHex(pub);
    const id = keyIdHex(pubkey);
    if (!sd.miscPubkeys.has(id)) sd.miscPubkeys.set(id, { pubkey, origin });
  }
  // A tree already in the output (from another updater) is rebuilt as Core's FillSignatureData does.
  if (o.tapTree.length > 0 && o.tapInternalKey && o.tapInternalKey.length === 32 && isFullyValidPubkey(Uint8Array.of(2, ...o.tapInternalKey))) {
    const built = buildTaproot(o.tapInternalKey, o.tapTree);
    if (built) {
      sd.internalKey = o.tapInternalKey;
      for (const [k, v] of built.scripts) sd.tapScripts.set(k, v);
      sd.trTree = o.tapTree;
    }
  }
  copyTapBip32(o.tapBip32, sd.tapMiscPubkeys, sd.tapPubkeys);
  if (o.musigParticipants.size > 0) sd.musig = { participants: new Map([...o.musigParticipants.values()].map((e) => [e.agg, e.parts])), pubnonces: new Map(), partialSigs: new Map() };
  return sd;
}

/** PSBTOutput::FromSignatureData. */
export function applyToOutput(o: PsbtOutput, sd: SigData): void {
  if (!nonEmpty(o.redeemScript) && nonEmpty(sd.redeemScript)) o.redeemScript = sd.redeemScript;
  if (!nonEmpty(o.witnessScript) && nonEmpty(sd.witnessScript)) o.witnessScript = sd.witnessScript;
  for (const v of sd.miscPubkeys.values()) {
    const pub = hexOf(v.pubkey);
    if (!o.hdKeypaths.has(pub)) o.hdKeypaths.set(pub, v.origin);
  }
  if (!isNull(sd.internalKey)) o.tapInternalKey = sd.internalKey;
  if (sd.trTree && sd.trTree.length > 0) o.tapTree = sd.trTree;
  copyTapBip32(sd.tapMiscPubkeys, o.tapBip32);
  o.musigParticipants = withParticipants(o.musigParticipants, sd.musig);
}
