import { describe, expect, test } from 'vitest';
import { selectCoins, type CoinSelection, type SelectRequest, type SpendableCoin } from '../../../shared/bitcoin/spend/coins';
import { SpendError, type SpendErrorCode } from '../../../shared/bitcoin/spend/errors';
import { feeFor } from '../../../shared/bitcoin/spend/feerate';
import { dustThreshold, minViableChange } from '../../../shared/bitcoin/spend/dust';
import { estimateTx, inputVsize, isSegwitKind, outputClassOf, type InputKind } from '../../../shared/bitcoin/spend/size';
import { COIN, MAX_MONEY } from '../../../shared/amounts';
import { CHANGE, coin, DEST, DEST_TR, feeOf, P2PKH, P2SH_P2WPKH, P2TR, P2WPKH, prng, VAULT } from './wallet';

const RATE = 10_000n; // 10 sat/vB: p2wpkh inputs cost 680 sat now and later (waste 0)

function req(coins: SpendableCoin[], value: bigint, extra: Partial<SelectRequest> = {}): SelectRequest {
  return { coins, recipients: [{ script: DEST, value }], feeRate: RATE, change: CHANGE, ...extra };
}

function fails(f: () => unknown, code: SpendErrorCode, message?: RegExp): SpendError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SpendError);
    expect((e as SpendError).code).toBe(code);
    if (message) expect((e as SpendError).message).toMatch(message);
    return e as SpendError;
  }
  throw new Error(`expected ${code}`);
}

/** The invariants every selection keeps. */
function checkSelection(s: CoinSelection, r: SelectRequest): void {
  const inSum = s.inputs.reduce((a, c) => a + c.value, 0n);
  const outs = s.recipients.map((x) => x.script);
  if (s.change) outs.push(s.change.script);
  const size = estimateTx(
    s.inputs.map((c) => c.kind),
    outs,
  );
  expect(s.vsize).toBe(size.vsize);
  expect(s.weight).toBe(size.weight);
  expect(s.feeNeeded).toBe(feeFor(r.feeRate, size.vsize));
  expect(inSum).toBe(s.recipients.reduce((a, x) => a + x.value, 0n) + (s.change?.value ?? 0n) + s.fee);
  expect(s.fee).toBe(s.feeNeeded + s.droppedToFee);
  expect(s.droppedToFee >= 0n).toBe(true);
  if (s.change) {
    expect(s.droppedToFee).toBe(0n);
    expect(s.change.value >= minViableChange({ changeScript: CHANGE.script, changeSpendVsize: inputVsize(r.change.kind) })).toBe(true);
  }
  for (const c of s.inputs) {
    expect(c.frozen ?? false).toBe(false);
    expect(c.coinbase && c.confirmations < 101).toBeFalsy();
  }
  expect(s.unconfirmed).toEqual(s.inputs.filter((c) => c.confirmations === 0).map((c) => `${c.txid}:${c.vout}`));
  r.recipients.forEach((x, i) => {
    if (!('sendMax' in x)) expect(s.recipients[i]!.value).toBe(x.value);
  });
}

