/**
 * BIP327 MuSig2 arithmetic for the finalizer (what libsecp256k1's musig module does inside Core's
 * CreateMuSig2AggregateSig, src/musig.cpp): KeyAgg over the participant keys in the order given
 * (Core aggregates the PSBT field's order; KeySort is the descriptor's business), plain and x-only
 * tweaks, nonce aggregation, the session values b, R, e, partial signature verification and
 * aggregation. Points are 33-byte compressed keys (null: the point at infinity) through
 * tiny-secp256k1 (libsecp256k1 as WebAssembly); scalars are bigints mod n. Nothing here holds or
 * makes a secret: no nonce generation, no partial signing.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import * as secp from 'tiny-secp256k1';
import { hexOf } from '../tx';
import { bytes32, N } from './ecc';
import { bytesEqual } from './edit';

type Pt = Uint8Array | null;

/** BIP328: the chain code of an aggregate key's synthetic xpub. */
export { MUSIG_CHAINCODE } from '../descriptor/musig';

const tagged = (tag: string, ...parts: Uint8Array[]): Uint8Array => schnorr.utils.taggedHash(tag, ...parts);

export function bigOf(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

const mod = (v: bigint): bigint => ((v % N) + N) % N;
const G = secp.pointFromScalar(bytes32(1n), true)!;

/** A valid compressed point (secp256k1_ec_pubkey_parse of 33 bytes). */
export function isCompressedPoint(b: Uint8Array): boolean {
  return b.length === 33 && (b[0] === 2 || b[0] === 3) && secp.isPoint(b);
}

function mul(p: Pt, k: bigint): Pt {
  const s = mod(k);
  if (!p || s === 0n) return null;
  return secp.pointMultiply(p, bytes32(s), true);
}

/** k·G (libsecp256k1's generator table: several times faster than a general multiplication). */
function mulG(k: bigint): Pt {
  const s = mod(k);
  return s === 0n ? null : secp.pointFromScalar(bytes32(s), true);
}

function add(a: Pt, b: Pt): Pt {
  if (!a) return b;
  if (!b) return a;
  return secp.pointAdd(a, b, true);
}

/** -P: the same x, the other y. */
function neg(p: Pt): Pt {
  if (!p) return null;
  const q = p.slice();
  q[0] = q[0] === 2 ? 3 : 2;
  return q;
}

const evenY = (p: Uint8Array): boolean => p[0] === 2;

/** A KeyAgg context: the aggregate Q, the accumulated sign gacc and tweak tacc, and each key's coefficient. */
export interface KeyAggCtx {
  q: Uint8Array;
  gacc: bigint;
  tacc: bigint;
  /** KeyAggCoeff by key hex. */
  coef: Map<string, bigint>;
}

/** BIP327 KeyAgg (no sorting); null when a key is not a valid point or the sum is infinity. */
export function keyAggregate(pubkeys: readonly Uint8Array[]): KeyAggCtx | null {
  if (pubkeys.length === 0 || !pubkeys.every(isCompressedPoint)) return null;
  const L = tagged('KeyAgg list', ...pubkeys);
  const second = pubkeys.find((p) => !bytesEqual(p, pubkeys[0]!));
  const coef = new Map<string, bigint>();
  let q: Pt = null;
  for (const pk of pubkeys) {
    const k = hexOf(pk);
    let a = coef.get(k);
    if (a === undefined) {
      a = second && bytesEqual(pk, second) ? 1n : mod(bigOf(tagged('KeyAgg coefficient', L, pk)));
      coef.set(k, a);
    }
    q = add(q, mul(pk, a));
  }
  return q ? { q, gacc: 1n, tacc: 0n, coef } : null;
}

/** BIP327 ApplyTweak (plain or x-only); null when the tweak is not below n or the result is infinity. */
export function applyTweak(ctx: KeyAggCtx, tweak: Uint8Array, xonly: boolean): KeyAggCtx | null {
  const t = bigOf(tweak);
  if (tweak.length !== 32 || t >= N) return null;
  const g = xonly && !evenY(ctx.q) ? N - 1n : 1n;
  const q = add(mul(ctx.q, g), mulG(t));
  if (!q) return null;
  return { q, gacc: mod(g * ctx.gacc), tacc: mod(t + g * ctx.tacc), coef: ctx.coef };
}

/** The two points of a 66-byte public nonce; null when either is not a valid point. */
function nonceParts(pubnonce: Uint8Array): [Uint8Array, Uint8Array] | null {
  if (pubnonce.length !== 66) return null;
  const r1 = pubnonce.subarray(0, 33);
  const r2 = pubnonce.subarray(33);
  return isCompressedPoint(r1) && isCompressedPoint(r2) ? [r1, r2] : null;
}

/** BIP327 NonceAgg: 66 bytes (an infinite half as 33 zero bytes); null when a nonce does not parse. */
export function nonceAggregate(pubnonces: readonly Uint8Array[]): Uint8Array | null {
  const out = new Uint8Array(66);
  for (const j of [0, 1]) {
    let r: Pt = null;
    for (const n of pubnonces) {
      const parts = nonceParts(n);
      if (!parts) return null;
      r = add(r, parts[j]!);
    }
    if (r) out.set(r, j * 33);
  }
  return out;
}

export interface Session {
  ctx: KeyAggCtx;
  b: bigint;
  r: Uint8Array;
  e: bigint;
}

const halfOf = (aggnonce: Uint8Array, j: number): Pt => {
  const h = aggnonce.subarray(j * 33, j * 33 + 33);
  return h.every((x) => x === 0) ? null : h;
};

/** BIP327 GetSessionValues for an aggregate nonce, a (tweaked) key context and a 32-byte message. */
export function sessionValues(aggnonce: Uint8Array, ctx: KeyAggCtx, msg: Uint8Array): Session {
  const qx = ctx.q.subarray(1);
  const b = mod(bigOf(tagged('MuSig/noncecoef', aggnonce, qx, msg)));
  const r = add(halfOf(aggnonce, 0), mul(halfOf(aggnonce, 1), b)) ?? G;
  const e = mod(bigOf(tagged('BIP0340/challenge', r.subarray(1), qx, msg)));
  return { ctx, b, r, e };
}

/** BIP327 PartialSigVerifyInternal: s below n, s·G = Re + e·a·g·gacc·P. */
export function partialSigVerify(psig: Uint8Array, pubnonce: Uint8Array, pubkey: Uint8Array, s: Session): boolean {
  const v = bigOf(psig);
  const parts = nonceParts(pubnonce);
  const a = s.ctx.coef.get(hexOf(pubkey));
  if (psig.length !== 32 || v >= N || !parts || a === undefined) return false;
  const reP = add(parts[0], mul(parts[1], s.b));
  const re = evenY(s.r) ? reP : neg(reP);
  const g = evenY(s.ctx.q) ? 1n : N - 1n;
  const lhs = mulG(v);
  const rhs = add(re, mul(pubkey, s.e * a * mod(g * s.ctx.gacc)));
  return lhs === null || rhs === null ? lhs === rhs : bytesEqual(lhs, rhs);
}

/** BIP327 PartialSigAgg: R's x and s = Σ s_i + e·g·tacc (64 bytes); the partial signatures must be below n. */
export function partialSigAggregate(psigs: readonly Uint8Array[], s: Session): Uint8Array {
  const g = evenY(s.ctx.q) ? 1n : N - 1n;
  let sum = mod(s.e * g * s.ctx.tacc);
  for (const p of psigs) sum = mod(sum + bigOf(p));
  const out = new Uint8Array(64);
  out.set(s.r.subarray(1), 0);
  out.set(bytes32(sum), 32);
  return out;
}

/**
 * BIP32 CKDpub steps from a 33-byte key and chain code, with each step's tweak IL (what Core's
 * CExtPubKey::Derive hands SignMuSig2 as a plain tweak); null for a hardened step or an invalid child.
 */
export function bip32Tweaks(pub: Uint8Array, chainCode: Uint8Array, path: readonly number[]): { pub: Uint8Array; tweaks: Uint8Array[] } | null {
  let key: Uint8Array = pub;
  let cc = chainCode;
  const tweaks: Uint8Array[] = [];
  for (const step of path) {
    if (step >= 0x80000000 || !isCompressedPoint(key)) return null;
    const data = new Uint8Array(37);
    data.set(key, 0);
    new DataView(data.buffer).setUint32(33, step, false);
    const i = hmac(sha512, cc, data);
    const il = i.slice(0, 32);
    if (bigOf(il) >= N) return null;
    const child = secp.pointAddScalar(key, il, true);
    if (!child) return null;
    tweaks.push(il);
    key = child;
    cc = i.slice(32);
  }
  return { pub: key, tweaks };
}
