/**
 * Send and the way back in Chromium against real Bitcoin Core (both generations under `npm run
 * test:core`; send-flow.ts), with an index following that node (test/support/payer-node.ts). The same
 * flow against the devnet: send.e2e.test.ts.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineSendFlow } from './send-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[send-core e2e] ${skip}`);

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: send, sign elsewhere, broadcast',
  (node) =>
    defineSendFlow(
      () => startCorePayer(node(), 110),
      (name) => `61-send-core-${node().generation}-${name}`,
    ),
  { tag: 'send-core-e2e' },
);
