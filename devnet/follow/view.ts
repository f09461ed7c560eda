/**
 * The follower's chain view: the same {@link ChainView} the devnet's own chain gives the index
 * server, built from another node's blocks (raw bytes from `getblock <hash> 0`) and mempool, with
 * blocks connected and disconnected at the tip (reorgs) and mempool transactions added and removed.
 *
 * It holds what the devnet's chain holds for its index: the blocks of the active chain with their
 * transactions (each transaction's bytes are a view into its block's bytes), every output with its
 * spenders, outputs by script, and the mempool.
 */
import { ByteReader, hexReversed, readTx, sha256d } from '../../shared/bitcoin/tx';
import { chainTxOf } from '../chain/tx';
import { merkleRoot as merkleRootOfHashes } from '../chain/chain';
import { hashToHex, hexToHash } from '../chain/encoding';
import type { ChainBlock, ChainTx } from '../chain/types';
import { IndexedChain, outpointKey as key } from '../chain/indexed';


/** Parses one serialized transaction (exactly the bytes given). */
export function parseRawTx(raw: Uint8Array): ChainTx {
  const r = new ByteReader(raw);
  const p = readTx(r, true);
  if (!r.empty) throw new Error('extra data after transaction');
  return chainTxOf(p, raw);
}

function merkleRootOf(txs: readonly ChainTx[]): string {
  return hashToHex(merkleRootOfHashes(txs.map((t) => hexToHash(t.txid))));
}

/**
 * Parses a serialized block at `height`. `previousTimes` are the header times of up to 10 blocks
 * before it (for the median time past). The header hash, merkle root and sizes are recomputed from
 * the bytes; `receivedTime` is the header time (a node does not say when it received a block).
 */
export function parseBlock(raw: Uint8Array, height: number, previousTimes: readonly number[]): ChainBlock {
  if (raw.length < 81) throw new Error(`block at height ${height}: only ${raw.length} bytes`);
  const header = raw.subarray(0, 80);
  const dv = new DataView(raw.buffer, raw.byteOffset, 80);
  const r = new ByteReader(raw, 80);
  const count = r.compactSize();
  const txs: ChainTx[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    const p = readTx(r, true);
    txs.push(chainTxOf(p, raw.subarray(start, r.pos)));
  }
  if (!r.empty) throw new Error(`block at height ${height}: ${r.remaining} bytes after the last transaction`);
  const merkleRoot = hexReversed(raw, 36, 68);
  if (merkleRootOf(txs) !== merkleRoot) throw new Error(`block at height ${height}: merkle root mismatch`);
  const time = dv.getUint32(68, true);
  const times = [time, ...previousTimes.slice(-10)].sort((a, b) => a - b);
  const strippedSize = 80 + (r.pos - 80 - txs.reduce((a, t) => a + t.size, 0)) + txs.reduce((a, t) => a + t.strippedSize, 0);
  return {
    height,
    hash: hexReversed(sha256d(header)),
    header,
    version: dv.getInt32(0, true),
    prevHash: hexReversed(raw, 4, 36),
    merkleRoot,
    time,
    bits: dv.getUint32(72, true),
    nonce: dv.getUint32(76, true),
    txs,
    size: raw.length,
    strippedSize,
    weight: strippedSize * 3 + raw.length,
    medianTime: times[Math.floor(times.length / 2)]!,
    receivedTime: time,
  };
}


export class FollowView extends IndexedChain {
  tip(): ChainBlock | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  // ---- queries for the follower ----
  isConfirmed(txid: string): boolean {
    return this.txLoc.has(txid);
  }
  mempoolTxids(): string[] {
    return [...this.mempool.keys()];
  }
  get mempoolSize(): number {
    return this.mempool.size;
  }
  /** Header times of up to 10 blocks below `height` (for the next block's median time past). */
  timesBefore(height: number): number[] {
    return this.blocks.slice(Math.max(0, height - 10), Math.max(0, height)).map((b) => b.time);
  }
  counts(): { blocks: number; txs: number; outputs: number; mempool: number } {
    return { blocks: this.blocks.length, txs: this.txLoc.size, outputs: this.outputs.size, mempool: this.mempool.size };
  }

