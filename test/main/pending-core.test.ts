/**
 * One number for pending (pending-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with a devnet index following that node.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { definePendingSuite } from './pending-suite';

describeWithBitcoind(
  'pending per address, totals = getbalances, against real Bitcoin Core',
  (node) =>
    definePendingSuite(async () => {
      const payer = await startCorePayer(node(), 101);
      const indexSynced = async (): Promise<void> => {
        const tip = await payer.rpc.call<string>('getbestblockhash');
        await payer.follower.follower.sync();
        await payer.follower.follower.waitFor((s) => s.synced && s.hash === tip, 120_000);
      };
      return { ...payer, indexSynced };
    }),
  { tag: 'pending-core' },
);
