/**
 * The refresh engine against a node it knows only through JSON-RPC, with the devnet's index
 * FOLLOWING that node (`devnet/follow`, what `npm run devnet -- --follow-node URL` serves): the set-up a
 * user with their own bitcoind gets. Runs on two targets: real Bitcoin Core (refresh-external.test.ts)
 * and the devnet's node as a stand-in for it, reached over RPC only (refresh-devnet-rpc.test.ts).
 *
 * The truth is computed here from the node's own RPC — `getblock` verbosity 2 over every block since
 * the suite started, `getrawmempool` + `getrawtransaction` — never from the index: every watched
 * address's UTXOs (confirmed, not spent by a block or the mempool), amounts and confirmations, and
 * the node's `listreceivedbyaddress`. Then: a warm refresh with nothing changed; a payment and a block
 * (the diff shows it); a spend from watched addresses still in the mempool (the coins leave). The node
 * needs `-fallbackfee=0.0002` for sendtoaddress; four wallets `sg-*-<time>` are created and unloaded at
 * the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningFollower } from '../../devnet/index';
import { RpcClient } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { btcNumberToSats, RefreshEngine, type RefreshResult } from '../../electron/main/refresh/engine';
import type { TestRpc } from '../support/rpc';
import { CountingIndex, CountingRpc } from '../support/refresh-counting';
import { sourceImportWorkerScript, WorkerImportRunner } from '../../electron/main/watch/import-runner';
import { silentLogger } from '../../electron/main/log';

export interface RefreshTarget {
  /** The node, for the suite's own calls (set-up and truth). */
  rpc: TestRpc;
  rpcUrl: string;
  user: string;
  password: string;
  /** The follower's index. */
  follower: RunningFollower;
  /**
   * Waits until the node's wallets have seen everything it accepted (real Core tells its wallets
   * asynchronously: `syncwithvalidationinterfacequeue`); the devnet's wallets see it at once.
   */
  walletsSynced?(): Promise<void>;
  close(): Promise<void>;
}

interface CoreBlock {
  hash: string;
  height: number;
  tx: Array<{ txid: string; vin: Array<{ txid?: string; vout?: number }>; vout: Array<{ value: number; n: number; scriptPubKey: { address?: string } }> }>;
}

interface TruthUtxo {
  txid: string;
  vout: number;
  amountSats: bigint;
  height: number;
}

const key = (u: { txid: string; vout: number }): string => `${u.txid}:${u.vout}`;

