// The locks a spending path sets, as Send's path chooser shows them (issue #32): nSequence for
// older(N) — a time-based one (BIP68 type flag 1<<22) in seconds of median time past — and
// nLockTime for after(N) — a Unix time (≥ 500000000) as the date the median time past must pass.
const TYPE_FLAG = 1 << 22;
const LOCKTIME_THRESHOLD = 500_000_000;

export function pathLocksText(p: { sequence: number | null; minLocktime: number | null }): string {
  const parts: string[] = [];
  if (p.sequence !== null) parts.push(p.sequence & TYPE_FLAG ? `nSequence ${p.sequence} (${(p.sequence & 0xffff) * 512} s of median time past)` : `nSequence ${p.sequence}`);
  if (p.minLocktime !== null) {
    const date = new Date(p.minLocktime * 1000).toISOString().slice(0, 16).replace('T', ' ');
    parts.push(p.minLocktime >= LOCKTIME_THRESHOLD ? `nLockTime ≥ ${p.minLocktime} (median time past after ${date} UTC)` : `nLockTime ≥ ${p.minLocktime}`);
  }
  return parts.join(' · ');
}
