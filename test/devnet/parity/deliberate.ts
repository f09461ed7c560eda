/**
 * Differences from real Core that the devnet keeps on purpose, each with its reason; the README's
 * "Deliberate differences from Bitcoin Core" section lists the same. The parity test fails on any
 * other difference, and on an entry here that no longer occurs (then it is fixed: remove it).
 */
import type { CoreVersion } from '../../../devnet/core-version';
import type { Difference } from './compare';

export interface Deliberate {
  id: string;
  reason: string;
  /** The generations where it occurs. */
  generations: CoreVersion[];
  matches(d: Difference): boolean;
}

export const DELIBERATE: Deliberate[] = [];

export function deliberateOf(d: Difference): Deliberate | undefined {
  return DELIBERATE.find((x) => x.matches(d));
}
