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
import type { AbsoluteLock, RelativeLock } from '../bitcoin/miniscript/policy';
import { coinReadiness, pathLocks, pathLocktime, pathSequence, type ChainNow, type Readiness } from './spend-path';

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
  /** The spending path of the wallet's policy the coins take (their kinds sized for it); none: a single-path wallet. */
  path?: ComposePath;
}

/** A spending path chosen on Send (policy.ts's SpendPath, with the chain's now). */
export interface ComposePath {
  id: string;
  words: string;
  older?: RelativeLock;
  after?: AbsoluteLock;
  now: ChainNow;
  /** A PSBT to sign now and broadcast later: a lock not reached yet is set, not refused. */
  signNow: boolean;
  /** The locktime was typed by the person (it must meet after(N); else it is raised to it). */
  locktimeExplicit?: boolean;
}

/** The path a composed transaction takes, and from when it can be broadcast. */
export interface ComposedPath {
  id: string;
  words: string;
  /** nSequence set for older(N), or null. */
  sequence: number | null;
  /** nLockTime required by after(N), or null. */
  minLocktime: number | null;
  /** Null when it can be broadcast now; else when (the latest of its inputs). */
  notBefore: Readiness | null;
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
  /** The spending path taken (multi-path wallets). */
  path?: ComposedPath;
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
  const path = input.path;
  const coins = path ? coinsAlongPath(input, path) : input.coins;
  let selection: CoinSelection;
  try {
    selection = selectCoins({
      coins,
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
  let sequence = defaultSequence(rbf, input.locktime);
  let locktime = input.locktime;
  let composedPath: ComposedPath | undefined;
  if (path) {
    const locks = pathLocks(path);
    const lt = pathLocktime(locks, input.locktime, path.locktimeExplicit ?? false);
    if ('error' in lt) throw new ComposeError('send.path_locktime', lt.error, 'locktime', -1, { path: path.id });
    locktime = lt.locktime;
    sequence = pathSequence(locks, defaultSequence(rbf, locktime));
    const waits = inputs.map((c) => coinReadiness(path, c.confirmations, path.now)).filter((r) => !r.ready);
    const notBefore = waits.length ? waits.reduce((a, r) => (r.secondsLeft > a.secondsLeft ? r : a)) : null;
    composedPath = { id: path.id, words: path.words, sequence: locks.sequence, minLocktime: locks.minLocktime, notBefore };
  }
  if (path && (input.txVersion ?? 2) < 2 && path.older) {
    throw new ComposeError('send.path_version', 'A relative timelock (older) needs a version 2 transaction (BIP68)', 'locktime', -1, { path: path.id });
  }
  const spec: UnsignedTxSpec = {
    version: input.txVersion ?? 2,
    locktime,
    inputs: inputs.map((c) => ({ txid: c.txid, vout: c.vout, sequence })),
    outputs: outputs.map((o) => ({ script: o.script, value: o.value })),
  };
  const sent = selection.recipients.reduce((a, r) => a + r.value, 0n);
  return { selection, spec, inputs, outputs, changeIndex, sent, feePercent: percentText(selection.fee, sent), ...(composedPath ? { path: composedPath } : {}) };
}

/**
 * The coins that can take the path now; all of them when a PSBT is to be signed now and broadcast
 * later. A coin picked by hand whose lock is not reached, or no coin at all that can take the path,
 * is refused with when it will be possible.
 */
function coinsAlongPath(input: ComposeInput, path: ComposePath): readonly SpendableCoin[] {
  if (path.signNow) return input.coins;
  const later = (c: SpendableCoin): Readiness | null => {
    const r = coinReadiness(path, c.confirmations, path.now);
    return r.ready ? null : r;
  };
  const detail = (r: Readiness) => ({ path: path.id, blocksLeft: r.blocksLeft, height: r.height, estimate: r.estimate });
  for (const m of input.manual ?? []) {
    const c = input.coins.find((x) => x.txid === m.txid && x.vout === m.vout);
    const r = c && later(c);
    if (r) {
      throw new ComposeError('send.timelock_not_reached', `Coin ${m.txid}:${m.vout} cannot take the path "${path.words}" yet: ${r.words}. Tick "a PSBT to sign now and broadcast later" to build it anyway.`, 'coins', -1, detail(r));
    }
  }
  const ready = input.coins.filter((c) => later(c) === null);
  if (ready.length === 0 && input.coins.length > 0) {
    const soonest = input.coins.map((c) => later(c)!).reduce((a, r) => (r.secondsLeft < a.secondsLeft ? r : a));
    throw new ComposeError('send.timelock_not_reached', `No coin can take the path "${path.words}" yet: the first is ${soonest.words}. Tick "a PSBT to sign now and broadcast later" to build it anyway.`, 'coins', -1, detail(soonest));
  }
  return ready;
}

/** Whether the transaction signals BIP125 replaceability (an input below 0xfffffffe). */
export function signalsRbf(spec: Pick<UnsignedTxSpec, 'inputs'>): boolean {
  return spec.inputs.some((i) => i.sequence >>> 0 < 0xfffffffe);
}

export { SEQUENCE_FINAL };
