/**
 * The refresh engine never holds the main thread for a whole refresh of a large watched set (issue
 * #27): its loops over every address give the event loop a turn (refresh/slice.ts), and in the app the
 * new snapshot is written by the import worker (refresh/snapshot-writer.ts) while this thread runs
 * other work. Ordering assertions only: work scheduled during the refresh runs before the refresh
 * ends — no timing threshold (the write waits on a lock this thread releases in that work).
 *
 * Real parts: the devnet's node and index over loopback HTTP, a real SQLite file, the real import
 * worker thread (from source, through tsx).
 */
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RpcClient } from '../../electron/main/rpc/client';
import type { IndexClient } from '../../electron/main/blockindex/client';
import type { NewSnapshot, WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine, type RefreshIndex } from '../../electron/main/refresh/engine';
import { Slicer } from '../../electron/main/refresh/slice';
import { snapshotFromText, snapshotText } from '../../electron/main/refresh/snapshot-text';
import { snapshotPartSessions } from '../../electron/main/refresh/snapshot-writer';
import { InlineImportRunner, type WorkerImportRunner } from '../../electron/main/watch/import-runner';
import { silentLogger } from '../../electron/main/log';
import { startRefreshRig, syntheticAddress, type RefreshRig } from '../support/refresh-rig';

/** Watched by the user: synthetic regtest p2wpkh addresses nobody pays (the index answers no UTXOs). */
const USER_ADDRESSES = 3_000;
const address = (i: number): string => syntheticAddress(i, 0xa5);

let rig: RefreshRig;
let store: WatchRepository;
let profileId: string;
let rpc: RpcClient;
let index: IndexClient;
let runner: WorkerImportRunner;

beforeAll(async () => {
  rig = await startRefreshRig({ name: 'refresh-yield', userAddresses: USER_ADDRESSES, tag: 0xa5 });
  ({ store, rpc, index, worker: runner } = rig);
  profileId = rig.profile('demo');
});

afterAll(async () => {
  await rig?.close();
});

describe('Slicer', () => {
  /** Runs a loop of `n` ticks; whether a setImmediate scheduled before it ran before the loop ended. */
  async function otherWorkRanDuringLoop(slicer: Slicer, n: number): Promise<boolean> {
    let ran = false;
    setImmediate(() => (ran = true));
    let seenInside = false;
    for (let i = 0; i < n; i++) {
      await slicer.tick();
      if (ran) seenInside = true;
    }
    await new Promise((r) => setImmediate(r)); // let it run now in any case
    return seenInside;
  }

  it('gives the event loop a turn inside a long loop once its slice has run (slice 0 ms: at the first clock check)', async () => {
    expect(await otherWorkRanDuringLoop(new Slicer(0), 1_000)).toBe(true);
  });

  it('with no slice (null, the bench baseline) the loop runs through: other work waits for its end', async () => {
    expect(await otherWorkRanDuringLoop(new Slicer(null), 1_000)).toBe(false);
  });
});

describe('the snapshot as text (for the import worker)', () => {
  it('reads back exactly, bigint amounts and an info given as a value included', async () => {
    const s: NewSnapshot = {
      takenAt: '2026-11-28T10:00:00.000Z',
      node: { height: 7, hash: 'a'.repeat(64) },
      index: { height: 6, hash: 'b'.repeat(64) },
      previousId: 3,
      received: [
        {
          address: address(1),
          amountSats: 2_100_000_000_000_000n,
          confirmations: 2,
          txids: ['c'.repeat(64)],
          nodeLabel: 'label "quoted" ☃',
          nodeUnspent: { hash: 'd'.repeat(64), sats: 9_007_199_254_740_993n, count: 1, pending: [{ txid: 'e'.repeat(64), vout: 1, amountSats: 546n, safe: true }] },
        },
        { address: address(2), amountSats: 0n, confirmations: 0, txids: [], nodeLabel: '', nodeUnspent: null },
      ],
      addresses: [
        { address: address(1), source: 'node', state: 'fetched', utxos: [{ txid: 'f'.repeat(64), vout: 0, amountSats: 1n, height: null }] },
        { address: address(2), source: 'node', state: 'carried' },
        { address: address(3), source: 'user', state: 'failed', errorCode: 'index.invalid' },
      ],
      infos: [
        { address: address(1), infoJson: '{"ismine":false,"$n":"1","t":"a\\tb"}' },
        { address: address(2), infoJson: '{\n  "pretty": true\n}' },
        { address: address(3), info: { $n: '5' } },
      ],
      walletState: 'watch:3:' + '0'.repeat(64),
    };
    // Slice 0: a turn after every chunk, as a big snapshot gets.
    const back = snapshotFromText(await snapshotText(s, new Slicer(0)));
    expect(back).toEqual({ ...s, infos: [s.infos![0], { address: address(2), infoJson: '{"pretty":true}' }, { address: address(3), infoJson: '{"$n":"5"}' }] });
  });
});

