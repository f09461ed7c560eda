// The locks a spending path sets, as Send's path chooser shows them (issue #32): nSequence for
// older(N) — a time-based one (BIP68 type flag) in seconds of median time past — and nLockTime for
// after(N) — a Unix time as the date the median time past must pass.
import { decodeAfter, decodeOlder } from '../../../shared/bitcoin/locktime';

export function pathLocksText(p: { sequence: number | null; minLocktime: number | null }): string {
  const parts: string[] = [];
  if (p.sequence !== null) {
    const older = decodeOlder(p.sequence);
    parts.push(older.unit === 'seconds' ? `nSequence ${p.sequence} (${older.amount} s of median time past)` : `nSequence ${p.sequence}`);
  }
  if (p.minLocktime !== null) {
    const date = new Date(p.minLocktime * 1000).toISOString().slice(0, 16).replace('T', ' ');
    parts.push(decodeAfter(p.minLocktime).unit === 'time' ? `nLockTime ≥ ${p.minLocktime} (median time past after ${date} UTC)` : `nLockTime ≥ ${p.minLocktime}`);
  }
  return parts.join(' · ');
}
