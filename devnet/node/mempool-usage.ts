/**
 * getmempoolinfo's `usage`: Core's estimate of the mempool's heap use (CTxMemPool::DynamicMemoryUsage),
 * followed part by part. memusage::MallocUsage rounds every allocation (16-byte steps after a 31-byte
 * overhead, 64-bit). Per transaction: a constant for its entry and indexes (measured on both builds:
 * 632 bytes in 31.99, 624 in v30), its inputs vector (112 bytes each) and outputs vector (48 each),
 * the scripts longer than CScript's 36 inline bytes, each witness stack (24 bytes an item) and its
 * items, and one mapNextTx node (64) per input. Plus the `txns_randomized` vector (40-byte elements):
 * its capacity doubles on insertion; on removal it is shrunk to fit once less than half used, except
 * that the last removal clears it and keeps the capacity. And the cluster graph: a transaction alone
 * in its cluster costs nothing more; a cluster of k ≥ 2 transactions (measured while a chain grows
 * one transaction at a time) costs 152 bytes, two vectors of 4-byte indexes (capacity 2, doubling),
 * and 40 bytes less per transaction.
 */
import type { ChainTx } from '../chain/types';
import type { CoreVersion } from '../core-version';

/** memusage::MallocUsage on 64-bit. */
export const mallocUsage = (n: number): number => (n === 0 ? 0 : ((n + 31) >> 4) << 4);

const ENTRY: Record<CoreVersion, number> = { '30': 624, '31.99': 632 };
const INPUT_SIZE = 112;
const OUTPUT_SIZE = 48;
/** CScript's inline capacity (prevector): longer scripts allocate. */
const SCRIPT_INLINE = 36;
/** A mapNextTx node (std::map of two pointers). */
const NEXT_TX_NODE = 64;
const RANDOMIZED_ELEMENT = 40;

export class MempoolUsage {
  private size = 0;
  private capacity = 0;

  constructor(private readonly coreVersion: CoreVersion) {}

  added(): void {
    if (this.size === this.capacity) this.capacity = Math.max(1, this.capacity * 2);
    this.size++;
  }

  removed(): void {
    if (this.size > 1) {
      this.size--;
      if (this.size * 2 < this.capacity) this.capacity = this.size;
    } else {
      this.size = 0;
    }
  }

  private txUsage(tx: ChainTx): number {
    let n = ENTRY[this.coreVersion] + mallocUsage(INPUT_SIZE * tx.vin.length) + mallocUsage(OUTPUT_SIZE * tx.vout.length);
    for (const i of tx.vin) {
      if (i.scriptSig.length > SCRIPT_INLINE) n += mallocUsage(i.scriptSig.length);
      if (i.witness.length) n += mallocUsage(24 * i.witness.length) + i.witness.reduce((s, w) => s + mallocUsage(w.length), 0);
      n += NEXT_TX_NODE;
    }
    for (const o of tx.vout) if (o.script.length > SCRIPT_INLINE) n += mallocUsage(o.script.length);
    return n;
  }

  /** The cluster graph's extra bytes for a cluster of `k` transactions. */
  private static clusterUsage(k: number): number {
    if (k < 2) return 0;
    let cap = 2;
    while (cap < k) cap *= 2;
    return 152 + 2 * mallocUsage(4 * cap) - 40 * k;
  }

  /** Sizes of the mempool's clusters (transactions linked by spending each other). */
  private static clusterSizes(txs: readonly ChainTx[]): number[] {
    const root = new Map(txs.map((t) => [t.txid, t.txid]));
    const find = (x: string): string => {
      let r = x;
      while (root.get(r) !== r) r = root.get(r)!;
      root.set(x, r);
      return r;
    };
    for (const t of txs) for (const i of t.vin) if (root.has(i.txid)) root.set(find(t.txid), find(i.txid));
    const sizes = new Map<string, number>();
    for (const t of txs) sizes.set(find(t.txid), (sizes.get(find(t.txid)) ?? 0) + 1);
    return [...sizes.values()];
  }

  estimate(txs: readonly ChainTx[]): number {
    return (
      mallocUsage(RANDOMIZED_ELEMENT * this.capacity) +
      txs.reduce((s, tx) => s + this.txUsage(tx), 0) +
      MempoolUsage.clusterSizes(txs).reduce((s, k) => s + MempoolUsage.clusterUsage(k), 0)
    );
  }
}
