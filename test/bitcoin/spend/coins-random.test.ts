/** Coin selection over random wallets (invariants; "insufficient" only when it is) and at the compact-size limits. */
import { describe, expect, test } from 'vitest';
import { selectCoins, type CoinSelection, type SelectRequest } from '../../../shared/bitcoin/spend/coins';
import { SpendError } from '../../../shared/bitcoin/spend/errors';
import { feeFor } from '../../../shared/bitcoin/spend/feerate';
import { estimateTx, inputVsize, isSegwitKind, outputClassOf, type InputKind } from '../../../shared/bitcoin/spend/size';
import { COIN } from '../../../shared/amounts';
import { CHANGE, coin, DEST, DEST_TR, feeOf, P2PKH, P2SH_P2WPKH, P2TR, P2WPKH, prng, VAULT } from './wallet';
import { checkSelection, req } from './selection-checks';

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
