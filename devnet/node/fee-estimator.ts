/**
 * Core's fee estimator (policy/fees/block_policy_estimator.cpp, CBlockPolicyEstimator): mempool
 * transactions without mempool parents, accepted while the node is current, are put in feerate
 * buckets (100 sat/kvB up to 1e7, ×1.05 each) when they enter the mempool; when a block confirms
 * them, how many blocks each took is recorded in three exponentially decaying horizons (short:
 * 12 blocks, medium: 24 periods of 2, long: 42 periods of 24); transactions that leave otherwise
 * count as failures. estimateSmartFee takes the highest of the 60 % estimate at target/2, 85 % at
 * target and 95 % at 2×target (and, when conservative, 95 % over the longer horizons), as Core does,
 * with the same doubles in the same order.
 */

const MIN_BUCKET_FEERATE = 100;
const MAX_BUCKET_FEERATE = 1e7;
const FEE_SPACING = 1.05;
const INF_FEERATE = 1e99;
const HALF_SUCCESS_PCT = 0.6;
const SUCCESS_PCT = 0.85;
const DOUBLE_SUCCESS_PCT = 0.95;
const SUFFICIENT_FEETXS = 0.1;
const SUFFICIENT_TXS_SHORT = 0.5;

/** The buckets' upper bounds (inclusive) and the index of the first bucket at or above a feerate (std::map::lower_bound). */
class Buckets {
  readonly bounds: number[] = [];
  constructor() {
    for (let b = MIN_BUCKET_FEERATE; b <= MAX_BUCKET_FEERATE; b *= FEE_SPACING) this.bounds.push(b);
    this.bounds.push(INF_FEERATE);
  }
  indexOf(feerate: number): number {
    let lo = 0;
    let hi = this.bounds.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.bounds[mid]! < feerate) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** TxConfirmStats: one horizon. */
class ConfirmStats {
  private readonly txCtAvg: number[];
  private readonly feerateAvg: number[];
  private readonly confAvg: number[][];
  private readonly failAvg: number[][];
  private readonly unconf: number[][];
  private readonly oldUnconf: number[];

  constructor(
    private readonly buckets: Buckets,
    periods: number,
    readonly decay: number,
    readonly scale: number,
  ) {
    const n = buckets.bounds.length;
    const zeros = (): number[] => new Array<number>(n).fill(0);
    this.txCtAvg = zeros();
    this.feerateAvg = zeros();
    this.confAvg = Array.from({ length: periods }, zeros);
    this.failAvg = Array.from({ length: periods }, zeros);
    this.unconf = Array.from({ length: periods * scale }, zeros);
    this.oldUnconf = zeros();
  }

  maxConfirms(): number {
    return this.scale * this.confAvg.length;
  }

  clearCurrent(height: number): void {
    const row = this.unconf[height % this.unconf.length]!;
    for (let j = 0; j < row.length; j++) {
      this.oldUnconf[j]! += row[j]!;
      row[j] = 0;
    }
  }

  record(blocksToConfirm: number, feerate: number): void {
    if (blocksToConfirm < 1) return;
    const periods = Math.floor((blocksToConfirm + this.scale - 1) / this.scale);
    const b = this.buckets.indexOf(feerate);
    for (let i = periods; i <= this.confAvg.length; i++) this.confAvg[i - 1]![b]!++;
    this.txCtAvg[b]!++;
    this.feerateAvg[b]! += feerate;
  }

  updateMovingAverages(): void {
    for (let j = 0; j < this.txCtAvg.length; j++) {
      for (let i = 0; i < this.confAvg.length; i++) {
        this.confAvg[i]![j]! *= this.decay;
        this.failAvg[i]![j]! *= this.decay;
      }
      this.feerateAvg[j]! *= this.decay;
      this.txCtAvg[j]! *= this.decay;
    }
  }

  newTx(height: number, feerate: number): number {
    const b = this.buckets.indexOf(feerate);
    this.unconf[height % this.unconf.length]![b]!++;
    return b;
  }

  removeTx(entryHeight: number, bestSeen: number, bucket: number, inBlock: boolean): void {
    let blocksAgo = bestSeen - entryHeight;
    if (bestSeen === 0) blocksAgo = 0;
    if (blocksAgo < 0) return;
    if (blocksAgo >= this.unconf.length) {
      if (this.oldUnconf[bucket]! > 0) this.oldUnconf[bucket]!--;
    } else {
      const row = this.unconf[entryHeight % this.unconf.length]!;
      if (row[bucket]! > 0) row[bucket]!--;
    }
    if (!inBlock && blocksAgo >= this.scale) {
      const periodsAgo = Math.floor(blocksAgo / this.scale);
      for (let i = 0; i < periodsAgo && i < this.failAvg.length; i++) this.failAvg[i]![bucket]!++;
    }
  }

