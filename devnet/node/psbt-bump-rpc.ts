/**
 * psbtbumpfee (wallet/rpc/spend.cpp bumpfee_helper with want_psbt): any wallet, a watch-only one
 * included; the options as bumpfee reads them (bump-rpc.ts) plus, in current Core, `psbt_version`;
 * the replacement from wallet/psbt-bump.ts in a PSBT of that version, filled by the wallet without
 * signing (FillPSBT(sign = false, bip32derivs = true)); the result is {psbt, origfee, fee, errors}.
 */
import { btcJson } from '../../shared/amounts';
import type { UValue } from '../../shared/json';
import { createRawTransaction } from '../../shared/bitcoin/createrawtransaction';
import { decodeHexTx } from '../../shared/bitcoin/decode';
import { encodeBase64, serializePsbt } from '../../shared/bitcoin/psbt';
import type { TxOut } from '../../shared/bitcoin/tx';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { parseHashV } from '../rpc/args';
import { psbtBump } from '../wallet/psbt-bump';
import { fillWalletPsbt } from '../wallet/psbt-fill';
import type { DevnetNode } from './node';
import { parseBumpOptions } from './bump-rpc';
import { blankPsbt, psbtVersionArg } from './psbt-rpc';
import { psbtRpcError } from './psbt-process';
import { arg, method } from './rpc-util';
import { PSBT_HELP_BY_GENERATION } from './psbt-help';

/** AddOutputs of a temporary transaction: the `outputs` option read as createrawtransaction reads outputs. */
function outputsOf(v: UValue, node: DevnetNode): TxOut[] {
  const r = createRawTransaction({ inputs: { t: 'arr', v: [] }, outputs: v }, node.network);
  if (!r.ok) throw new RpcError(r.code, r.message);
  return decodeHexTx(r.hex, true, false)!.vout;
}

export function psbtBumpMethods(node: DevnetNode): RpcMethodSpec[] {
  const current = node.coreVersion !== '30';
  return [
    method(
      'psbtbumpfee',
      [arg('txid', 'str_hex', true), arg('options', 'obj')],
      ([txidArg, options], ctx) => {
        const w = node.selectWallet(ctx);
        const txid = parseHashV(txidArg, 'txid');
        const o = parseBumpOptions(node, options, current ? { psbt_version: 'num' } : {});
        const version = current ? psbtVersionArg(o.psbtVersion) : 0;
        const r = psbtBump(w, node.chain, txid, {
          explicitPerKvB: o.explicit,
          estimatePerKvB: o.estimate,
          replaceable: o.replaceable,
          outputs: o.outputs ? outputsOf(o.outputs, node) : null,
          originalChangeIndex: o.originalChangeIndex,
        });
        const filled = fillWalletPsbt(w, blankPsbt(r.tx, version, node.coreVersion), { sign: false, sighashType: undefined, bip32Derivs: true, finalize: true });
        if (!filled.ok) throw psbtRpcError(filled.error);
        return { psbt: encodeBase64(serializePsbt(filled.psbt)), origfee: btcJson(r.oldFee), fee: btcJson(r.newFee), errors: [] };
      },
      PSBT_HELP_BY_GENERATION.psbtbumpfee![node.coreVersion],
    ),
  ];
}
