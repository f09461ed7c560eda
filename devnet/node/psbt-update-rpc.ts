/**
 * utxoupdatepsbt (rpc/rawtransaction.cpp ProcessPSBT, as the node answers it): an input without a
 * non_witness_utxo gets its previous transaction from the mempool (the devnet, like a node without
 * -txindex, finds no confirmed one), else its coin from the UTXO set seen through the mempool as
 * witness_utxo when that output is segwit; then what the given descriptors (strings or {desc, range},
 * EvalDescriptorStringOrObject: range 0–1000 by default, 0 for a descriptor that is not ranged) tell
 * about each input and output. The offline half is shared/bitcoin/psbt's utxoUpdatePsbt.
 */
import { toPlain, type UValue } from '../../shared/json';
import type { Network } from '../../shared/bitcoin/networks';
import { parseDescriptor, parseDescriptorRange } from '../../shared/bitcoin/descriptor';
import { parseTx, type ParsedTx, type TxOut } from '../../shared/bitcoin/tx';
import { decodeBase64Core, encodeBase64, parsePsbt, serializePsbt, utxoUpdatePsbt, WatchOnlyWallet, type WalletDescriptor } from '../../shared/bitcoin/psbt';
import type { Chain } from '../chain/chain';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { expectType, getStr } from '../rpc/args';
import { psbtGeneration, type CoreVersion } from '../core-version';
import { arg, descriptorCall, method } from './rpc-util';

/** EvalDescriptorStringOrObject's reading of one scan object, as a wallet descriptor with its range. */
function scanObject(v: UValue, network: Network): WalletDescriptor {
  let desc: string;
  let range: [number, number] = [0, 1000];
  if (v.t === 'str') desc = v.v;
  else if (v.t === 'obj') {
    const at = (k: string): UValue | undefined => v.v[v.k.indexOf(k)];
    const d = v.k.includes('desc') ? at('desc') : undefined;
    if (!d || d.t === 'null') throw new RpcError(-8, 'Descriptor needs to be provided in scan object');
    desc = getStr(d);
    const r = v.k.includes('range') ? at('range') : undefined;
    if (r && r.t !== 'null') range = descriptorCall(() => parseDescriptorRange(toPlain(r)));
  } else throw new RpcError(-8, 'Scan object needs to be either a string or an object');
  let ranged: boolean;
  try {
    ranged = parseDescriptor(desc, network).isRange();
  } catch (e) {
    throw new RpcError(-5, (e as Error).message);
  }
  return ranged ? { desc, range } : { desc };
}

export function psbtUpdateMethods(chain: Chain, network: Network, coreVersion: CoreVersion): RpcMethodSpec[] {
  const opts = { coreVersion: psbtGeneration(coreVersion) };
  return [
    method('utxoupdatepsbt', [arg('psbt', 'str', true), arg('descriptors', 'arr')], ([psbt, descriptors]) => {
      const bytes = decodeBase64Core(getStr(psbt));
      if (!bytes) throw new RpcError(-22, 'TX decode failed invalid base64');
      const parsed = parsePsbt(bytes, opts);
      if (!parsed.ok) throw new RpcError(-22, parsed.message);
      const descs = descriptors && descriptors.t !== 'null' ? expectType(descriptors, 'arr').v.map((d) => scanObject(d, network)) : [];
      let wallet: WatchOnlyWallet | null = null;
      if (descs.length > 0) {
        try {
          wallet = new WatchOnlyWallet(descs, network);
        } catch (e) {
          throw new RpcError(-5, (e as Error).message);
        }
      }
      const txs = new Map<string, ParsedTx>();
      const coins = new Map<string, TxOut>();
      const pool = new Map(chain.mempoolTxs().map((t) => [t.txid, t]));
      for (const input of parsed.psbt.inputs) {
        if (input.nonWitnessUtxo) continue;
        const t = pool.get(input.prevTxid);
        if (t) {
          txs.set(t.txid, parseTx(t.raw));
          continue;
        }
        // the UTXO set through the mempool (CCoinsViewMemPool): unspent in the chain, or a mempool output
        const o = chain.output(input.prevTxid, input.vout);
        if (!o || o.height === 0 || chain.spenders(input.prevTxid, input.vout).some((s) => s.confirmed)) continue;
        coins.set(`${input.prevTxid}:${input.vout}`, { value: o.value, script: o.script });
      }
      const r = utxoUpdatePsbt(parsed.psbt, wallet, { txs, coins });
      if (!r.ok) throw new RpcError(-22, r.error);
      return encodeBase64(serializePsbt(r.psbt));
    }),
  ];
}
