/**
 * The refresh suite (refresh-suite.ts) against real Bitcoin Core, index = a follower of it: the
 * harness's node (test/support/bitcoind.ts) — a private `bitcoind -regtest` from BITCOIND or PATH
 * (both generations under `npm run test:core`), or the node at BITCOIND_URL. Without a node the file
 * skips, saying how to enable it (fails when CI=true). The devnet stand-in: refresh-devnet-rpc.test.ts.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { followNode } from '../support/payer-node';
import { defineRefreshSuite } from './refresh-suite';

describeWithBitcoind(
  'refresh against a real bitcoind, index = a follower of it',
  (node) =>
    defineRefreshSuite(async () => {
      const { rpc, url, user, password } = node();
      const follower = await followNode(node(), { pollMs: 200, timeoutMs: 300_000 });
      return {
        rpc,
        rpcUrl: url,
        user,
        password,
        follower,
        walletsSynced: async () => void (await rpc.call('syncwithvalidationinterfacequeue')),
        close: () => follower.close(),
      };
    }),
  { tag: 'refresh-external' },
);
