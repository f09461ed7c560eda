/**
 * Two watch-only wallets of one profile on real Bitcoin Core (both generations under
 * `npm run test:core`), in Chromium (two-wallets-flow.ts), with an index following that node.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineTwoWalletsFlow } from './two-wallets-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[two-wallets e2e] ${skip}`);

describeWithBitcoind(
  'one wallet, one truth: two wallets on real Bitcoin Core (Chromium e2e)',
  (node) =>
    defineTwoWalletsFlow(
      () => startCorePayer(node(), 101),
      (name) => `90-wallets-core-${node().generation}-${name}`,
    ),
  { tag: 'two-wallets-e2e' },
);