describe('Branch and Bound: changeless when coins fit', () => {
  test('one coin whose effective value is the target exactly', () => {
    // target = 1,000,000 + 42 vB × 10 (no-input part); the coin: target + its own 680 sat fee
    const exact = coin(1, 1_001_100n);
    const coins = [coin(2, 5_000_000n), exact, coin(3, 300_000n)];
    const s = selectCoins(req(coins, 1_000_000n));
    checkSelection(s, req(coins, 1_000_000n));
    expect(s.algorithm).toBe('bnb');
    expect(s.inputs).toEqual([exact]);
    expect(s.change).toBeNull();
    expect(s.fee).toBe(feeOf(RATE, [P2WPKH], [DEST])); // 110 vB × 10: nothing left over
    expect(s.waste).toBe(0n);
  });

  test('two coins that together fit, over a large coin that would need change', () => {
    const a = coin(1, 1_200_680n);
    const b = coin(2, 801_100n);
    const coins = [coin(3, 10n * COIN), a, b, coin(4, 150_000n)];
    const s = selectCoins(req(coins, 2_000_000n));
    expect(s.algorithm).toBe('bnb');
    expect(new Set(s.inputs)).toEqual(new Set([a, b]));
    expect(s.change).toBeNull();
    expect(s.fee).toBe(feeOf(RATE, [P2WPKH, P2WPKH], [DEST]));
  });

  test('a small excess within the cost of change goes to the fee', () => {
    const c = coin(1, 1_001_100n + 500n);
    const s = selectCoins(req([c, coin(2, 9n * COIN)], 1_000_000n));
    expect(s.algorithm).toBe('bnb');
    expect(s.change).toBeNull();
    expect(s.droppedToFee).toBe(500n);
    expect(s.waste).toBe(500n);
  });

  test('matches a brute-force search for the least-waste changeless set (small wallets)', () => {
    const rnd = prng(7);
    let compared = 0;
    for (let round = 0; round < 60; round++) {
      const rate = BigInt(1000 + Math.floor(rnd() * 40_000));
      const coins = Array.from({ length: 6 + Math.floor(rnd() * 6) }, (_, i) => coin(round * 100 + i, BigInt(20_000 + Math.floor(rnd() * 400_000))));
      // aim at the effective value of a random subset, so that a changeless answer often exists
      const fee = feeFor(rate, inputVsize(P2WPKH));
      const subset = coins.filter(() => rnd() < 0.4);
      const amount = subset.reduce((a, c) => a + c.value - fee, 0n) - feeFor(rate, 42) - BigInt(Math.floor(rnd() * 300));
      if (amount < 1000n) continue;
      const r: SelectRequest = { ...req(coins, amount), feeRate: rate };
      const s = selectCoins(r);
      checkSelection(s, r);
      const target = amount + feeFor(rate, 42);
      const costOfChange = feeFor(10_000n, inputVsize(P2WPKH)) + feeFor(rate, 31);
      const waste1 = fee - feeFor(10_000n, inputVsize(P2WPKH));
      let best: bigint | null = null;
      for (let mask = 1; mask < 1 << coins.length; mask++) {
        let eff = 0n;
        let n = 0n;
        coins.forEach((c, i) => {
          if (mask & (1 << i)) {
            eff += c.value - fee;
            n++;
          }
        });
        if (eff < target || eff > target + costOfChange) continue;
        const w = n * waste1 + eff - target;
        if (best === null || w < best) best = w;
      }
      if (best === null) continue;
      compared++;
      expect(s.waste <= best, `round ${round}`).toBe(true);
      if (s.algorithm === 'bnb') expect(s.waste, `round ${round}`).toBe(best);
    }
    expect(compared).toBeGreaterThan(20);
  });
});

describe('with change', () => {
  test('change of at least the minimum, fee = rate × vsize exactly', () => {
    const coins = [coin(1, 50_000_000n), coin(2, 30_000_000n)];
    const r = req(coins, 10_000_000n);
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.change).not.toBeNull();
    expect(s.fee).toBe(feeOf(RATE, s.inputs.map((c) => c.kind), [DEST, CHANGE.script]));
    expect(s.change!.value).toBe(s.inputs.reduce((a, c) => a + c.value, 0n) - 10_000_000n - s.fee);
  });

  test('change that would be below the minimum viable change goes to the fee', () => {
    // excess over the changeless target: 1,200 sat; change would be 1,200 − 310 (its output) = 890 < 980
    const c = coin(1, 1_001_100n + 1_200n);
    const s = selectCoins(req([c], 1_000_000n));
    expect(s.change).toBeNull();
    expect(s.droppedToFee).toBe(1_200n);
    // 100 sat more: 990 ≥ 980, change is made (and takes what the exact size does not need)
    const s2 = selectCoins(req([coin(1, 1_001_100n + 1_300n)], 1_000_000n));
    expect(s2.change!.value).toBe(1_001_100n + 1_300n - 1_000_000n - feeOf(RATE, [P2WPKH], [DEST, CHANGE.script]));
  });

  test('a 2-of-3 vault paying with change to its own p2wsh script', () => {
    const vaultChange = { script: DEST_TR, kind: VAULT };
    const coins = [coin(1, 70_000_000n, VAULT), coin(2, 4n * COIN, VAULT)];
    const r: SelectRequest = { coins, recipients: [{ script: DEST, value: COIN }], feeRate: 3000n, change: vaultChange };
    const s = selectCoins(r);
    expect(s.change).not.toBeNull();
    expect(s.fee).toBe(feeOf(3000n, s.inputs.map((c) => c.kind), [DEST, DEST_TR]));
  });
});

