/**
 * The follower's blocks: finds where the view and the node's active chain part (comparing stored
 * hashes with `getblockhash` from the stored tip down: 1, then 16, 64… heights per batch), fetches the
 * node's blocks above it in JSON-RPC batches (`getblockhash` for a range, then `getblock <hash> 0`
 * for the exact bytes) and connects them — a reorg's replacement all at once, forward blocks a
 * chunk at a time with the next chunk already on its way.
 */
import type { ChainBlock } from '../chain/types';
import { hexBytes, type FollowRpc } from './rpc-client';
import { parseBlock, type FollowView } from './view';

/** A chunk of fetched blocks (parsed lazily, at connect time, for the median time past). */
interface Fetched {
  from: number;
  hashes: string[];
  raws: Uint8Array[];
}

export class BlockSync {
  /** Blocks connected since the start (a reorg's replacement included). */
  blocksIndexed = 0;
  reorgs = 0;

  constructor(
    private readonly view: FollowView,
    private readonly rpc: FollowRpc,
    private readonly perBatch: number,
    private readonly log: (line: string) => void,
    /** Called when a reorg replaced the view's blocks (its mempool was cleared). */
    private readonly onReorg: () => void,
  ) {}

  /** Brings the view's blocks to the node's chain of height `nodeHeight`. */
  async sync(nodeHeight: number): Promise<void> {
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
      this.onReorg();
      while (this.view.tipHeight() > fork) this.view.disconnectTip();
      for (const b of parsed) this.view.connect(b);
      this.blocksIndexed += parsed.length;
      this.reorgs++;
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
}

function rate(n: number, ms: number): string {
  return ms > 0 ? String(Math.round((n * 1000) / ms)) : '∞';
}
