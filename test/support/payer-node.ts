/**
 * The node set-ups the send and wallet flows start from (send-suite.ts, send-flow.ts, wallet-flow.ts):
 * a wallet with mined coins that pays and mines, and an index.
 *
 * - startCorePayer: on the harness's real Bitcoin Core (test/support/bitcoind.ts), a wallet
 *   `payer-<time>` of its own and a devnet follower of that node as the index;
 * - startDevnetPayer: a devnet of its own (scenario `empty`, user `alice`), a wallet `payer` on it,
 *   the devnet's own index, and `setDown` through the devnet's RPC faults.
 * - followNode: the follower alone, synced (the refresh suite's index against real Core).
 */
import { startDevnet, startFollower, type RunningFollower } from '../../devnet/index';
import type { BitcoindNode } from './bitcoind';
import { TestRpc } from './rpc';

export interface PayerNode {
  rpc: TestRpc;
  rpcUrl: string;
  indexUrl: string;
  user: string;
  password: string;
  /** A wallet on the node with coins (pays and mines). */
  payer: string;
  mine(blocks: number): Promise<void>;
  /**
   * Makes the node unreachable (and back): the devnet through its RPC faults; real Core stopped and
   * started again on its datadir (test/support/core-down.ts).
   */
  setDown?(down: boolean): void | Promise<void>;
  /** The error code a call to the node gives while it is down: the devnet resets connections, a stopped Core refuses them. */
  downError?: 'net.reset' | 'net.refused';
  close(): Promise<void>;
}

/** A devnet follower of `node` (its index), once it has caught up with the node's chain. */
export async function followNode(node: BitcoindNode, opts: { pollMs: number; timeoutMs: number }): Promise<RunningFollower> {
  const follower = await startFollower({ url: node.url, user: node.user, password: node.password, pollMs: opts.pollMs, log: () => undefined });
  try {
    await follower.follower.waitFor((s) => s.synced, opts.timeoutMs);
    return follower;
  } catch (e) {
    await follower.close();
    throw e;
  }
}

/** A new wallet on real Core with `blocks` blocks mined to it (110: coins spendable after the flows' own mining), and a follower as the index. */
export async function startCorePayer(node: BitcoindNode, blocks: number): Promise<PayerNode & { follower: RunningFollower }> {
  const { rpc, url, user, password } = node;
  const payer = `payer-${Date.now().toString(36)}`;
  await rpc.call('createwallet', [payer]);
  const mineTo = await rpc.call<string>('getnewaddress', [], payer);
  await rpc.call('generatetoaddress', [blocks, mineTo]);
  const follower = await followNode(node, { pollMs: 100, timeoutMs: 120_000 });
  return {
    rpc,
    rpcUrl: url,
    indexUrl: follower.indexUrl,
    user,
    password,
    payer,
    mine: async (n) => {
      await rpc.call('generatetoaddress', [n, mineTo]);
      await rpc.call('syncwithvalidationinterfacequeue');
      // The index has the new blocks too (the follower polls): what the app looks up there is current.
      const tip = await rpc.call<string>('getbestblockhash');
      await follower.follower.waitFor((s) => s.synced && s.hash === tip, 120_000);
    },
    close: () => follower.close(),
    follower,
  };
}

/** A devnet of its own with a wallet `payer` holding 110 mined blocks' coins; `password` is the RPC password of user `alice`. */
export async function startDevnetPayer(password: string): Promise<PayerNode & { setDown(down: boolean): void; downError: 'net.reset' }> {
  const devnet = await startDevnet({ scenario: 'empty', rpcUser: 'alice', rpcPassword: password });
  const rpc = new TestRpc(devnet.rpcUrl, 'alice', password);
  await rpc.call('createwallet', ['payer']);
  const mineTo = await rpc.call<string>('getnewaddress', [], 'payer');
  await rpc.call('generatetoaddress', [110, mineTo]);
  return {
    rpc,
    rpcUrl: devnet.rpcUrl,
    indexUrl: devnet.indexUrl,
    user: 'alice',
    password,
    payer: 'payer',
    mine: async (n) => {
      await rpc.call('generatetoaddress', [n, mineTo]);
    },
    setDown: (down) => devnet.setFaults('rpc', down ? { mode: 'reset' } : {}),
    downError: 'net.reset',
    close: () => devnet.close(),
  };
}
