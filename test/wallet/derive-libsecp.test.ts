/**
 * A second opinion on the batched public derivation (shared/wallet/derive.ts over ec-batch.ts,
 * field.ts, field-mul.ts and hmac512.ts — hand-written arithmetic): its addresses against
 * libsecp256k1 (tiny-secp256k1, the library Core uses), seeded, every run.
 *
 * - 100,000 (parent key, index) public derivations: 70,000 P2WPKH and 30,000 P2TR addresses of 100
 *   random parents at random index windows (0, the top of the range 2^31 − 1, anywhere). The
 *   reference: IL = HMAC-SHA512(chain code, K ‖ index) by @noble/hashes, the child K + IL·G by
 *   libsecp256k1's pointAddScalar, and for taproot the output key by its xOnlyPointAddTweak with
 *   BIP341's TapTweak hash; addresses encoded by @scure/base.
 * - Edge scalars straight into the batch (k·G + A): 1, 2, n − 1, n − 2, 2^255, a result at the point
 *   at infinity (k with k·G = −A) and a zero scalar (both refused, as BIP32 calls such children
 *   invalid), each against pointAddScalar.
 *
 * A mutated field routine (a carry or a reduction constant changed) gives other addresses here.
 */
import { describe, expect, it } from 'vitest';
import * as secp from 'tiny-secp256k1';
import { HDKey } from '@scure/bip32';
import { bech32, bech32m } from '@scure/base';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { REGTEST } from '../../shared/bitcoin/networks';
import { WalletAddresses } from '../../shared/wallet/derive';
import { mulGAdd } from '../../shared/wallet/ec-batch';
import { ffromBytes, ftoBytes, LIMBS } from '../../shared/wallet/field';

const TPUB = { public: 0x043587cf, private: 0x04358394 };
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const TAPTWEAK = sha256(new TextEncoder().encode('TapTweak'));

/** Seeded bytes: SHA-256 of (seed, counter). */
function rng(seed: string): () => Uint8Array {
  let i = 0;
  const s = new TextEncoder().encode(seed);
  return () => sha256(Uint8Array.from([...s, ...new TextEncoder().encode(`/${i++}`)]));
}

const bytes32 = (v: bigint): Uint8Array => Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'));

/**
 * The compressed child public key at `index` by @noble/hashes and libsecp256k1; null when BIP32
 * calls it invalid. `compressed`: the parent's key as BIP32 hashes it.
 */
function childByLibsecp(parent: { publicKey: Uint8Array; chainCode: Uint8Array }, compressed: Uint8Array, index: number): Uint8Array | null {
  const msg = new Uint8Array(37);
  msg.set(compressed, 0);
  new DataView(msg.buffer).setUint32(33, index);
  const il = hmac(sha512, parent.chainCode, msg).subarray(0, 32);
  if (BigInt('0x' + Buffer.from(il).toString('hex')) >= N) return null;
  return secp.pointAddScalar(parent.publicKey, il, true);
}

function p2wpkh(pub: Uint8Array): string {
  return bech32.encode(REGTEST.bech32, [0, ...bech32.toWords(ripemd160(sha256(pub)))]);
}

function p2tr(pub: Uint8Array): string {
  const x = pub.subarray(1);
  const t = sha256(Uint8Array.from([...TAPTWEAK, ...TAPTWEAK, ...x]));
  const q = secp.xOnlyPointAddTweak(x, t);
  if (q === null) throw new Error('tweak at infinity');
  return bech32m.encode(REGTEST.bech32, [1, ...bech32m.toWords(q.xOnlyPubkey)]);
}

