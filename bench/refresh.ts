/**
 * `npm run bench -- refresh` (issue 5): the refresh engine and the balances screen against the devnet
 * `large:10000` (10,000 watched addresses, 1–3 UTXOs each) on loopback, in one run:
 *
 * - cold refresh (empty SQLite file) and warm refresh (nothing changed) with the real RpcClient and
 *   IndexClient (loopback: no client rate limit, default concurrency), against a naive client doing
 *   one sequential request per address (listreceivedbyaddress once, then getaddressinfo and index
 *   address/utxo per address with plain node:http requests (default agent), one autocommitted INSERT
 *   per row into the same schema),
 *   run on the first BENCH_NAIVE_SAMPLE (default 1000) addresses of the same devnet and extrapolated
 *   linearly; then the same pair with BENCH_LATENCY_MS (default 5) ms added by the devnet to every
 *   request, as a node and index on another machine would (naive sample: 200 addresses);
 * - the floor of a cold refresh: only the requests it must make, replies read and thrown away
 *   (floorChild), which bounds how much faster than the naive client any client can be here;
 * - main-process RSS: the process that ran both refreshes, with the balances overview loaded
 *   (`watch:overview`), and a synthetic 10,000-address / 100,000-UTXO snapshot written through the
 *   repository and loaded the same way; baselines are the naive client's process (its refresh, then
 *   an overview that loads every UTXO row into JS and groups it there); the first also beside the
 *   same process whose engine releases memory with a plain gc() (before electron/main/memory.ts
 *   asked for V8's last-resort collection);
 * - the 10,000-row Balances table in Chromium (bench/refresh-render.ts).
 *
 * The devnet and every measured process are children of the bench (this file with a mode argument,
 * `--expose-gc`): RSS is read after a forced gc, the peak from getrusage, and the devnet's own work
 * never counts as the app's memory. The app's CPU time is reported beside each refresh so the part
 * spent waiting for the devnet (a JavaScript stand-in for Core and the index) is visible.
 * Goals are stated in each row's note; nothing here is a test assertion.
 *
 * This file runs the bench (and is the children's entry point); the children themselves are
 * refresh-devnet.ts (the devnet), refresh-ours.ts (the app's refreshes and overview) and
 * refresh-baselines.ts (the naive client, the floor, the node's reply times).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Row } from './table';
import { MB, type DevnetUrls, type OverviewResult } from './refresh-common';
import { devnetChild, startDevnetChild } from './refresh-devnet';
import { appChild, incrementalChild, syntheticChild, type AppChildResult, type IncrementalBench, type SyntheticResult } from './refresh-ours';
import { floorChild, naiveChild, naiveOverview, nodeReplyTimes, type FloorResult, type NaiveChildResult, type NaiveRun } from './refresh-baselines';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SCENARIO = process.env.BENCH_REFRESH_SCENARIO ?? 'large:10000';
/** Index lookups in flight at once, tried by the floor measurement. */
const FLOOR_CONCURRENCY = [4, 16, 64];

/**
 * The script the children run: this file bundled with esbuild (as electron-vite bundles the main
 * process: one file, better-sqlite3 and keytar external), so that no TypeScript loader sits in the
 * measured processes (tsx alone adds ~40 MB of RSS). Falls back to tsx until bundleChild() ran.
 */
let childScript: string[] = ['--import', 'tsx', SELF];

/** The import worker bundled beside the child script (the app child's snapshot writer, as the app writes). */
let importWorkerFile: string | null = null;

async function bundleChild(outfile: string): Promise<void> {
  const { build } = await import('esbuild'); // tsx's own dependency
  const req = createRequire(join(ROOT, 'package.json'));
  const workerOut = join(dirname(outfile), 'import-worker.mjs');
  await build({
    entryPoints: [join(ROOT, 'electron/main/watch/import-worker.ts')],
    outfile: workerOut,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    plugins: [{ name: 'bench-externals', setup: (b) => void b.onResolve({ filter: /^(better-sqlite3|keytar)$/ }, (a) => ({ path: req.resolve(a.path), external: true })) }],
  });
  importWorkerFile = workerOut;
  // tiny-secp256k1 (shared/bitcoin/psbt/ecc.ts) reads its WebAssembly beside the module that loads it: the bundle.
  copyFileSync(join(dirname(req.resolve('tiny-secp256k1')), '..', 'secp256k1.wasm'), join(dirname(outfile), 'secp256k1.wasm'));
  await build({
    entryPoints: [SELF],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    plugins: [
      {
        name: 'bench-externals',
        setup(b) {
          b.onResolve({ filter: /^(better-sqlite3|keytar)$/ }, (a) => ({ path: req.resolve(a.path), external: true }));
          b.onResolve({ filter: /refresh-render$/ }, () => ({ path: './refresh-render', external: true })); // parent only
        },
      },
    ],
  });
  childScript = [outfile];
}

