/**
 * The index follower against a real `bitcoind -regtest`: the same checks as follow.test.ts runs on
 * the devnet (follow-suite.ts) — every block, transaction, mempool entry and UTXO list of the recent
 * chain agrees with the node's own RPC, new blocks and a payment (mempool first, then confirmed) —
 * and a real reorg: `invalidateblock` on the block holding the payment (Core returns it to the
 * mempool, and so must the index), then a longer competing branch; `reconsiderblock` afterwards.
 *
 * Runs on the harness's node (test/support/bitcoind.ts): a private `bitcoind -regtest` from BITCOIND or
 * PATH (both generations under `npm run test:core`), or the node at BITCOIND_URL, which may hold other
 * wallets and blocks (a wallet `follow-<time>` is created; blocks from the last ~120 heights are
 * checked). Without a node the file skips, saying how to enable it (fails when CI=true).
 */
import { startFollower } from '../../devnet/index';
import { describeWithBitcoind } from '../support/bitcoind';
import { defineFollowSuite, indexGet, until, type FollowTarget } from './follow-suite';

describeWithBitcoind(
  'a follower of a real bitcoind',
  (node) =>
    defineFollowSuite(async (): Promise<FollowTarget> => {
      const { rpc, url, user, password } = node();
      const wallet = `follow-${Date.now().toString(36)}`;
      await rpc.call('createwallet', [wallet]);
      const start = await rpc.call<number>('getblockcount');
      const miner = await rpc.call<string>('getnewaddress', [], wallet);
      await rpc.call('generatetoaddress', [101, miner]);
      // Payments to every address type, some of them spent again: inputs with prevouts, change, spenders.
      const addresses: string[] = [];
      for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) {
        const a = await rpc.call<string>('getnewaddress', [type, type], wallet);
        addresses.push(a);
        await rpc.call('sendtoaddress', [a, 1.25], wallet);
      }
      await rpc.call('generatetoaddress', [1, miner]);
      await rpc.call('sendtoaddress', [addresses[0], 0.5], wallet);
      await rpc.call('sendtoaddress', [await rpc.call<string>('getnewaddress', [], wallet), 3], wallet);
      await rpc.call('generatetoaddress', [1, miner]);
      await rpc.call('sendtoaddress', [addresses[2], 0.1], wallet); // left in the mempool

      const log: string[] = [];
      const follower = await startFollower({ url, user, password, pollMs: 200, log: (l) => log.push(l) });
      await follower.follower.waitFor((s) => s.synced, 300_000);
      console.info(`[follow-bitcoind] ${log.join(' | ')}`);
      const stale: string[] = [];
      return {
        rpc,
        follower,
        wallet,
        checkFrom: Math.max(0, start - 10),
        addresses,
        async reorg(payTxid) {
          const tip = await rpc.call<string>('getbestblockhash');
          stale.push(tip);
          await rpc.call('invalidateblock', [tip]);
          // Core puts the block's transactions back into its mempool: the index shows the payment unconfirmed.
          await until('the payment back in the mempool', async () => {
            const r = await indexGet(follower.indexUrl, `transaction/${payTxid}`);
            return r.status === 200 && r.data.blockHash === null;
          });
          const other = await rpc.call<string>('getnewaddress', [], wallet);
          await rpc.call('generatetoaddress', [2, other]);
          return { stale: [tip] };
        },
        async close() {
          await follower.close();
          // The stale block has less work than the new branch: reconsidering it changes nothing but its flag.
          for (const h of stale) await rpc.call('reconsiderblock', [h]).catch(() => {});
          await rpc.call('unloadwallet', [wallet]).catch(() => {});
        },
      };
    }),
  { tag: 'follow-bitcoind' },
);
