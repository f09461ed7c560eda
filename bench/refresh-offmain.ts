/**
 * The refresh's replies off the main thread (issue 27): the main process's memory and its worst ping
 * while the engine refreshes `large:10000` (BENCH_REFRESH_SCENARIO) cold, then warm, as the app builds
 * the engine (watch/service.ts: the snapshot written by the import worker, its getaddressinfo parts
 * sent ahead), in variants run one after the other against one devnet child:
 *
 * - `parts`: the getaddressinfo replies parsed on main and sent to the worker batch by batch (what
 *   ships before the change), the engine's memory releases as they are; `parts, no release`: the same
 *   with no memory release on main;
 * - `worker`: the batches asked and parsed by the import worker (infoBatches, refresh/info-batches.ts),
 *   and so are the received step's listreceivedbyaddress and listunspent (receivedJobs,
 *   refresh/received-job.ts), and the index lookups (lookupJobs, refresh/lookup-job.ts, on main's
 *   index budget), the releases as they are (what the app ships);
 * - `worker, no release`: the same with no memory release on main (releaseMemory null);
 * - `worker, release at the end`: one release after the refresh (releaseSteps false).
 *
 * Each variant is a fresh Node process (`--expose-gc`; this file bundled with esbuild, as
 * bench/refresh.ts does, so no TypeScript loader sits in it), its import worker bundled beside it.
 * Measured in it: the worst lateness of a 10 ms timer during each refresh (what a ping waited), RSS
 * after a forced gc after each refresh, the getrusage peak, and the releases the engine logged.
 *
 * Run: npx tsx bench/refresh-offmain.ts   (BENCH_OFFMAIN_VARIANTS=parts,worker,… to pick; ROUNDS=n;
 * BENCH_OFFMAIN_LATE=1 lists the pings later than 150 ms with the engine's step, and V8's young generation:
 * its largest size and the step it grew to it in, and its size after the gc; BENCH_OFFMAIN_NODE_FLAGS
 * adds Node flags to the measured process, e.g. --trace-gc)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { getHeapSpaceStatistics } from 'node:v8';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ReceivedOp } from '../electron/main/refresh/received-job';
import type { LookupJobRequest } from '../electron/main/refresh/lookup-job';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SCENARIO = process.env.BENCH_REFRESH_SCENARIO ?? 'large:10000';
const USER = 'bench';
const PASSWORD = 'bench';
const MB = 1024 * 1024;
const PING_MS = 10;

type Variant = 'parts' | 'parts-norelease' | 'worker' | 'worker-norelease' | 'worker-endrelease';
const VARIANTS: Variant[] = ['parts', 'parts-norelease', 'worker', 'worker-norelease', 'worker-endrelease'];

interface Urls {
  rpcUrl: string;
  indexUrl: string;
}

interface RunReport {
  ms: number;
  cpuS: number;
  worstPingMs: number;
  rssAfterGc: number;
  /** V8's young generation (new space, committed) after that gc, and its largest size during the run with the step it grew in. */
  youngAfterGc: number;
  youngPeak: string;
  /** Pings later than 150 ms: how late, and the step the engine was in (its last progress event). */
  late: string[];
}

interface ChildReport {
  variant: Variant;
  cold: RunReport;
  warm: RunReport;
  peakRss: number;
  releases: number[];
  infos: number;
}

function youngGen(): number {
  return getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0;
}

