/**
 * A profile without an index (#17 item 5): the node's wallet answers the index's questions
 * (electron/main/blockindex/node-source.ts). Shared by no-index-devnet.test.ts (the devnet) and
 * no-index-core.test.ts (real Bitcoin Core, both generations). Each step compares the refresh made
 * with the node alone against the same refresh through a real index following that node, into real
 * SQLite files: after a confirmed payment, a 0-conf one, and a spend from a watched address the
 * balances and UTXOs of every wallet address are the same; an address outside the wallet is marked
 * "needs an index" and the snapshot partial; wallet transactions read from the node match the
 * index's record; what only an index knows is refused with index.not_configured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RpcClient } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { NodeWalletIndex } from '../../electron/main/blockindex/node-source';
import { checkConnection } from '../../electron/main/connection';
import { closeDatabase, openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine, type RefreshResult } from '../../electron/main/refresh/engine';
import type { PayerNode } from '../support/payer-node';

export interface NoIndexNode extends PayerNode {
  /** Resolves once the index has the node's tip. */
  indexSynced(): Promise<void>;
}

export function defineNoIndexSuite(start: () => Promise<NoIndexNode>): void {
  let node: NoIndexNode;
  let dir: string;
  const suffix = Date.now().toString(36);
  const keys = `keys-${suffix}`;
  const watch = `watch-${suffix}`;
  let rpc: RpcClient;
  let nodeIndex: NodeWalletIndex;
  let index: IndexClient;
  let outsider: string;
  let paid: string;
  let runs = 0;

  beforeAll(async () => {
    node = await start();
    dir = mkdtempSync(join(tmpdir(), 'spyglass-noindex-'));
    // A key-holding wallet (the "signer") and a blank watch-only wallet with its public descriptors.
    await node.rpc.call('createwallet', [keys]);
    const { descriptors } = await node.rpc.call<{ descriptors: Array<{ desc: string; active: boolean; internal?: boolean }> }>('listdescriptors', [], keys);
    await node.rpc.call('createwallet', { wallet_name: watch, disable_private_keys: true, blank: true });
    const wpkh = descriptors.filter((d) => d.active && d.desc.startsWith('wpkh('));
    const imported = await node.rpc.call<Array<{ success: boolean }>>('importdescriptors', [wpkh.map((d) => ({ desc: d.desc, active: true, internal: d.internal ?? false, range: [0, 50], timestamp: 'now' }))], watch);
    expect(imported.every((r) => r.success)).toBe(true);
    rpc = new RpcClient({ url: node.rpcUrl, auth: { user: node.user, password: node.password }, wallet: watch });
    nodeIndex = new NodeWalletIndex(rpc);
    index = new IndexClient({ url: node.indexUrl, baseDelayMs: 5 });
    outsider = await node.rpc.call<string>('getnewaddress', [], node.payer);
  }, 300_000);
  afterAll(async () => {
    rpc?.close();
    index?.close();
    await node?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** One full refresh into a new SQLite file, through `source`; what the screens read of it. */
  async function refresh(source: NodeWalletIndex | IndexClient, extra: string[] = []) {
    const db = openDatabase(join(dir, `r-${++runs}.sqlite`));
    try {
      const store = new WatchRepository(db);
      const pid = new ProfileRepository(db).create({ name: 'p', nodeUrl: node.rpcUrl, auth: 'password', rpcUser: node.user, cookiePath: '', wallet: watch, indexUrl: source instanceof IndexClient ? node.indexUrl : '' }, { passwordStorage: 'none' }).id;
      if (extra.length) store.addAddresses(pid, extra);
      const result: RefreshResult = await new RefreshEngine({ store, rpc, index: source, profileId: pid }).run();
      const snap = store.latestSnapshot(pid)!;
      const rows = store.balances(pid, snap.id);
      return {
        result,
        failed: rows.filter((r) => r.fetchState === 'failed').map((r) => ({ address: r.address, code: r.errorCode })),
        balances: rows.filter((r) => r.source === 'node').map(({ fetchState: _f, fetchedAt: _t, errorCode: _e, ...row }) => row),
        utxos: store.utxos(pid, null, snap.id).filter((u) => u.address !== outsider),
      };
    } finally {
      closeDatabase(db);
    }
  }

  async function bothAgree(): Promise<Awaited<ReturnType<typeof refresh>>> {
    await node.indexSynced();
    const withIndex = await refresh(index);
    const alone = await refresh(nodeIndex);
    expect(alone.result.index).toEqual(alone.result.node); // the node's own tip stands for the index's
    expect(alone.failed).toEqual([]);
    expect(alone.balances).toEqual(withIndex.balances);
    expect(alone.utxos).toEqual(withIndex.utxos);
    return alone;
  }

  it('the connection check reports no index: heights are the node’s, never "behind"', async () => {
    const report = await checkConnection({ wallet: watch, nodeUrl: node.rpcUrl, indexUrl: '' }, rpc, nodeIndex, false);
    expect(report.index.source).toBe('node');
    expect(report.index.height).toBe(report.node.blocks);
    expect(report.index.bestBlockHash).toBe(report.node.bestBlockHash);
    expect(report.warnings.map((w) => w.code)).not.toContain('index-behind');
  });

  it('a confirmed payment and a 0-conf one: the same balances and UTXOs as through the index', async () => {
    paid = await node.rpc.call<string>('getnewaddress', [], watch);
    await node.rpc.call('sendtoaddress', [paid, 1.5], node.payer);
    await node.mine(1);
    const pending = await node.rpc.call<string>('getnewaddress', [], watch);
    await node.rpc.call('sendtoaddress', [pending, 0.25], node.payer);
    const r = await bothAgree();
    expect(r.utxos.map((u) => [u.address, u.amountSats])).toEqual([[paid, 150_000_000n]]);
    // The 0-conf payment is not a UTXO yet (the index lists confirmed ones only) but is counted as received.
    expect(r.balances.find((b) => b.address === pending)?.receivedSats).toBe(25_000_000n);
  });

  it('a spend from a watched address (signed by the key-holding wallet): the coin leaves both the same way', async () => {
    await node.mine(1);
    const back = await node.rpc.call<string>('getnewaddress', [], node.payer);
    await node.rpc.call('sendtoaddress', { address: back, amount: 1.6, subtractfeefromamount: true }, keys);
    const before = await bothAgree(); // spent in the mempool: excluded by both
    expect(before.utxos.find((u) => u.address === paid)).toBeUndefined();
    await node.mine(1);
    await bothAgree();
  });

  it('an address outside the node’s wallet: marked "needs an index", the snapshot partial, the others kept', async () => {
    await node.rpc.call('sendtoaddress', [outsider, 0.1], node.payer);
    await node.mine(1);
    const r = await refresh(nodeIndex, [outsider]);
    expect(r.result.status).toBe('partial');
    expect(r.failed).toEqual([{ address: outsider, code: 'index.not_configured' }]);
    await expect(nodeIndex.addressUtxo(outsider)).rejects.toMatchObject({ code: 'index.not_configured', message: expect.stringContaining('no index') });
  });

  it('a wallet transaction read from the node matches the index’s record of it', async () => {
    await node.indexSynced();
    const txs = await node.rpc.call<Array<{ txid: string; category: string }>>('listtransactions', ['*', 20], watch);
    expect(txs.length).toBeGreaterThanOrEqual(3);
    for (const txid of new Set(txs.map((t) => t.txid))) {
      const [mine, theirs] = await Promise.all([nodeIndex.transaction(txid), index.transaction(txid)]);
      const pick = (t: typeof mine) => ({
        txId: t.txId, hash: t.hash, segwit: t.segwit, rbf: t.rbf, version: t.version, size: t.size, vSize: t.vSize, bSize: t.bSize, weight: t.weight, lockTime: t.lockTime,
        blockHash: t.blockHash, blockHeight: t.blockHeight, blockIndex: t.blockIndex, blockTime: t.blockTime, confirmations: t.confirmations, coinbase: t.coinbase,
        fee: t.fee, inputsAmount: t.inputsAmount, outputsAmount: t.outputsAmount,
        vIn: t.vIn.map((i) => ({ txId: i.txId, vOut: i.vOut, sequence: i.sequence, amount: i.amount, address: i.address, type: i.type, scriptPubKey: i.scriptPubKey, txInWitness: i.txInWitness })),
        vOut: t.vOut.map((o) => ({ index: o.index, value: o.value, address: o.address, type: o.type, nType: o.nType, scriptPubKey: o.scriptPubKey })),
      });
      expect(pick(mine)).toEqual(pick(theirs));
    }
  });

  it('what only an index knows is refused with a clear reason', async () => {
    // A block's coinbase: neither the watch wallet's nor in the mempool (the node keeps no -txindex).
    const best = await node.rpc.call<string>('getbestblockhash');
    const { tx } = await node.rpc.call<{ tx: string[] }>('getblock', [best, 1]);
    await expect(nodeIndex.transaction(tx[0]!)).rejects.toMatchObject({ code: 'index.not_configured' });
    await expect(nodeIndex.block(best)).rejects.toMatchObject({ code: 'index.not_configured', message: expect.stringContaining('merkle proof') });
  });

  it('the node down: a network error, not "needs an index"', async () => {
    const dead = new RpcClient({ url: 'http://127.0.0.1:9/', auth: { user: 'u', password: 'p' }, wallet: watch });
    try {
      await expect(new NodeWalletIndex(dead).addressUtxo(paid)).rejects.toMatchObject({ code: expect.stringMatching(/^net\./) });
    } finally {
      dead.close();
    }
  });
}
