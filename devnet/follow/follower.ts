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
 */
import { IndexServer } from '../index/server';
import { Faults, type FaultConfig } from '../faults';
import { listen } from '../http';
import { FollowRpc, RpcCallError, type FollowRpcOptions } from './rpc-client';
import { FollowView, parseBlock, parseRawTx } from './view';
import type { ChainBlock, ChainTx } from '../chain/types';

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
const hexBytes = (hex: string): Uint8Array => {
  const b = Buffer.from(hex, 'hex');
  if (b.length * 2 !== hex.length) throw new Error('the node sent malformed hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
};

/** A chunk of fetched blocks (parsed lazily, at connect time, for the median time past). */
interface Fetched {
  from: number;
  hashes: string[];
  raws: Uint8Array[];
}

export class Follower {
  readonly view = new FollowView();
  readonly rpc: FollowRpc;
  private readonly pollMs: number;
  private readonly log: (line: string) => void;
  private readonly perBatch: number;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nodeHeight: number | null = null;
  private nodeHash: string | null = null;
  private mempoolAt: string | null = null;
  private blocksIndexed = 0;
  private reorgs = 0;
  private lastError: string | null = null;
  /** The first mempool read after a reorg also forgets first-seen times of vanished transactions. */
  private afterReorg = false;
  /** Mempool transactions fetched but not yet addable (a parent arrives later). */
  private readonly pending = new Map<string, { tx: ChainTx; time: number }>();
  /** waitFor() callers: each check resolves its promise when its condition holds. */
  private readonly waiters = new Map<() => boolean, (e: Error) => void>();
  /** Polls never overlap (the loop and {@link sync} share this). */
  private busy: Promise<void> = Promise.resolve();

  constructor(opts: FollowerOptions) {
    this.rpc = new FollowRpc(opts);
    this.pollMs = opts.pollMs ?? 1000;
    this.log = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.perBatch = Math.max(1, opts.blocksPerBatch ?? 50);
  }

  status(): FollowerStatus {
    const tip = this.view.tip();
    return {
      height: this.view.tipHeight(),
      hash: tip?.hash ?? null,
      nodeHeight: this.nodeHeight,
      nodeHash: this.nodeHash,
      synced: tip !== undefined && tip.hash === this.nodeHash && this.mempoolAt === tip.hash,
      mempool: this.view.mempoolSize,
      blocksIndexed: this.blocksIndexed,
      reorgs: this.reorgs,
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
      if (this.view.tip()?.hash !== best) await this.syncBlocks(count as number);
      if (this.view.tip()?.hash === this.nodeHash) await this.syncMempool();
    } catch (e) {
      // The node's chain moved while we read it (a height above its new tip, a block it dropped):
      // the next poll starts over from its new tip.
      if (e instanceof RpcCallError && (e.method === 'getblockhash' || e.method === 'getblock') && (e.code === -8 || e.code === -5)) return;
      throw e;
    }
  }

  private async syncBlocks(nodeHeight: number): Promise<void> {
    const fork = await this.findFork(nodeHeight);
    const tipHeight = this.view.tipHeight();
    if (fork < tipHeight) {
      // A reorg (or a different chain altogether when fork is -1): fetch the replacement first,
      // then swap in one step so the index never serves a half-switched chain.
      const replacement: Fetched[] = [];
      for (let from = fork + 1; from <= nodeHeight; from += this.perBatch) {
        replacement.push(await this.fetch(from, Math.min(nodeHeight, from + this.perBatch - 1)));
      }
      const parsed = this.parseChain(replacement, fork);
      if (!parsed) return; // the node moved again meanwhile; next poll
      const dropped = tipHeight - fork;
      const oldTip = this.view.tip()!;
      this.view.clearMempool();
      this.mempoolAt = null;
      while (this.view.tipHeight() > fork) this.view.disconnectTip();
      for (const b of parsed) this.view.connect(b);
      this.blocksIndexed += parsed.length;
      this.reorgs++;
      this.afterReorg = true;
      const tip = this.view.tip();
      this.log(
        fork < 0
          ? `follow: the node is on another chain (genesis ${tip?.hash ?? '?'}); re-indexed ${parsed.length} blocks`
          : `follow: reorg at height ${fork + 1}: dropped ${dropped} block(s) up to ${oldTip.height} ${oldTip.hash}, connected ${parsed.length}; tip ${tip?.height} ${tip?.hash}`,
      );
      return;
    }
    // Forward: chunks are fetched one ahead of the one being connected.
    const started = Date.now();
    let lastLog = started;
    const first = fork + 1;
    let connected = 0;
    let from = first;
    let next: Promise<Fetched> | null = from <= nodeHeight ? this.fetch(from, Math.min(nodeHeight, from + this.perBatch - 1)) : null;
    while (next) {
      const chunk = await next;
      from = chunk.from + chunk.raws.length;
      next = from <= nodeHeight ? this.fetch(from, Math.min(nodeHeight, from + this.perBatch - 1)) : null;
      next?.catch(() => {});
      const parsed = this.parseChain([chunk], this.view.tipHeight());
      if (!parsed) {
        await next?.catch(() => {});
        break;
      }
      for (const b of parsed) this.view.connect(b);
      connected += parsed.length;
      this.blocksIndexed += parsed.length;
      const now = Date.now();
      if (now - lastLog >= 2000 && next) {
        lastLog = now;
        this.log(`follow: indexing… height ${this.view.tipHeight()} of ${nodeHeight} (${rate(connected, now - started)} blocks/s)`);
      }
    }
    if (connected > 0) {
      const tip = this.view.tip()!;
      const ms = Date.now() - started;
      this.log(
        connected === 1
          ? `follow: block ${tip.height} ${tip.hash} (${tip.txs.length} tx)`
          : `follow: indexed blocks ${first}–${tip.height} (${connected} blocks in ${ms} ms, ${rate(connected, ms)} blocks/s); tip ${tip.height} ${tip.hash}`,
      );
    }
  }

  /** Highest height where the view and the node agree, or -1 (empty view or another genesis). */
  private async findFork(nodeHeight: number): Promise<number> {
    let h = Math.min(this.view.tipHeight(), nodeHeight);
    let step = 1;
    while (h >= 0) {
      const heights: number[] = [];
      for (let x = h; x >= Math.max(0, h - step + 1); x--) heights.push(x);
      const hashes = await this.rpc.batchAll<string>(heights.map((x) => ({ method: 'getblockhash', params: [x] })));
      for (let i = 0; i < heights.length; i++) {
        if (this.view.blockAt(heights[i]!)?.hash === hashes[i]) return heights[i]!;
      }
      h -= step;
      step = Math.min(step === 1 ? 16 : step * 4, 1024);
    }
    return -1;
  }

  private async fetch(from: number, to: number): Promise<Fetched> {
    const heights: number[] = [];
    for (let h = from; h <= to; h++) heights.push(h);
    const hashes = await this.rpc.batchAll<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    const hexes = await this.rpc.batchAll<string>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 0] })));
    return { from, hashes, raws: hexes.map(hexBytes) };
  }

  /**
   * Parses fetched chunks as the chain continuing from height `base` (the view's block there, or
   * genesis when -1). Returns null when they do not link up (the node changed its chain meanwhile).
   */
  private parseChain(chunks: Fetched[], base: number): ChainBlock[] | null {
    const out: ChainBlock[] = [];
    let prevHash = base >= 0 ? this.view.blockAt(base)?.hash : undefined;
    const times = this.view.timesBefore(base + 1);
    for (const c of chunks) {
      for (let i = 0; i < c.raws.length; i++) {
        const height = c.from + i;
        const block = parseBlock(c.raws[i]!, height, times);
        if (block.hash !== c.hashes[i]) throw new Error(`block ${c.hashes[i]} at height ${height}: its header hashes to ${block.hash}`);
        if (height > 0 && block.prevHash !== prevHash) return null;
        out.push(block);
        prevHash = block.hash;
        times.push(block.time);
        if (times.length > 10) times.shift();
      }
    }
    return out;
  }

  private async syncMempool(): Promise<void> {
    const [txids, best] = await this.rpc.batchAll<unknown>([
      { method: 'getrawmempool', params: [] },
      { method: 'getbestblockhash', params: [] },
    ]);
    if (best !== this.view.tip()?.hash) return; // a block arrived in between: blocks first
    const inNode = new Set(txids as string[]);
    let removed = 0;
    for (const txid of this.view.mempoolTxids()) {
      if (!inNode.has(txid) && this.view.inMempool(txid)) {
        this.view.removeMempoolTx(txid);
        removed++;
      }
    }
    for (const txid of this.pending.keys()) if (!inNode.has(txid)) this.pending.delete(txid);
    const wanted = (txids as string[]).filter((t) => !this.view.inMempool(t) && !this.view.isConfirmed(t) && !this.pending.has(t));
    for (let i = 0; i < wanted.length; i += 250) {
      const part = wanted.slice(i, i + 250);
      const replies = await this.rpc.batch(part.flatMap((t) => [
        { method: 'getrawtransaction', params: [t, false] },
        { method: 'getmempoolentry', params: [t] },
      ]));
      part.forEach((txid, j) => {
        const raw = replies[2 * j];
        const entry = replies[2 * j + 1];
        // -5: it left the mempool between the two calls.
        if (!raw?.ok || !entry?.ok) return;
        const tx = parseRawTx(hexBytes(raw.result as string));
        if (tx.txid !== txid) throw new Error(`getrawtransaction ${txid} returned ${tx.txid}`);
        this.pending.set(txid, { tx, time: (entry.result as { time: number }).time });
      });
    }
    // Parents first: repeat while something could be added.
    let added = 0;
    for (let progress = true; progress && this.pending.size > 0; ) {
      progress = false;
      for (const [txid, p] of this.pending) {
        if (this.view.addMempoolTx(p.tx, p.time)) {
          this.pending.delete(txid);
          added++;
          progress = true;
        }
      }
    }
    this.mempoolAt = best as string;
    if (this.afterReorg && this.pending.size === 0) {
      this.view.pruneFirstSeen();
      this.afterReorg = false;
    }
    if (added || removed) {
      this.log(`follow: mempool +${added} -${removed} (${this.view.mempoolSize} tx${this.pending.size ? `, ${this.pending.size} waiting for inputs` : ''})`);
    }
  }
}

function rate(n: number, ms: number): string {
  return ms > 0 ? String(Math.round((n * 1000) / ms)) : '∞';
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
