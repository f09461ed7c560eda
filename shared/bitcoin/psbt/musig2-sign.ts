/**
 * SignMuSig2 and CreateMuSig2AggregateSig (src/script/sign.cpp, src/musig.cpp) without keys: when a
 * taproot key (the internal key of a key path spend, or a tapscript leaf's key) is a MuSig2
 * aggregate — itself, or derived from it along the key's PSBT derivation (BIP328 synthetic xpub)
 * — and the PSBT holds every participant's public nonce and partial signature for it, the partial
 * signatures are verified and aggregated into the key's Schnorr signature, as Core's finalizepsbt
 * does. The aggregate is verified once more against the key before it is used. When it cannot be
 * made, `sd.musigNotes` says why (which participant's nonce or partial signature is missing or
 * does not verify). Nonces and partial signatures are never made here: Spyglass holds no key.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { fromHex } from '../hex';
import { hexOf } from '../tx';
import { schnorrVerify, taprootTweak } from './ecc';
import { bytesEqual, hash160 } from './edit';
import { applyTweak, bip32Tweaks, bigOf, isCompressedPoint, keyAggregate, MUSIG_CHAINCODE, nonceAggregate, partialSigAggregate, partialSigVerify, sessionValues } from './musig2';
import { N } from './ecc';
import type { SolvingProvider } from './provider';
import { ZERO32_HEX as ZERO32 } from './read-common';
import type { SigVersion } from './sighash';
import { addLeafHash, type SigData } from './sigdata';
import type { PsbtInput } from './types';

/** The MuSig2 fields of an input as SignatureData holds them. */
export interface MusigData {
  /** Participant keys (hex, the field's order) by aggregate key hex. */
  participants: Map<string, string[]>;
  /** By `<plain key hex>|<leaf hash hex or zeros>`, then by participant key hex. */
  pubnonces: Map<string, Map<string, Uint8Array>>;
  partialSigs: Map<string, Map<string, Uint8Array>>;
}

export function newMusigData(): MusigData {
  return { participants: new Map(), pubnonces: new Map(), partialSigs: new Map() };
}

/** PSBTInput::FillSignatureData's MuSig2 part (keys Core v30 kept invalid stay apart: they match nothing). */
export function musigDataOf(i: PsbtInput): MusigData {
  const m = newMusigData();
  for (const p of i.musigParticipants.values()) m.participants.set(p.agg, p.parts);
  const put = (into: MusigData['pubnonces'], from: PsbtInput['musigPubnonces']): void => {
    for (const d of from.values()) {
      const k = `${d.agg || 'invalid'}|${d.leaf}`;
      let e = into.get(k);
      if (!e) into.set(k, (e = new Map()));
      const part = d.part || 'invalid';
      if (!e.has(part)) e.set(part, fromHex(d.value));
    }
  };
  put(m.pubnonces, i.musigPubnonces);
  put(m.partialSigs, i.musigPartialSigs);
  return m;
}

/** The sighash a MuSig2 aggregate signs (ComputeSchnorrSignatureHash) and the creator's hash type. */
export type MusigSighash = (leafHash: Uint8Array | null) => { msg: Uint8Array; hashType: number } | null;

