/**
 * Spending along a chosen path of the wallet's policy (issue #32): what the path asks of the
 * transaction — nSequence for older(N) (BIP68, on every input: the wallet's coins all take the
 * path), nLockTime for after(N) (BIP65: at least N, of the same kind, with inputs not final) — and
 * when each coin can take it, judged as Core's mempool judges a transaction for the next block:
 *
 * - after(height): IsFinalTx at height tip + 1: nLockTime < tip + 1, so tip ≥ N.
 * - after(time): IsFinalTx with LOCKTIME_MEDIAN_TIME_PAST: nLockTime < the tip's median time past
 *   (MTP), so MTP(tip) > N.
 * - older(blocks): CalculateSequenceLocks / CheckSequenceLocksAtTip: coin height + N − 1 < tip + 1,
 *   so confirmations ≥ N.
 * - older(time) (type flag 1<<22, units of 512 s): the lock counts from the MTP of the block before
 *   the coin's (GetAncestor(coin height − 1)); the spend is taken when that MTP + units × 512 − 1
 *   < MTP(tip), so MTP(block before the coin) + units × 512 ≤ MTP(tip).
 *
 * The chain's MTPs come with `ChainNow` (the tip's, and the blocks' before each coin). Without them
 * (an old offline answer) a time lock is judged against estimates — a coin's age as confirmations ×
 * 10 min, the MTP as now − 1 h — and said to be one. A path whose lock is not reached is refused,
 * with when it will be, unless the person asks for a PSBT to sign now and broadcast later; then the
 * locks are set all the same and the review says from when it can be broadcast. When an MTP lock
 * will be reached is always an estimate (the MTP follows the clock about an hour behind).
 */
import type { AbsoluteLock, RelativeLock, SpendPath } from '../bitcoin/miniscript/policy';
import { MAX_BIP125_RBF_SEQUENCE } from './create-psbt';

/** Blocks are counted at 10 minutes for dates ("~3 h 20 min"). */
export const BLOCK_SECONDS = 600;
/** The median time past trails the wall clock by about an hour (11 blocks, the middle one). */
const MTP_LAG_SECONDS = 3600;

/** What the transaction must carry for a path. */
export interface PathLocks {
  /** nSequence of every input: older(N)'s value, or null (the usual RBF / final rule). */
  sequence: number | null;
  /** after(N): nLockTime must be at least this (of the same kind), or null. */
  minLocktime: number | null;
  /** after(N) is a Unix time (else a height). */
  locktimeIsTime: boolean;
}

export function pathLocks(p: Pick<SpendPath, 'older' | 'after'>): PathLocks {
  return {
    sequence: p.older ? p.older.value : null,
    minLocktime: p.after ? p.after.value : null,
    locktimeIsTime: p.after?.unit === 'time',
  };
}

/** When a coin can be spent along a path. */
export interface Readiness {
  ready: boolean;
  /** Blocks still to be mined (height locks; 0 when ready). */
  blocksLeft: number;
  /** The first tip height at which the spend is accepted, when height-based; null otherwise. */
  height: number | null;
  /** Seconds still to wait (estimated for time locks, blocks × 10 min for heights). */
  secondsLeft: number;
  /** Whether it rests on the time estimates above. */
  estimate: boolean;
  /** "recovery possible in 7 blocks (height 215, ~1 h 10 min)", or "" when ready. */
  words: string;
}

export interface ChainNow {
  tipHeight: number;
  /** Wall clock (Unix seconds), for the estimated dates (and time locks when the MTPs are unknown). */
  nowSeconds: number;
  /** The tip's median time past (getblockchaininfo's mediantime). */
  tipMtp?: number;
  /** Median time past of blocks by height: older(time) needs the one of the block before each coin's. */
  mtpAt?: Readonly<Record<number, number>>;
}

/** The height whose MTP a time-based relative lock counts from, for a coin with `confirmations` (Core: max(coin height − 1, 0)). */
export function lockStartHeight(confirmations: number, tipHeight: number): number {
  return Math.max(tipHeight - confirmations, 0);
}

function durationWords(seconds: number): string {
  const m = Math.max(1, Math.round(seconds / 60));
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.round(h / 24);
  return d < 60 ? `${d} days` : `${Math.round(d / 30.4)} months`;
}

