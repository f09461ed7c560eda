/**
 * `npm run fuzz [-- --target <name>] [--count N] [--seed S] [--case I] [--out DIR]`: every target
 * in test/fuzz/targets/*.ts (or one), N cases each (default 20,000), seeded. Reports per target
 * the cases, typed errors, untyped failures and the slowest input under its cap (confirmed by a
 * rerun); failing inputs go to test-results/fuzz-failures/. Exit code 1 when any target failed.
 * `--case I` replays one case of one target. The PSBT decoder's own deeper fuzzer (a million
 * cases, byte-level layout mutations) stays `npm run fuzz:psbt`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTargetReport, replayCase, runTarget, type TargetReport } from './harness';
import type { FuzzTarget } from './target';

const HERE = dirname(fileURLToPath(import.meta.url));
export const TARGET_DIR = join(HERE, 'targets');
export const FAILURE_DIR = join(HERE, '..', '..', 'test-results', 'fuzz-failures');

/** Every target module's default export, by file name order. */
export async function loadTargets(): Promise<FuzzTarget[]> {
  const files = readdirSync(TARGET_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
  const out: FuzzTarget[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(TARGET_DIR, f)).href)) as { default?: FuzzTarget };
    const t = mod.default;
    if (!t || typeof t.run !== 'function' || typeof t.name !== 'string') throw new Error(`${f} does not default-export a fuzz target`);
    out.push(t);
  }
  return out;
}

const USAGE = `usage: npm run fuzz [-- --target NAME] [--count N] [--seed S] [--start I] [--case I] [--out DIR] [--quiet]
  --target NAME  one target (default: all of test/fuzz/targets/)
  --count N      cases per target (default 20000)
  --seed S       PRNG seed (default 1); case I of seed S of a target is always the same input
  --case I       replay one case of --target: print its input, outcome and time
  --out DIR      where failing inputs are saved (default test-results/fuzz-failures)
Exit code 0 when no target failed, 1 otherwise.`;

async function cli(argv: string[]): Promise<number> {
  let count = 20_000;
  let seed = 1;
  let start = 0;
  let only: string | undefined;
  let replay: number | undefined;
  let out = FAILURE_DIR;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = (): number => {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new Error(`${a} needs a non-negative integer`);
      return Number(v);
    };
    if (a === '--count') count = num();
    else if (a === '--seed') seed = num();
    else if (a === '--start') start = num();
    else if (a === '--case') replay = num();
    else if (a === '--target') only = argv[++i];
    else if (a === '--out') out = resolve(argv[++i] ?? '.');
    else if (a === '--quiet') quiet = true;
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      return 0;
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  const all = await loadTargets();
  const targets = only === undefined ? all : all.filter((t) => t.name === only);
  if (targets.length === 0) throw new Error(`no target named ${only}; targets: ${all.map((t) => t.name).join(', ')}`);
  if (replay !== undefined) {
    if (targets.length !== 1) throw new Error('--case needs --target');
    const r = await replayCase(targets[0]!, seed, replay);
    console.log(`${targets[0]!.name} case ${replay} of seed ${seed} (${r.input.length} characters): ${JSON.stringify(r.input.length > 2000 ? r.input.slice(0, 2000) + '…' : r.input)}`);
    console.log(`outcome: ${r.outcome.split('\n').slice(0, 8).join('\n')}\ntime: ${r.ms.toFixed(2)} ms`);
    return r.failure ? 1 : 0;
  }
  const reports: TargetReport[] = [];
  for (const t of targets) {
    const r = await runTarget(t, {
      count,
      seed,
      start,
      failureDir: out,
      onProgress: quiet ? undefined : (done, rep) => process.stderr.write(`  ${t.name}: ${done.toLocaleString('en-US')} / ${count.toLocaleString('en-US')}, ${rep.failures.length} failures, slowest ${rep.maxMs.toFixed(1)} ms\n`),
    });
    reports.push(r);
    console.log(formatTargetReport(r));
  }
  console.log('\n| target | cases | accepted | typed errors | untyped failures | slowest input under the cap |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of reports) {
    const untyped = r.failures.filter((f) => f.reason.startsWith('untyped')).length;
    console.log(`| ${r.target} | ${r.cases.toLocaleString('en-US')} | ${r.ok.toLocaleString('en-US')} | ${r.typed.toLocaleString('en-US')} | ${untyped} | ${r.maxMs.toFixed(1)} ms (case ${r.slowestIndex}, ${r.slowestSize.toLocaleString('en-US')} chars) |`);
  }
  return reports.some((r) => r.failures.length > 0) ? 1 : 0;
}

const invoked = process.argv[1] ? pathToFileURL(resolve(process.argv[1])).href : '';
if (import.meta.url === invoked) {
  cli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exitCode = 2;
    },
  );
}
