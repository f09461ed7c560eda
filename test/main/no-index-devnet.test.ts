/** A profile without an index (no-index-suite.ts) on the devnet; the devnet's own index is the reference. */
import { describe } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { defineNoIndexSuite } from './no-index-suite';

describe('no index: the node wallet alone (devnet)', () => {
  // The devnet's index is the chain itself: always synced.
  defineNoIndexSuite(async () => ({ ...(await startDevnetPayer('noidx-pw')), indexSynced: async () => undefined }));
});
