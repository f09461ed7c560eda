/**
 * The review's spending paths per input (shared/bitcoin/psbt/review-paths.ts): which paths the coin
 * can take, the keys that signed (a signature that verifies) and those missing, and whether the
 * transaction's nSequence / nLockTime let each path's timelock pass.
 *
 * Over Core's own fills (test/fixtures/miniscript/fill-core-31.99.jsonl: walletprocesspsbt of a
 * watch-only wallet of each issue #32 policy — no signature yet), and over a PSBT built and filled
 * here for keys this test holds, signed by hand (BIP143 sighash, ECDSA from noble).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { fromHex, toHex } from '../../shared/bitcoin/hex';
import { describePolicy } from '../../shared/bitcoin/miniscript/policy';
import { REGTEST } from '../../shared/bitcoin/networks';
import { decodeBase64Core, encodeBase64, fillPsbtBase64, parsePsbtForReview, reviewPsbt } from '../../shared/bitcoin/psbt';
import { afterMet, olderMet, reviewInputPaths } from '../../shared/bitcoin/psbt/review-paths';
import { own } from '../../shared/bitcoin/psbt/read-common';
import { precompute } from '../../shared/bitcoin/psbt/sign-input';
import { segwitV0Sighash } from '../../shared/bitcoin/psbt/sighash';
import { hash160 } from '../../shared/bitcoin/descriptor/helpers';
import { parseTx, serializeTx } from '../../shared/bitcoin/tx';
import { createPsbtBytes } from '../../shared/send/create-psbt';

interface FillCase {
  note: string;
  descriptors: { desc: string; range: [number, number] }[];
  result: { psbt: string };
}

const fills = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'miniscript', 'fill-core-31.99.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as FillCase);

const reviewOf = (b64: string) => {
  const r = parsePsbtForReview(decodeBase64Core(b64)!);
  if (!r.ok) throw new Error(r.message);
  return r.psbt;
};

describe("Core's fills of the issue #32 policies", () => {
  for (const c of fills) {
    it(`${c.note}: every input is the wallet's, with the policy's paths and no signature yet`, () => {
      const descriptors = c.descriptors.flatMap((d) => parseDescriptor(d.desc, REGTEST).expandMultipath());
      const psbt = reviewOf(c.result.psbt);
      const paths = reviewInputPaths(psbt, descriptors);
      const words = describePolicy(descriptors[0]!).words;
      expect(paths.length).toBe(psbt.inputs.length);
      for (const p of paths) {
        expect(p).not.toBeNull();
        expect(p!.words).toBe(words);
        for (const path of p!.paths) {
          expect(path.signed).toEqual([]);
          expect(path.needed).toBeGreaterThan(0);
        }
      }
    });
  }

  it('without descriptors (or with another wallet’s) no input has paths', () => {
    const c = fills[0]!;
    const psbt = reviewOf(c.result.psbt);
    expect(reviewInputPaths(psbt, []).every((p) => p === null)).toBe(true);
    const other = parseDescriptor(fills[2]!.descriptors[0]!.desc, REGTEST);
    expect(reviewInputPaths(psbt, [other]).every((p) => p === null)).toBe(true);
  });
});

// Keys this test holds: two signers, BIP48 accounts on regtest
const signer = (seed: number) => {
  const root = HDKey.fromMasterSeed(new Uint8Array(32).fill(seed), REGTEST.bip32);
  const account = root.derive("m/48'/1'/0'/2'");
  const fp = root.fingerprint.toString(16).padStart(8, '0');
  return { account, fp, expr: `[${fp}/48h/1h/0h/2h]${account.publicExtendedKey}/0/*` };
};
const A = signer(1);
const B = signer(2);
const DESC = `wsh(or_d(pk(${A.expr}),and_v(v:pkh(${B.expr}),older(10))))`;
const INDEX = 3;
const AMOUNT = 100_000n;

/** A PSBT spending the wallet's coin at INDEX with `sequence`, filled as walletprocesspsbt would. */
function walletPsbt(sequence: number) {
  const d = parseDescriptor(DESC, REGTEST);
  const e = d.expand(INDEX)[0]!;
  const prev = serializeTx({ version: 2, locktime: 0, vin: [{ prevTxid: '11'.repeat(32), vout: 0, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }], vout: [{ value: AMOUNT, script: e.script }] }, { witness: false });
  const prevTxid = parseTx(prev).txid;
  const bytes = createPsbtBytes({ version: 2, locktime: 0, inputs: [{ txid: prevTxid, vout: 0, sequence }], outputs: [{ script: fromHex('0014' + '22'.repeat(20)), value: 90_000n }] }, 0);
  const filled = fillPsbtBase64({ psbt: encodeBase64(bytes), descriptors: [{ desc: DESC, range: [0, 10] }], prevtxs: { [prevTxid]: toHex(prev) }, network: REGTEST });
  if (!filled.ok) throw new Error(filled.error);
  return { d, e, psbt: reviewOf(filled.psbt) };
}