const names = (keys: string[]): string => `participant${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;

/**
 * ::CreateMuSig2AggregateSig: the 64-byte aggregate of `parts`' partial signatures, or why not.
 * The checks come in Core's order; each failure names the participant.
 */
export function aggregateMusig2(
  parts: Uint8Array[],
  agg: Uint8Array,
  tweaks: { t: Uint8Array; xonly: boolean }[],
  msg: Uint8Array,
  pubnonces: Map<string, Uint8Array>,
  psigs: Map<string, Uint8Array>,
): { sig: Uint8Array } | { why: string } {
  let ctx = keyAggregate(parts);
  if (!ctx || !bytesEqual(ctx.q, agg)) return { why: `the participant keys do not aggregate to ${hexOf(agg)}` };
  const hexes = parts.map((p) => hexOf(p));
  const noNonce = hexes.filter((h) => !pubnonces.has(h));
  const noSig = hexes.filter((h) => !psigs.has(h));
  if (noNonce.length) return { why: `no public nonce yet by ${names(noNonce)}` };
  if (pubnonces.size !== parts.length) return { why: `${pubnonces.size} public nonces for ${parts.length} participant keys` };
  if (noSig.length) return { why: `no partial signature yet by ${names(noSig)}` };
  if (psigs.size !== parts.length) return { why: `${psigs.size} partial signatures for ${parts.length} participant keys` };
  for (const h of hexes) {
    if (pubnonces.get(h)!.length !== 66) return { why: `the public nonce of participant ${h} is not 66 bytes` };
    if (bigOf(psigs.get(h)!) >= N) return { why: `the partial signature of participant ${h} is not below the curve order` };
  }
  const aggnonce = nonceAggregate(hexes.map((h) => pubnonces.get(h)!));
  if (!aggnonce) {
    const bad = hexes.filter((h) => !nonceAggregate([pubnonces.get(h)!]));
    return { why: `the public nonce of ${names(bad)} is not two valid points` };
  }
  for (const { t, xonly } of tweaks) {
    const next = applyTweak(ctx, t, xonly);
    if (!next) return { why: 'a key tweak is invalid' };
    ctx = next;
  }
  const session = sessionValues(aggnonce, ctx, msg);
  const bad = parts.filter((p, i) => !partialSigVerify(psigs.get(hexes[i]!)!, pubnonces.get(hexes[i]!)!, p, session)).map((p) => hexOf(p));
  if (bad.length) return { why: `the partial signature of ${names(bad)} does not verify` };
  return { sig: partialSigAggregate(hexes.map((h) => psigs.get(h)!), session) };
}

/** The key a MuSig2 session signs for and the tweaks from the aggregate to it. */
export interface MusigTarget {
  /** The aggregate derived along the script key's origin, then taproot-tweaked for a key path (33 bytes). */
  plain: Uint8Array;
  tweaks: { t: Uint8Array; xonly: boolean }[];
}

/**
 * SignMuSig2's way from aggregate `agg` to the key `scriptKey` (x-only) signs for: the BIP32 tweaks
 * along `origin` (the script key's, off the aggregate's synthetic xpub) unless `agg` is the key itself,
 * then the taproot tweak when `merkleRoot` is not undefined (a key path). Null when `agg` is not
 * the key's aggregate; 'fail' where Core returns false (a derivation or tweak it cannot make).
 */
export function musigTarget(agg: Uint8Array, scriptKey: Uint8Array, origin: { fp: Uint8Array; path: readonly number[] } | undefined, merkleRoot: Uint8Array | null | undefined, sv: SigVersion): MusigTarget | null | 'fail' {
  const tweaks: MusigTarget['tweaks'] = [];
  let plain = agg;
  if (!bytesEqual(agg.subarray(1), scriptKey)) {
    if (!origin || origin.path.length === 0) return null;
    if (!bytesEqual(origin.fp, hash160(agg).subarray(0, 4))) return null;
    const d = bip32Tweaks(agg, MUSIG_CHAINCODE, origin.path);
    if (!d) return 'fail';
    // Core asserts the derived key is the script's key (a PSBT saying otherwise stops bitcoind)
    if (!bytesEqual(d.pub.subarray(1), scriptKey)) return null;
    for (const t of d.tweaks) tweaks.push({ t, xonly: false });
    plain = d.pub;
  }
  if (sv === 'taproot' && merkleRoot !== undefined) {
    const t = schnorr.utils.taggedHash('TapTweak', scriptKey, ...(merkleRoot ? [merkleRoot] : []));
    const q = taprootTweak(scriptKey, t);
    if (!q) return 'fail';
    tweaks.push({ t, xonly: true });
    plain = Uint8Array.of(q.odd ? 3 : 2, ...q.x);
  }
  return { plain, tweaks };
}

/**
 * SignMuSig2 for the key `scriptKey` (x-only): `merkleRoot` undefined is Core's nullptr (no
 * taproot tweak: a leaf key, or the output key itself), null or 32 bytes the internal key's tweak
 * without or with a script tree. False where Core returns false (a derivation it cannot follow).
 */
export function signMusig2(
  provider: SolvingProvider,
  sighash: MusigSighash | undefined,
  sd: SigData,
  scriptKey: Uint8Array,
  merkleRoot: Uint8Array | null | undefined,
  leafHash: Uint8Array | null,
  sv: SigVersion,
): boolean {
  const m = sd.musig;
  if (!m) return true;
  const keyHex = hexOf(scriptKey);
  const aggInfo = sd.tapMiscPubkeys.get(keyHex)?.origin;
  const leafHex = leafHash ? hexOf(leafHash) : ZERO32;
  for (const aggHex of [...m.participants.keys()].sort()) {
    const partHexes = m.participants.get(aggHex)!;
    if (partHexes.length === 0) continue;
    for (const ph of partHexes) {
      const origin = provider.getKeyOrigin(hexOf(hash160(fromHex(ph))));
      if (!origin) continue;
      const x = ph.slice(2);
      let e = sd.tapMiscPubkeys.get(x);
      if (!e) sd.tapMiscPubkeys.set(x, (e = { leafHashes: [], origin }));
      if (leafHash) addLeafHash(e, leafHex);
    }
    const agg = fromHex(aggHex);
    const target = musigTarget(agg, scriptKey, aggInfo, merkleRoot, sv);
    if (target === 'fail') return false;
    if (!target) continue;
    const { plain, tweaks } = target;
    const sig = aggregateFor(m, partHexes, agg, plain, leafHex, leafHash, tweaks, sighash, sd);
    if (!sig) continue;
    if (sv === 'taproot') sd.tapKeySig = sig;
    else sd.tapScriptSigs.set(keyHex + leafHex, { pubkey: keyHex, leaf: leafHex, sig });
  }
  return true;
}

/** MutableTransactionSignatureCreator::CreateMuSig2AggregateSig, then the aggregate verified against the key it signs for. */
function aggregateFor(
  m: MusigData,
  partHexes: string[],
  agg: Uint8Array,
  plain: Uint8Array,
  leafHex: string,
  leafHash: Uint8Array | null,
  tweaks: { t: Uint8Array; xonly: boolean }[],
  sighash: MusigSighash | undefined,
  sd: SigData,
): Uint8Array | null {
  const where = `MuSig2 key ${hexOf(plain)}${leafHash ? ` in leaf ${leafHex}` : ''}`;
  const note = (why: string): null => {
    sd.musigNotes.push(`${where}: ${why}`);
    return null;
  };
  const k = `${hexOf(plain)}|${leafHex}`;
  const nonces = m.pubnonces.get(k) ?? new Map<string, Uint8Array>();
  const psigs = m.partialSigs.get(k) ?? new Map<string, Uint8Array>();
  if (nonces.size === 0 && psigs.size === 0) return note(`no public nonce or partial signature yet (${names(partHexes)})`);
  const h = sighash?.(leafHash);
  if (!h) return sighash ? note('the sighash cannot be computed (a spent output is missing)') : null;
  const parts = partHexes.map((h) => fromHex(h));
  if (!parts.every(isCompressedPoint)) return note('a participant key is not a valid point');
  const r = aggregateMusig2(parts, agg, tweaks, h.msg, nonces, psigs);
  if ('why' in r) return note(r.why);
  if (!schnorrVerify(r.sig, h.msg, plain.subarray(1))) return note('the aggregate signature does not verify');
  return h.hashType ? Uint8Array.of(...r.sig, h.hashType) : r.sig;
}
