/**
 * Core's utxoupdatepsbt (ProcessPSBT, src/rpc/rawtransaction.cpp) offline: an input without a
 * non_witness_utxo gets the previous transaction when the node would find it (txindex or mempool:
 * `txs`, each checked against its txid), else its coin from the UTXO set (`coins`) as witness_utxo
 * when that output is segwit (native, or P2SH of a witness program the descriptors know); then the
 * descriptors' data as walletprocesspsbt adds it, for every input and every output. Only a sighash
 * mismatch is an error, as in Core.
 */
import { isPayToScriptHash, witnessProgram } from '../script';
import { hexOf, type ParsedTx, type TxOut } from '../tx';
import { editablePsbt } from './edit';
import { EMPTY_PROVIDER, type SolvingProvider } from './provider';
import { isFinalInput, precompute, PSBT_ERROR_TEXT, removeUnnecessaryTransactions, signPsbtInput, updatePsbtOutput } from './sign-input';
import type { Psbt } from './types';
import type { WatchOnlyWallet } from './wallet-index';

export interface UtxoSources {
  /** Transactions the node would find (txindex or mempool), by txid. */
  txs?: ReadonlyMap<string, ParsedTx>;
  /** Unspent outputs by "txid:vout". */
  coins?: ReadonlyMap<string, TxOut>;
}

export type UtxoUpdateResult = { ok: true; psbt: Psbt } | { ok: false; error: string };

/** IsSegWitOutput: a witness program, or P2SH of one whose redeem script the descriptors know. */
function isSegwit(wallet: WatchOnlyWallet | null, script: Uint8Array): boolean {
  if (witnessProgram(script)) return true;
  if (!isPayToScriptHash(script) || !wallet) return false;
  const found = wallet.providerFor(script);
  const redeem = found?.provider.getScript(hexOf(script, 2, 22));
  return redeem !== undefined && witnessProgram(redeem) !== null;
}

/** utxoupdatepsbt(psbt, descriptors): `wallet` holds the descriptors (null: none given). */
export function utxoUpdatePsbt(psbt: Psbt, wallet: WatchOnlyWallet | null, src: UtxoSources): UtxoUpdateResult {
  const p = editablePsbt(psbt);
  for (const input of p.inputs) {
    if (input.nonWitnessUtxo) continue;
    const tx = src.txs?.get(input.prevTxid);
    if (tx) {
      input.nonWitnessUtxo = tx;
      continue;
    }
    const coin = src.coins?.get(`${input.prevTxid}:${input.vout}`);
    if (coin && isSegwit(wallet, coin.script)) input.witnessUtxo = coin;
  }
  const pre = precompute(p);
  if (!pre) return { ok: false, error: PSBT_ERROR_TEXT.INVALID_TX };
  const providerOf = (script: Uint8Array | undefined): SolvingProvider => (script && wallet?.providerFor(script)?.provider) || EMPTY_PROVIDER;
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    if (isFinalInput(input)) continue;
    const script = input.witnessUtxo?.script ?? input.nonWitnessUtxo?.vout[input.vout]?.script;
    if (signPsbtInput(providerOf(script), p, i, pre, { finalize: false }) === 'SIGHASH_MISMATCH') {
      return { ok: false, error: `${PSBT_ERROR_TEXT.SIGHASH_MISMATCH} (input ${i})` };
    }
  }
  for (let o = 0; o < p.outputs.length; o++) updatePsbtOutput(providerOf(p.outputs[o]!.script), p, o);
  removeUnnecessaryTransactions(p);
  return { ok: true, psbt: p };
}
