/**
 * Send and the way back (send-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with an index following that node. The node's own wallet `payer` mines and pays
 * (test/support/payer-node.ts).
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { defineSendSuite } from './send-suite';

describeWithBitcoind('send against real Bitcoin Core', (node) => defineSendSuite(() => startCorePayer(node(), 110)), { tag: 'send-core' });
