/**
 * Fee bumps, offline. RBF (BIP125 as Core's mempool applies it, full RBF): the same inputs and
 * recipients, the change output reduced by the extra fee, the new fee at least the old one plus the
 * incremental relay fee for the new size and the new rate above the old — or a clear refusal when
 * the change cannot pay it (a bump never takes from a recipient). CPFP: the child's fee rate that
 * brings parent and child together to a target rate.
 */
import { formatBtc } from '../amounts';
import { dustThreshold } from '../bitcoin/spend/dust';
import { feeFor, formatSatPerVb, type FeeRate } from '../bitcoin/spend/feerate';
import type { UnsignedTxSpec } from './create-psbt';

export class BumpError extends Error {
  constructor(
    readonly code: 'bump.rate_too_low' | 'bump.no_change' | 'bump.change_too_small' | 'bump.not_replaceable',
    message: string,
    readonly detail: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'BumpError';
  }
}

export interface BumpInput {
  spec: UnsignedTxSpec;
  /** The original's fee (inputs − outputs). */
  oldFee: bigint;
  /** The signed-size estimate (same inputs and outputs: the replacement's too). */
  vsize: number;
  changeIndex: number | null;
  newRate: FeeRate;
  /** getmempoolinfo `incrementalrelayfee` (Core's default 1 sat/vB). */
  incrementalRelayFee: FeeRate;
}

export interface Bumped {
  spec: UnsignedTxSpec;
  fee: bigint;
  /** The change's new value; null when it was given up to the fee (it fell below dust). */
  change: bigint | null;
  changeIndex: number | null;
}

/** The least fee and rate a replacement of this size must pay (rules 3, 4 and the rate rule). */
export function minimumBump(oldFee: bigint, vsize: number, incremental: FeeRate): { fee: bigint; rate: FeeRate } {
  const fee = oldFee + feeFor(incremental, vsize);
  // the smallest rate (sat/kvB) whose fee for vsize reaches `fee`
  const rate = (fee * 1000n + BigInt(vsize) - 1n) / BigInt(vsize);
  return { fee, rate };
}

export function bumpRbf(b: BumpInput): Bumped {
  const min = minimumBump(b.oldFee, b.vsize, b.incrementalRelayFee);
  const fee = feeFor(b.newRate, b.vsize);
  if (fee < min.fee) {
    throw new BumpError(
      'bump.rate_too_low',
      `At ${formatSatPerVb(b.newRate)} the fee would be ${formatBtc(fee)} BTC; a replacement must pay at least ${formatBtc(min.fee)} BTC (the old fee ${formatBtc(b.oldFee)} + the incremental relay fee for ${b.vsize} vB): use ${formatSatPerVb(min.rate)} or more`,
      { minRate: min.rate.toString(), minFee: min.fee.toString() },
    );
  }
  if (b.changeIndex === null) {
    throw new BumpError('bump.no_change', 'This transaction has no change output to take the extra fee from, and a bump never reduces what a recipient gets. Use CPFP on an output of yours instead, if it has one');
  }
  const extra = fee - b.oldFee;
  const change = b.spec.outputs[b.changeIndex]!;
  const left = change.value - extra;
  if (left < 0n) {
    throw new BumpError(
      'bump.change_too_small',
      `The extra fee (${formatBtc(extra)} BTC) is more than the change (${formatBtc(change.value)} BTC): the bump would have to take from a recipient, which it never does. Choose a lower rate, or use CPFP`,
      { extra: extra.toString(), change: change.value.toString() },
    );
  }
  const outputs = b.spec.outputs.map((o) => ({ ...o }));
  let changeIndex: number | null = b.changeIndex;
  let kept: bigint | null = left;
  if (left < dustThreshold(change.script)) {
    // the change is worth less than an output: all of it goes to the fee
    outputs.splice(b.changeIndex, 1);
    changeIndex = null;
    kept = null;
  } else outputs[b.changeIndex] = { script: change.script, value: left };
  const total = kept === null ? b.oldFee + change.value : fee;
  return { spec: { ...b.spec, outputs }, fee: total, change: kept, changeIndex };
}

/**
 * CPFP: the child's fee rate (sat/kvB, rounded up) so that parent and child together pay `target`:
 * (target × (parent + child vsize) − the parent's fee) / child vsize.
 */
export function cpfpChildRate(parentFee: bigint, parentVsize: number, childVsize: number, target: FeeRate): { rate: FeeRate; childFee: bigint } {
  const packageFee = feeFor(target, parentVsize + childVsize);
  let childFee = packageFee - parentFee;
  if (childFee < feeFor(target, childVsize)) childFee = feeFor(target, childVsize);
  const rate = (childFee * 1000n + BigInt(childVsize) - 1n) / BigInt(childVsize);
  return { rate, childFee };
}
