/**
 * Our BIP327 arithmetic (shared/bitcoin/psbt/musig2.ts, tiny-secp256k1) against the BIP's own test
 * vectors (test/fixtures/musig/bip327-*_vectors.json: bitcoin/bips bip-0327/vectors, copied
 * verbatim) and differentially against @scure/btc-signer's musig2 module (an independent
 * implementation on @noble/curves) on seeded random inputs: KeyAgg with plain and x-only tweaks,
 * nonce aggregation, session values, partial signature verification and aggregation, and the
 * aggregate checked as a BIP340 signature. scure also signs the partial signatures the
 * aggregation is fed: Spyglass itself never signs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import * as scure from '@scure/btc-signer/musig2.js';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../shared/bitcoin/hex';
import { schnorrVerify } from '../../shared/bitcoin/psbt/ecc';
import { applyTweak, bip32Tweaks, keyAggregate, nonceAggregate, partialSigAggregate, partialSigVerify, sessionValues, type KeyAggCtx } from '../../shared/bitcoin/psbt/musig2';
import { bytes32 } from '../../shared/bitcoin/psbt/ecc';
import { HDKey } from '@scure/bip32';
import { keyAgg } from '../../shared/bitcoin/descriptor/musig';
import { compareBytes } from '../../shared/bitcoin/descriptor/helpers';

/** The fields of the BIP's vector files this test reads (each file has some of them). */
interface VectorCase {
  key_indices: number[];
  nonce_indices: number[];
  pnonce_indices: number[];
  tweak_indices: number[];
  is_xonly: boolean[];
  psig_indices: number[];
  aggnonce: string;
  aggnonce_index?: number;
  msg_index: number;
  signer_index: number;
  expected: string;
  sig: string;
  comment?: string;
  error: { signer: number };
}
interface Vectors {
  pubkeys: string[];
  pnonces: string[];
  tweaks: string[];
  psigs: string[];
  aggnonces: string[];
  msgs: string[];
  msg: string;
  valid_test_cases: VectorCase[];
  error_test_cases: VectorCase[];
  verify_fail_test_cases: VectorCase[];
  verify_error_test_cases: VectorCase[];
}

const vectors = (name: string): Vectors => JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'musig', `bip327-${name}_vectors.json`), 'utf8'));
const hx = (s: string): Uint8Array => fromHex(s.toLowerCase());

function tweaked(keys: Uint8Array[], tweaks: Uint8Array[], xonly: boolean[]): KeyAggCtx | null {
  let ctx = keyAggregate(keys);
  for (const [i, t] of tweaks.entries()) ctx = ctx && applyTweak(ctx, t, xonly[i]!);
  return ctx;
}

