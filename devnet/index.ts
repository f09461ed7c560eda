/**
 * Library API of the devnet: `startDevnet(options)` starts a Bitcoin Core–compatible regtest node
 * (interface A) and a bitaps-compatible index (interface B) over one chain, on 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DevnetNode } from './node/node';
import { RpcServer } from './rpc/server';
import { statelessMethods } from './rpc/stateless';
import { IndexServer } from './index/server';
import { Faults, type FaultConfig } from './faults';
import { listen, type Listening } from './http';
import { buildScenario, parseScenario, type ScenarioInfo } from './scenarios';
import type { CoreVersion } from './core-version';

export { CORE_VERSIONS, DEFAULT_CORE_VERSION, parseCoreVersion, type CoreVersion } from './core-version';

export { startFollower, Follower, type StartFollowerOptions, type RunningFollower, type FollowerStatus } from './follow/follower';

export interface DevnetOptions {
  /** 0 (default) picks a free port. */
  rpcPort?: number;
  indexPort?: number;
  rpcUser?: string;
  rpcPassword?: string;
  /** empty | demo | large:N (default empty). */
  scenario?: string;
  /** Same seed → same chain (default 'spyglass'). */
  seed?: string;
  /** When set, the RPC cookie file (`.cookie`, user `__cookie__`) is written here as Core does. */
  datadir?: string;
  faults?: { rpc?: FaultConfig; index?: FaultConfig };
  /** Serve an already built node (its scenario is then not built again; it keeps its own coreVersion). */
  node?: DevnetNode;
  /** The Bitcoin Core generation to answer as: '31.99' (default, current Core) or '30'. */
  coreVersion?: CoreVersion;
  /** Milliseconds per block of wallet rescans, which then run observably (getwalletinfo scanning, abortrescan); default 0. */
  rescanDelayMs?: number;
}

export interface Devnet {
  rpcUrl: string;
  indexUrl: string;
  auth: { user: string; password: string };
  /** Path of the cookie file when `datadir` was given. */
  cookieFile: string | null;
  scenario: ScenarioInfo;
  node: DevnetNode;
  /** Replace the fault configuration of one interface at run time (pass {} to clear). */
  setFaults(which: 'rpc' | 'index', config: FaultConfig): void;
  close(): Promise<void>;
}

export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const seed = options.seed ?? 'spyglass';
  const user = options.rpcUser ?? 'spyglass';
  const password = options.rpcPassword ?? 'devnet';
  const walletDir = options.datadir ? join(options.datadir, 'regtest', 'wallets') : undefined;
  const node = options.node ?? new DevnetNode({ seed, coreVersion: options.coreVersion, walletDir, rescanDelayMs: options.rescanDelayMs });
  if (options.node && options.coreVersion && options.coreVersion !== node.coreVersion) {
    throw new Error(`the node answers as Core ${node.coreVersion}, not ${options.coreVersion}`);
  }
  const scenario: ScenarioInfo = options.node
    ? { watchWallet: node.wallets.has('watch') ? 'watch' : '', wallets: [...node.wallets.keys()] }
    : buildScenario(node, parseScenario(options.scenario ?? 'empty'), seed);

  let cookieFile: string | null = null;
  let cookie: string | null = null;
  if (options.datadir) {
    const dir = join(options.datadir, 'regtest');
    mkdirSync(dir, { recursive: true });
    cookie = `__cookie__:${Buffer.from(node.walletSeed('__cookie__')).toString('hex')}`;
    cookieFile = join(dir, '.cookie');
    writeFileSync(cookieFile, cookie, { mode: 0o600 });
  }
  const expected = [`${user}:${password}`, ...(cookie ? [cookie] : [])];

  const rpcFaults = new Faults('rpc');
  const indexFaults = new Faults('index');
  if (options.faults?.rpc) rpcFaults.set(options.faults.rpc);
  if (options.faults?.index) indexFaults.set(options.faults.index);

  const rpc = new RpcServer({
    auth: (header) => {
      if (!header || !header.startsWith('Basic ')) return false;
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      return expected.includes(decoded);
    },
    methods: [...statelessMethods(node.network, node.coreVersion), ...node.methods()],
    // Core before 31.99 serves HTTP through libevent; 31.99 has its own HTTP server.
    http: node.coreVersion === '30' ? 'libevent' : 'core',
  });
  const index = new IndexServer(node.chain);

  const servers: Listening[] = [];
  try {
    servers.push(
      await listen(options.rpcPort ?? 0, rpcFaults, async (req) => {
        rpc.setWarmup(rpcFaults.warmupMessage());
        return rpc.handle({
          method: req.method,
          path: req.target,
          headers: { authorization: req.headers.authorization },
          body: req.body,
        });
      }),
    );
    servers.push(
      await listen(options.indexPort ?? 0, indexFaults, (req) =>
        index.handle({ method: req.method, path: req.url.pathname, query: req.url.searchParams }),
      ),
    );
  } catch (e) {
    await Promise.all(servers.map((s) => s.close()));
    throw e;
  }
  const [rpcServer, indexServer] = servers as [Listening, Listening];
  return {
    rpcUrl: `http://127.0.0.1:${rpcServer.port}`,
    indexUrl: `http://127.0.0.1:${indexServer.port}`,
    auth: { user, password },
    cookieFile,
    scenario,
    node,
    setFaults: (which, config) => (which === 'rpc' ? rpcFaults : indexFaults).set(config),
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
