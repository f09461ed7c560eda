/**
 * A profile without an index (no-index-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with an index following that node as the reference.
 */
import { startFollower } from '../../devnet/index';
import { describeWithBitcoind } from '../support/bitcoind';
import { defineNoIndexSuite } from './no-index-suite';

describeWithBitcoind(
  'no index: the node wallet alone, against real Bitcoin Core',
  (node) =>
    defineNoIndexSuite(async () => {
      const { rpc, url, user, password } = node();
      const payer = `payer-${Date.now().toString(36)}`;
      await rpc.call('createwallet', [payer]);
      const mineTo = await rpc.call<string>('getnewaddress', [], payer);
      await rpc.call('generatetoaddress', [101, mineTo]);
      const follower = await startFollower({ url, user, password, pollMs: 100, log: () => undefined });
      const synced = async (): Promise<void> => {
        const tip = await rpc.call<string>('getbestblockhash');
        await new Promise((r) => setTimeout(r, 500)); // a poll after the last mempool change (pollMs 100)
        await follower.follower.waitFor((s) => s.synced && s.hash === tip, 120_000);
      };
      await synced();
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
        indexSynced: synced,
        close: () => follower.close(),
      };
    }),
  { tag: 'no-index-core' },
);
