// The refresh engine's errors and progress events (engine.ts, lookups.ts).
import { AppError, isAppError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { RefreshPhase, RefreshRunOptions } from './engine-types';

const PROGRESS_INTERVAL_MS = 50;

export function cancelled(): AppError {
  return new AppError('cancelled', 'The refresh was cancelled.');
}

export function toAppError(e: unknown, log: Logger): AppError {
  if (isAppError(e)) return e;
  log.error(`refresh: unexpected ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  return new AppError('internal', 'The refresh failed inside Spyglass. The details were written to the log.');
}

export type ProgressFn = (phase: RefreshPhase, done: number, total: number, force?: boolean) => void;

/** Progress events, at most one per PROGRESS_INTERVAL_MS per phase except the first and the last. */
export function progressEmitter(cb: RefreshRunOptions['onProgress'], log: Logger): ProgressFn {
  let last = 0;
  let lastPhase: RefreshPhase | null = null;
  return (phase, done, total, force = false) => {
    if (cb === undefined) return;
    const t = performance.now();
    if (!force && phase === lastPhase && done < total && t - last < PROGRESS_INTERVAL_MS) return;
    last = t;
    lastPhase = phase;
    try {
      cb({ phase, done, total });
    } catch (e) {
      log.warn(`refresh: progress listener threw: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}
