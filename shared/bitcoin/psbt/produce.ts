/**
 * ProduceSignature (src/script/sign.cpp) for a signer without private keys: it walks the script
 * being spent as Core does (SignStep: P2PK, P2PKH, multisig, P2SH, P2WPKH, P2WSH, taproot, P2A),
 * gathering what the provider knows (public keys, key origins, redeem and witness scripts,
 * taproot internal keys) into the SignatureData, using the signatures already there, and noting
 * what is missing. The creator decides what a missing signature becomes: nothing (a watch-only
 * wallet, a finalizer) or Core's dummy signature (size estimates).
 *
 * Not ported: miniscript satisfaction of other witness scripts and of tapscript leaves, MuSig2.
 * For P2WSH pk()/pkh() scripts, Core's miniscript retry is reproduced (it repeats the missing
 * key and signature records analyzepsbt shows).
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { OP_1NEGATE, solver, type TxoutType } from '../script';
import { hexOf } from '../tx';
import { DUMMY_CHECKER, type Checker } from './checker';
import { concatBytes, hash160 } from './edit';
import { pushData, verifyScript } from './interp';
import type { SolvingProvider } from './provider';
import { addLeafHash, type SigData } from './sigdata';
import { cmpStr } from './json-parts';
import { tapLeafHash } from './sighash';
import { TAPSCRIPT, tapLeafKeys } from './tr-tree';
import type { SigVersion } from './sighash';

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
}

/** MutableTransactionSignatureCreator with a provider that hides every secret: no new signature. */
export function keylessCreator(checker: Checker): Creator {
  return { checker, createSig: () => null, createSchnorrSig: () => null };
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

/** GetCScript: the provider's script, else the PSBT's redeem or witness script with that id. */
function getScript(provider: SolvingProvider, sd: SigData, id: string): Uint8Array | undefined {
  const s = provider.getScript(id);
  if (s) return s;
  if (hexOf(hash160(sd.redeemScript ?? EMPTY)) === id) return sd.redeemScript ?? EMPTY;
  if (hexOf(hash160(sd.witnessScript ?? EMPTY)) === id) return sd.witnessScript ?? EMPTY;
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

/**
 * SignTaprootScript for every leaf, in Core's order (script, then leaf version): the satisfier asks
 * for each key the leaf checks (tapLeafKeys); no leaf is satisfied here (finalizing script path
 * spends is not ported), but the keys' origins gain the leaf's hash as Core's do.
 */
function visitLeaves(provider: SolvingProvider, sd: SigData): void {
  const leaves = [...sd.tapScripts.values()].sort((a, b) => cmpStr(a.scriptHex, b.scriptHex) || a.ver - b.ver);
  for (const leaf of leaves) {
    if (leaf.ver !== TAPSCRIPT) continue;
    const keys = tapLeafKeys(leaf.script);
    const lh = hexOf(tapLeafHash(leaf.script, leaf.ver));
    if (!keys) {
      // another miniscript leaf: its satisfier asks each pk_k (x-only push) and pk_h key in turn
      for (const key of miniscriptKeys(leaf.script, 32)) {
        if (key.length === 32) {
          tapScriptKey(provider, sd, key, lh);
          continue;
        }
        const pub = getPubKey(provider, sd, hexOf(key));
        if (pub) tapScriptKey(provider, sd, pub.subarray(1, 33), lh);
        else sd.missingPubkeys.push(hexOf(key));
      }
      continue;
    }
    if ('keyHash' in keys) {
      const id = hexOf(keys.keyHash);
      const pub = getPubKey(provider, sd, id);
      if (!pub) {
        sd.missingPubkeys.push(id);
        continue;
      }
      tapScriptKey(provider, sd, pub.subarray(1, 33), lh);
    } else for (const x of keys.xonly) tapScriptKey(provider, sd, x, lh);
  }
}

/** SignTaproot: the key path, then the script path leaves' keys (visitLeaves). */
function signTaproot(provider: SolvingProvider, creator: Creator, output: Uint8Array, sd: SigData): Uint8Array[] | null {
  const outHex = hexOf(output);
  const spend = provider.getTaprootSpendData(outHex);
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
  }
  if (!sd.tapKeySig || sd.tapKeySig.length === 0) {
    const s = creator.createSchnorrSig(output, 'taproot');
    if (s) sd.tapKeySig = s;
  }
  if (sd.tapKeySig && sd.tapKeySig.length > 0) return [sd.tapKeySig];
  visitLeaves(provider, sd);
  return null;
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
  const parts: Uint8Array[] = [];
  for (const v of values) {
    if (v.length === 0) parts.push(Uint8Array.of(0));
    else if (v.length === 1 && v[0]! >= 1 && v[0]! <= 16) parts.push(Uint8Array.of(0x50 + v[0]!));
    else if (v.length === 1 && v[0] === 0x81) parts.push(Uint8Array.of(OP_1NEGATE));
    else parts.push(pushData(v));
  }
  return concatBytes(...parts);
}

/**
 * Core's miniscript retry for a P2WSH script the legacy step could not solve and left nothing
 * for: for <K> CHECKSIG and the P2PKH form, the satisfier asks for the key and signature again.
 */
function miniscriptRetry(provider: SolvingProvider, creator: Creator, ws: Uint8Array, sd: SigData): Uint8Array[] | null {
  const { type, solutions } = solver(ws);
  if (type === 'pubkey') {
    const sig = createSig(creator, sd, provider, solutions[0]!, ws, 'v0');
    return sig ? [sig] : null;
  }
  if (type === 'pubkeyhash') {
    const id = hexOf(solutions[0]!);
    const pubkey = getPubKey(provider, sd, id);
    if (!pubkey) {
      sd.missingPubkeys.push(id);
      return null;
    }
    const sig = createSig(creator, sd, provider, pubkey, ws, 'v0');
    return sig ? [sig, pubkey] : null;
  }
  // Any other miniscript (wsh() policies: timelocks, thresh, andor…): Core's satisfier asks every
  // key of the script for a signature (ProduceInput visits each pk_k/pk_h node), which records the
  // keys' origins (the PSBT's BIP32 derivations). Without a signature to add, nothing is solved.
  // The keys are read off the script: 33-byte pushes (pk_k) and DUP HASH160 <20> EQUALVERIFY (pk_h).
  for (const key of miniscriptKeys(ws, 33)) {
    if (key.length === 33) {
      createSig(creator, sd, provider, key, ws, 'v0');
    } else {
      const pubkey = getPubKey(provider, sd, hexOf(key));
      if (pubkey) createSig(creator, sd, provider, pubkey, ws, 'v0');
      else sd.missingPubkeys.push(hexOf(key));
    }
  }
  return null;
}

/** The key pushes (33 bytes, or 32 in tapscript) and the key hashes of `DUP HASH160 <20> EQUALVERIFY`, in order. */
function miniscriptKeys(script: Uint8Array, keyLen: 32 | 33): Uint8Array[] {
  const out: Uint8Array[] = [];
  const ops: { op: number; data: Uint8Array | null }[] = [];
  for (let i = 0; i < script.length; ) {
    const op = script[i++]!;
    let len = -1;
    if (op >= 1 && op <= 75) len = op;
    else if (op === 0x4c) len = script[i++] ?? 0;
    else if (op === 0x4d) {
      len = (script[i] ?? 0) | ((script[i + 1] ?? 0) << 8);
      i += 2;
    }
    if (len >= 0) {
      if (i + len > script.length) return [];
      ops.push({ op, data: script.subarray(i, i + len) });
      i += len;
    } else ops.push({ op, data: null });
  }
  ops.forEach((o, j) => {
    // (a 32-byte push after OP_SHA256 / OP_HASH256 is a hash challenge, not a key)
    if (o.data?.length === keyLen && ops[j - 1]?.op !== 0xa8 && ops[j - 1]?.op !== 0xaa) out.push(o.data);
    if (o.data?.length === 20 && ops[j - 1]?.op === 0xa9 && ops[j - 2]?.op === 0x76 && ops[j + 1]?.op === 0x88) out.push(o.data);
  });
  return out;
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
      const m = miniscriptRetry(provider, creator, ws, sd);
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

