/**
 * The refresh's getaddressinfo replies are asked and parsed where the snapshot is written — the
 * import worker, as the app refreshes (refresh/info-batches.ts, job snapshot-infos) — not on the main
 * thread (issue #27: the main process never stalls; its young generation no longer grows for them).
 *
 * What shows that this thread never sees one: the engine's RPC client here is a counting wrapper of
 * the real client (test/support/refresh-counting.ts), and it is asked no getaddressinfo at all, while
 * the snapshot holds every reply, the same as a refresh that asked them here. Cancel and failure as
 * before: the parts dropped, the batch under way aborted, the node's errors the same typed errors.
 *
 * Real parts: the devnet's node and index over loopback HTTP, a real SQLite file, the real import
 * worker thread (from source, through tsx). Nothing is mocked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../devnet/index';
import { RpcClient } from '../../electron/main/rpc/client';
import type { IndexClient } from '../../electron/main/blockindex/client';
import type { WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine, type RefreshEngineOptions, type RefreshResult } from '../../electron/main/refresh/engine';
import { infoCalls } from '../../electron/main/refresh/address-infos';
import { workerSessions } from '../../electron/main/refresh/worker-session';
import { snapshotPartSessions } from '../../electron/main/refresh/snapshot-writer';
import { InlineImportRunner, type ImportRunner, type WorkerImportRunner } from '../../electron/main/watch/import-runner';
import { silentLogger } from '../../electron/main/log';
import { CountingRpc } from '../support/refresh-counting';
import { startRefreshRig, syntheticAddress, workerJobs, type RefreshRig } from '../support/refresh-rig';

/** Watched by the user: synthetic regtest p2wpkh addresses nobody pays (the index answers no UTXOs). */
const USER_ADDRESSES = 1_600;
const address = (i: number): string => syntheticAddress(i, 0x3c);

let rig: RefreshRig;
let devnet: Devnet;
let store: WatchRepository;
let rpc: RpcClient;
let index: IndexClient;
let worker: WorkerImportRunner;

beforeAll(async () => {
  rig = await startRefreshRig({ name: 'refresh-info-worker', userAddresses: USER_ADDRESSES, tag: 0x3c });
  ({ devnet, store, rpc, index, worker } = rig);
});

afterAll(async () => {
  await rig?.close();
});

/** A profile on the devnet's node and index, watching the same user addresses as every other here. */
const profile = (name: string): string => rig.profile(name);

/** An engine as the app builds it (watch/service.ts) on `runner`, its node client counted; `handoff` is what the worker's client is built from. */
function appEngine(pid: string, runner: ImportRunner, counting: CountingRpc, extra: Partial<RefreshEngineOptions> = {}, handoff = () => rpc.handoff()): RefreshEngine {
  return new RefreshEngine({
    store,
    rpc: counting,
    index,
    profileId: pid,
    wallet: 'watch',
    log: silentLogger,
    releaseMemory: null,
    ...workerJobs(runner, handoff),
    ...extra,
  });
}

