/**
 * ProduceSignature (src/script/sign.cpp) for a signer without private keys: it walks the script
 * being spent as Core does (SignStep: P2PK, P2PKH, multisig, P2SH, P2WPKH, P2WSH, taproot, P2A),
 * gathering what the provider knows (public keys, key origins, redeem and witness scripts,
 * taproot internal keys) into the SignatureData, using the signatures already there, and noting
 * what is missing. The creator decides what a missing signature becomes: nothing (a watch-only
 * wallet, a finalizer) or Core's dummy signature (size estimates).
 *
 * A P2WSH witness script the templates do not solve, and taproot script paths (without a key
 * path signature), go to Core's miniscript satisfier (produce-ms.ts): the cheapest
 * non-malleable satisfaction the PSBT's signatures, preimages and the transaction's timelocks
 * allow. A MuSig2 key (key path or leaf) gets the aggregate of the PSBT's partial signatures
 * (musig2-sign.ts).
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { OP_1NEGATE, solver, type TxoutType } from '../script';
import { hexOf } from '../tx';
import { DUMMY_CHECKER, type Checker, type TxChecker } from './checker';
import { bytesEqual, concatBytes, hash160 } from './edit';
import { pushData, verifyScript } from './interp';
import type { SolvingProvider } from './provider';
import { addLeafHash, type SigData } from './sigdata';
import { newSatisfyNote, satisfyTapLeaves, satisfyWitnessScript, type SatisfyNote } from './produce-ms';
import { SIGHASH_DEFAULT, taprootSighash, type SigVersion } from './sighash';
import { newMusigData, signMusig2, type MusigSighash } from './musig2-sign';

/** BaseSignatureCreator without keys: what becomes of a signature that is not in the PSBT. */
export interface Creator {
  readonly checker: Checker;
  /** A signature for a key not yet signed for, or null (CreateSig failed). */
  createSig(pubkey: Uint8Array, scriptCode: Uint8Array, sv: SigVersion): Uint8Array | null;
  /**
   * A key path signature by `xonly`: `merkleRoot` null or 32 bytes signs as the internal key
   * (tweaked), undefined as the output key itself.
   */
  createSchnorrSig(xonly: Uint8Array | undefined, sv: SigVersion, merkleRoot?: Uint8Array | null): Uint8Array | null;
  /**
   * ComputeSchnorrSignatureHash and the hash type, for a MuSig2 aggregate (CreateMuSig2AggregateSig);
   * absent where Core's creator aggregates nothing real (the dummy creator never gets there).
   */
  musigSighash?: MusigSighash;
}

/** The creator's ComputeSchnorrSignatureHash: null without every spent output (or an unusable hash type). */
export function schnorrSighashOf(checker: TxChecker, hashType: number): MusigSighash {
  return (leafHash) => {
    if (!checker.data?.taproot) return null;
    const msg = taprootSighash(checker.data, checker.nIn, hashType, leafHash);
    return msg ? { msg, hashType } : null;
  };
}

/** MutableTransactionSignatureCreator with a provider that hides every secret: no new signature (a MuSig2 aggregate is not one: it only adds up the PSBT's). */
export function keylessCreator(checker: TxChecker, hashType = SIGHASH_DEFAULT): Creator {
  return { checker, createSig: () => null, createSchnorrSig: () => null, musigSighash: schnorrSighashOf(checker, hashType) };
}

/** Core's DUMMY_SIGNATURE_CREATOR: a 71-byte DER dummy (r and s of 32 bytes, SIGHASH_ALL) and a 64-byte zero Schnorr signature. */
export const DUMMY_CREATOR: Creator = {
  checker: DUMMY_CHECKER,
  createSig: () => {
    const s = new Uint8Array(71);
    s[0] = 0x30;
    s[1] = 68;
    s[2] = 0x02;
    s[3] = 32;
    s[4] = 0x01;
    s[36] = 0x02;
    s[37] = 32;
    s[38] = 0x01;
    s[70] = 1;
    return s;
  },
  createSchnorrSig: () => new Uint8Array(64),
};

const EMPTY = new Uint8Array(0);