describe('deterministic', () => {
  const coins = Array.from({ length: 40 }, (_, i) => coin(i, BigInt(100_000 + ((i * 7919) % 97) * 50_000), [P2WPKH, P2TR, P2SH_P2WPKH][i % 3]!));
  test('equal requests give equal results, whatever the order of the coins', () => {
    const r = req(coins, 1_234_567n);
    const a = selectCoins(r);
    expect(selectCoins(r)).toEqual(a);
    expect(selectCoins({ ...r, coins: [...coins].reverse() })).toEqual(a);
  });
  test('a seed picks the random draws; each result is valid', () => {
    const results = [1, 2, 3, 4, 5, 6].map((seed) => selectCoins(req(coins, 1_234_567n, { seed, feeRate: 2000n })));
    for (const s of results) checkSelection(s, req(coins, 1_234_567n, { feeRate: 2000n }));
    expect(selectCoins(req(coins, 1_234_567n, { seed: 3, feeRate: 2000n }))).toEqual(results[2]);
  });
});

describe('which coins may be spent', () => {
  test('an immature coinbase output (under 101 confirmations) is never picked; at 101 it is', () => {
    const cb = (conf: number): SpendableCoin => coin('coinbase', 50n * COIN, P2WPKH, { coinbase: true, confirmations: conf });
    const small = coin(1, 10_000_000n);
    const e = fails(() => selectCoins(req([cb(100), small], COIN)), 'spend.insufficient_funds');
    expect(e.message).toContain('1 coin from immature coinbase (50.00000000 BTC; a coinbase output is spendable at 101 confirmations, the next in 1 block)');
    const s = selectCoins(req([cb(101), small], COIN));
    expect(s.inputs).toContainEqual(cb(101));
    fails(() => selectCoins(req([cb(5)], COIN)), 'spend.no_spendable_coins', /^No spendable coins: 1 coin from immature coinbase \(50\.00000000 BTC; .* the next in 96 blocks\)$/);
  });

  test('a frozen coin is never picked, even when it alone could pay', () => {
    const frozen = coin(1, 5n * COIN, P2WPKH, { frozen: true });
    const coins = [frozen, coin(2, 30_000_000n), coin(3, 40_000_000n)];
    const s = selectCoins(req(coins, 60_000_000n));
    expect(s.inputs).not.toContain(frozen);
    const e = fails(() => selectCoins(req(coins, COIN)), 'spend.insufficient_funds');
    expect(e.message).toContain('Not counted: 1 coin frozen (5.00000000 BTC)');
    fails(() => selectCoins(req([frozen, coin(4, COIN, P2TR, { frozen: true })], 1000n)), 'spend.no_spendable_coins', /^No spendable coins: 2 coins frozen \(6\.00000000 BTC\)$/);
    fails(() => selectCoins(req([], 1000n)), 'spend.no_spendable_coins', /no unspent outputs/);
  });

  test('unconfirmed coins: used only when confirmed ones cannot pay, and flagged', () => {
    const unconfirmedExact = coin(1, 1_001_100n, P2WPKH, { confirmations: 0 }); // a perfect changeless match
    const coins = [unconfirmedExact, coin(2, 3_000_000n), coin(3, 500_000n)];
    const s = selectCoins(req(coins, 1_000_000n));
    expect(s.unconfirmed).toEqual([]);
    expect(s.inputs).not.toContain(unconfirmedExact);
    // the confirmed coins hold 3,500,000 sat: 3,498,640 after their input fees, the target is 3,600,420
    const s2 = selectCoins(req(coins, 3_600_000n));
    expect(s2.unconfirmed).toEqual([`${unconfirmedExact.txid}:${unconfirmedExact.vout}`]);
    checkSelection(s2, req(coins, 3_600_000n));
    const e = fails(() => selectCoins(req(coins, 3_600_000n, { includeUnconfirmed: false })), 'spend.insufficient_funds');
    expect(e.message).toContain('1 coin unconfirmed, excluded by your choice (0.01001100 BTC)');
  });
});

