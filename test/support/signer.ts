/**
 * The test signer standing in for a hardware wallet: @scure/btc-signer with master keys, signing a
 * PSBT using only what the PSBT carries — for each input, the BIP32 derivations (fingerprint and
 * path; taproot ones for key-path inputs) select the master key and the child key, which must give the
 * pubkey the PSBT names. It signs what it can and returns the PSBT (version 0, as most signers write),
 * never finalized: Spyglass combines and finalizes.
 */
import * as btc from '@scure/btc-signer';
import { HDKey } from '@scure/bip32';
import { base64, hex } from '@scure/base';

export interface SignReport {
  psbt: Uint8Array;
  /** Inputs this signer signed. */
  signed: number[];
}

const fpOf = (k: HDKey): number => k.fingerprint >>> 0;

/** Master keys from extended private keys (tprv… / xprv…), as `listdescriptors true` prints them. */
export function masters(xprvs: readonly string[], versions?: { private: number; public: number }): HDKey[] {
  return xprvs.map((x) => HDKey.fromExtendedKey(x, versions));
}

/** The distinct master xprvs in a wallet's private descriptors (`listdescriptors true`). */
export function xprvsOf(descriptors: ReadonlyArray<{ desc: string }>): string[] {
  const found = new Set<string>();
  for (const d of descriptors) for (const m of d.desc.matchAll(/[tx]prv[1-9A-HJ-NP-Za-km-z]{100,}/g)) found.add(m[0]);
  return [...found];
}

export const REGTEST_VERSIONS = { private: 0x04358394, public: 0x043587cf };

export function signPsbt(psbt: Uint8Array, keys: readonly HDKey[]): SignReport {
  const tx = btc.Transaction.fromPSBT(psbt, { allowUnknownInputs: true, allowUnknownOutputs: true, allowLegacyWitnessUtxo: true, disableScriptCheck: false });
  const byFp = new Map(keys.map((k) => [fpOf(k), k]));
  const signed: number[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const derivations: Array<[Uint8Array, { fingerprint: number; path: number[] }]> = [
      ...((input.bip32Derivation ?? []) as Array<[Uint8Array, { fingerprint: number; path: number[] }]>),
      ...((input.tapBip32Derivation ?? []) as Array<[Uint8Array, { der: { fingerprint: number; path: number[] } }]>).map(([k, v]) => [k, v.der] as [Uint8Array, { fingerprint: number; path: number[] }]),
    ];
    for (const [pubkey, der] of derivations) {
      const master = byFp.get(der.fingerprint >>> 0);
      if (!master) continue;
      const child = der.path.reduce((k: HDKey, step) => k.deriveChild(step), master);
      const pub = child.publicKey!;
      const matches = pubkey.length === 32 ? hex.encode(pub.subarray(1)) === hex.encode(pubkey) : hex.encode(pub) === hex.encode(pubkey);
      if (!matches) throw new Error(`test signer: input ${i}: the key at ${der.path.join('/')} of ${der.fingerprint.toString(16)} is not the one the PSBT names`);
      if (tx.signIdx(child.privateKey!, i)) signed.push(i);
      break;
    }
  }
  return { psbt: tx.toPSBT(0), signed: [...new Set(signed)] };
}

export function signPsbtBase64(b64: string, keys: readonly HDKey[]): { base64: string; signed: number[] } {
  const r = signPsbt(base64.decode(b64), keys);
  return { base64: base64.encode(r.psbt), signed: r.signed };
}