/** CreateSig: an existing signature, else a new one; records the key's origin and what is missing. */
function createSig(creator: Creator, sd: SigData, provider: SolvingProvider, pubkey: Uint8Array, code: Uint8Array, sv: SigVersion): Uint8Array | null {
  // sd.signatures is keyed by each signature's key id (HASH160 of its key): the key's bytes find the same entry, unhashed
  for (const s of sd.signatures.values()) if (bytesEqual(s.pubkey, pubkey)) return s.sig;
  const id = hexOf(hash160(pubkey));
  const have = sd.signatures.get(id);
  if (have) return have.sig;
  const origin = provider.getKeyOrigin(id);
  if (origin && !sd.miscPubkeys.has(id)) sd.miscPubkeys.set(id, { pubkey, origin });
  const sig = creator.createSig(pubkey, code, sv);
  if (sig) {
    sd.signatures.set(id, { pubkey, sig });
    return sig;
  }
  sd.missingSigs.push(id);
  return null;
}

/** GetPubKey: from the signatures, the PSBT's key paths, its taproot keys, then the provider. */
function getPubKey(provider: SolvingProvider, sd: SigData, id: string): Uint8Array | undefined {
  const s = sd.signatures.get(id);
  if (s) return s.pubkey;
  const m = sd.miscPubkeys.get(id);
  if (m) return m.pubkey;
  const x = sd.tapPubkeys.get(id);
  if (x) return concatBytes(Uint8Array.of(2), x);
  return provider.getPubKey(id);
}

const EMPTY_ID = hexOf(hash160(EMPTY));
const scriptId = (s: Uint8Array | undefined): string => (s && s.length > 0 ? hexOf(hash160(s)) : EMPTY_ID);

/** GetCScript: the provider's script, else the PSBT's redeem or witness script with that id. */
function getScript(provider: SolvingProvider, sd: SigData, id: string): Uint8Array | undefined {
  const s = provider.getScript(id);
  if (s) return s;
  if (scriptId(sd.redeemScript) === id) return sd.redeemScript ?? EMPTY;
  if (scriptId(sd.witnessScript) === id) return sd.witnessScript ?? EMPTY;
  return undefined;
}

/** CreateTaprootScriptSig without a key: the key's origin, with this leaf, into the taproot derivations. */
function tapScriptKey(provider: SolvingProvider, sd: SigData, x: Uint8Array, leaf: string): void {
  const xh = hexOf(x);
  const origin = provider.getKeyOriginByXOnly(xh);
  if (!origin) return;
  const e = sd.tapMiscPubkeys.get(xh);
  if (!e) sd.tapMiscPubkeys.set(xh, { leafHashes: [leaf], origin });
  else addLeafHash(e, leaf);
}

/** The satisfier contexts' look-ups (produce-ms.ts), recording what Core's Satisfier records. */
function msCommon(provider: SolvingProvider, creator: Creator, sd: SigData): { checker: Checker; preimages: SigData['preimages']; pubkeyOf(id: string): Uint8Array | null; note: SatisfyNote } {
  if (!sd.miniscript) sd.miniscript = newSatisfyNote();
  return {
    checker: creator.checker,
    preimages: sd.preimages,
    pubkeyOf(id) {
      const pub = getPubKey(provider, sd, id);
      if (pub) return pub;
      sd.missingPubkeys.push(id);
      return null;
    },
    note: sd.miniscript,
  };
}

/** CreateTaprootScriptSig: records the key's origin with the leaf, then the PSBT's signature or a new one. */
function tapScriptSig(provider: SolvingProvider, creator: Creator, sd: SigData, x: Uint8Array, leaf: Uint8Array): Uint8Array | null {
  const lh = hexOf(leaf);
  tapScriptKey(provider, sd, x, lh);
  const k = hexOf(x) + lh;
  const have = sd.tapScriptSigs.get(k);
  if (have) return have.sig;
  const sig = creator.createSchnorrSig(x, 'tapscript');
  if (sig) {
    sd.tapScriptSigs.set(k, { pubkey: hexOf(x), leaf: lh, sig });
    return sig;
  }
  if (!signMusig2(provider, creator.musigSighash, sd, x, undefined, leaf, 'tapscript')) return null;
  return sd.tapScriptSigs.get(k)?.sig ?? null;
}

