/**
 * The refresh's received step — `listreceivedbyaddress` and the wallet-wide `listunspent` — asked and
 * parsed in the import worker, as the app refreshes (refresh/received-job.ts, job snapshot-received),
 * not on the main thread (issue #27: those two replies, 2.6 + 11.9 MB for 10,000 addresses, were the
 * worst ping of a cold refresh).
 *
 * What shows that this thread parses neither: the engine's RPC client here is a counting wrapper of
 * the real client (test/support/refresh-counting.ts), and it is asked neither method, while the
 * snapshot holds the same node rows (digests, pending coins and change rows included) and the same
 * wallet state as a refresh that asked them here. The wallet-state check (getwalletinfo before and
 * after) is still this thread's. Cancel: the session dropped at once, the call under way aborted, no
 * snapshot, no failure row. A node error: the same AppError as this thread's client gives, recorded at
 * the received step, with no credential in it.
 *
 * Real parts: the devnet's node and index over loopback HTTP, a real SQLite file, the real import
 * worker thread (from source, through tsx). Nothing is mocked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../devnet/index';
import { RpcClient, type RpcHandoff } from '../../electron/main/rpc/client';
import type { IndexClient } from '../../electron/main/blockindex/client';
import type { WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine, LIST_RECEIVED_PARAMS, type RefreshEngineOptions } from '../../electron/main/refresh/engine';
import type { ReceivedOp } from '../../electron/main/refresh/received-job';
import { workerSessions } from '../../electron/main/refresh/worker-session';
import { snapshotPartSessions } from '../../electron/main/refresh/snapshot-writer';
import { InlineImportRunner, type ImportRunner } from '../../electron/main/watch/import-runner';
import { silentLogger } from '../../electron/main/log';
import { CountingRpc } from '../support/refresh-counting';
import { startRefreshRig, workerJobs, type RefreshRig } from '../support/refresh-rig';

let rig: RefreshRig;
let devnet: Devnet;
let store: WatchRepository;
let rpc: RpcClient;
let index: IndexClient;

beforeAll(async () => {
  rig = await startRefreshRig({ name: 'refresh-received-worker', userAddresses: 20, tag: 0x3d });
  ({ devnet, store, rpc, index } = rig);
  // The hot wallet (the watched addresses' keys) spends, unmined: the watch wallet then holds
  // unconfirmed change at a change address listreceivedbyaddress does not list (a change row, a pending coin).
  const to = await rpc.call<string>('getnewaddress', [], { wallet: 'other' });
  await rpc.call('sendtoaddress', [to, 1.5], { wallet: 'hot' });
});

afterAll(async () => {
  await rig?.close();
});

type Job = (r: ReceivedOp & { session: string }) => ReturnType<NonNullable<RefreshEngineOptions['receivedJobs']>>;

/** An engine as the app builds it (watch/service.ts) on `runner`, its node client counted. */
function appEngine(pid: string, runner: ImportRunner, counting: CountingRpc, o: { handoff?: () => RpcHandoff; wrap?: (job: Job) => Job; page?: number } = {}): RefreshEngine {
  const handoff = o.handoff ?? (() => rpc.handoff());
  const job: Job = (r) => runner.run('snapshot-received', { ...r, rpc: handoff() });
  return new RefreshEngine({
    store,
    rpc: counting,
    index,
    profileId: pid,
    wallet: 'watch',
    log: silentLogger,
    releaseMemory: null,
    ...workerJobs(runner, handoff),
    receivedJobs: o.wrap ? o.wrap(job) : job,
    ...(o.page !== undefined ? { receivedPage: o.page } : {}),
  });
}

const nodeRows = (id: number) => [...store.received(id).values()].sort((x, y) => (x.address < y.address ? -1 : 1));

