/**
 * Fee bumping as Core's wallet does it (wallet/feebumper.cpp) for a wallet holding the keys: the
 * precondition checks in Core's order and with its texts, the new fee rate (the original's plus
 * 1 sat/kvB plus the larger of the node's and the wallet's incremental fee, at least the wallet's
 * own estimate — or the one asked for, checked against the old fee plus the incremental relay fee),
 * then the same inputs and recipients with the change output reduced in its place, signed; the
 * original and the replacement point at each other (replaced_by_txid, replaces_txid).
 */
import type { Chain } from '../chain/chain';
import { formatMoney } from '../chain/chain';
import type { ChainTx, OutputInfo } from '../chain/types';
import { dustThreshold, feeAt, MIN_RELAY_FEE } from '../chain/policy';
import { debit, depth, isChange } from './accounting';
import { estimatedWeight, signTransaction } from './spend';
import { WalletError, type Wallet } from './wallet';

/** WALLET_INCREMENTAL_RELAY_FEE: 5,000 sat/kvB. */
const WALLET_INCREMENTAL_RELAY_FEE = 5000n;
/** -maxtxfee default: 0.1 BTC. */
const MAX_TX_FEE = 10_000_000n;

export interface BumpResult {
  tx: ChainTx;
  oldFee: bigint;
  newFee: bigint;
}

/** PreconditionChecks and the original's fee; throws Core's refusals as WalletErrors. */
export function bumpPreconditions(w: Wallet, chain: Chain, txid: string, requireMine: boolean): { oldFee: bigint; coins: OutputInfo[] } {
  const wtx = w.txs.get(txid);
  if (!wtx) throw new WalletError(-5, 'Invalid or non-wallet transaction id');
  // The coins it spends must still exist, in the UTXO set or the mempool (findCoins).
  for (const i of wtx.tx.vin) {
    const prev = chain.output(i.txid, i.vout);
    if (!prev || chain.spenders(i.txid, i.vout).some((s) => s.confirmed)) throw new WalletError(-1, `${i.txid}:${i.vout} is already spent`);
  }
  const outputs = wtx.tx.vout.map((_, n) => chain.spenders(txid, n));
  if (outputs.some((sp) => sp.some((s) => w.txs.has(s.txid)))) throw new WalletError(-8, 'Transaction has descendants in the wallet');
  if (outputs.some((sp) => sp.some((s) => !s.confirmed))) throw new WalletError(-8, 'Transaction has descendants in the mempool');
  if (depth(w, wtx) !== 0) throw new WalletError(-4, 'Transaction has been mined, or is conflicted with a mined transaction');
  const by = wtx.mapValue.get('replaced_by_txid');
  if (by !== undefined) throw new WalletError(-4, `Cannot bump transaction ${txid} which was already bumped by transaction ${by}`);
  const coins = wtx.tx.vin.map((i) => chain.output(i.txid, i.vout));
  if (requireMine && coins.some((c) => !c || !w.isMine(c.script))) throw new WalletError(-4, "Transaction contains inputs that don't belong to this wallet");
  const valueOut = wtx.tx.vout.reduce((s, o) => s + o.value, 0n);
  return { oldFee: debit(w, wtx) - valueOut, coins: coins as OutputInfo[] };
}

/**
 * CreateRateBumpTransaction + sign: `explicitPerKvB` is the fee_rate asked for; `estimatePerKvB` the
 * wallet's own estimate (GetMinimumFeeRate) for when none was.
 */
/**
 * The replacement's fee rate (feebumper's CheckFeeRate / EstimateFeeRate): an asked rate must pay the
 * old fee plus the incremental relay fee at the replacement's largest size (`maxVsize()`) and stay under
 * -maxtxfee; else the original's rate (rounded down) + 1 sat/kvB + the larger incremental fee, at least
 * the wallet's estimate.
 */
