/**
 * walletcreatefundedpsbt's transaction (wallet/spend.cpp FundTransaction → CreateTransaction), for
 * any wallet — a watch-only one included, nothing is signed: the preset inputs, then coins of the
 * wallet chosen by the shared coin selection (shared/bitcoin/spend: Core's effective values, cost
 * and minimum viable change, the change to the satoshi for a given set of coins); the fee at Core's
 * dummy-signature size (72-byte ECDSA without keys, 71 with); subtractFeeFromOutputs as Core: the
 * coins cover the amounts only, change is what is left over them when viable, and the fee needed is
 * taken from those outputs (the first one also takes the remainder of the division).
 *
 * Where Core draws at random the devnet keeps one answer: automatic selection is the shared one
 * (Core's Branch and Bound first; its random draws seeded), the change goes last unless
 * changePosition says where, the inputs keep their order (presets first).
 */
import { selectCoins, type SpendableCoin } from '../../shared/bitcoin/spend/coins';
import { SpendError } from '../../shared/bitcoin/spend/errors';
import { inputKindFromScripts } from '../../shared/bitcoin/spend/kind';
import { estimateTx, inputVsize, type InputKind } from '../../shared/bitcoin/spend/size';
import { minViableChange } from '../../shared/bitcoin/spend/dust';
import { feeFor } from '../../shared/bitcoin/spend/feerate';
import type { Tx, TxOut } from '../../shared/bitcoin/tx';
import type { Chain } from '../chain/chain';
import { COINBASE_MATURITY_DEPTH, WalletError, type Wallet } from './wallet';

export interface FundRequest {
  /** Preset inputs, with the sequence each asks (undefined: the wallet's). */
  inputs: Array<{ txid: string; vout: number; sequence?: number }>;
  outputs: TxOut[];
  locktime: number;
  version: number;
  replaceable: boolean;
  /** sat/kvB. */
  feeRate: bigint;
  addInputs: boolean;
  change: { script: Uint8Array };
  changePosition: number | null;
  subtractFeeFrom: number[];
  /** -discardfee as the estimator tempers it (GetDiscardRate), sat/kvB. */
  discardFeeRate: bigint;
}

export interface Funded {
  tx: Tx;
  fee: bigint;
  changePos: number;
}

const PRESET_SHORT = 'The preselected coins total amount does not cover the transaction target. Please allow other inputs to be automatically selected or include more coins manually';

/** Core's text for a refusal of the shared coin selection. */
function coreText(e: SpendError, manual: boolean): string {
  switch (e.code) {
    case 'spend.insufficient_funds':
    case 'spend.no_spendable_coins':
      return manual ? PRESET_SHORT : 'Insufficient funds';
    case 'spend.fee_absurd':
    case 'spend.fee_rate_absurd':
      return 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)';
    case 'spend.amount_dust':
    case 'spend.amount_invalid':
      return 'Transaction amount too small';
    case 'spend.too_large':
      return 'Transaction too large';
    default:
      return e.message;
  }
}

function kindOf(w: Wallet, script: Uint8Array): InputKind {
  const e = w.lookup(script)?.expansion;
  return inputKindFromScripts(script, { redeemScript: e?.redeemScript, witnessScript: e?.witnessScript });
}

/** AvailableCoins: confirmed coins, and unconfirmed ones of the wallet's own trusted transactions. */
function walletCoins(w: Wallet): SpendableCoin[] {
  return w
    .unspent(0, 9_999_999)
    .filter((c) => c.confirmations > 0 || w.isTrusted(c.txid))
    .flatMap((c) => {
      try {
        return [{ txid: c.txid, vout: c.vout, value: c.value, kind: kindOf(w, c.script), confirmations: c.confirmations, coinbase: w.chain.findTx(c.txid)?.tx.coinbase ?? false }];
      } catch {
        return [];
      }
    })
    .filter((c) => !c.coinbase || c.confirmations >= COINBASE_MATURITY_DEPTH);
}