function rssAfterGc(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

/** The measured process: one variant, cold + warm refresh. */
async function appChild(arg: Urls & { variant: Variant; dataDir: string; workerFile: string }): Promise<ChildReport> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const { WatchRepository } = await import('../electron/main/store/watch');
  const { RpcClient } = await import('../electron/main/rpc/client');
  const { IndexClient } = await import('../electron/main/blockindex/client');
  const { RefreshEngine } = await import('../electron/main/refresh/engine');
  const { WorkerImportRunner } = await import('../electron/main/watch/import-runner');
  const { silentLogger } = await import('../electron/main/log');
  await import('../electron/main/app'); // every module the app's process loads

  const dbFile = join(arg.dataDir, 'spyglass.sqlite');
  const db = openDatabase(dbFile);
  const profiles = new ProfileRepository(db);
  const profile = profiles.create({ name: 'Bench', nodeUrl: arg.rpcUrl, auth: 'password', rpcUser: USER, cookiePath: '', wallet: 'watch', indexUrl: arg.indexUrl }, { passwordStorage: 'none' });
  const store = new WatchRepository(db);
  const rpc = new RpcClient({ url: arg.rpcUrl, auth: { user: USER, password: PASSWORD }, wallet: 'watch' });
  const index = new IndexClient({ url: arg.indexUrl });
  const imports = new WorkerImportRunner({ file: pathToFileURL(arg.workerFile) }, dbFile, silentLogger);
  const releases: number[] = [];
  const log = {
    ...silentLogger,
    info: (m: string) => {
      const r = /memory released after \d+ replies in (\d+) ms/.exec(m);
      if (r) releases.push(Number(r[1]));
    },
  };
  const worker = arg.variant.startsWith('worker');
  const engine = new RefreshEngine({
    store,
    rpc,
    index,
    profileId: profile.id,
    wallet: 'watch',
    log,
    writer: (r) => imports.run('snapshot-write', r),
    writerPart: async (r) => void (await imports.run('snapshot-part', r)),
    ...(worker
      ? {
          infoBatches: (r: { session: string; addresses: string[] }) => imports.run('snapshot-infos', { ...r, rpc: rpc.handoff() }),
          receivedJobs: (r: ReceivedOp & { session: string }) => imports.run('snapshot-received', { ...r, rpc: rpc.handoff() }),
          lookupJobs: { index, run: (r: LookupJobRequest) => imports.run('snapshot-lookups', r) },
        }
      : {}),
    ...(arg.variant.endsWith('-norelease') ? { releaseMemory: null } : {}),
    ...(arg.variant === 'worker-endrelease' ? { releaseSteps: false } : {}),
  });
  let infos = 0;
  const run = async (): Promise<RunReport> => {
    let worst = 0;
    let phase = 'start';
    const late: string[] = [];
    let young = { size: youngGen(), at: 'start' };
    let due = performance.now() + PING_MS;
    const timer = setInterval(() => {
      const now = performance.now();
      if (now - due > 150) late.push(`${Math.round(now - due)}@${phase}@t=${Math.round(now)}`);
      worst = Math.max(worst, now - due);
      due = now + PING_MS;
      const y = youngGen();
      if (y > young.size) young = { size: y, at: phase.split(':')[0]! };
    }, PING_MS);
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    try {
      const r = await engine.run({ onProgress: (p) => (phase = `${p.phase}:${p.done}/${p.total}`) });
      infos += r.counts.infosFetched;
    } finally {
      clearInterval(timer);
    }
    const ms = performance.now() - t0;
    worst = Math.max(worst, performance.now() - due);
    const c = process.cpuUsage(cpu);
    const rss = rssAfterGc();
    return { ms, cpuS: (c.user + c.system) / 1e6, worstPingMs: worst, rssAfterGc: rss, youngAfterGc: youngGen(), youngPeak: `${(young.size / MB).toFixed(0)} MB @${young.at}`, late };
  };
  const cold = await run();
  const warm = await run();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  rpc.close();
  index.close();
  await imports.close();
  closeDatabase(db);
  return { variant: arg.variant, cold, warm, peakRss, releases, infos };
}

async function devnetChild(arg: { scenario: string }): Promise<void> {
  const { startDevnet } = await import('../devnet/index');
  const d = await startDevnet({ scenario: arg.scenario, rpcUser: USER, rpcPassword: PASSWORD });
  process.stdout.write(`READY ${JSON.stringify({ rpcUrl: d.rpcUrl, indexUrl: d.indexUrl })}\n`);
  for await (const _ of createInterface({ input: process.stdin })) {
    // stdin open: keep serving
  }
  await d.close();
}

// ---------------------------------------------------------------------------------------------
// parent

