/**
 * psbtbumpfee's replacement, unsigned (wallet/feebumper.cpp CreateRateBumpTransaction with
 * require_mine = false), for any wallet — a watch-only one included: the precondition checks of
 * bump.ts, the original's outputs split into recipients and its change (the output the wallet sees
 * as change, or `original_change_index`; none left: the change becomes the one recipient, paying
 * the fee), the new fee rate (asked for: checked against the old fee plus the incremental relay fee
 * for the largest size; else the original's rate + 1 sat/kvB + the incremental fee, at least the
 * wallet's estimate), then the transaction CreateTransaction makes from the same inputs: the fee
 * is the rate times its largest signed size — Core's dummy signatures: 72-byte ECDSA for a wallet
 * that cannot grind R (no private keys), 71 for one that can, 65-byte Schnorr (shared/bitcoin/
 * spend/size.ts) — taken from the change; change below its minimum viable amount goes to the fee.
 *
 * The locktime is CreateTransaction's anti-fee-sniping one (the tip's height while the tip is
 * current, else 0). Where Core draws at random the devnet keeps one answer: the change stays at its
 * place (Core puts it at a random position), the inputs keep their order, the locktime is never
 * moved back (Core does so one time in ten). Core may add inputs when the original's do
 * not pay the new fee; the devnet refuses then ("Insufficient funds").
 */
import { inputKindFromScripts } from '../../shared/bitcoin/spend/kind';
import { estimateTx, inputVsize, type InputKind } from '../../shared/bitcoin/spend/size';
import { minViableChange } from '../../shared/bitcoin/spend/dust';
import type { Tx, TxOut } from '../../shared/bitcoin/tx';
import type { Chain } from '../chain/chain';
import { feeAt } from '../chain/policy';
import { isChange } from './accounting';
import { antiFeeSnipingLocktime } from './spend';
import { bumpPreconditions, bumpRate } from './bump';
import { WalletError, type Wallet } from './wallet';

export interface PsbtBumpOptions {
  /** fee_rate asked for (sat/kvB), or null. */
  explicitPerKvB: bigint | null;
  /** The wallet's own estimate (GetMinimumFeeRate), for when none was asked. */
  estimatePerKvB: bigint;
  replaceable: boolean;
  /** `outputs`: the new transaction's outputs instead of the original's. */
  outputs: TxOut[] | null;
  originalChangeIndex: number | null;
}

export interface PsbtBumpResult {
  tx: Tx;
  oldFee: bigint;
  newFee: bigint;
}

/** The size Core estimates for the wallet's coins and these outputs. */
function vsizeOf(kinds: InputKind[], outs: readonly TxOut[], lowR: boolean): number {
  return estimateTx(kinds, outs.map((o) => o.script), { ecdsa: lowR ? 'low-r' : undefined }).vsize;
}

export function psbtBump(w: Wallet, chain: Chain, txid: string, o: PsbtBumpOptions): PsbtBumpResult {
  if (o.outputs && o.originalChangeIndex !== null) {
    throw new WalletError(-8, "The options 'outputs' and 'original_change_index' are incompatible. You can only either specify a new set of outputs, or designate a change output to be recycled.");
  }
  const wtx = w.txs.get(txid);
  if (!wtx) throw new WalletError(-5, 'Invalid or non-wallet transaction id');
  if (o.originalChangeIndex !== null && o.originalChangeIndex >= wtx.tx.vout.length) throw new WalletError(-8, 'Change position is out of range');
  const { oldFee, coins } = bumpPreconditions(w, chain, txid, false);
  const original = wtx.tx;
  const kinds = coins.map((c) => {
    const e = w.lookup(c.script)?.expansion;
    try {
      return inputKindFromScripts(c.script, { redeemScript: e?.redeemScript, witnessScript: e?.witnessScript });
    } catch {
      throw new WalletError(-1, `Unable to estimate the size of spending ${c.txid}:${c.vout}`);
    }
  });
  const lowR = w.hasKeys();
  const txouts: TxOut[] = o.outputs ?? original.vout.map((x) => ({ value: x.value, script: x.script }));
  let changeIndex = -1;
  txouts.forEach((out, i) => {
    if (o.originalChangeIndex !== null ? o.originalChangeIndex === i : isChange(w, out)) changeIndex = i;
  });
  const isChangeAt = (i: number): boolean => (o.originalChangeIndex !== null ? o.originalChangeIndex === i : isChange(w, txouts[i]!));
  const recipients = txouts.filter((_, i) => !isChangeAt(i));
  const inputs = coins.reduce((s, c) => s + c.value, 0n);

  const rate = bumpRate(o, oldFee, original.weight, () => vsizeOf(kinds, txouts, lowR));

  const sequence = o.replaceable ? 0xfffffffd : 0xfffffffe;
  const tx = (outs: TxOut[]): Tx => ({
    version: original.version,
    locktime: antiFeeSnipingLocktime(chain),
    vin: original.vin.map((i) => ({ prevTxid: i.txid, vout: i.vout, scriptSig: new Uint8Array(0), sequence, witness: [] })),
    vout: outs,
  });
  const recipientsTotal = recipients.reduce((s, r) => s + r.value, 0n);
  if (recipients.length === 0) {
    // Only change: it becomes the one recipient, the fee subtracted from it.
    const out = { script: txouts[changeIndex]!.script, value: recipientsTotal };
    const fee = feeAt(rate, vsizeOf(kinds, [out], lowR));
    out.value = inputs - fee;
    if (out.value < 0n) throw new WalletError(-4, 'Unable to create transaction. The transaction amount is too small to pay the fee');
    return { tx: tx([out]), oldFee, newFee: fee };
  }
  if (changeIndex >= 0) {
    const changeScript = txouts[changeIndex]!.script;
    const withChange = [...recipients];
    withChange.splice(changeIndex, 0, { script: changeScript, value: 0n });
    const fee = feeAt(rate, vsizeOf(kinds, withChange, lowR));
    const change = inputs - recipientsTotal - fee;
    let spendVsize = 68;
    try {
      spendVsize = inputVsize(inputKindFromScripts(changeScript, {}), { ecdsa: lowR ? 'low-r' : undefined });
    } catch {
      // a change script the size rules do not know: a p2wpkh-sized spend
    }
    const minChange = minViableChange({ changeScript, changeSpendVsize: spendVsize });
    if (change >= minChange) {
      withChange[changeIndex] = { script: changeScript, value: change };
      return { tx: tx(withChange), oldFee, newFee: fee };
    }
  }
  // No change output: what the inputs leave over the recipients is the fee, if it pays the rate.
  const fee = inputs - recipientsTotal;
  if (fee < feeAt(rate, vsizeOf(kinds, recipients, lowR))) throw new WalletError(-4, 'Unable to create transaction. Insufficient funds');
  return { tx: tx(recipients), oldFee, newFee: fee };
}