export function fundTransaction(w: Wallet, chain: Chain, r: FundRequest): Funded {
  const coins = walletCoins(w);
  const byOutpoint = new Map(coins.map((c) => [`${c.txid}:${c.vout}`, c]));
  for (const i of r.inputs) {
    if (!byOutpoint.has(`${i.txid}:${i.vout}`)) {
      const o = chain.output(i.txid, i.vout);
      throw new WalletError(-4, o && w.isMine(o.script) ? `Not solvable pre-selected input ${i.txid}:${i.vout}` : 'Unable to find UTXO for external input');
    }
  }
  const lowR = w.hasKeys();
  const ecdsa = lowR ? ('low-r' as const) : ('max' as const);
  const changeKind = (() => {
    try {
      return inputKindFromScripts(r.change.script, {});
    } catch {
      return { type: 'p2wpkh' } as InputKind;
    }
  })();
  let inputs: SpendableCoin[];
  let outs: TxOut[];
  let change: bigint | null;
  let fee: bigint;
  if (r.subtractFeeFrom.length === 0) {
    const req = { coins, recipients: r.outputs, feeRate: r.feeRate, change: { script: r.change.script, kind: changeKind }, discardFeeRate: r.discardFeeRate, ecdsa, maxFeeRate: 1n << 62n };
    const select = (manual: boolean): ReturnType<typeof selectCoins> => {
      try {
        return selectCoins(manual ? { ...req, manual: r.inputs } : req);
      } catch (e) {
        if (!(e instanceof SpendError)) throw e;
        throw new WalletError(-4, coreText(e, manual));
      }
    };
    // Presets alone first; with add_inputs, the wallet's coins when they do not pay.
    let sel;
    try {
      sel = select(r.inputs.length > 0);
    } catch (e) {
      if (!(r.inputs.length > 0 && r.addInputs)) throw e;
      sel = select(false);
    }
    inputs = sel.inputs;
    outs = sel.recipients.map((o) => ({ script: o.script, value: o.value }));
    change = sel.change?.value ?? null;
    fee = sel.fee;
  } else {
    // Subtract the fee from outputs: the coins cover the amounts, not the fee.
    const target = r.outputs.reduce((s, o) => s + o.value, 0n);
    inputs = r.inputs.map((i) => byOutpoint.get(`${i.txid}:${i.vout}`)!);
    let total = inputs.reduce((s, c) => s + c.value, 0n);
    if (total < target) {
      if (!r.addInputs) throw new WalletError(-4, PRESET_SHORT);
      for (const c of coins.filter((x) => !inputs.includes(x)).sort((a, b) => (b.value > a.value ? 1 : b.value < a.value ? -1 : 0))) {
        if (total >= target) break;
        inputs.push(c);
        total += c.value;
      }
      if (total < target) throw new WalletError(-4, 'Insufficient funds');
    }
    const left = total - target;
    const minChange = minViableChange({ changeScript: r.change.script, changeSpendVsize: inputVsize(changeKind, { ecdsa }), discardFeeRate: r.discardFeeRate });
    change = left >= minChange ? left : null;
    const withChange = change === null ? r.outputs : [...r.outputs, { script: r.change.script, value: change }];
    const needed = feeFor(r.feeRate, estimateTx(inputs.map((c) => c.kind), withChange.map((o) => o.script), { ecdsa }).vsize);
    const reduce = needed - (total - withChange.reduce((s, o) => s + o.value, 0n));
    const n = BigInt(r.subtractFeeFrom.length);
    outs = r.outputs.map((o, i) => {
      if (!r.subtractFeeFrom.includes(i)) return { ...o };
      const first = i === Math.min(...r.subtractFeeFrom);
      return { script: o.script, value: o.value - reduce / n - (first ? reduce % n : 0n) };
    });
    if (outs.some((o, i) => r.subtractFeeFrom.includes(i) && o.value < 0n)) throw new WalletError(-4, 'The transaction amount is too small to pay the fee');
    fee = needed;
  }
  let changePos = -1;
  if (change !== null) {
    changePos = r.changePosition ?? outs.length;
    if (changePos > outs.length) throw new WalletError(-8, 'Transaction change output index out of range');
    outs.splice(changePos, 0, { script: r.change.script, value: change });
  }
  // Presets first, in the order given, then what selection added.
  const presetKeys = r.inputs.map((i) => `${i.txid}:${i.vout}`);
  const ordered = [...r.inputs.map((i) => byOutpoint.get(`${i.txid}:${i.vout}`)!), ...inputs.filter((c) => !presetKeys.includes(`${c.txid}:${c.vout}`))];
  const seq = r.replaceable ? 0xfffffffd : 0xfffffffe;
  const tx: Tx = {
    version: r.version,
    locktime: r.locktime,
    vin: ordered.map((c) => ({ prevTxid: c.txid, vout: c.vout, scriptSig: new Uint8Array(0), sequence: r.inputs.find((i) => i.txid === c.txid && i.vout === c.vout)?.sequence ?? seq, witness: [] })),
    vout: outs,
  };
  return { tx, fee, changePos };
}
