// Send and the way back in Chromium against the devnet (send-flow.ts; the devnet: test/support/payer-node.ts).
import { describe } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { defineSendFlow } from './send-flow';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`send (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  defineSendFlow(() => startDevnetPayer('e2e-send-pw'), (name) => `60-send-${name}`);
});
