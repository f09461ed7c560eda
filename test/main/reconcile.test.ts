// Reconciliation against an index that lags the node — what a user of a public or self-hosted index
// meets after every block. Real parts: the devnet node (`demo` chain) over JSON-RPC, the devnet's
// index FOLLOWING that node (devnet/follow, as `npm run devnet -- --follow-node` serves it) with its
// polling held back so the test decides when it catches up, a real SQLite file, `dispatch` on the
// real services. The truth is the node's own view (listunspent), never the index's.
//
// A payment to an empty address and one to a funded address are mined while the index is one block
// behind: the refresh then shows the index behind, the first address's funds missing from the index,
// and the second's amounts not adding up. Once the index has caught up, the next refresh must look
// those addresses up again (nothing changed on the node's side since) and the disagreements go away.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, startFollower, type Devnet, type RunningFollower } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import type { BalanceRowView, ConnectionState, ReconcileIssue, TransactionView, WatchOverview } from '../../shared/ipc/contract';
import { balanceRows } from '../../shared/ipc/balance-columns';
import { RpcClient } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { btcNumberToSats, RefreshEngine } from '../../electron/main/refresh/engine';
import { formatBtc } from '../../shared/amounts';
import { dispatchOk, startProfiledApp } from '../support/app';
import { TestRpc } from '../support/rpc';

let devnet: Devnet;
let follower: RunningFollower;
let app: SpyglassApp;
let dir: string;
let rpc: TestRpc;

const ok = <T>(channel: string, payload: unknown = {}): Promise<T> => dispatchOk<T>(app, channel, payload);

async function rows(): Promise<Map<string, BalanceRowView>> {
  const o = await ok<WatchOverview>('watch:overview');
  return new Map(balanceRows(o.balances).map((r) => [r.address, r]));
}

const issues = async (): Promise<ReconcileIssue[]> => (await ok<{ issues: ReconcileIssue[] }>('watch:reconcile')).issues;

/** The node's confirmed unspent sats per address of the watch-only wallet (listunspent, minconf 1). */
async function nodeUnspent(): Promise<Map<string, bigint>> {
  const list = await rpc.call<Array<{ address: string; amount: number }>>('listunspent', [1], 'watch');
  const out = new Map<string, bigint>();
  for (const u of list) out.set(u.address, (out.get(u.address) ?? 0n) + btcNumberToSats(u.amount));
  return out;
}

const mine = async (n: number): Promise<void> => {
  await rpc.call('generatetoaddress', [n, await rpc.call<string>('getnewaddress', [], 'miner')]);
};

/** Lets the held-back index catch up with the node (tip and mempool). */
async function catchUp(): Promise<void> {
  const tip = await rpc.call<string>('getbestblockhash', []);
  follower.follower.poke();
  await follower.follower.waitFor((s) => s.synced && s.nodeHash === tip, 30_000);
}

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  // Polls only when poked: the test decides when the index catches up.
  follower = await startFollower({ url: devnet.rpcUrl, user: 'u', password: 'p', pollMs: 3_600_000, log: () => undefined });
  await follower.follower.waitFor((s) => s.synced, 30_000);
  let state: string;
  ({ app, dir, state } = await startProfiledApp({ prefix: 'reconcile', name: 'Lagging index', nodeUrl: devnet.rpcUrl, indexUrl: follower.indexUrl, rpcUser: 'u', password: 'p' }));
  expect(state).toBe('connected');
});

