// Send and the way back in Chromium against the devnet (send-flow.ts).
import { describe } from 'vitest';
import { startDevnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { e2eSkipReason } from './harness';
import { defineSendFlow } from './send-flow';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`send (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  defineSendFlow(async () => {
    const devnet = await startDevnet({ scenario: 'empty', rpcUser: 'alice', rpcPassword: 'e2e-send-pw' });
    const rpc = new TestRpc(devnet.rpcUrl, 'alice', 'e2e-send-pw');
    await rpc.call('createwallet', ['payer']);
    const mineTo = await rpc.call<string>('getnewaddress', [], 'payer');
    await rpc.call('generatetoaddress', [110, mineTo]);
    return {
      rpc,
      rpcUrl: devnet.rpcUrl,
      indexUrl: devnet.indexUrl,
      user: 'alice',
      password: 'e2e-send-pw',
      payer: 'payer',
      mine: async (k) => void (await rpc.call('generatetoaddress', [k, mineTo])),
      close: () => devnet.close(),
    };
  }, (name) => `60-send-${name}`);
});
