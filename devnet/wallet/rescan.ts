/**
 * A wallet's rescans (CWallet::ScanForWalletTransactions, RescanFromTime, WalletRescanReserver):
 * the blocks from a start (a height, or the first block whose time — or an earlier block's —
 * reaches a timestamp less TIMESTAMP_WINDOW) up to a stop, then the mempool. A rescan either runs
 * inside the call (the default), or — with a delay per block (the devnet's `rescanDelayMs`) — over
 * the event loop, so that `getwalletinfo` shows `scanning` ({duration, progress}) meanwhile and
 * `abortrescan` can stop it, as with a real node's long rescans. One rescan at a time per wallet.
 */
import type { Chain } from '../chain/chain';
import type { ChainBlock, ChainTx } from '../chain/types';

/** Core rescans from this long before a key's timestamp (TIMESTAMP_WINDOW, 2 hours). */
export const TIMESTAMP_WINDOW = 2 * 60 * 60;

export interface ScanTarget {
  considerTx(tx: ChainTx, at: { block: ChainBlock | null; rescan: boolean }): void;
}

interface ScanState {
  startedMs: number;
  from: number;
  to: number;
  at: number;
  aborting: boolean;
}

export class RescanBusyError extends Error {}

export class WalletScanner {
  private state: ScanState | null = null;

  constructor(
    private readonly chain: Chain,
    private readonly target: ScanTarget,
  ) {}

  /** The first height to scan for a timestamp (RescanFromTime), or null when no block reaches it. */
  startForTime(time: number): number | null {
    const from = time - TIMESTAMP_WINDOW;
    let maxTime = 0;
    for (const b of this.chain.blocks) {
      maxTime = Math.max(maxTime, b.time);
      if (maxTime >= from) return b.height;
    }
    return null;
  }

  isScanning(): boolean {
    return this.state !== null;
  }

  /** WalletRescanReserver::reserve. */
  reserve(): void {
    if (this.state) throw new RescanBusyError('Wallet is currently rescanning. Abort existing rescan or wait.');
  }

  /** getwalletinfo `scanning`: false, or how long it has run (seconds) and how far it got (blocks done over blocks to do). */
  info(): false | { duration: number; progress: number } {
    const s = this.state;
    if (!s) return false;
    const span = s.to - s.from;
    return { duration: Math.floor((Date.now() - s.startedMs) / 1000), progress: span > 0 ? (s.at - s.from) / span : 0 };
  }

  /** abortrescan: true when a rescan was running and not already being aborted. */
  abort(): boolean {
    if (!this.state || this.state.aborting) return false;
    this.state.aborting = true;
    return true;
  }

  private block(h: number): void {
    const block = this.chain.blockAt(h)!;
    for (const tx of block.txs) this.target.considerTx(tx, { block, rescan: true });
  }

  private mempool(): void {
    for (const tx of this.chain.mempoolTxs()) this.target.considerTx(tx, { block: null, rescan: true });
  }

  /** Scans heights from..to (inclusive) and the mempool within the call. */
  scanNow(from: number, to: number): void {
    for (let h = Math.max(0, from); h <= to; h++) this.block(h);
    this.mempool();
  }

  /** Scans with `delayMs` per block over the event loop; 'aborted' when abortrescan stopped it. */
  async scan(from: number, to: number, delayMs: number): Promise<'done' | 'aborted'> {
    this.reserve();
    if (delayMs <= 0) {
      this.scanNow(from, to);
      return 'done';
    }
    const s: ScanState = { startedMs: Date.now(), from, to, at: from, aborting: false };
    this.state = s;
    try {
      for (let h = Math.max(0, from); h <= to; h++) {
        if (s.aborting) return 'aborted';
        await new Promise((r) => setTimeout(r, delayMs));
        s.at = h;
        // The chain may have moved on meanwhile: only blocks that exist are scanned.
        if (h <= this.chain.tipHeight()) this.block(h);
      }
      this.mempool();
      return 'done';
    } finally {
      this.state = null;
    }
  }
}
