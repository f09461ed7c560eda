/**
 * Offline check of an input's MuSig2 partial signatures (BIP373 fields), each on its own, as BIP327
 * PartialSigVerify: the session it belongs to is found as SignMuSig2 finds it (musig2-sign.ts) — an
 * aggregate of the participants field, derived along the script key's origin (BIP328 synthetic
 * xpub), taproot-tweaked for a key path — and the signature is checked against its participant's
 * public nonce, the aggregate of every participant's nonce, and the BIP341 / BIP342 sighash. This
 * names a bad partial signature even where the finalizer never reaches it (another path completes
 * the input first), so strict finalize refuses it and a combine drops it, as for any signature.
 * Unverifiable, not invalid, when what the check needs is missing (a nonce, a spent output, the
 * participants) or is someone else's fault (another participant's nonce is not two points).
 */
import { fromHex } from '../hex';
import { witnessProgram } from '../script';
import { hexOf, type TxOut } from '../tx';
import { N } from './ecc';
import { bytesEqual } from './edit';
import { applyTweak, bigOf, keyAggregate, nonceAggregate, partialSigVerify, sessionValues } from './musig2';
import { musigDataOf, musigTarget } from './musig2-sign';
import { ZERO32_HEX as ZERO32 } from './read-common';
import { SIGHASH_DEFAULT, taprootSighash, type SighashData, type SigVersion } from './sighash';
import type { MusigDatum, PsbtInput } from './types';
import type { SignatureCheck } from './verify';

/** The keys a session of `leaf` can sign for: the key path's two (internal with its tweak, output as is) or the leaf's keys. */
function scriptKeys(input: PsbtInput, utxo: TxOut | null, leaf: string, aggs: string[]): { key: Uint8Array; merkleRoot: Uint8Array | null | undefined; sv: SigVersion }[] {
  if (leaf === ZERO32) {
    const out: { key: Uint8Array; merkleRoot: Uint8Array | null | undefined; sv: SigVersion }[] = [];
    if (input.tapInternalKey) out.push({ key: input.tapInternalKey, merkleRoot: input.tapMerkleRoot ?? null, sv: 'taproot' });
    const wp = utxo ? witnessProgram(utxo.script) : null;
    if (wp && wp.version === 1 && wp.program.length === 32) out.push({ key: wp.program, merkleRoot: undefined, sv: 'taproot' });
    return out;
  }
  const xs = new Set<string>(aggs.map((a) => a.slice(2)));
  for (const [x, d] of input.tapBip32) if (d.leafHashes.includes(leaf)) xs.add(x);
  return [...xs].map((x) => ({ key: fromHex(x), merkleRoot: undefined, sv: 'tapscript' as const }));
}

/**
 * Checks every MuSig2 partial signature of input `index` (`data`: the transaction's sighash data, or
 * null): one check each, of kind 'musig2-partial' — `pubkey` the participant, `aggregate` the key the
 * session signs for as the field names it, `sighash` the input's hash type.
 */
export function checkMusigPartials(input: PsbtInput, index: number, utxo: TxOut | null, data: SighashData | null): SignatureCheck[] {
  const out: SignatureCheck[] = [];
  const hashType = input.sighash ?? SIGHASH_DEFAULT;
  const { pubnonces } = musigDataOf(input);
  for (const d of input.musigPartialSigs.values()) {
    const base = { input: index, kind: 'musig2-partial' as const, pubkey: d.part, aggregate: d.agg, ...(d.leaf !== ZERO32 ? { leafHash: d.leaf } : {}), sighash: hashType };
    const say = (status: SignatureCheck['status'], reason?: string): void => {
      out.push({ ...base, status, ...(reason ? { reason } : {}) });
    };
    const psig = fromHex(d.value);
    if (psig.length !== 32 || bigOf(psig) >= N) {
      say('invalid', 'the MuSig2 partial signature is not a scalar below the curve order');
      continue;
    }
    const session = findSession(input, utxo, d);
    if (!session) {
      say('unverifiable', 'no aggregate of the participants field leads to the key it signs for');
      continue;
    }
    const sessionNonces = pubnonces.get(`${d.agg}|${d.leaf}`);
    const nonces = session.parts.map((p) => sessionNonces?.get(p));
    const missing = session.parts.filter((_, i) => !nonces[i]);
    if (missing.length) {
      say('unverifiable', `no public nonce yet by participant${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
      continue;
    }
    if (!data?.taproot) {
      say('unverifiable', 'a spent output (UTXO) of the transaction is missing; taproot sighashes commit to all of them');
      continue;
    }
    const msg = taprootSighash(data, index, hashType, d.leaf === ZERO32 ? null : fromHex(d.leaf));
    const aggnonce = nonceAggregate(nonces.map((n) => n!));
    let ctx = keyAggregate(session.parts.map((p) => fromHex(p)));
    if (!ctx || !bytesEqual(ctx.q, session.agg)) {
      say('unverifiable', `the participant keys, in the participants field's order, do not aggregate to ${hexOf(session.agg)}`);
      continue;
    }
    if (!msg || !aggnonce) {
      say('unverifiable', !msg ? `the sighash type ${hashType} gives no sighash` : 'a public nonce of the session is not two valid points');
      continue;
    }
    for (const { t, xonly } of session.tweaks) ctx = ctx && applyTweak(ctx, t, xonly);
    const own = nonces[session.parts.indexOf(d.part)]!;
    if (!ctx) say('unverifiable', 'a key tweak is invalid');
    else if (partialSigVerify(psig, own, fromHex(d.part), sessionValues(aggnonce, ctx, msg))) say('valid');
    else say('invalid', 'the MuSig2 partial signature does not verify');
  }
  return out;
}

/** The participants and tweaks of the session `d` belongs to: an aggregate listing its participant whose way to a script key ends at the key `d` names. */
function findSession(input: PsbtInput, utxo: TxOut | null, d: MusigDatum): { agg: Uint8Array; parts: string[]; tweaks: { t: Uint8Array; xonly: boolean }[] } | null {
  if (!d.agg || !d.part) return null;
  const aggs = [...input.musigParticipants.values()].filter((e) => e.parts.includes(d.part));
  const named = fromHex(d.agg);
  for (const { key, merkleRoot, sv } of scriptKeys(input, utxo, d.leaf, aggs.map((e) => e.agg))) {
    const origin = input.tapBip32.get(hexOf(key))?.origin;
    for (const e of aggs) {
      const agg = fromHex(e.agg);
      const t = musigTarget(agg, key, origin, merkleRoot, sv);
      if (t && t !== 'fail' && bytesEqual(t.plain, named)) return { agg, parts: e.parts, tweaks: t.tweaks };
    }
  }
  return null;
}
