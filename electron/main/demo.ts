// "Try the demo": the built-in devnet (a Core-compatible regtest node and a bitaps-compatible index over
// one chain, scenario `demo`) started in this process on loopback ports. The one place in
// electron/main that imports devnet/.
import { randomBytes } from 'node:crypto';
import { startDevnet, type Devnet } from '../../devnet/index';

export interface DemoDevnet {
  rpcUrl: string;
  indexUrl: string;
  user: string;
  password: string;
  wallet: string;
  close(): Promise<void>;
}

export type StartDemo = () => Promise<DemoDevnet>;

export const startDemoDevnet: StartDemo = async () => {
  let devnet: Devnet;
  // A fresh random RPC password per run: it lives only in this process's memory.
  const password = randomBytes(18).toString('base64url');
  try {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'demo', rpcPassword: password });
  } catch (e) {
    throw new Error(`the devnet did not start: ${(e as Error).message}`);
  }
  return {
    rpcUrl: devnet.rpcUrl,
    indexUrl: devnet.indexUrl,
    user: devnet.auth.user,
    password: devnet.auth.password,
    wallet: devnet.scenario.watchWallet,
    close: () => devnet.close(),
  };
};
