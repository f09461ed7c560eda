/**
 * Chromium e2e against real Bitcoin Core (both generations under `npm run test:core`): "connect your
 * node" through the form and "watch a wallet" end to end (wallet-flow.ts), with an index following that
 * node (test/support/payer-node.ts). The same flow against the devnet: wallet.e2e.test.ts.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineWalletFlow } from './wallet-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[core-node e2e] ${skip}`);

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: connect your node, watch a wallet',
  (node) =>
    defineWalletFlow(
      () => startCorePayer(node(), 101),
      (name) => `60-core-${node().generation}-${name}`,
    ),
  { tag: 'core-node-e2e' },
);
