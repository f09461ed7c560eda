/**
 * The refresh's index lookups (`address/utxo`) sent and parsed in the import worker, as the app
 * refreshes (refresh/lookup-job.ts, job snapshot-lookups), not on the main thread (issue #27: 10,000
 * replies parsed on main grew its young generation to ~64 MB), on main's index budget
 * (blockindex/pacer.ts: IndexClient.lend()).
 *
 * What shows it: the engine's index client here is a counting wrapper of the real client, asked no
 * `address/utxo`, while the snapshot holds the same rows as a refresh that looked up here. The shared
 * budget: a tiny index over loopback HTTP records when each request arrives and how many are open at
 * once, while this thread's client also asks it; together they never exceed the one limit nor the one
 * concurrency cap (the limiter's guarantee holds at any load: a token comes back `perMs` after its
 * request finished, and the server saw that request before it finished). Cancel: the worker's
 * requests are aborted at once (the server sees their connections close). An index that is down: the
 * same AppError as this thread's client gives. A refused address: recorded for that address.
 *
 * Real parts: the devnet's node and index, a tiny HTTP index (node:http), a real SQLite file, the
 * real import worker thread (from source, through tsx). Nothing is mocked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexClient } from '../../electron/main/blockindex/client';
import type { WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine } from '../../electron/main/refresh/engine';
import { lookUpElsewhere, lookUpUtxos, type LookupElsewhere } from '../../electron/main/refresh/lookups';
import { workerSessions } from '../../electron/main/refresh/worker-session';
import { InlineImportRunner, type ImportRunner } from '../../electron/main/watch/import-runner';
import { silentLogger, type Logger } from '../../electron/main/log';
import { CountingIndex, CountingRpc } from '../support/refresh-counting';
import { startRefreshRig, syntheticAddress, workerJobs, type RefreshRig } from '../support/refresh-rig';

let rig: RefreshRig;
let store: WatchRepository;
/** An address the tiny index refuses (HTTP 400): letters and digits, so the client sends it. */
const BAD = 'badaddress00000001';

beforeAll(async () => {
  rig = await startRefreshRig({ name: 'refresh-lookups-worker', userAddresses: 30, tag: 0x4e });
  ({ store } = rig);
});

afterAll(async () => {
  await rig?.close();
});

/** An engine as the app builds it (watch/service.ts) on `runner`, its index client counted. */
function appEngine(pid: string, runner: ImportRunner, counting: CountingIndex): RefreshEngine {
  return new RefreshEngine({
    store,
    rpc: new CountingRpc(rig.rpc),
    index: counting,
    profileId: pid,
    wallet: 'watch',
    log: silentLogger,
    releaseMemory: null,
    ...workerJobs(runner, () => rig.rpc.handoff()),
    lookupJobs: { index: rig.index, run: (r) => runner.run('snapshot-lookups', r) },
    lookupWindow: 8,
  });
}

const rowsOf = (pid: string, id: number) =>
  store
    .balances(pid, id)
    .map(({ fetchedAt: _at, ...r }) => r)
    .sort((x, y) => (x.address < y.address ? -1 : 1));

/** The lookups of `addresses` on `runner`'s worker under a session of their own, as the engine runs them. */
function lookThere(runner: ImportRunner, index: IndexClient, addresses: string[], o: { signal?: AbortSignal; log?: Logger; page?: number } = {}) {
  const session = `test-${Math.random().toString(16).slice(2)}`;
  const job: LookupElsewhere = (op) => runner.run('snapshot-lookups', { ...op, session });
  const dropped = (): Promise<unknown> => runner.run('snapshot-part', { session, text: null });
  const drop = (): void => void dropped().catch(() => {});
  const done: number[] = [];
  const p = lookUpElsewhere({ job, index, addresses, window: 4, signal: o.signal, log: o.log ?? silentLogger, onDone: (n) => done.push(n), drop, ...(o.page ? { page: o.page } : {}) });
  return { p: p.finally(dropped), done };
}

/** A tiny bitaps-style index: `address/utxo` only, each request recorded; `hold` keeps requests unanswered. */
class TinyIndex {
  readonly arrivals: Array<{ at: number; address: string }> = [];
  open = 0;
  maxOpen = 0;
  readonly held: ServerResponse[] = [];
  closedEarly = 0;
  hold = false;
  readonly server: Server;
  constructor(private readonly delayMs: number) {
    this.server = createServer((req, res) => this.#serve(req, res));
  }
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    for (const r of this.held) r.destroy();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
  #serve(req: IncomingMessage, res: ServerResponse): void {
    const address = decodeURIComponent((req.url ?? '').split('?')[0]!.split('/').pop()!);
    this.arrivals.push({ at: performance.now(), address });
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    let answered = false;
    res.on('close', () => {
      this.open--;
      if (!answered) this.closedEarly++;
    });
    if (this.hold) {
      this.held.push(res);
      return;
    }
    setTimeout(() => {
      answered = true;
      if (address === BAD) {
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end('invalid address');
        return;
      }
      // One UTXO per address, its amount from the address's number: each answer tells whose it is.
      const n = Number(address.replace(/\D/g, '').slice(-6) || '0');
      const utxo = { txId: 'ab'.repeat(32), vOut: n % 7, block: 100 + (n % 50), txIndex: 1, amount: 1000 + n };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ data: [utxo], time: 0.001 }));
    }, this.delayMs);
  }
}

