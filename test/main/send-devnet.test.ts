/**
 * Send and the way back (send-suite.ts) against the devnet. Where the devnet does not serve a method
 * yet (the PSBT-role RPCs, testmempoolaccept…), the suite checks what the app does without it: the
 * second build is reported as not made, the node's cross-checks as not asked.
 */
import { startDevnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineSendSuite } from './send-suite';

defineSendSuite(async () => {
  const devnet = await startDevnet({ scenario: 'empty', rpcUser: 'alice', rpcPassword: 'send-pw' });
  const rpc = new TestRpc(devnet.rpcUrl, 'alice', 'send-pw');
  await rpc.call('createwallet', ['payer']);
  const mineTo = await rpc.call<string>('getnewaddress', [], 'payer');
  await rpc.call('generatetoaddress', [110, mineTo]);
  return {
    rpc,
    rpcUrl: devnet.rpcUrl,
    indexUrl: devnet.indexUrl,
    user: 'alice',
    password: 'send-pw',
    payer: 'payer',
    mine: async (n) => {
      await rpc.call('generatetoaddress', [n, mineTo]);
    },
    setDown: (down) => devnet.setFaults('rpc', down ? { mode: 'reset' } : {}),
    close: () => devnet.close(),
  };
});
