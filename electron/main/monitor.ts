// The chain monitor: follows the active connection without anyone pressing anything. Every poll asks
// the node for its best block (and the wallet's transaction count: a payment in the mempool), and the
// index for its height. Something new → the connection report is brought up to date (heights, "index
// behind by N") and the incremental refresh runs. A failed poll ends the connection with its reason
// ("node down since …", wrong credentials); a failure worth retrying is retried every 1–3 s
// (reconnectDelayMs), and the app recovers by itself — and refreshes — within seconds of the node or
// the index answering again. A poll that failed in a way worth retrying is asked again once before the
// connection is ended, and a timeout while this process's own event loop was blocked (a big import, a
// long write: loop-stall.ts) never ends it — a busy app is not a lost node. Electron-free: tests drive it directly.
import type { ErrorCode } from '../../shared/errors';
import type { Logger } from './log';
import type { Services } from './services';
import { LoopStallMeter } from './loop-stall';
import { isAppError } from '../../shared/errors';

export interface MonitorDeps {
  services: Pick<Services, 'on' | 'connectionState' | 'activeConnection' | 'recheckActive' | 'connectionLost' | 'refresh'>;
  /** The watch service: its incremental refresh, and whether one is running. */
  watch: { refresh(): Promise<unknown>; readonly refreshing: boolean };
  log: Logger;
  /** The jitter's source, in [0, 1) (tests pass their own). */
  random?: () => number;
  /** How long a poll waits for the node (default 8 s; tests pass a short one). */
  pollTimeoutMs?: number;
}

/**
 * Failures that end by themselves (the node restarting, a network blip): retried soon and often
 * (reconnectDelayMs), so the app is back within seconds of the node answering again.
 */
const RECONNECT: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['net.refused', 'net.reset', 'net.timeout', 'net.dns', 'net.unreachable', 'rpc.warming_up', 'rpc.http', 'rpc.bad_reply', 'index.http', 'index.bad_reply']);
/**
 * Failures also retried, at the poll interval with backoff: a rate-limiting index must not be
 * hammered, and a wallet unloaded on the node comes back when someone loads it.
 */
const RETRY_SLOWLY: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['index.rate_limited', 'rpc.wallet_not_found']);

export const DEFAULT_POLL_MS = 10_000;
const MAX_BACKOFF_MS = 60_000;
const POLL_TIMEOUT_MS = 8_000;
/**
 * A poll that timed out while this thread's event loop was blocked for at least this share of the
 * timeout says nothing about the node: its reply could not be read in time (loop-stall.ts).
 */
const STALLED_SHARE = 0.25;

/** The first reconnect attempt waits this long; each next one 1.5× more, up to RECONNECT_MAX_MS. */
export const RECONNECT_MIN_MS = 1_000;
export const RECONNECT_MAX_MS = 2_500;
/** Up to this much is added at random to each wait, so that windows and apps do not retry in step. */
export const RECONNECT_JITTER_MS = 500;

/**
 * The wait before reconnect attempt `attempt` (1, 2, …) while the node or index is down: 1 s, 1.5 s,
 * 2.25 s, then 2.5 s, each plus up to 0.5 s of jitter — never more than 3 s, so a node answering again
 * is reconnected within 3 s plus one attempt; never less than 1 s, so a dead node is asked at most
 * once a second.
 */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 1.5 ** Math.max(0, attempt - 1));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(base + r * RECONNECT_JITTER_MS);
}

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
  readonly #stall = new LoopStallMeter();

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
      // Failed outside a poll (a Refresh pressed, a recheck): the next attempt comes as soon as a poll's would.
      if (s.state === 'failed' && this.#ticking === null && RECONNECT.has(s.error.code)) this.#schedule(this.#delay());
    });
    this.#schedule(0);
  }

  stop(): Promise<void> {
    this.#stopped = true;
    this.#stall.stop();
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
    const st = this.deps.services.connectionState();
    if (st.state === 'failed' && RECONNECT.has(st.error.code)) return Math.min(this.#intervalMs, reconnectDelayMs(Math.max(1, this.#failures), this.deps.random));
    if (this.#failures === 0) return this.#intervalMs;
    return Math.min(MAX_BACKOFF_MS, this.#intervalMs * 2 ** Math.min(this.#failures, 8));
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

  /** One poll (tests call it directly). Never throws (a failure is logged); polls never overlap. */
  tick(): Promise<void> {
    this.#stall.start();
    return (this.#ticking ??= this.#poll()
      .catch((e: unknown) => {
        this.deps.log.warn(`monitor: the poll failed: ${e instanceof Error ? e.message : String(e)}`);
      })
      .finally(() => (this.#ticking = null)));
  }

  async #poll(): Promise<void> {
    const state = this.deps.services.connectionState();
    if (state.state === 'failed') {
      if (!RECONNECT.has(state.error.code) && !RETRY_SLOWLY.has(state.error.code)) return; // wrong credentials, another chain…: the person must act
      const after = await this.deps.services.refresh();
      if (after.state !== 'connected') {
        this.#failures++;
        return;
      }
      this.#failures = 0;
      this.deps.log.info(`monitor: ${after.profileId} is back`);
      // Back: poll at once as for a new connection, so the balances are refreshed now (a refresh that
      // failed while the node was down stops being the last word) rather than at the next change.
      this.#seen = null;
    }
    const conn = this.deps.services.activeConnection();
    if (this.deps.services.connectionState().state !== 'connected' || !conn) return;
    // A transient failure is asked again once before the node is declared lost; a timeout while this
    // process itself was blocked (the loop could not read the reply in time) never declares it lost.
    let asked = await this.#ask(conn);
    if ('error' in asked && isAppError(asked.error) && RECONNECT.has(asked.error.code)) {
      if (asked.stalled) this.deps.log.info('monitor: a poll timed out while the app was busy; asking the node again');
      asked = await this.#ask(conn);
    }
    if ('error' in asked) {
      if (this.deps.services.activeConnection() !== conn) return; // switched meanwhile
      if (asked.stalled) {
        this.deps.log.warn('monitor: the poll timed out again while the app was busy; the node is not declared lost');
        return;
      }
      this.#failures++;
      this.deps.services.connectionLost(asked.error);
      return;
    }
    const seen = asked.seen;
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

  /** One ask of the node's tip, wallet and the index's height; a failure says whether the loop was blocked meanwhile. */
  async #ask(conn: NonNullable<ReturnType<MonitorDeps['services']['activeConnection']>>): Promise<{ seen: Seen } | { error: unknown; stalled: boolean }> {
    const timeoutMs = this.deps.pollTimeoutMs ?? POLL_TIMEOUT_MS;
    const stalledBefore = this.#stall.stalledMs();
    try {
      const opts = { wallet: false, timeoutMs };
      const settled = await Promise.allSettled([
        conn.rpc.call<string>('getbestblockhash', [], opts),
        conn.report.node.wallet !== null ? conn.rpc.call<{ txcount?: unknown }>('getwalletinfo', [], { wallet: conn.report.node.wallet, timeoutMs }) : Promise.resolve(null),
        conn.index.tip(),
      ] as const);
      // The node's failure is the one to tell when both are down.
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      const [best, info, tip] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [string, { txcount?: unknown } | null, { height: number }];
      return { seen: { profileId: conn.profile.id, best, txcount: typeof info?.txcount === 'number' ? info.txcount : null, indexHeight: tip.height } };
    } catch (error) {
      const stalled = isAppError(error) && error.code === 'net.timeout' && this.#stall.stalledMs() - stalledBefore >= timeoutMs * STALLED_SHARE;
      return { error, stalled };
    }
  }
}
