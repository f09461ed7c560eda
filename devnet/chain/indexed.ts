/**
 * What the devnet's own chain (chain.ts) and the follower's view of another node's chain
 * (follow/view.ts) both keep for the index: the blocks of the active chain, where each transaction
 * sits, every output with its spenders, outputs by script, and the mempool — and the
 * {@link ChainView} queries the index server asks of them. Each subclass decides how blocks and
 * mempool transactions come and go; the bookkeeping of one transaction is here, once.
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { ChainBlock, ChainTx, ChainView, OutputInfo, Spender } from './types';

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

const OP_CHECKSIG = 0xac;

/**
 * The key of a pay-to-pubkey output script by pybtc's rule (35 or 67 bytes ending in OP_CHECKSIG):
 * what index/pybtc.ts parseScript calls PUBKEY, and what the index's connector puts in its p2pk map.
 * Null for any other script.
 */
export function p2pkKey(script: Uint8Array): Uint8Array | null {
  return (script.length === 35 || script.length === 67) && script[script.length - 1] === OP_CHECKSIG ? script.subarray(1, -1) : null;
}

/** A script's bytes as a Map key (one char per byte). */
export function bytesKey(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
}

export interface MempoolEntry {
  tx: ChainTx;
  fee: bigint;
  firstSeen: number;
  /** Arrival order (the cluster mempool's tie-break); 0 where unknown. */
  seq?: number;
}

export abstract class IndexedChain implements ChainView {
  /** The active chain, genesis first (read-only outside the subclasses). */
  readonly blocks: ChainBlock[] = [];
  protected readonly byHash = new Map<string, ChainBlock>();
  protected readonly txLoc = new Map<string, { block: ChainBlock; index: number }>();
  protected readonly outputs = new Map<string, OutputInfo>();
  protected readonly spentBy = new Map<string, Spender[]>();
  protected readonly byScript = new Map<string, Set<string>>();
  /** hash160 of a key (bytesKey) → the first pay-to-pubkey script seen for it. */
  protected readonly p2pkByKeyHash = new Map<string, Uint8Array>();
  protected readonly mempool = new Map<string, MempoolEntry>();
  /** When each transaction was first seen (mempool entry, or its block's time). */
  protected readonly firstSeen = new Map<string, number>();

  abstract tip(): ChainBlock | undefined;

  // ---- ChainView ----
  tipHeight(): number {
    return this.blocks.length - 1;
  }
  blockAt(height: number): ChainBlock | undefined {
    return Number.isInteger(height) && height >= 0 ? this.blocks[height] : undefined;
  }
  blockByHash(hash: string): ChainBlock | undefined {
    return this.byHash.get(hash.toLowerCase());
  }
  findTx(txid: string): { tx: ChainTx; block: ChainBlock | null; index: number | null; firstSeen: number } | undefined {
    const loc = this.txLoc.get(txid);
    if (loc) return { tx: loc.block.txs[loc.index]!, block: loc.block, index: loc.index, firstSeen: this.firstSeen.get(txid) ?? loc.block.time };
    const m = this.mempool.get(txid);
    if (m) return { tx: m.tx, block: null, index: null, firstSeen: m.firstSeen };
    return undefined;
  }
  output(txid: string, vout: number): OutputInfo | undefined {
    return this.outputs.get(outpointKey(txid, vout));
  }
  spenders(txid: string, vout: number): readonly Spender[] {
    const list = this.spentBy.get(outpointKey(txid, vout)) ?? [];
    return [...list.filter((s) => !s.confirmed), ...list.filter((s) => s.confirmed)];
  }
  unspentForScript(script: Uint8Array): readonly OutputInfo[] {
    const keys = this.byScript.get(bytesKey(script));
    if (!keys) return [];
    const out: OutputInfo[] = [];
    for (const k of keys) {
      const o = this.outputs.get(k)!;
      if (o.height === null) continue;
      if ((this.spentBy.get(k) ?? []).length > 0) continue;
      out.push(o);
    }
    return out.sort((a, b) => a.height! - b.height! || a.txIndex! - b.txIndex! || a.vout - b.vout);
  }
  p2pkScript(keyHash: Uint8Array): Uint8Array | undefined {
    return this.p2pkByKeyHash.get(bytesKey(keyHash));
  }
  mempoolByFeeRate(): readonly string[] {
    return [...this.mempool.values()]
      .sort((a, b) => {
        // fee/vsize descending, compared exactly with cross multiplication
        const va = BigInt(Math.ceil(a.tx.weight / 4));
        const vb = BigInt(Math.ceil(b.tx.weight / 4));
        const d = b.fee * va - a.fee * vb;
        return d > 0n ? 1 : d < 0n ? -1 : a.tx.txid < b.tx.txid ? -1 : 1;
      })
      .map((e) => e.tx.txid);
  }
  inMempool(txid: string): boolean {
    return this.mempool.has(txid);
  }

