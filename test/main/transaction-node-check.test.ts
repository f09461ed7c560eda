// The transaction view checks the index's block against the user's own node (getblockhash at the
// block's height), beside the merkle proof. Real parts: two devnets with the same seed (the same
// `demo` history, as twins) — one is the user's node, the other's index stands for an index that
// went on along another branch after the app connected; a real SQLite file; `dispatch` on the real
// services. The devnet node has no invalidateblock, so the other branch is the twin mining apart.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import type { TransactionView } from '../../shared/ipc/contract';
import { dispatchOk, startProfiledApp } from '../support/app';
import { TestRpc } from '../support/rpc';

let node: Devnet; // the user's node
let other: Devnet; // the twin whose index the app reads
let app: SpyglassApp;
let dir: string;

const view = (txid: string): Promise<TransactionView> => dispatchOk<TransactionView>(app, 'watch:transaction', { txid });
const coinbaseAt = (d: Devnet, height: number): string => d.node.chain.blockAt(height)!.txs[0]!.txid;

beforeAll(async () => {
  [node, other] = await Promise.all([
    startDevnet({ scenario: 'demo', seed: 'twins', rpcUser: 'u', rpcPassword: 'p' }),
    startDevnet({ scenario: 'demo', seed: 'twins', rpcUser: 'u', rpcPassword: 'p' }),
  ]);
  expect(other.node.chain.tip().hash).toBe(node.node.chain.tip().hash); // twins so far
  let state: string;
  ({ app, dir, state } = await startProfiledApp({ prefix: 'txcheck', name: 'Twins', nodeUrl: node.rpcUrl, indexUrl: other.indexUrl, rpcUser: 'u', password: 'p' }));
  expect(state).toBe('connected');
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([node?.close(), other?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('the transaction view against the node', () => {
  it('a block both have: the node vouches for it', async () => {
    const height = node.node.chain.tipHeight() - 3;
    const tx = await view(coinbaseAt(other, height));
    expect(tx.merkle).toMatchObject({ checked: true, valid: true });
    expect(tx.nodeBlock).toEqual({ state: 'same', message: `Your node has this block at height ${height}: the transaction is in your node's chain.` });
  });

  it('the index went on along another branch: a transaction of its block is not in the node\'s chain, whatever the merkle proof says', async () => {
    // The twin mines a payment into its own next block; the node mines a different one at that height.
    const otherRpc = new TestRpc(other.rpcUrl, 'u', 'p');
    const txid = await otherRpc.call<string>('sendtoaddress', [await otherRpc.call<string>('getnewaddress', [], 'other'), 0.5], 'miner');
    other.node.mine(1, Uint8Array.of(0x51)); // OP_TRUE: a script the node's branch does not use
    node.node.mine(1, Uint8Array.of(0x52));
    const height = node.node.chain.tipHeight();
    expect(other.node.chain.tipHeight()).toBe(height);
    expect(other.node.chain.tip().hash).not.toBe(node.node.chain.tip().hash);

    const tx = await view(txid);
    expect(tx.blockHeight).toBe(height);
    expect(tx.merkle).toMatchObject({ checked: true, valid: true }); // the proof is fine — within the index's own block
    expect(tx.nodeBlock?.state).toBe('different');
    expect(tx.nodeBlock?.message).toContain(`Your node has another block at height ${height} (${node.node.chain.tip().hash})`);
    expect(tx.nodeBlock?.message).toContain('do not count this transaction as confirmed');
  });

  it('the node is behind the index: it cannot vouch for the block yet', async () => {
    other.node.mine(1, Uint8Array.of(0x51));
    const height = other.node.chain.tipHeight();
    expect(node.node.chain.tipHeight()).toBe(height - 1);
    const tx = await view(coinbaseAt(other, height));
    expect(tx.nodeBlock).toEqual({ state: 'missing', message: `Your node has no block at height ${height} yet: it is behind the index, so it cannot vouch for this block.` });
  });

  it('an unconfirmed transaction has nothing to check', async () => {
    const otherRpc = new TestRpc(other.rpcUrl, 'u', 'p');
    const txid = await otherRpc.call<string>('sendtoaddress', [await otherRpc.call<string>('getnewaddress', [], 'other'), 0.1], 'miner');
    const tx = await view(txid);
    expect(tx.blockHeight).toBeNull();
    expect(tx.nodeBlock).toBeNull();
  });

  it('a payment the index has not seen yet (just made on the node): shown from the node, said so, spenders unknown', async () => {
    const nodeRpc = new TestRpc(node.rpcUrl, 'u', 'p');
    const txid = await nodeRpc.call<string>('sendtoaddress', [await nodeRpc.call<string>('getnewaddress', [], 'miner'), 0.2], 'miner');
    expect(await new TestRpc(other.rpcUrl, 'u', 'p').call<string[]>('getrawmempool')).not.toContain(txid); // the twin's index does not know it
    const tx = await view(txid);
    expect(tx).toMatchObject({ txid, source: 'node', confirmations: 0, blockHeight: null, nodeBlock: null });
    expect(tx.merkle).toEqual({ checked: false, valid: false, root: null, message: 'Unconfirmed: not in a block yet.' });
    const raw = await nodeRpc.call<{ vout: unknown[] }>('getrawtransaction', [txid, true]);
    expect(tx.outputs).toHaveLength(raw.vout.length);
    // Neither knows it: the index's "not found" stands.
    await expect(dispatchOk(app, 'watch:transaction', { txid: 'ab'.repeat(32) })).rejects.toThrow(/^watch:transaction: index\.not_found /);
    // A transaction the index knows is the index's.
    expect((await view(coinbaseAt(other, 1))).source).toBe('index');
  });

  it('a node that cannot be reached does not fail the view: the state says so', async () => {
    const height = node.node.chain.tipHeight() - 3;
    node.setFaults('rpc', { mode: 'http503' });
    try {
      const tx = await view(coinbaseAt(other, height));
      expect(tx.merkle).toMatchObject({ checked: true, valid: true });
      expect(tx.nodeBlock?.state).toBe('unknown');
      expect(tx.nodeBlock?.message).toMatch(new RegExp(`^Your node could not be asked for its block at height ${height}: `));
    } finally {
      node.setFaults('rpc', {});
    }
  });
});
