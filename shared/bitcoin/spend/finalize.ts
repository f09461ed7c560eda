/**
 * From chosen coins to amounts: the change (kept if viable, else given to the fee), the fee from
 * the exact size estimate (CalculateMaximumSignedTxSize), send max, and the last checks (maximum
 * fee, maximum weight).
 */
import { SpendError } from './errors';
import { feeFor, formatSatPerVb, type FeeRate } from './feerate';
import { dustThreshold } from './dust';
import { btc, outpointOf, type SpendableCoin } from './eligibility';
import { estimateTx, outputClassOf, type OutputClass, type OutputSpec, type TxSize } from './size';
import type { Candidate } from './algorithms';
import type { Params } from './params';

export type SelectionAlgorithm = 'bnb' | 'coingrinder' | 'srd' | 'largest-first' | 'manual' | 'send-max';

export interface CoinSelection {
  /** The coins to spend, by outpoint (txid, then vout); the compose step orders inputs. */
  inputs: SpendableCoin[];
  /** The recipients with their final amounts (send max filled in), in the request's order. */
  recipients: { script: Uint8Array; value: bigint }[];
  /** The change output, or null (no change, or change too small: given to the fee). */
  change: { script: Uint8Array; value: bigint } | null;
  /** inputs − recipients − change. */
  fee: bigint;
  /** What the size alone asks: feeRate × vsize, rounded up. `fee` is more only without change. */
  feeNeeded: bigint;
  /** fee − feeNeeded: the excess of a changeless selection, or change below the minimum, given to the fee. */
  droppedToFee: bigint;
  /** The signed size estimate (never below the signed transaction's; see size.ts). */
  vsize: number;
  weight: number;
  feeRate: FeeRate;
  algorithm: SelectionAlgorithm;
  /** Core's waste metric of the selection (sat): Σ(fee − long-term fee) + cost of change or excess. */
  waste: bigint;
  /** Outpoints of the unconfirmed inputs (flagged: the spend waits for their parents). */
  unconfirmed: string[];
  /** The output types of the inputs; more than one means types were mixed (no one type could pay). */
  inputClasses: OutputClass[];
  /** Send max: spendable coins left out because spending them costs more than they hold. */
  leftBehind: string[];
  /**
   * Automatic selection: what each search run over the winning pool found (null: no selection),
   * in the order they ran — the waste metric picked the least among those that found one.
   */
  considered?: Array<{ algorithm: SelectionAlgorithm; waste: bigint | null; inputs: number }>;
}

