/**
 * The fuzz loop over one target (test/fuzz/target.ts): case i of seed S is a pure function of
 * (S, target name, i) — a seed input mutated by the target — so one case replays alone
 * (`npm run fuzz -- --target T --seed S --case I`). Each input is run; a throw the target does not
 * call typed is a failure, saved to test-results/fuzz-failures/. The time of an input above 50 ms
 * is confirmed by running it again (the smaller of that run's wall and CPU time): a loaded
 * machine does not make an input slow. The slowest input at or under the target's cap is reported.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FuzzTarget } from './target';

/** The bound of issue #27: no input under its cap may take longer than this. */
export const MAX_MS_PER_INPUT = 1000;
const CONFIRM_MS = 50;

/** sfc32 seeded through splitmix32 from (seed, target, case): uniform in [0, 1). */
export function caseRng(seed: number, target: string, index: number): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < target.length; i++) h = Math.imul(h ^ target.charCodeAt(i), 0x01000193);
  let s = (seed ^ Math.imul(index, 0x27d4eb2f) ^ h) >>> 0;
  const sm = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = sm();
  let b = sm() ^ index;
  let c = sm();
  let d = 1;
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 0x100000000;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

export interface TargetCase {
  input: string;
  /** Which seed it started from. */
  seedIndex: number;
}

export function makeTargetCase(target: FuzzTarget, seeds: readonly string[], seed: number, index: number): TargetCase {
  const rng = caseRng(seed, target.name, index);
  const seedIndex = Math.floor(rng() * seeds.length);
  // A few cases run a seed as it is (the seeds must pass too).
  const input = index < seeds.length ? seeds[index]! : target.mutate(seeds[seedIndex]!, rng);
  return { input, seedIndex: index < seeds.length ? index : seedIndex };
}

export interface TargetFailure {
  index: number;
  reason: string;
  ms: number;
  size: number;
  file?: string;
}

export interface TargetReport {
  target: string;
  seed: number;
  cases: number;
  /** Ran without a throw. */
  ok: number;
  /** Refused with a typed error. */
  typed: number;
  failures: TargetFailure[];
  /** Slowest input at or under the cap (confirmed time), its case and size. */
  maxMs: number;
  slowestIndex: number;
  slowestSize: number;
  largestInput: number;
  elapsedMs: number;
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : `thrown ${typeof e}: ${String(e)}`;
}

async function timed(target: FuzzTarget, input: string): Promise<{ ms: number; error?: unknown; threw: boolean }> {
  const t0 = performance.now();
  try {
    await target.run(input);
    return { ms: performance.now() - t0, threw: false };
  } catch (e) {
    return { ms: performance.now() - t0, error: e, threw: true };
  }
}

/** A first time above CONFIRM_MS, confirmed: the smaller of it and a second run's wall and CPU time. */
async function confirmMs(target: FuzzTarget, input: string, first: number): Promise<number> {
  if (first <= CONFIRM_MS) return first;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  try {
    await target.run(input);
  } catch {
    // the same outcome as the first run; only its time matters here
  }
  const wall = performance.now() - w0;
  const c = process.cpuUsage(c0);
  return Math.min(first, wall, (c.user + c.system) / 1000);
}

function save(dir: string, target: string, seed: number, index: number, input: string, reason: string, ms: number): string {
  mkdirSync(dir, { recursive: true });
  const base = `${target}-seed${seed}-case${index}`;
  writeFileSync(join(dir, `${base}.txt`), input);
  writeFileSync(
    join(dir, `${base}.json`),
    JSON.stringify({ target, seed, index, reason, ms, size: input.length, replay: `npm run fuzz -- --target ${target} --seed ${seed} --case ${index}` }, null, 2) + '\n',
  );
  return join(dir, base);
}

export interface RunTargetOptions {
  count: number;
  seed: number;
  start?: number;
  /** Where failing inputs go; null keeps them in memory only. */
  failureDir: string | null;
  onProgress?: (done: number, r: TargetReport) => void;
  progressEvery?: number;
}

