/** One number for pending (pending-suite.ts) on the devnet: its wallet, its index. */
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { definePendingSuite } from './pending-suite';

describe('pending per address, totals = getbalances (devnet)', () => {
  definePendingSuite(async () => {
    const node = await startDevnetPayer(randomBytes(12).toString('hex'));
    return { ...node, indexSynced: async () => undefined };
  });
});
