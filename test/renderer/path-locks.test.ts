// Send's path chooser: the locks a path sets, time-based ones named as median-time-past locks.
import { describe, expect, it } from 'vitest';
import { pathLocksText } from '../../renderer/src/lib/path-locks';

describe('the locks a path sets, in the path chooser', () => {
  it('height and block locks as numbers; time locks with their seconds or the date the MTP must pass', () => {
    expect(pathLocksText({ sequence: null, minLocktime: null })).toBe('');
    expect(pathLocksText({ sequence: 10, minLocktime: null })).toBe('nSequence 10');
    expect(pathLocksText({ sequence: null, minLocktime: 200 })).toBe('nLockTime ≥ 200');
    expect(pathLocksText({ sequence: (1 << 22) | 10, minLocktime: null })).toBe('nSequence 4194314 (5120 s of median time past)');
    expect(pathLocksText({ sequence: null, minLocktime: 1_700_000_000 })).toBe('nLockTime ≥ 1700000000 (median time past after 2023-11-14 22:13 UTC)');
    expect(pathLocksText({ sequence: (1 << 22) | 1, minLocktime: 499_999_999 })).toBe('nSequence 4194305 (512 s of median time past) · nLockTime ≥ 499999999');
  });
});