describe('avoid mixing output types', () => {
  const coins = [coin(1, 60_000_000n, P2WPKH), coin(2, 60_000_000n, P2WPKH), coin(3, 50_000_000n, P2TR), coin(4, 50_000_000n, P2TR), coin(5, 30_000_000n, P2PKH)];
  test('one type alone when one can pay', () => {
    for (const amount of [10_000_000n, 70_000_000n, 99_000_000n, 110_000_000n]) {
      const s = selectCoins(req(coins, amount));
      expect(s.inputClasses.length, `${amount}`).toBe(1);
    }
  });
  test('types mixed only when no type alone can pay', () => {
    const s = selectCoins(req(coins, 150_000_000n));
    expect(s.inputClasses.length).toBeGreaterThan(1);
    checkSelection(s, req(coins, 150_000_000n));
  });
  test('between types that can each pay, the least waste: at a high rate the lightest inputs', () => {
    const r = req(coins, 20_000_000n, { feeRate: 80_000n });
    const s = selectCoins(r);
    expect(s.inputClasses).toEqual(['bech32m']); // p2tr inputs are 58 vB, p2wpkh 68, p2pkh 149
    expect(s.inputs.length).toBe(1);
  });
});

describe('coin control', () => {
  const a = coin(1, 30_000_000n, P2WPKH);
  const b = coin(2, 20_000_000n, P2PKH);
  const c = coin(3, 70_000_000n, P2TR);
  const coins = [a, b, c];
  test('exactly the chosen coins, change and fee from the exact size', () => {
    const r = req(coins, 40_000_000n, { manual: [a, b] });
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.algorithm).toBe('manual');
    expect(s.inputs).toEqual([a, b].sort((x, y) => (x.txid < y.txid ? -1 : 1)));
    expect(s.fee).toBe(feeOf(RATE, [P2WPKH, P2PKH], [DEST, CHANGE.script]));
  });
  test('not enough: the message says how much is missing, fee included', () => {
    const e = fails(() => selectCoins(req(coins, 50_000_000n, { manual: [a, b] })), 'spend.insufficient_funds');
    const fee = feeOf(RATE, [P2WPKH, P2PKH], [DEST]);
    expect(e.detail!.missing).toBe(fee.toString()); // 0.5 BTC held, 0.5 BTC sent: the fee is what is missing
    expect(e.message).toBe(
      `Insufficient funds: sending 0.50000000 BTC with a fee of 0.0000${fee} BTC (10 sat/vB × ${estimateTx([P2WPKH, P2PKH], [DEST]).vsize} vB, spending the selected coins) needs 0.5000${fee} BTC, and the selected coins hold 0.50000000 BTC: 0.0000${fee} BTC missing.`,
    );
  });
  test('refused: unknown, frozen, immature, twice, none', () => {
    fails(() => selectCoins(req(coins, 1000n, { manual: [{ txid: 'ab'.repeat(32), vout: 0 }] })), 'spend.coin_not_found', /is not among the wallet's unspent coins/);
    const f = coin(9, COIN, P2WPKH, { frozen: true });
    fails(() => selectCoins(req([...coins, f], 1000n, { manual: [f] })), 'spend.coin_frozen', /is frozen; unfreeze it to spend it/);
    const cb = coin(8, COIN, P2WPKH, { coinbase: true, confirmations: 99 });
    fails(() => selectCoins(req([...coins, cb], 1000n, { manual: [cb] })), 'spend.coin_immature', /with 99 confirmations; it can be spent at 101 \(in 2 blocks\)/);
    fails(() => selectCoins(req(coins, 1000n, { manual: [a, a] })), 'spend.coin_duplicate');
    fails(() => selectCoins(req(coins, 1000n, { manual: [] })), 'spend.no_spendable_coins', /no coins are selected/);
  });
  test('an unconfirmed coin chosen by hand is used, and flagged', () => {
    const u = coin(7, COIN, P2WPKH, { confirmations: 0 });
    const s = selectCoins(req([...coins, u], 1000n, { manual: [u], includeUnconfirmed: false }));
    expect(s.unconfirmed).toEqual([`${u.txid}:${u.vout}`]);
  });
});