  // ---- bookkeeping of one transaction ----

  /** Records `tx` as the `index`-th transaction of `block`: its place, its outputs, and its inputs as confirmed spends. */
  protected indexBlockTx(block: ChainBlock, tx: ChainTx, index: number): void {
    this.txLoc.set(tx.txid, { block, index });
    this.indexOutputs(tx, block.height, index);
    if (!tx.coinbase) {
      tx.vin.forEach((i, n) => {
        const k = outpointKey(i.txid, i.vout);
        const list = (this.spentBy.get(k) ?? []).filter((s) => s.txid !== tx.txid);
        list.push({ txid: tx.txid, vin: n, confirmed: true });
        this.spentBy.set(k, list);
      });
    }
  }

  /** Indexes the outputs of `tx` (height and position null while it is in the mempool). */
  protected indexOutputs(tx: ChainTx, height: number | null, txIndex: number | null): void {
    tx.vout.forEach((o, vout) => {
      const k = outpointKey(tx.txid, vout);
      this.outputs.set(k, { txid: tx.txid, vout, value: o.value, script: o.script, height, txIndex, coinbase: tx.coinbase });
      const sk = bytesKey(o.script);
      let set = this.byScript.get(sk);
      if (!set) this.byScript.set(sk, (set = new Set()));
      set.add(k);
      const key = height === null ? null : p2pkKey(o.script);
      if (key !== null) {
        const h = bytesKey(ripemd160(sha256(key)));
        if (!this.p2pkByKeyHash.has(h)) this.p2pkByKeyHash.set(h, o.script);
      }
    });
  }

  /** Adds a spender of the outpoint `k`. */
  protected addSpender(k: string, s: Spender): void {
    const list = this.spentBy.get(k) ?? [];
    list.push(s);
    this.spentBy.set(k, list);
  }

  /**
   * Removes a mempool transaction and its mempool descendants (and their first-seen times unless
   * `forget` is false); returns the txids removed, the transaction first, then descendants.
   */
  removeMempoolTx(txid: string, forget = true): string[] {
    const e = this.mempool.get(txid);
    if (!e) return [];
    const removed = [txid];
    this.mempool.delete(txid);
    e.tx.vout.forEach((_, vout) => {
      for (const s of this.spentBy.get(outpointKey(txid, vout)) ?? []) if (!s.confirmed) removed.push(...this.removeMempoolTx(s.txid, forget));
    });
    for (const i of e.tx.vin) this.dropSpender(outpointKey(i.txid, i.vout), txid);
    this.dropOutputs(e.tx);
    if (forget) this.firstSeen.delete(txid);
    return removed;
  }

  protected dropOutputs(tx: ChainTx): void {
    tx.vout.forEach((o, vout) => {
      const k = outpointKey(tx.txid, vout);
      this.outputs.delete(k);
      this.spentBy.delete(k);
      const sk = bytesKey(o.script);
      const set = this.byScript.get(sk);
      if (set) {
        set.delete(k);
        if (set.size === 0) this.byScript.delete(sk);
      }
    });
  }

  protected dropSpender(k: string, txid: string): void {
    const list = this.spentBy.get(k);
    if (!list) return;
    const rest = list.filter((s) => s.txid !== txid);
    if (rest.length) this.spentBy.set(k, rest);
    else this.spentBy.delete(k);
  }
}