describe('a refresh of a large watched set', () => {
  it('lets other work run while it builds and writes the snapshot (written by the import worker), and writes every address', async () => {
    const events: string[] = [];
    const gate = new BetterSqlite3(rig.dbFile);
    onTestFinished(() => {
      gate.close();
    });
    let scheduled = 0;
    const engine = new RefreshEngine({
      store,
      rpc,
      index,
      profileId,
      wallet: 'watch',
      log: silentLogger,
      releaseMemory: null,
      writer: async (r) => {
        // Scheduled as the write starts: it must run while the worker writes, not after. No race with the
        // worker's speed: this thread holds the database's write lock until that work has run, and the
        // worker's write waits for it (busy_timeout). A write on this thread instead would wait for a lock
        // its own thread holds, and fail.
        gate.exec('BEGIN IMMEDIATE');
        setImmediate(() => {
          events.push('other work during the write');
          gate.exec('COMMIT');
        });
        const reply = await runner.run('snapshot-write', r);
        events.push('written');
        return reply;
      },
    });
    const result = await engine.run({
      onProgress: (p) => {
        if (p.phase === 'write' && p.done === 0) {
          scheduled++;
          setTimeout(() => events.push('timer set as the write step began'), 0);
        }
        if (p.phase === 'write' && p.done === 1) events.push('write step ended');
      },
    });
    events.push('refresh ended');
    expect(scheduled).toBe(1);
    // Each piece of other work ran before the write it was scheduled during had ended.
    const at = (e: string): number => events.indexOf(e);
    expect(events).toHaveLength(5);
    expect(at('timer set as the write step began')).toBeGreaterThanOrEqual(0);
    expect(at('timer set as the write step began')).toBeLessThan(at('written'));
    expect(at('other work during the write')).toBeGreaterThanOrEqual(0);
    expect(at('other work during the write')).toBeLessThan(at('written'));
    expect(events.slice(-3)).toEqual(['written', 'write step ended', 'refresh ended']);

    // What the worker wrote is the whole snapshot, read back on this thread's connection.
    expect(result.unchanged).toBe(false);
    expect(result.counts.userAddresses).toBe(USER_ADDRESSES);
    expect(result.counts.utxoLookups).toBe(result.counts.addresses);
    const snap = store.latestSnapshot(profileId)!;
    expect(snap.id).toBe(result.snapshotId);
    expect(snap.addressCount).toBe(result.counts.addresses);
    const rows = store.balances(profileId, snap.id);
    expect(rows.length).toBe(result.counts.addresses);
    expect(rows.filter((r) => r.source === 'user').length).toBe(USER_ADDRESSES);
    expect(store.infoFetchedAt(profileId).size).toBe(result.counts.infosFetched);
    // The diff the worker counted: the demo wallet's coins are all new against nothing.
    expect(result.diff.newUtxos).toBe(snap.utxoCount);
    expect(result.diff.newSats).toBe(snap.balanceSats);
  });

  it('a second refresh through the worker finds nothing changed and writes no snapshot', async () => {
    const written: number[] = [];
    const engine = new RefreshEngine({
      store,
      rpc,
      index,
      profileId,
      wallet: 'watch',
      log: silentLogger,
      releaseMemory: null,
      writer: async (r) => {
        const reply = await runner.run('snapshot-write', r);
        written.push(reply.snapshotId);
        return reply;
      },
    });
    const before = store.latestSnapshot(profileId)!.id;
    const result = await engine.run();
    expect(result.unchanged).toBe(true);
    expect(result.snapshotId).toBe(before);
    expect(written).toEqual([]);
  });
});

