/**
 * The stateless PSBT roles (rpc/rawtransaction.cpp): combinepsbt, finalizepsbt, analyzepsbt, over the
 * same offline code the app and `npm run psbt` use (shared/bitcoin/psbt: Core's Merge, FinalizePSBT
 * with its signature producer, AnalyzePSBT), so the devnet answers them as Core does — results and
 * error texts — in the generation it plays (v30 reads version 0 PSBTs only, with v30's decode texts).
 * finalizepsbt is Core's: not strict (an input whose script does not need a bad signature is
 * finalized); the app's own finalize is strict.
 */
import { RawJson } from '../../shared/json';
import { analysisJson, analyzePsbtBase64, combinePsbtsBase64, finalizePsbtBase64 } from '../../shared/bitcoin/psbt';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { getBool, getStr } from '../rpc/args';
import { psbtGeneration, type CoreVersion } from '../core-version';
import { arg, method } from './rpc-util';

export function psbtRoleMethods(coreVersion: CoreVersion): RpcMethodSpec[] {
  const opts = { coreVersion: psbtGeneration(coreVersion) };
  return [
    method('combinepsbt', [arg('txs', 'arr', true)], ([txs]) => {
      const list = txs && txs.t === 'arr' ? txs.v.map((x) => getStr(x)) : [];
      const r = combinePsbtsBase64(list, opts);
      if (!r.ok) throw new RpcError(r.code, r.error);
      return r.psbt;
    }),
    method('finalizepsbt', [arg('psbt', 'str', true), arg('extract', 'bool')], ([psbt, extract]) => {
      const r = finalizePsbtBase64(getStr(psbt), { ...opts, extract: extract === undefined ? true : getBool(extract), strict: false });
      if (!r.ok) throw new RpcError(r.code, r.error);
      return r.result;
    }),
    method('analyzepsbt', [arg('psbt', 'str', true)], ([psbt]) => {
      const r = analyzePsbtBase64(getStr(psbt), opts);
      if (!r.ok) throw new RpcError(r.code, r.error);
      return new RawJson(analysisJson(r.analysis));
    }),
  ];
}
