/**
 * The vsize estimate against really signed transactions (test keys, @scure/btc-signer, finalized):
 * - exact: the estimate equals the weight of the signed transaction with every signature at its
 *   largest standard size (ECDSA 72 bytes with sighash, Schnorr 65);
 * - never below the signed vsize;
 * - at most 1 vB per input above it for every single-signature type and for witness multisig up
 *   to 4 signatures, with signatures of 71 or 72 bytes (low R or not); past that, at most
 *   1 WU per witness signature and 1 vB per scriptSig signature (+2 vB when a p2sh scriptSig's length
 *   drops below 253 bytes): a signature a byte shorter than the largest is not knowable in advance.
 */
import { describe, expect, test } from 'vitest';
import * as btc from '@scure/btc-signer';
import { estimateTx, inputVsize, inputWeight, multisigScriptSize, validateInputKind, type InputKind } from '../../../shared/bitcoin/spend/size';
import { SpendError } from '../../../shared/bitcoin/spend/errors';
import { NET, signSpend, testKey } from './signing';
import { paddedWeight } from './padded';
import { prng } from './wallet';

const OUT_P2WPKH = btc.p2wpkh(testKey(1).pub, NET).script;
const OUTPUT_SCRIPTS: Record<string, Uint8Array> = {
  p2pkh: btc.p2pkh(testKey(2).pub, NET).script,
  p2sh: btc.p2sh(btc.p2wpkh(testKey(3).pub, NET), NET).script,
  p2wpkh: OUT_P2WPKH,
  p2wsh: btc.p2wsh(btc.p2ms(2, [testKey(4).pub, testKey(5).pub, testKey(6).pub]), NET).script,
  p2tr: btc.p2tr(testKey(7).xonly, undefined, NET).script,
  opreturn80: btc.Script.encode(['RETURN', new Uint8Array(80).fill(0xab)]),
};

/** Per-input allowance in vB given signatures of 71–72 bytes (see the file comment). */
function allowance(k: InputKind): number {
  if (k.type === 'p2sh-multi') return k.m + 2;
  if (k.type === 'p2wsh-multi' || k.type === 'p2sh-p2wsh-multi') return Math.max(1, Math.ceil(k.m / 4));
  return 1;
}


function check(kinds: InputKind[], outputs: Uint8Array[], opts: { lowR?: boolean; taprootSighash?: number } = {}): void {
  const signed = signSpend(
    kinds,
    outputs.map((script) => ({ script, amount: 1000n })),
    opts,
  );
  const m = paddedWeight(signed);
  const est = estimateTx(kinds, outputs);
  const label = `${kinds.length} inputs [${[...new Set(kinds.map((k) => ('m' in k ? `${k.type} ${k.m}-of-${k.n}` : k.type)))].join(', ')}], ${outputs.length} outputs, lowR=${opts.lowR ?? false}`;
  // exact: our formula is the serialization with the largest signatures
  expect(est.weight, label).toBe(m.weight);
  expect(est.segwit, label).toBe(kinds.some((k) => k.type !== 'p2pkh' && k.type !== 'p2sh-multi'));
  // never below
  expect(est.vsize, label).toBeGreaterThanOrEqual(m.actualVsize);
  expect(est.weight, label).toBeGreaterThanOrEqual(m.actualWeight);
  // the excess is only what shorter signatures save
  const excess = est.vsize - m.actualVsize;
  const shortSigs = m.stats.ecdsa.filter((l) => l < 71).length;
  if (shortSigs === 0) {
    const bound = kinds.reduce((a, k) => a + allowance(k), 0);
    expect(excess, label).toBeLessThanOrEqual(bound);
    if (kinds.every((k) => allowance(k) === 1)) expect(excess, label).toBeLessThanOrEqual(kinds.length);
  }
}

const SINGLE: InputKind[] = [{ type: 'p2pkh' }, { type: 'p2sh-p2wpkh' }, { type: 'p2wpkh' }, { type: 'p2tr' }];

