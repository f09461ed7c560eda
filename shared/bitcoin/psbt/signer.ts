/**
 * Signatures made by a key holder (Core's MutableTransactionSignatureCreator over a provider that
 * holds keys, src/script/sign.cpp). Spyglass itself never holds a private key: the keys stay with
 * the caller's KeySigner — the devnet's wallets and descriptorprocesspsbt's private descriptors —
 * and this creator only computes the sighash Core would sign and asks the signer for it, so the
 * signing roles walk the same ProduceSignature code as the keyless ones.
 */
import type { TxChecker } from './checker';
import { schnorrSighashOf, type Creator } from './produce';
import { legacySighash, segwitV0Sighash, SIGHASH_ALL, SIGHASH_DEFAULT, taprootSighash, type SigVersion } from './sighash';

/** What holds the keys; each answer is null when the key is not held. */
export interface KeySigner {
  /** CKey::Sign: the DER signature of `hash` (RFC6979, low S, ground to a low R) by the key of `pubkey`. */
  ecdsa(pubkey: Uint8Array, hash: Uint8Array): Uint8Array | null;
  /**
   * CKey::SignSchnorr with aux_rnd zero: the BIP340 signature of `hash` by the key whose x-only
   * public key is `xonly`; `merkleRoot` undefined signs with the key itself, null or 32 bytes with
   * the key tweaked as a taproot internal key (without or with a script tree).
   */
  schnorr(xonly: Uint8Array, hash: Uint8Array, merkleRoot: Uint8Array | null | undefined): Uint8Array | null;
}

/** MutableTransactionSignatureCreator(tx, nIn, amount, txdata, hashType) with `signer`'s keys. */
export function signingCreator(checker: TxChecker, signer: KeySigner, hashType: number): Creator {
  return {
    checker,
    musigSighash: schnorrSighashOf(checker, hashType),
    createSig(pubkey: Uint8Array, scriptCode: Uint8Array, sv: SigVersion): Uint8Array | null {
      // Signing with uncompressed keys is disabled in witness scripts.
      if (sv === 'v0' && pubkey.length !== 33) return null;
      // BASE/WITNESS_V0 signatures take no explicit SIGHASH_DEFAULT: SIGHASH_ALL instead.
      const ht = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType;
      const hash = sv === 'base' ? legacySighash(checker.tx, checker.nIn, scriptCode, ht) : segwitV0Sighash(checker.data!, checker.nIn, scriptCode, checker.amount, ht);
      const sig = signer.ecdsa(pubkey, hash);
      return sig ? Uint8Array.of(...sig, ht) : null;
    },
    createSchnorrSig(xonly: Uint8Array | undefined, sv: SigVersion, merkleRoot?: Uint8Array | null): Uint8Array | null {
      // Key path only (no tapscript leaves are satisfied here), and only with every spent output known.
      if (!xonly || sv !== 'taproot' || !checker.data?.taproot) return null;
      const hash = taprootSighash(checker.data, checker.nIn, hashType, null);
      if (!hash) return null;
      const sig = signer.schnorr(xonly, hash, merkleRoot);
      if (!sig) return null;
      return hashType === SIGHASH_DEFAULT ? sig : Uint8Array.of(...sig, hashType);
    },
  };
}