export async function runTarget(target: FuzzTarget, opts: RunTargetOptions): Promise<TargetReport> {
  const seeds = target.seeds();
  if (seeds.length === 0) throw new Error(`fuzz target ${target.name} has no seeds`);
  const start = opts.start ?? 0;
  const r: TargetReport = { target: target.name, seed: opts.seed, cases: 0, ok: 0, typed: 0, failures: [], maxMs: 0, slowestIndex: -1, slowestSize: 0, largestInput: 0, elapsedMs: 0 };
  const t0 = performance.now();
  for (let i = start; i < start + opts.count; i++) {
    const c = makeTargetCase(target, seeds, opts.seed, i);
    const res = await timed(target, c.input);
    r.cases++;
    r.largestInput = Math.max(r.largestInput, c.input.length);
    let reason: string | null = null;
    if (!res.threw) r.ok++;
    else if (target.typed(res.error)) r.typed++;
    else reason = `untyped: ${describe(res.error)}`;
    const ms = await confirmMs(target, c.input, res.ms);
    if (c.input.length <= target.capBytes && ms > r.maxMs) {
      r.maxMs = ms;
      r.slowestIndex = i;
      r.slowestSize = c.input.length;
    }
    if (reason === null && c.input.length <= target.capBytes && ms > MAX_MS_PER_INPUT) reason = `slow: ${ms.toFixed(0)} ms (> ${MAX_MS_PER_INPUT} ms) for ${c.input.length} characters`;
    if (reason !== null) {
      const f: TargetFailure = { index: i, reason, ms, size: c.input.length };
      if (opts.failureDir) f.file = save(opts.failureDir, target.name, opts.seed, i, c.input, reason, ms);
      r.failures.push(f);
    }
    if (opts.onProgress && (i - start + 1) % (opts.progressEvery ?? 5000) === 0) opts.onProgress(i - start + 1, r);
  }
  r.elapsedMs = performance.now() - t0;
  return r;
}

/** One case again: its input, outcome and time. */
export async function replayCase(target: FuzzTarget, seed: number, index: number): Promise<{ input: string; outcome: string; ms: number; failure: boolean }> {
  const c = makeTargetCase(target, target.seeds(), seed, index);
  const res = await timed(target, c.input);
  const ms = await confirmMs(target, c.input, res.ms);
  const untyped = res.threw && !target.typed(res.error);
  const outcome = !res.threw ? 'ok' : `${untyped ? 'UNTYPED ' : 'typed '}${describe(res.error)}`;
  return { input: c.input, outcome, ms, failure: untyped || (c.input.length <= target.capBytes && ms > MAX_MS_PER_INPUT) };
}

export function formatTargetReport(r: TargetReport): string {
  const lines = [
    `${r.target}: seed ${r.seed}, ${r.cases.toLocaleString('en-US')} cases in ${(r.elapsedMs / 1000).toFixed(1)} s — ${r.ok.toLocaleString('en-US')} accepted, ${r.typed.toLocaleString('en-US')} typed errors, ${r.failures.filter((f) => f.reason.startsWith('untyped')).length} untyped failures`,
    `  slowest input under the cap: ${r.maxMs.toFixed(1)} ms (case ${r.slowestIndex}, ${r.slowestSize.toLocaleString('en-US')} characters; limit ${MAX_MS_PER_INPUT} ms); largest input ${r.largestInput.toLocaleString('en-US')} characters`,
  ];
  for (const f of r.failures.slice(0, 10)) lines.push(`  FAIL case ${f.index} (${f.size} characters): ${f.reason.split('\n')[0]}${f.file ? ` (saved ${f.file}.*)` : ''}`);
  if (r.failures.length > 10) lines.push(`  … ${r.failures.length - 10} more failures`);
  return lines.join('\n');
}