/** Adds `who`'s signature (SIGHASH_ALL) of input 0; `corrupt` flips a byte of the hash signed. */
function sign(w: ReturnType<typeof walletPsbt>, who: typeof A, corrupt = false): void {
  const key = who.account.deriveChild(0).deriveChild(INDEX);
  const pre = precompute(w.psbt)!;
  const hash = segwitV0Sighash(pre.data, 0, w.e.witnessScript!, AMOUNT, 1);
  if (corrupt) hash[0]! ^= 1;
  const sig = Uint8Array.from([...secp256k1.sign(hash, key.privateKey!, { prehash: false, format: 'der' }), 1]);
  // the model's empty maps are one shared sentinel: a fresh map in its place (as the signer does)
  const input = w.psbt.inputs[0]!;
  input.partialSigs = own(input.partialSigs);
  input.partialSigs.set(toHex(hash160(key.publicKey!)), { pubkey: key.publicKey!, sig });
}

describe('a PSBT signed here', () => {
  it('nothing signed: both paths miss their key; the recovery path’s timelock is not set (RBF nSequence)', () => {
    const w = walletPsbt(0xfffffffd);
    const [p] = reviewInputPaths(w.psbt, [w.d]);
    expect(p).toMatchObject({ index: INDEX, words: 'Key A, or key B after 10 blocks (~1 h 40 min)' });
    expect(p!.keys).toEqual([
      { name: 'A', fingerprint: A.fp },
      { name: 'B', fingerprint: B.fp },
    ]);
    expect(p!.paths).toEqual([
      { id: 'p0', kind: 'script', words: 'key A', signed: [], missing: ['A'], needed: 1, timelock: 'none' },
      { id: 'p1', kind: 'script', words: 'key B after 10 blocks (~1 h 40 min)', signed: [], missing: ['B'], needed: 1, timelock: 'unmet' },
    ]);
  });

  it('A signed: the primary path has enough signatures', () => {
    const w = walletPsbt(0xfffffffd);
    sign(w, A);
    const [p] = reviewInputPaths(w.psbt, [w.d]);
    expect(p!.paths.map((x) => [x.signed, x.missing, x.needed])).toEqual([
      [['A'], [], 0],
      [[], ['B'], 1],
    ]);
  });

  it('B signed on a transaction whose nSequence is 10: the recovery path is ready', () => {
    const w = walletPsbt(10);
    sign(w, B);
    const [p] = reviewInputPaths(w.psbt, [w.d]);
    expect(p!.paths[1]).toMatchObject({ signed: ['B'], missing: [], needed: 0, timelock: 'met' });
    expect(p!.paths[0]).toMatchObject({ signed: [], needed: 1 });
  });

  it('a signature that does not verify is not counted as signed', () => {
    const w = walletPsbt(0xfffffffd);
    sign(w, A, true);
    const [p] = reviewInputPaths(w.psbt, [w.d]);
    expect(p!.paths[0]).toMatchObject({ signed: [], missing: ['A'], needed: 1 });
  });

  it('reviewPsbt carries the paths on each input when given the wallet’s descriptors', () => {
    const w = walletPsbt(0xfffffffd);
    const review = reviewPsbt(w.psbt, { network: REGTEST, watched: new Set(), descriptors: [w.d] });
    expect(review.inputs[0]!.paths?.paths.map((x) => x.id)).toEqual(['p0', 'p1']);
    expect(reviewPsbt(w.psbt, { network: REGTEST, watched: new Set() }).inputs[0]!.paths).toBeUndefined();
  });
});

describe('timelocks against nSequence and nLockTime', () => {
  it('older(n): BIP68 — version 2, same unit, at least as long, not disabled', () => {
    expect(olderMet(10, 10, 2)).toBe(true);
    expect(olderMet(10, 9, 2)).toBe(false);
    expect(olderMet(10, 10, 1)).toBe(false);
    expect(olderMet(10, 0xfffffffd, 2)).toBe(false);
    expect(olderMet(10, (1 << 22) | 10, 2)).toBe(false);
    expect(olderMet((1 << 22) | 5, (1 << 22) | 6, 2)).toBe(true);
  });
  it('after(n): BIP65 — same kind, at least n, a non-final nSequence', () => {
    expect(afterMet(200, 200, 0xfffffffd)).toBe(true);
    expect(afterMet(200, 199, 0xfffffffd)).toBe(false);
    expect(afterMet(200, 250, 0xffffffff)).toBe(false);
    expect(afterMet(200, 1767225600, 0xfffffffd)).toBe(false);
    expect(afterMet(1767225600, 1767225601, 0)).toBe(true);
  });
});
