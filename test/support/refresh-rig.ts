/**
 * The set-up of the refresh tests that run the real import worker (refresh-yield, refresh-info-worker):
 * the devnet's node and index over loopback HTTP, a real SQLite file, the RPC and index clients, the
 * import worker thread from source, and profiles watching the same synthetic user addresses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from '@scure/base';
import { startDevnet, type Devnet } from '../../devnet/index';
import { RpcClient, type RpcHandoff } from '../../electron/main/rpc/client';
import type { RefreshEngineOptions } from '../../electron/main/refresh/engine';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { sourceImportWorkerScript, WorkerImportRunner, type ImportRunner } from '../../electron/main/watch/import-runner';
import { silentLogger } from '../../electron/main/log';

/** A synthetic regtest p2wpkh address nobody pays (the index answers no UTXOs); `tag` keeps suites apart. */
export function syntheticAddress(i: number, tag: number): string {
  const program = new Uint8Array(20);
  new DataView(program.buffer).setUint32(0, i);
  program[19] = tag;
  return bech32.encode('bcrt', [0, ...bech32.toWords(program)]);
}

export interface RefreshRig {
  devnet: Devnet;
  dbFile: string;
  db: Database;
  store: WatchRepository;
  rpc: RpcClient;
  index: IndexClient;
  worker: WorkerImportRunner;
  /** A profile on the devnet's node and index watching the rig's user addresses. */
  profile(name: string): string;
  close(): Promise<void>;
}

export async function startRefreshRig(opts: { name: string; userAddresses: number; tag: number }): Promise<RefreshRig> {
  const devnet = await startDevnet({ scenario: 'demo' });
  const dir = mkdtempSync(join(tmpdir(), `spyglass-${opts.name}-`));
  const dbFile = join(dir, 'spyglass.sqlite');
  const db = openDatabase(dbFile);
  const store = new WatchRepository(db);
  const rpc = new RpcClient({ url: devnet.rpcUrl, auth: devnet.auth, wallet: 'watch' });
  const index = new IndexClient({ url: devnet.indexUrl, baseDelayMs: 5 });
  const worker = new WorkerImportRunner(sourceImportWorkerScript(), dbFile, silentLogger);
  const addresses = Array.from({ length: opts.userAddresses }, (_, i) => syntheticAddress(i, opts.tag));
  return {
    devnet,
    dbFile,
    db,
    store,
    rpc,
    index,
    worker,
    profile(name) {
      const pid = new ProfileRepository(db).create(
        { name, nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: devnet.auth.user, cookiePath: '', wallet: 'watch', indexUrl: devnet.indexUrl },
        { passwordStorage: 'session' },
      ).id;
      store.addAddresses(pid, addresses);
      return pid;
    },
    async close() {
      await worker.close();
      rpc.close();
      index.close();
      await devnet.close();
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The import-worker wiring of a refresh engine as the app builds it (watch/service.ts) on `runner`: the
 * snapshot written there, and the received step and the getaddressinfo batches asked there with a node
 * client built from `handoff`.
 */
export function workerJobs(runner: ImportRunner, handoff: () => RpcHandoff): Pick<RefreshEngineOptions, 'writer' | 'writerPart' | 'infoBatches' | 'receivedJobs'> {
  return {
    writer: (r) => runner.run('snapshot-write', r),
    writerPart: async (r) => {
      await runner.run('snapshot-part', r);
    },
    infoBatches: (r) => runner.run('snapshot-infos', { ...r, rpc: handoff() }),
    receivedJobs: (r) => runner.run('snapshot-received', { ...r, rpc: handoff() }),
  };
}
