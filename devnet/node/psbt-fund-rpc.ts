/**
 * walletcreatefundedpsbt(inputs, outputs, locktime, options, bip32derivs, version, psbt_version)
 * (wallet/rpc/spend.cpp): the transaction ConstructTransaction makes of the arguments (the shared
 * createrawtransaction: Core's argument errors, the presets' sequences), the options FundTransaction
 * reads (RPCTypeCheckObj's keys; add_inputs — by default only without presets —, changeAddress /
 * change_type, changePosition, fee_rate / feeRate / conf_target / estimate_mode with Core's
 * conflicts, replaceable, subtractFeeFromOutputs), funded by wallet/psbt-fund.ts, in a PSBT of the
 * version asked (current Core: 2 by default; v30: 0) filled by the wallet without signing; the result
 * is {psbt, fee, changepos}.
 */
import { btcJson } from '../../shared/amounts';
import { U_NULL, UTYPE_NAME, type UValue } from '../../shared/json';
import { createRawTransaction } from '../../shared/bitcoin/createrawtransaction';
import { decodeHexTx } from '../../shared/bitcoin/decode';
import { decodeDestination } from '../../shared/bitcoin/address';
import { encodeBase64, serializePsbt } from '../../shared/bitcoin/psbt';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { amountFromValue, getBool, getInt, getStr } from '../rpc/args';
import { fundTransaction } from '../wallet/psbt-fund';
import { fillWalletPsbt } from '../wallet/psbt-fill';
import { changeTypeFor } from '../wallet/spend';
import type { DevnetNode } from './node';
import { FeeRpc } from './fee-rpc';
import { blankPsbt, psbtVersionArg } from './psbt-rpc';
import { psbtRpcError } from './psbt-process';
import { arg, boolArg, method, parseAddressType } from './rpc-util';
import { PSBT_HELP_BY_GENERATION } from './psbt-help';

/** FundTransaction's RPCTypeCheckObj (null: any type, checked later). */
const OPTIONS: Record<string, UValue['t'] | null> = {
  add_inputs: 'bool',
  include_unsafe: 'bool',
  add_to_wallet: 'bool',
  changeAddress: 'str',
  change_address: 'str',
  changePosition: 'num',
  change_position: 'num',
  change_type: 'str',
  includeWatching: 'bool',
  include_watching: 'bool',
  inputs: 'arr',
  lockUnspents: 'bool',
  lock_unspents: 'bool',
  locktime: 'num',
  fee_rate: null,
  feeRate: null,
  psbt: 'bool',
  solving_data: 'obj',
  subtractFeeFromOutputs: 'arr',
  subtract_fee_from_outputs: 'arr',
  replaceable: 'bool',
  conf_target: 'num',
  estimate_mode: 'str',
  minconf: 'num',
  maxconf: 'num',
  input_weights: 'arr',
  max_tx_weight: 'num',
};

/** DEFAULT_DISCARD_FEE, tempered by the estimator (GetDiscardRate): min(estimate for 500 blocks, 10 sat/vB), at least 3 sat/vB. */
function discardRate(node: DevnetNode): bigint {
  const est = node.feeRpc.estimator.estimateSmartFee(500, true).feePerK;
  let rate = est > 0n && est < 10_000n ? est : 10_000n;
  if (rate < 3000n) rate = 3000n;
  return rate;
}

