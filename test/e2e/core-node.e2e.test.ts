/**
 * Chromium e2e against real Bitcoin Core (both generations under `npm run test:core`): "connect your
 * node" through the form and "watch a wallet" end to end (wallet-flow.ts), with an index following that
 * node. The same flow against the devnet: wallet.e2e.test.ts.
 */
import { startFollower } from '../../devnet/index';
import { describeWithBitcoind } from '../support/bitcoind';
import { e2eSkipReason } from './harness';
import { defineWalletFlow } from './wallet-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[core-node e2e] ${skip}`);

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: connect your node, watch a wallet',
  (node) =>
    defineWalletFlow(
      async () => {
        const { rpc, url, user, password, generation } = node();
        const payer = `payer-${Date.now().toString(36)}`;
        await rpc.call('createwallet', [payer]);
        const to = await rpc.call<string>('getnewaddress', [], payer);
        await rpc.call('generatetoaddress', [101, to]);
        const follower = await startFollower({ url, user, password, pollMs: 100, log: () => undefined });
        await follower.follower.waitFor((s) => s.synced, 120_000);
        void generation;
        return {
          rpc,
          rpcUrl: url,
          indexUrl: follower.indexUrl,
          user,
          password,
          payer,
          mine: async (n) => {
            await rpc.call('generatetoaddress', [n, to]);
            await rpc.call('syncwithvalidationinterfacequeue');
          },
          close: () => follower.close(),
        };
      },
      (name) => `60-core-${node().generation}-${name}`,
    ),
  { tag: 'core-node-e2e' },
);