afterAll(async () => {
  await app?.close();
  await follower?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reconciliation with an index that lags the node', () => {
  let empty = '';
  let funded = '';
  let fundedBefore = 0n;

  it('with the index in step, node and index agree on every address', async () => {
    // A new address of the node's watch-only wallet: watched, nothing received yet.
    empty = await rpc.call<string>('getnewaddress', ['fresh'], 'watch');
    await ok('watch:refresh');
    expect(await issues()).toEqual([]);
    const r = await rows();
    const node = await nodeUnspent();
    for (const row of r.values()) expect(BigInt(row.balanceSats), row.address).toBe(node.get(row.address) ?? 0n);
    const all = [...r.values()].filter((x) => x.source === 'node');
    expect(r.get(empty)).toMatchObject({ source: 'node', receivedSats: '0', balanceSats: '0', utxoCount: 0 });
    const f = all.find((x) => x.utxoCount > 0)!;
    funded = f.address;
    fundedBefore = BigInt(f.balanceSats);
  });

  it('a block the index has not seen: index behind, funds missing, amounts not adding up', async () => {
    await rpc.call('sendtoaddress', [empty, 0.3], 'miner');
    await rpc.call('sendtoaddress', [funded, 0.2], 'miner');
    await mine(1);
    const summary = await ok<{ snapshotId: number }>('watch:refresh');
    const o = await ok<WatchOverview>('watch:overview');
    expect(o.snapshot?.id).toBe(summary.snapshotId);
    expect(o.snapshot!.indexHeight).toBe(o.snapshot!.nodeHeight! - 1);
    const r = await rows();
    // The balances are the index's: without the new block.
    expect(r.get(empty)!.balanceSats).toBe('0');
    expect(BigInt(r.get(funded)!.balanceSats)).toBe(fundedBefore);
    const found = await issues();
    const of = (k: ReconcileIssue['kind']): ReconcileIssue[] => found.filter((i) => i.kind === k);
    expect(of('index-behind')).toHaveLength(1);
    expect(of('index-behind')[0]!.message).toMatch(/index was 1 block behind/);
    // Every address where the node's confirmed unspent differs from the index's UTXOs is reported —
    // ours, and those the demo chain's pending payments paid, confirmed by the same block — and no other.
    const node = await nodeUnspent();
    const differ = [...r.values()].filter((x) => (node.get(x.address) ?? 0n) !== BigInt(x.balanceSats));
    expect(differ.map((x) => x.address)).toEqual(expect.arrayContaining([empty, funded]));
    expect(of('index-missing-tx').map((i) => i.address).sort()).toEqual(differ.filter((x) => x.utxoCount === 0).map((x) => x.address).sort());
    expect(of('amount-mismatch').map((i) => i.address).sort()).toEqual(differ.filter((x) => x.utxoCount > 0).map((x) => x.address).sort());
    expect(of('index-missing-tx').find((i) => i.address === empty)!.message).toContain('0.30000000 BTC');
    expect(found).toHaveLength(1 + differ.length);

    // Refreshed again with the index still behind: the disagreeing addresses are asked again, get the
    // same answer, and no identical snapshot is written; the check is recorded on the latest one.
    const again = await ok<{ snapshotId: number; utxoLookups: number }>('watch:refresh');
    expect(again.snapshotId).toBe(summary.snapshotId);
    expect(again.utxoLookups).toBe(differ.length);
    const checked = await ok<WatchOverview>('watch:overview');
    const afterRows = await rows();
    for (const x of differ) expect(afterRows.get(x.address)!.fetchedAt).toBe(checked.snapshot!.takenAt);
    expect(checked.snapshot!.takenAt > o.snapshot!.takenAt).toBe(true);
  });

  it('blocks mined since the refresh: the snapshot is stale; the connection warns of the index lag', async () => {
    await mine(1);
    let state = await ok<ConnectionState>('connection:refresh');
    const found = await issues();
    expect(found.filter((i) => i.kind === 'stale-snapshot')).toHaveLength(1);
    expect(found.find((i) => i.kind === 'stale-snapshot')!.message).toMatch(/node has 1 new block since/);
    // 2 blocks behind is within what the connection lets pass; 3 are not.
    expect(state.state === 'connected' && state.report.warnings.some((w) => w.code === 'index-behind')).toBe(false);
    await mine(1);
    state = await ok<ConnectionState>('connection:refresh');
    expect(state.state).toBe('connected');
    if (state.state !== 'connected') return;
    expect(state.report.warnings.find((w) => w.code === 'index-behind')?.message).toMatch(/index is 3 blocks behind the node/);
    expect((await issues()).find((i) => i.kind === 'stale-snapshot')!.message).toMatch(/node has 2 new blocks since/);
  });

  it('once the index has caught up, the next refresh looks those addresses up again and the disagreements are gone', async () => {
    await catchUp();
    await ok('watch:refresh');
    const r = await rows();
    const node = await nodeUnspent();
    expect(BigInt(r.get(empty)!.balanceSats)).toBe(30_000_000n);
    expect(BigInt(r.get(funded)!.balanceSats)).toBe(fundedBefore + 20_000_000n);
    for (const row of r.values()) expect(BigInt(row.balanceSats), row.address).toBe(node.get(row.address) ?? 0n);
    expect(await issues()).toEqual([]);
  });
  it('a spend mined while the index lags: once it has caught up, the spent coins leave the balances', async () => {
    // The hot wallet holds the keys of the watched receive addresses: sending nearly all it has
    // spends their coins too, not only its change.
    const before = await rows();
    const nodeBefore = await nodeUnspent();
    const hotCoins = await rpc.call<Array<{ amount: number }>>('listunspent', [1], 'hot');
    const hotSats = hotCoins.reduce((sum, c) => sum + btcNumberToSats(c.amount), 0n);
    await rpc.call<string>('sendtoaddress', [await rpc.call<string>('getnewaddress', [], 'miner'), formatBtc(hotSats - 1_000_000n)], 'hot');
    await mine(1);
    await ok('watch:refresh');
    // The addresses the spend took coins from, by the node's own count.
    const nodeAfter = await nodeUnspent();
    const spentFrom = new Set([...nodeBefore.keys()].filter((a) => before.has(a) && (nodeAfter.get(a) ?? 0n) < nodeBefore.get(a)!));
    expect(spentFrom.size).toBeGreaterThan(0);
    // The index has not seen the spend: the coins are still in the balances, and Reconcile says so.
    const lagging = await rows();
    // (A change address whose coins were all spent leaves the list: the node no longer names it.)
    const shown = [...spentFrom].filter((a) => lagging.has(a));
    expect(shown.length).toBeGreaterThan(0);
    for (const a of shown) expect(lagging.get(a)!.balanceSats).toBe(before.get(a)!.balanceSats);
    const flagged = new Set((await issues()).map((i) => i.address));
    for (const a of shown) expect(flagged.has(a), a).toBe(true);
    // Nothing about those addresses changes on the node's side from here on: only the disagreement
    // makes the next refresh ask the index again.
    await catchUp();
    await ok('watch:refresh');
    const r = await rows();
    const node = await nodeUnspent();
    for (const row of r.values()) expect(BigInt(row.balanceSats), row.address).toBe(node.get(row.address) ?? 0n);
    expect(await issues()).toEqual([]);
  });

  it('agreeing again, a refresh with nothing new asks the index nothing and writes no snapshot', async () => {
    const before = (await ok<WatchOverview>('watch:overview')).snapshot!.id;
    const summary = await ok<{ snapshotId: number; utxoLookups: number }>('watch:refresh');
    expect(summary.utxoLookups).toBe(0);
    expect(summary.snapshotId).toBe(before);
  });

  it('a P2PKH address whose key is also paid directly (P2PK): the balance is what paid the address, as the node counts it', async () => {
    const address = await rpc.call<string>('getnewaddress', ['legacy', 'legacy'], 'watch');
    const { pubkey } = await rpc.call<{ pubkey: string }>('getaddressinfo', [address], 'watch');
    await rpc.call('sendtoaddress', [address, 0.15], 'miner');
    const [blockHash] = devnet.node.mine(1, Uint8Array.from(Buffer.from(`21${pubkey}ac`, 'hex'))); // the coinbase pays <pubkey> OP_CHECKSIG
    await catchUp();
    // The following index, like the real server, lists the key's P2PK output for the address when not told the type.
    const raw = (await (await fetch(`${follower.indexUrl}/v1/blockchain/address/utxo/${address}`)).json()) as { data: Array<{ type: string }> };
    expect(raw.data.map((e) => e.type).sort()).toEqual(['P2PKH', 'PUBKEY']);
    await ok('watch:refresh');
    expect((await rows()).get(address)).toMatchObject({ receivedSats: '15000000', balanceSats: '15000000', utxoCount: 1 });
    expect((await nodeUnspent()).get(address)).toBe(15_000_000n);
    expect(await issues()).toEqual([]);
    // In agreement, so it is not asked again and again.
    expect((await ok<{ utxoLookups: number }>('watch:refresh')).utxoLookups).toBe(0);
    // The coinbase's P2PK output: the index names it by the address, the transaction view does not call it watched.
    const coinbase = await ok<TransactionView>('watch:transaction', { txid: devnet.node.chain.blockByHash(blockHash!)!.txs[0]!.txid });
    expect(coinbase.outputs[0]).toMatchObject({ address, scriptType: 'PUBKEY', watched: false, spentBy: [] });
  });

  it('an address the index does not serve (pay-to-anchor): the lookup fails, Reconcile says why, the rest of the refresh stands', async () => {
    const anchor = 'bcrt1pfeesnyr2tx'; // P2A on regtest: valid for the node, not one of the kinds a bitaps index accepts
    const added = await ok<{ added: number; errors: unknown[] }>('watch:add', { text: anchor });
    expect(added).toEqual({ added: 1, existing: 0, errors: [], unserved: 1, unservedExamples: [anchor] }); // told at once
    try {
      await ok('watch:refresh');
      expect((await ok<WatchOverview>('watch:overview')).snapshot!.status).toBe('partial');
      const row = (await rows()).get(anchor)!;
      expect(row).toMatchObject({ source: 'user', fetchState: 'failed', balanceSats: '0', fetchedAt: null });
      expect(await issues()).toEqual([
        {
          kind: 'fetch-failed',
          address: anchor,
          message: 'The index does not accept this address (a bitaps-style index serves P2PKH, P2SH, P2WPKH, P2WSH and P2TR addresses); no balance is known for it.',
        },
      ]);
      // Every other address still agrees with the node.
      const node = await nodeUnspent();
      for (const r of (await rows()).values()) if (r.address !== anchor) expect(BigInt(r.balanceSats), r.address).toBe(node.get(r.address) ?? 0n);
    } finally {
      await ok('watch:remove', { address: anchor });
    }
    await ok('watch:refresh');
    expect(await issues()).toEqual([]);
  });
});

