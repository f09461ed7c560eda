/** The watch-only wallet suite (wallet-suite.ts) against the devnet (real Core: wallet-core.test.ts). */
import { startDevnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineWalletSuite } from './wallet-suite';

defineWalletSuite(async () => {
  const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  const rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
  const to = await rpc.call<string>('getnewaddress', [], 'miner');
  return {
    rpc,
    rpcUrl: devnet.rpcUrl,
    indexUrl: devnet.indexUrl,
    user: 'u',
    password: 'p',
    payer: 'miner',
    mine: async (n) => void (await rpc.call('generatetoaddress', [n, to])),
    close: () => devnet.close(),
  };
});