/** SignTaproot: the key path, then the script path leaves' keys (visitLeaves). */
function signTaproot(provider: SolvingProvider, creator: Creator, output: Uint8Array, sd: SigData): Uint8Array[] | null {
  const outHex = hexOf(output);
  const spend = provider.getTaprootSpendData(outHex);
  const aggregates = provider.getAllMusig2Participants?.();
  if (aggregates && aggregates.size > 0) {
    const m = (sd.musig ??= newMusigData());
    for (const [agg, parts] of aggregates) if (!m.participants.has(agg)) m.participants.set(agg, parts);
  }
  if (spend?.tree && spend.tree.length > 0) sd.trTree = spend.tree;
  if (spend) {
    if (!sd.internalKey) sd.internalKey = spend.internalKey;
    if (!sd.merkleRoot && spend.merkleRoot) sd.merkleRoot = spend.merkleRoot;
    for (const [k, v] of spend.scripts) {
      const e = sd.tapScripts.get(k);
      if (!e) sd.tapScripts.set(k, { ...v, controls: new Map(v.controls) });
      else for (const [cb, b] of v.controls) if (!e.controls.has(cb)) e.controls.set(cb, b);
    }
  }
  if (sd.internalKey) {
    const ik = hexOf(sd.internalKey);
    const o = provider.getKeyOriginByXOnly(ik);
    if (o && !sd.tapMiscPubkeys.has(ik)) sd.tapMiscPubkeys.set(ik, { leafHashes: [], origin: o });
  }
  const oo = provider.getKeyOriginByXOnly(outHex);
  if (oo && !sd.tapMiscPubkeys.has(outHex)) sd.tapMiscPubkeys.set(outHex, { leafHashes: [], origin: oo });
  if (!sd.tapKeySig || sd.tapKeySig.length === 0) {
    const s = creator.createSchnorrSig(sd.internalKey, 'taproot', sd.merkleRoot ?? null);
    if (s) sd.tapKeySig = s;
    // no internal key: Core signs for a null key, which no aggregate matches (participant origins are still noted)
    else signMusig2(provider, creator.musigSighash, sd, sd.internalKey ?? new Uint8Array(32), sd.merkleRoot ?? null, null, 'taproot');
  }
  if (!sd.tapKeySig || sd.tapKeySig.length === 0) {
    const s = creator.createSchnorrSig(output, 'taproot');
    if (s) sd.tapKeySig = s;
    else signMusig2(provider, creator.musigSighash, sd, output, undefined, null, 'taproot');
  }
  if (sd.tapKeySig && sd.tapKeySig.length > 0) return [sd.tapKeySig];
  return satisfyTapLeaves(sd.tapScripts, { ...msCommon(provider, creator, sd), sign: (x, leaf) => tapScriptSig(provider, creator, sd, x, leaf) });
}

interface Step {
  ok: boolean;
  ret: Uint8Array[];
  type: TxoutType;
}

function signStep(provider: SolvingProvider, creator: Creator, spk: Uint8Array, sv: SigVersion, sd: SigData): Step {
  const { type, solutions } = solver(spk);
  const step = (ok: boolean, ret: Uint8Array[] = []): Step => ({ ok, ret, type });
  switch (type) {
    case 'pubkey': {
      const sig = createSig(creator, sd, provider, solutions[0]!, spk, sv);
      return sig ? step(true, [sig]) : step(false);
    }
    case 'pubkeyhash': {
      const id = hexOf(solutions[0]!);
      const pubkey = getPubKey(provider, sd, id);
      if (!pubkey) {
        sd.missingPubkeys.push(id);
        return step(false);
      }
      const sig = createSig(creator, sd, provider, pubkey, spk, sv);
      return sig ? step(true, [sig, pubkey]) : step(false);
    }
    case 'scripthash': {
      const id = hexOf(solutions[0]!);
      const s = getScript(provider, sd, id);
      if (s) return step(true, [s]);
      sd.missingRedeemScript = id;
      return step(false);
    }
    case 'multisig': {
      const required = solutions[0]![0]!;
      const ret: Uint8Array[] = [EMPTY];
      for (let i = 1; i < solutions.length - 1; i++) {
        const sig = createSig(creator, sd, provider, solutions[i]!, spk, sv);
        if (sig && ret.length < required + 1) ret.push(sig);
      }
      const ok = ret.length === required + 1;
      // Core's padding loop, as written (it adds about half of what is missing).
      for (let i = 0; i + ret.length < required + 1; i++) ret.push(EMPTY);
      return step(ok, ret);
    }
    case 'witness_v0_keyhash':
      return step(true, [solutions[0]!]);
    case 'witness_v0_scripthash': {
      const s = getScript(provider, sd, hexOf(ripemd160(solutions[0]!)));
      if (s) return step(true, [s]);
      sd.missingWitnessScript = hexOf(solutions[0]!);
      return step(false);
    }
    case 'witness_v1_taproot': {
      const r = signTaproot(provider, creator, solutions[0]!, sd);
      return r ? step(true, r) : step(false);
    }
    case 'anchor':
      return step(true);
    default:
      return step(false);
  }
}

