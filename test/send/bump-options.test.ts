/** The pure rules of fee bumps from any wallet transaction (shared/send/bump-options.ts). */
import { describe, expect, it } from 'vitest';
import { cpfpPackage, cpfpVerdict, rbfVerdict, type BumpFacts } from '../../shared/send/bump-options';

const base: BumpFacts = { confirmations: 0, replacedBy: null, inputsOurs: 'all', signals: true, fullRbf: true, descendants: [], inMempool: true, hasChange: true, spendableOutputs: 1 };

describe('rbfVerdict', () => {
  it('an unconfirmed signalling payment of ours with change: possible, nothing to add', () => {
    expect(rbfVerdict(base)).toEqual({ possible: true, reason: null, note: null });
  });
  it('each refusal says why, in Core’s order', () => {
    expect(rbfVerdict({ ...base, confirmations: 3 }).reason).toMatch(/^Confirmed \(3 confirmations\)/);
    expect(rbfVerdict({ ...base, replacedBy: 'ab'.repeat(32) }).reason).toMatch(/^Already replaced by abab/);
    expect(rbfVerdict({ ...base, confirmations: -1 }).reason).toMatch(/^Conflicted/);
    expect(rbfVerdict({ ...base, inputsOurs: 'none' }).reason).toMatch(/^Inputs not ours.*CPFP/);
    expect(rbfVerdict({ ...base, inputsOurs: 'some' }).reason).toMatch(/^Inputs not all ours/);
    expect(rbfVerdict({ ...base, descendants: ['cd'.repeat(32)] }).reason).toMatch(/descendants in the mempool \(cdcdcdcdcdcd…/);
    expect(rbfVerdict({ ...base, hasChange: false }).reason).toMatch(/No change output/);
  });
  it('not signalling: refused on a node without full RBF, possible with a note on one with it', () => {
    const no = rbfVerdict({ ...base, signals: false, fullRbf: false });
    expect(no).toMatchObject({ possible: false, reason: expect.stringMatching(/^Not signalling replaceability \(BIP 125.*does not do full RBF.*CPFP/) });
    const yes = rbfVerdict({ ...base, signals: false, fullRbf: true });
    expect(yes).toMatchObject({ possible: true, reason: null, note: expect.stringMatching(/full RBF/) });
  });
});

describe('cpfpVerdict', () => {
  it('needs an unspent output of ours and the parent in the mempool', () => {
    expect(cpfpVerdict(base).possible).toBe(true);
    expect(cpfpVerdict({ ...base, inputsOurs: 'none', signals: false, fullRbf: false }).possible).toBe(true);
    expect(cpfpVerdict({ ...base, spendableOutputs: 0 }).reason).toMatch(/No output of it is yours/);
    expect(cpfpVerdict({ ...base, inMempool: false }).reason).toMatch(/mempool does not hold it/);
    expect(cpfpVerdict({ ...base, confirmations: 1 }).reason).toMatch(/^Confirmed \(1 confirmation\)/);
  });
});

describe('cpfpPackage', () => {
  it('child fee = rate × package vsize − the fees already in it', () => {
    // parent 141 vB at 1 sat/vB, child 110 vB, target 10 sat/vB: 2510 − 141 = 2369, as a rate
    // ceil(2369000 / 110) = 21.537 sat/vB, at which the child's 110 vB pay ceil(2369.07) = 2370
    const p = cpfpPackage({ parentVsize: 141, parentFee: 141n, ancestorsVsize: 0, ancestorsFee: 0n, childVsize: 110, target: 10_000n });
    expect(p.childRate).toBe(21_537n);
    expect(p).toMatchObject({ packageVsize: 251, childFee: 2370n, packageFee: 2511n, packageRate: 10_003n });
  });
  it('ancestors of the parent join the package', () => {
    const p = cpfpPackage({ parentVsize: 100, parentFee: 100n, ancestorsVsize: 200, ancestorsFee: 200n, childVsize: 100, target: 5_000n });
    expect(p).toMatchObject({ packageVsize: 400, childFee: 1700n, packageFee: 2000n, packageRate: 5_000n });
  });
  it('a parent already above the target: the child still pays its own size at the rate', () => {
    const p = cpfpPackage({ parentVsize: 100, parentFee: 5000n, ancestorsVsize: 0, ancestorsFee: 0n, childVsize: 110, target: 2_000n });
    expect(p.childFee).toBe(220n);
    expect(p.childRate).toBe(2_000n);
  });
  it('a fractional target rounds the child’s fee up, never below the package rate', () => {
    const p = cpfpPackage({ parentVsize: 141, parentFee: 141n, ancestorsVsize: 0, ancestorsFee: 0n, childVsize: 109, target: 3_333n });
    expect(p.packageFee * 1000n).toBeGreaterThanOrEqual(3_333n * 250n);
  });
});

describe('a node that cannot say whether its mempool holds the parent', () => {
  it('CPFP stays possible (the child’s broadcast is the check)', () => {
    expect(cpfpVerdict({ ...base, inMempool: null })).toEqual({ possible: true, reason: null, note: null });
  });
});