describe('batched derivation against libsecp256k1 (seeded)', () => {
  // Four quarters of 25,000 (each test within the suite's time limit on a loaded machine).
  it.each([0, 1, 2, 3])('100,000 (parent, index) derivations — 70,000 P2WPKH, 30,000 P2TR with their output-key tweaks — give libsecp256k1’s addresses: quarter %i', (quarter) => {
    const wrong: string[] = [];
    let checked = 0;
    for (let p = quarter * 25; p < quarter * 25 + 25; p++) {
      const next = rng(`spyglass derive-libsecp v1/${p}`);
      const parent = HDKey.fromMasterSeed(next(), TPUB).derive("m/86'/1'/0'/0");
      const xpub = parent.publicExtendedKey;
      const taproot = p % 10 < 3;
      const wallet = new WalletAddresses(taproot ? `tr(${xpub}/*)` : `wpkh(${xpub}/*)`, null, REGTEST);
      // Index windows: the first, the last of the range, and one anywhere.
      const r = next();
      const start = p % 25 === 0 ? 0 : p % 25 === 1 ? 0x80000000 - 1000 : new DataView(r.buffer).getUint32(0) % (0x80000000 - 1000);
      const got = wallet.addresses('receive', start, 1000);
      // The parent given uncompressed: libsecp256k1 then does not take a square root per child.
      const full = { publicKey: secp.pointCompress(parent.publicKey!, false), chainCode: parent.chainCode! };
      for (let j = 0; j < 1000; j++) {
        const child = childByLibsecp(full, parent.publicKey!, start + j);
        // An invalid child (IL ≥ n, odds 2^-127) makes the batch throw: it did not, so neither may this.
        const want = child === null ? 'invalid child' : taproot ? p2tr(child) : p2wpkh(child);
        if (got[j] !== want && wrong.length < 5) wrong.push(`${xpub}/${start + j}: ${got[j]} ≠ ${want}`);
        checked++;
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBe(25_000);
  });

  it('edge scalars into k·G + A equal pointAddScalar; a zero scalar and a sum at infinity are refused', () => {
    const next = rng('spyglass derive-libsecp edges');
    const A = secp.pointFromScalar(next(), false)!;
    const scalars = [1n, 2n, 3n, N - 1n, N - 2n, 1n << 255n, (1n << 256n) - 1n - (1n << 32n) - 977n - N, BigInt('0x' + Buffer.from(next()).toString('hex')) % N];
    const n = scalars.length;
    const ks = new Uint8Array(n * 32);
    scalars.forEach((k, i) => ks.set(bytes32(k), i * 32));
    const ax = new Float64Array(n * LIMBS);
    const ay = new Float64Array(n * LIMBS);
    for (let i = 0; i < n; i++) {
      ffromBytes(ax, i * LIMBS, A, 1);
      ffromBytes(ay, i * LIMBS, A, 33);
    }
    const ox = new Float64Array(n * LIMBS);
    const oy = new Float64Array(n * LIMBS);
    mulGAdd(n, ks, ax, ay, ox, oy);
    for (let i = 0; i < n; i++) {
      const want = secp.pointAddScalar(A, bytes32(scalars[i]!), false)!;
      const got = new Uint8Array(65);
      got[0] = 4;
      ftoBytes(ox, i * LIMBS, got, 1);
      ftoBytes(oy, i * LIMBS, got, 33);
      expect(Buffer.from(got).toString('hex'), `k = ${scalars[i]!.toString(16)}`).toBe(Buffer.from(want).toString('hex'));
    }
    // k·G = −A: the sum is the point at infinity (libsecp256k1 gives no key; the batch throws).
    const d = BigInt('0x' + Buffer.from(next()).toString('hex')) % N;
    const D = secp.pointFromScalar(bytes32(d), false)!;
    const kInf = bytes32(N - d);
    expect(secp.pointAddScalar(D, kInf, false)).toBeNull();
    const one = (k: Uint8Array): void => {
      const x = new Float64Array(LIMBS);
      const y = new Float64Array(LIMBS);
      ffromBytes(x, 0, D, 1);
      ffromBytes(y, 0, D, 33);
      mulGAdd(1, k, x, y, new Float64Array(LIMBS), new Float64Array(LIMBS));
    };
    expect(() => one(kInf)).toThrow();
    expect(() => one(new Uint8Array(32))).toThrow();
  });
});
