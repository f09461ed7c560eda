/** Coin selection: Branch and Bound, change, determinism, which coins may be spent, avoiding mixed types. */
import { describe, expect, test } from 'vitest';
import { selectCoins, type SelectRequest, type SpendableCoin } from '../../../shared/bitcoin/spend/coins';
import { feeFor } from '../../../shared/bitcoin/spend/feerate';
import { inputVsize } from '../../../shared/bitcoin/spend/size';
import { COIN } from '../../../shared/amounts';
import { CHANGE, coin, DEST, DEST_TR, feeOf, P2PKH, P2SH_P2WPKH, P2TR, P2WPKH, prng, VAULT } from './wallet';
import { checkSelection, fails, RATE, req } from './selection-checks';

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
