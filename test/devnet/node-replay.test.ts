/**
 * The node-level suite against the devnet (real HTTP on loopback), once per Core generation: mode 30
 * replays bitcoin-core-v30.jsonl, mode 31.99 replays bitcoin-core-v31.99-stateless.jsonl.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineNodeSuite, type NodeTarget } from './node-suite';

describe.each(['30', '31.99'] as const)('the devnet as Core %s', (coreVersion) => {
  let devnet: Devnet;
  let target: NodeTarget;

  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion });
    target = { rpc: new TestRpc(devnet.rpcUrl, 'spy', 'glass'), suffix: '' };
  });
  afterAll(async () => {
    await devnet?.close();
  });

  defineNodeSuite(() => target, coreVersion);
});
