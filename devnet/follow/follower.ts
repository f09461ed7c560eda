/**
 * The index follower: keeps a {@link FollowView} equal to another node's active chain and mempool
 * by polling it with standard Bitcoin Core RPCs only, and serves interface B from it with the
 * devnet's own index server.
 *
 * Every poll: `getblockcount` + `getbestblockhash`. When the tip moved, the fork point is found by
 * comparing the stored hashes with `getblockhash` from the stored tip down (1, then 16, 64… heights
 * per batch); blocks above it are dropped and the node's blocks are fetched in JSON-RPC batches
 * (`getblockhash` for a range of heights, then `getblock <hash> 0` for the exact bytes). Inputs are
 * resolved from the view itself, which holds every output since genesis, so verbosity 3 prevouts are
 * not needed. The mempool follows `getrawmempool` (checked against `getbestblockhash` in the same
 * batch); new entries come from `getrawtransaction <txid> false` + `getmempoolentry` (first-seen time).
 * The blocks are block-sync.ts's, the mempool mempool-sync.ts's; this file runs the polls and serves.
 */
import { IndexServer } from '../index/server';
import { Faults, type FaultConfig } from '../faults';
import { listen } from '../http';
import { FollowRpc, RpcCallError, type FollowRpcOptions } from './rpc-client';
import { FollowView } from './view';
import { BlockSync } from './block-sync';
import { MempoolSync } from './mempool-sync';

export interface FollowerOptions extends FollowRpcOptions {
  /** Tip poll interval (default 1000 ms). */
  pollMs?: number;
  /** Progress and error lines (default: stderr). Pass `() => {}` to silence. */
  log?: (line: string) => void;
  /** Blocks per JSON-RPC batch during the initial sync (default 50). */
  blocksPerBatch?: number;
}

