/** Send along a spending path (send-path-suite.ts) against real Bitcoin Core — both generations under `npm run test:core`. */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { defineSendPathSuite } from './send-path-suite';

describeWithBitcoind('send along a spending path against real Bitcoin Core', (node) => defineSendPathSuite(() => startCorePayer(node(), 110)), { tag: 'send-path-core' });