function dateWords(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

const READY: Readiness = { ready: true, blocksLeft: 0, height: null, secondsLeft: 0, estimate: false, words: '' };

function relative(lock: RelativeLock, confirmations: number, now: ChainNow): Readiness {
  if (lock.unit === 'blocks') {
    // BIP68: spendable in the block at coin height + N; the mempool judges for the next block
    const left = confirmations < 1 ? lock.amount : Math.max(0, lock.amount - confirmations);
    if (left === 0) return READY;
    const height = confirmations < 1 ? null : now.tipHeight + left;
    const when = height === null ? `${lock.amount} blocks after it confirms` : `in ${left} block${left === 1 ? '' : 's'} (height ${height}, ~${dateWords(now.nowSeconds + left * BLOCK_SECONDS)})`;
    return { ready: false, blocksLeft: left, height, secondsLeft: left * BLOCK_SECONDS, estimate: false, words: `possible ${when}` };
  }
  if (confirmations < 1) {
    // counted from the block it confirms in (the mempool, too, counts an unconfirmed parent from the tip's MTP)
    return { ready: false, blocksLeft: 0, height: null, secondsLeft: lock.amount, estimate: false, words: `possible ~${durationWords(lock.amount)} after it confirms` };
  }
  const start = now.mtpAt?.[lockStartHeight(confirmations, now.tipHeight)];
  if (now.tipMtp !== undefined && start !== undefined) {
    // taken once the tip's MTP reaches start + amount
    const unlock = start + lock.amount;
    const left = unlock - now.tipMtp;
    if (left <= 0) return READY;
    return { ready: false, blocksLeft: 0, height: null, secondsLeft: left, estimate: false, words: `possible once the median time past reaches ${dateWords(unlock)} (~${durationWords(left)}, ~${dateWords(now.nowSeconds + left)})` };
  }
  const age = confirmations * BLOCK_SECONDS;
  const left = Math.max(0, lock.amount - age);
  if (left === 0) return READY;
  return { ready: false, blocksLeft: 0, height: null, secondsLeft: left, estimate: true, words: `possible in ~${durationWords(left)} (~${dateWords(now.nowSeconds + left)})` };
}

function absolute(lock: AbsoluteLock, now: ChainNow): Readiness {
  if (lock.unit === 'height') {
    // final when nLockTime < the next block's height: tip ≥ N
    const left = Math.max(0, lock.value - now.tipHeight);
    if (left === 0) return READY;
    return { ready: false, blocksLeft: left, height: lock.value, secondsLeft: left * BLOCK_SECONDS, estimate: false, words: `possible in ${left} block${left === 1 ? '' : 's'} (height ${lock.value}, ~${dateWords(now.nowSeconds + left * BLOCK_SECONDS)})` };
  }
  // final when nLockTime < the tip's MTP
  const exact = now.tipMtp !== undefined;
  const mtp = now.tipMtp ?? now.nowSeconds - MTP_LAG_SECONDS;
  const left = Math.max(0, lock.value - mtp + 1);
  if (left === 0) return READY;
  const words = exact ? `possible once the median time past passes ${dateWords(lock.value)} (~${durationWords(left)})` : `possible after ${dateWords(lock.value)} (~${durationWords(left)})`;
  return { ready: false, blocksLeft: 0, height: null, secondsLeft: left, estimate: !exact, words };
}

/** When a coin with `confirmations` can be spent along `p` (the later of its two locks). */
export function coinReadiness(p: Pick<SpendPath, 'older' | 'after'>, confirmations: number, now: ChainNow): Readiness {
  const a = p.older ? relative(p.older, confirmations, now) : READY;
  const b = p.after ? absolute(p.after, now) : READY;
  if (a.ready) return b;
  if (b.ready) return a;
  const later = a.secondsLeft >= b.secondsLeft ? a : b;
  return { ...later, estimate: a.estimate || b.estimate, words: `${a.words}; and ${b.words}` };
}

/**
 * The transaction's nLockTime for a path: the tip's (against fee sniping) raised to what after(N)
 * needs, or the one the person typed (`explicit`), which must then meet it — a typed locktime is
 * never changed behind their back.
 */
export function pathLocktime(locks: PathLocks, chosen: number, explicit = false): { locktime: number } | { error: string } {
  if (locks.minLocktime === null) return { locktime: chosen };
  if (explicit && (chosen >= 500_000_000) === locks.locktimeIsTime && chosen < locks.minLocktime) {
    return { error: `This path needs a locktime of at least ${locks.minLocktime}; ${chosen} is below it (leave the locktime empty to have it set)` };
  }
  const chosenIsTime = chosen >= 500_000_000;
  if (locks.locktimeIsTime) {
    if (chosen === 0 || !chosenIsTime) return { locktime: locks.minLocktime };
    if (chosen < locks.minLocktime) return { error: `This path needs a locktime of at least ${locks.minLocktime} (a time); ${chosen} is earlier` };
    return { locktime: chosen };
  }
  if (chosenIsTime) return { error: `This path needs a locktime that is a block height (at least ${locks.minLocktime}); ${chosen} is a time` };
  return { locktime: Math.max(chosen, locks.minLocktime) };
}

/** nSequence of the inputs for a path: older(N)'s value (which also signals RBF), else the usual rule. */
export function pathSequence(locks: PathLocks, usual: number): number {
  if (locks.sequence === null) return usual;
  // older(N) needs nSequence ≥ N of the same kind, without the disable flag: N itself is the least
  // such value, and below 0xfffffffe it signals BIP125 replaceability as well
  if (locks.sequence > MAX_BIP125_RBF_SEQUENCE) throw new RangeError(`older(${locks.sequence}) cannot be met`);
  return locks.sequence;
}
