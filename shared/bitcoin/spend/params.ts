/**
 * The checked request of a coin selection and the numbers derived from it, as Core's
 * CreateTransactionInternal sets up CoinSelectionParams: targets, cost of change, minimum viable
 * change, the random change target, the weight left for inputs.
 */
import { MAX_MONEY } from '../../amounts';
import { compactSizeLen } from '../tx';
import { SpendError } from './errors';
import { DEFAULT_DISCARD_FEE_RATE, DEFAULT_LONG_TERM_FEE_RATE, DEFAULT_MAX_FEE_RATE, DEFAULT_MAX_TX_FEE, DUST_RELAY_FEE_RATE, feeFor, formatSatPerVb, type FeeRate } from './feerate';
import { dustThreshold, minViableChange } from './dust';
import { inputVsize, MAX_STANDARD_TX_WEIGHT, outputSize, validateInputKind, type EcdsaSizeModel, type InputKind } from './size';
import { btc, outpointOf, type SpendableCoin } from './eligibility';
import { CHANGE_LOWER, CHANGE_UPPER } from './algorithms';
import { hash32, Rng } from './rng';

/** A payment: an amount to a script, or everything left ("send max") to one script. */
export type Recipient = { script: Uint8Array; value: bigint } | { script: Uint8Array; sendMax: true };

export interface SelectRequest {
  coins: readonly SpendableCoin[];
  recipients: readonly Recipient[];
  feeRate: FeeRate;
  /** Where change goes and how it will be spent later (its size now, its cost later). */
  change: { script: Uint8Array; kind: InputKind };
  /** Coin control: fund with exactly these coins (an error if they are not enough). */
  manual?: readonly { txid: string; vout: number }[];
  /** Allow unconfirmed coins in automatic selection (they are flagged in the result). Default true. */
  includeUnconfirmed?: boolean;
  /** Waste metric's long-term fee rate; default Core's -consolidatefeerate, 10 sat/vB. */
  longTermFeeRate?: FeeRate;
  /** Rate change is judged at (Core: min(estimatesmartfee 1008, -discardfee), at least 3 sat/vB); default 10 sat/vB. */
  discardFeeRate?: FeeRate;
  /** Above this fee rate the request is refused; default 0.10 BTC/kvB (Core's maxfeerate). */
  maxFeeRate?: FeeRate;
  /** Above this fee the request is refused; default 0.1 BTC (Core's -maxtxfee). */
  maxTxFee?: bigint;
  /** Default 400,000 WU (MAX_STANDARD_TX_WEIGHT). */
  maxWeight?: number;
  /** Seed of the random choices (SRD's order, the change target). Default: derived from the request, so equal requests give equal results. */
  seed?: number | string;
  /** Signature sizes assumed; default 'max' (see size.ts). */
  ecdsa?: EcdsaSizeModel;
}

export interface Params {
  rate: FeeRate;
  longTerm: FeeRate;
  discard: FeeRate;
  maxTxFee: bigint;
  maxWeight: number;
  ecdsa: EcdsaSizeModel;
  /** Recipient scripts, amounts (send max: 0 until known) and output sizes. */
  scripts: Uint8Array[];
  amounts: bigint[];
  outputSizes: number[];
  sendMax: number; // index of the send-max recipient, or -1
  recipientsSum: bigint;
  changeScript: Uint8Array;
  changeOutputSize: number;
  changeFee: bigint;
  changeSpendVsize: number;
  costOfChange: bigint;
  minViableChange: bigint;
  rng: Rng;
}

export function checkFeeRate(rate: FeeRate, max: FeeRate): void {
  if (rate <= 0n) {
    throw new SpendError('spend.fee_rate_zero', `The fee rate must be above 0 sat/vB (asked: ${formatSatPerVb(rate < 0n ? 0n : rate)}); nodes relay nothing below their minimum, usually 0.1 or 1 sat/vB`, { field: 'feeRate' });
  }
  if (rate > max) {
    throw new SpendError('spend.fee_rate_absurd', `The fee rate ${formatSatPerVb(rate)} is above the maximum of ${formatSatPerVb(max)} (Core's maxfeerate, ${btc(max)}/kvB); a typo?`, {
      field: 'feeRate',
      max: max.toString(),
    });
  }
}

