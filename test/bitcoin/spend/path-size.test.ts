/**
 * The input size of each spending path (shared/bitcoin/spend/path-size.ts).
 *
 * - Over the issue #32 policies Core watched (test/fixtures/miniscript/fill-core-31.99.jsonl): the
 *   witnessScript / tap leaf scripts we count are the expanded ones byte for byte in length, and the
 *   sizes per path are the hand-counted satisfactions.
 * - Against a witness built and signed here (keys this test holds, ECDSA from noble, BIP143 not
 *   needed: the size of a signature does not depend on what it signs), for both paths of
 *   wsh(or_d(pk(A),and_v(v:pkh(B),older(10)))): never below, and above by exactly 72 − (signature
 *   length) per signature.
 * - Against Core's finalized spends (test/fixtures/miniscript/finalize-core-*.jsonl, the finalizer's
 *   recordings, signed by Core key wallets): every recorded spend's witness is exactly our path's
 *   size less the bytes its signatures fall short of 72 (ECDSA) / 65 (Schnorr). Skipped while those
 *   recordings are not in the tree (they land with the finalizer's branch).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { parseDescriptor, type Descriptor } from '../../../shared/bitcoin/descriptor';
import { fromHex } from '../../../shared/bitcoin/hex';
import { REGTEST } from '../../../shared/bitcoin/networks';
import { hasPathChoice, pathInputSizes } from '../../../shared/bitcoin/spend/path-size';
import { SpendError } from '../../../shared/bitcoin/spend/errors';
import { compactSizeLen, parseTx } from '../../../shared/bitcoin/tx';

const FIX = join(import.meta.dirname, '..', '..', 'fixtures', 'miniscript');
const lines = (f: string): Record<string, unknown>[] =>
  readFileSync(join(FIX, f), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const fills = lines('fill-core-31.99.jsonl') as unknown as { note: string; descriptors: { desc: string }[] }[];
const descOf = (note: string): Descriptor => {
  const c = fills.find((f) => f.note === note);
  if (!c) throw new Error(`no fill "${note}"`);
  return parseDescriptor(c.descriptors[0]!.desc, REGTEST).expandMultipath()[0]!;
};
const witnessOf = (items: Uint8Array[]): number => items.reduce((a, x) => a + compactSizeLen(x.length) + x.length, compactSizeLen(items.length));
const sizesOf = (d: Descriptor): Record<string, number> => {
  const { policy, sizes } = pathInputSizes(d);
  return Object.fromEntries(policy.paths.map((p) => [p.words, sizes.get(p.id)!.witness]));
};

describe("the issue #32 policies Core watched: scripts as expanded, sizes as counted", () => {
  it('wsh A, or B after 10 blocks: sig + script; sig, key, empty + script', () => {
    const d = descOf('A, or B after 10 blocks');
    const ws = d.expand(0)[0]!.witnessScript!;
    expect(sizesOf(d)).toEqual({
      'key A': 1 + 73 + 1 + ws.length,
      'key B after 10 blocks (~1 h 40 min)': 1 + 73 + 34 + 1 + 1 + ws.length,
    });
  });

  it('decaying 2-of-3: the path not taken is dissatisfied (empty pushes)', () => {
    const d = descOf('2-of-3 decaying to 1-of-3 after 20 blocks');
    const ws = d.expand(0)[0]!.witnessScript!;
    // thresh(2,pk(A),s:pk(B),s:pk(C),sln:older(20)): four elements and the script; satisfied, sln: is or_i's right (an empty push)
    expect(sizesOf(d)).toEqual({
      // sln: dissatisfied is or_i's left (just_0) with its 0x01 push: 2 bytes
      '2 of A, B, C': 1 + 2 + 1 + 73 + 73 + 1 + ws.length,
      'any 1 of them after 20 blocks (~3 h 20 min)': 1 + 73 + 1 + 1 + 1 + 1 + ws.length,
    });
  });

  it('tr multi_a 2-of-3 under NUMS: two Schnorr signatures, one empty, the leaf and a 33-byte control block', () => {
    const d = descOf('tr multi_a 2-of-3 under NUMS');
    const leaves = d.expand(0)[0]!.tapLeaves!;
    expect(leaves).toHaveLength(1);
    const leaf = leaves[0]!;
    expect(Object.values(sizesOf(d))).toEqual([1 + 66 + 66 + 1 + compactSizeLen(leaf.script.length) + leaf.script.length + 1 + 33 + 32 * leaf.depth]);
  });

  it('tr key path plus a leaf: the key path is one 65-byte signature', () => {
    const d = descOf('tr key path plus timelocked leaf');
    const leaf = d.expand(0)[0]!.tapLeaves![0]!;
    const s = sizesOf(d);
    expect(s['key A']).toBe(1 + 66);
    expect(s['key B after 10 blocks (~1 h 40 min)']).toBe(1 + 66 + 1 + leaf.script.length + 1 + 33 + 32 * leaf.depth);
  });

  it('every policy: each leaf script length we count is the expanded one (control block by depth)', () => {
    for (const f of fills) {
      const d = descOf(f.note);
      const e = d.expand(0)[0]!;
      const { policy, sizes } = pathInputSizes(d);
      expect(hasPathChoice(d)).toBe(true);
      for (const p of policy.paths) {
        const s = sizes.get(p.id)!;
        expect(s.weight).toBe((32 + 4 + 4 + 1) * 4 + s.witness);
        expect(s.vsize).toBe(Math.ceil(s.weight / 4));
        if (p.kind === 'key-path') continue;
        const script = p.leaf === undefined ? e.witnessScript! : e.tapLeaves![p.leaf]!.script;
        const tail = compactSizeLen(script.length) + script.length + (p.leaf === undefined ? 0 : 1 + 33 + 32 * e.tapLeaves![p.leaf]!.depth);
        // what is left is the satisfaction: at least one element per signature needed
        const needed = p.sigs.reduce((a, g) => a + g.k, 0);
        expect(s.witness - tail).toBeGreaterThanOrEqual(1 + needed * (p.leaf === undefined ? 73 : 66));
      }
    }
  });

  it('single-path descriptors are size.ts\'s; addr() has no policy', () => {
    const d = parseDescriptor('wpkh(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)', REGTEST);
    expect(hasPathChoice(d)).toBe(false);
    expect(() => pathInputSizes(d)).toThrow(SpendError);
  });
});

// Keys this test holds: two signers, BIP48 accounts on regtest
const signer = (seed: number) => {
  const root = HDKey.fromMasterSeed(new Uint8Array(32).fill(seed), REGTEST.bip32);
  const account = root.derive("m/48'/1'/0'/2'");
  const fp = root.fingerprint.toString(16).padStart(8, '0');
  return { account, fp, expr: `[${fp}/48h/1h/0h/2h]${account.publicExtendedKey}/0/*` };
};

describe('a witness signed here', () => {
  const A = signer(1);
  const B = signer(2);
  const d = parseDescriptor(`wsh(or_d(pk(${A.expr}),and_v(v:pkh(${B.expr}),older(10))))`, REGTEST);
  const { policy, sizes } = pathInputSizes(d);
  const [primary, recovery] = policy.paths;

  for (let index = 0; index < 6; index++) {
    it(`index ${index}: both paths are at least the signed witness, 72 − signature length above it`, () => {
      const ws = d.expand(index)[0]!.witnessScript!;
      const sig = (who: typeof A): Uint8Array => {
        const key = who.account.deriveChild(0).deriveChild(index);
        const msg = new Uint8Array(32).fill(index + 7);
        return Uint8Array.from([...secp256k1.sign(msg, key.privateKey!, { prehash: false, format: 'der' }), 1]);
      };
      const sa = sig(A);
      const sb = sig(B);
      const pubB = B.account.deriveChild(0).deriveChild(index).publicKey!;
      // or_d(X, Z): X satisfied = [sigA]; Z satisfied after X dissatisfied = [sigB, keyB, <empty>]
      const realPrimary = witnessOf([sa, ws]);
      const realRecovery = witnessOf([sb, pubB, new Uint8Array(0), ws]);
      expect(sizes.get(primary!.id)!.witness).toBe(realPrimary + 72 - sa.length);
      expect(sizes.get(recovery!.id)!.witness).toBe(realRecovery + 72 - sb.length);
    });
  }
});

// Core's finalized spends of every policy, both generations (scripts/record-miniscript-finalize.ts).
const finalizeFiles = ['finalize-core-31.99.jsonl', 'finalize-core-30.99.jsonl'];

describe("Core's finalized spends", () => {
  for (const f of finalizeFiles) {
    it(`${f}: every witness is our path's size less what its signatures fall short of the maximum`, () => {
      let checked = 0;
      for (const o of lines(f) as { descriptor: string; note: string; extracted?: { hex?: string } }[]) {
        if (!o.extracted?.hex) continue;
        const d = parseDescriptor(o.descriptor, REGTEST).expandMultipath()[0]!;
        const { sizes } = pathInputSizes(d);
        const w = parseTx(fromHex(o.extracted.hex)).vin[0]!.witness;
        const real = witnessOf(w);
        // signatures: DER (0x30, length, …) with a sighash byte, or 64-byte Schnorr (SIGHASH_DEFAULT)
        const der = (x: Uint8Array): boolean => x.length >= 9 && x.length <= 73 && x[0] === 0x30 && x[1] === x.length - 3;
        const short = w.reduce((a, x) => a + (der(x) ? 72 - x.length : x.length === 64 ? 1 : 0), 0);
        const matching = [...sizes.values()].filter((s) => s.witness === real + short);
        expect(matching.length, o.note).toBeGreaterThan(0);
        expect(Math.min(...[...sizes.values()].map((s) => s.witness)), o.note).toBeLessThanOrEqual(real + short);
        checked++;
      }
      expect(checked).toBeGreaterThan(10);
    });
  }
});
