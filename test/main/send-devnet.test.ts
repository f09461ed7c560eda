/**
 * Send and the way back (send-suite.ts) against the devnet (test/support/payer-node.ts). Where the
 * devnet does not serve a method yet (the PSBT-role RPCs, testmempoolaccept…), the suite checks what
 * the app does without it: the second build is reported as not made, the node's cross-checks as not
 * asked.
 */
import { startDevnetPayer } from '../support/payer-node';
import { defineSendSuite } from './send-suite';

defineSendSuite(() => startDevnetPayer('send-pw'));