describe('the getaddressinfo replies sent ahead (snapshot-part), as the app refreshes', () => {
  /** A second profile on the same node and index, watching the same user addresses. */
  const twinProfile = (name: string): string => rig.profile(name);

  it('writes the same snapshot, every reply in it, as the replies held until the write', async () => {
    const held = twinProfile('held');
    const sent = twinProfile('sent');
    const parts: number[] = [];
    const run = (pid: string, withParts: boolean): Promise<Awaited<ReturnType<RefreshEngine['run']>>> =>
      new RefreshEngine({
        store,
        rpc,
        index,
        profileId: pid,
        wallet: 'watch',
        log: silentLogger,
        releaseMemory: null,
        writer: (r) => runner.run('snapshot-write', r),
        ...(withParts
          ? {
              writerPart: async (r) => {
                parts.push(r.text === null ? -1 : r.text.split('\n').length);
                await runner.run('snapshot-part', r);
              },
            }
          : {}),
      }).run();
    const a = await run(held, false);
    const b = await run(sent, true);
    expect(b.counts).toEqual(a.counts);
    expect(b.counts.infosFetched).toBeGreaterThan(USER_ADDRESSES);
    // One part per batch of 500 replies, every reply in one of them, none dropped.
    expect(parts).toHaveLength(Math.ceil(b.counts.infosFetched / 500));
    expect(parts.reduce((x, y) => x + y, 0)).toBe(b.counts.infosFetched);
    // Row by row the same balances, and the same getaddressinfo reply stored for every address.
    const rows = (pid: string, id: number) => store.balances(pid, id).map(({ fetchedAt: _at, ...r }) => r); // the lookup's time differs
    expect(rows(sent, b.snapshotId)).toEqual(rows(held, a.snapshotId));
    expect(store.latestSnapshot(sent)).toMatchObject({ addressCount: store.latestSnapshot(held)!.addressCount, utxoCount: store.latestSnapshot(held)!.utxoCount, balanceSats: store.latestSnapshot(held)!.balanceSats });
    const infos = store.infoFetchedAt(sent);
    expect([...infos.keys()].sort()).toEqual([...store.infoFetchedAt(held).keys()].sort());
    for (const addr of infos.keys()) expect(store.getInfo(sent, addr)?.info).toEqual(store.getInfo(held, addr)?.info);
  });

  it('a refresh that fails after sending them drops them, and writes nothing', async () => {
    const pid = twinProfile('fails');
    const inline = new InlineImportRunner(store);
    const before = snapshotPartSessions();
    let sentParts = 0;
    const failing: RefreshIndex = {
      addressUtxo: (a, o) => index.addressUtxo(a, o),
      transaction: (t, o) => index.transaction(t, o),
      genesisHash: (o) => index.genesisHash(o),
      tip: () => Promise.reject(new Error('index gone')), // after the getaddressinfo step
    };
    const engine = new RefreshEngine({
      store,
      rpc,
      index: failing,
      profileId: pid,
      wallet: 'watch',
      log: silentLogger,
      releaseMemory: null,
      writer: (r) => inline.run('snapshot-write', r),
      writerPart: async (r) => {
        if (r.text !== null) sentParts++;
        await inline.run('snapshot-part', r);
      },
    });
    await expect(engine.run()).rejects.toMatchObject({ code: 'internal' });
    expect(sentParts).toBeGreaterThan(1);
    expect(snapshotPartSessions()).toBe(before);
    expect(store.latestSnapshot(pid)).toBeNull();
    expect(store.infoFetchedAt(pid).size).toBe(0);
  });
});
