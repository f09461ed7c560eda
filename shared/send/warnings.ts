/**
 * What the Send screen warns about before anything is built for the signer: a fee rate under the
 * node's mempool minimum (the node would not take the transaction now), a high fee rate or a fee
 * above a share of the amount (the settings' limits), paying one's own address, unconfirmed or
 * mixed-type inputs, change given to the fee; and the one fee-rate floor that refuses: below the
 * node's minimum relay fee nothing relays it.
 */
import { formatBtc } from '../amounts';
import { formatSatPerVb, type FeeRate } from '../bitcoin/spend/feerate';
import { ComposeError, type Composed } from './compose';

export type ComposeWarningCode =
  | 'fee-below-mempool-min'
  | 'fee-rate-high'
  | 'fee-percent-high'
  | 'pays-own-address'
  | 'unconfirmed-inputs'
  | 'mixed-input-types'
  | 'change-to-fee'
  | 'no-key-paths'
  | 'no-fee-estimate';

export interface ComposeWarning {
  code: ComposeWarningCode;
  severity: 'warning' | 'info';
  message: string;
  /** Form rows the warning is about. */
  rows: number[];
}

export interface WarningContext {
  /** getmempoolinfo `mempoolminfee` (null unknown, e.g. offline without a cached value). */
  mempoolMinFee: FeeRate | null;
  /** The settings' limits: warn above this rate (sat/kvB) … */
  feeRateWarn: FeeRate;
  /** … and above this percentage of the amount sent (a decimal text, e.g. "10"). */
  feePercentWarn: string;
  /** Whether a script is the wallet's own (its descriptors or watched addresses). */
  isOwn(script: Uint8Array): boolean;
}

/** Refuses a fee rate below the node's minimum relay fee (getmempoolinfo `minrelaytxfee`). */
export function checkMinRelay(rate: FeeRate, minRelay: FeeRate | null): void {
  if (minRelay !== null && rate < minRelay) {
    throw new ComposeError('send.fee_below_min_relay', `${formatSatPerVb(rate)} is below your node's minimum relay fee of ${formatSatPerVb(minRelay)}: no node would relay the transaction`, 'feeRate', -1, {
      minRelay: minRelay.toString(),
    });
  }
}

/** "12.5" → hundredths (1250n); a bad text reads as 0 (no warning). */
function hundredths(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,2}))?/.exec(text.trim());
  return m ? BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0')) : 0n;
}

export function composeWarnings(c: Composed, ctx: WarningContext): ComposeWarning[] {
  const out: ComposeWarning[] = [];
  const s = c.selection;
  if (ctx.mempoolMinFee !== null && s.feeRate < ctx.mempoolMinFee) {
    out.push({
      code: 'fee-below-mempool-min',
      severity: 'warning',
      message: `${formatSatPerVb(s.feeRate)} is below your node's mempool minimum of ${formatSatPerVb(ctx.mempoolMinFee)} (its mempool is full): the node will not accept the transaction until that falls`,
      rows: [],
    });
  }
  if (s.feeRate > ctx.feeRateWarn) {
    out.push({ code: 'fee-rate-high', severity: 'warning', message: `The fee rate ${formatSatPerVb(s.feeRate)} is above your warning limit of ${formatSatPerVb(ctx.feeRateWarn)}`, rows: [] });
  }
  const limit = hundredths(ctx.feePercentWarn);
  if (limit > 0n && c.sent > 0n && s.fee * 10_000n > c.sent * limit) {
    out.push({
      code: 'fee-percent-high',
      severity: 'warning',
      message: `The fee (${formatBtc(s.fee)} BTC) is ${c.feePercent} % of the amount sent, above your limit of ${ctx.feePercentWarn} %`,
      rows: [],
    });
  }
  const own = c.outputs.filter((o) => o.role === 'recipient' && ctx.isOwn(o.script)).map((o) => o.row!);
  if (own.length) {
    out.push({
      code: 'pays-own-address',
      severity: 'warning',
      message: `${own.length === 1 ? `Row ${own[0]! + 1} pays` : `Rows ${own.map((r) => r + 1).join(', ')} pay`} an address of this wallet: the coins stay yours, only the fee is spent`,
      rows: own,
    });
  }
  if (s.unconfirmed.length) {
    out.push({
      code: 'unconfirmed-inputs',
      severity: 'info',
      message: `${s.unconfirmed.length === 1 ? '1 input is' : `${s.unconfirmed.length} inputs are`} unconfirmed: the payment waits for ${s.unconfirmed.length === 1 ? 'its parent' : 'their parents'} to confirm`,
      rows: [],
    });
  }
  if (s.inputClasses.length > 1) {
    out.push({ code: 'mixed-input-types', severity: 'info', message: `No one address type could pay alone: the inputs mix ${s.inputClasses.join(' and ')}, which links them for an observer`, rows: [] });
  }
  if (s.change === null && s.droppedToFee > 0n) {
    out.push({
      code: 'change-to-fee',
      severity: 'info',
      message: `No change output: the ${s.droppedToFee} sat left over is less than a change output is worth and goes to the fee`,
      rows: [],
    });
  }
  return out;
}
