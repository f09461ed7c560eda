/** electron/main/memory.ts: a real full collection in plain Node (no --expose-gc on the command line). */
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../electron/main/memory';

const MB = 1024 * 1024;
/** Resident bytes of V8's young generation (new_space). */
const youngResident = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;

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
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('gives the pages of a grown young generation back, not only the objects in them', () => {
    // Many short-lived objects, as a refresh's parsed replies: V8 grows the young generation for them.
    let kept = 0;
    for (let round = 0; round < 20; round++) {
      const replies = Array.from({ length: 100_000 }, (_, i) => JSON.parse(`{"address":"a${i}","amount":${i},"txids":["${round}"]}`) as { amount: number });
      kept += replies[round]!.amount;
    }
    expect(kept).toBeGreaterThan(0);
    const before = youngResident();
    expect(before).toBeGreaterThan(24 * MB); // grown (Node 24: up to 64 MB a semi-space)
    expect(collectGarbage()).toBe(true);
    // A plain gc() leaves it resident (65–76 MB seen after a refresh of 10,000 addresses).
    expect(youngResident()).toBeLessThan(before / 2);
    expect(youngResident()).toBeLessThanOrEqual(16 * MB);
  });
});
