/**
 * Hardware wallets over USB (#30) in Chromium against the devnet (hwi-flow.ts); the test HWI program
 * stands in for the device.
 */
import { describe } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineHwiFlow } from './hwi-flow';

const skip = e2eSkipReason();
if (skip) console.warn(`[hwi e2e] ${skip}`);

describe.skipIf(skip !== null)('Chromium e2e on the devnet: a hardware wallet over USB (the test HWI program)', () => {
  defineHwiFlow(
    () => startDevnetPayer('hwi-e2e-pw'),
    (name) => `70-hwi-${name}`,
  );
});