describe('getaddressinfo asked by the import worker (snapshot-infos)', () => {
  it('writes the same rows and replies as a refresh that asked them here, and this thread asks the node for none', async () => {
    const here = profile('asked here');
    const there = profile('asked by the worker');
    const countHere = new CountingRpc(rpc);
    const a = await new RefreshEngine({ store, rpc: countHere, index, profileId: here, wallet: 'watch', log: silentLogger, releaseMemory: null }).run();
    const countThere = new CountingRpc(rpc);
    const progress: number[] = [];
    const b = await appEngine(there, worker, countThere).run({ onProgress: (p) => p.phase === 'addressinfo' && progress.push(p.done) });

    // The baseline asked them here; the app's way asked none here, and stored every one all the same.
    expect(countHere.n('getaddressinfo')).toBe(a.counts.infosFetched + a.counts.infoErrors);
    expect(a.counts.infosFetched).toBeGreaterThan(USER_ADDRESSES);
    expect(countThere.n('getaddressinfo')).toBe(0);
    expect(countThere.n('listreceivedbyaddress')).toBe(0); // the received step too (refresh-received-worker.test.ts)
    expect(b.counts).toEqual(a.counts);
    expect(b.diff).toEqual(a.diff);
    // Progress from 0 to the total, as before.
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(b.counts.infosFetched + b.counts.infoErrors);

    const rows = (pid: string, id: number) => store.balances(pid, id).map(({ fetchedAt: _at, ...r }) => r); // the lookup's time differs
    expect(rows(there, b.snapshotId)).toEqual(rows(here, a.snapshotId));
    const infos = store.infoFetchedAt(there);
    expect([...infos.keys()].sort()).toEqual([...store.infoFetchedAt(here).keys()].sort());
    for (const addr of infos.keys()) expect(store.getInfo(there, addr)?.info).toEqual(store.getInfo(here, addr)?.info);
  });

  it('a cancel during the getaddressinfo step drops the parts and the worker-side client, and writes nothing', async () => {
    const pid = profile('cancelled');
    const inline = new InlineImportRunner(store); // the same jobs on this thread: their sessions can be counted here
    const parts = snapshotPartSessions();
    const clients = workerSessions();
    const controller = new AbortController();
    let seenDuring = -1;
    const engine = appEngine(pid, inline, new CountingRpc(rpc));
    const run = engine.run({
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'addressinfo' && p.done > 0 && !controller.signal.aborted) {
          seenDuring = workerSessions() - clients;
          controller.abort();
        }
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    expect(seenDuring).toBe(1); // the batches had a client of their own while they ran
    await new Promise((r) => setImmediate(r)); // the drop is sent without waiting
    expect(snapshotPartSessions()).toBe(parts);
    expect(workerSessions()).toBe(clients);
    expect(store.latestSnapshot(pid)).toBeNull();
    expect(store.lastAttempt(pid)).toBeNull(); // a cancel records no failure
    expect(store.infoFetchedAt(pid).size).toBe(0);
  });

  it('a reply the node refuses is counted and logged on this thread the same way as when asked here', async () => {
    const foreign = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'; // a mainnet address: the regtest node refuses it
    const warned = (): { log: typeof silentLogger; lines: string[] } => {
      const lines: string[] = [];
      return { lines, log: { ...silentLogger, warn: (m: string) => void lines.push(m) } };
    };
    const here = profile('refused here');
    const there = profile('refused by the worker');
    store.addAddresses(here, [foreign]);
    store.addAddresses(there, [foreign]);
    const h = warned();
    const a = await new RefreshEngine({ store, rpc, index, profileId: here, wallet: 'watch', log: h.log, releaseMemory: null }).run();
    const w = warned();
    const b = await appEngine(there, worker, new CountingRpc(rpc), { log: w.log }).run();
    expect(a.counts.infoErrors).toBe(1);
    expect(b.counts).toEqual(a.counts);
    const infoLines = (lines: string[]) => lines.filter((l) => l.startsWith('refresh: getaddressinfo '));
    expect(infoLines(h.lines)).toHaveLength(1);
    expect(infoLines(h.lines)[0]).toContain(foreign);
    expect(infoLines(w.lines)).toEqual(infoLines(h.lines));
  });

  it("the node's errors in the worker are the same typed errors, recorded at the same step, with no credential in them", async () => {
    const pid = profile('refused');
    const wrong = { user: devnet.auth.user, password: 'not-the-password-5f1c' };
    // What this thread's client says of the same batch with the same wrong password.
    const direct = new RpcClient({ url: devnet.rpcUrl, auth: wrong, wallet: 'watch' });
    let expected: unknown;
    try {
      await direct.batch(infoCalls([address(1)]));
    } catch (e) {
      expected = e;
    } finally {
      direct.close();
    }
    expect(expected).toMatchObject({ code: 'rpc.unauthorized' });
    const { code, message } = expected as { code: string; message: string };

    let result: RefreshResult | undefined;
    let error: unknown;
    try {
      // The received step asked here: in the worker it would make the session's client first, with the
      // wrong password too, and fail there (refresh-received-worker.test.ts); the batches' error is the one under test.
      result = await appEngine(pid, worker, new CountingRpc(rpc), { receivedJobs: undefined }, () => ({ ...rpc.handoff(), auth: wrong })).run();
    } catch (e) {
      error = e;
    }
    expect(result).toBeUndefined();
    expect(error).toMatchObject({ code, message });
    expect(JSON.stringify(error)).not.toContain(wrong.password);
    const failed = store.lastAttempt(pid);
    expect(failed).toMatchObject({ status: 'failed', failedStep: 'addressinfo', errorCode: code, errorMessage: message });
    expect(store.latestSnapshot(pid)).toBeNull();
  });
});