/** Runs this file in a fresh Node process in `mode` and returns what it reports. */
function inChild<T>(mode: string, arg: unknown): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', ...childScript, mode, JSON.stringify(arg)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) reject(new Error(`bench child '${mode}' ended with ${signal ?? code}: ${out.slice(-2000)}`));
      else resolvePromise(JSON.parse(line.slice(7)) as T);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// the group

const mb = (b: number): number => b / MB;
const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT MET');
const int = (n: number): string => n.toLocaleString('en');
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function fmtTimings(t: Record<string, number>): string {
  return ['received', 'addressinfo', 'tips', 'utxos', 'write'].map((k) => `${k} ${t[k] ?? 0}`).join(' / ') + ' ms';
}

function naiveNote(r: NaiveRun): string {
  const how = r.sample < r.total ? `first ${int(r.sample)} of ${int(r.total)} addresses, extrapolated linearly` : `all ${int(r.total)} addresses`;
  return `naive: ${((r.loopMs / r.sample) * 1000).toFixed(0)} µs/address (${how})`;
}

export async function benchRefresh(): Promise<Row[]> {
  const rows: Row[] = [];
  const sample = Number(process.env.BENCH_NAIVE_SAMPLE ?? 1000);
  const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 5);
  const latencySample = Number(process.env.BENCH_NAIVE_LATENCY_SAMPLE ?? 200);
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-bench-refresh-'));
  const dir = (name: string): string => join(tmp, name);
  const t0 = performance.now();
  const log = (m: string): void => void process.stderr.write(`bench refresh: ${m} (${secs(performance.now() - t0)})\n`);
  const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
  log(`load average ${load()} (1/5/15 min)`);
  await bundleChild(join(tmp, 'bench-child.mjs'));
  const devnet = startDevnetChild(childScript, ROOT, SCENARIO);
  try {
    // The synthetic 100k-UTXO snapshot needs no devnet: it is written while the devnet child builds its chain.
    const synthetic = await inChild<SyntheticResult>('synthetic', { dataDir: dir('synthetic'), addresses: 10_000, perAddress: 10 });
    const synthNaive = await inChild<OverviewResult>('naive-overview', { dataDir: dir('synthetic') });
    log('synthetic 100k-UTXO snapshot written and loaded');
    const ready = await devnet.ready;
    const urls: DevnetUrls = { rpcUrl: ready.rpcUrl, indexUrl: ready.indexUrl };
    log(`devnet ${SCENARIO} ready (child process, ${secs(ready.buildMs)} after start)`);

    // --- loopback: ours (cold + warm, then the overview), the node's own reply times, the naive client
    // As the app refreshes: the snapshot written by the import worker (its thread counts in the RSS rows).
    const importWorker = importWorkerFile;
    const app = await inChild<AppChildResult>('app', { ...urls, dataDir: dir('real'), overview: true, importWorker });
    log(`cold ${secs(app.cold.ms)}, warm ${secs(app.warm.ms)}`);
    const appPlain = await inChild<AppChildResult>('app', { ...urls, dataDir: dir('real-plain-gc'), overview: true, plainGc: true, importWorker });
    log(`with a plain gc(): cold ${secs(appPlain.cold.ms)}, warm ${secs(appPlain.warm.ms)}`);
    const node = await nodeReplyTimes(urls);
    const naive = await inChild<NaiveChildResult>('naive', { ...urls, dataDir: dir('naive'), sample, overviewDir: dir('real') });
    log('naive client done');
    const floor = await inChild<FloorResult>('floor', { ...urls, concurrency: FLOOR_CONCURRENCY });
    log(`floor ${secs(floor.floorMs)}`);
    // The incremental refresh, in its own process on a copy of the warm database (the rows above stay as they were).
    cpSync(dir('real'), dir('incremental'), { recursive: true });
    const ib = await inChild<IncrementalBench>('incremental', { ...urls, dataDir: dir('incremental') });
    log(`incremental ${ib.incMs.map((x) => x.toFixed(0)).join('/')} ms`);

    // --- the same with latency on every request
    await devnet.setLatency(latencyMs);
    const appLat = await inChild<AppChildResult>('app', { ...urls, dataDir: dir('real-latency'), overview: false, importWorker });
    const naiveLat = await inChild<NaiveChildResult>('naive', { ...urls, dataDir: dir('naive-latency'), sample: latencySample, overviewDir: null });
    log(`with ${latencyMs} ms latency: cold ${secs(appLat.cold.ms)}, warm ${secs(appLat.warm.ms)}`);
    await devnet.stop();

    const n = app.addresses;
    const coldRatio = naive.cold.extrapolatedMs / app.cold.ms;
    const floorRatio = naive.cold.extrapolatedMs / floor.floorMs;
    const warmRatio = naive.warm.extrapolatedMs / app.warm.ms;
    rows.push({
      name: `cold refresh, ${int(n)} addresses / ${int(app.utxos)} UTXOs, empty SQLite (goal ≤ 10 s, ≥ 20× naive)`,
      unit: 's',
      ours: app.cold.ms / 1000,
      baseline: naive.cold.extrapolatedMs / 1000,
      lowerIsBetter: true,
      note: `≤ 10 s: ${verdict(app.cold.ms <= 10_000)}; ≥ 20×: ${verdict(coldRatio >= 20)} (the floor below allows at most ${floorRatio.toFixed(1)}×); app CPU ${app.cold.cpuS.toFixed(1)} s; steps ${fmtTimings(app.cold.timings)}; ${naiveNote(naive.cold)}`,
    });
    rows.push({
      name: `the floor of a cold refresh: only its requests (listreceivedbyaddress, getaddressinfo for every address in one batch, ${int(floor.addresses)} index lookups), every reply read and thrown away (no goal)`,
      unit: 's',
      ours: floor.floorMs / 1000,
      baseline: naive.cold.extrapolatedMs / 1000,
      lowerIsBetter: true,
      note:
        `the ratio is the most any client can be faster than the naive one against this devnet; our cold refresh takes ${(app.cold.ms / floor.floorMs).toFixed(1)}× the floor; ` +
        `listreceivedbyaddress ${floor.listMs.toFixed(0)} ms, getaddressinfo batch ${floor.infoMs.toFixed(0)} ms, lookups ${FLOOR_CONCURRENCY.map((c) => `${c} at a time ${floor.utxoMs[c]!.toFixed(0)}`).join(', ')} ms, ` +
        `batch and lookups at once ${floor.overlappedMs.toFixed(0)} ms`,
    });
    rows.push({
      name: `warm refresh, nothing changed (goal ≤ 1 s, ≥ 20× naive)`,
      unit: 's',
      ours: app.warm.ms / 1000,
      baseline: naive.warm.extrapolatedMs / 1000,
      lowerIsBetter: true,
      note:
        `≤ 1 s: ${verdict(app.warm.ms <= 1000)}; ≥ 20×: ${verdict(warmRatio >= 20)}; app CPU ${app.warm.cpuS.toFixed(1)} s; ${app.warm.counts.utxoLookups} lookups, ${app.warm.counts.infosFetched} getaddressinfo, spend check: ${app.warm.spendCheck}; ` +
        `steps ${fmtTimings(app.warm.timings)}; the node alone takes ${node.listMs.toFixed(0)} ms for listreceivedbyaddress + ${node.unspentMs.toFixed(0)} ms for listunspent (${(node.unspentBytes / MB).toFixed(1)} MB); naive repeats every request`,
    });
    rows.push({
      name: `cold refresh, ${latencyMs} ms added to every request (no goal)`,
      unit: 's',
      ours: appLat.cold.ms / 1000,
      baseline: naiveLat.cold.extrapolatedMs / 1000,
      lowerIsBetter: true,
      note: `steps ${fmtTimings(appLat.cold.timings)}; ${naiveNote(naiveLat.cold)}`,
    });
    rows.push({
      name: `warm refresh, ${latencyMs} ms added to every request (no goal)`,
      unit: 's',
      ours: appLat.warm.ms / 1000,
      baseline: naiveLat.warm.extrapolatedMs / 1000,
      lowerIsBetter: true,
      note: `steps ${fmtTimings(appLat.warm.timings)}; ${naiveNote(naiveLat.warm)}`,
    });
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const incMed = median(ib.incMs);
    rows.push({
      name: `incremental refresh after one block paying 1 of ${int(n)} watched addresses (goal ≤ 150 ms), vs the full refresh after the same change`,
      unit: 'ms',
      ours: incMed,
      baseline: median(ib.fullMs),
      lowerIsBetter: true,
      note:
        `≤ 150 ms: ${verdict(incMed <= 150)}; median of ${ib.incMs.length} rounds (incremental ${ib.incMs.map((x) => x.toFixed(0)).join(', ')} ms; full ${ib.fullMs.map((x) => x.toFixed(0)).join(', ')} ms); ` +
        `modes ${[...new Set(ib.modes)].join(', ')}; addresses touched ${ib.affected.join(', ')}; index lookups ${ib.lookups.join(', ')}; its own process, on a copy of the warm database; the warm full refresh with nothing changed: ${app.warm.ms.toFixed(0)} ms`,
    });
    const ov = app.overview!;
    const peak = ov.memory.peakRss;
    rows.push({
      name: `main-process RSS, ${int(n)} addresses / ${int(app.utxos)} UTXOs: after cold + warm refresh, overview (${int(ov.rows)} rows) loaded (goal ≤ 200 MB)`,
      unit: 'MB',
      ours: mb(ov.memory.rss),
      baseline: mb(naive.overview!.memory.rss),
      lowerIsBetter: true,
      note:
        `the snapshot written by the import worker, as the app does (its thread included); engine's releases ${app.releases.join('/')} ms; after gc: ${verdict(mb(ov.memory.rss) <= 200)}; peak ${mb(peak).toFixed(0)} MB (${verdict(mb(peak) <= 200)}); at rest after imports ${mb(app.atStart.rss).toFixed(0)} MB; after cold ${mb(app.afterCold.rss).toFixed(0)} MB, after warm ${mb(app.afterWarm.rss).toFixed(0)} MB; ` +
        `the same process with a plain gc() as the engine's release (before its last-resort collection): ${mb(appPlain.overview!.memory.rss).toFixed(0)} MB, peak ${mb(appPlain.overview!.memory.peakRss).toFixed(0)} MB, after cold ${mb(appPlain.afterCold.rss).toFixed(0)} MB, after warm ${mb(appPlain.afterWarm.rss).toFixed(0)} MB, refreshes cold ${secs(appPlain.cold.ms)} / warm ${(appPlain.warm.ms / 1000).toFixed(2)} s (CPU ${appPlain.cold.cpuS.toFixed(1)} / ${appPlain.warm.cpuS.toFixed(2)} s) against ${secs(app.cold.ms)} / ${(app.warm.ms / 1000).toFixed(2)} s (CPU ${app.cold.cpuS.toFixed(1)} / ${app.warm.cpuS.toFixed(2)} s); ` +
        `baseline = the naive client's process (its refresh of ${int(naive.cold.sample)} addresses twice, then an overview loading every UTXO row into JS; peak ${mb(naive.overview!.memory.peakRss).toFixed(0)} MB)`,
    });
    const sov = synthetic.overview;
    const synthPeak = sov.memory.peakRss;
    rows.push({
      name: `main-process RSS, ${int(synthetic.addresses)} addresses / ${int(synthetic.utxos)} UTXOs (synthetic, one writeSnapshot), overview loaded (goal ≤ 200 MB)`,
      unit: 'MB',
      ours: mb(sov.memory.rss),
      baseline: mb(synthNaive.memory.rss),
      lowerIsBetter: true,
      note: `after gc: ${verdict(mb(sov.memory.rss) <= 200)}; peak ${mb(synthPeak).toFixed(0)} MB incl. the write (${verdict(mb(synthPeak) <= 200)}); baseline = naive overview of the same file in a fresh process (peak ${mb(synthNaive.memory.peakRss).toFixed(0)} MB)`,
    });
    rows.push({
      name: `watch:overview, ${int(synthetic.addresses)} rows / ${int(synthetic.utxos)} UTXOs, to JSON (no goal)`,
      unit: 'ms',
      ours: sov.ms,
      baseline: synthNaive.ms,
      lowerIsBetter: true,
      note: `${(sov.jsonBytes / MB).toFixed(1)} MB reply; 10k/20k snapshot: ${ov.ms.toFixed(0)} ms; baseline = naive overview; write of the 100k snapshot ${synthetic.writeMs.toFixed(0)} ms`,
    });

    // --- the renderer in Chromium, on the 10k snapshot
    const { benchRender } = await import('./refresh-render');
    rows.push(...(await benchRender({ dataDir: dir('real'), rows: ov.rows, log })));
    log(`done; load average ${load()}`);
    return rows;
  } finally {
    await devnet.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// child entry point: `node --import tsx bench/refresh.ts <mode> <json>`

async function childMain(mode: string, argJson: string): Promise<void> {
  const arg = JSON.parse(argJson) as never;
  let result: unknown;
  switch (mode) {
    case 'devnet':
      await devnetChild(arg);
      return;
    case 'app':
      result = await appChild(arg);
      break;
    case 'synthetic':
      result = await syntheticChild(arg);
      break;
    case 'naive':
      result = await naiveChild(arg);
      break;
    case 'floor':
      result = await floorChild(arg);
      break;
    case 'incremental':
      result = await incrementalChild(arg);
      break;
    case 'naive-overview':
      result = await naiveOverview((arg as { dataDir: string }).dataDir);
      break;
    default:
      throw new Error(`unknown bench child mode ${mode}`);
  }
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  childMain(process.argv[2] ?? '', process.argv[3] ?? '{}').then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`bench child: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
