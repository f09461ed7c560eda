/**
 * What you review is what you sign (send-preview-suite.ts) against the devnet (test/support/payer-node.ts).
 */
import { startDevnetPayer } from '../support/payer-node';
import { definePreviewSuite } from './send-preview-suite';

definePreviewSuite(() => startDevnetPayer('preview-pw'));
