/** electron/main/memory.ts: a real full collection in plain Node (no --expose-gc on the command line). */
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../electron/main/memory';

describe('collectGarbage', () => {
  it('runs a full collection that frees unreachable objects, without exposing gc() globally', () => {
    let junk: Array<{ i: number; s: string }> | null = Array.from({ length: 500_000 }, (_, i) => ({ i, s: `x${i}` }));
    const held = process.memoryUsage().heapUsed;
    expect(junk.length).toBe(500_000);
    junk = null;
    expect(collectGarbage()).toBe(true);
    const after = process.memoryUsage().heapUsed;
    expect(held - after).toBeGreaterThan(20 * 1024 * 1024); // the 500,000 objects (~40 MB) are gone
    expect(collectGarbage()).toBe(true); // again: the same gc()
  });
});
