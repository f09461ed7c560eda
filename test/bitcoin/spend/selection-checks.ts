/** Shared helpers of the coin selection tests: a request, an expected refusal, the invariants of a result. */
import { expect } from 'vitest';
import { type CoinSelection, type SelectRequest, type SpendableCoin } from '../../../shared/bitcoin/spend/coins';
import { SpendError, type SpendErrorCode } from '../../../shared/bitcoin/spend/errors';
import { feeFor } from '../../../shared/bitcoin/spend/feerate';
import { minViableChange } from '../../../shared/bitcoin/spend/dust';
import { estimateTx, inputVsize } from '../../../shared/bitcoin/spend/size';
import { CHANGE, DEST } from './wallet';

export const RATE = 10_000n; // 10 sat/vB: p2wpkh inputs cost 680 sat now and later (waste 0)

export function req(coins: SpendableCoin[], value: bigint, extra: Partial<SelectRequest> = {}): SelectRequest {
  return { coins, recipients: [{ script: DEST, value }], feeRate: RATE, change: CHANGE, ...extra };
}

export function fails(f: () => unknown, code: SpendErrorCode, message?: RegExp): SpendError {
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
export function checkSelection(s: CoinSelection, r: SelectRequest): void {
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

