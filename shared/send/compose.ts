/**
 * Compose: from the form (recipients, fee rate, coins, change, RBF, locktime) to the unsigned
 * transaction, offline. The coins are chosen by the spend core (selectCoins: Branch and Bound,
 * CoinGrinder, SRD, largest-first; coin control; send max); the inputs are then shuffled and the
 * change output put at a random position, as Core's CreateTransactionInternal does, from a seed
 * (stored with the draft, fixed in tests) so the same form and seed give the same transaction.
 * Failures are ComposeError with the field the screen shows the message at.
 */
import { selectCoins, type CoinSelection, type SpendableCoin } from '../bitcoin/spend/coins';
import { SpendError, type SpendErrorCode } from '../bitcoin/spend/errors';
import type { FeeRate } from '../bitcoin/spend/feerate';
import { Rng } from '../bitcoin/spend/rng';
import type { InputKind } from '../bitcoin/spend/size';
import { defaultSequence, SEQUENCE_FINAL, type UnsignedTxSpec } from './create-psbt';
import { toSpendRecipients, type ParsedRecipient } from './recipients';

export type ComposeField = 'address' | 'amount' | 'data' | 'recipients' | 'feeRate' | 'coins' | 'change' | 'locktime';

export class ComposeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field: ComposeField,
    readonly row: number = -1,
    readonly detail: Record<string, string | number | boolean | null> = {},
  ) {
    super(message);
    this.name = 'ComposeError';
  }
}

const FIELD_OF: Record<SpendErrorCode, ComposeField> = {
  'spend.fee_rate_invalid': 'feeRate',
  'spend.fee_rate_zero': 'feeRate',
  'spend.fee_rate_absurd': 'feeRate',
  'spend.fee_absurd': 'feeRate',
  'spend.no_recipients': 'recipients',
  'spend.amount_invalid': 'amount',
  'spend.amount_dust': 'amount',
  'spend.send_max_twice': 'amount',
  'spend.insufficient_funds': 'coins',
  'spend.no_spendable_coins': 'coins',
  'spend.coin_not_found': 'coins',
  'spend.coin_frozen': 'coins',
  'spend.coin_immature': 'coins',
  'spend.coin_duplicate': 'coins',
  'spend.too_large': 'coins',
  'spend.unsupported_input': 'coins',
  'spend.invalid_input_kind': 'coins',
};

/** A SpendError as a ComposeError at its field (the recipient row translated to the form's row). */
export function fromSpendError(e: SpendError, recipients: readonly ParsedRecipient[]): ComposeError {
  const row = typeof e.detail?.['row'] === 'number' ? (recipients[e.detail['row']]?.row ?? -1) : -1;
  const detail = { ...(e.detail ?? {}) };
  return new ComposeError(e.code, e.message, FIELD_OF[e.code], row, detail);
}

export interface ComposeInput {
  /** Every coin of the wallet (listunspent), frozen ones flagged. */
  coins: readonly SpendableCoin[];
  recipients: readonly ParsedRecipient[];
  feeRate: FeeRate;
  change: { script: Uint8Array; kind: InputKind };
  /** Coin control: exactly these coins. */
  manual?: ReadonlyArray<{ txid: string; vout: number }>;
  includeUnconfirmed?: boolean;
  /** Signal BIP125 replaceability (nSequence 0xfffffffd); default true. */
  rbf?: boolean;
  /** nLockTime (Core: the tip height, against fee sniping). */
  locktime: number;
  txVersion?: number;
  /** The random choices (selection, input order, change position). */
  seed: number;
}

export type OutputRole = 'recipient' | 'change' | 'data';

export interface ComposedOutput {
  script: Uint8Array;
  value: bigint;
  role: OutputRole;
  /** The form row of a recipient or data output; null for change. */
  row: number | null;
}

export interface Composed {
  selection: CoinSelection;
  /** The unsigned transaction (inputs shuffled, change at its random place). */
  spec: UnsignedTxSpec;
  /** Coins in the transaction's input order. */
  inputs: SpendableCoin[];
  outputs: ComposedOutput[];
  changeIndex: number | null;
  /** What the recipients get (data outputs carry 0). */
  sent: bigint;
  /** fee × 100 / sent, 2 decimals ("0.00" when nothing is sent). */
  feePercent: string;
}

export const MAX_LOCKTIME = 0xffffffff;

export function percentText(part: bigint, whole: bigint): string {
  if (whole <= 0n) return '0.00';
  const hundredths = (part * 10_000n + whole / 2n) / whole;
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

export function compose(input: ComposeInput): Composed {
  if (!Number.isSafeInteger(input.locktime) || input.locktime < 0 || input.locktime > MAX_LOCKTIME) {
    throw new ComposeError('send.locktime_invalid', `The locktime must be a whole number from 0 to ${MAX_LOCKTIME}`, 'locktime');
  }
  let selection: CoinSelection;
  try {
    selection = selectCoins({
      coins: input.coins,
      recipients: toSpendRecipients(input.recipients),
      feeRate: input.feeRate,
      change: input.change,
      ...(input.manual ? { manual: input.manual } : {}),
      ...(input.includeUnconfirmed !== undefined ? { includeUnconfirmed: input.includeUnconfirmed } : {}),
      seed: input.seed,
    });
  } catch (e) {
    if (e instanceof SpendError) throw fromSpendError(e, input.recipients);
    throw e;
  }
  const rng = new Rng(`${input.seed}/order`);
  const inputs = rng.shuffle([...selection.inputs]);
  const outputs: ComposedOutput[] = selection.recipients.map((r, i) => ({
    script: r.script,
    value: r.value,
    role: input.recipients[i]!.kind === 'data' ? 'data' : 'recipient',
    row: input.recipients[i]!.row,
  }));
  let changeIndex: number | null = null;
  if (selection.change) {
    changeIndex = rng.randrange(outputs.length + 1);
    outputs.splice(changeIndex, 0, { script: selection.change.script, value: selection.change.value, role: 'change', row: null });
  }
  const rbf = input.rbf ?? true;
  const sequence = defaultSequence(rbf, input.locktime);
  const spec: UnsignedTxSpec = {
    version: input.txVersion ?? 2,
    locktime: input.locktime,
    inputs: inputs.map((c) => ({ txid: c.txid, vout: c.vout, sequence })),
    outputs: outputs.map((o) => ({ script: o.script, value: o.value })),
  };
  const sent = selection.recipients.reduce((a, r) => a + r.value, 0n);
  return { selection, spec, inputs, outputs, changeIndex, sent, feePercent: percentText(selection.fee, sent) };
}

/** Whether the transaction signals BIP125 replaceability (an input below 0xfffffffe). */
export function signalsRbf(spec: Pick<UnsignedTxSpec, 'inputs'>): boolean {
  return spec.inputs.some((i) => i.sequence >>> 0 < 0xfffffffe);
}

export { SEQUENCE_FINAL };
