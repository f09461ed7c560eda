/**
 * getmempoolinfo's `usage`: Core's estimate of the mempool's heap use (CTxMemPool::DynamicMemoryUsage).
 * It sums allocator-rounded sizes of C++ objects (memusage::MallocUsage: 16-byte steps after a
 * 31-byte overhead) and depends on container growth. Two parts are followed here as Core has them:
 * the `txns_randomized` vector (40-byte elements; capacity doubling on insertion, shrink_to_fit when
 * less than half used, checked before each removal) and each transaction's inputs, outputs and
 * scripts, with per-entry constants measured on the two real builds. It is an estimate, as Core's
 * is: the README lists `usage` among the deliberate differences.
 */
import type { ChainTx } from '../chain/types';

/** memusage::MallocUsage on 64-bit. */
export const mallocUsage = (n: number): number => (n === 0 ? 0 : ((n + 31) >> 4) << 4);

/** A one-input, one-output transaction whose input script and witness allocate 128 bytes (measured). */
const ENTRY_BASE = 888;
const INPUT_SIZE = 104;
const OUTPUT_SIZE = 48;
/** CScript's inline capacity (prevector): longer scripts allocate. */
const SCRIPT_INLINE = 36;

export class MempoolUsage {
  private size = 0;
  private capacity = 0;

  added(): void {
    if (this.size === this.capacity) this.capacity = Math.max(1, this.capacity * 2);
    this.size++;
  }

  removed(): void {
    if (this.size * 2 < this.capacity) this.capacity = this.size;
    this.size = Math.max(0, this.size - 1);
  }

  private static txUsage(tx: ChainTx): number {
    let n = ENTRY_BASE + mallocUsage(INPUT_SIZE * tx.vin.length) + mallocUsage(OUTPUT_SIZE * tx.vout.length) - 128;
    for (const i of tx.vin) {
      if (i.scriptSig.length > SCRIPT_INLINE) n += mallocUsage(i.scriptSig.length);
      if (i.witness.length) n += mallocUsage(24 * i.witness.length) + i.witness.reduce((s, w) => s + mallocUsage(w.length), 0);
    }
    for (const o of tx.vout) if (o.script.length > SCRIPT_INLINE) n += mallocUsage(o.script.length);
    return n;
  }

  estimate(txs: readonly ChainTx[]): number {
    return mallocUsage(40 * this.capacity) + txs.reduce((s, tx) => s + MempoolUsage.txUsage(tx), 0);
  }
}
