/**
 * The wallet's PSBT methods (wallet/rpc/spend.cpp):
 * - walletprocesspsbt(psbt, sign, sighashtype, bip32derivs, finalize): the wallet's previous
 *   transactions, scripts and key origins (CWallet::FillPSBT through the shared updater,
 *   wallet/psbt-fill.ts), signatures when it holds keys and `sign` (a watch-only wallet signs
 *   nothing: complete stays false until the PSBT is signed elsewhere), finalized inputs, and the
 *   network transaction when complete;
 * - psbtbumpfee (psbt-bump-rpc.ts) and walletcreatefundedpsbt (psbt-fund-rpc.ts).
 */
import type { RpcMethodSpec } from '../rpc/types';
import { fillWalletPsbt } from '../wallet/psbt-fill';
import { psbtGeneration } from '../core-version';
import type { DevnetNode } from './node';
import { parseSighash, processResult, psbtRpcError, readPsbt } from './psbt-process';
import { arg, boolArg, method } from './rpc-util';
import { PSBT_HELP } from './psbt-help';

export function walletPsbtMethods(node: DevnetNode): RpcMethodSpec[] {
  const generation = psbtGeneration(node.coreVersion);
  return [
    method(
      'walletprocesspsbt',
      [arg('psbt', 'str', true), arg('sign', 'bool'), arg('sighashtype', 'str'), arg('bip32derivs', 'bool'), arg('finalize', 'bool')],
      ([psbt, sign, sighash, bip32derivs, finalize], ctx) => {
        const w = node.selectWallet(ctx);
        const p = readPsbt(psbt, generation);
        const sighashType = parseSighash(sighash);
        const r = fillWalletPsbt(w, p, { sign: boolArg(sign, true), sighashType, bip32Derivs: boolArg(bip32derivs, true), finalize: boolArg(finalize, true) });
        if (!r.ok) throw psbtRpcError(r.error);
        return processResult(r.psbt, r.complete);
      },
      PSBT_HELP.walletprocesspsbt,
    ),
  ];
}