export interface FollowerStatus {
  /** The view's tip (height -1 before the genesis block is indexed). */
  height: number;
  hash: string | null;
  /** The node's tip at the last poll. */
  nodeHeight: number | null;
  nodeHash: string | null;
  /** The view's tip equals the node's and the mempool was read at that tip. */
  synced: boolean;
  mempool: number;
  blocksIndexed: number;
  reorgs: number;
  lastError: string | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class Follower {
  readonly view = new FollowView();
  readonly rpc: FollowRpc;
  private readonly pollMs: number;
  private readonly log: (line: string) => void;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nodeHeight: number | null = null;
  private nodeHash: string | null = null;
  private lastError: string | null = null;
  private readonly mempool: MempoolSync;
  private readonly blocks: BlockSync;
  /** waitFor() callers: each check resolves its promise when its condition holds. */
  private readonly waiters = new Map<() => boolean, (e: Error) => void>();
  /** Polls never overlap (the loop and {@link sync} share this). */
  private busy: Promise<void> = Promise.resolve();

  constructor(opts: FollowerOptions) {
    this.rpc = new FollowRpc(opts);
    this.pollMs = opts.pollMs ?? 1000;
    this.log = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.mempool = new MempoolSync(this.view, this.rpc, this.log);
    this.blocks = new BlockSync(this.view, this.rpc, Math.max(1, opts.blocksPerBatch ?? 50), this.log, () => this.mempool.reorged());
  }

  status(): FollowerStatus {
    const tip = this.view.tip();
    return {
      height: this.view.tipHeight(),
      hash: tip?.hash ?? null,
      nodeHeight: this.nodeHeight,
      nodeHash: this.nodeHash,
      synced: tip !== undefined && tip.hash === this.nodeHash && this.mempool.at === tip.hash,
      mempool: this.view.mempoolSize,
      blocksIndexed: this.blocks.blocksIndexed,
      reorgs: this.blocks.reorgs,
      lastError: this.lastError,
    };
  }

  /**
   * Checks the node once (reachable, credentials, regtest) and returns its chain info. Waits while
   * the node warms up (-28); any other failure is thrown with a message for people.
   */
  async connect(): Promise<{ chain: string; blocks: number }> {
    for (;;) {
      try {
        const info = await this.rpc.call<{ chain: string; blocks: number; bestblockhash: string }>('getblockchaininfo');
        if (info.chain !== 'regtest') {
          throw new Error(
            `the node at ${this.rpc.displayUrl} is on '${info.chain}': the devnet index renders regtest addresses and the regtest subsidy, so it follows regtest nodes only`,
          );
        }
        this.log(`follow: node ${this.rpc.displayUrl} (regtest, height ${info.blocks}, tip ${info.bestblockhash})`);
        return info;
      } catch (e) {
        if (e instanceof RpcCallError && e.code === -28) {
          this.note(`node is starting (${e.message}); waiting`);
          await sleep(Math.max(200, this.pollMs));
          continue;
        }
        throw e;
      }
    }
  }

  /** Starts polling in the background. */
  start(): void {
    if (this.loop) return;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.rpc.close();
    for (const [check, reject] of [...this.waiters]) if (!check()) reject(new Error('follower stopped'));
    this.waiters.clear();
  }

  /** Resolves when `pred(status)` holds (checked after each poll), or rejects after `timeoutMs`. */
  waitFor(pred: (s: FollowerStatus) => boolean, timeoutMs = 30_000): Promise<FollowerStatus> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const s = this.status();
        if (!pred(s)) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(s);
        return true;
      };
      const fail = (e: Error): void => {
        this.waiters.delete(check);
        clearTimeout(timer);
        reject(e);
      };
      const timer = setTimeout(() => fail(new Error(`follower: condition not met within ${timeoutMs} ms (${JSON.stringify(this.status())})`)), timeoutMs);
      if (!check()) this.waiters.set(check, fail);
    });
  }

  /** Polls now instead of at the next tick. */
  poke(): void {
    this.wake?.();
  }

  /** Runs one poll now (after any running one) and rejects with its error. */
  sync(): Promise<void> {
    const run = this.busy.then(() => this.syncOnce());
    this.busy = run.catch(() => {});
    return run;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.sync();
        if (this.lastError !== null) {
          this.log(`follow: node reachable again (tip ${this.view.tipHeight()})`);
          this.lastError = null;
        }
      } catch (e) {
        const msg = (e as Error).message;
        if (msg !== this.lastError) this.log(`follow: ${msg}; retrying every ${this.pollMs} ms`);
        this.lastError = msg;
      }
      for (const check of [...this.waiters.keys()]) check();
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private note(msg: string): void {
    if (msg !== this.lastError) this.log(`follow: ${msg}`);
    this.lastError = msg;
  }

  /** One poll: blocks (with reorg handling) then the mempool. */
  private async syncOnce(): Promise<void> {
    const [count, best] = await this.rpc.batchAll<unknown>([
      { method: 'getblockcount', params: [] },
      { method: 'getbestblockhash', params: [] },
    ]);
    this.nodeHeight = count as number;
    this.nodeHash = best as string;
    try {
      if (this.view.tip()?.hash !== best) await this.blocks.sync(count as number);
      if (this.view.tip()?.hash === this.nodeHash) await this.mempool.sync();
    } catch (e) {
      // The node's chain moved while we read it (a height above its new tip, a block it dropped):
      // the next poll starts over from its new tip.
      if (e instanceof RpcCallError && (e.method === 'getblockhash' || e.method === 'getblock') && (e.code === -8 || e.code === -5)) return;
      throw e;
    }
  }
}

export interface StartFollowerOptions extends FollowerOptions {
  /** 0 (default) picks a free port. */
  indexPort?: number;
  /** Fault modes of the served index (as the devnet's --fault-index, --latency-ms, --rate-limit). */
  faults?: FaultConfig;
}

export interface RunningFollower {
  indexUrl: string;
  follower: Follower;
  setFaults(config: FaultConfig): void;
  close(): Promise<void>;
}

/**
 * Checks the node, serves interface B on 127.0.0.1 from the follower's view (answering while the
 * initial sync runs) and starts polling.
 */
export async function startFollower(options: StartFollowerOptions): Promise<RunningFollower> {
  const follower = new Follower(options);
  try {
    await follower.connect();
  } catch (e) {
    follower.rpc.close();
    throw e;
  }
  const faults = new Faults('index');
  if (options.faults) faults.set(options.faults);
  const index = new IndexServer(follower.view);
  let server;
  try {
    server = await listen(options.indexPort ?? 0, faults, (req) =>
      index.handle({ method: req.method, path: req.url.pathname, query: req.url.searchParams }),
    );
  } catch (e) {
    follower.rpc.close();
    throw e;
  }
  follower.start();
  return {
    indexUrl: `http://127.0.0.1:${server.port}`,
    follower,
    setFaults: (config) => faults.set(config),
    close: async () => {
      await follower.stop();
      await server.close();
    },
  };
}