describe('without the node\'s unspent outputs (checkSpends off), a receive the index had not reached is looked up again', () => {
  it('by the height of the receive against the index height of the last lookup', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'spyglass-reconcile-heights-'));
    const db = openDatabase(join(dir2, 'spyglass.sqlite'));
    const rpcClient = new RpcClient({ url: devnet.rpcUrl, auth: { user: 'u', password: 'p' }, wallet: 'watch' });
    const indexClient = new IndexClient({ url: follower.indexUrl, baseDelayMs: 5 });
    try {
      const store = new WatchRepository(db);
      const profileId = new ProfileRepository(db).create(
        { name: 'heights', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'watch', indexUrl: follower.indexUrl },
        { passwordStorage: 'session' },
      ).id;
      const engine = new RefreshEngine({ store, rpc: rpcClient, index: indexClient, profileId, checkSpends: false });
      await catchUp();
      await engine.run();
      const target = await rpc.call<string>('getnewaddress', ['heights'], 'watch');
      await rpc.call('sendtoaddress', [target, 0.4], 'miner');
      await mine(1);
      const lagging = await engine.run(); // the index is a block behind: it does not have the payment yet
      expect(lagging.index.height).toBe(lagging.node.height - 1);
      expect(lagging.fetched).toContain(target);
      const held = (): bigint => store.utxos(profileId, target).reduce((sum, u) => sum + u.amountSats, 0n);
      expect(held()).toBe(0n);
      await catchUp();
      const caughtUp = await engine.run();
      expect(caughtUp.fetched).toContain(target);
      expect(held()).toBe(40_000_000n);
      // Now the lookup was made at the receive's height: the next refresh does not ask again.
      const again = await engine.run();
      expect(again.fetched).not.toContain(target);
    } finally {
      rpcClient.close();
      indexClient.close();
      closeDatabase(db);
      rmSync(dir2, { recursive: true, force: true });
    }
  });
});