export function bumpRate(o: { explicitPerKvB: bigint | null; estimatePerKvB: bigint }, oldFee: bigint, originalWeight: number, maxVsize: number | (() => number)): bigint {
  if (o.explicitPerKvB !== null) {
    const rate = o.explicitPerKvB;
    const size = typeof maxVsize === 'number' ? maxVsize : maxVsize();
    // The mempool's own minimum (its rolling fee, 0 while it is not full) is never above the asked rate here.
    const total = feeAt(rate, size);
    const incremental = feeAt(MIN_RELAY_FEE, size);
    if (total < oldFee + incremental) {
      throw new WalletError(-8, `Insufficient total fee ${formatMoney(total)}, must be at least ${formatMoney(oldFee + incremental)} (oldFee ${formatMoney(oldFee)} + incrementalFee ${formatMoney(incremental)})`);
    }
    if (total > MAX_TX_FEE) throw new WalletError(-4, `Specified or calculated fee ${formatMoney(total)} is too high (cannot be higher than -maxtxfee ${formatMoney(MAX_TX_FEE)})`);
    return rate;
  }
  const oldRate = (oldFee * 1000n) / BigInt(Math.ceil(originalWeight / 4));
  const rate = oldRate + 1n + (WALLET_INCREMENTAL_RELAY_FEE > MIN_RELAY_FEE ? WALLET_INCREMENTAL_RELAY_FEE : MIN_RELAY_FEE);
  return o.estimatePerKvB > rate ? o.estimatePerKvB : rate;
}

export function bumpFee(w: Wallet, chain: Chain, txid: string, o: { explicitPerKvB: bigint | null; estimatePerKvB: bigint; replaceable: boolean }): BumpResult {
  const { oldFee, coins } = bumpPreconditions(w, chain, txid, true);
  const original = w.txs.get(txid)!.tx;
  const changeIndex = original.vout.findIndex((out) => isChange(w, out));
  const recipients = original.vout.filter((_, n) => n !== changeIndex);
  const inputs = coins.reduce((s, c) => s + c.value, 0n);
  const sequence = o.replaceable ? 0xfffffffd : 0xfffffffe;
  const build = (change: bigint | null): ChainTx => {
    const outs = recipients.map((r) => ({ script: r.script, value: r.value }));
    if (change !== null && changeIndex >= 0) outs.splice(changeIndex, 0, { script: original.vout[changeIndex]!.script, value: change });
    return signTransaction(w, chain, coins, outs, sequence, original.locktime);
  };
  const recipientsTotal = recipients.reduce((s, r) => s + r.value, 0n);
  // The largest size it can have: with its change output (CalculateMaximumSignedTxSize).
  const maxVsize = Math.ceil(estimatedWeight(build(changeIndex >= 0 ? 1n : null), coins) / 4);
  const rate = bumpRate(o, oldFee, original.weight, maxVsize);
  let tx = build(changeIndex >= 0 ? 1n : null);
  const fee = feeAt(rate, Math.ceil(estimatedWeight(tx, coins) / 4));
  if (changeIndex >= 0) {
    const change = inputs - recipientsTotal - fee;
    const threshold = dustThreshold(original.vout[changeIndex]!);
    if (change >= threshold) tx = build(change);
    else if (inputs - recipientsTotal < fee) throw new WalletError(-4, 'Insufficient funds');
    else tx = build(null);
  } else if (inputs - recipientsTotal < fee) {
    throw new WalletError(-4, 'Insufficient funds');
  }
  const newFee = inputs - tx.vout.reduce((s, out) => s + out.value, 0n);
  return { tx, oldFee, newFee };
}

/** After the replacement entered the mempool: the two transactions point at each other, comments carried over. */
export function markReplaced(w: Wallet, oldTxid: string, newTxid: string): void {
  const old = w.txs.get(oldTxid);
  const neu = w.txs.get(newTxid);
  if (!old || !neu) return;
  for (const [k, v] of old.mapValue) if (k !== 'replaced_by_txid' && k !== 'replaces_txid') neu.mapValue.set(k, v);
  neu.mapValue.set('replaces_txid', oldTxid);
  old.mapValue.set('replaced_by_txid', newTxid);
}
