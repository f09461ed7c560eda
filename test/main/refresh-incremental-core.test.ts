/**
 * The incremental refresh (listsinceblock from the snapshot's recorded wallet block) against REAL
 * Bitcoin Core (test/support/bitcoind.ts; both generations under scripts/test-core.sh), index = the
 * devnet's follower of that node. After each change — a payment in the mempool, its block, a spend
 * from watched addresses, empty blocks — the snapshot the incremental refresh updated in place equals
 * a fresh full refresh into an empty database, row for row. A reorganization (invalidateblock of the
 * recorded block) makes it fall back to the full refresh. The node needs `-fallbackfee`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFollower, type RunningFollower } from '../../devnet/index';
import { RpcClient } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine } from '../../electron/main/refresh/engine';
import { IncrementalRefresh, type IncrementalResult } from '../../electron/main/refresh/incremental';
import { describeWithBitcoind, type BitcoindNode } from '../support/bitcoind';

describeWithBitcoind(
  'incremental refresh against a real bitcoind',
  (node) => {
    let n: BitcoindNode;
    let follower: RunningFollower;
    let dir: string;
    let db: Database;
    let store: WatchRepository;
    let profileId: string;
    let rpcClient: RpcClient;
    let indexClient: IndexClient;
    let inc: IncrementalRefresh;
    let fresh = 0;
    const s = Date.now().toString(36);
    const w = { payer: `sgi-pay-${s}`, hot: `sgi-hot-${s}`, watch: `sgi-watch-${s}` };
    const hot: string[] = [];

    const mine = async (k: number): Promise<void> => {
      await n.rpc.call('generatetoaddress', [k, await n.rpc.call<string>('getnewaddress', [], w.payer)]);
    };
    const synced = async (): Promise<void> => {
      await n.rpc.call('syncwithvalidationinterfacequeue');
      const tip = await n.rpc.call<string>('getbestblockhash');
      const mempool = (await n.rpc.call<string[]>('getrawmempool')).length;
      await follower.follower.waitFor((x) => x.synced && x.nodeHash === tip && x.mempool === mempool, 60_000);
    };
    const profile = (d: Database): string =>
      new ProfileRepository(d).create(
        { name: 'core', nodeUrl: n.url, auth: 'password', rpcUser: n.user, cookiePath: '', wallet: w.watch, indexUrl: follower.indexUrl },
        { passwordStorage: 'session' },
      ).id;
    const state = (st: WatchRepository, pid: string) => {
      const snap = st.latestSnapshot(pid)!;
      return {
        node: snap.node,
        index: snap.index,
        totals: [snap.addressCount, snap.receivedSats, snap.balanceSats, snap.utxoCount],
        balances: st.balances(pid, snap.id).map(({ fetchState: _f, fetchedAt: _t, errorCode: _e, ...row }) => row),
        received: [...st.received(snap.id).values()].sort((a, b) => a.address.localeCompare(b.address)),
        utxos: st.utxos(pid, null, snap.id),
      };
    };
    const fullState = async (): Promise<ReturnType<typeof state>> => {
      const d = openDatabase(join(dir, `full-${++fresh}.sqlite`));
      try {
        const st = new WatchRepository(d);
        const pid = profile(d);
        await new RefreshEngine({ store: st, rpc: rpcClient, index: indexClient, profileId: pid }).run();
        return state(st, pid);
      } finally {
        closeDatabase(d);
      }
    };
    const expectEqualsFull = async (): Promise<IncrementalResult> => {
      await synced();
      const r = await inc.run();
      expect(r.mode, r.fallback ?? '').toBe('incremental');
      expect(state(store, profileId)).toEqual(await fullState());
      return r;
    };

    beforeAll(async () => {
      n = node();
      follower = await startFollower({ url: n.url, user: n.user, password: n.password, pollMs: 100, log: () => undefined });
      await n.rpc.call('createwallet', [w.payer]);
      await n.rpc.call('createwallet', [w.hot]);
      await n.rpc.call('createwallet', [w.watch, true, true]);
      await mine(101);
      for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) hot.push(await n.rpc.call<string>('getnewaddress', ['', type], w.hot));
      for (const [i, address] of hot.entries()) {
        const { checksum } = await n.rpc.call<{ checksum: string }>('getdescriptorinfo', [`addr(${address})`]);
        await n.rpc.call('importdescriptors', [[{ desc: `addr(${address})#${checksum}`, timestamp: 'now', label: `hot ${i}` }]], w.watch);
        await n.rpc.call('sendtoaddress', [address, (i + 1) / 10], w.payer);
      }
      await mine(1);
      await synced();
      dir = mkdtempSync(join(tmpdir(), 'spyglass-incremental-core-'));
      db = openDatabase(join(dir, 'spyglass.sqlite'));
      store = new WatchRepository(db);
      profileId = profile(db);
      rpcClient = new RpcClient({ url: n.url, auth: { user: n.user, password: n.password }, wallet: w.watch });
      indexClient = new IndexClient({ url: follower.indexUrl, baseDelayMs: 5 });
      const engine = new RefreshEngine({ store, rpc: rpcClient, index: indexClient, profileId });
      inc = new IncrementalRefresh({ engine, store, rpc: rpcClient, index: indexClient, profileId });
      expect((await inc.run()).mode).toBe('full');
    }, 300_000);

    afterAll(async () => {
      rpcClient?.close();
      indexClient?.close();
      if (db) closeDatabase(db);
      if (dir) rmSync(dir, { recursive: true, force: true });
      await follower?.close();
      for (const name of Object.values(w)) await n?.rpc.call('unloadwallet', [name]).catch(() => undefined);
    });

    it('nothing new, a payment in the mempool, its block, empty blocks: incremental equals a fresh full refresh', async () => {
      expect((await expectEqualsFull()).affected).toEqual([]);
      await n.rpc.call('sendtoaddress', [hot[2], 0.321], w.payer);
      expect((await expectEqualsFull()).affected).toEqual([hot[2]]);
      await mine(1);
      expect((await expectEqualsFull()).affected).toEqual([hot[2]]);
      await mine(2);
      expect((await expectEqualsFull()).affected).toEqual([]);
    });

    it('a spend from watched addresses (by the wallet holding their keys) and its block: the addresses spent from are touched', async () => {
      await n.rpc.call('sendtoaddress', [await n.rpc.call<string>('getnewaddress', [], w.payer), 0.9], w.hot);
      const r0 = await expectEqualsFull();
      expect(r0.affected.length).toBeGreaterThan(0);
      await mine(1);
      await expectEqualsFull();
    });

    it('the recorded block reorganized away: the full refresh runs, and the result is the full one', async () => {
      const tip = await n.rpc.call<string>('getbestblockhash');
      await n.rpc.call('invalidateblock', [tip]);
      await mine(2); // a longer branch without that block
      await synced();
      const r = await inc.run();
      expect(r.mode).toBe('full');
      expect(r.fallback).toMatch(/no longer in the chain|reorganization/);
      expect(state(store, profileId)).toEqual(await fullState());
      await n.rpc.call('reconsiderblock', [tip]);
    });
  },
  { tag: 'refresh-incremental-core' },
);
