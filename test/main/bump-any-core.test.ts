/**
 * Fee bumps from any unconfirmed wallet transaction (bump-any-suite.ts) against real Bitcoin Core —
 * both generations under `npm run test:core` — with an index following that node: a payment received
 * at 1 sat/vB bumped by CPFP and both mined in the next block; a payment made by the node's own key
 * wallet from the same keys bumped by RBF (Core's psbtbumpfee and the build here agreeing), mined.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { defineBumpAnySuite } from './bump-any-suite';

describeWithBitcoind('fee bumps from any wallet transaction against real Bitcoin Core', (node) => defineBumpAnySuite(() => startCorePayer(node(), 110)), { tag: 'bump-any-core' });