export function psbtFundMethods(node: DevnetNode): RpcMethodSpec[] {
  const current = node.coreVersion !== '30';
  const extra = current ? [arg('psbt_version', 'num')] : [];
  return [
    method(
      'walletcreatefundedpsbt',
      [arg('inputs', 'arr'), arg('outputs', 'any', true), arg('locktime', 'num'), arg('options', 'obj'), arg('bip32derivs', 'bool'), arg('version', 'num'), ...extra],
      (a, ctx) => {
        const w = node.selectWallet(ctx);
        const o = a[3] && a[3].t === 'obj' ? a[3] : { t: 'obj' as const, k: [] as string[], v: [] as UValue[] };
        const get = (k: string): UValue | undefined => {
          const i = o.k.indexOf(k);
          return i < 0 ? undefined : o.v[i];
        };
        const replaceableV = get('replaceable');
        const raw = createRawTransaction({ inputs: a[0] ?? { t: 'arr', v: [] }, outputs: a[1] ?? U_NULL, locktime: a[2], replaceable: replaceableV, version: a[5] }, node.network);
        if (!raw.ok) throw new RpcError(raw.code, raw.message);
        const tx = decodeHexTx(raw.hex, true, false)!;
        o.k.forEach((k, i) => {
          if (!(k in OPTIONS)) throw new RpcError(-3, `Unexpected key ${k}`);
          const want = OPTIONS[k];
          const v = o.v[i]!;
          if (want && v.t !== want) throw new RpcError(-3, `JSON value of type ${UTYPE_NAME[v.t]} for field ${k} is not of expected type ${UTYPE_NAME[want]}`);
        });
        const addInputs = get('add_inputs') !== undefined ? getBool(get('add_inputs')) : tx.vin.length === 0;
        const changeAddressV = get('change_address') ?? get('changeAddress');
        let changeScript: Uint8Array | null = null;
        if (changeAddressV !== undefined) {
          const d = decodeDestination(getStr(changeAddressV), node.network);
          if (!d.ok) throw new RpcError(-5, 'Change address must be a valid bitcoin address');
          changeScript = d.script;
        }
        const posV = get('change_position') ?? get('changePosition');
        const changePosition = posV !== undefined ? getInt(posV) : null;
        const typeV = get('change_type');
        if (typeV !== undefined && changeAddressV !== undefined) throw new RpcError(-8, 'Cannot specify both change address and address type options');
        let changeType = null;
        if (typeV !== undefined) {
          try {
            changeType = parseAddressType(typeV, 'bech32');
          } catch {
            throw new RpcError(-5, `Unknown change type '${getStr(typeV)}'`);
          }
        }
        const replaceable = replaceableV !== undefined ? getBool(replaceableV) : true;
        // SetFeeEstimateMode (override_min_fee: a rate below the relay minimum is taken as asked).
        const rateV = get('fee_rate');
        const oldRateV = get('feeRate');
        const conf = get('conf_target');
        const est = get('estimate_mode');
        let feeRate: bigint;
        if (oldRateV !== undefined) {
          if (rateV !== undefined) throw new RpcError(-8, 'Cannot specify both fee_rate (sat/vB) and feeRate (BTC/kvB)');
          if (conf !== undefined) throw new RpcError(-8, 'Cannot specify both conf_target and feeRate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.');
          if (est !== undefined) throw new RpcError(-8, 'Cannot specify both estimate_mode and feeRate');
          feeRate = amountFromValue(oldRateV);
        } else if (rateV !== undefined && rateV.t !== 'null') {
          if (conf !== undefined) throw new RpcError(-8, 'Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.');
          if (est !== undefined && getStr(est) !== 'unset') throw new RpcError(-8, 'Cannot specify both estimate_mode and fee_rate');
          feeRate = amountFromValue(rateV, 3);
        } else {
          const target = conf !== undefined ? node.feeRpc.parseTarget(conf) : undefined;
          const mode = est === undefined ? 'unset' : FeeRpc.parseMode(est) ? 'conservative' : getStr(est).toLowerCase() === 'economical' ? 'economical' : 'unset';
          feeRate = node.feeRpc.walletFeeRate(target, mode, replaceable).perKvB;
        }
        // InterpretSubtractFeeFromOutputInstructions: positions into the outputs.
        const sffoV = get('subtract_fee_from_outputs') ?? get('subtractFeeFromOutputs');
        const subtractFeeFrom: number[] = [];
        for (const p of sffoV && sffoV.t === 'arr' ? sffoV.v : []) {
          const n = getInt(p);
          if (subtractFeeFrom.includes(n)) throw new RpcError(-8, `Invalid parameter 'subtract fee from output', duplicated position: ${n}`);
          if (n < 0) throw new RpcError(-8, `Invalid parameter 'subtract fee from output', negative position: ${n}`);
          if (n >= tx.vout.length) throw new RpcError(-8, `Invalid parameter 'subtract fee from output', position too large: ${n}`);
          subtractFeeFrom.push(n);
        }
        if (changePosition !== null && (changePosition < 0 || changePosition > tx.vout.length)) throw new RpcError(-8, 'changePosition out of bounds');
        const bip32derivs = boolArg(a[4], true);
        let change: { script: Uint8Array };
        let own: ReturnType<typeof w.peekAddress> | null = null;
        if (changeScript) change = { script: changeScript };
        else {
          changeType ??= changeTypeFor(w, tx.vout);
          change = own = w.peekAddress(changeType, true);
        }
        const funded = fundTransaction(w, node.chain, {
          inputs: tx.vin.map((i) => ({ txid: i.prevTxid, vout: i.vout, sequence: i.sequence })),
          outputs: tx.vout,
          locktime: tx.locktime,
          version: tx.version,
          replaceable,
          feeRate,
          addInputs,
          change,
          changePosition,
          subtractFeeFrom,
          discardFeeRate: discardRate(node),
        });
        // The reserved change address is kept (KeepDestination); without change, CreateTransaction's
        // second attempt (avoid partial spends) reserves and keeps one more.
        if (own) {
          own.take();
          if (funded.changePos < 0 && changeType) w.nextAddress(changeType, true);
        }
        // Read after funding, as Core reads it (a refused version has used the change address up).
        const version = current ? psbtVersionArg(a[6]) : 0;
        const filled = fillWalletPsbt(w, blankPsbt(funded.tx, version, node.coreVersion), { sign: false, sighashType: undefined, bip32Derivs: bip32derivs, finalize: true });
        if (!filled.ok) throw psbtRpcError(filled.error);
        return { psbt: encodeBase64(serializePsbt(filled.psbt)), fee: btcJson(funded.fee), changepos: funded.changePos };
      },
      PSBT_HELP_BY_GENERATION.walletcreatefundedpsbt![node.coreVersion],
    ),
  ];
}
