/**
 * The ur-part fuzz target (targets/ur-part.ts) run here on its own: 400 mutated UR parts in `npm test`
 * (UR_FUZZ_COUNT=20000 for a long run). Every input is read or refused with a typed UrScanError; the
 * untyped failures are listed (there must be none), and the slowest case is printed — a number for the
 * report, never asserted (a busy machine is slow).
 */
import { describe, expect, it } from 'vitest';
import target from './targets/ur-part';
import { MAX_QR_TEXT_CHARS } from '../../shared/limits';

/** mulberry32: one stream per case, so a case replays from (seed, index) alone. */
function caseRng(seed: number, index: number): () => number {
  let a = (seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNT = Number(process.env.UR_FUZZ_COUNT ?? 400);

describe(`ur-part fuzz: ${COUNT.toLocaleString('en-US')} mutated parts`, () => {
  it('reads or refuses every input with a typed error', async () => {
    const seeds = target.seeds();
    expect(seeds.length).toBeGreaterThan(50);
    const failures: string[] = [];
    const codes = new Map<string, number>();
    let accepted = 0;
    let slowest = { ms: 0, cpuMs: 0, index: -1, input: '' };
    for (let i = 0; i < COUNT; i++) {
      const rng = caseRng(27, i);
      const input = target.mutate(seeds[Math.floor(rng() * seeds.length)]!, rng).slice(0, target.capBytes);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      try {
        await target.run(input);
        accepted++;
      } catch (e) {
        if (!target.typed(e)) failures.push(`case ${i} (${input.slice(0, 80)}): ${e instanceof Error ? e.stack : String(e)}`);
        else {
          const code = (e as { code: string }).code;
          codes.set(code, (codes.get(code) ?? 0) + 1);
        }
      }
      const ms = performance.now() - t0;
      const used = process.cpuUsage(cpu0);
      const cpuMs = (used.user + used.system) / 1000;
      if (ms > slowest.ms) slowest = { ms, cpuMs, index: i, input };
    }
    console.log(
      `ur-part fuzz: ${COUNT} cases, ${accepted} accepted, refused ${[...codes].map(([c, n]) => `${c} ${n}`).join(', ')}; untyped failures ${failures.length}; ` +
        `slowest case ${slowest.index}: ${slowest.ms.toFixed(1)} ms wall, ${slowest.cpuMs.toFixed(1)} ms CPU (${slowest.input.slice(0, 60)}…)`,
    );
    expect(failures).toEqual([]);
    // The mutations reach past the first checks: parts are accepted and refused for many reasons.
    expect(accepted).toBeGreaterThan(COUNT / 20);
    expect(codes.size).toBeGreaterThanOrEqual(5);
  }, 120_000 + COUNT * 100); // a hang guard that grows with the count, never a speed check

  it('keeps its inputs within what a QR code holds (plus a little, to try the limit)', () => {
    expect(target.capBytes).toBeGreaterThan(MAX_QR_TEXT_CHARS);
    expect(target.name).toBe('ur-part');
    const a = target.mutate(target.seeds()[5]!, caseRng(1, 2));
    expect(target.mutate(target.seeds()[5]!, caseRng(1, 2))).toBe(a);
  });
});
