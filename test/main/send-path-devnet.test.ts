/** Send along a spending path (send-path-suite.ts) against the devnet. */
import { startDevnetPayer } from '../support/payer-node';
import { defineSendPathSuite } from './send-path-suite';

defineSendPathSuite(() => startDevnetPayer('sendpath-pw'));