describe('send max', () => {
  test('every spendable coin, the recipient takes all but the fee; uneconomic coins are left behind', () => {
    const dusty = coin(1, 500n); // 500 sat cannot pay its own 680 sat input fee at 10 sat/vB
    const coins = [coin(2, 30_000_000n), coin(3, 20_000_000n, P2TR), dusty, coin(4, COIN, P2WPKH, { frozen: true }), coin(5, COIN, P2WPKH, { coinbase: true, confirmations: 3 })];
    const r: SelectRequest = { coins, recipients: [{ script: DEST, sendMax: true }], feeRate: RATE, change: CHANGE };
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.algorithm).toBe('send-max');
    expect(s.inputs.length).toBe(2);
    expect(s.leftBehind).toEqual([`${dusty.txid}:${dusty.vout}`]);
    expect(s.change).toBeNull();
    const fee = feeOf(RATE, [P2WPKH, P2TR], [DEST]);
    expect(s.fee).toBe(fee);
    expect(s.recipients[0]!.value).toBe(50_000_000n - fee);
  });
  test('with other recipients, and with coin control', () => {
    const a = coin(1, 30_000_000n);
    const b = coin(2, 20_000_000n, P2TR);
    const r: SelectRequest = { coins: [a, b], recipients: [{ script: DEST_TR, value: 10_000_000n }, { script: DEST, sendMax: true }], feeRate: RATE, change: CHANGE, manual: [b] };
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.inputs).toEqual([b]);
    expect(s.recipients[1]!.value).toBe(10_000_000n - feeOf(RATE, [P2TR], [DEST_TR, DEST]));
  });
  test('nothing left, or less than dust: refused with what is missing', () => {
    const e = fails(() => selectCoins({ coins: [coin(1, 1_300n)], recipients: [{ script: DEST, sendMax: true }], feeRate: RATE, change: CHANGE }), 'spend.insufficient_funds');
    // 1,300 − 1,100 fee = 200 sat left, 94 below the 294-sat dust threshold of a p2wpkh output
    expect(e.message).toContain('0.00000200 BTC is left, below the 294 sat dust threshold of that output: 0.00000094 BTC missing');
    fails(() => selectCoins({ coins: [coin(1, 500n)], recipients: [{ script: DEST, sendMax: true }], feeRate: RATE, change: CHANGE }), 'spend.insufficient_funds', /1 coin worth less than the fee of spending them at this rate/);
  });
});

