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
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bech32 } from '@scure/base';
import type { SnapshotPartRequest, SnapshotWriteRequest } from '../electron/main/refresh/snapshot-writer';
import type { Row } from './table';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const RPC_USER = 'bench';
const RPC_PASSWORD = 'bench';
const WALLET = 'watch';
const SCENARIO = process.env.BENCH_REFRESH_SCENARIO ?? 'large:10000';
const MB = 1024 * 1024;
/** Index lookups in flight at once, tried by the floor measurement. */
const FLOOR_CONCURRENCY = [4, 16, 64];

// ---------------------------------------------------------------------------------------------
// helpers shared by the parent and the children

interface DevnetUrls {
  rpcUrl: string;
  indexUrl: string;
}

interface MemoryReport {
  /** process.memoryUsage().rss after a forced gc (bytes). */
  rss: number;
  /** Peak resident set size of the process so far (getrusage maxrss, bytes). */
  peakRss: number;
  heapUsed: number;
}

function memory(): MemoryReport {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, peakRss: process.resourceUsage().maxRSS * 1024, heapUsed: m.heapUsed };
}

/** CPU seconds (user + system) of this process since `from`. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
}

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

interface DevnetChild {
  ready: Promise<DevnetUrls & { buildMs: number; tipHeight: number }>;
  /** Sets the latency the devnet adds to every reply of both interfaces. */
  setLatency(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the devnet (startDevnet) in a child process, controlled over its stdin. */
function startDevnetChild(scenario: string): DevnetChild {
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...childScript, 'devnet', JSON.stringify({ scenario })], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  let exited = false;
  const exit = new Promise<void>((res) =>
    child.once('exit', () => {
      exited = true;
      res();
    }),
  );
  lines.on('line', (l) => waiting.shift()?.(l));
  const nextLine = (): Promise<string> =>
    new Promise((res, rej) => {
      waiting.push(res);
      void exit.then(() => rej(new Error('the devnet child exited')));
    });
  const ready = nextLine().then((l) => {
    if (!l.startsWith('READY ')) throw new Error(`devnet child: ${l}`);
    return { ...(JSON.parse(l.slice(6)) as DevnetUrls & { tipHeight: number }), buildMs: performance.now() - t0 };
  });
  ready.catch(() => {}); // awaited later; an early failure must not be an unhandled rejection meanwhile
  return {
    ready,
    async setLatency(ms) {
      const reply = nextLine();
      child.stdin!.write(`latency ${ms}\n`);
      if ((await reply) !== `LATENCY ${ms}`) throw new Error('devnet child did not confirm the latency');
    },
    async stop() {
      if (exited) return;
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    },
  };
}

const profileInput = (u: DevnetUrls) => ({
  name: 'Bench node',
  nodeUrl: u.rpcUrl,
  auth: 'password' as const,
  rpcUser: RPC_USER,
  cookiePath: '',
  wallet: WALLET,
  indexUrl: u.indexUrl,
});

// ---------------------------------------------------------------------------------------------
// children