describe('size estimate vs really signed transactions', () => {
  for (const lowR of [false, true]) {
    // every count from 1 to 20 with signatures as they come; with ground R (every signature 71
    // bytes, so the estimate's excess is largest) a spread of counts
    const counts = lowR ? [1, 2, 3, 5, 8, 13, 20] : Array.from({ length: 20 }, (_, i) => i + 1);
    test(`every single-signature type, ${lowR ? 'several counts of inputs up to 20' : '1..20 inputs'}, lowR=${lowR}`, () => {
      for (const k of SINGLE) for (const n of counts) check(Array(n).fill(k), [OUT_P2WPKH], { lowR });
    });

    test(`multisig m-of-n in p2sh, p2wsh and p2sh-p2wsh, lowR=${lowR}`, () => {
      const shapes: [number, number][] = [
        [1, 1],
        [1, 2],
        [2, 2],
        [2, 3],
        [3, 5],
        [4, 7],
        [5, 7],
        [11, 15],
        [15, 15],
      ];
      for (const [m, n] of shapes) {
        check([{ type: 'p2sh-multi', m, n }], [OUT_P2WPKH], { lowR });
        check([{ type: 'p2wsh-multi', m, n }], [OUT_P2WPKH], { lowR });
        check([{ type: 'p2sh-p2wsh-multi', m, n }], [OUT_P2WPKH], { lowR });
      }
      // more keys than btc-signer's p2ms takes (signed by hand), up to Core's 20
      for (const [m, n] of [
        [16, 16],
        [2, 17],
        [17, 20],
        [20, 20],
      ] as [number, number][]) {
        check([{ type: 'p2wsh-multi', m, n }], [OUT_P2WPKH], { lowR });
        check([{ type: 'p2sh-p2wsh-multi', m, n }], [OUT_P2WPKH], { lowR });
      }
    });

    test(`2-of-3 vaults with 1..20 inputs, lowR=${lowR}`, () => {
      for (const n of [1, 2, 3, 7, 20]) {
        check(Array(n).fill({ type: 'p2wsh-multi', m: 2, n: 3 }), [OUT_P2WPKH, OUTPUT_SCRIPTS.p2wsh!], { lowR });
        check(Array(n).fill({ type: 'p2sh-p2wsh-multi', m: 2, n: 3 }), [OUT_P2WPKH], { lowR });
        check(Array(n).fill({ type: 'p2sh-multi', m: 2, n: 3 }), [OUT_P2WPKH], { lowR });
      }
    });

    test(`mixed types, 1..20 inputs, several outputs, lowR=${lowR}`, () => {
      const all: InputKind[] = [...SINGLE, { type: 'p2sh-multi', m: 2, n: 3 }, { type: 'p2wsh-multi', m: 2, n: 3 }, { type: 'p2sh-p2wsh-multi', m: 3, n: 5 }, { type: 'p2pkh', uncompressed: true }];
      const rnd = prng(lowR ? 2 : 1);
      const outs = Object.values(OUTPUT_SCRIPTS);
      for (let n = 1; n <= 20; n++) {
        const kinds = Array.from({ length: n }, () => all[Math.floor(rnd() * all.length)]!);
        const outputs = Array.from({ length: 1 + Math.floor(rnd() * 6) }, (_, i) => outs[i % outs.length]!);
        check(kinds, outputs, { lowR });
      }
      // every output type at once, and every input type at once
      check(all, outs, { lowR });
    });
  }

  test('a legacy-only transaction has no marker and flag', () => {
    check([{ type: 'p2pkh' }, { type: 'p2sh-multi', m: 2, n: 3 }, { type: 'p2pkh', uncompressed: true }], [OUT_P2WPKH]);
    check([{ type: 'p2pkh' }], [OUT_P2WPKH]);
    check([{ type: 'p2sh-multi', m: 2, n: 3, uncompressed: 1 }, { type: 'p2sh-multi', m: 1, n: 2, uncompressed: 2 }], [OUT_P2WPKH]);
  });

  test('taproot signed with SIGHASH_ALL (65-byte signature) is estimated exactly', () => {
    check([{ type: 'p2tr' }, { type: 'p2tr' }], [OUT_P2WPKH], { taprootSighash: btc.SigHash.ALL });
  });

  test('input and output counts past 252 (3-byte compact sizes)', () => {
    check(Array(253).fill({ type: 'p2wpkh' }), [OUT_P2WPKH]);
    check([{ type: 'p2wpkh' }], Array(253).fill(OUT_P2WPKH));
  });

  test('the test signer makes ECDSA signatures of both sizes and Schnorr signatures of 64 and 65 bytes', () => {
    const stats = paddedWeight(signSpend(Array(24).fill({ type: 'p2wpkh' }), [{ script: OUT_P2WPKH, amount: 1000n }])).stats;
    // DER + sighash byte: 71 (low R) and 72 (high R, not ground); low S always, so never 73
    expect(stats.ecdsa).toContain(71);
    expect(stats.ecdsa).toContain(72);
    expect(Math.max(...stats.ecdsa)).toBe(72);
    const ground = paddedWeight(signSpend(Array(24).fill({ type: 'p2wpkh' }), [{ script: OUT_P2WPKH, amount: 1000n }], { lowR: true })).stats;
    expect(Math.max(...ground.ecdsa)).toBe(71);
    expect(paddedWeight(signSpend([{ type: 'p2tr' }], [{ script: OUT_P2WPKH, amount: 1000n }])).stats.schnorr).toEqual([64]);
    expect(paddedWeight(signSpend([{ type: 'p2tr' }], [{ script: OUT_P2WPKH, amount: 1000n }], { taprootSighash: btc.SigHash.ALL })).stats.schnorr).toEqual([65]);
  });
});

