/**
 * BIP370 "Determining Lock Time": a version 2 PSBT's nLockTime from PSBT_GLOBAL_FALLBACK_LOCKTIME
 * and each input's PSBT_IN_REQUIRED_TIME_LOCKTIME / PSBT_IN_REQUIRED_HEIGHT_LOCKTIME.
 *
 * - No input requires a locktime: the fallback locktime, or 0 without one.
 * - Otherwise the kind chosen is the one every input that specifies a requirement supports (an
 *   input specifying both supports both; one specifying neither takes part in no choice); when
 *   both kinds are supported by all of them, the height. The locktime is the maximum of that kind.
 * - No kind supported by all of them (one input requires only a time, another only a height): no
 *   transaction satisfies every input — a conflict.
 *
 * The same rule as Core's ComputeTimeLock and HWI's compute_lock_time; this one also says which
 * rule decided and which inputs, for the messages of a conversion.
 */
import type { PsbtInput } from './types';

export type LocktimeDetermination =
  | { ok: true; locktime: number; rule: 'fallback'; fallback: boolean }
  | { ok: true; locktime: number; rule: 'height' | 'time'; /** the inputs requiring a locktime of the chosen kind */ inputs: number[]; /** the input whose requirement is the maximum */ decidedBy: number }
  | { ok: false; /** inputs requiring only a time */ timeOnly: number[]; /** inputs requiring only a height */ heightOnly: number[] };

type LockInputs = ReadonlyArray<Pick<PsbtInput, 'timeLocktime' | 'heightLocktime'>>;

/** BIP370's determination over the inputs' required locktimes and the fallback. */
export function determineLocktime(inputs: LockInputs, fallbackLocktime: number | undefined): LocktimeDetermination {
  const timeOnly: number[] = [];
  const heightOnly: number[] = [];
  let anyRequired = false;
  inputs.forEach((i, k) => {
    const t = i.timeLocktime !== undefined;
    const h = i.heightLocktime !== undefined;
    if (t || h) anyRequired = true;
    if (t && !h) timeOnly.push(k);
    if (h && !t) heightOnly.push(k);
  });
  if (!anyRequired) return { ok: true, locktime: fallbackLocktime ?? 0, rule: 'fallback', fallback: fallbackLocktime !== undefined };
  if (timeOnly.length > 0 && heightOnly.length > 0) return { ok: false, timeOnly, heightOnly };
  // Heights are supported by all unless some input requires only a time; a tie chooses the height.
  const rule: 'height' | 'time' = timeOnly.length > 0 ? 'time' : 'height';
  const field = rule === 'height' ? 'heightLocktime' : 'timeLocktime';
  const chosen: number[] = [];
  let locktime = 0;
  let decidedBy = -1;
  inputs.forEach((i, k) => {
    const v = i[field];
    if (v === undefined) return;
    chosen.push(k);
    if (decidedBy < 0 || v > locktime) {
      locktime = v;
      decidedBy = k;
    }
  });
  return { ok: true, locktime, rule, inputs: chosen, decidedBy };
}

const list = (xs: readonly number[]): string => {
  const shown = xs.slice(0, 5).map((i) => `#${i}`).join(', ');
  return xs.length > 5 ? `${shown} and ${xs.length - 5} more` : shown;
};
const inputsWord = (xs: readonly number[]): string => `${xs.length === 1 ? 'input' : 'inputs'} ${list(xs)}`;

/** Why no locktime satisfies every input (a failed determination), in words. */
export function locktimeConflict(d: Extract<LocktimeDetermination, { ok: false }>): string {
  return `${inputsWord(d.timeOnly)} ${d.timeOnly.length === 1 ? 'requires' : 'require'} a time-based locktime only (PSBT_IN_REQUIRED_TIME_LOCKTIME) and ${inputsWord(d.heightOnly)} a height-based one only (PSBT_IN_REQUIRED_HEIGHT_LOCKTIME); a transaction's nLockTime is either a time or a height, so no locktime satisfies every input (BIP370, Determining Lock Time)`;
}

/** How a successful determination chose its locktime, in words. */
export function locktimeReason(d: Extract<LocktimeDetermination, { ok: true }>): string {
  if (d.rule === 'fallback') return d.fallback ? `no input requires a locktime: the fallback locktime ${d.locktime}` : 'no input requires a locktime and there is no fallback locktime: 0';
  const kind = d.rule === 'height' ? 'block height' : 'time';
  return `${inputsWord(d.inputs)} ${d.inputs.length === 1 ? 'requires' : 'require'} a ${kind} locktime: the largest, ${d.locktime} (input #${d.decidedBy}), per BIP370`;
}