describe('refused requests', () => {
  const coins = [coin(1, COIN)];
  test('fee rates: 0, absurd, and an absurd fee', () => {
    fails(() => selectCoins(req(coins, 1000n, { feeRate: 0n })), 'spend.fee_rate_zero', /must be above 0 sat\/vB/);
    fails(() => selectCoins(req(coins, 1000n, { feeRate: -5n })), 'spend.fee_rate_zero');
    fails(() => selectCoins(req(coins, 1000n, { feeRate: 10_000_001n })), 'spend.fee_rate_absurd', /10000\.001 sat\/vB is above the maximum of 10000 sat\/vB \(Core's maxfeerate, 0\.10000000 BTC\/kvB\)/);
    selectCoins(req(coins, 1000n, { feeRate: 10_000_000n, maxTxFee: COIN })); // exactly the maximum rate is allowed
    // ~21 inputs at 9,000 sat/vB: a fee over 0.1 BTC (Core's -maxtxfee)
    const many = Array.from({ length: 30 }, (_, i) => coin(i, 5_000_000n));
    fails(() => selectCoins(req(many, 90_000_000n, { feeRate: 9_000_000n })), 'spend.fee_absurd', /above the maximum of 0\.10000000 BTC for one transaction \(Core's -maxtxfee\)/);
    fails(() => selectCoins(req(coins, 1000n, { feeRate: 2_000_000n, maxTxFee: 100_000n })), 'spend.fee_absurd', /The fee would be 0\.00282000 BTC \(2000 sat\/vB × 141 vB\), above the maximum of 0\.00100000 BTC/);
    fails(() => selectCoins(req(coins, 1000n, { feeRate: 200_000n, maxFeeRate: 100_000n })), 'spend.fee_rate_absurd', /200 sat\/vB is above the maximum of 100 sat\/vB/);
  });
  test('recipients', () => {
    fails(() => selectCoins({ ...req(coins, 1n), recipients: [] }), 'spend.no_recipients');
    fails(() => selectCoins(req(coins, 0n)), 'spend.amount_invalid', /Recipient 1: the amount is 0/);
    fails(() => selectCoins(req(coins, -1n)), 'spend.amount_invalid', /negative/);
    fails(() => selectCoins(req(coins, MAX_MONEY + 1n)), 'spend.amount_invalid', /above the 21 million BTC supply/);
    const d = fails(() => selectCoins(req(coins, 293n)), 'spend.amount_dust', /293 sat is below the dust threshold of this address type \(294 sat\)/);
    expect(d.detail).toEqual({ field: 'recipients', row: 0, threshold: '294' });
    expect(dustThreshold(DEST)).toBe(294n);
    selectCoins(req(coins, 294n));
    fails(() => selectCoins({ ...req(coins, 1n), recipients: [{ script: DEST, sendMax: true }, { script: DEST_TR, sendMax: true }] }), 'spend.send_max_twice', /rows 1 and 2/);
    // an OP_RETURN output of 0 is no dust
    const s = selectCoins({ ...req(coins, 10_000n), recipients: [{ script: DEST, value: 10_000n }, { script: Uint8Array.of(0x6a, 0x02, 0xca, 0xfe), value: 0n }] });
    expect(s.recipients[1]!.value).toBe(0n);
  });
  test('near the weight limit, a heavy coin is passed over for lighter ones', () => {
    // 1 sat/vB; weight left for inputs: 1,492 − 4 × (42 + 31 for change) = 1,200 WU
    const heavy = [1, 2, 3].map((i) => coin(i, 40_000n, VAULT)); // 420 WU, 39,895 sat effective, each
    const light = [4, 5, 6, 7].map((i) => coin(i, 35_000n, P2WPKH)); // 272 WU, 34,932 sat effective, each
    // two vault coins, not the third (1,260 WU), then one light coin: 114,722 sat for a 110,042 target.
    // Nothing else fits: SRD and CoinGrinder want 50,000 sat more for change, BnB finds no changeless set.
    const r = req([...heavy, ...light], 110_000n, { feeRate: 1000n, maxWeight: 1_492 });
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.algorithm).toBe('largest-first');
    expect(s.inputs.map((c) => c.kind.type).sort()).toEqual(['p2wpkh', 'p2wsh-multi', 'p2wsh-multi']);
    expect(s.weight).toBeLessThanOrEqual(1_492);
  });
  test('near the weight limit at a low rate: when the random draw fails, CoinGrinder still finds the light set', () => {
    // 10 payments of 23,000 sat (change target then fixed: 50,000 + its fee); 1 sat/vB; 1,000 WU left for inputs
    const recipients = Array.from({ length: 10 }, () => ({ script: DEST, value: 23_000n }));
    const heavy = [1, 2, 3].map((i) => coin(i, 100_105n, VAULT)); // 100,000 effective, 420 WU
    const light = [4, 5, 6].map((i) => coin(i, 95_068n, P2WPKH)); // 95,000 effective, 272 WU
    const algos = new Set<string>();
    for (let seed = 1; seed <= 24; seed++) {
      const r: SelectRequest = { coins: [...heavy, ...light], recipients, feeRate: 1000n, change: CHANGE, maxWeight: 2_408, seed };
      const s = selectCoins(r); // largest-first stops at two vault coins (200,000 < 230,321); BnB finds no changeless set
      checkSelection(s, r);
      algos.add(s.algorithm);
    }
    expect([...algos].sort()).toEqual(['coingrinder', 'srd']);
  });
  test('too heavy: more inputs than the weight limit allows', () => {
    const many = Array.from({ length: 60 }, (_, i) => coin(i, 100_000n));
    fails(() => selectCoins(req(many, 5_000_000n, { maxWeight: 10_000 })), 'spend.too_large', /exceed the maximum transaction weight \(10,000 WU\)/);
  });
  test('insufficient funds against the wallet Core recorded (its answer: "Insufficient funds")', async () => {
    const { listUnspent } = await import('./fixture');
    const { inputKindFromDescriptor } = await import('../../../shared/bitcoin/spend/kind');
    const wallet = listUnspent('watch minconf 0').map((u) => ({ txid: u.txid, vout: u.vout, value: u.value, confirmations: u.confirmations, kind: inputKindFromDescriptor(u.desc) }));
    const e = fails(() => selectCoins(req(wallet, 500n * COIN)), 'spend.insufficient_funds');
    const fee = feeOf(RATE, wallet.map((c) => c.kind), [DEST]);
    expect(e.detail).toEqual({ missing: (500n * COIN + fee - 733_000_000n).toString(), needed: (500n * COIN + fee).toString(), available: '733000000', fee: fee.toString() });
    expect(e.message).toContain('the spendable coins hold 7.33000000 BTC: 492.670');
  });
});

describe('random wallets: the invariants hold, and "insufficient" is never said when the coins could pay', () => {
  const KINDS: InputKind[] = [P2WPKH, P2TR, P2PKH, P2SH_P2WPKH, VAULT, { type: 'p2sh-multi', m: 2, n: 3 }, { type: 'p2sh-p2wsh-multi', m: 2, n: 3 }];
  test('400 requests', () => {
    const rnd = prng(42);
    let ok = 0;
    let short = 0;
    for (let round = 0; round < 400; round++) {
      const n = 1 + Math.floor(rnd() * 40);
      const coins = Array.from({ length: n }, (_, i) =>
        coin(round * 1000 + i, BigInt(Math.floor(1000 * 10 ** (rnd() * 5.3))), KINDS[Math.floor(rnd() * KINDS.length)]!, {
          confirmations: rnd() < 0.2 ? 0 : 1 + Math.floor(rnd() * 150),
          coinbase: rnd() < 0.1,
          frozen: rnd() < 0.1,
        }),
      );
      const total = coins.reduce((a, c) => a + c.value, 0n);
      const rate = BigInt(100 + Math.floor(rnd() * 60_000));
      const recipients = Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, i) => ({ script: i % 2 ? DEST_TR : DEST, value: 330n + (total * BigInt(Math.floor(rnd() * 400))) / 1000n }));
      const r: SelectRequest = { coins, recipients, feeRate: rate, change: CHANGE, includeUnconfirmed: rnd() < 0.7, seed: round };
      let s: CoinSelection;
      try {
        s = selectCoins(r);
      } catch (e) {
        expect(e).toBeInstanceOf(SpendError);
        const err = e as SpendError;
        if (err.code === 'spend.insufficient_funds') {
          // every spendable coin that pays for itself, without change, still cannot pay
          const usable = coins.filter((c) => !c.frozen && !(c.coinbase && c.confirmations < 101) && (r.includeUnconfirmed || c.confirmations > 0) && c.value > feeFor(rate, inputVsize(c.kind)));
          const sum = usable.reduce((a, c) => a + c.value, 0n);
          const need = recipients.reduce((a, x) => a + x.value, 0n) + feeOf(rate, usable.map((c) => c.kind), recipients.map((x) => x.script));
          expect(sum < need, `round ${round}`).toBe(true);
          expect(BigInt(err.detail!.missing as string)).toBe(need - sum);
          short++;
        } else expect(['spend.no_spendable_coins', 'spend.fee_absurd']).toContain(err.code);
        continue;
      }
      checkSelection(s, r);
      ok++;
      // one output type when the coins of one type could pay (largest-first always finds those)
      const target = recipients.reduce((a, x) => a + x.value, 0n) + feeFor(rate, 4 + 4 + 1 + 1 + 1 + recipients.reduce((a, x) => a + 9 + x.script.length, 0));
      const eligible = coins.filter((c) => !c.frozen && !(c.coinbase && c.confirmations < 101) && c.confirmations > 0);
      const byClass = new Map<string, bigint>();
      for (const c of eligible) {
        const eff = c.value - feeFor(rate, inputVsize(c.kind));
        if (eff > 0n) byClass.set(outputClassOf(c.kind), (byClass.get(outputClassOf(c.kind)) ?? 0n) + eff);
      }
      if ([...byClass.values()].some((v) => v >= target)) {
        expect(s.inputClasses.length, `round ${round}`).toBe(1);
        expect(s.unconfirmed, `round ${round}`).toEqual([]);
      }
      expect(selectCoins(r)).toEqual(s);
      expect(s.inputs.some((c) => isSegwitKind(c.kind))).toBe(estimateTx(s.inputs.map((c) => c.kind), []).segwit);
    }
    expect(ok).toBeGreaterThan(150);
    expect(short).toBeGreaterThan(20);
  });

  test('252 recipients and change: the output count takes 3 bytes, the change still settles exactly', () => {
    const recipients = Array.from({ length: 252 }, (_, i) => ({ script: i % 2 ? DEST : DEST_TR, value: 10_000n + BigInt(i) }));
    const rate = 12_345n;
    const sum = recipients.reduce((a, x) => a + x.value, 0n);
    const outputs = recipients.reduce((a, x) => a + 9 + x.script.length, 0);
    // a coin that fits exactly if the output count were 1 byte (as Core counts it): a changeless
    // trap 2 vB short of the real size
    const trap = coin(3, sum + feeFor(rate, 4 + 4 + 1 + 1 + 1 + outputs) + feeFor(rate, 68));
    const r: SelectRequest = { coins: [coin(1, COIN), coin(2, COIN / 2n), trap], recipients, feeRate: rate, change: CHANGE };
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.inputs).not.toContain(trap);
    expect(s.change).not.toBeNull();
  });
  test('past 252 inputs the input count takes 3 bytes: a changeless set that fits only with a 1-byte count is not taken', () => {
    // 300 coins of 20,000 sat effective at 10 sat/vB (waste 0 each: the changeless set would win);
    // 260 of them make exactly the target with a 1-byte input count, 20 sat short of the real fee
    const coins = Array.from({ length: 300 }, (_, i) => coin(i, 20_680n));
    const r = req(coins, 260n * 20_000n - 420n);
    const s = selectCoins(r);
    checkSelection(s, r);
    expect(s.inputs.length).toBeGreaterThanOrEqual(261);
  });
  test('past 252 inputs (3-byte input count) the fee still covers the exact size', () => {
    const coins = Array.from({ length: 320 }, (_, i) => coin(i, 20_000n + BigInt(i)));
    const r = req(coins, 5_800_000n, { feeRate: 1000n });
    const s = selectCoins(r);
    expect(s.inputs.length).toBeGreaterThanOrEqual(253);
    checkSelection(s, r);
  });
});