describe('size rules', () => {
  test("input vsizes match Core's constants", () => {
    // Core with R grinding (its wallet's own signer): DUMMY_NESTED_P2WPKH_INPUT_SIZE = 91,
    // p2wpkh 68 (67.75), p2pkh 148 in a segwit tx (147.25), p2tr key path 58 (57.75).
    expect(inputVsize({ type: 'p2sh-p2wpkh' }, { ecdsa: 'low-r' })).toBe(91);
    expect(inputVsize({ type: 'p2wpkh' }, { ecdsa: 'low-r' })).toBe(68);
    expect(inputVsize({ type: 'p2pkh' }, { ecdsa: 'low-r' })).toBe(148);
    expect(inputVsize({ type: 'p2tr' })).toBe(58);
    // the contract's 72-byte signatures: the classic 148-byte p2pkh input, p2wpkh 68.
    expect(inputWeight({ type: 'p2wpkh' }, true)).toBe(272);
    expect(inputWeight({ type: 'p2pkh' }, false)).toBe(148 * 4);
    expect(inputWeight({ type: 'p2pkh' }, true)).toBe(148 * 4 + 1);
    expect(inputWeight({ type: 'p2pkh', uncompressed: true }, false)).toBe(180 * 4);
    expect(inputWeight({ type: 'p2tr' }, true)).toBe(164 + 67);
  });

  test('multisig script sizes', () => {
    expect(multisigScriptSize(2, 3)).toBe(105);
    expect(multisigScriptSize(1, 1)).toBe(37);
    expect(multisigScriptSize(15, 15)).toBe(513);
    expect(multisigScriptSize(17, 20)).toBe(2 + 20 * 34 + 2 + 1);
    expect(multisigScriptSize(2, 3, 1)).toBe(105 + 32);
  });

  test('impossible multisig shapes are refused with the reason', () => {
    const bad: [InputKind, RegExp][] = [
      [{ type: 'p2wsh-multi', m: 3, n: 2 }, /3-of-2 multisig is not possible/],
      [{ type: 'p2wsh-multi', m: 0, n: 2 }, /0-of-2/],
      [{ type: 'p2wsh-multi', m: 2, n: 21 }, /≤ 20/],
      [{ type: 'p2sh-multi', m: 2, n: 16 }, /547 bytes, over the 520-byte limit/],
      [{ type: 'p2sh-multi', m: 2, n: 3, uncompressed: 4 }, /cannot have 4 uncompressed keys/],
    ];
    for (const [k, re] of bad) {
      expect(() => validateInputKind(k)).toThrow(re);
      try {
        validateInputKind(k);
      } catch (e) {
        expect(e).toBeInstanceOf(SpendError);
        expect((e as SpendError).code).toBe('spend.invalid_input_kind');
      }
    }
  });

  test('outputs and overhead: an empty-witness transaction and a segwit one', () => {
    // 1 p2wpkh in, 1 p2wpkh out: 10.5 + 31 + 68 = 109.5 → 110 vB
    expect(estimateTx([{ type: 'p2wpkh' }], [OUT_P2WPKH])).toEqual({ weight: 438, vsize: 110, segwit: true });
    expect(estimateTx([{ type: 'p2wpkh' }], [OUT_P2WPKH], { ecdsa: 'low-r' })).toEqual({ weight: 437, vsize: 110, segwit: true });
    // 1 p2pkh in, 2 p2pkh outs: 10 + 148 + 2 × 34 = 226 (the classic number)
    expect(estimateTx([{ type: 'p2pkh' }], [{ scriptLength: 25 }, { scriptLength: 25 }])).toEqual({ weight: 904, vsize: 226, segwit: false });
  });
});
