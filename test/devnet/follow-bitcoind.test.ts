/**
 * The index follower against a real `bitcoind -regtest`: the same checks as follow.test.ts runs on
 * the devnet (follow-suite.ts) — every block, transaction, mempool entry and UTXO list of the recent
 * chain agrees with the node's own RPC, new blocks and a payment (mempool first, then confirmed) —
 * and a real reorg: `invalidateblock` on the block holding the payment (Core returns it to the
 * mempool, and so must the index), then a longer competing branch; `reconsiderblock` afterwards.
 *
 * Set BITCOIND_URL (e.g. http://127.0.0.1:18443), BITCOIND_USER and BITCOIND_PASSWORD; the node needs
 * `-fallbackfee=0.0002` (for sendtoaddress) and may hold other wallets and blocks (a wallet
 * `follow-<time>` is created; blocks from the last ~120 heights are checked). Skipped otherwise —
 * no bitcoind can be installed here.
 */
import { describe, it } from 'vitest';
import { startFollower } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineFollowSuite, indexGet, until, type FollowTarget } from './follow-suite';

const url = process.env.BITCOIND_URL?.replace(/\/$/, '');

if (url) {
  const user = process.env.BITCOIND_USER ?? '';
  const password = process.env.BITCOIND_PASSWORD ?? '';
  describe(`a follower of the real bitcoind at ${url}`, () =>
    defineFollowSuite(async (): Promise<FollowTarget> => {
      const rpc = new TestRpc(url, user, password);
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
  );
} else {
  describe('the follower against a real bitcoind', () => {
    it.skip('skipped: BITCOIND_URL is not set (no bitcoind on this machine); set BITCOIND_URL, BITCOIND_USER, BITCOIND_PASSWORD to run the follower suite against a real regtest node', () => {});
  });
  console.info('[follow-bitcoind] skipped: set BITCOIND_URL (+ BITCOIND_USER, BITCOIND_PASSWORD) to run the index follower against a real bitcoind -regtest');
}
