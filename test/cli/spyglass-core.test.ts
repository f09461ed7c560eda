/**
 * `spyglass` (#31) against real Bitcoin Core — both generations under `npm run test:core` — with an
 * index following that node: the round trip through the command alone (spyglass-suite.ts). The bad
 * input cases run against the devnet (spyglass-devnet.test.ts): this file keeps to the round trip,
 * each step a child process, so that it stays short.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { defineRoundTrip } from './spyglass-suite';

describeWithBitcoind('spyglass round trip against real Bitcoin Core', (node) => void defineRoundTrip(() => startCorePayer(node(), 101), { extras: false }), { tag: 'spyglass-core' });
