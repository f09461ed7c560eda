/**
 * The verification arithmetic (shared/bitcoin/psbt/ecc.ts, checker.ts) against @noble/curves as
 * the reference signer: ECDSA signatures (low and high S, compressed and uncompressed keys) verify
 * for their key and for no other key or hash; Schnorr signatures verify and any changed byte fails;
 * out-of-range values and points off the curve are refused.
 */
import { describe, expect, it } from 'vitest';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ecdsaRecoverAll, N, pointKey, schnorrVerify, sqrtP } from '../../shared/bitcoin/psbt/ecc';
import { ecdsaVerify, forgetSignatureVerdicts } from '../../shared/bitcoin/psbt/checker';

const big = (b: Uint8Array): bigint => BigInt('0x' + Buffer.from(b).toString('hex'));

/** DER (no hash type byte) of r and s. */
function der(r: bigint, s: bigint): Uint8Array {
  const int = (v: bigint): number[] => {
    let h = v.toString(16);
    if (h.length % 2) h = '0' + h;
    const b = [...Buffer.from(h, 'hex')];
    return b[0]! & 0x80 ? [0, ...b] : b;
  };
  const rb = int(r);
  const sb = int(s);
  return Uint8Array.from([0x30, 4 + rb.length + sb.length, 2, rb.length, ...rb, 2, sb.length, ...sb]);
}

describe('ECDSA by key recovery', () => {
  it('agrees with noble on 60 signatures: the signer’s key only, either S', () => {
    forgetSignatureVerdicts();
    for (let i = 0; i < 60; i++) {
      const priv = sha256(Uint8Array.of(i, 1));
      const msg = sha256(Uint8Array.of(i, 2));
      const sig = secp256k1.sign(msg, priv, { prehash: false, format: 'compact' });
      const r = big(sig.subarray(0, 32));
      const s = big(sig.subarray(32));
      const pub = secp256k1.getPublicKey(priv, i % 3 !== 0);
      const other = secp256k1.getPublicKey(sha256(Uint8Array.of(i, 3)), true);
      expect(ecdsaVerify(der(r, s), msg, pub)).toBe(true);
      expect(ecdsaVerify(der(r, N - s), msg, pub)).toBe(true); // Core normalizes S before verifying
      expect(ecdsaVerify(der(r, s), msg, other)).toBe(false);
      expect(ecdsaVerify(der(r, s), sha256(msg), pub)).toBe(false);
      expect(ecdsaVerify(der(r, s - 1n), msg, pub)).toBe(false);
      expect(secp256k1.verify(sig, msg, pub, { prehash: false })).toBe(true);
    }
  });

  it('refuses zero and out-of-range values and keys that are not points', () => {
    const msg = sha256(Uint8Array.of(9));
    expect(ecdsaRecoverAll(msg, 0n, 1n).size).toBe(0);
    expect(ecdsaRecoverAll(msg, 1n, N).size).toBe(0);
    expect(pointKey(Uint8Array.of(2, ...new Uint8Array(32).fill(0xff)))).toBeNull();
    expect(pointKey(Uint8Array.of(5, ...new Uint8Array(32).fill(1)))).toBeNull();
    const g = secp256k1.getPublicKey(Uint8Array.of(...new Uint8Array(31), 1), false);
    expect(pointKey(g)).toBe(pointKey(secp256k1.getPublicKey(Uint8Array.of(...new Uint8Array(31), 1), true)));
    const offCurve = Uint8Array.from(g);
    offCurve[64]! ^= 1;
    expect(pointKey(offCurve)).toBeNull();
  });

  it('square roots', () => {
    for (const x of [4n, 9n, 7n * 7n]) expect(sqrtP(x)! ** 2n % (2n ** 256n - 2n ** 32n - 977n)).toBe(x);
    expect(sqrtP(3n)).toBeNull(); // 3 is not a square mod p (p ≡ 3 mod 4, -1 is not a square)
  });
});

describe('BIP340 Schnorr', () => {
  it('agrees with noble on 40 signatures; any changed byte fails', () => {
    for (let i = 0; i < 40; i++) {
      const priv = sha256(Uint8Array.of(i, 5));
      const msg = sha256(Uint8Array.of(i, 6));
      const x = schnorr.getPublicKey(priv);
      const sig = schnorr.sign(msg, priv);
      expect(schnorrVerify(sig, msg, x)).toBe(true);
      for (const at of [0, 31, 32, 63]) {
        const t = Uint8Array.from(sig);
        t[at]! ^= 0x10;
        expect(schnorrVerify(t, msg, x)).toBe(schnorr.verify(t, msg, x));
      }
      expect(schnorrVerify(sig, sha256(msg), x)).toBe(false);
    }
  });
  it('refuses s ≥ n, r ≥ p and keys off the curve', () => {
    const msg = sha256(Uint8Array.of(1));
    const priv = sha256(Uint8Array.of(2));
    const sig = schnorr.sign(msg, priv);
    const x = schnorr.getPublicKey(priv);
    const highS = Uint8Array.from(sig);
    highS.set(Buffer.from(N.toString(16), 'hex'), 32);
    expect(schnorrVerify(highS, msg, x)).toBe(false);
    const highR = Uint8Array.from(sig);
    highR.fill(0xff, 0, 32);
    expect(schnorrVerify(highR, msg, x)).toBe(false);
    expect(schnorrVerify(sig, msg, new Uint8Array(32).fill(0xff))).toBe(false);
  });
});
