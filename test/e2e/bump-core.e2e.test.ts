/**
 * Fee bumps from any unconfirmed wallet transaction in Chromium against real Bitcoin Core (both
 * generations under `npm run test:core`; bump-flow.ts), with an index following that node. The same
 * flow against the devnet: bump.e2e.test.ts.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineBumpFlow } from './bump-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[bump-core e2e] ${skip}`);

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: RBF and CPFP from any wallet transaction',
  (node) =>
    defineBumpFlow(
      () => startCorePayer(node(), 110),
      (name) => `62-bump-core-${node().generation}-${name}`,
    ),
  { tag: 'bump-core-e2e' },
);