describe('BIP327 test vectors', () => {
  it('KeyAgg: valid and error cases', () => {
    const v = vectors('key_agg');
    const keys = (v.pubkeys as string[]).map(hx);
    for (const c of v.valid_test_cases) expect(toHex(keyAggregate(c.key_indices.map((i: number) => keys[i]!))!.q.subarray(1))).toBe(c.expected.toLowerCase());
    for (const c of v.error_test_cases) {
      expect(tweaked(c.key_indices.map((i: number) => keys[i]!), c.tweak_indices.map((i: number) => hx(v.tweaks[i]!)), c.is_xonly), c.comment).toBeNull();
    }
  });

  it('NonceAgg: valid and error cases', () => {
    const v = vectors('nonce_agg');
    const nonces = (v.pnonces as string[]).map(hx);
    for (const c of v.valid_test_cases) expect(toHex(nonceAggregate(c.pnonce_indices.map((i: number) => nonces[i]!))!)).toBe(c.expected.toLowerCase());
    for (const c of v.error_test_cases) expect(nonceAggregate(c.pnonce_indices.map((i: number) => nonces[i]!)), c.comment).toBeNull();
  });

  it('PartialSigVerify: the valid partial signatures verify, the wrong ones do not', () => {
    const v = vectors('sign_verify');
    const keys = (v.pubkeys as string[]).map(hx);
    const nonces = (v.pnonces as string[]).map(hx);
    const verify = (c: VectorCase, sig: string): boolean => {
      const ks = c.key_indices.map((i: number) => keys[i]!);
      const ns = c.nonce_indices.map((i: number) => nonces[i]!);
      const ctx = keyAggregate(ks);
      const agg = nonceAggregate(ns);
      if (!ctx || !agg) return false;
      if (c.aggnonce_index !== undefined) expect(toHex(agg)).toBe(v.aggnonces[c.aggnonce_index]!.toLowerCase());
      return partialSigVerify(hx(sig), ns[c.signer_index]!, ks[c.signer_index]!, sessionValues(agg, ctx, hx(v.msgs[c.msg_index]!)));
    };
    for (const c of v.valid_test_cases) expect(verify(c, c.expected), c.comment).toBe(true);
    for (const c of v.verify_fail_test_cases) expect(verify(c, c.sig), c.comment).toBe(false);
    for (const c of v.verify_error_test_cases) expect(verify(c, c.sig), c.comment).toBe(false);
  });

  it('PartialSigAgg: the aggregate signatures, and a partial signature not below n refused', () => {
    const v = vectors('sig_agg');
    const keys = (v.pubkeys as string[]).map(hx);
    const nonces = (v.pnonces as string[]).map(hx);
    for (const c of v.valid_test_cases) {
      expect(toHex(nonceAggregate(c.nonce_indices.map((i: number) => nonces[i]!))!)).toBe(c.aggnonce.toLowerCase());
      const ctx = tweaked(c.key_indices.map((i: number) => keys[i]!), c.tweak_indices.map((i: number) => hx(v.tweaks[i]!)), c.is_xonly)!;
      const s = sessionValues(hx(c.aggnonce), ctx, hx(v.msg));
      const sig = partialSigAggregate(c.psig_indices.map((i: number) => hx(v.psigs[i]!)), s);
      expect(toHex(sig)).toBe(c.expected.toLowerCase());
      expect(schnorrVerify(sig, hx(v.msg), ctx.q.subarray(1))).toBe(true);
    }
    for (const c of v.error_test_cases) {
      // PartialSigAgg's range check is partialSigVerify's first (aggregateMusig2 runs it before summing)
      const ctx = tweaked(c.key_indices.map((i: number) => keys[i]!), c.tweak_indices.map((i: number) => hx(v.tweaks[i]!)), c.is_xonly)!;
      const s = sessionValues(hx(c.aggnonce), ctx, hx(v.msg));
      const bad = c.error.signer;
      expect(partialSigVerify(hx(v.psigs[c.psig_indices[bad]!]!), nonces[c.nonce_indices[bad]!]!, keys[c.key_indices[bad]!]!, s), c.comment).toBe(false);
    }
  });
});

/** Deterministic bytes for the random cases (a failing case can be re-run). */
function seeded(seed: string): (n: number) => Uint8Array {
  let i = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let o = 0; o < n; o += 32) out.set(sha256(new TextEncoder().encode(`${seed}/${i++}`)).subarray(0, Math.min(32, n - o)), o);
    return out;
  };
}

describe('the descriptor code\'s KeyAgg (on @noble/curves, for the renderer) and the finalizer\'s (libsecp256k1)', () => {
  it('give the same aggregate after KeySort, repeated keys included, on 60 seeded key sets', () => {
    for (let run = 0; run < 60; run++) {
      const rnd = seeded(`spyglass-keyagg-${run}`);
      const keys = Array.from({ length: 1 + (run % 5) }, () => scure.IndividualPubkey(rnd(32)));
      if (run % 4 === 0 && keys.length > 2) keys[2] = keys[0]!;
      const sorted = keys.slice().sort(compareBytes);
      expect(toHex(keyAgg(keys)), `run ${run}`).toBe(toHex(keyAggregate(sorted)!.q));
    }
  });
});

