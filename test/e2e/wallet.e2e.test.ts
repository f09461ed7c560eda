/**
 * Chromium e2e against the devnet: "connect your node" through the form and "watch a wallet" end to
 * end (wallet-flow.ts; the same flow against real Bitcoin Core of both generations: core-node.e2e.test.ts).
 */
import { describe } from 'vitest';
import { startDevnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { e2eSkipReason } from './harness';
import { defineWalletFlow } from './wallet-flow';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`watch a wallet on the devnet (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  defineWalletFlow(
    async () => {
      const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'flow', rpcPassword: 'e2e-flow-pw' });
      const rpc = new TestRpc(devnet.rpcUrl, 'flow', 'e2e-flow-pw');
      const to = await rpc.call<string>('getnewaddress', [], 'miner');
      return {
        rpc,
        rpcUrl: devnet.rpcUrl,
        indexUrl: devnet.indexUrl,
        user: 'flow',
        password: 'e2e-flow-pw',
        payer: 'miner',
        mine: async (n) => void (await rpc.call('generatetoaddress', [n, to])),
        close: () => devnet.close(),
      };
    },
    (name) => `61-devnet-${name}`,
  );
});