describe('the index lookups sent by the import worker (snapshot-lookups)', () => {
  it('writes the same snapshot as a refresh that looked up here, and this thread sends no address/utxo', async () => {
    const here = rig.profile('looked up here');
    const there = rig.profile('looked up by the worker');
    const countHere = new CountingIndex(rig.index);
    const a = await new RefreshEngine({ store, rpc: rig.rpc, index: countHere, profileId: here, wallet: 'watch', log: silentLogger, releaseMemory: null }).run();
    const countThere = new CountingIndex(rig.index);
    const progress: number[] = [];
    const b = await appEngine(there, rig.worker, countThere).run({ onProgress: (e) => e.phase === 'utxos' && progress.push(e.done) });

    expect(countHere.lookups.length).toBe(a.counts.utxoLookups);
    expect(a.counts.utxoLookups).toBeGreaterThan(30); // the node's addresses and the 30 user addresses
    expect(countThere.lookups).toEqual([]);
    expect(b.counts).toEqual(a.counts);
    expect(b.diff).toEqual(a.diff);
    expect(b.status).toBe(a.status);
    expect(rowsOf(there, b.snapshotId)).toEqual(rowsOf(here, a.snapshotId));
    expect(rowsOf(there, b.snapshotId).some((r) => r.utxoCount > 0)).toBe(true);
    expect(progress.at(-1)).toBe(b.counts.utxoLookups);
    expect(b.counts.utxosFetched).toBeGreaterThan(0);

    // A block (it confirms the demo's mempool: both refresh a changed wallet), then another: the user
    // addresses are looked up again (the index tip moved) and find what the snapshot holds — compared
    // there, with the UTXOs kept there: nothing changed, as here.
    const mine = async (): Promise<void> => {
      await rig.rpc.call('generatetoaddress', [1, await rig.rpc.call<string>('getnewaddress', [], { wallet: 'other' })], { wallet: false });
    };
    const refreshBoth = async () => [
      await new RefreshEngine({ store, rpc: rig.rpc, index: countHere, profileId: here, wallet: 'watch', log: silentLogger, releaseMemory: null }).run(),
      await appEngine(there, rig.worker, countThere).run(),
    ];
    await mine();
    await refreshBoth();
    await mine();
    const [a2, b2] = await refreshBoth();
    if (a2 === undefined || b2 === undefined) throw new Error('two refreshes');
    expect(a2.counts.utxoLookups).toBeGreaterThanOrEqual(30);
    expect(b2.counts.utxoLookups).toBe(a2.counts.utxoLookups);
    expect(countThere.lookups).toEqual([]);
    expect(b2.unchanged).toBe(a2.unchanged);
    expect(b2.unchanged).toBe(true);
    expect(rowsOf(there, b2.snapshotId)).toEqual(rowsOf(here, a2.snapshotId));
    // The session there (its index client with it) is gone after the write.
    const inline = new InlineImportRunner(store);
    const before = workerSessions();
    await appEngine(rig.profile('inline'), inline, new CountingIndex(rig.index)).run();
    expect(workerSessions()).toBe(before);
  });

  it("shares this thread's rate limit and concurrency cap: main and the worker together never exceed them", async () => {
    const tiny = new TinyIndex(15);
    const url = await tiny.start();
    const perMs = 300;
    const main = new IndexClient({ url, rateLimit: { requests: 3, perMs }, concurrency: 2, retries: 0 });
    try {
      const workerAddresses = Array.from({ length: 12 }, (_, i) => syntheticAddress(i, 0x51));
      const mainAddresses = Array.from({ length: 6 }, (_, i) => syntheticAddress(i, 0x52));
      const warnings: string[] = [];
      const log: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };
      const there = lookThere(rig.worker, main, [...workerAddresses, BAD], { log, page: 5 });
      const mine = Promise.all(mainAddresses.map((x) => main.addressUtxo(x)));
      const [got, own] = await Promise.all([there.p, mine]);

      expect(own.map((u) => u.length)).toEqual(mainAddresses.map(() => 1));
      expect(got.size).toBe(13);
      // The UTXOs stay there (for the write); this thread gets their count.
      for (const x of workerAddresses) expect(got.get(x)).toEqual({ kept: 1 });
      // A refused address is that address's error, as here (lookUpUtxos on this thread's client).
      expect(got.get(BAD)).toEqual({ error: 'index.invalid' });
      const hereToo = await lookUpUtxos(main, [BAD, workerAddresses[0]!], 2, undefined, silentLogger, () => {});
      expect(got.get(BAD)).toEqual(hereToo.get(BAD));
      expect(hereToo.get(workerAddresses[0]!)).toMatchObject({ utxos: [{ txId: 'ab'.repeat(32) }] });
      expect(warnings.some((w) => w.includes(BAD) && w.includes('index.invalid'))).toBe(true);
      expect(there.done.at(-1)).toBe(13);
      expect(there.done.length).toBeGreaterThan(2); // by pages

      // Every request of both threads arrived, and no window of perMs held more than 3 of them.
      const at = tiny.arrivals.map((r) => r.at).sort((x, y) => x - y);
      expect(at.length).toBe(12 + 1 + 6 + 2);
      expect(new Set(tiny.arrivals.map((r) => r.address))).toEqual(new Set([...workerAddresses, ...mainAddresses, BAD]));
      for (let i = 3; i < at.length; i++) expect(at[i]! - at[i - 3]!).toBeGreaterThanOrEqual(perMs);
      expect(tiny.maxOpen).toBeLessThanOrEqual(2);
      // This thread's client sent only its own requests (the worker's went out from there).
      expect(main.stats.requests).toBe(6 + 2);
    } finally {
      main.close();
      await tiny.close();
    }
  });

  it("a cancel aborts the worker's requests at once, gives the budget back, and throws cancelled", async () => {
    const tiny = new TinyIndex(0);
    tiny.hold = true;
    const url = await tiny.start();
    const main = new IndexClient({ url, concurrency: 3, rateLimit: null, retries: 0 });
    try {
      const controller = new AbortController();
      const there = lookThere(rig.worker, main, Array.from({ length: 20 }, (_, i) => syntheticAddress(i, 0x53)), { signal: controller.signal });
      const outcome = there.p.then(
        () => 'resolved',
        (e: { code?: string }) => e.code,
      );
      await expect.poll(() => tiny.held.length, { timeout: 30_000 }).toBe(3); // the cap: 3 at once
      controller.abort();
      expect(await outcome).toBe('cancelled');
      // Their connections are closed by the worker's client, not left for the server to answer.
      await expect.poll(() => tiny.closedEarly, { timeout: 30_000 }).toBe(3);
      expect(tiny.arrivals.length).toBe(3);
      // The three slots came back: this thread's client gets one at once (its request arrives).
      tiny.hold = false;
      await expect(main.addressUtxo(syntheticAddress(99, 0x53))).resolves.toHaveLength(1);
    } finally {
      main.close();
      await tiny.close();
    }
  });

  it("closing this thread's client (e.g. another profile connected) closes the worker's: its lookups end cancelled, their requests aborted", async () => {
    const tiny = new TinyIndex(0);
    tiny.hold = true;
    const url = await tiny.start();
    const main = new IndexClient({ url, concurrency: 2, rateLimit: null, retries: 0 });
    try {
      const there = lookThere(rig.worker, main, Array.from({ length: 10 }, (_, i) => syntheticAddress(i, 0x55)));
      const outcome = there.p.then(
        () => 'resolved',
        (e: { code?: string }) => e.code,
      );
      await expect.poll(() => tiny.held.length, { timeout: 30_000 }).toBe(2);
      main.close();
      expect(await outcome).toBe('cancelled');
      await expect.poll(() => tiny.closedEarly, { timeout: 30_000 }).toBe(2);
      expect(tiny.arrivals.length).toBe(2);
    } finally {
      main.close();
      await tiny.close();
    }
  });

  it("an index that is down ends the lookups with this thread's client's own error", async () => {
    const tiny = new TinyIndex(0);
    const url = await tiny.start();
    await tiny.close(); // nothing listens there now
    const main = new IndexClient({ url, retries: 0 });
    try {
      const addresses = [syntheticAddress(1, 0x54), syntheticAddress(2, 0x54)];
      const hereErr = await lookUpUtxos(main, addresses, 2, undefined, silentLogger, () => {}).catch((e: unknown) => e);
      const thereErr = await lookThere(rig.worker, main, addresses).p.catch((e: unknown) => e);
      expect(hereErr).toMatchObject({ code: expect.stringMatching(/^net\./) });
      expect(thereErr).toMatchObject({ code: (hereErr as { code: string }).code, message: (hereErr as { message: string }).message });
    } finally {
      main.close();
    }
  });
});
