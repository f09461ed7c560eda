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
import { amountFromValue, getBool, getInt, getStr, parseHashV } from '../rpc/args';
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

/** What bumpfee_helper reads from its options (RPCTypeCheckObj, the fee settings, outputs, original_change_index). */
export interface BumpOptions {
  replaceable: boolean;
  explicit: bigint | null;
  /** The wallet's fee estimate for the target and mode (GetMinimumFeeRate). */
  estimate: bigint;
  outputs: UValue | null;
  originalChangeIndex: number | null;
  psbtVersion: UValue | undefined;
}

export function parseBumpOptions(node: DevnetNode, o: UValue | undefined, extraKeys: Record<string, UValue['t'] | null> = {}): BumpOptions {
  const types = { ...OPTION_TYPES, ...extraKeys };
  let replaceable = true;
  let explicit: bigint | null = null;
  let target: number | undefined;
  let mode: 'unset' | 'economical' | 'conservative' = 'unset';
  let outputs: UValue | null = null;
  let originalChangeIndex: number | null = null;
  let psbtVersion: UValue | undefined;
  if (o !== undefined && o.t === 'obj') {
    // RPCTypeCheckObj: known keys with their types; unknown keys refused.
    o.k.forEach((k, i) => {
      if (!(k in types)) throw new RpcError(-3, `Unexpected key ${k}`);
      const want = types[k];
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
      if (conf !== undefined) target = node.feeRpc.parseTarget(conf);
      if (est !== undefined) mode = FeeRpc.parseMode(est) ? 'conservative' : getStr(est).toLowerCase() === 'economical' ? 'economical' : 'unset';
    }
    const outs = get('outputs');
    if (outs !== undefined && outs.t !== 'null') {
      if (outs.t === 'arr' && outs.v.length === 0) throw new RpcError(-8, 'Invalid parameter, output argument cannot be an empty array');
      outputs = outs;
    }
    const change = get('original_change_index');
    if (change !== undefined) originalChangeIndex = getInt(change, 'uint32');
    psbtVersion = get('psbt_version');
  }
  const estimate = node.feeRpc.walletFeeRate(target, mode, replaceable).perKvB;
  return { replaceable, explicit, estimate, outputs, originalChangeIndex, psbtVersion };
}

export class BumpRpc {
  constructor(private readonly node: DevnetNode) {}

  private bump(a: (UValue | undefined)[], w: ReturnType<DevnetNode['selectWallet']>): unknown {
    if (w.disablePrivateKeys) throw new RpcError(-4, 'bumpfee is not available with wallets that have private keys disabled. Use psbtbumpfee instead.');
    const txid = parseHashV(a[0], 'txid');
    const o = parseBumpOptions(this.node, a[1]);
    const r = bumpFee(w, this.node.chain, txid, { explicitPerKvB: o.explicit, estimatePerKvB: o.estimate, replaceable: o.replaceable });
    const newTxid = w.broadcast(r.tx);
    markReplaced(w, txid, newTxid);
    return { txid: newTxid, origfee: btcJson(r.oldFee), fee: btcJson(r.newFee), errors: [] };
  }

  methods(): RpcMethodSpec[] {
    return [method('bumpfee', [arg('txid', 'str_hex', true), arg('options', 'obj')], (a, ctx) => this.bump(a, this.node.selectWallet(ctx)))];
  }
}
