/** Coin selection requests: coin control, send max, and the refusals with their words. */
import { describe, expect, test } from 'vitest';
import { selectCoins, type SelectRequest } from '../../../shared/bitcoin/spend/coins';
import { dustThreshold } from '../../../shared/bitcoin/spend/dust';
import { estimateTx } from '../../../shared/bitcoin/spend/size';
import { COIN, MAX_MONEY } from '../../../shared/amounts';
import { CHANGE, coin, DEST, DEST_TR, feeOf, P2PKH, P2TR, P2WPKH, VAULT } from './wallet';
import { checkSelection, fails, RATE, req } from './selection-checks';

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