function checkRecipients(recipients: readonly Recipient[]): { sendMax: number; sum: bigint } {
  if (recipients.length === 0) throw new SpendError('spend.no_recipients', 'Add at least one recipient', { field: 'recipients' });
  let sendMax = -1;
  let sum = 0n;
  recipients.forEach((r, i) => {
    if ('sendMax' in r) {
      if (sendMax >= 0) throw new SpendError('spend.send_max_twice', `Only one recipient can take the maximum (rows ${sendMax + 1} and ${i + 1} both do)`, { field: 'recipients', row: i });
      sendMax = i;
      return;
    }
    const v = r.value;
    if (v < 0n || v > MAX_MONEY) throw new SpendError('spend.amount_invalid', `Recipient ${i + 1}: the amount ${btc(v)} is ${v < 0n ? 'negative' : 'above the 21 million BTC supply'}`, { field: 'recipients', row: i });
    const dust = dustThreshold(r.script, DUST_RELAY_FEE_RATE);
    if (v === 0n && dust > 0n) throw new SpendError('spend.amount_invalid', `Recipient ${i + 1}: the amount is 0`, { field: 'recipients', row: i });
    if (v < dust) {
      throw new SpendError('spend.amount_dust', `Recipient ${i + 1}: ${v} sat is below the dust threshold of this address type (${dust} sat); nodes do not relay such outputs`, {
        field: 'recipients',
        row: i,
        threshold: dust.toString(),
      });
    }
    sum += v;
  });
  if (sum > MAX_MONEY) throw new SpendError('spend.amount_invalid', `The recipients' amounts add up to ${btc(sum)}, above the 21 million BTC supply`, { field: 'recipients' });
  return { sendMax, sum };
}

/**
 * Each coin's rank by outpoint (txid, then vout): the last tie-break of every ordering, so the
 * order the coins come in does not matter. Throws 'spend.coin_duplicate' for an outpoint listed twice.
 */
export function outpointRanks(coins: readonly SpendableCoin[]): number[] {
  const prefix = coins.map((c) => parseInt(c.txid.slice(0, 12), 16) || 0);
  const order = Array.from(coins.keys()).sort((a, b) => {
    const d = prefix[a]! - prefix[b]!;
    if (d) return d;
    const x = coins[a]!;
    const y = coins[b]!;
    return x.txid < y.txid ? -1 : x.txid > y.txid ? 1 : x.vout - y.vout;
  });
  const rank = new Array<number>(coins.length);
  order.forEach((coin, r) => {
    rank[coin] = r;
    const prev = r > 0 ? coins[order[r - 1]!]! : undefined;
    const c = coins[coin]!;
    if (prev && prev.txid === c.txid && prev.vout === c.vout) {
      throw new SpendError('spend.coin_duplicate', `The coin ${outpointOf(c)} is listed twice`, { coin: outpointOf(c) });
    }
  });
  return rank;
}

export function checkCoins(coins: readonly SpendableCoin[]): void {
  let sum = 0n;
  for (const c of coins) {
    if (c.value <= 0n || c.value > MAX_MONEY) throw new SpendError('spend.amount_invalid', `The coin ${outpointOf(c)} has an impossible value (${c.value} sat)`, { coin: outpointOf(c) });
    validateInputKind(c.kind);
    sum += c.value;
  }
  // The searches add satoshis as JavaScript integers: exact up to 2^53, far above this bound.
  if (sum > MAX_MONEY) throw new SpendError('spend.amount_invalid', `The coins add up to ${btc(sum)}, above the 21 million BTC supply`, {});
}

/** Core's GenerateChangeTarget: a random change target between 50,000 sat and min(2 × payment, 1,000,000). */
function changeTarget(payment: bigint, changeFee: bigint, rng: Rng): bigint {
  if (payment <= BigInt(CHANGE_LOWER / 2)) return changeFee + BigInt(CHANGE_LOWER);
  const upper = payment * 2n < BigInt(CHANGE_UPPER) ? Number(payment * 2n) : CHANGE_UPPER;
  return changeFee + BigInt(rng.randrange(upper - CHANGE_LOWER) + CHANGE_LOWER);
}

