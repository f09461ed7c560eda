/**
 * The node's PSBT updaters over descriptors (rpc/rawtransaction.cpp ProcessPSBT):
 * - utxoupdatepsbt(psbt, descriptors): previous transactions and coins (psbt-process.ts), then what
 *   the descriptors tell about each input and output — no signing, no sighash, no finalizing;
 * - descriptorprocesspsbt(psbt, descriptors, sighashtype, bip32derivs, finalize): the same, then
 *   signed with the private keys the descriptors hold (expand_priv; key-signer.ts), origins hidden
 *   when bip32derivs is false, inputs finalized when asked; `complete` when every input is final,
 *   with the extracted transaction's hex.
 * Descriptors are strings or {desc, range} (EvalDescriptorStringOrObject); the offline half is
 * shared/bitcoin/psbt's utxoUpdatePsbt.
 */
import type { Network } from '../../shared/bitcoin/networks';
import { encodeBase64, serializePsbt, utxoUpdatePsbt, watchOnlyWallet, type ProcessOptions, type WatchOnlyWallet } from '../../shared/bitcoin/psbt';
import type { Chain } from '../chain/chain';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { expectType } from '../rpc/args';
import type { UValue } from '../../shared/json';
import { psbtGeneration, type CoreVersion } from '../core-version';
import { DescriptorKeys } from '../wallet/key-signer';
import { allInputsFinal, parseSighash, processResult, processSources, psbtRpcError, readPsbt, scanObject, type ScanDescriptor } from './psbt-process';
import { arg, boolArg, method } from './rpc-util';
import { PSBT_HELP } from './psbt-help';

export function psbtUpdateMethods(chain: Chain, network: Network, coreVersion: CoreVersion): RpcMethodSpec[] {
  const generation = psbtGeneration(coreVersion);
  const descriptorsOf = (v: UValue | undefined): ScanDescriptor[] => (v && v.t !== 'null' ? expectType(v, 'arr').v.map((d) => scanObject(d, network)) : []);
  const walletOf = (descs: ScanDescriptor[]): WatchOnlyWallet | null => {
    if (descs.length === 0) return null;
    try {
      // kept between calls (the last 8): its merged provider derives every index of every range
      return watchOnlyWallet(
        descs.map((d) => (d.range ? { desc: d.publicText, range: d.range } : { desc: d.publicText })),
        network,
      );
    } catch (e) {
      throw new RpcError(-5, (e as Error).message.replace(/^descriptor \d+: /, ''));
    }
  };
  const process = (psbtArg: UValue | undefined, descs: ScanDescriptor[], opts: ProcessOptions) => {
    const psbt = readPsbt(psbtArg, generation);
    const r = utxoUpdatePsbt(psbt, walletOf(descs), processSources(chain, psbt), opts);
    if (!r.ok) throw psbtRpcError(r.error);
    return r.psbt;
  };
  return [
    method(
      'utxoupdatepsbt',
      [arg('psbt', 'str', true), arg('descriptors', 'arr')],
      ([psbt, descriptors]) => encodeBase64(serializePsbt(process(psbt, descriptorsOf(descriptors), {}))),
    ),
    method(
      'descriptorprocesspsbt',
      [arg('psbt', 'str', true), arg('descriptors', 'arr', true), arg('sighashtype', 'str'), arg('bip32derivs', 'bool'), arg('finalize', 'bool')],
      ([psbt, descriptors, sighash, bip32derivs, finalize]) => {
        const descs = expectType(descriptors, 'arr').v.map((d) => scanObject(d, network));
        const sighashType = parseSighash(sighash);
        const hideOrigins = !boolArg(bip32derivs, true);
        const keys = new DescriptorKeys(
          descs.map((d) => ({ text: d.text, range: d.range ?? [0, 0] })),
          network,
        );
        const p = process(psbt, descs, { sighashType, hideOrigins, finalize: boolArg(finalize, true), signer: keys.size > 0 ? keys : undefined });
        return processResult(p, allInputsFinal(p));
      },
      PSBT_HELP.descriptorprocesspsbt,
    ),
  ];
}
