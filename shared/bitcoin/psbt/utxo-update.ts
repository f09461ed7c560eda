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
import { EMPTY_PROVIDER, hideOrigins, type SolvingProvider } from './provider';
import type { KeySigner } from './signer';
import { isFinalInput, precompute, PSBT_ERROR_TEXT, removeUnnecessaryTransactions, signPsbtInput, updatePsbtOutput } from './sign-input';
import type { Psbt } from './types';
import type { WatchOnlyWallet } from './wallet-index';

export interface UtxoSources {
  /** Transactions the node would find (txindex or mempool), by txid. */
  txs?: ReadonlyMap<string, ParsedTx>;
  /** Unspent outputs by "txid:vout". */
  coins?: ReadonlyMap<string, TxOut>;
}

/**
 * ProcessPSBT's other parameters, as descriptorprocesspsbt sets them (utxoupdatepsbt: none of
 * them — no sighash type, no finalizing, origins shown, no keys).
 */
export interface ProcessOptions {
  /** The sighash type asked for (undefined: each input's default). */
  sighashType?: number;
  finalize?: boolean;
  /** bip32derivs = false: the key origins are hidden. */
  hideOrigins?: boolean;
  /** The private descriptors' keys (signer.ts). */
  signer?: KeySigner;
}

export type UtxoUpdateResult = { ok: true; psbt: Psbt } | { ok: false; error: string };

/** IsSegWitOutput: a witness program, or P2SH of one whose redeem script the descriptors know. */
function isSegwit(provider: SolvingProvider, script: Uint8Array): boolean {
  if (witnessProgram(script)) return true;
  if (!isPayToScriptHash(script)) return false;
  const redeem = provider.getScript(hexOf(script, 2, 22));
  return redeem !== undefined && witnessProgram(redeem) !== null;
}

/** utxoupdatepsbt(psbt, descriptors) — or descriptorprocesspsbt with `opts` —: `wallet` holds the descriptors (null: none given). */
export function utxoUpdatePsbt(psbt: Psbt, wallet: WatchOnlyWallet | null, src: UtxoSources, opts: ProcessOptions = {}): UtxoUpdateResult {
  const p = editablePsbt(psbt);
  // One provider of every descriptor at every index of its range (Core's FlatSigningProvider).
  const known: SolvingProvider = wallet ? wallet.mergedProvider() : EMPTY_PROVIDER;
  const provider = opts.hideOrigins ? hideOrigins(known) : known;
  for (const input of p.inputs) {
    if (input.nonWitnessUtxo) continue;
    const tx = src.txs?.get(input.prevTxid);
    if (tx) {
      input.nonWitnessUtxo = tx;
      continue;
    }
    const coin = src.coins?.get(`${input.prevTxid}:${input.vout}`);
    if (coin && isSegwit(known, coin.script)) input.witnessUtxo = coin;
  }
  const pre = precompute(p);
  if (!pre) return { ok: false, error: PSBT_ERROR_TEXT.INVALID_TX };
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    if (isFinalInput(input)) continue;
    if (signPsbtInput(provider, p, i, pre, { sighashType: opts.sighashType, finalize: opts.finalize ?? false, signer: opts.signer }) === 'SIGHASH_MISMATCH') {
      return { ok: false, error: `${PSBT_ERROR_TEXT.SIGHASH_MISMATCH} (input ${i})` };
    }
  }
  for (let o = 0; o < p.outputs.length; o++) updatePsbtOutput(provider, p, o);
  removeUnnecessaryTransactions(p);
  return { ok: true, psbt: p };
}
