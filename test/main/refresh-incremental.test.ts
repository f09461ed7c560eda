/**
 * The incremental refresh (electron/main/refresh/incremental.ts) against the REAL devnet (`demo`) over
 * loopback, into a real SQLite file: after each change on the chain (nothing, a 0-conf payment, its
 * block, a spend from watched addresses, several empty blocks, a payment to a user-added address) the
 * snapshot it updated in place equals, row for row, what a fresh full refresh into another empty
 * database gives at the same moment. And the fallbacks: no snapshot yet, the watch set changed, the
 * recorded block unknown to the node.
 *
 * The tests run in order on one devnet and one database (each builds on the last).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { RpcClient } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { btcNumberToSats, RefreshEngine } from '../../electron/main/refresh/engine';
import { formatBtc } from '../../shared/amounts';
import { IncrementalRefresh, type IncrementalResult } from '../../electron/main/refresh/incremental';
import { TestRpc } from '../support/rpc';
import { CountingRpc } from '../support/refresh-counting';

let devnet: Devnet;
let testRpc: TestRpc;
let dir: string;
let rpcClient: RpcClient;
let rpc: CountingRpc;
let indexClient: IndexClient;
let db: Database;
let store: WatchRepository;
let profileId: string;
let inc: IncrementalRefresh;
let userAddress: string;
/** User addresses added by the tests after the first (the reference refresh watches them too). */
const moreUsers: string[] = [];
let fresh = 0;

function profile(d: Database): string {
  return new ProfileRepository(d).create(
    { name: 'demo', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: devnet.auth.user, cookiePath: '', wallet: 'watch', indexUrl: devnet.indexUrl },
    { passwordStorage: 'session' },
  ).id;
}

async function mine(n = 1): Promise<void> {
  await testRpc.call('generatetoaddress', [n, await testRpc.call<string>('getnewaddress', [], 'other')]);
}

/** What the screens read of a snapshot, without the fetch bookkeeping (when each address was last asked). */
function state(s: WatchRepository, pid: string) {
  const snap = s.latestSnapshot(pid)!;
  return {
    node: snap.node,
    index: snap.index,
    walletState: snap.walletState,
    totals: { addresses: snap.addressCount, received: snap.receivedSats, balance: snap.balanceSats, utxos: snap.utxoCount },
    balances: s.balances(pid, snap.id).map(({ fetchState: _f, fetchedAt: _t, errorCode: _e, ...row }) => row),
    received: [...s.received(snap.id).values()].sort((a, b) => a.address.localeCompare(b.address)),
    utxos: s.utxos(pid, null, snap.id),
  };
}

/** A full refresh into a new empty database, now: the reference. */
async function fullRefreshState(): Promise<ReturnType<typeof state>> {
  const d = openDatabase(join(dir, `full-${++fresh}.sqlite`));
  try {
    const s = new WatchRepository(d);
    const pid = profile(d);
    s.addAddresses(pid, [userAddress, ...moreUsers]);
    await new RefreshEngine({ store: s, rpc: rpcClient, index: indexClient, profileId: pid }).run();
    return state(s, pid);
  } finally {
    closeDatabase(d);
  }
}

async function expectIncrementalEqualsFull(): Promise<IncrementalResult> {
  const r = await inc.run();
  expect(r.mode, r.fallback ?? '').toBe('incremental');
  expect(state(store, profileId)).toEqual(await fullRefreshState());
  return r;
}

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo' });
  testRpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  dir = mkdtempSync(join(tmpdir(), 'spyglass-incremental-'));
  db = openDatabase(join(dir, 'spyglass.sqlite'));
  store = new WatchRepository(db);
  profileId = profile(db);
  rpcClient = new RpcClient({ url: devnet.rpcUrl, auth: devnet.auth, wallet: 'watch' });
  rpc = new CountingRpc(rpcClient);
  indexClient = new IndexClient({ url: devnet.indexUrl, baseDelayMs: 5 });
  const engine = new RefreshEngine({ store, rpc, index: indexClient, profileId });
  inc = new IncrementalRefresh({ engine, store, rpc, index: indexClient, profileId });
  // The user watches the miner's coinbase address (index only, not in the watch wallet).
  const coinbase = devnet.node.chain.tip().txs[0]!;
  userAddress = encodeDestination(extractDestination(coinbase.vout[0]!.script)!, devnet.node.network);
  store.addAddresses(profileId, [userAddress]);
});