async function bundle(dir: string): Promise<{ child: string; worker: string }> {
  const { build } = await import('esbuild');
  const req = createRequire(join(ROOT, 'package.json'));
  const common = {
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: 'node20',
    logLevel: 'error' as const,
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    plugins: [{ name: 'bench-externals', setup: (b: import('esbuild').PluginBuild) => void b.onResolve({ filter: /^(better-sqlite3|keytar)$/ }, (a) => ({ path: req.resolve(a.path), external: true })) }],
  };
  const worker = join(dir, 'import-worker.mjs');
  const child = join(dir, 'child.mjs');
  await build({ ...common, entryPoints: [join(ROOT, 'electron/main/watch/import-worker.ts')], outfile: worker });
  copyFileSync(join(dirname(req.resolve('tiny-secp256k1')), '..', 'secp256k1.wasm'), join(dir, 'secp256k1.wasm'));
  await build({ ...common, entryPoints: [SELF], outfile: child });
  return { child, worker };
}

function inChild<T>(script: string, mode: string, arg: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const flags = mode === 'app' ? (process.env.BENCH_OFFMAIN_NODE_FLAGS?.split(' ').filter(Boolean) ?? []) : [];
    const c = spawn(process.execPath, ['--expose-gc', ...flags, script, mode, JSON.stringify(arg)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (d: string) => (out += d));
    c.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (flags.length > 0) process.stderr.write(out.split('\n').filter((l) => !l.startsWith('RESULT ')).join('\n'));
      if (code !== 0 || line === undefined) reject(new Error(`child ${mode} ended with ${code}: ${out.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(7)) as T);
    });
  });
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-bench-offmain-'));
  const { child, worker } = await bundle(tmp);
  const devnet: ChildProcess = spawn(process.execPath, [child, 'devnet', JSON.stringify({ scenario: SCENARIO })], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const first = await new Promise<string>((resolve) => createInterface({ input: devnet.stdout! }).once('line', resolve));
    if (!first.startsWith('READY ')) throw new Error(`devnet: ${first}`);
    const urls = JSON.parse(first.slice(6)) as Urls;
    const picked = (process.env.BENCH_OFFMAIN_VARIANTS?.split(',') as Variant[] | undefined) ?? VARIANTS;
    const rounds = Number(process.env.ROUNDS ?? 1);
    console.log(`scenario ${SCENARIO}; load average at start ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log('| variant | load (1 min) | worst ping cold / warm (ms) | after gc cold / warm (MB) | peak (MB) | cold refresh s (CPU s) | releases (ms) |');
    console.log('|---|---|---|---|---:|---|---|');
    for (let round = 0; round < rounds; round++) {
      for (const variant of picked) {
        const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-bench-offmain-data-'));
        try {
          const load = loadavg()[0]!.toFixed(1);
          const r = await inChild<ChildReport>(child, 'app', { ...urls, variant, dataDir, workerFile: worker });
          const f = (x: number): string => x.toFixed(0);
          console.log(
            `| ${variant} | ${load} | ${f(r.cold.worstPingMs)} / ${f(r.warm.worstPingMs)} | ${f(r.cold.rssAfterGc / MB)} / ${f(r.warm.rssAfterGc / MB)} | ${f(r.peakRss / MB)} | ` +
              `${(r.cold.ms / 1000).toFixed(1)} (${r.cold.cpuS.toFixed(1)}) | ${r.releases.join(', ') || '—'} |`,
          );
          if (process.env.BENCH_OFFMAIN_LATE) {
            console.error(`  ${variant} late pings, cold: ${r.cold.late.join(' ')}; warm: ${r.warm.late.join(' ')}`);
            const y = (x: RunReport): string => `${x.youngPeak}, ${f(x.youngAfterGc / MB)} MB after gc`;
            console.error(`  ${variant} young generation, cold: ${y(r.cold)}; warm: ${y(r.warm)}`);
          }
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    devnet.stdin!.end();
    rmSync(tmp, { recursive: true, force: true });
  }
}

const [mode, argText] = process.argv.slice(2);
if (mode === 'app') {
  void appChild(JSON.parse(argText!) as Parameters<typeof appChild>[0]).then(
    (r) => {
      process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
} else if (mode === 'devnet') {
  void devnetChild(JSON.parse(argText!) as { scenario: string });
} else if (process.argv[1] === SELF) {
  void main();
}
