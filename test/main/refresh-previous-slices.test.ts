/**
 * The warm refresh's read of the previous snapshot (refresh/received-step.ts readPrevious): its
 * received entries and fetch states read in slices of rows (store receivedSlice / fetchStatesSlice,
 * keyset pages in address order), the event loop getting a turn between slices, instead of one
 * `store.received` of 10,000 rows that held the main thread 113 ms (issue #27). The maps are the same
 * as store.received and store.fetchStates give, for every slice size, on a real snapshot.
 *
 * Real parts: the devnet's node and index, a real SQLite file (the refresh rig). Nothing is mocked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefreshEngine } from '../../electron/main/refresh/engine';
import { readPrevious } from '../../electron/main/refresh/received-step';
import { Slicer } from '../../electron/main/refresh/slice';
import { silentLogger } from '../../electron/main/log';
import { startRefreshRig, type RefreshRig } from '../support/refresh-rig';

let rig: RefreshRig;
let pid: string;
let snapshotId: number;

beforeAll(async () => {
  rig = await startRefreshRig({ name: 'refresh-previous-slices', userAddresses: 25, tag: 0x5f });
  pid = rig.profile('slices');
  const engine = new RefreshEngine({ store: rig.store, rpc: rig.rpc, index: rig.index, profileId: pid, wallet: 'watch', log: silentLogger, releaseMemory: null });
  snapshotId = (await engine.run()).snapshotId;
});

afterAll(async () => {
  await rig?.close();
});

describe('the previous snapshot read in slices (readPrevious)', () => {
  it.each([1, 7, 1000])('gives the same maps as store.received and store.fetchStates, %i rows per slice', async (slice) => {
    const { store } = rig;
    const received = store.received(snapshotId);
    const fetch = store.fetchStates(snapshotId);
    expect(received.size).toBeGreaterThan(20); // the demo wallet's node addresses
    expect(fetch.size).toBeGreaterThan(received.size); // and the 25 user addresses
    const slicer = new Slicer();
    const got = await readPrevious(store, snapshotId, slicer, slice);
    expect(got.prevReceived).toEqual(received);
    expect(got.prevFetch).toEqual(fetch);
    expect([...got.prevReceived.keys()].sort()).toEqual([...received.keys()].sort());
    expect([...got.prevFetch.keys()].sort()).toEqual([...fetch.keys()].sort());
    // A turn of the event loop after each slice: one more slice than full ones, per map.
    expect(slicer.yields).toBe(Math.floor(received.size / slice) + 1 + Math.floor(fetch.size / slice) + 1);
  });

  it('gives empty maps without a previous snapshot', async () => {
    const got = await readPrevious(rig.store, null, new Slicer(), 7);
    expect(got.prevReceived.size).toBe(0);
    expect(got.prevFetch.size).toBe(0);
  });

  it('each slice is one keyset page: the rows after the last address, in address order', () => {
    const all = [...rig.store.received(snapshotId).keys()].sort();
    const first = rig.store.receivedSlice(snapshotId, null, 5).map((r) => r.address);
    expect(first).toEqual(all.slice(0, 5));
    const next = rig.store.receivedSlice(snapshotId, first[4]!, 5).map((r) => r.address);
    expect(next).toEqual(all.slice(5, 10));
    const states = [...rig.store.fetchStates(snapshotId).keys()].sort();
    expect(rig.store.fetchStatesSlice(snapshotId, states[2]!, 3).map((f) => f.address)).toEqual(states.slice(3, 6));
  });
});
