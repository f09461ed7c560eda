/** Fee bumps from any unconfirmed wallet transaction (bump-any-suite.ts) against the devnet. */
import { startDevnetPayer } from '../support/payer-node';
import { defineBumpAnySuite } from './bump-any-suite';

defineBumpAnySuite(() => startDevnetPayer('bump-pw'));
