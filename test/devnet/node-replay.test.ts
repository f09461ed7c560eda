/** The node-level suite against the devnet (real HTTP on loopback). */
import { afterAll, beforeAll } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { defineNodeSuite, type NodeTarget } from './node-suite';

let devnet: Devnet;
let target: NodeTarget;

beforeAll(async () => {
  devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty' });
  target = { rpc: new TestRpc(devnet.rpcUrl, 'spy', 'glass'), suffix: '' };
});
afterAll(async () => {
  await devnet?.close();
});

defineNodeSuite(() => target);
