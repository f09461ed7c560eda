/**
 * A profile without an index (no-index-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with an index following that node as the reference.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { defineNoIndexSuite } from './no-index-suite';

describeWithBitcoind(
  'no index: the node wallet alone, against real Bitcoin Core',
  (node) =>
    defineNoIndexSuite(async () => {
      const payer = await startCorePayer(node(), 101);
      const indexSynced = async (): Promise<void> => {
        // Core's other wallets learn of a wallet's payment asynchronously (sendtoaddress does not wait for
        // them): the watch-only wallet must have it before both refreshes read it.
        await payer.rpc.call('syncwithvalidationinterfacequeue');
        const tip = await payer.rpc.call<string>('getbestblockhash');
        await payer.follower.follower.sync(); // a poll that starts after the last mempool change (not a wait for one)
        await payer.follower.follower.waitFor((s) => s.synced && s.hash === tip, 120_000);
      };
      return { ...payer, indexSynced };
    }),
  { tag: 'no-index-core' },
);