  // ---- changes ----
  /**
   * Connects `block` on top of the tip. Its transactions leave the mempool; mempool transactions
   * that conflict with it (spend the same outputs) are removed with their descendants.
   */
  connect(block: ChainBlock): void {
    const tip = this.tip();
    if (block.height !== this.blocks.length || (tip && block.prevHash !== tip.hash)) {
      throw new Error(`block ${block.hash} at height ${block.height} does not extend the tip ${tip?.hash ?? '(none)'}`);
    }
    const conflicts = new Set<string>();
    for (const tx of block.txs) {
      if (this.mempool.has(tx.txid)) continue;
      if (tx.coinbase) continue;
      for (const i of tx.vin) {
        for (const s of this.spentBy.get(key(i.txid, i.vout)) ?? []) if (!s.confirmed && s.txid !== tx.txid) conflicts.add(s.txid);
      }
    }
    for (const txid of conflicts) this.removeMempoolTx(txid);
    this.blocks.push(block);
    this.byHash.set(block.hash, block);
    block.txs.forEach((tx, index) => {
      this.mempool.delete(tx.txid);
      this.indexBlockTx(block, tx, index);
    });
  }

  /** Disconnects the tip block (a reorg); the caller empties the mempool first and refetches it after. */
  disconnectTip(): ChainBlock {
    const block = this.blocks.pop();
    if (!block) throw new Error('no block to disconnect');
    this.byHash.delete(block.hash);
    for (let index = block.txs.length - 1; index >= 0; index--) {
      const tx = block.txs[index]!;
      this.txLoc.delete(tx.txid);
      // firstSeen stays: the transaction may confirm again on the new branch or return to the mempool.
      if (!tx.coinbase) {
        for (const i of tx.vin) this.dropSpender(key(i.txid, i.vout), tx.txid);
      }
      this.dropOutputs(tx);
    }
    return block;
  }

  /** Empties the mempool before a reorg (first-seen times are kept; the follower refetches it afterwards). */
  clearMempool(): void {
    for (const txid of [...this.mempool.keys()]) this.removeMempoolTx(txid, false);
  }

  /** Forgets first-seen times of transactions that are neither confirmed nor in the mempool (after a reorg). */
  pruneFirstSeen(): void {
    for (const txid of this.firstSeen.keys()) if (!this.txLoc.has(txid) && !this.mempool.has(txid)) this.firstSeen.delete(txid);
  }

  /**
   * Adds a mempool transaction whose inputs are all known outputs. Returns false (and changes
   * nothing) when an input is unknown or already spent by a confirmed transaction.
   */
  addMempoolTx(tx: ChainTx, firstSeen: number): boolean {
    if (this.mempool.has(tx.txid) || this.txLoc.has(tx.txid) || tx.coinbase) return false;
    let inSum = 0n;
    const conflicts = new Set<string>();
    for (const i of tx.vin) {
      const prev = this.outputs.get(key(i.txid, i.vout));
      if (!prev) return false;
      for (const s of this.spentBy.get(key(i.txid, i.vout)) ?? []) {
        if (s.confirmed) return false;
        conflicts.add(s.txid);
      }
      inSum += prev.value;
    }
    // The node replaced those (RBF); they are gone from its mempool.
    for (const txid of conflicts) this.removeMempoolTx(txid);
    const fee = inSum - tx.vout.reduce((a, o) => a + o.value, 0n);
    // A transaction back from a disconnected block keeps the time it was first seen.
    const seen = this.firstSeen.get(tx.txid) ?? firstSeen;
    this.mempool.set(tx.txid, { tx, fee, firstSeen: seen });
    this.firstSeen.set(tx.txid, seen);
    this.indexOutputs(tx, null, null);
    tx.vin.forEach((i, n) => this.addSpender(key(i.txid, i.vout), { txid: tx.txid, vin: n, confirmed: false }));
    return true;
  }
}
