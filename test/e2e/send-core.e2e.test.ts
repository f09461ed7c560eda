/**
 * Send and the way back in Chromium against real Bitcoin Core (both generations under `npm run
 * test:core`; send-flow.ts), with an index following that node. The same flow against the devnet:
 * send.e2e.test.ts.
 */
import { startFollower } from '../../devnet/index';
import { describeWithBitcoind } from '../support/bitcoind';
import { e2eSkipReason } from './harness';
import { defineSendFlow } from './send-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[send-core e2e] ${skip}`);

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: send, sign elsewhere, broadcast',
  (node) =>
    defineSendFlow(
      async () => {
        const { rpc, url, user, password } = node();
        const payer = `payer-${Date.now().toString(36)}`;
        await rpc.call('createwallet', [payer]);
        const to = await rpc.call<string>('getnewaddress', [], payer);
        await rpc.call('generatetoaddress', [110, to]);
        const follower = await startFollower({ url, user, password, pollMs: 100, log: () => undefined });
        await follower.follower.waitFor((s) => s.synced, 120_000);
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
      (name) => `61-send-core-${node().generation}-${name}`,
    ),
  { tag: 'send-core-e2e' },
);
