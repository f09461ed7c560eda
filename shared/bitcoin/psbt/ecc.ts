/**
 * secp256k1 for signature *verification* and taproot tweaks, through libsecp256k1 — the library
 * Bitcoin Core itself uses — built as WebAssembly (`tiny-secp256k1`, pinned). Each function answers
 * as Core's use of libsecp256k1 does: a key or signature that does not parse is "does not verify",
 * never an exception.
 *
 * - ECDSA: CPubKey::Verify — the key parsed (compressed, uncompressed or hybrid), the signature's
 *   S normalized (low-S is a separate policy check, checker.ts), then secp256k1_ecdsa_verify.
 * - BIP340 Schnorr: XOnlyPubKey::VerifySchnorr.
 * - BIP341 output keys: XOnlyPubKey::CreateTapTweak (secp256k1_xonly_pubkey_tweak_add).
 */
import * as secp from 'tiny-secp256k1';

export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A scalar as 32 big-endian bytes. */
export function bytes32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

/**
 * The key as libsecp256k1's secp256k1_ec_pubkey_parse reads it: 33-byte compressed, 65-byte
 * uncompressed, or 65-byte hybrid (0x06/0x07, whose tag must match y's parity) — given to the
 * library as uncompressed; null when it is none of these. Whether the bytes are a point on the
 * curve is left to the check itself (the library parses the key there; see ecdsaVerify).
 */
function parsedKey(pubkey: Uint8Array): Uint8Array | null {
  if (pubkey.length === 65 && (pubkey[0] === 6 || pubkey[0] === 7)) {
    if ((pubkey[64]! & 1) !== (pubkey[0]! & 1)) return null;
    const k = pubkey.slice();
    k[0] = 4;
    return k;
  }
  return pubkey.length === 33 || pubkey.length === 65 ? pubkey : null;
}

const N_BYTES = bytes32(N);
const HALF_N_BYTES = bytes32(N >> 1n);

/** a[off..off+32) compared with b (32 bytes), as big-endian numbers: negative, 0 or positive. */
function cmp32(a: Uint8Array, off: number, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = a[off + i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

const isZero32 = (a: Uint8Array, off: number): boolean => a.subarray(off, off + 32).every((x) => x === 0);

/**
 * r‖s of a strictly DER-encoded ECDSA signature (without its hash type byte) as 64 bytes, each
 * left-padded to 32; null when r or s has more than 32 significant bytes (not below n: Core's lax
 * parse reads it as an overflow, which never verifies).
 */
export function derCompact(sig: Uint8Array): Uint8Array | null {
  const lenR = sig[3]!;
  const lenS = sig[5 + lenR]!;
  const out = new Uint8Array(64);
  const put = (off: number, len: number, at: number): boolean => {
    while (len > 0 && sig[off] === 0) {
      off++;
      len--;
    }
    if (len > 32) return false;
    out.set(sig.subarray(off, off + len), at + 32 - len);
    return true;
  };
  return put(4, lenR, 0) && put(6 + lenR, lenS, 32) ? out : null;
}

/** r and s of a compact signature are both below n (CPubKey::CheckLowS's lax reading). */
export const rsBelowN = (c: Uint8Array): boolean => cmp32(c, 0, N_BYTES) < 0 && cmp32(c, 32, N_BYTES) < 0;

/** s above n/2 (a high S, not standard). */
export const highS = (c: Uint8Array): boolean => cmp32(c, 32, HALF_N_BYTES) > 0;

/**
 * ECDSA r‖s (64 bytes) over a 32-byte hash by `pubkey`, as CPubKey::Verify answers after Core's lax
 * DER parse: r or s zero or not below n does not verify; a high S is normalized first.
 */
export function ecdsaVerify(hash32: Uint8Array, sig64: Uint8Array, pubkey: Uint8Array): boolean {
  if (sig64.length !== 64 || hash32.length !== 32 || isZero32(sig64, 0) || isZero32(sig64, 32) || !rsBelowN(sig64)) return false;
  const key = parsedKey(pubkey);
  if (key === null) return false;
  // The hash, r and s are checked above, so the wrapper's only refusal left is a key that is not
  // a point ("Expected Point"): libsecp256k1's parse fails, and Core answers "does not verify".
  // Parsing it here instead of asking isPoint first saves a second parse (a square root) a check.
  try {
    return secp.verify(hash32, key, sig64, false);
  } catch (e) {
    if (e instanceof Error && e.message === 'Expected Point') return false;
    throw e;
  }
}

/** BIP340 verification of a 64-byte signature by an x-only key over a 32-byte message. */
export function schnorrVerify(sig: Uint8Array, msg32: Uint8Array, xonly: Uint8Array): boolean {
  if (sig.length !== 64 || xonly.length !== 32 || msg32.length !== 32 || !secp.isXOnlyPoint(xonly)) return false;
  // The wrapper refuses (throws) an r or s not below n where libsecp256k1 answers "does not verify"
  // for s ≥ n and checks r < p: an r in [n, p) is a point no signer can aim at (odds 2^-128 a
  // signature), so "does not verify" is Core's answer for every signature that exists.
  try {
    return secp.verifySchnorr(msg32, xonly, sig);
  } catch {
    return false;
  }
}

/**
 * BIP341 output key of an x-only internal key and a 32-byte tweak: lift_x(x) + t·G, its x and
 * whether its y is odd; null when the tweak is not below n, the key is not a point, or the sum is
 * the point at infinity.
 */
export function taprootTweak(xonly: Uint8Array, tweak: Uint8Array): { x: Uint8Array; odd: boolean } | null {
  if (xonly.length !== 32 || tweak.length !== 32 || !secp.isXOnlyPoint(xonly)) return null;
  let t = 0n;
  for (const b of tweak) t = (t << 8n) | BigInt(b);
  if (t >= N) return null;
  const q = secp.xOnlyPointAddTweak(xonly, tweak);
  return q === null ? null : { x: q.xOnlyPubkey, odd: q.parity === 1 };
}