describe('differential against @scure/btc-signer musig2', () => {
  it('KeyAgg, tweaks, NonceAgg, partial signatures and their aggregate agree on 40 random sessions', () => {
    for (let run = 0; run < 40; run++) {
      const rnd = seeded(`spyglass-musig2-${run}`);
      const n = 1 + (run % 4);
      const secrets = Array.from({ length: n }, () => rnd(32));
      const keys = secrets.map((s) => scure.IndividualPubkey(s));
      if (run % 5 === 0 && n > 1) keys[1] = keys[0]!; // a repeated key (the second-key rule)
      if (run % 5 === 0 && n > 1) secrets[1] = secrets[0]!;
      const tweaks = Array.from({ length: run % 3 }, () => rnd(32));
      const xonly = tweaks.map((_, i) => (run + i) % 2 === 0);
      const msg = rnd(32);

      const ours = tweaked(keys, tweaks, xonly)!;
      const theirs = scure.keyAggregate(keys, tweaks, xonly);
      expect(toHex(ours.q)).toBe(toHex(theirs.aggPublicKey.toBytes(true)));
      expect(ours.gacc).toBe(theirs.gAcc);
      expect(ours.tacc).toBe(theirs.tweakAcc);

      const nonces = keys.map((k, i) => scure.nonceGen(k, secrets[i], undefined, msg, undefined, rnd(32)));
      const aggnonce = nonceAggregate(nonces.map((x) => x.public))!;
      expect(toHex(aggnonce)).toBe(toHex(scure.nonceAggregate(nonces.map((x) => x.public))));

      const session = new scure.Session(aggnonce, keys, msg, tweaks, xonly);
      const psigs = nonces.map((x, i) => session.sign(x.secret, secrets[i]!));
      const s = sessionValues(aggnonce, ours, msg);
      psigs.forEach((p, i) => {
        expect(partialSigVerify(p, nonces[i]!.public, keys[i]!, s)).toBe(true);
        expect(session.partialSigVerify(p, nonces.map((x) => x.public), i)).toBe(true);
        const wrong = p.slice();
        wrong[31]! ^= 1;
        expect(partialSigVerify(wrong, nonces[i]!.public, keys[i]!, s)).toBe(false);
      });
      const sig = partialSigAggregate(psigs, s);
      expect(toHex(sig)).toBe(toHex(session.partialSigAgg(psigs)));
      expect(schnorrVerify(sig, msg, ours.q.subarray(1))).toBe(true);
      expect(schnorr.verify(sig, msg, ours.q.subarray(1))).toBe(true);
    }
  });

  it('the BIP32 tweaks off a synthetic xpub give @scure/bip32\'s child key, and as plain tweaks its aggregate', () => {
    const rnd = seeded('spyglass-musig2-bip32');
    for (let run = 0; run < 10; run++) {
      const keys = [rnd(32), rnd(32)].map((s) => scure.IndividualPubkey(s));
      const agg = keyAggregate(keys)!;
      const chainCode = rnd(32);
      const path = [run, 7, run * 1000];
      const d = bip32Tweaks(agg.q, chainCode, path)!;
      expect(toHex(d.pub)).toBe(toHex(new HDKey({ publicKey: agg.q, chainCode }).derive(`m/${path.join('/')}`).publicKey!));
      expect(toHex(tweaked(keys, d.tweaks, d.tweaks.map(() => false))!.q)).toBe(toHex(d.pub));
    }
    expect(bip32Tweaks(keyAggregate([scure.IndividualPubkey(rnd(32))])!.q, rnd(32), [0x80000000])).toBeNull();
    expect(applyTweak(keyAggregate([scure.IndividualPubkey(rnd(32))])!, bytes32(2n ** 256n - 1n), true)).toBeNull();
  });
});
