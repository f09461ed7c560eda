/**
 * The review's warnings about a PSBT's fields as a whole: unknown and proprietary fields in any
 * map, a locktime in the future, replace-by-fee. Their wording lists keys in Core's order (sorted),
 * so a PSBT and the same PSBT in the other version read alike.
 */
import { formatBtc } from '../../amounts';
import type { PsbtWarningCode, ReviewContext, WarningSeverity } from './review-types';
import type { Psbt } from './types';
import { LOCKTIME_THRESHOLD, SEQUENCE_FINAL } from '../locktime';

/** Adds one warning (code, severity, message, the inputs/outputs it is about). */
export type Warn = (code: PsbtWarningCode, severity: WarningSeverity, message: string, where?: { inputs?: number[]; outputs?: number[] }) => void;

export const sats = (v: bigint): string => `${v} sats`;
export const satsBtc = (v: bigint): string => `${v} sats (${formatBtc(v)} BTC)`;

export function shortList(items: number[], prefix = '#'): string {
  const shown = items.slice(0, 8).map((i) => `${prefix}${i}`).join(', ');
  return items.length > 8 ? `${shown} and ${items.length - 8} more` : shown;
}

/** The first three keys (hex) of a map in Core's order. */
function keys(m: Map<string, unknown>): string {
  return [...m.keys()].sort().slice(0, 3).join(', ');
}

function timeText(t: number): string {
  return `${new Date(t * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC')}`;
}

function describeDuration(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} minutes`;
  if (seconds < 2 * 86400) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}

/** unknown-fields, proprietary-fields. */
export function reviewFieldWarnings(decoded: Psbt, warn: Warn): void {
  const unknownWhere: string[] = [];
  const propWhere: string[] = [];
  let unknownCount = decoded.unknown.size;
  let propCount = decoded.proprietary.size;
  if (decoded.unknown.size) unknownWhere.push(`global ${keys(decoded.unknown)}`);
  if (decoded.proprietary.size) propWhere.push(`global ${keys(decoded.proprietary)}`);
  const unknownInputs: number[] = [];
  const propInputs: number[] = [];
  decoded.inputs.forEach((inp, i) => {
    unknownCount += inp.unknown.size;
    propCount += inp.proprietary.size;
    if (inp.unknown.size) {
      unknownInputs.push(i);
      unknownWhere.push(`input #${i} ${keys(inp.unknown)}`);
    }
    if (inp.proprietary.size) {
      propInputs.push(i);
      propWhere.push(`input #${i} ${keys(inp.proprietary)}`);
    }
  });
  const unknownOutputs: number[] = [];
  const propOutputs: number[] = [];
  decoded.outputs.forEach((out, i) => {
    unknownCount += out.unknown.size;
    propCount += out.proprietary.size;
    if (out.unknown.size) {
      unknownOutputs.push(i);
      unknownWhere.push(`output #${i} ${keys(out.unknown)}`);
    }
    if (out.proprietary.size) {
      propOutputs.push(i);
      propWhere.push(`output #${i} ${keys(out.proprietary)}`);
    }
  });
  const clip = (w: string[]): string => (w.length > 5 ? `${w.slice(0, 5).join('; ')}; …` : w.join('; '));
  if (unknownCount > 0) {
    warn(
      'unknown-fields',
      'warning',
      `The PSBT carries ${unknownCount} unknown ${unknownCount === 1 ? 'field' : 'fields'} (${clip(unknownWhere)}): Spyglass and Bitcoin Core ignore ${unknownCount === 1 ? 'it' : 'them'}, but another signer might act on ${unknownCount === 1 ? 'it' : 'them'}.`,
      { inputs: unknownInputs, outputs: unknownOutputs },
    );
  }
  if (propCount > 0) {
    warn(
      'proprietary-fields',
      'info',
      `The PSBT carries ${propCount} proprietary ${propCount === 1 ? 'field' : 'fields'} (${clip(propWhere)}), meant for a particular wallet or device.`,
      { inputs: propInputs, outputs: propOutputs },
    );
  }
}

/** locktime-future and rbf; the summary's locktime and RBF flag. */
export function reviewLocktimeWarnings(
  decoded: Psbt & { locktime: number },
  ctx: ReviewContext,
  warn: Warn,
): { locktime: { value: number; kind: 'none' | 'height' | 'time'; enforced: boolean }; rbf: boolean } {
  const lt = decoded.locktime;
  const enforced = decoded.inputs.some((i) => i.sequence !== SEQUENCE_FINAL);
  const ltKind: 'none' | 'height' | 'time' = lt === 0 ? 'none' : lt < LOCKTIME_THRESHOLD ? 'height' : 'time';
  if (enforced && ltKind === 'height' && ctx.tipHeight !== undefined && lt > ctx.tipHeight) {
    const n = lt - ctx.tipHeight;
    warn(
      'locktime-future',
      'warning',
      `The locktime is block ${lt} but the chain tip is block ${ctx.tipHeight}: the transaction cannot be mined for another ${n} ${n === 1 ? 'block' : 'blocks'} (about ${describeDuration(n * 600)}).`,
    );
  }
  if (enforced && ltKind === 'time') {
    const ref = ctx.medianTime ?? ctx.now;
    if (ref !== undefined && lt >= ref) {
      warn(
        'locktime-future',
        'warning',
        `The locktime is ${timeText(lt)} (${lt}), later than ${ctx.medianTime !== undefined ? 'the median time of the last blocks' : "this computer's clock"}, ${timeText(ref)} (${ref}): the transaction cannot be mined for about ${describeDuration(lt - ref + 1)}.`,
      );
    }
  }
  const rbfInputs = decoded.inputs.flatMap((inp, i) => (inp.sequence < 0xfffffffe ? [i] : []));
  const rbf = rbfInputs.length > 0;
  if (rbf) {
    const seq = decoded.inputs[rbfInputs[0]!]!.sequence;
    warn(
      'rbf',
      'info',
      `Replace-by-fee is signalled (BIP125): ${rbfInputs.length === 1 ? 'input' : 'inputs'} ${shortList(rbfInputs)} ${rbfInputs.length === 1 ? 'has' : 'have'} a sequence below 0xfffffffe (0x${seq.toString(16).padStart(8, '0')}), so the fee can be raised later with a replacement.`,
      { inputs: rbfInputs },
    );
  } else {
    warn(
      'rbf',
      'info',
      'Replace-by-fee is not signalled (every input has sequence 0xfffffffe or 0xffffffff). Nodes that apply full RBF (Bitcoin Core\'s default since v28) may still accept a replacement.',
    );
  }
  return { locktime: { value: lt, kind: ltKind, enforced }, rbf };
}
