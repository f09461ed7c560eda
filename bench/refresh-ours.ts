/**
 * The refresh bench's measured processes of the app itself (children of bench/refresh.ts): cold and
 * warm refresh with the real clients and engine, the incremental refresh after single blocks, the
 * balances overview as the bridge sends it, and a synthetic 100k-UTXO snapshot.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bech32 } from '@scure/base';
import type { SnapshotPartRequest, SnapshotWriteRequest } from '../electron/main/refresh/snapshot-writer';
import { RPC_PASSWORD, RPC_USER, WALLET, cpuSince, memory, profileInput, type DevnetUrls, type MemoryReport, type OverviewResult } from './refresh-common';

export interface RefreshRun {
  ms: number;
  cpuS: number;
  timings: Record<string, number>;
  counts: Record<string, number>;
  spendCheck: string;
}

export interface AppChildResult {
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

export interface IncrementalBench {
  /** Incremental refresh after each block (ms). */
  incMs: number[];
  /** Full refresh after each block (ms). */
  fullMs: number[];
  /** Addresses the incremental refreshes touched, and their index lookups. */
  affected: number[];
  lookups: number[];
  modes: string[];
}

/** The app side: cold and warm refresh into `dataDir`, then (optionally) the app opened on it and the overview loaded. */
export async function appChild(arg: DevnetUrls & { dataDir: string; overview: boolean; plainGc?: boolean; importWorker?: string | null; parts?: boolean; releaseSteps?: boolean; noRelease?: boolean }): Promise<AppChildResult> {
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
export async function incrementalChild(arg: DevnetUrls & { dataDir: string }): Promise<IncrementalBench> {
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
export async function loadOverview(dataDir: string): Promise<OverviewResult> {
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

export interface SyntheticResult {
  addresses: number;
  utxos: number;
  writeMs: number;
  afterWrite: MemoryReport;
  overview: OverviewResult;
}

/** Writes a synthetic snapshot of `addresses` × `perAddress` UTXOs through the repository (one transaction), then loads the overview. */
export async function syntheticChild(arg: { dataDir: string; addresses: number; perAddress: number }): Promise<SyntheticResult> {
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
