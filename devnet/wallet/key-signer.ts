/**
 * The private keys of descriptors, as a KeySigner for the shared PSBT roles (shared/bitcoin/psbt/
 * signer.ts): descriptorprocesspsbt's private descriptors, and the descriptors of a wallet that holds
 * its keys (walletprocesspsbt with sign). Each extended private key of a descriptor (`[origin]xprv/
 * path/*`) is derived over the descriptor's range, each WIF key taken as it is; a key is then found
 * by its public key (ECDSA) or its x-only key (Schnorr). Signatures are Core's: CKey::Sign (RFC6979,
 * low S, ground to a low R with Core's counter) and CKey::SignSchnorr with aux_rnd zero, the key
 * tweaked as a taproot internal key when asked (KeyPair with a merkle root).
 */
import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import type { Network } from '../../shared/bitcoin/networks';
import type { KeySigner } from '../../shared/bitcoin/psbt';
import { N } from '../../shared/bitcoin/psbt/ecc';
import { bytesToHex } from '../chain/encoding';

const base58check = createBase58check(sha256);
const HARDENED = 0x80000000;

const XPRV = /([tx]prv[1-9A-HJ-NP-Za-km-z]{100,112})((?:\/[0-9]+[hH']?)*)(\/\*[hH']?)?/g;
const WIF = /(?<![1-9A-HJ-NP-Za-km-z])[1-9A-HJ-NP-Za-km-z]{51,52}(?![1-9A-HJ-NP-Za-km-z])/g;


const toBig = (b: Uint8Array): bigint => BigInt(`0x${bytesToHex(b) || '0'}`);
const to32 = (n: bigint): Uint8Array => Uint8Array.from(n.toString(16).padStart(64, '0').match(/../g)!.map((h) => parseInt(h, 16)));

/** CKey::Sign with grind: RFC6979 without extra data, then with LE32(1), LE32(2)… until R is low. */
export function signEcdsaCore(hash: Uint8Array, priv: Uint8Array): Uint8Array {
  let sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, priv, { prehash: false, lowS: true }), 'compact');
  const entropy = new Uint8Array(32);
  for (let counter = 1; sig.r >= 1n << 255n; counter++) {
    new DataView(entropy.buffer).setUint32(0, counter, true);
    sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, priv, { prehash: false, lowS: true, extraEntropy: entropy }), 'compact');
  }
  return sig.toBytes('der');
}

/** CKey::SignSchnorr(hash, merkle_root, aux = 0): with a merkle root (null: none) the key is tweaked first. */
export function signSchnorrCore(hash: Uint8Array, priv: Uint8Array, merkleRoot: Uint8Array | null | undefined): Uint8Array {
  let d = toBig(priv);
  if (merkleRoot !== undefined) {
    const pub = secp256k1.getPublicKey(priv, true);
    if (pub[0] === 3) d = N - d;
    const x = pub.subarray(1);
    const t = toBig(schnorr.utils.taggedHash('TapTweak', merkleRoot && merkleRoot.some((b) => b !== 0) ? Uint8Array.of(...x, ...merkleRoot) : x));
    d = (d + t) % N;
  }
  return schnorr.sign(hash, to32(d), new Uint8Array(32));
}

interface Expr {
  base: HDKey;
  /** Derived per index (ranged), or the key itself. */
  ranged: { hardened: boolean; range: [number, number] } | null;
}

/** The keys of private descriptors ({text, range}), found by public key. */
export class DescriptorKeys implements KeySigner {
  private readonly exprs: Expr[] = [];
  private readonly byPub = new Map<string, Uint8Array>();
  private readonly byXonly = new Map<string, Uint8Array>();
  private derived = false;

  constructor(descriptors: ReadonlyArray<{ text: string; range: [number, number] }>, network: Network) {
    for (const { text, range } of descriptors) {
      for (const m of text.split('#')[0]!.matchAll(XPRV)) {
        let key: HDKey;
        try {
          key = HDKey.fromExtendedKey(m[1]!, network.bip32);
        } catch {
          continue;
        }
        const base = m[2] ? key.derive(`m${m[2].replace(/[hH]/g, "'")}`) : key;
        this.exprs.push({ base, ranged: m[3] ? { hardened: m[3].length > 2, range } : null });
      }
      for (const m of text.split('#')[0]!.matchAll(WIF)) {
        let raw: Uint8Array;
        try {
          raw = base58check.decode(m[0]);
        } catch {
          continue;
        }
        if (raw[0] !== network.wif || (raw.length !== 33 && !(raw.length === 34 && raw[33] === 1))) continue;
        this.add(raw.slice(1, 33), raw.length === 34);
      }
    }
  }

  get size(): number {
    return this.exprs.length + this.byPub.size;
  }

  private add(priv: Uint8Array, compressed: boolean): void {
    const pub = secp256k1.getPublicKey(priv, compressed);
    this.byPub.set(bytesToHex(pub), priv);
    const c = compressed ? pub : secp256k1.getPublicKey(priv, true);
    this.byXonly.set(bytesToHex(c.subarray(1)), priv);
  }

  /** Derives every key of every range once, at the first key not yet known. */
  private deriveAll(): void {
    if (this.derived) return;
    this.derived = true;
    for (const e of this.exprs) {
      if (!e.ranged) {
        if (e.base.privateKey) this.add(e.base.privateKey, true);
        continue;
      }
      for (let i = e.ranged.range[0]; i <= e.ranged.range[1]; i++) {
        const k = e.base.deriveChild(e.ranged.hardened ? i + HARDENED : i);
        if (k.privateKey) this.add(k.privateKey, true);
      }
    }
  }

  private find(map: Map<string, Uint8Array>, key: Uint8Array): Uint8Array | null {
    const hex = bytesToHex(key);
    if (!map.has(hex)) this.deriveAll();
    return map.get(hex) ?? null;
  }

  /** The private key of `pubkey` (a compressed or uncompressed ECDSA key), or null. */
  privateKey(pubkey: Uint8Array): Uint8Array | null {
    return this.find(this.byPub, pubkey);
  }

  ecdsa(pubkey: Uint8Array, hash: Uint8Array): Uint8Array | null {
    const priv = this.find(this.byPub, pubkey);
    return priv ? signEcdsaCore(hash, priv) : null;
  }

  schnorr(xonly: Uint8Array, hash: Uint8Array, merkleRoot: Uint8Array | null | undefined): Uint8Array | null {
    const priv = this.find(this.byXonly, xonly);
    return priv ? signSchnorrCore(hash, priv, merkleRoot) : null;
  }
}
