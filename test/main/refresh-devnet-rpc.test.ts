/**
 * The refresh suite (refresh-suite.ts) against the devnet's node as a stand-in bitcoind (an empty
 * chain, reached over RPC only: the suite never looks inside it), index = a follower of it, so that
 * the path runs in every test run; refresh-external.test.ts runs it against real Bitcoin Core.
 */
import { describe } from 'vitest';
import { startDevnet, startFollower, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineRefreshSuite } from './refresh-suite';

describe('refresh against the devnet node as a stand-in bitcoind (RPC only), index = a follower of it', () =>
  defineRefreshSuite(async () => {
    const devnet: Devnet = await startDevnet({ scenario: 'empty' });
    const follower = await startFollower({ url: devnet.rpcUrl, user: devnet.auth.user, password: devnet.auth.password, pollMs: 50, log: () => undefined });
    await follower.follower.waitFor((s) => s.synced, 30_000);
    return {
      rpc: new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password),
      rpcUrl: devnet.rpcUrl,
      user: devnet.auth.user,
      password: devnet.auth.password,
      follower,
      close: async () => {
        await follower.close();
        await devnet.close();
      },
    };
  }));