function defaultSeed(req: SelectRequest): number {
  let h = hash32(`${req.feeRate}|${req.manual?.map(outpointOf).join(',') ?? ''}`);
  for (const r of req.recipients) {
    h = hash32('sendMax' in r ? 'max' : r.value.toString(), h);
    for (const b of r.script) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  }
  // order-independent over the coins: the sum of a hash of each (txid's first 32 bits, vout, value)
  let coins = 0;
  for (const c of req.coins) {
    const v = Number(c.value);
    let x = ((parseInt(c.txid.slice(0, 8), 16) || 0) ^ Math.imul(c.vout + 1, 0x9e3779b1)) >>> 0;
    x = Math.imul(x ^ (v % 0x100000000), 0x85ebca6b);
    x ^= x >>> 13;
    x = Math.imul(x ^ Math.floor(v / 0x100000000), 0xc2b2ae35);
    coins = (coins + ((x ^ (x >>> 16)) >>> 0)) >>> 0;
  }
  return (h ^ coins) >>> 0;
}

export function buildParams(req: SelectRequest): Params {
  const maxFeeRate = req.maxFeeRate ?? DEFAULT_MAX_FEE_RATE;
  checkFeeRate(req.feeRate, maxFeeRate);
  const { sendMax, sum } = checkRecipients(req.recipients);
  checkCoins(req.coins);
  validateInputKind(req.change.kind);
  const rate = req.feeRate;
  const ecdsa = req.ecdsa ?? 'max';
  let discard = req.discardFeeRate ?? DEFAULT_DISCARD_FEE_RATE;
  if (discard < DUST_RELAY_FEE_RATE) discard = DUST_RELAY_FEE_RATE;
  const changeOutputSize = outputSize(req.change.script);
  const changeFee = feeFor(rate, changeOutputSize);
  const changeSpendVsize = inputVsize(req.change.kind, { ecdsa });
  const rng = new Rng(req.seed ?? defaultSeed(req));
  const params: Params = {
    rate,
    longTerm: req.longTermFeeRate ?? DEFAULT_LONG_TERM_FEE_RATE,
    discard,
    maxTxFee: req.maxTxFee ?? DEFAULT_MAX_TX_FEE,
    maxWeight: req.maxWeight ?? MAX_STANDARD_TX_WEIGHT,
    ecdsa,
    scripts: req.recipients.map((r) => r.script),
    amounts: req.recipients.map((r) => ('sendMax' in r ? 0n : r.value)),
    outputSizes: req.recipients.map((r) => outputSize(r.script)),
    sendMax,
    recipientsSum: sum,
    changeScript: req.change.script,
    changeOutputSize,
    changeFee,
    changeSpendVsize,
    costOfChange: feeFor(discard, changeSpendVsize) + changeFee,
    minViableChange: minViableChange({ changeScript: req.change.script, changeSpendVsize, discardFeeRate: discard }),
    rng,
  };
  return params;
}

/** The random change target of this request (draws from the request's RNG). */
export function minChangeTarget(p: Params): bigint {
  const payments = p.amounts.length;
  return changeTarget(p.recipientsSum / BigInt(payments), p.changeFee, p.rng);
}

/**
 * Core's tx_noinputs_size: version, locktime, input count, segwit marker and flag (rounded up to a
 * byte), output count and the recipients' outputs. Core counts the input count as 1 byte and the
 * output count without change; we count the compact sizes for `inputs` (3 bytes from 253 inputs)
 * and for the outputs with a change output (3 bytes from 253), or with 253 inputs, or 252
 * recipients and change, the sum of the parts would fall below the transaction's exact size.
 */
export function noInputsVsize(p: Params, inputs: number): number {
  return 4 + 4 + compactSizeLen(inputs) + 1 + compactSizeLen(p.outputSizes.length + 1) + p.outputSizes.reduce((a, b) => a + b, 0);
}