/** PushAll: the stack as a scriptSig of minimal pushes. */
export function pushAll(values: Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY; // a segwit spend's scriptSig (nothing can be written into an empty array)
  const parts: Uint8Array[] = [];
  for (const v of values) {
    if (v.length === 0) parts.push(Uint8Array.of(0));
    else if (v.length === 1 && v[0]! >= 1 && v[0]! <= 16) parts.push(Uint8Array.of(0x50 + v[0]!));
    else if (v.length === 1 && v[0] === 0x81) parts.push(Uint8Array.of(OP_1NEGATE));
    else parts.push(pushData(v));
  }
  return concatBytes(...parts);
}

const p2pkh = (keyHash: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), keyHash, Uint8Array.of(0x88, 0xac));

/** ProduceSignature: fills `sd`; true when the input's final scripts are complete and verify. */
export function produceSignature(provider: SolvingProvider, creator: Creator, spk: Uint8Array, sd: SigData): boolean {
  if (sd.complete) return true;
  let { ok: solved, ret: result, type } = signStep(provider, creator, spk, 'base', sd);
  let p2sh = false;
  let subscript: Uint8Array = EMPTY;
  if (solved && type === 'scripthash') {
    subscript = result[0]!;
    sd.redeemScript = subscript;
    const r = signStep(provider, creator, subscript, 'base', sd);
    solved = r.ok && r.type !== 'scripthash';
    result = r.ret;
    type = r.type;
    p2sh = true;
  }
  if (solved && type === 'witness_v0_keyhash') {
    const r = signStep(provider, creator, p2pkh(result[0]!), 'v0', sd);
    solved = r.ok;
    sd.scriptWitness = r.ret;
    sd.witness = true;
    result = [];
  } else if (solved && type === 'witness_v0_scripthash') {
    const ws = result[0]!;
    sd.witnessScript = ws;
    const r = signStep(provider, creator, ws, 'v0', sd);
    solved = r.ok && r.type !== 'scripthash' && r.type !== 'witness_v0_scripthash' && r.type !== 'witness_v0_keyhash';
    result = r.ret;
    if (!solved && result.length === 0) {
      // WshSatisfier: the witness script read as miniscript and satisfied
      const m = satisfyWitnessScript(ws, { ...msCommon(provider, creator, sd), sign: (pub) => createSig(creator, sd, provider, pub, ws, 'v0') });
      solved = m !== null;
      result = m ?? [];
    }
    result.push(ws);
    sd.scriptWitness = result;
    sd.witness = true;
    result = [];
  } else if (type === 'witness_v1_taproot' && !p2sh) {
    sd.witness = true;
    if (solved) sd.scriptWitness = result;
    result = [];
  } else if (solved && type === 'witness_unknown') {
    sd.witness = true;
  }
  if (!sd.witness) sd.scriptWitness = [];
  if (p2sh) result.push(subscript);
  sd.scriptSig = pushAll(result);
  sd.complete = solved && verifyScript(sd.scriptSig, spk, sd.scriptWitness, creator.checker) === null;
  return sd.complete;
}