/** The devnet, as `startDevnet` serves it; `latency N` on stdin sets the latency of both interfaces. */
async function devnetChild(arg: { scenario: string }): Promise<void> {
  const { startDevnet } = await import('../devnet/index');
  const d = await startDevnet({ scenario: arg.scenario, rpcUser: RPC_USER, rpcPassword: RPC_PASSWORD });
  process.stdout.write(`READY ${JSON.stringify({ rpcUrl: d.rpcUrl, indexUrl: d.indexUrl, tipHeight: d.node.chain.tipHeight() })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const m = /^latency (\d+)$/.exec(line.trim());
    if (m) {
      d.setFaults('rpc', { latencyMs: Number(m[1]) });
      d.setFaults('index', { latencyMs: Number(m[1]) });
      process.stdout.write(`LATENCY ${m[1]}\n`);
    }
  }
  await d.close(); // stdin closed: the bench is done with it
}

interface RefreshRun {
  ms: number;
  cpuS: number;
  timings: Record<string, number>;
  counts: Record<string, number>;
  spendCheck: string;
}

interface AppChildResult {
  /** The process at rest after its imports, before any work. */
  atStart: MemoryReport;
  cold: RefreshRun;
  warm: RefreshRun;
  utxos: number;
  addresses: number;
  afterCold: MemoryReport;
  afterWarm: MemoryReport;
  overview: OverviewResult | null;
  /** How long each of the engine's memory releases took (ms), in order. */
  releases: number[];
}

interface IncrementalBench {
  /** Incremental refresh after each block (ms). */
  incMs: number[];
  /** Full refresh after each block (ms). */
  fullMs: number[];
  /** Addresses the incremental refreshes touched, and their index lookups. */
  affected: number[];
  lookups: number[];
  modes: string[];
}

interface OverviewResult {
  ms: number;
  rows: number;
  jsonBytes: number;
  /** While the reply is still referenced. */
  memory: MemoryReport;
}

/** The app side: cold and warm refresh into `dataDir`, then (optionally) the app opened on it and the overview loaded. */
async function appChild(arg: DevnetUrls & { dataDir: string; overview: boolean; plainGc?: boolean; importWorker?: string | null; parts?: boolean; releaseSteps?: boolean; noRelease?: boolean }): Promise<AppChildResult> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const { WatchRepository } = await import('../electron/main/store/watch');
  const { RpcClient } = await import('../electron/main/rpc/client');
  const { IndexClient } = await import('../electron/main/blockindex/client');
  const { RefreshEngine } = await import('../electron/main/refresh/engine');
  const { WorkerImportRunner } = await import('../electron/main/watch/import-runner');
  const { silentLogger } = await import('../electron/main/log');
  await import('../electron/main/app'); // loaded now, so that atStart counts every module the process uses
  const atStart = memory();

  const db = openDatabase(join(arg.dataDir, 'spyglass.sqlite'));
  const profiles = new ProfileRepository(db);
  const profile = profiles.create(profileInput(arg), { passwordStorage: 'none' });
  profiles.setActiveId(profile.id);
  const store = new WatchRepository(db);
  const rpc = new RpcClient({ url: arg.rpcUrl, auth: { user: RPC_USER, password: RPC_PASSWORD }, wallet: WALLET });
  const index = new IndexClient({ url: arg.indexUrl });
  // plainGc: the engine's releases are a plain gc() (what electron/main/memory.ts ran before it asked
  // V8 for its last-resort collection), for the comparison in the memory row.
  const plainGc = arg.plainGc === true ? (globalThis as { gc?: () => void }).gc : undefined;
  // importWorker: the snapshot written by the import worker, its getaddressinfo lines sent ahead
  // batch by batch, as the app does (watch/service.ts); its thread is part of this process's RSS.
  const imports = arg.importWorker ? new WorkerImportRunner({ file: pathToFileURL(arg.importWorker) }, join(arg.dataDir, 'spyglass.sqlite'), silentLogger) : null;
  // The engine's memory releases, from its log: how long each held this thread (ms).
  const releases: number[] = [];
  const log = {
    ...silentLogger,
    info: (m: string) => {
      const r = /memory released after \d+ replies in (\d+) ms/.exec(m);
      if (r) releases.push(Number(r[1]));
    },
  };
  const engine = new RefreshEngine({
    store,
    rpc,
    index,
    profileId: profile.id,
    log,
    ...(plainGc ? { releaseMemory: () => plainGc() } : {}),
    ...(arg.noRelease ? { releaseMemory: null } : {}),
    ...(arg.releaseSteps !== undefined ? { releaseSteps: arg.releaseSteps } : {}),
    ...(imports
      ? {
          writer: (r: SnapshotWriteRequest) => imports.run('snapshot-write', r),
          ...(arg.parts !== false ? { writerPart: async (r: SnapshotPartRequest) => void (await imports.run('snapshot-part', r)) } : {}),
        }
      : {}),
  });

  const run = async (): Promise<RefreshRun> => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const r = await engine.run();
    return { ms: performance.now() - t0, cpuS: cpuSince(cpu), timings: r.timings, counts: r.counts, spendCheck: r.spendCheck };
  };
  const cold = await run();
  const afterCold = memory();
  const warm = await run();
  const afterWarm = memory();
  const snap = store.latestSnapshot(profile.id)!;
  rpc.close();
  index.close();
  closeDatabase(db);
  // The import worker stays up (idle, as in the app) until the overview's memory was read.
  const overview = arg.overview ? await loadOverview(arg.dataDir) : null;
  await imports?.close();
  return { atStart, cold, warm, utxos: snap.utxoCount ?? 0, addresses: snap.addressCount ?? 0, afterCold, afterWarm, overview, releases };
}

const INCREMENTAL_ROUNDS = Number(process.env.BENCH_INCREMENTAL_ROUNDS ?? 5);

/**
 * Rounds of: the devnet's miner pays one of the watched addresses and mines a block, then the
 * incremental refresh (electron/main/refresh/incremental.ts); then the same change refreshed by the
 * full engine (the baseline: what the app did before). Alternated, so that load drifts hit both.
 */
async function incrementalChild(arg: DevnetUrls & { dataDir: string }): Promise<IncrementalBench> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const { WatchRepository } = await import('../electron/main/store/watch');
  const { RpcClient } = await import('../electron/main/rpc/client');
  const { IndexClient } = await import('../electron/main/blockindex/client');
  const { RefreshEngine } = await import('../electron/main/refresh/engine');
  const { IncrementalRefresh } = await import('../electron/main/refresh/incremental');
  const db = openDatabase(join(arg.dataDir, 'spyglass.sqlite'));
  const profileId = new ProfileRepository(db).getActiveId()!;
  const store = new WatchRepository(db);
  const rpc = new RpcClient({ url: arg.rpcUrl, auth: { user: RPC_USER, password: RPC_PASSWORD }, wallet: WALLET });
  const index = new IndexClient({ url: arg.indexUrl });
  const engine = new RefreshEngine({ store, rpc, index, profileId });
  const miner = new RpcClient({ url: arg.rpcUrl, auth: { user: RPC_USER, password: RPC_PASSWORD }, wallet: 'miner' });
  const inc = new IncrementalRefresh({ engine, store, rpc, index, profileId });
  const watched = [...store.received(store.latestSnapshot(profileId)!.id).keys()];
  const out: IncrementalBench = { incMs: [], fullMs: [], affected: [], lookups: [], modes: [] };
  const block = async (i: number): Promise<void> => {
    await miner.call('sendtoaddress', [watched[(i * 7919) % watched.length]!, 0.01]);
    await miner.call('generatetoaddress', [1, await miner.call<string>('getnewaddress', [])]);
  };
  for (let i = 0; i < INCREMENTAL_ROUNDS; i++) {
    await block(2 * i);
    let t0 = performance.now();
    const r = await inc.run();
    out.incMs.push(performance.now() - t0);
    out.affected.push(r.affected.length);
    out.lookups.push(r.counts.utxoLookups);
    out.modes.push(r.mode === 'full' ? `full (${r.fallback})` : r.mode);
    await block(2 * i + 1);
    t0 = performance.now();
    await engine.run();
    out.fullMs.push(performance.now() - t0);
  }
  miner.close();
  rpc.close();
  index.close();
  closeDatabase(db);
  return out;
}

/** Opens the app on `dataDir` (not connected: the overview comes from the latest snapshot) and loads the overview as the bridge sends it. */
async function loadOverview(dataDir: string): Promise<OverviewResult> {
  const { createApp } = await import('../electron/main/app');
  const { silentLogger } = await import('../electron/main/log');
  const app = createApp({ dataDir, info: { version: 'bench', platform: process.platform, bridge: true }, secretBackend: null, log: silentLogger });
  try {
    const t0 = performance.now();
    const r = await app.dispatch('watch:overview', {});
    if (!r.ok) throw new Error(`watch:overview: ${r.error.code} ${r.error.message}`);
    const json = JSON.stringify(r); // what the bridge writes (Electron's IPC structured-clones the same object)
    const ms = performance.now() - t0;
    const mem = memory();
    return { ms, rows: (r.value as { balances: { address: unknown[] } }).balances.address.length, jsonBytes: json.length, memory: mem };
  } finally {
    await app.close();
  }
}

/** Deterministic regtest P2WPKH addresses. */
function syntheticAddress(i: number): string {
  const program = createHash('sha256').update(`bench-address-${i}`).digest().subarray(0, 20);
  return bech32.encode('bcrt', [0, ...bech32.toWords(program)]);
}

const txidOf = (i: number): string => createHash('sha256').update(`bench-tx-${i}`).digest('hex');

interface SyntheticResult {
  addresses: number;
  utxos: number;
  writeMs: number;
  afterWrite: MemoryReport;
  overview: OverviewResult;
}

/** Writes a synthetic snapshot of `addresses` × `perAddress` UTXOs through the repository (one transaction), then loads the overview. */
async function syntheticChild(arg: { dataDir: string; addresses: number; perAddress: number }): Promise<SyntheticResult> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const { WatchRepository } = await import('../electron/main/store/watch');
  type NewSnapshot = import('../electron/main/store/watch').NewSnapshot;

  const db = openDatabase(join(arg.dataDir, 'spyglass.sqlite'));
  const profiles = new ProfileRepository(db);
  const profile = profiles.create(profileInput({ rpcUrl: 'http://127.0.0.1:18443', indexUrl: 'http://127.0.0.1:8080' }), { passwordStorage: 'none' });
  profiles.setActiveId(profile.id);
  const store = new WatchRepository(db);
  const tip = 20_000;
  const tipTip = { height: tip, hash: txidOf(-1) };
  const snapshot: NewSnapshot = { takenAt: new Date().toISOString(), node: tipTip, index: tipTip, previousId: null, received: [], addresses: [] };
  let k = 0;
  for (let i = 0; i < arg.addresses; i++) {
    const address = syntheticAddress(i);
    const utxos = Array.from({ length: arg.perAddress }, () => {
      const n = k++;
      return { txid: txidOf(n), vout: n % 7, amountSats: BigInt(10_000 + ((n * 7919) % 180_000)), height: 1 + (n % tip) };
    });
    snapshot.received.push({ address, amountSats: utxos.reduce((a, u) => a + u.amountSats, 0n), confirmations: 6, txids: utxos.map((u) => u.txid), nodeLabel: `addr ${i}`, nodeUnspent: null });
    snapshot.addresses.push({ address, source: 'node', state: 'fetched', utxos });
  }
  const t0 = performance.now();
  const id = store.writeSnapshot(profile.id, snapshot);
  const writeMs = performance.now() - t0;
  snapshot.addresses = [];
  snapshot.received = [];
  const snap = store.getSnapshot(id)!;
  closeDatabase(db);
  const afterWrite = memory();
  const overview = await loadOverview(arg.dataDir);
  return { addresses: snap.addressCount ?? 0, utxos: snap.utxoCount ?? 0, writeMs, afterWrite, overview };
}

/**
 * The naive overview: every UTXO and received row of the latest snapshot loaded as JS objects,
 * grouped per address in JS, serialized.
 */
async function naiveOverview(dataDir: string): Promise<OverviewResult> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dataDir, 'spyglass.sqlite'), { readonly: true });
  try {
    const t0 = performance.now();
    const snap = db.prepare("SELECT * FROM snapshots WHERE status <> 'failed' ORDER BY id DESC LIMIT 1").get() as { id: number };
    const utxos = db.prepare('SELECT * FROM snapshot_utxos WHERE snapshot_id = ?').all(snap.id) as Array<{ address: string; amount_sats: number; height: number }>;
    const received = db.prepare('SELECT * FROM snapshot_received WHERE snapshot_id = ?').all(snap.id) as Array<{ address: string; amount_sats: number; txids: string; node_label: string }>;
    const labels = new Map((db.prepare("SELECT * FROM labels WHERE type = 'addr'").all() as Array<{ ref: string; label: string }>).map((l) => [l.ref, l.label]));
    const byAddress = new Map<string, { address: string; label: string | null; nodeLabel: string; received: string; balance: number; utxos: typeof utxos; txids: string[] }>();
    for (const r of received) {
      byAddress.set(r.address, { address: r.address, label: labels.get(r.address) ?? null, nodeLabel: r.node_label, received: String(r.amount_sats), balance: 0, utxos: [], txids: JSON.parse(r.txids) as string[] });
    }
    for (const u of utxos) {
      const row = byAddress.get(u.address);
      if (!row) continue;
      row.utxos.push(u);
      row.balance += u.amount_sats;
    }
    const rows = [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
    const json = JSON.stringify({ ok: true, value: { rows } });
    const ms = performance.now() - t0;
    return { ms, rows: rows.length, jsonBytes: json.length, memory: memory() };
  } finally {
    db.close();
  }
}

interface NaiveRun {
  /** Addresses the wallet has, and how many of them the naive client went through. */
  total: number;
  sample: number;
  listMs: number;
  loopMs: number;
  /** listMs + loopMs × total / sample. */
  extrapolatedMs: number;
}

interface NaiveChildResult {
  cold: NaiveRun;
  warm: NaiveRun;
  afterRefresh: MemoryReport;
  overview: OverviewResult | null;
}

/** A plain node:http request (the default agent, nothing tuned); resolves with the status and the body text. */
function plainRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; text: string }> {
  return new Promise((res, rej) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (text += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, text }));
      r.on('error', rej);
    });
    req.on('error', rej);
    req.end(init.body);
  });
}

/** One naive refresh: listreceivedbyaddress, then per address getaddressinfo + address/utxo, sequential, one INSERT per row. */
async function naiveRefresh(u: DevnetUrls, sample: number, profileId: string, db: import('better-sqlite3').Database): Promise<NaiveRun> {
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await plainRequest(`${u.rpcUrl}/wallet/${WALLET}`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 'naive', method, params }),
    });
    const j = JSON.parse(res.text) as { result: unknown; error: { message: string } | null };
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result;
  };
  const now = new Date().toISOString();
  const t0 = performance.now();
  const list = (await rpc('listreceivedbyaddress', [0, true, true])) as Array<{ address: string; amount: number; confirmations: number; label: string; txids: string[] }>;
  const listMs = performance.now() - t0;

  const t1 = performance.now();
  const snapshotId = Number(db.prepare("INSERT INTO snapshots (profile_id, taken_at, status) VALUES (?, ?, 'ok')").run(profileId, now).lastInsertRowid);
  const insAddress = db.prepare("INSERT OR REPLACE INTO addresses (profile_id, address, source, hidden, added_at) VALUES (?, ?, 'node', 0, ?)");
  const insInfo = db.prepare('INSERT OR REPLACE INTO address_info (profile_id, address, info_json, fetched_at) VALUES (?, ?, ?, ?)');
  const insReceived = db.prepare('INSERT INTO snapshot_received (snapshot_id, address, amount_sats, confirmations, txids, node_label) VALUES (?, ?, ?, ?, ?, ?)');
  const insFetched = db.prepare("INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at) VALUES (?, ?, 'node', 'fetched', ?)");
  const insUtxo = db.prepare('INSERT INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, ?, ?, ?)');
  const todo = list.slice(0, sample);
  for (const r of todo) {
    const info = await rpc('getaddressinfo', [r.address]);
    const res = await plainRequest(`${u.indexUrl}/v1/blockchain/address/utxo/${r.address}`);
    if (res.status !== 200) throw new Error(`index address/utxo ${r.address}: HTTP ${res.status}`);
    const { data } = JSON.parse(res.text) as { data: Array<{ txId: string; vOut: number; block: number; amount: number }> };
    insAddress.run(profileId, r.address, now);
    insInfo.run(profileId, r.address, JSON.stringify(info), now);
    insReceived.run(snapshotId, r.address, Math.round(r.amount * 1e8), r.confirmations, JSON.stringify(r.txids), r.label);
    insFetched.run(snapshotId, r.address, now);
    for (const o of data) insUtxo.run(snapshotId, r.address, o.txId, o.vOut, o.amount, o.block);
  }
  const loopMs = performance.now() - t1;
  return { total: list.length, sample: todo.length, listMs, loopMs, extrapolatedMs: listMs + (loopMs * list.length) / Math.max(1, todo.length) };
}

/** The naive client's process: cold and warm naive refresh on a sample, then (optionally) the naive overview of `overviewDir`. */
async function naiveChild(arg: DevnetUrls & { dataDir: string; sample: number; overviewDir: string | null }): Promise<NaiveChildResult> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const db = openDatabase(join(arg.dataDir, 'spyglass.sqlite'));
  const profile = new ProfileRepository(db).create(profileInput(arg), { passwordStorage: 'none' });
  const cold = await naiveRefresh(arg, arg.sample, profile.id, db);
  const warm = await naiveRefresh(arg, arg.sample, profile.id, db);
  closeDatabase(db);
  const afterRefresh = memory();
  const overview = arg.overviewDir === null ? null : await naiveOverview(arg.overviewDir);
  return { cold, warm, afterRefresh, overview };
}

interface FloorResult {
  addresses: number;
  listMs: number;
  /** getaddressinfo for every address in one JSON-RPC batch, the reply read and not parsed. */
  infoMs: number;
  /** Index address/utxo for every address at each concurrency, replies read and not parsed. */
  utxoMs: Record<number, number>;
  /** Both at once (the batch beside the lookups at the best concurrency). */
  overlappedMs: number;
  /** The floor: list + the better of (info, then the lookups at the best concurrency) and overlapped. */
  floorMs: number;
}

/**
 * The floor of a cold refresh against this devnet: only the requests a cold refresh must make
 * (listreceivedbyaddress, getaddressinfo per address, one index lookup per address, as the bitaps API
 * has no batch lookup), sent as fast as the server takes them, with every reply read and thrown away:
 * no parsing, no SQLite, no snapshot. No client that makes those requests can be faster; the ratio
 * naive / floor is the most any client can be faster than the naive one here.
 */
async function floorChild(arg: DevnetUrls & { concurrency: number[] }): Promise<FloorResult> {
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  const drain = (url: string, agent: Agent, init: { method?: string; body?: string } = {}): Promise<number> =>
    new Promise((res, rej) => {
      const headers = init.body === undefined ? {} : { Authorization: auth, 'Content-Type': 'application/json' };
      const req = httpRequest(url, { method: init.method ?? 'GET', headers, agent }, (r) => {
        let bytes = 0;
        r.on('data', (d: Buffer) => (bytes += d.length));
        r.on('end', () => (r.statusCode === 200 ? res(bytes) : rej(new Error(`${url}: HTTP ${r.statusCode}`))));
        r.on('error', rej);
      });
      req.on('error', rej);
      req.end(init.body);
    });
  const rpcUrl = `${arg.rpcUrl}/wallet/${WALLET}`;
  const rpcAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  let t0 = performance.now();
  const listText = await plainRequest(rpcUrl, {
    method: 'POST',
    headers: { Authorization: auth },
    body: JSON.stringify({ jsonrpc: '1.0', id: 'floor', method: 'listreceivedbyaddress', params: [0, true, true] }),
  });
  const listMs = performance.now() - t0;
  const addresses = (JSON.parse(listText.text) as { result: Array<{ address: string }> }).result.map((r) => r.address); // not timed
  const batchBody = JSON.stringify(addresses.map((a, i) => ({ jsonrpc: '1.0', id: i, method: 'getaddressinfo', params: [a] })));
  const info = (): Promise<number> => drain(rpcUrl, rpcAgent, { method: 'POST', body: batchBody });
  const lookups = async (concurrency: number): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < addresses.length) await drain(`${arg.indexUrl}/v1/blockchain/address/utxo/${addresses[next++]!}`, agent);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    agent.destroy();
  };
  t0 = performance.now();
  await info();
  const infoMs = performance.now() - t0;
  const utxoMs: Record<number, number> = {};
  for (const c of arg.concurrency) {
    t0 = performance.now();
    await lookups(c);
    utxoMs[c] = performance.now() - t0;
  }
  const best = arg.concurrency.reduce((a, c) => (utxoMs[c]! < utxoMs[a]! ? c : a));
  t0 = performance.now();
  await Promise.all([info(), lookups(best)]);
  const overlappedMs = performance.now() - t0;
  rpcAgent.destroy();
  return { addresses: addresses.length, listMs, infoMs, utxoMs, overlappedMs, floorMs: listMs + Math.min(infoMs + utxoMs[best]!, overlappedMs) };
}

/** How long the node itself takes to answer the two wallet-wide calls of a refresh (to the last byte). */
async function nodeReplyTimes(u: DevnetUrls): Promise<{ listMs: number; unspentMs: number; unspentBytes: number }> {
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  const time = async (method: string, params: unknown[]): Promise<{ ms: number; bytes: number }> => {
    const t0 = performance.now();
    const res = await plainRequest(`${u.rpcUrl}/wallet/${WALLET}`, { method: 'POST', headers: { Authorization: auth }, body: JSON.stringify({ jsonrpc: '1.0', id: 't', method, params }) });
    return { ms: performance.now() - t0, bytes: Buffer.byteLength(res.text) };
  };
  const list = await time('listreceivedbyaddress', [0, true, true]);
  const unspent = await time('listunspent', [1]);
  return { listMs: list.ms, unspentMs: unspent.ms, unspentBytes: unspent.bytes };
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
  const devnet = startDevnetChild(SCENARIO);
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
