// The timelock constants of consensus (Core's primitives/transaction.h, script/script.h) and how a
// miniscript lock reads: older(N) is a BIP68 relative lock (blocks, or units of 512 seconds of median
// time past when the type flag is set), after(N) a BIP65 absolute one (a height below the threshold,
// else a Unix time compared with the median time past).

/** nSequence of an input that opts out of nLockTime (and of BIP68 and BIP125). */
export const SEQUENCE_FINAL = 0xffffffff;
/** BIP68: set in nSequence, the input has no relative lock. */
export const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x80000000;
/** nLockTime / after(N) below this is a block height, at or above it a Unix time. */
export const LOCKTIME_THRESHOLD = 500_000_000;
/** BIP68: set in nSequence / older(N), the lock is in units of 512 seconds. */
export const SEQUENCE_LOCKTIME_TYPE_FLAG = 1 << 22;
/** BIP68: the lock's value bits. */
export const SEQUENCE_LOCKTIME_MASK = 0xffff;

/** older(N) (BIP68): blocks, or seconds of median time past. */
export interface RelativeLock {
  value: number;
  unit: 'blocks' | 'seconds';
  /** Blocks, or seconds (units × 512). */
  amount: number;
}

/** after(N) (BIP65): a block height, or a Unix time (median time past). */
export interface AbsoluteLock {
  value: number;
  unit: 'height' | 'time';
}

export function decodeOlder(n: number): RelativeLock {
  const units = n & SEQUENCE_LOCKTIME_MASK;
  return n & SEQUENCE_LOCKTIME_TYPE_FLAG ? { value: n, unit: 'seconds', amount: units * 512 } : { value: n, unit: 'blocks', amount: units };
}

export function decodeAfter(n: number): AbsoluteLock {
  return { value: n, unit: n < LOCKTIME_THRESHOLD ? 'height' : 'time' };
}