function describe(coins: readonly SpendableCoin[], picked: readonly Candidate[]): Pick<CoinSelection, 'inputs' | 'unconfirmed' | 'inputClasses'> {
  const inputs = [...picked].sort((a, b) => a.ord - b.ord).map((c) => coins[c.coin]!);
  const classes = new Set(inputs.map((c) => outputClassOf(c.kind)));
  return {
    inputs,
    unconfirmed: inputs.filter((c) => c.confirmations < 1).map(outpointOf),
    inputClasses: (['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const).filter((k) => classes.has(k)),
  };
}

function checkLimits(fee: bigint, size: TxSize, p: Params): void {
  if (size.weight > p.maxWeight) {
    throw new SpendError('spend.too_large', `The transaction would weigh ${size.weight.toLocaleString('en-US')} WU, above the maximum of ${p.maxWeight.toLocaleString('en-US')} WU. Spend fewer coins at once`, {
      weight: size.weight,
      maxWeight: p.maxWeight,
    });
  }
  if (fee > p.maxTxFee) {
    throw new SpendError(
      'spend.fee_absurd',
      `The fee would be ${btc(fee)} (${formatSatPerVb(p.rate)} × ${size.vsize} vB), above the maximum of ${btc(p.maxTxFee)} for one transaction (Core's -maxtxfee)`,
      { fee: fee.toString(), max: p.maxTxFee.toString() },
    );
  }
}

function recipients(p: Params, amounts: readonly bigint[]): CoinSelection['recipients'] {
  return p.scripts.map((script, i) => ({ script, value: amounts[i]! }));
}

/**
 * Settles a selection. Change is made when Core would (GetChange: effective value − target −
 * change fee ≥ the minimum viable change); its amount then takes every satoshi the exact size does
 * not need. Without change the fee is all that is left. `waste` null: a coin-control selection the
 * effective values say is short, kept only if the exact size still covers its fee (else null).
 */
export function finalize(coins: readonly SpendableCoin[], picked: readonly Candidate[], target: number, p: Params, algorithm: SelectionAlgorithm, waste: number | null): CoinSelection | null {
  const kinds = picked.map((c) => coins[c.coin]!.kind);
  const total = picked.reduce((a, c) => a + coins[c.coin]!.value, 0n);
  const effSum = picked.reduce((a, c) => a + c.eff, 0);
  const wasteInputs = picked.reduce((a, c) => a + c.fee - c.ltFee, 0);
  const outputs: OutputSpec[] = [...p.scripts];
  const spare = total - p.recipientsSum;
  if (waste !== null && effSum - target - Number(p.changeFee) >= Number(p.minViableChange)) {
    const size = estimateTx(kinds, [...outputs, p.changeScript], { ecdsa: p.ecdsa });
    const fee = feeFor(p.rate, size.vsize);
    const change = spare - fee;
    if (change < p.minViableChange) throw new Error(`internal: change ${change} below the viable ${p.minViableChange} after the exact size`);
    checkLimits(fee, size, p);
    return {
      ...describe(coins, picked),
      recipients: recipients(p, p.amounts),
      change: { script: p.changeScript, value: change },
      fee,
      feeNeeded: fee,
      droppedToFee: 0n,
      vsize: size.vsize,
      weight: size.weight,
      feeRate: p.rate,
      algorithm,
      waste: BigInt(waste),
      leftBehind: [],
    };
  }
  const size = estimateTx(kinds, outputs, { ecdsa: p.ecdsa });
  const feeNeeded = feeFor(p.rate, size.vsize);
  if (spare < feeNeeded) {
    if (waste === null) return null;
    throw new Error(`internal: a ${algorithm} selection leaves ${spare} sat for a fee of ${feeNeeded}`);
  }
  checkLimits(spare, size, p);
  return {
    ...describe(coins, picked),
    recipients: recipients(p, p.amounts),
    change: null,
    fee: spare,
    feeNeeded,
    droppedToFee: spare - feeNeeded,
    vsize: size.vsize,
    weight: size.weight,
    feeRate: p.rate,
    algorithm,
    waste: BigInt(waste ?? wasteInputs + effSum - target),
    leftBehind: [],
  };
}

/** Send max: every given coin spent, the send-max recipient takes what the others and the fee leave. */
export function sendMax(coins: readonly SpendableCoin[], picked: readonly Candidate[], leftBehind: readonly Candidate[], p: Params, algorithm: SelectionAlgorithm): CoinSelection {
  const kinds = picked.map((c) => coins[c.coin]!.kind);
  const total = picked.reduce((a, c) => a + coins[c.coin]!.value, 0n);
  const size = estimateTx(kinds, p.scripts, { ecdsa: p.ecdsa });
  const fee = feeFor(p.rate, size.vsize);
  const max = total - p.recipientsSum - fee;
  const script = p.scripts[p.sendMax]!;
  const dust = dustThreshold(script);
  if (max < dust || max <= 0n) {
    const missing = (dust > 0n ? dust : 1n) - max;
    const others = p.recipientsSum > 0n ? `, ${btc(p.recipientsSum)} to the other recipients` : '';
    throw new SpendError(
      'spend.insufficient_funds',
      `Insufficient funds to send the maximum: the coins hold ${btc(total)}; after a fee of ${btc(fee)} (${formatSatPerVb(p.rate)} × ${size.vsize} vB)${others}, ${max > 0n ? btc(max) : 'nothing'} is left, ${max > 0n ? `below the ${dust} sat dust threshold of that output` : 'so nothing can be sent'}: ${btc(missing)} missing.`,
      { missing: missing.toString(), available: total.toString(), fee: fee.toString() },
    );
  }
  checkLimits(fee, size, p);
  const amounts = [...p.amounts];
  amounts[p.sendMax] = max;
  return {
    ...describe(coins, picked),
    recipients: recipients(p, amounts),
    change: null,
    fee,
    feeNeeded: fee,
    droppedToFee: 0n,
    vsize: size.vsize,
    weight: size.weight,
    feeRate: p.rate,
    algorithm,
    waste: BigInt(picked.reduce((a, c) => a + c.fee - c.ltFee, 0)),
    leftBehind: [...leftBehind].sort((a, b) => a.ord - b.ord).map((c) => outpointOf(coins[c.coin]!)),
  };
}