export function defineRefreshSuite(setup: () => Promise<RefreshTarget>): void {
  let t: RefreshTarget;
  let dir: string;
  let db: Database;
  let store: WatchRepository;
  let profileId: string;
  let rpcClient: RpcClient;
  let indexClient: IndexClient;
  let rpc: CountingRpc;
  let index: CountingIndex;
  let engine: RefreshEngine;
  let startHeight = 0;
  const w = { payer: '', hot: '', watch: '', other: '' };
  /** The hot wallet's addresses, imported into the watch-only wallet. */
  const hot: string[] = [];
  /** Watched by the user (index only): an address of a fourth wallet, which never spends. */
  let userAddress = '';

  /** Mines `n` blocks to a payer address. */
  const mine = async (n: number): Promise<void> => {
    await t.rpc.call('generatetoaddress', [n, await t.rpc.call<string>('getnewaddress', [], w.payer)]);
  };

  /** Waits until the follower has indexed the node's tip and read its whole mempool there. */
  /** Waits until the node's wallets and the follower have seen the node's tip and its whole mempool. */
  const indexSynced = async (): Promise<void> => {
    await t.walletsSynced?.();
    const tip = await t.rpc.call<string>('getbestblockhash');
    const mempool = (await t.rpc.call<string[]>('getrawmempool')).length;
    await t.follower.follower.waitFor((s) => s.synced && s.nodeHash === tip && s.mempool === mempool, 60_000);
  };

  /** Every watched address's UTXOs, and the tip, from the node's blocks and mempool. */
  const truth = async (addresses: readonly string[]): Promise<{ tip: { height: number; hash: string }; utxos: Map<string, TruthUtxo[]> }> => {
    const watched = new Set(addresses);
    const height = await t.rpc.call<number>('getblockcount');
    const tipHash = await t.rpc.call<string>('getblockhash', [height]);
    const outputs = new Map<string, TruthUtxo & { address: string }>();
    const spent = new Set<string>();
    for (let h = startHeight; h <= height; h++) {
      const block = await t.rpc.call<CoreBlock>('getblock', [await t.rpc.call<string>('getblockhash', [h]), 2]);
      for (const tx of block.tx) {
        for (const i of tx.vin) if (i.txid !== undefined) spent.add(`${i.txid}:${i.vout}`);
        for (const o of tx.vout) {
          const address = o.scriptPubKey.address;
          if (address !== undefined && watched.has(address)) outputs.set(`${tx.txid}:${o.n}`, { address, txid: tx.txid, vout: o.n, amountSats: btcNumberToSats(o.value), height: h });
        }
      }
    }
    for (const txid of await t.rpc.call<string[]>('getrawmempool')) {
      const tx = await t.rpc.call<CoreBlock['tx'][number]>('getrawtransaction', [txid, true]);
      for (const i of tx.vin) if (i.txid !== undefined) spent.add(`${i.txid}:${i.vout}`);
    }
    const utxos = new Map<string, TruthUtxo[]>(addresses.map((a) => [a, []]));
    for (const [k, o] of outputs) if (!spent.has(k)) utxos.get(o.address)!.push({ txid: o.txid, vout: o.vout, amountSats: o.amountSats, height: o.height });
    return { tip: { height, hash: tipHash }, utxos };
  };

  /** The latest snapshot equals the truth: tips, the node's received totals, every address's UTXOs and confirmations. */
  const expectMatchesTruth = async (r: RefreshResult): Promise<void> => {
    const { tip, utxos } = await truth([...hot, userAddress]);
    expect(r.node).toEqual(tip);
    expect(r.index).toEqual(tip);
    const received = new Map(
      (await t.rpc.call<Array<{ address: string; amount: number; confirmations: number; label: string }>>('listreceivedbyaddress', [0, true, true], w.watch)).map((e) => [e.address, e]),
    );
    expect(new Set(received.keys())).toEqual(new Set(hot));
    const rows = store.balances(profileId, r.snapshotId);
    expect(new Set(rows.map((x) => x.address))).toEqual(new Set([...hot, userAddress]));
    let count = 0;
    for (const row of rows) {
      const n = received.get(row.address);
      if (n === undefined) {
        expect(row.source).toBe('user');
      } else {
        expect(row.receivedSats, row.address).toBe(btcNumberToSats(n.amount));
        expect(row.receivedConfirmations, row.address).toBe(n.confirmations);
        expect(row.nodeLabel, row.address).toBe(n.label);
      }
      const want = utxos.get(row.address)!;
      const got = store.utxos(profileId, row.address, r.snapshotId);
      expect(got.map((u) => [key(u), u.amountSats, u.height, u.confirmations]).sort(), row.address).toEqual(
        want.map((u) => [key(u), u.amountSats, u.height, tip.height - u.height + 1]).sort(),
      );
      expect(row.balanceSats, row.address).toBe(want.reduce((s, u) => s + u.amountSats, 0n));
      count += want.length;
    }
    expect(count).toBeGreaterThanOrEqual(hot.length);
  };

  beforeAll(async () => {
    t = await setup();
    const s = Date.now().toString(36);
    w.payer = `sg-pay-${s}`;
    w.hot = `sg-hot-${s}`;
    w.watch = `sg-watch-${s}`;
    w.other = `sg-other-${s}`;
    await t.rpc.call('createwallet', [w.payer]);
    await t.rpc.call('createwallet', [w.hot]);
    await t.rpc.call('createwallet', [w.other]);
    await t.rpc.call('createwallet', [w.watch, true, true]); // disable_private_keys, blank: watch-only
    startHeight = (await t.rpc.call<number>('getblockcount')) + 1;
    await mine(101);
    // The hot wallet's addresses of every type, watched through the watch-only wallet (addr() descriptors with labels).
    for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m', 'bech32', 'bech32m']) hot.push(await t.rpc.call<string>('getnewaddress', ['', type], w.hot));
    for (const [i, address] of hot.entries()) {
      const { checksum } = await t.rpc.call<{ checksum: string }>('getdescriptorinfo', [`addr(${address})`]);
      const [imported] = await t.rpc.call<Array<{ success: boolean }>>('importdescriptors', [[{ desc: `addr(${address})#${checksum}`, timestamp: 'now', label: `hot ${i}` }]], w.watch);
      expect(imported?.success, address).toBe(true);
    }
    for (const [i, address] of hot.entries()) await t.rpc.call('sendtoaddress', [address, (i + 1) / 10], w.payer);
    await t.rpc.call('sendtoaddress', [hot[0], 0.25], w.payer); // a second coin
    userAddress = await t.rpc.call<string>('getnewaddress', [], w.other);
    await t.rpc.call('sendtoaddress', [userAddress, 0.3], w.payer);
    await mine(1);
    await indexSynced();

    dir = mkdtempSync(join(tmpdir(), 'spyglass-refresh-ext-'));
    db = openDatabase(join(dir, 'spyglass.sqlite'));
    store = new WatchRepository(db);
    profileId = new ProfileRepository(db).create(
      { name: 'own node', nodeUrl: t.rpcUrl, auth: 'password', rpcUser: t.user, cookiePath: '', wallet: w.watch, indexUrl: t.follower.indexUrl },
      { passwordStorage: 'session' },
    ).id;
    store.addAddresses(profileId, [userAddress]);
    rpcClient = new RpcClient({ url: t.rpcUrl, auth: { user: t.user, password: t.password }, wallet: w.watch });
    indexClient = new IndexClient({ url: t.follower.indexUrl, baseDelayMs: 5 });
    rpc = new CountingRpc(rpcClient);
    index = new CountingIndex(indexClient);
    engine = new RefreshEngine({ store, rpc, index, profileId });
  }, 300_000);

  afterAll(async () => {
    rpcClient?.close();
    indexClient?.close();
    if (db) closeDatabase(db);
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (t) {
      for (const name of Object.values(w)) if (name) await t.rpc.call('unloadwallet', [name]).catch(() => undefined);
      await t.close();
    }
  });

  it('cold refresh: balances, UTXOs and confirmations equal the node’s chain; the index is the follower’s', async () => {
    const r = await engine.run();
    expect(r.status).toBe('ok');
    expect(r.counts).toMatchObject({ nodeAddresses: hot.length, userAddresses: 1, utxoLookups: hot.length + 1, infosFetched: hot.length + 1 });
    await expectMatchesTruth(r);
    const first = store.utxos(profileId, hot[0]!, r.snapshotId);
    expect(first.map((u) => u.amountSats).sort()).toEqual([10_000_000n, 25_000_000n]);
  });

  it('warm refresh, nothing changed: no lookup, no new snapshot', async () => {
    rpc.reset();
    index.lookups.length = 0;
    const r = await engine.run();
    expect(r).toMatchObject({ unchanged: true, fetched: [], spendCheck: 'reused' });
    expect(index.lookups).toEqual([]);
    expect(rpc.n('listunspent')).toBe(0);
    await expectMatchesTruth(r);
  });

  it('a payment to a watched address and a block: the next refresh shows it, with the right diff', async () => {
    const before = store.latestSnapshot(profileId)!;
    const payment = await t.rpc.call<string>('sendtoaddress', [hot[3], 0.777], w.payer);
    await mine(1);
    await indexSynced();
    index.lookups.length = 0;
    const r = await engine.run();
    expect(r.unchanged).toBe(false);
    expect(index.lookups).toContain(hot[3]);
    expect(index.lookups).toContain(userAddress); // the index tip moved
    await expectMatchesTruth(r);
    const d = store.diff(before.id, r.snapshotId);
    expect(d.newUtxos).toEqual([expect.objectContaining({ txid: payment, address: hot[3], amountSats: 77_700_000n, confirmations: 1 })]);
    expect(d.spentUtxos).toEqual([]);
    expect(d.newTxids).toContain(payment);
    expect(r.diff).toMatchObject({ newUtxos: 1, newSats: 77_700_000n, spentUtxos: 0 });
  });

  it('a spend from watched addresses, still in the mempool: the spent coins leave the balance', async () => {
    const before = store.latestSnapshot(profileId)!;
    const spend = await t.rpc.call<string>('sendtoaddress', [await t.rpc.call<string>('getnewaddress', [], w.payer), 0.5], w.hot);
    await indexSynced();
    const tx = await t.rpc.call<CoreBlock['tx'][number]>('getrawtransaction', [spend, true]);
    const gone = tx.vin.map((i) => `${i.txid}:${i.vout}`);
    expect(gone.length).toBeGreaterThan(0);
    rpc.reset();
    const r = await engine.run();
    expect(r.spendCheck).toBe('listunspent'); // the wallet's txcount moved
    await expectMatchesTruth(r);
    const d = store.diff(before.id, r.snapshotId);
    expect(d.spentUtxos.map(key).sort()).toEqual([...gone].sort());
    expect(r.diff.spentUtxos).toBe(gone.length);
  });

  it('as the app refreshes (the import worker asks getaddressinfo, listreceivedbyaddress and listunspent, and sends the index lookups: refresh/info-batches.ts, received-job.ts, lookup-job.ts): the same rows and replies, none asked on this thread', async () => {
    const twin = (name: string): string => {
      const pid = new ProfileRepository(db).create(
        { name, nodeUrl: t.rpcUrl, auth: 'password', rpcUser: t.user, cookiePath: '', wallet: w.watch, indexUrl: t.follower.indexUrl },
        { passwordStorage: 'session' },
      ).id;
      store.addAddresses(pid, [userAddress]);
      return pid;
    };
    const held = twin('asked here');
    const there = twin('asked by the worker');
    const a = await new RefreshEngine({ store, rpc: rpcClient, index: indexClient, profileId: held }).run();
    const worker = new WorkerImportRunner(sourceImportWorkerScript(), join(dir, 'spyglass.sqlite'), silentLogger);
    const counted = new CountingRpc(rpcClient);
    const countedIndex = new CountingIndex(indexClient);
    try {
      const b = await new RefreshEngine({
        store,
        rpc: counted,
        index: countedIndex,
        profileId: there,
        writer: (r) => worker.run('snapshot-write', r),
        writerPart: async (r) => void (await worker.run('snapshot-part', r)),
        infoBatches: (r) => worker.run('snapshot-infos', { ...r, rpc: rpcClient.handoff() }),
        receivedJobs: (r) => worker.run('snapshot-received', { ...r, rpc: rpcClient.handoff() }),
        lookupJobs: { index: indexClient, run: (r) => worker.run('snapshot-lookups', r) },
      }).run();
      expect(countedIndex.lookups).toEqual([]); // every address/utxo went out from the worker, on indexClient's budget
      expect(b.counts.utxoLookups).toBeGreaterThan(0);
      expect(counted.n('getaddressinfo')).toBe(0);
      expect(counted.n('listreceivedbyaddress')).toBe(0);
      expect(counted.n('listunspent')).toBe(0);
      expect(counted.n('getwalletinfo')).toBe(2); // the wallet-state check, before and after listreceivedbyaddress, stays here
      expect(b.spendCheck).toBe('listunspent');
      // The node's rows (with their node-unspent digests, after the spend above) and the wallet state, as asked here.
      const nodeRows = (id: number) => [...store.received(id).values()].sort((x, y) => (x.address < y.address ? -1 : 1));
      expect(nodeRows(b.snapshotId)).toEqual(nodeRows(a.snapshotId));
      expect(nodeRows(b.snapshotId).every((r) => r.nodeUnspent !== null)).toBe(true);
      expect(store.latestSnapshot(there)!.walletState).toBe(store.latestSnapshot(held)!.walletState);
      expect(b.counts).toEqual(a.counts);
      expect(b.counts.infosFetched).toBe(hot.length + 1);
      const rows = (pid: string, id: number) => store.balances(pid, id).map(({ fetchedAt: _at, ...r }) => r);
      expect(rows(there, b.snapshotId)).toEqual(rows(held, a.snapshotId));
      for (const addr of [...hot, userAddress]) {
        expect(store.getInfo(there, addr)?.info, addr).toEqual(store.getInfo(held, addr)?.info);
        expect(store.getInfo(there, addr)?.info, addr).toMatchObject({ address: addr });
      }
    } finally {
      await worker.close();
    }
  });
}
