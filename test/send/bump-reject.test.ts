// Fee bump arithmetic (BIP125 rules as Core applies them) and Core's reject reasons in words, from the recordings.
import { describe, expect, it } from 'vitest';
import { bumpRbf, BumpError, cpfpChildRate, minimumBump } from '../../shared/send/bump';
import { explainReject, reasonOfMessage } from '../../shared/send/reject';
import { coreFileGroup } from '../fixtures';

const S = (n: number) => new Uint8Array(22).fill(n);
const spec = {
  version: 2,
  locktime: 100,
  inputs: [{ txid: 'aa'.repeat(32), vout: 0, sequence: 0xfffffffd }],
  outputs: [
    { script: S(1), value: 50_000n },
    { script: S(2), value: 40_000n },
  ],
};

describe('RBF bump', () => {
  it("Core's recorded floor: old fee 0.0001 + incremental 0.00000044 for 44 vB", () => {
    // psbtbumpfee fee_rate 1: "must be at least 0.00010044 (oldFee 0.0001 + incrementalFee 0.00000044)"
    expect(minimumBump(10_000n, 44, 1000n).fee).toBe(10_044n);
  });

  it('reduces the change only; refuses a rate below the floor, or one the change cannot pay', () => {
    const b = bumpRbf({ spec, oldFee: 1_000n, vsize: 141, changeIndex: 1, newRate: 20_000n, incrementalRelayFee: 1000n });
    expect(b.fee).toBe(2_820n);
    expect(b.spec.outputs[0]!.value).toBe(50_000n);
    expect(b.spec.outputs[1]!.value).toBe(40_000n - 1_820n);
    expect(() => bumpRbf({ spec, oldFee: 1_000n, vsize: 141, changeIndex: 1, newRate: 7_000n, incrementalRelayFee: 1000n })).toThrow(/at least 0.00001141 BTC/);
    const e = (() => {
      try {
        bumpRbf({ spec, oldFee: 1_000n, vsize: 141, changeIndex: 1, newRate: 1_000_000n, incrementalRelayFee: 1000n });
      } catch (x) {
        return x as BumpError;
      }
    })();
    expect(e?.code).toBe('bump.change_too_small');
    expect(() => bumpRbf({ spec, oldFee: 1_000n, vsize: 141, changeIndex: null, newRate: 20_000n, incrementalRelayFee: 1000n })).toThrow(/never reduces what a recipient gets/);
  });

  it('change that falls below dust goes to the fee', () => {
    const b = bumpRbf({ spec, oldFee: 1_000n, vsize: 141, changeIndex: 1, newRate: 288_000n, incrementalRelayFee: 1000n });
    expect(b.changeIndex).toBeNull();
    expect(b.spec.outputs).toHaveLength(1);
    expect(b.fee).toBe(41_000n);
  });

  it('CPFP: the child pays for both', () => {
    const r = cpfpChildRate(141n, 141, 110, 10_000n);
    expect(r.childFee).toBe(2_510n - 141n);
    expect((r.rate * 110n + 999n) / 1000n).toBeGreaterThanOrEqual(r.childFee);
  });
});

describe('reject reasons', () => {
  it('every recorded testmempoolaccept refusal and sendrawtransaction error reads in words', () => {
    const seen: string[] = [];
    for (const r of coreFileGroup('bitcoin-core-spend.jsonl', 'testmempoolaccept')) {
      const res = (r.response.body as { result: Array<{ allowed: boolean; 'reject-reason'?: string; 'reject-details'?: string }> | null }).result;
      for (const t of res ?? []) {
        if (t.allowed) continue;
        const x = explainReject(t['reject-reason']!, t['reject-details']);
        expect(x.words).not.toMatch(/^The node refuses it/);
        seen.push(x.words);
      }
    }
    for (const r of coreFileGroup('bitcoin-core-spend.jsonl', 'sendrawtransaction')) {
      const err = (r.response.body as { error: { code: number; message: string } | null }).error;
      if (!err || err.code === -22) continue;
      const x = explainReject(reasonOfMessage(err.message), err.message);
      expect(x.words, err.message).not.toMatch(/^The node refuses it/);
    }
    expect(seen.join('\n')).toContain("below the node's minimum relay fee for this size (14 sat)");
  });
});
