/**
 * A smoke run of every `npm run fuzz` target (test/fuzz/targets/*.ts): a few hundred seeded cases
 * each must give results or the parser's typed errors (the full run is 20,000 a target, not part of
 * `npm test`). And the harness itself: it catches an untyped throw and a broken invariant, saves
 * nothing it was not asked to, and replays a case from (seed, target, index) alone.
 */
import { describe, expect, it } from 'vitest';
import { formatTargetReport, makeTargetCase, replayCase, runTarget } from './harness';
import { loadTargets } from './run';
import { InvariantError, type FuzzTarget } from './target';

const targets = await loadTargets();
/** Cases a target in the smoke run (the seeds first, as they are): few where a case is dear (a wallet import checks its keys and exports). */
const SMOKE: Record<string, number> = { 'wallet-file': 30 };

describe('every fuzz target, a smoke run', () => {
  it('has the targets of issue #27', () => {
    expect(targets.map((t) => t.name)).toEqual(expect.arrayContaining(['address-list', 'bip21', 'descriptor', 'labels', 'psbt', 'raw-tx', 'wallet-file']));
    for (const t of targets) {
      expect(t.capBytes).toBeGreaterThan(0);
      expect(t.seeds().length).toBeGreaterThan(0);
    }
  });

  for (const t of targets) {
    it(`${t.name}: no untyped failure`, { timeout: 120_000 }, async () => {
      const r = await runTarget(t, { count: SMOKE[t.name] ?? 80, seed: 27, failureDir: null });
      if (r.failures.length) console.log(formatTargetReport(r));
      expect(r.failures.map((f) => `case ${f.index}: ${f.reason.split('\n')[0]}`)).toEqual([]);
      // the mutations reach past the first check: some inputs are accepted and some refused
      expect(r.ok + r.typed).toBe(r.cases);
      expect(r.ok).toBeGreaterThan(0);
    });
  }
});

describe('the harness', () => {
  /** Accepts "ok…", refuses other text with a typed error, and throws a TypeError on a "!" — a parser bug. */
  const toy: FuzzTarget = {
    name: 'toy',
    capBytes: 100,
    seeds: () => ['ok', 'okay'],
    mutate: (s, rng) => s + '!?x'[Math.floor(rng() * 3)]!,
    run(input) {
      if (input.includes('!')) throw new TypeError("Cannot read properties of null (reading 'x')");
      if (input.includes('x')) throw new InvariantError('x breaks the round trip');
      if (!input.startsWith('ok')) throw new RangeError('not ok');
      if (input.endsWith('?')) throw new SyntaxError('typed refusal');
    },
    typed: (e) => e instanceof SyntaxError,
  };

  it('counts typed refusals, and reports untyped throws and broken invariants as failures', async () => {
    const r = await runTarget(toy, { count: 60, seed: 3, failureDir: null });
    expect(r.cases).toBe(60);
    expect(r.ok).toBe(2); // the two seeds, run as they are
    expect(r.typed).toBeGreaterThan(5);
    const reasons = r.failures.map((f) => f.reason.split(':')[0] + ': ' + f.reason.split('\n')[0]!.split(': ')[1]);
    expect(new Set(reasons)).toEqual(new Set(['untyped: TypeError', 'untyped: InvariantError']));
    expect(r.typed + r.ok + r.failures.length).toBe(60);
  });

  it('case i of seed s is the same input every time, and replays alone', async () => {
    const [t] = targets.filter((x) => x.name === 'bip21');
    const a = makeTargetCase(t!, t!.seeds(), 11, 500);
    expect(makeTargetCase(t!, t!.seeds(), 11, 500)).toEqual(a);
    expect(makeTargetCase(t!, t!.seeds(), 12, 500).input).not.toBe(a.input);
    const again = await replayCase(t!, 11, 500);
    expect(again.input).toBe(a.input);
    const r = await replayCase(toy, 3, 1);
    expect(r).toMatchObject({ input: 'okay', outcome: 'ok', failure: false });
  });
});
