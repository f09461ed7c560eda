/** Never watch a key-holding wallet silently (wallet-choice-suite.ts) on the devnet: a node whose only wallet is `miner`, with keys. */
import { startDevnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineWalletChoiceSuite } from './wallet-choice-suite';

defineWalletChoiceSuite(async () => {
  const devnet = await startDevnet({ scenario: 'empty', rpcUser: 'u', rpcPassword: 'p' });
  const rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
  await rpc.call('createwallet', ['miner']);
  await rpc.call('generatetoaddress', [101, await rpc.call<string>('getnewaddress', [], 'miner')]);
  return { rpc, rpcUrl: devnet.rpcUrl, user: 'u', password: 'p', keyWallet: 'miner', close: () => devnet.close() };
});
