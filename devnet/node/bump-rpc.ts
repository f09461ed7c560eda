/**
 * bumpfee (wallet/rpc/spend.cpp bumpfee_helper) for wallets that hold their keys: a watch-only
 * wallet is refused first, with Core's message pointing to psbtbumpfee; then the txid, the options
 * (conf_target or fee_rate, estimate_mode, replaceable) with Core's conflicts, the precondition
 * checks and the replacement (devnet/wallet/bump.ts), signed and sent; the result is Core's
 * {txid, origfee, fee, errors}.
 */
import { btcJson } from '../../shared/amounts';
import type { UValue } from '../../shared/json';
import { UTYPE_NAME } from '../../shared/json';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { amountFromValue, getBool, getStr, parseHashV } from '../rpc/args';
import { bumpFee, markReplaced } from '../wallet/bump';
import type { DevnetNode } from './node';
import { FeeRpc } from './fee-rpc';
import { arg, method } from './rpc-util';

const OPTION_TYPES: Record<string, UValue['t'] | null> = {
  confTarget: 'num',
  conf_target: 'num',
  fee_rate: null,
  replaceable: 'bool',
  estimate_mode: 'str',
  outputs: null,
  original_change_index: 'num',
};

export class BumpRpc {
  constructor(private readonly node: DevnetNode) {}

  private bump(a: (UValue | undefined)[], w: ReturnType<DevnetNode['selectWallet']>): unknown {
    if (w.disablePrivateKeys) throw new RpcError(-4, 'bumpfee is not available with wallets that have private keys disabled. Use psbtbumpfee instead.');
    const txid = parseHashV(a[0], 'txid');
    let replaceable = true;
    let explicit: bigint | null = null;
    let target: number | undefined;
    let mode: 'unset' | 'economical' | 'conservative' = 'unset';
    const o = a[1];
    if (o !== undefined && o.t === 'obj') {
      // RPCTypeCheckObj: known keys with their types; unknown keys refused.
      o.k.forEach((k, i) => {
        if (!(k in OPTION_TYPES)) throw new RpcError(-3, `Unexpected key ${k}`);
        const want = OPTION_TYPES[k];
        const v = o.v[i]!;
        if (want && v.t !== want) throw new RpcError(-3, `JSON value of type ${UTYPE_NAME[v.t]} for field ${k} is not of expected type ${UTYPE_NAME[want]}`);
      });
      const get = (k: string): UValue | undefined => {
        const i = o.k.indexOf(k);
        return i < 0 ? undefined : o.v[i];
      };
      if (get('confTarget') && get('conf_target')) throw new RpcError(-8, 'confTarget and conf_target options should not both be set. Use conf_target (confTarget is deprecated).');
      const conf = get('confTarget') ?? get('conf_target');
      if (get('replaceable')) replaceable = getBool(get('replaceable'));
      const rate = get('fee_rate');
      const est = get('estimate_mode');
      if (rate !== undefined && rate.t !== 'null') {
        if (conf !== undefined) throw new RpcError(-8, 'Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.');
        if (est !== undefined && getStr(est) !== 'unset') throw new RpcError(-8, 'Cannot specify both estimate_mode and fee_rate');
        explicit = amountFromValue(rate, 3);
      } else {
        if (conf !== undefined) target = this.node.feeRpc.parseTarget(conf);
        if (est !== undefined) mode = FeeRpc.parseMode(est) ? 'conservative' : getStr(est).toLowerCase() === 'economical' ? 'economical' : 'unset';
      }
    }
    const estimate = this.node.feeRpc.walletFeeRate(target, mode, replaceable).perKvB;
    const r = bumpFee(w, this.node.chain, txid, { explicitPerKvB: explicit, estimatePerKvB: estimate, replaceable });
    const newTxid = w.broadcast(r.tx);
    markReplaced(w, txid, newTxid);
    return { txid: newTxid, origfee: btcJson(r.oldFee), fee: btcJson(r.newFee), errors: [] };
  }

  methods(): RpcMethodSpec[] {
    return [method('bumpfee', [arg('txid', 'str_hex', true), arg('options', 'obj')], (a, ctx) => this.bump(a, this.node.selectWallet(ctx)))];
  }
}
