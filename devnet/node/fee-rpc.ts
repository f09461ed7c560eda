/**
 * estimatesmartfee (rpc/fees.cpp) over the node's fee estimator (fee-estimator.ts), fed by the
 * chain's mempool and blocks the way Core's validation interface feeds it: a transaction counts when
 * it entered the mempool at the estimator's best height, without mempool parents, while the node
 * was current (out of initial block download, its tip less than 3 hours old).
 */
import { btcJson } from '../../shared/amounts';
import type { Chain } from '../chain/chain';
import { MIN_RELAY_FEE } from '../chain/policy';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { getInt, getStr } from '../rpc/args';
import { FEE_REASON_TEXT, FeeEstimator } from './fee-estimator';
import { arg, method } from './rpc-util';

const MODES = ['unset', 'economical', 'conservative'];

export class FeeRpc {
  readonly estimator = new FeeEstimator();

  constructor(chain: Chain, notCurrent: () => boolean) {
    chain.onChange((ev) => {
      if (ev.type === 'tx') {
        const fee = chain.mempoolFee(ev.tx.txid) ?? 0n;
        const vsize = BigInt(Math.ceil(ev.tx.weight / 4));
        const noParents = !ev.tx.vin.some((i) => chain.inMempool(i.txid));
        this.estimator.transactionAdded(ev.tx.txid, chain.tipHeight(), (fee * 1000n) / vsize, noParents && !notCurrent());
      } else if (ev.type === 'removed') {
        for (const txid of ev.txids) this.estimator.transactionRemoved(txid);
      } else {
        this.estimator.blockConnected(ev.block.height, ev.block.txs.slice(1).map((t) => t.txid));
      }
    });
  }

  /** The smart fee at a target and mode, raised to the minimum relay fee (sat/kvB), or null with the target answered. */
  smartFee(target: number, conservative: boolean): { feePerK: bigint | null; blocks: number } {
    const r = this.estimator.estimateSmartFee(target, conservative);
    return { feePerK: r.feePerK === 0n ? null : r.feePerK > MIN_RELAY_FEE ? r.feePerK : MIN_RELAY_FEE, blocks: r.blocks };
  }

  /** ParseConfirmTarget. */
  parseTarget(v: Parameters<typeof getInt>[0]): number {
    const target = getInt(v);
    const max = this.estimator.maxTarget();
    if (target < 1 || target > max) throw new RpcError(-8, `Invalid conf_target, must be between 1 and ${max}`);
    return target;
  }

  /** FeeModeFromString (case-insensitive): conservative or not. */
  static parseMode(v: Parameters<typeof getStr>[0] | undefined): boolean {
    const mode = v === undefined ? 'unset' : getStr(v).toLowerCase();
    if (!MODES.includes(mode)) throw new RpcError(-8, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
    return mode === 'conservative';
  }

  /**
   * The wallet's fee rate (wallet/fees.cpp GetMinimumFeeRate) without an explicit rate: the smart
   * estimate at `target` (the wallet's default 6), economical while signalling RBF, else
   * -fallbackfee (0.0002 BTC/kvB); never below the minimum relay fee. sat/kvB, with the fee_reason text.
   */
  walletFeeRate(target: number | undefined, mode: 'unset' | 'economical' | 'conservative', signalRbf: boolean): { perKvB: bigint; reason: string } {
    const conservative = mode === 'conservative' || (mode === 'unset' && !signalRbf);
    const r = this.estimator.estimateSmartFee(target ?? 6, conservative);
    let perKvB = r.feePerK;
    let reason = FEE_REASON_TEXT[r.reason];
    if (perKvB === 0n) [perKvB, reason] = [20_000n, 'Fallback fee'];
    if (perKvB < MIN_RELAY_FEE) [perKvB, reason] = [MIN_RELAY_FEE, 'Minimum Required Fee'];
    return { perKvB, reason };
  }

  methods(): RpcMethodSpec[] {
    return [
      method('estimatesmartfee', [arg('conf_target', 'num', true), arg('estimate_mode', 'str')], (a) => {
        const target = this.parseTarget(a[0]);
        const r = this.smartFee(target, FeeRpc.parseMode(a[1]));
        return r.feePerK === null ? { errors: ['Insufficient data or no feerate found'], blocks: r.blocks } : { feerate: btcJson(r.feePerK), blocks: r.blocks };
      }),
    ];
  }
}