afterAll(async () => {
  rpcClient?.close();
  indexClient?.close();
  await devnet?.close();
  if (db) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('incremental refresh on the devnet', () => {
  it('with no snapshot yet, runs the full refresh and says why', async () => {
    const r = await inc.run();
    expect(r.mode).toBe('full');
    expect(r.fallback).toBe('no good latest snapshot');
    expect(state(store, profileId)).toEqual(await fullRefreshState());
  });

  it('nothing new: incremental, nothing touched, no lookup, no listreceivedbyaddress of the whole wallet', async () => {
    rpc.reset();
    const r = await expectIncrementalEqualsFull();
    expect(r.affected).toEqual([]);
    expect(r.unchanged).toBe(true);
    expect(r.counts.utxoLookups).toBe(0);
    expect(rpc.n('listreceivedbyaddress')).toBe(0);
    // At most one listunspent, restricted to the change addresses of the scenario's spend still in
    // the mempool (listsinceblock lists it every time): what they hold did not move.
    expect(rpc.n('listunspent')).toBeLessThanOrEqual(1);
    if (rpc.n('listunspent') === 1) expect((rpc.params.get('listunspent') as unknown[])[2]).toEqual(expect.any(Array));
  });

  it('a payment in the mempool to a watched address, then its block: only that address is touched', async () => {
    const watched = [...store.received(store.latestSnapshot(profileId)!.id).values()];
    const payee = watched.find((r) => r.confirmations > 0 && r.amountSats > 0n)!.address;
    await testRpc.call('sendtoaddress', [payee, 0.4321], 'miner');
    const r0 = await expectIncrementalEqualsFull();
    expect(r0.affected).toEqual([payee]);
    // The block also confirms the scenario's other mempool payments: their addresses are touched too.
    const pendingBefore = [...store.received(store.latestSnapshot(profileId)!.id).values()].filter((r) => r.confirmations === 0 && r.txids.length > 0).map((r) => r.address);
    await mine(1);
    const r1 = await expectIncrementalEqualsFull();
    expect(new Set(r1.affected)).toEqual(new Set(pendingBefore));
    expect(r1.affected).toContain(payee);
    expect(r1.counts.utxoLookups).toBe(r1.affected.length + 1); // and the user's address: the index tip moved
  });

  it('a spend from watched addresses and a block: the addresses spent from are touched', async () => {
    const before = state(store, profileId);
    // The hot wallet (it holds the keys of the watched addresses) spends more than half of its coins.
    const hotCoins = await testRpc.call<Array<{ amount: number }>>('listunspent', [1], 'hot');
    const hotTotal = hotCoins.reduce((n, c) => n + btcNumberToSats(c.amount), 0n);
    await testRpc.call('sendtoaddress', [await testRpc.call<string>('getnewaddress', [], 'other'), formatBtc((hotTotal * 6n) / 10n)], 'hot');
    await mine(1);
    // Its change goes to a new change address of the wallet: a row only the full refresh adds.
    const r = await inc.run();
    expect(r.mode).toBe('full');
    expect(r.fallback).toMatch(/change to a new address/);
    expect(state(store, profileId)).toEqual(await fullRefreshState());
    expect(r.diff.spentUtxos).toBeGreaterThan(0);
    expect(state(store, profileId).totals.balance).not.toBe(before.totals.balance);
    // The change is in the balances (listreceivedbyaddress never lists it).
    const listed = new Set((await testRpc.call<Array<{ address: string }>>('listreceivedbyaddress', { minconf: 0, include_empty: true }, 'watch')).map((x) => x.address));
    const change = (await testRpc.call<Array<{ address: string }>>('listunspent', [0], 'watch')).filter((u) => !listed.has(u.address));
    expect(change.length).toBeGreaterThan(0);
    for (const c of change) expect(state(store, profileId).balances.map((b) => b.address)).toContain(c.address);
    // The next block: incremental again, the change row included.
    await mine(1);
    await expectIncrementalEqualsFull();
  });


  it('several blocks with nothing for the wallet: every confirmed entry gains their confirmations', async () => {
    await mine(3);
    const r = await expectIncrementalEqualsFull();
    expect(r.affected).toEqual([]);
  });

  it('a payment to the user-added address (index only) is found through the index', async () => {
    await testRpc.call('sendtoaddress', [userAddress, 0.25], 'miner');
    await mine(1);
    const r = await expectIncrementalEqualsFull();
    expect(r.fetched).toContain(userAddress);
    expect(r.diff.newUtxos).toBeGreaterThan(0);
  });

  it('the watch set changed: the full refresh runs', async () => {
    moreUsers.push(await testRpc.call<string>('getnewaddress', [], 'other'));
    store.addAddresses(profileId, moreUsers);
    const r = await inc.run();
    expect(r.mode).toBe('full');
    expect(r.fallback).toBe('the watch set changed');
    expect((await inc.run()).mode).toBe('incremental');
  });

  it('the index failing (HTTP 500) ends the incremental refresh with the error, recorded like a full refresh’s; the next refresh is a full one', async () => {
    await testRpc.call('sendtoaddress', [[...store.received(store.latestSnapshot(profileId)!.id).keys()][0]!, 0.01], 'miner');
    await mine(1);
    const before = state(store, profileId);
    devnet.setFaults('index', { mode: 'http500' });
    try {
      await expect(inc.run()).rejects.toMatchObject({ code: expect.stringMatching(/^index\./) });
    } finally {
      devnet.setFaults('index', {});
    }
    expect(state(store, profileId)).toEqual(before); // nothing written
    const failure = store.lastAttempt(profileId)!;
    expect(failure).toMatchObject({ status: 'failed', failedStep: 'received' });
    const r = await inc.run();
    expect(r.mode).toBe('full');
    expect(r.fallback).toBe('the last refresh failed');
    expect(state(store, profileId)).toEqual(await fullRefreshState());
  });

  it('the recorded block unknown to the node (as after a reorganization): the full refresh runs', async () => {
    const snap = store.latestSnapshot(profileId)!;
    db.prepare('UPDATE snapshots SET wallet_state = ? WHERE id = ?').run(`watch:1:${'ab'.repeat(32)}`, snap.id);
    const r = await inc.run();
    expect(r.mode).toBe('full');
    expect(r.fallback).toMatch(/could not list since the recorded block|no longer in the chain/);
    expect((await inc.run()).mode).toBe('incremental');
  });
});
