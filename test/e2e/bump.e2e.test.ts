// Fee bumps from any unconfirmed wallet transaction in Chromium against the devnet (bump-flow.ts).
import { describe } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineBumpFlow } from './bump-flow';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`fee bumps from any wallet transaction (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  defineBumpFlow(() => startDevnetPayer('e2e-bump-pw'), (name) => `62-bump-${name}`);
});