  /** EstimateMedianVal: −1 when no bucket range passes. */
  estimateMedianVal(confTarget: number, sufficientTxVal: number, successBreakPoint: number, height: number): number {
    let nConf = 0;
    let totalNum = 0;
    let extraNum = 0;
    let failNum = 0;
    const periodTarget = Math.floor((confTarget + this.scale - 1) / this.scale);
    const maxBucket = this.txCtAvg.length - 1;
    let curNear = maxBucket;
    let bestNear = maxBucket;
    let curFar = maxBucket;
    let bestFar = maxBucket;
    let partialNum = 0;
    let foundAnswer = false;
    const bins = this.unconf.length;
    let newRange = true;
    for (let bucket = maxBucket; bucket >= 0; bucket--) {
      if (newRange) {
        curNear = bucket;
        newRange = false;
      }
      curFar = bucket;
      nConf += this.confAvg[periodTarget - 1]![bucket]!;
      partialNum += this.txCtAvg[bucket]!;
      totalNum += this.txCtAvg[bucket]!;
      failNum += this.failAvg[periodTarget - 1]![bucket]!;
      // (nBlockHeight - confct) % bins on unsigned ints.
      for (let confct = confTarget; confct < this.maxConfirms(); confct++) extraNum += this.unconf[(((height - confct) % 2 ** 32) + 2 ** 32) % 2 ** 32 % bins]![bucket]!;
      extraNum += this.oldUnconf[bucket]!;
      if (partialNum < sufficientTxVal / (1 - this.decay)) continue;
      partialNum = 0;
      const curPct = nConf / (totalNum + failNum + extraNum);
      if (curPct < successBreakPoint) continue;
      foundAnswer = true;
      nConf = 0;
      totalNum = 0;
      failNum = 0;
      extraNum = 0;
      bestNear = curNear;
      bestFar = curFar;
      newRange = true;
    }
    const minB = Math.min(bestNear, bestFar);
    const maxB = Math.max(bestNear, bestFar);
    let txSum = 0;
    for (let j = minB; j <= maxB; j++) txSum += this.txCtAvg[j]!;
    if (!foundAnswer || txSum === 0) return -1;
    txSum = txSum / 2;
    for (let j = minB; j <= maxB; j++) {
      if (this.txCtAvg[j]! < txSum) txSum -= this.txCtAvg[j]!;
      else return this.feerateAvg[j]! / this.txCtAvg[j]!;
    }
    return -1;
  }
}

export type FeeReason = 'none' | 'half' | 'full' | 'double' | 'conservative';

/** StringForFeeReason. */
export const FEE_REASON_TEXT: Record<FeeReason, string> = {
  none: 'None',
  half: 'Half Target 60% Threshold',
  full: 'Target 85% Threshold',
  double: 'Double Target 95% Threshold',
  conservative: 'Conservative Double Target longer horizon',
};

/** llround: halves away from zero. */
const llround = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));

export class FeeEstimator {
  private readonly buckets = new Buckets();
  private readonly med = new ConfirmStats(this.buckets, 24, 0.9952, 2);
  private readonly short = new ConfirmStats(this.buckets, 12, 0.962, 1);
  private readonly long = new ConfirmStats(this.buckets, 42, 0.99931, 24);
  private readonly all = [this.med, this.short, this.long];
  private bestSeen = 0;
  private firstRecorded = 0;
  private readonly tracked = new Map<string, { height: number; bucket: number; feePerK: number }>();

  /** The longest target tracked (HighestTargetTracked(LONG)): 1008. */
  maxTarget(): number {
    return this.long.maxConfirms();
  }

  /** processTransaction: `feePerK` is CFeeRate(fee, vsize).GetFeePerK(). */
  transactionAdded(txid: string, height: number, feePerK: bigint, valid: boolean): void {
    if (this.tracked.has(txid) || height !== this.bestSeen || !valid) return;
    const rate = Number(feePerK);
    let bucket = 0;
    for (const s of this.all) bucket = s.newTx(height, rate);
    this.tracked.set(txid, { height, bucket, feePerK: rate });
  }

