// The chain monitor: follows the active connection without anyone pressing anything. Every poll asks
// the node for its best block (and the wallet's transaction count: a payment in the mempool), and the
// index for its height. Something new → the connection report is brought up to date (heights, "index
// behind by N") and the incremental refresh runs. A failed poll ends the connection with its reason
// ("node down since …", wrong credentials); a failure worth retrying is retried with backoff, and the
// app recovers by itself when the node or the index is back. Electron-free: tests drive it directly.
import type { ErrorCode } from '../../shared/errors';
import type { Logger } from './log';
import type { Services } from './services';

export interface MonitorDeps {
  services: Pick<Services, 'on' | 'connectionState' | 'activeConnection' | 'recheckActive' | 'connectionLost' | 'refresh'>;
  /** The watch service: its incremental refresh, and whether one is running. */
  watch: { refresh(): Promise<unknown>; readonly refreshing: boolean };
  log: Logger;
}

/** Failures that end by themselves (the node restarting, a network blip): retried with backoff. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['net.refused', 'net.reset', 'net.timeout', 'net.dns', 'net.unreachable', 'rpc.warming_up', 'rpc.http', 'rpc.bad_reply', 'index.http', 'index.bad_reply', 'index.rate_limited']);

export const DEFAULT_POLL_MS = 10_000;
const MAX_BACKOFF_MS = 60_000;
const POLL_TIMEOUT_MS = 8_000;

interface Seen {
  profileId: string;
  best: string;
  txcount: number | null;
  indexHeight: number;
}

export class ChainMonitor {
  #intervalMs: number | null;
  #timer: NodeJS.Timeout | null = null;
  #seen: Seen | null = null;
  #failures = 0;
  #ticking: Promise<void> | null = null;
  #stopped = true;
  #off: (() => void) | null = null;

  constructor(
    private readonly deps: MonitorDeps,
    intervalMs: number | null = DEFAULT_POLL_MS,
  ) {
    this.#intervalMs = intervalMs;
  }

  /** Polls every interval from now on (and once soon after each new connection). */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#off = this.deps.services.on('connection:changed', (s) => {
      if (s.state === 'connected' && this.#seen?.profileId !== s.profileId) this.#schedule(0);
      if (s.state === 'none') this.#seen = null;
    });
    this.#schedule(0);
  }

  stop(): Promise<void> {
    this.#stopped = true;
    this.#off?.();
    this.#off = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    return this.#ticking ?? Promise.resolve();
  }

  /** The poll interval (null: off, nothing polls; the person refreshes by hand). */
  setInterval(ms: number | null): void {
    this.#intervalMs = ms;
    if (!this.#stopped) this.#schedule(ms === null ? null : Math.min(ms, this.#delay() ?? ms));
  }

  get intervalMs(): number | null {
    return this.#intervalMs;
  }

  #delay(): number | null {
    if (this.#intervalMs === null) return null;
    return this.#failures === 0 ? this.#intervalMs : Math.min(MAX_BACKOFF_MS, this.#intervalMs * 2 ** Math.min(this.#failures, 8));
  }

  #schedule(ms: number | null): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#stopped || ms === null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.tick().finally(() => this.#schedule(this.#delay()));
    }, ms);
    this.#timer.unref();
  }

  /** One poll (tests call it directly). Never throws; polls never overlap. */
  tick(): Promise<void> {
    return (this.#ticking ??= this.#poll().finally(() => (this.#ticking = null)));
  }

  async #poll(): Promise<void> {
    const state = this.deps.services.connectionState();
    if (state.state === 'failed') {
      if (!RETRYABLE.has(state.error.code)) return; // wrong credentials, another chain…: the person must act
      const after = await this.deps.services.refresh();
      this.#failures = after.state === 'connected' ? 0 : this.#failures + 1;
      if (after.state === 'connected') this.deps.log.info(`monitor: ${after.profileId} is back`);
      return;
    }
    const conn = this.deps.services.activeConnection();
    if (state.state !== 'connected' || !conn) return;
    let seen: Seen;
    try {
      const opts = { wallet: false, timeoutMs: POLL_TIMEOUT_MS };
      const settled = await Promise.allSettled([
        conn.rpc.call<string>('getbestblockhash', [], opts),
        conn.profile.wallet.trim() ? conn.rpc.call<{ txcount?: unknown }>('getwalletinfo', [], { timeoutMs: POLL_TIMEOUT_MS }) : Promise.resolve(null),
        conn.index.tip(),
      ] as const);
      // The node's failure is the one to tell when both are down.
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      const [best, info, tip] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [string, { txcount?: unknown } | null, { height: number }];
      seen = { profileId: conn.profile.id, best, txcount: typeof info?.txcount === 'number' ? info.txcount : null, indexHeight: tip.height };
    } catch (e) {
      if (this.deps.services.activeConnection() !== conn) return; // switched meanwhile
      this.#failures++;
      this.deps.services.connectionLost(e);
      return;
    }
    this.#failures = 0;
    const before = this.#seen?.profileId === seen.profileId ? this.#seen : null;
    this.#seen = seen;
    const chainMoved = before !== null && (before.best !== seen.best || before.indexHeight !== seen.indexHeight);
    const walletMoved = before === null || chainMoved || before.txcount !== seen.txcount;
    if (chainMoved) await this.deps.services.recheckActive();
    if (walletMoved && this.deps.services.connectionState().state === 'connected' && !this.deps.watch.refreshing) {
      try {
        await this.deps.watch.refresh();
      } catch (e) {
        // The refresh records its failure (and which step) for the screens; nothing more to do here.
        this.deps.log.warn(`monitor: refresh failed: ${(e as Error).message}`);
      }
    }
  }
}
