/**
 * Hardware wallets over USB (#30) in Chromium against real Bitcoin Core (both generations under `npm run
 * test:core`; hwi-flow.ts), with an index following that node. The same flow on the devnet:
 * hwi.e2e.test.ts (which also runs the Signers page and a declined signature). The test HWI program
 * stands in for the device.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineHwiFlow } from './hwi-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[hwi-core e2e] ${skip}`);

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: a hardware wallet over USB (the test HWI program)',
  (node) =>
    defineHwiFlow(
      () => startCorePayer(node(), 110),
      (name) => `71-hwi-core-${node().generation}-${name}`,
      { lean: true },
    ),
  { tag: 'hwi-core-e2e' },
);
