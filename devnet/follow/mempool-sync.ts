/**
 * The follower's mempool: follows `getrawmempool` (checked against `getbestblockhash` in the same
 * batch); new entries come from `getrawtransaction <txid> false` + `getmempoolentry` (first-seen
 * time) and are added parents first, a child waiting until its inputs are known.
 */
import type { ChainTx } from '../chain/types';
import { hexBytes, type FollowRpc } from './rpc-client';
import { parseRawTx, type FollowView } from './view';

export class MempoolSync {
  /** The tip hash the mempool was last read at (null: not read since the last reorg). */
  at: string | null = null;
  /** The first mempool read after a reorg also forgets first-seen times of vanished transactions. */
  private afterReorg = false;
  /** Mempool transactions fetched but not yet addable (a parent arrives later). */
  private readonly pending = new Map<string, { tx: ChainTx; time: number }>();

  constructor(
    private readonly view: FollowView,
    private readonly rpc: FollowRpc,
    private readonly log: (line: string) => void,
  ) {}

  /** A reorg replaced the blocks (and cleared the view's mempool): read it again from scratch. */
  reorged(): void {
    this.at = null;
    this.afterReorg = true;
  }

  async sync(): Promise<void> {
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
    this.at = best as string;
    if (this.afterReorg && this.pending.size === 0) {
      this.view.pruneFirstSeen();
      this.afterReorg = false;
    }
    if (added || removed) {
      this.log(`follow: mempool +${added} -${removed} (${this.view.mempoolSize} tx${this.pending.size ? `, ${this.pending.size} waiting for inputs` : ''})`);
    }
  }
}
