/** A profile without an index (no-index-suite.ts) on the devnet; the devnet's own index is the reference. */
import { describe } from 'vitest';
import { startDevnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineNoIndexSuite } from './no-index-suite';

describe('no index: the node wallet alone (devnet)', () => {
  defineNoIndexSuite(async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'noidx', rpcPassword: 'noidx-pw' });
    const rpc = new TestRpc(devnet.rpcUrl, 'noidx', 'noidx-pw');
    const to = await rpc.call<string>('getnewaddress', [], 'miner');
    return {
      rpc,
      rpcUrl: devnet.rpcUrl,
      indexUrl: devnet.indexUrl,
      user: 'noidx',
      password: 'noidx-pw',
      payer: 'miner',
      mine: async (n) => void (await rpc.call('generatetoaddress', [n, to])),
      indexSynced: async () => undefined, // the devnet's index is the chain itself
      close: () => devnet.close(),
    };
  });
});
