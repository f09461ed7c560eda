/**
 * Never watch a key-holding wallet silently (wallet-choice-suite.ts) against real Bitcoin Core, both
 * generations under `npm run test:core`: the node's other wallets are unloaded for the run (and loaded
 * again after), so a wallet with keys created here is its only one.
 */
import { describeWithBitcoind } from '../support/bitcoind';
import { defineWalletChoiceSuite } from './wallet-choice-suite';

describeWithBitcoind(
  'never watch a key-holding wallet silently, against real Bitcoin Core',
  (node) =>
    defineWalletChoiceSuite(async () => {
      const { rpc, url, user, password } = node();
      const others = await rpc.call<string[]>('listwallets');
      for (const w of others) await rpc.call('unloadwallet', [w]);
      const keyWallet = `keys-${Date.now().toString(36)}`;
      await rpc.call('createwallet', [keyWallet]);
      await rpc.call('generatetoaddress', [101, await rpc.call<string>('getnewaddress', [], keyWallet)]);
      return {
        rpc,
        rpcUrl: url,
        user,
        password,
        keyWallet,
        close: async () => {
          for (const w of await rpc.call<string[]>('listwallets')) if (!others.includes(w)) await rpc.call('unloadwallet', [w]);
          for (const w of others) await rpc.call('loadwallet', [w]).catch(() => undefined);
        },
      };
    }),
  { tag: 'wallet-choice-core' },
);