  /** removeTx (a transaction left the mempool, or was confirmed when inBlock). */
  transactionRemoved(txid: string, inBlock = false): boolean {
    const t = this.tracked.get(txid);
    if (!t) return false;
    for (const s of this.all) s.removeTx(t.height, this.bestSeen, t.bucket, inBlock);
    this.tracked.delete(txid);
    return true;
  }

  /** processBlock: the block's transactions (those the estimator tracks are recorded at their entry fee rate). */
  blockConnected(height: number, txids: readonly string[]): void {
    if (height <= this.bestSeen) return;
    this.bestSeen = height;
    for (const s of this.all) s.clearCurrent(height);
    for (const s of this.all) s.updateMovingAverages();
    let counted = 0;
    for (const txid of txids) {
      const t = this.tracked.get(txid);
      if (!t || !this.transactionRemoved(txid, true)) continue;
      const blocks = height - t.height;
      if (blocks <= 0) continue;
      for (const s of this.all) s.record(blocks, t.feePerK);
      counted++;
    }
    if (this.firstRecorded === 0 && counted > 0) this.firstRecorded = this.bestSeen;
  }

  private maxUsableEstimate(): number {
    const span = this.firstRecorded === 0 ? 0 : this.bestSeen - this.firstRecorded;
    return Math.min(this.long.maxConfirms(), Math.floor(span / 2));
  }

  private combined(confTarget: number, threshold: number, checkShorter: boolean): number {
    let estimate = -1;
    if (confTarget < 1 || confTarget > this.long.maxConfirms()) return estimate;
    if (confTarget <= this.short.maxConfirms()) estimate = this.short.estimateMedianVal(confTarget, SUFFICIENT_TXS_SHORT, threshold, this.bestSeen);
    else if (confTarget <= this.med.maxConfirms()) estimate = this.med.estimateMedianVal(confTarget, SUFFICIENT_FEETXS, threshold, this.bestSeen);
    else estimate = this.long.estimateMedianVal(confTarget, SUFFICIENT_FEETXS, threshold, this.bestSeen);
    if (checkShorter) {
      if (confTarget > this.med.maxConfirms()) {
        const m = this.med.estimateMedianVal(this.med.maxConfirms(), SUFFICIENT_FEETXS, threshold, this.bestSeen);
        if (m > 0 && (estimate === -1 || m < estimate)) estimate = m;
      }
      if (confTarget > this.short.maxConfirms()) {
        const m = this.short.estimateMedianVal(this.short.maxConfirms(), SUFFICIENT_TXS_SHORT, threshold, this.bestSeen);
        if (m > 0 && (estimate === -1 || m < estimate)) estimate = m;
      }
    }
    return estimate;
  }

  private conservativeFee(doubleTarget: number): number {
    let estimate = -1;
    if (doubleTarget <= this.short.maxConfirms()) estimate = this.med.estimateMedianVal(doubleTarget, SUFFICIENT_FEETXS, DOUBLE_SUCCESS_PCT, this.bestSeen);
    if (doubleTarget <= this.med.maxConfirms()) {
      const l = this.long.estimateMedianVal(doubleTarget, SUFFICIENT_FEETXS, DOUBLE_SUCCESS_PCT, this.bestSeen);
      if (l > estimate) estimate = l;
    }
    return estimate;
  }

  /** estimateSmartFee: the rate in sat/kvB (0 when none), the target it answers for, and which estimate decided (FeeReason). */
  estimateSmartFee(confTarget: number, conservative: boolean): { feePerK: bigint; blocks: number; reason: FeeReason } {
    let target = confTarget;
    if (target <= 0 || target > this.long.maxConfirms()) return { feePerK: 0n, blocks: target, reason: 'none' };
    if (target === 1) target = 2;
    target = Math.min(target, this.maxUsableEstimate());
    if (target <= 1) return { feePerK: 0n, blocks: target, reason: 'none' };
    let median = this.combined(Math.floor(target / 2), HALF_SUCCESS_PCT, true);
    let reason: FeeReason = 'half';
    const full = this.combined(target, SUCCESS_PCT, true);
    if (full > median) [median, reason] = [full, 'full'];
    const dbl = this.combined(2 * target, DOUBLE_SUCCESS_PCT, !conservative);
    if (dbl > median) [median, reason] = [dbl, 'double'];
    if (conservative || median === -1) {
      const c = this.conservativeFee(2 * target);
      if (c > median) [median, reason] = [c, 'conservative'];
    }
    if (median < 0) return { feePerK: 0n, blocks: target, reason };
    return { feePerK: BigInt(llround(median)), blocks: target, reason };
  }
}
