/**
 * Send and the way back (send-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with an index following that node. The node's own wallet `payer` mines and pays.
 */
import { startFollower } from '../../devnet/index';
import { describeWithBitcoind } from '../support/bitcoind';
import { defineSendSuite } from './send-suite';

describeWithBitcoind(
  'send against real Bitcoin Core',
  (node) =>
    defineSendSuite(async () => {
      const { rpc, url, user, password } = node();
      const payer = `payer-${Date.now().toString(36)}`;
      await rpc.call('createwallet', [payer]);
      const mineTo = await rpc.call<string>('getnewaddress', [], payer);
      await rpc.call('generatetoaddress', [110, mineTo]);
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
          await rpc.call('generatetoaddress', [n, mineTo]);
          await rpc.call('syncwithvalidationinterfacequeue');
        },
        close: () => follower.close(),
      };
    }),
  { tag: 'send-core' },
);
