/**
 * Send and the way back (send-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with an index following that node. The node's own wallet `payer` mines and pays
 * (test/support/payer-node.ts). The node-down case stops Core and starts it again on its datadir and
 * port (test/support/core-down.ts); against a node at BITCOIND_URL, which is not ours to stop, it skips.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { coreDownSwitch } from '../support/core-down';
import { startCorePayer } from '../support/payer-node';
import { defineSendSuite } from './send-suite';

describeWithBitcoind(
  'send against real Bitcoin Core',
  (node) =>
    defineSendSuite(async () => {
      const payer = await startCorePayer(node(), 110);
      const power = coreDownSwitch(node());
      if (!power) return payer;
      return {
        ...payer,
        setDown: (down: boolean) => power.setDown(down),
        downError: 'net.refused' as const,
        close: async () => {
          await power.close();
          await payer.close();
        },
      };
    }),
  { tag: 'send-core' },
);