describe('the received step asked by the import worker (snapshot-received)', () => {
  it('writes the same node rows and wallet state as a refresh that asked here, and this thread asks neither listreceivedbyaddress nor listunspent', async () => {
    const here = rig.profile('asked here');
    const there = rig.profile('asked by the worker');
    const countHere = new CountingRpc(rpc);
    const engineHere = new RefreshEngine({ store, rpc: countHere, index, profileId: here, wallet: 'watch', log: silentLogger, releaseMemory: null });
    const a = await engineHere.run();
    const countThere = new CountingRpc(rpc);
    // Pages of 7 records (the app reads 1,000 a job): the demo wallet's ~50 rows come back in several.
    const pages: string[] = [];
    const engineThere = appEngine(there, rig.worker, countThere, {
      page: 7,
      wrap: (job) => (r) => {
        if (r.op === 'page') pages.push(`${r.what}:${r.from}+${r.size}`);
        return job(r);
      },
    });
    const b = await engineThere.run();

    expect(countHere.n('listreceivedbyaddress')).toBe(1);
    expect(countHere.n('listunspent')).toBe(1);
    expect(countThere.n('listreceivedbyaddress')).toBe(0);
    expect(countThere.n('listunspent')).toBe(0);
    expect(countThere.n('getwalletinfo')).toBe(2); // the wallet-state check stays here, before and after
    expect(b.spendCheck).toBe('listunspent');
    expect(b.counts).toEqual(a.counts);
    expect(b.diff).toEqual(a.diff);

    const rows = nodeRows(b.snapshotId);
    expect(rows).toEqual(nodeRows(a.snapshotId));
    // The change rows came back too (listreceivedbyaddress does not list them), with their pending coins.
    const listed = await rpc.call<unknown[]>('listreceivedbyaddress', LIST_RECEIVED_PARAMS);
    expect(rows.length).toBeGreaterThan(listed.length);
    expect(rows.some((r) => (r.nodeUnspent?.pending?.length ?? 0) > 0)).toBe(true);
    expect(rows.every((r) => r.nodeUnspent !== null)).toBe(true);
    // Every record read once, its digest once, in pages: the listed ones, their digests, then the change rows.
    const listedPages = Math.ceil(listed.length / 7);
    const changePages = Math.ceil((rows.length - listed.length) / 7);
    expect(pages).toHaveLength(2 * listedPages + changePages);
    expect(pages.slice(listedPages, 2 * listedPages).every((p) => p.startsWith('unspent:'))).toBe(true);
    expect(pages.at(-1)).toBe(`records:${listed.length + 7 * (changePages - 1)}+${rows.length - listed.length - 7 * (changePages - 1)}`);
    expect(store.latestSnapshot(there)!.walletState).not.toBeNull();
    expect(store.latestSnapshot(there)!.walletState).toBe(store.latestSnapshot(here)!.walletState);
    const balances = (pid: string, id: number) => store.balances(pid, id).map(({ fetchedAt: _at, ...r }) => r);
    expect(balances(there, b.snapshotId)).toEqual(balances(here, a.snapshotId));

    // Warm: the same wallet state, so the digests are the snapshot's (no listunspent, here or there).
    countThere.reset();
    const w = await engineThere.run();
    expect(w).toMatchObject({ unchanged: true, spendCheck: 'reused' });
    expect(countThere.n('listreceivedbyaddress') + countThere.n('listunspent')).toBe(0);
  });

  it('leaves no session (nor its node client) there after a refresh that wrote, nor after one that found nothing changed', async () => {
    const pid = rig.profile('sessions');
    const inline = new InlineImportRunner(store); // the same jobs on this thread: their sessions can be counted here
    const sessions = workerSessions();
    const engine = appEngine(pid, inline, new CountingRpc(rpc));
    const first = await engine.run();
    expect(first.unchanged).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(workerSessions()).toBe(sessions);
    const again = await engine.run();
    expect(again).toMatchObject({ unchanged: true, spendCheck: 'reused' });
    await new Promise((r) => setImmediate(r)); // the unchanged refresh's drop is sent without waiting
    expect(workerSessions()).toBe(sessions);
  });

  it('without the spend check: only listreceivedbyaddress, asked there, the same rows as here', async () => {
    const here = rig.profile('no spend check, here');
    const there = rig.profile('no spend check, worker');
    const a = await new RefreshEngine({ store, rpc, index, profileId: here, wallet: 'watch', log: silentLogger, releaseMemory: null, checkSpends: false }).run();
    const ops: string[] = [];
    const counted = new CountingRpc(rpc);
    const engine = new RefreshEngine({
      store,
      rpc: counted,
      index,
      profileId: there,
      wallet: 'watch',
      log: silentLogger,
      releaseMemory: null,
      checkSpends: false,
      writer: (r) => rig.worker.run('snapshot-write', r),
      writerPart: async (r) => void (await rig.worker.run('snapshot-part', r)),
      receivedJobs: (r) => {
        ops.push(r.op);
        return rig.worker.run('snapshot-received', { ...r, rpc: rpc.handoff() });
      },
    });
    const b = await engine.run();
    expect(b.spendCheck).toBe('off');
    expect(ops).toEqual(['list', 'page', 'release']);
    expect(counted.n('listreceivedbyaddress') + counted.n('listunspent') + counted.n('getwalletinfo')).toBe(0);
    expect(nodeRows(b.snapshotId)).toEqual(nodeRows(a.snapshotId));
    expect(nodeRows(b.snapshotId).every((r) => r.nodeUnspent === null)).toBe(true);
  });

  it.each(['list', 'page', 'unspent'] as const)('a cancel at its %s job drops the session there at once, aborts its call, and writes nothing', async (at) => {
    const pid = rig.profile(`cancelled at ${at}`);
    const inline = new InlineImportRunner(store); // the same jobs on this thread: their sessions can be counted here
    const parts = snapshotPartSessions();
    const sessions = workerSessions();
    const controller = new AbortController();
    const jobs: Array<{ op: string; outcome: Promise<string> }> = [];
    let openDuring = -1;
    const engine = appEngine(pid, inline, new CountingRpc(rpc), {
      wrap: (job) => (r) => {
        const p = job(r);
        jobs.push({ op: r.op, outcome: p.then(() => 'ok', (e: { code?: string }) => e.code ?? 'error') });
        if (r.op === at && !controller.signal.aborted) {
          openDuring = workerSessions() - sessions;
          controller.abort();
        }
        return p;
      },
    });
    await expect(engine.run({ signal: controller.signal })).rejects.toMatchObject({ code: 'cancelled' });
    expect(openDuring).toBe(1); // the step had a session (and a client) of its own there
    const cut = jobs.find((j) => j.op === at)!;
    // A node call under way is aborted, not waited for: its job fails as cancelled.
    if (at !== 'page') expect(await cut.outcome).toBe('cancelled');
    // No job after the cancel got an answer.
    const later = jobs.slice(jobs.indexOf(cut) + 1);
    for (const j of later) expect(await j.outcome).toBe('cancelled');
    await new Promise((r) => setImmediate(r)); // the drop is sent without waiting
    expect(workerSessions()).toBe(sessions);
    expect(snapshotPartSessions()).toBe(parts);
    expect(store.latestSnapshot(pid)).toBeNull();
    expect(store.lastAttempt(pid)).toBeNull(); // a cancel records no failure
  });

  it.each([
    ['a wrong password (HTTP 401)', (h: RpcHandoff): RpcHandoff => ({ ...h, auth: { user: devnet.auth.user, password: 'not-the-password-8e2d' } })],
    ['a wallet the node does not have (RPC error)', (h: RpcHandoff): RpcHandoff => ({ ...h, wallet: 'no-such-wallet' })],
  ])("the node's error in the worker (%s) is the same AppError as this thread's client gives, recorded at the received step", async (_what, change) => {
    const pid = rig.profile(`refused: ${_what}`);
    const handed = change(rpc.handoff());
    const direct = new RpcClient(handed);
    let expected: unknown;
    try {
      await direct.call('listreceivedbyaddress', LIST_RECEIVED_PARAMS);
    } catch (e) {
      expected = e;
    } finally {
      direct.close();
    }
    expect(expected).toMatchObject({ code: expect.stringMatching(/^rpc\./) }); // rpc.unauthorized, rpc.wallet_not_found
    const { code, message } = expected as { code: string; message: string };

    const sessions = workerSessions();
    const run = appEngine(pid, new InlineImportRunner(store), new CountingRpc(rpc), { handoff: () => handed }).run();
    const error: unknown = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code, message });
    expect(JSON.stringify(error)).not.toContain('not-the-password-8e2d');
    expect(String((error as Error).stack)).not.toContain('not-the-password-8e2d');
    expect(store.lastAttempt(pid)).toMatchObject({ status: 'failed', failedStep: 'received', errorCode: code, errorMessage: message });
    expect(store.latestSnapshot(pid)).toBeNull();
    await new Promise((r) => setImmediate(r));
    expect(workerSessions()).toBe(sessions); // the failed refresh dropped its session
  });

  it('through the real worker thread, the error crosses the thread as the same AppError', async () => {
    const pid = rig.profile('refused across the thread');
    const handed = { ...rpc.handoff(), wallet: 'no-such-wallet' };
    const direct = new RpcClient(handed);
    const expected = await direct.call('listreceivedbyaddress', LIST_RECEIVED_PARAMS).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    direct.close();
    expect(expected).not.toBeNull();
    const error = await appEngine(pid, rig.worker, new CountingRpc(rpc), { handoff: () => handed })
      .run()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ code: expected!.code, message: expected!.message });
    expect(store.lastAttempt(pid)).toMatchObject({ failedStep: 'received', errorCode: expected!.code });
  });
});
