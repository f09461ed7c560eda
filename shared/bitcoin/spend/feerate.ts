/**
 * Fee rates as Core keeps them: an integer number of satoshis per 1,000 virtual bytes (sat/kvB),
 * so a user's sat/vB with up to 3 decimals is exact (2.5 sat/vB = 2500n). A fee is
 * CFeeRate::GetFee: the rate times the size, rounded UP to the satoshi (policy/feerate.cpp,
 * EvaluateFeeUp), so a transaction never pays below the rate it asked for.
 */
import { COIN } from '../../amounts';
import { SpendError } from './errors';

/**
 * Satoshis per 1,000 vB. Core's BTC/kvB numbers (estimatesmartfee `feerate`, getmempoolinfo
 * `minrelaytxfee`) parsed as BTC amounts (parseBtc) are exactly this: 0.0001 BTC/kvB = 10,000n.
 */
export type FeeRate = bigint;

/** Core's -dustrelayfee default (DUST_RELAY_TX_FEE): 3,000 sat/kvB = 3 sat/vB. */
export const DUST_RELAY_FEE_RATE: FeeRate = 3000n;
/** Core's -discardfee default (DEFAULT_DISCARD_FEE): 10 sat/vB, the rate change is judged worth keeping at. */
export const DEFAULT_DISCARD_FEE_RATE: FeeRate = 10_000n;
/** Core's -consolidatefeerate default (DEFAULT_CONSOLIDATE_FEERATE): 10 sat/vB, the long-term fee rate of the waste metric. */
export const DEFAULT_LONG_TERM_FEE_RATE: FeeRate = 10_000n;
/** Core's default maxfeerate (DEFAULT_MAX_RAW_TX_FEE_RATE, 0.10 BTC/kvB = 10,000 sat/vB): above this a rate is absurd. */
export const DEFAULT_MAX_FEE_RATE: FeeRate = COIN / 10n;
/** Core's wallet -maxtxfee default (DEFAULT_TRANSACTION_MAXFEE): 0.1 BTC for one transaction. */
export const DEFAULT_MAX_TX_FEE = COIN / 10n;

/** CFeeRate::GetFee: ceil(rate × vsize / 1000). */
export function feeFor(rate: FeeRate, vsize: number): bigint {
  if (!Number.isSafeInteger(vsize) || vsize < 0) throw new RangeError(`vsize must be a non-negative integer, got ${vsize}`);
  if (rate <= 0n || vsize === 0) return 0n;
  return (rate * BigInt(vsize) + 999n) / 1000n;
}

/** A sat/vB text ("2", "2.5", "0.123") to sat/kvB; at most 3 decimals, as Core's fee_rate option. */
export function parseSatPerVb(text: string): FeeRate {
  const t = text.trim();
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,3}))?$/.exec(t);
  if (!m) {
    if (/^(0|[1-9][0-9]*)\.[0-9]{4,}$/.test(t)) {
      throw new SpendError('spend.fee_rate_invalid', `Fee rate "${text}" has more than 3 decimals (the smallest step is 0.001 sat/vB)`, { field: 'feeRate' });
    }
    throw new SpendError('spend.fee_rate_invalid', `Fee rate "${text}" is not a number of sat/vB (e.g. 2 or 2.5)`, { field: 'feeRate' });
  }
  return BigInt(m[1]!) * 1000n + BigInt((m[2] ?? '').padEnd(3, '0'));
}

/** sat/kvB → the sat/vB text a person reads ("2.5 sat/vB"), trailing zeros dropped. */
export function formatSatPerVb(rate: FeeRate): string {
  const whole = rate / 1000n;
  const frac = (rate % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
  return `${whole}${frac ? `.${frac}` : ''} sat/vB`;
}

