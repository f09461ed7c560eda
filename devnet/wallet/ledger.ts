/**
 * A wallet's transactions as Core's wallet keeps them (CWalletTx in mapWallet): the transaction
 * itself — kept after it leaves the mempool, replaced or not — its order position (nOrderPos: the
 * order the wallet first saw it, which listtransactions walks), the time it was received and its
 * "smart" time (ComputeTimeSmart), and its comments (mapValue). Which outpoints each wallet
 * transaction spends is kept too, for walletconflicts.
 */
import type { Chain } from '../chain/chain';
import type { ChainBlock, ChainTx } from '../chain/types';
import { outpointKey } from '../chain/indexed';

export interface WalletTx {
  readonly tx: ChainTx;
  /** nOrderPos. */
  readonly orderPos: number;
  /** nTimeReceived: the node's clock when the wallet first saw it. */
  readonly timeReceived: number;
  /** nTimeSmart. */
  readonly timeSmart: number;
  /** mapValue: `comment`, `to`, `replaced_by_txid`, `replaces_txid` (written in key order). */
  readonly mapValue: Map<string, string>;
}

/** Core tolerates wallet times up to 5 minutes past the newest one (ComputeTimeSmart). */
const SMART_TIME_TOLERANCE = 300;

export class Ledger {
  readonly txs = new Map<string, WalletTx>();
  /** outpoint → wallet txids spending it (mapTxSpends). */
  private readonly spends = new Map<string, Set<string>>();
  /** The highest block time up to each height (CBlockIndex::GetBlockTimeMax). */
  private readonly maxTimes: number[] = [];

  constructor(private readonly chain: Chain) {}

  get size(): number {
    return this.txs.size;
  }

  has(txid: string): boolean {
    return this.txs.has(txid);
  }

  keys(): IterableIterator<string> {
    return this.txs.keys();
  }

  get(txid: string): WalletTx | undefined {
    return this.txs.get(txid);
  }

  /** Wallet transactions in nOrderPos order (wtxOrdered). */
  ordered(): WalletTx[] {
    return [...this.txs.values()];
  }

  private blockMaxTime(block: ChainBlock): number {
    for (let h = this.maxTimes.length; h <= block.height; h++) {
      const b = this.chain.blockAt(h)!;
      this.maxTimes.push(Math.max(this.maxTimes[h - 1] ?? 0, b.time));
    }
    return this.maxTimes[block.height]!;
  }

  /**
   * AddToWallet of a transaction new to the wallet: found in `block` (or in the mempool when null),
   * during a rescan of old blocks or as the chain moves.
   */
  add(tx: ChainTx, at: { block: ChainBlock | null; rescan: boolean }): WalletTx {
    const now = this.chain.clock();
    let timeSmart = now;
    if (at.block) {
      if (at.rescan) {
        timeSmart = this.blockMaxTime(at.block);
      } else {
        // The newest earlier entry within the tolerance bounds the block time from below.
        let latestNow = now;
        let latestEntry = 0;
        const list = [...this.txs.values()];
        for (let i = list.length - 1; i >= 0; i--) {
          const t = list[i]!.timeSmart || list[i]!.timeReceived;
          if (t <= now + SMART_TIME_TOLERANCE) {
            latestEntry = t;
            if (t > latestNow) latestNow = t;
            break;
          }
        }
        timeSmart = Math.max(latestEntry, Math.min(at.block.time, latestNow));
      }
    }
    const wtx: WalletTx = { tx, orderPos: this.txs.size, timeReceived: now, timeSmart, mapValue: new Map() };
    this.txs.set(tx.txid, wtx);
    if (!tx.coinbase) {
      for (const i of tx.vin) {
        const k = outpointKey(i.txid, i.vout);
        let set = this.spends.get(k);
        if (!set) this.spends.set(k, (set = new Set()));
        set.add(tx.txid);
      }
    }
    return wtx;
  }

  /** GetTxConflicts: other wallet transactions spending an outpoint this one spends. */
  conflicts(wtx: WalletTx): string[] {
    const out = new Set<string>();
    if (wtx.tx.coinbase) return [];
    for (const i of wtx.tx.vin) {
      const set = this.spends.get(outpointKey(i.txid, i.vout));
      if (!set || set.size < 2) continue;
      for (const t of set) if (t !== wtx.tx.txid) out.add(t);
    }
    return [...out];
  }

  /**
   * GetTxDepthInMainChain: confirmations in the chain, 0 in the mempool or inactive (replaced,
   * evicted), minus the depth of a block transaction that conflicts with it.
   */
  depth(wtx: WalletTx): number {
    const c = this.chain.confirmations(wtx.tx.txid);
    if (c > 0) return c;
    if (this.chain.inMempool(wtx.tx.txid) || wtx.tx.coinbase) return 0;
    let conflict = 0;
    for (const i of wtx.tx.vin) {
      for (const s of this.chain.spenders(i.txid, i.vout)) {
        if (s.confirmed && s.txid !== wtx.tx.txid) conflict = Math.max(conflict, this.chain.confirmations(s.txid));
      }
    }
    return -conflict;
  }
}
