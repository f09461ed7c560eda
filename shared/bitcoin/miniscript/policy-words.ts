/**
 * A spending policy in words: "Key A, or key B after 10 blocks (~1 h 40 min)", "2 of A, B, C; or
 * any 1 of them after 20 blocks (~3 h 20 min)", "Key path: A; script: 2 of B, C, D". Block counts
 * are estimated at 10 minutes a block (marked "~"); 512-second units and dates are exact.
 */
import type { AbsoluteLock, Policy, PolicyKey, RelativeLock, SigThreshold, SpendPath } from './policy';

export const SECONDS_PER_BLOCK = 600;

/** A duration for people: "40 min", "3 h 20 min", "3 days 4 h", "14 days", "6 months", "1.5 years". */
export function formatDuration(seconds: number): string {
  const min = Math.round(seconds / 60);
  if (min < 60) return `${min} min`;
  const hours = Math.floor(min / 60);
  if (hours < 48) return min % 60 ? `${hours} h ${min % 60} min` : `${hours} h`;
  const days = seconds / 86400;
  if (days < 10) {
    const d = Math.floor(days);
    const h = Math.round((seconds - d * 86400) / 3600);
    return h ? `${d} days ${h} h` : `${d} days`;
  }
  if (days < 60) return `${Math.round(days)} days`;
  if (days < 360) return `${Math.round(days / 30.44)} months`;
  const years = Math.round((days / 365.25) * 10) / 10;
  return years === 1 ? '1 year' : `${years} years`;
}

/** "10 blocks (~1 h 40 min)" / "1 day 12 h (270 × 512 s)". */
export function relativeWords(l: RelativeLock): string {
  if (l.unit === 'blocks') {
    return `${l.amount} block${l.amount === 1 ? '' : 's'} (~${formatDuration(l.amount * SECONDS_PER_BLOCK)})`;
  }
  return `${formatDuration(l.amount)} (${l.amount / 512} × 512 s)`;
}

/** "block 850000" / "2027-01-01 00:00 UTC". */
export function absoluteWords(l: AbsoluteLock): string {
  if (l.unit === 'height') return `block ${l.value}`;
  return new Date(l.value * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

function names(keys: number[], all: PolicyKey[]): string {
  return keys.map((i) => all[i]!.name).join(', ');
}

function sameKeys(a: SigThreshold, b: SigThreshold | undefined): boolean {
  return !!b && a.keys.length === b.keys.length && a.keys.every((k) => b.keys.includes(k));
}

function thresholdWords(s: SigThreshold, all: PolicyKey[], prev: SigThreshold[] | undefined): string {
  const n = s.keys.length;
  if (n === 1) return `key ${all[s.keys[0]!]!.name}`;
  // "of them" when the previous path names the same set of keys
  const list = prev?.some((p) => sameKeys(s, p) && p.keys.length > 1) ? 'them' : names(s.keys, all);
  if (s.k === n) return n === 2 && list !== 'them' ? `keys ${all[s.keys[0]!]!.name} and ${all[s.keys[1]!]!.name}` : `all of ${list}`;
  if (s.k === 1) return `any 1 of ${list}`;
  return `${s.k} of ${list}`;
}

/** One path in words, lower case ("key B after 10 blocks (~1 h 40 min)"). */
export function pathWords(p: SpendPath, keys: PolicyKey[], prev?: SpendPath): string {
  const parts: string[] = [];
  parts.push(p.sigs.length ? p.sigs.map((s) => thresholdWords(s, keys, prev?.sigs)).join(' and ') : 'no signature');
  if (p.older) parts.push(`after ${relativeWords(p.older)}`);
  if (p.after) parts.push(`after ${absoluteWords(p.after)}`);
  for (const h of p.hashes) parts.push(`with the ${h.fn.toUpperCase()} preimage of ${h.digest.slice(0, 8)}…`);
  return parts.join(' ');
}

/** Joins alternatives: ", or " — or "; or " when an alternative has commas of its own. */
function alternatives(words: string[]): string {
  const sep = words.some((w) => w.includes(',')) ? '; or ' : ', or ';
  return words.join(sep);
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function policyWords(p: Policy): string {
  const script = p.paths.filter((x) => x.kind === 'script').map((x) => x.words);
  const key = p.paths.find((x) => x.kind === 'key-path');
  if (key && script.length) return `Key path: ${keys1(key, p.keys)}; script: ${alternatives(script)}`;
  if (key) return capital(key.words);
  const words = capital(alternatives(script));
  return p.keyPath === 'unspendable' ? `${words} (no key path)` : words;
}

function keys1(path: SpendPath, keys: PolicyKey[]): string {
  return names(path.sigs[0]!.keys, keys);
}
