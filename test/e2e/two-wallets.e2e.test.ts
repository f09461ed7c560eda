/**
 * Two watch-only wallets of one profile on the devnet, in Chromium (two-wallets-flow.ts; the same flow
 * against real Bitcoin Core of both generations: two-wallets-core.e2e.test.ts).
 */
import { describe } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineTwoWalletsFlow } from './two-wallets-flow';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`one wallet, one truth: two wallets on the devnet (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  defineTwoWalletsFlow(() => startDevnetPayer('e2e-two-wallets-pw'), (name) => `90-wallets-devnet-${name}`);
});
