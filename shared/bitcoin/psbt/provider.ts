/**
 * What a signing role may ask about keys and scripts (Core's SigningProvider, src/script/
 * signingprovider.h) — without private keys: Spyglass never holds one. FlatProvider is Core's
 * FlatSigningProvider as a descriptor expansion fills it (DescriptorImpl::ExpandHelper): the
 * pubkeys by key id, their key origins, the redeem/witness scripts by CScriptID (HASH160) and the
 * taproot spend data by output key.
 */
import type { ExpandedKey, Expansion } from '../descriptor';
import { hexOf } from '../tx';
import { hash160 } from './edit';
import type { KeyOrigin, TapLeafScript, TapTreeLeaf } from './types';

/** TaprootSpendData: the internal key, the merkle root (null: key path only), the leaves. */
export interface TaprootSpendData {
  internalKey: Uint8Array;
  merkleRoot: Uint8Array | null;
  /** By script hex + ':' + leaf version, as the model's tapScripts. */
  scripts: Map<string, TapLeafScript>;
  /** The TaprootBuilder's leaves as GetTreeTuples lists them (absent or empty: no script tree). */
  tree?: TapTreeLeaf[];
}

/** The questions ProduceSignature asks (hex keys: key ids and script ids are HASH160s). */
export interface SolvingProvider {
  getPubKey(keyId: string): Uint8Array | undefined;
  getKeyOrigin(keyId: string): KeyOrigin | undefined;
  /** GetKeyOriginByXOnly: the origin of 02||x or 03||x. */
  getKeyOriginByXOnly(xonly: string): KeyOrigin | undefined;
  getScript(scriptId: string): Uint8Array | undefined;
  getTaprootSpendData(outputKey: string): TaprootSpendData | undefined;
  /** GetAllMuSig2ParticipantPubkeys: participant keys (hex, sorted) by aggregate key hex. */
  getAllMusig2Participants?(): ReadonlyMap<string, string[]>;
}

/** Core's DUMMY_SIGNING_PROVIDER: knows nothing. */
export const EMPTY_PROVIDER: SolvingProvider = {
  getPubKey: () => undefined,
  getKeyOrigin: () => undefined,
  getKeyOriginByXOnly: () => undefined,
  getScript: () => undefined,
  getTaprootSpendData: () => undefined,
};

export class FlatProvider implements SolvingProvider {
  readonly pubkeys = new Map<string, Uint8Array>();
  readonly origins = new Map<string, { pubkey: Uint8Array; origin: KeyOrigin }>();
  readonly xonlyOrigins = new Map<string, KeyOrigin>();
  readonly scripts = new Map<string, Uint8Array>();
  readonly trees = new Map<string, TaprootSpendData>();
  readonly musig = new Map<string, string[]>();

  getPubKey(keyId: string): Uint8Array | undefined {
    return this.pubkeys.get(keyId);
  }
  getKeyOrigin(keyId: string): KeyOrigin | undefined {
    return this.origins.get(keyId)?.origin;
  }
  getKeyOriginByXOnly(xonly: string): KeyOrigin | undefined {
    return this.xonlyOrigins.get(xonly);
  }
  getScript(scriptId: string): Uint8Array | undefined {
    return this.scripts.get(scriptId);
  }
  getTaprootSpendData(outputKey: string): TaprootSpendData | undefined {
    return this.trees.get(outputKey);
  }
  getAllMusig2Participants(): ReadonlyMap<string, string[]> {
    return this.musig;
  }

  /** A descriptor's key (GetPubKey's output): the key and origin; for musig() also the participants' and the aggregate's entry. */
  addExpandedKey(k: ExpandedKey): void {
    this.addKey(k.pubkey, k.origin ? { fp: k.origin.fingerprint, path: k.origin.path } : undefined);
    if (!k.musig) return;
    for (const part of k.musig.parts) this.addKey(part.pubkey, part.origin ? { fp: part.origin.fingerprint, path: part.origin.path } : undefined);
    const agg = hexOf(k.musig.agg);
    if (!this.musig.has(agg)) this.musig.set(agg, k.musig.parts.map((part) => hexOf(part.pubkey)));
  }

  addKey(pubkey: Uint8Array, origin: KeyOrigin | undefined): void {
    const id = hexOf(hash160(pubkey));
    if (!this.pubkeys.has(id)) this.pubkeys.set(id, pubkey);
    if (!origin || this.origins.has(id)) return;
    this.origins.set(id, { pubkey, origin });
    if (pubkey.length === 33) {
      const x = hexOf(pubkey, 1, 33);
      // GetKeyOriginByXOnly asks for 02||x first.
      if (!this.xonlyOrigins.has(x) || pubkey[0] === 2) this.xonlyOrigins.set(x, origin);
    }
  }

  /** A key a tapscript pkh() names by HASH160 of its x-only form (MiniscriptDescriptor's provider entry). */
  addXonlyHash(xonly: Uint8Array): void {
    const id = hexOf(hash160(xonly));
    if (!this.pubkeys.has(id)) this.pubkeys.set(id, Uint8Array.of(2, ...xonly));
  }

  /** FlatSigningProvider::Merge: what this provider lacks is taken from `o`; entries already here stay. */
  merge(o: FlatProvider): void {
    for (const { pubkey, origin } of o.origins.values()) this.addKey(pubkey, origin);
    for (const [id, pk] of o.pubkeys) if (!this.pubkeys.has(id)) this.pubkeys.set(id, pk);
    for (const [id, sc] of o.scripts) if (!this.scripts.has(id)) this.scripts.set(id, sc);
    for (const [k, t] of o.trees) if (!this.trees.has(k)) this.trees.set(k, t);
    for (const [k, parts] of o.musig) if (!this.musig.has(k)) this.musig.set(k, parts);
  }

  addScript(script: Uint8Array): void {
    const id = hexOf(hash160(script));
    if (!this.scripts.has(id)) this.scripts.set(id, script);
  }
}

/** The FlatSigningProvider of one descriptor expansion (ExpandFromCache at one index). */
export function providerOfExpansion(e: Expansion): FlatProvider {
  const p = new FlatProvider();
  for (const k of e.pubkeys) p.addExpandedKey(k);
  if (e.redeemScript) p.addScript(e.redeemScript);
  if (e.witnessScript) p.addScript(e.witnessScript);
  if (e.internalKey && e.script.length === 34 && e.script[0] === 0x51 && e.script[1] === 0x20) {
    p.trees.set(hexOf(e.script, 2, 34), { internalKey: e.internalKey, merkleRoot: null, scripts: new Map() });
  }
  return p;
}

/** HidingSigningProvider(provider, hide_secret = true, hide_origin): bip32derivs = false hides the origins. */
export function hideOrigins(p: SolvingProvider): SolvingProvider {
  return {
    getPubKey: (id) => p.getPubKey(id),
    getKeyOrigin: () => undefined,
    getKeyOriginByXOnly: () => undefined,
    getScript: (id) => p.getScript(id),
    getTaprootSpendData: (k) => p.getTaprootSpendData(k),
    getAllMusig2Participants: () => p.getAllMusig2Participants?.() ?? new Map(),
  };
}
