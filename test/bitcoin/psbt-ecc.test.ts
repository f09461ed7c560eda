/**
 * Signature checks through libsecp256k1 (shared/bitcoin/psbt/ecc.ts, checker.ts) against
 * @noble/curves as the reference signer: ECDSA signatures (low and high S, compressed, uncompressed
 * and hybrid keys) verify for their key and for no other key or hash; Schnorr signatures verify and
 * any changed byte fails; out-of-range values and points off the curve are "does not verify", never
 * an exception; taproot tweaks equal noble's point arithmetic.
 */
import { describe, expect, it } from 'vitest';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { derCompact, ecdsaVerify as verifyCompact, N, schnorrVerify, taprootTweak } from '../../shared/bitcoin/psbt/ecc';
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

describe('ECDSA through libsecp256k1', () => {
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

  it('refuses zero and out-of-range values and keys that are not points, without throwing', () => {
    const priv = sha256(Uint8Array.of(9, 1));
    const msg = sha256(Uint8Array.of(9));
    const sig = secp256k1.sign(msg, priv, { prehash: false, format: 'compact' });
    const r = big(sig.subarray(0, 32));
    const s = big(sig.subarray(32));
    const pub = secp256k1.getPublicKey(priv, true);
    const verifyRS = (m: Uint8Array, rr: bigint, ss: bigint, key: Uint8Array): boolean => ecdsaVerify(der(rr, ss), m, key);
    expect(verifyRS(msg, r, s, pub)).toBe(true);
    forgetSignatureVerdicts();
    // Zero, n, and values of 33 significant bytes (r + n, s + n: Core's lax parse overflows).
    for (const [rr, ss] of [[0n, s], [r, 0n], [r + N, s], [r, s + N], [N, s], [r, N]] as const) expect(verifyRS(msg, rr, ss, pub)).toBe(false);
    expect(verifyCompact(msg, new Uint8Array(64), pub)).toBe(false);
    expect(derCompact(der(r + N, s))).toBeNull();
    expect(verifyRS(msg, r, s, Uint8Array.of(2, ...new Uint8Array(32).fill(0xff)))).toBe(false); // x ≥ p
    expect(verifyRS(msg, r, s, Uint8Array.of(5, ...pub.subarray(1)))).toBe(false); // no such tag
    expect(verifyRS(msg, r, s, pub.subarray(0, 32))).toBe(false);
    const full = secp256k1.getPublicKey(priv, false);
    expect(verifyRS(msg, r, s, full)).toBe(true);
    const offCurve = Uint8Array.from(full);
    offCurve[64]! ^= 1;
    expect(verifyRS(msg, r, s, offCurve)).toBe(false);
    // Hybrid keys (0x06 even y, 0x07 odd y) parse as libsecp256k1 parses them: the tag must match y.
    const hybrid = Uint8Array.from(full);
    hybrid[0] = 6 + (full[64]! & 1);
    expect(verifyRS(msg, r, s, hybrid)).toBe(true);
    hybrid[0] ^= 1;
    expect(verifyRS(msg, r, s, hybrid)).toBe(false);
  });
});

describe('taproot output keys', () => {
  it('equal lift_x(x) + t·G by noble for 40 keys and tweaks; a tweak ≥ n or a key off the curve is null', () => {
    const Point = secp256k1.Point;
    for (let i = 0; i < 40; i++) {
      const x = schnorr.getPublicKey(sha256(Uint8Array.of(i, 11)));
      const t = sha256(Uint8Array.of(i, 12));
      const q = Point.fromBytes(Uint8Array.of(2, ...x)).add(Point.BASE.multiply(big(t) % N)).toAffine();
      const got = taprootTweak(x, t)!;
      expect(big(got.x)).toBe(q.x);
      expect(got.odd).toBe((q.y & 1n) === 1n);
    }
    const x = schnorr.getPublicKey(sha256(Uint8Array.of(1)));
    expect(taprootTweak(x, Uint8Array.from(Buffer.from(N.toString(16), 'hex')))).toBeNull();
    expect(taprootTweak(new Uint8Array(32).fill(0xff), new Uint8Array(32))).toBeNull();
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
