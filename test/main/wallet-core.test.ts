/**
 * The watch-only wallet suite (wallet-suite.ts) against real Bitcoin Core — both generations under
 * `npm run test:core` — with an index following that node. The node's own wallet `payer` mines and pays.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { startCorePayer } from '../support/payer-node';
import { defineWalletSuite } from './wallet-suite';

describeWithBitcoind('watch any wallet against real Bitcoin Core', (node) => defineWalletSuite(() => startCorePayer(node(), 101)), { tag: 'wallet-core' });
