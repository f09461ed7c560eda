/**
 * What you review is what you sign (send-preview-suite.ts) against real Bitcoin Core — both
 * generations under `scripts/test-core.sh` — with an index following that node.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { definePreviewSuite } from './send-preview-suite';

describeWithBitcoind('preview = built against real Bitcoin Core', (node) => definePreviewSuite(() => startCorePayer(node(), 110)), { tag: 'send-preview-core' });
