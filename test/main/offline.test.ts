// Offline tells the truth (#26 item 6): with no live connection the services name the connection's own
// failure (refused, timeout, 401, wallet not loaded), never "credentials.missing" when the password is
// saved; the wallet's history is served from the last answer kept for this profile AND node wallet;
// the monitor reconnects on a bounded 1–3 s schedule. Real parts: the services, a real SQLite file and
// the devnet over loopback; the schedule on a fake clock and a stand-in connection (counts, no timing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import { ChainMonitor, RECONNECT_JITTER_MS, RECONNECT_MAX_MS, RECONNECT_MIN_MS, reconnectDelayMs, type MonitorDeps } from '../../electron/main/monitor';
import { notConnectedError } from '../../electron/main/services';
import { openDatabase } from '../../electron/main/store/db';
import { WalletHistoryCache } from '../../electron/main/store/history-cache';
import { ProfileRepository } from '../../electron/main/store/profiles';
import type { IpcResult } from '../../shared/errors';
import type { ConnectionState, EventName, TransactionView } from '../../shared/ipc/contract';
import type { WalletBalancesView, WalletHistoryView } from '../../shared/ipc/wallet';
import { dispatchOk, startProfiledApp } from '../support/app';

const failed = (code: string, message: string): ConnectionState => ({ state: 'failed', profileId: 'p1', error: { code, message, detail: { peer: 'node' } } as never, since: '2026-11-28T03:00:00.000Z' });

describe('not connected: the error is the connection’s own', () => {
  it('a failed connection keeps its code and message, and says since when', () => {
    for (const [code, message] of [
      ['net.refused', 'The node refused the connection at 127.0.0.1:18443.'],
      ['net.timeout', 'The node did not answer within 30 s.'],
      ['rpc.unauthorized', 'The node refused the RPC user or password (HTTP 401).'],
      ['rpc.wallet_not_found', 'The wallet "watch" is not loaded on the node.'],
    ] as const) {
      const e = notConnectedError(failed(code, message), 'refresh');
      expect(e.code).toBe(code);
      expect(e.message).toContain(message);
      expect(e.message).toMatch(/^Spyglass cannot refresh: /);
      expect(e.detail).toMatchObject({ peer: 'node', since: '2026-11-28T03:00:00.000Z' });
    }
  });

  it('credentials.missing only when the password really is missing', () => {
    expect(notConnectedError({ state: 'needs-password', profileId: 'p1' }, 'refresh').code).toBe('credentials.missing');
    for (const s of [failed('net.refused', 'x'), { state: 'connecting', profileId: 'p1' } as const, { state: 'none' } as const]) {
      expect(notConnectedError(s, 'refresh').code).not.toBe('credentials.missing');
    }
  });
});

describe('the reconnect schedule', () => {
  it('1 s, 1.5 s, 2.25 s, then 2.5 s, plus at most 0.5 s of jitter: never above 3 s, never below 1 s', () => {
    expect([1, 2, 3, 4, 5, 50].map((n) => reconnectDelayMs(n, () => 0))).toEqual([1000, 1500, 2250, 2500, 2500, 2500]);
    for (let attempt = 1; attempt <= 200; attempt++) {
      for (const r of [0, 0.25, 0.5, 0.999999, 1]) {
        const d = reconnectDelayMs(attempt, () => r);
        expect(d).toBeGreaterThanOrEqual(RECONNECT_MIN_MS);
        expect(d).toBeLessThanOrEqual(RECONNECT_MAX_MS + RECONNECT_JITTER_MS);
      }
    }
    expect(RECONNECT_MAX_MS + RECONNECT_JITTER_MS).toBeLessThanOrEqual(3000);
  });

  describe('the monitor on a fake clock', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A stand-in connection that stays refused until `back`, counting the attempts. */
    function standIn(code = 'net.refused') {
      let state: ConnectionState = failed(code, 'refused');
      let back = false;
      const listeners = new Set<(s: ConnectionState) => void>();
      const counts = { attempts: 0, refreshes: 0 };
      const set = (s: ConnectionState): void => {
        state = s;
        for (const fn of listeners) fn(s);
      };
      const services: MonitorDeps['services'] = {
        on: ((event: EventName, fn: (s: ConnectionState) => void) => {
          if (event === 'connection:changed') listeners.add(fn);
          return () => listeners.delete(fn);
        }) as MonitorDeps['services']['on'],
        connectionState: () => state,
        activeConnection: () => null,
        recheckActive: async () => state,
        connectionLost: () => undefined,
        refresh: async () => {
          counts.attempts++;
          set(back ? ({ state: 'connected', profileId: 'p1', report: {} } as never) : failed(code, 'refused'));
          return state;
        },
      };
      const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as MonitorDeps['log'];
      const watch = { refreshing: false, refresh: async () => void counts.refreshes++ };
      return { services, watch, log, counts, setBack: () => (back = true), state: () => state };
    }

    it('while the node is down: bounded attempts (at most one a second, at least one every 3 s); back → connected within 5 s', async () => {
      vi.useFakeTimers();
      const s = standIn();
      let i = 0;
      const monitor = new ChainMonitor({ services: s.services, watch: s.watch, log: s.log, random: () => [0, 0.5, 0.99][i++ % 3]! }, 10_000);
      monitor.start();
      await vi.advanceTimersByTimeAsync(60_000);
      // 60 s down: one attempt at start, then one each 1–3 s.
      expect(s.counts.attempts).toBeGreaterThanOrEqual(1 + Math.floor(60_000 / 3000));
      expect(s.counts.attempts).toBeLessThanOrEqual(1 + 60_000 / 1000);
      expect(s.state().state).toBe('failed');
      const before = s.counts.attempts;
      s.setBack();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(s.state().state).toBe('connected');
      expect(s.counts.attempts).toBe(before + 1);
      await monitor.stop();
    });

    it('a 10-minute outage never slows the retries past 3 s', async () => {
      vi.useFakeTimers();
      const s = standIn('net.timeout');
      const monitor = new ChainMonitor({ services: s.services, watch: s.watch, log: s.log, random: () => 0.999 }, 10_000);
      monitor.start();
      await vi.advanceTimersByTimeAsync(600_000);
      const before = s.counts.attempts;
      s.setBack();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(s.state().state).toBe('connected');
      expect(s.counts.attempts).toBe(before + 1);
      expect(before).toBeLessThanOrEqual(1 + 600_000 / 1000);
      await monitor.stop();
    });

    it('wrong credentials are not retried at all', async () => {
      vi.useFakeTimers();
      const s = standIn('rpc.unauthorized');
      const monitor = new ChainMonitor({ services: s.services, watch: s.watch, log: s.log }, 10_000);
      monitor.start();
      await vi.advanceTimersByTimeAsync(120_000);
      expect(s.counts.attempts).toBe(0);
      await monitor.stop();
    });
  });
});

describe('the wallet history cache: per profile AND node wallet', () => {
  let dir: string;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each key reads only its own history; a damaged row is no history', () => {
    dir = mkdtempSync(join(tmpdir(), 'spyglass-history-cache-'));
    const db = openDatabase(join(dir, 'spyglass.sqlite'));
    const profiles = new ProfileRepository(db);
    const input = { nodeUrl: 'http://127.0.0.1:1/', auth: 'password' as const, rpcUser: 'u', cookiePath: '', wallet: 'watch', indexUrl: '' };
    const a = profiles.create({ ...input, name: 'A' }, { passwordStorage: 'none' });
    const b = profiles.create({ ...input, name: 'B' }, { passwordStorage: 'none' });
    const cache = new WalletHistoryCache(db);
    const view = (wallet: string, sats: string): WalletHistoryView => ({
      wallet,
      rows: [{ txid: 'ab'.repeat(32), time: 1, category: 'receive', amountSats: sats, feeSats: null, confirmations: 1, blockHeight: 1, label: '', runningSats: sats }],
      balance: { confirmedSats: sats, pendingSats: '0', immatureSats: '0' },
    });
    cache.save(a.id, view('watch', '100'), new Date('2026-11-28T01:00:00Z'));
    cache.save(a.id, view('vault', '200'), new Date('2026-11-28T02:00:00Z'));
    cache.save(b.id, view('watch', '300'), new Date('2026-11-28T03:00:00Z'));
    expect(cache.get(a.id, 'watch')?.view.balance.confirmedSats).toBe('100');
    expect(cache.get(a.id, 'vault')?.view.balance.confirmedSats).toBe('200');
    expect(cache.get(b.id, 'watch')?.view.balance.confirmedSats).toBe('300');
    expect(cache.get(b.id, 'vault')).toBeNull();
    expect(cache.get(a.id, 'other')).toBeNull();
    expect(cache.get(a.id, 'watch')?.fetchedAt).toBe('2026-11-28T01:00:00.000Z');
    // A newer answer replaces the old one.
    cache.save(a.id, view('watch', '150'));
    expect(cache.get(a.id, 'watch')?.view.rows[0]!.amountSats).toBe('150');
    // A damaged row (a float amount, another wallet's name) is not served.
    db.prepare('UPDATE wallet_history_cache SET reply = ? WHERE profile_id = ? AND node_wallet = ?').run(JSON.stringify({ ...view('watch', '1'), rows: [{ ...view('watch', '1').rows[0], amountSats: 0.5 }] }), b.id, 'watch');
    expect(cache.get(b.id, 'watch')).toBeNull();
    db.prepare('UPDATE wallet_history_cache SET reply = ? WHERE profile_id = ? AND node_wallet = ?').run(JSON.stringify(view('vault', '1')), a.id, 'watch');
    expect(cache.get(a.id, 'watch')).toBeNull();
    // A profile deleted takes its histories with it.
    profiles.delete(a.id);
    expect(cache.get(a.id, 'vault')).toBeNull();
    db.close();
  });
});

describe('node down: the real services', () => {
  let devnet: Devnet;
  let app: SpyglassApp;
  let dir: string;
  let rpcPort = 0;
  let indexPort = 0;
  const call = (channel: string, payload: unknown = {}): Promise<IpcResult<unknown>> => app.dispatch(channel, payload);

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    rpcPort = Number(new URL(devnet.rpcUrl).port);
    indexPort = Number(new URL(devnet.indexUrl).port);
    let s: string;
    ({ app, dir, state: s } = await startProfiledApp({ prefix: 'offline', name: 'Offline node', nodeUrl: devnet.rpcUrl, indexUrl: devnet.indexUrl, rpcUser: 'u', password: 'p' }));
    expect(s).toBe('connected');
  });

  afterAll(async () => {
    await app?.close();
    await devnet?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the node stops: Refresh names the refused connection, the history is the last one kept, marked as such; back: the node’s own again', async () => {
    await dispatchOk(app, 'watch:refresh');
    const live = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
    expect(live.cached).toBeUndefined();
    expect(live.rows.length).toBeGreaterThan(0);

    await devnet.close();
    await app.monitor.tick();
    const down = app.services.connectionState();
    expect(down.state).toBe('failed');
    if (down.state !== 'failed') return;
    // (Refused, or reset when a kept-alive socket was cut: the connection's own word, whichever it is.)
    expect(down.error.code).toMatch(/^net\.(refused|reset)$/);

    const refresh = await call('watch:refresh');
    expect(refresh.ok).toBe(false);
    if (refresh.ok) return;
    expect(refresh.error.code).toBe(down.error.code);
    expect(refresh.error.message).toContain(down.error.message);
    expect(refresh.error.message).toMatch(/^Spyglass cannot refresh .*: the connection to the node failed — /);

    const offline = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
    expect(offline.rows).toEqual(live.rows);
    expect(offline.balance).toEqual(live.balance);
    expect(offline.wallet).toBe('watch');
    expect(offline.cached?.reason.code).toBe(down.error.code);
    expect(Date.parse(offline.cached!.asOf)).not.toBeNaN();

    // The Balances page's wallet split: the kept history's, marked with when.
    const split = await dispatchOk<WalletBalancesView | null>(app, 'wallet:balances');
    expect(split).toEqual({ wallet: 'watch', availableSats: live.balance.confirmedSats, incomingSats: live.balance.pendingSats, immatureSats: live.balance.immatureSats, asOf: offline.cached!.asOf });

    // The transaction page names the failure too.
    const tx = await call('watch:transaction', { txid: live.rows[0]!.txid });
    expect(tx.ok === false && tx.error.code).toBe(down.error.code);

    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p', rpcPort, indexPort });
    await app.monitor.tick();
    expect(app.services.connectionState().state).toBe('connected');
    const again = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
    expect(again.cached).toBeUndefined();
    expect((await dispatchOk<WalletBalancesView>(app, 'wallet:balances')).asOf).toBeUndefined();
  });
});

describe('unknown is never 0: a payment from outside the wallet, on a profile without an index', () => {
  let devnet: Devnet;
  let app: SpyglassApp;
  let dir: string;

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    let s: string;
    ({ app, dir, state: s } = await startProfiledApp({ prefix: 'offline-noindex', name: 'No index', nodeUrl: devnet.rpcUrl, indexUrl: '', rpcUser: 'u', password: 'p' }));
    expect(s).toBe('connected');
  });

  afterAll(async () => {
    await app?.close();
    await devnet?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an incoming pending payment: its fee, fee rate and input amounts are unknown (null), not 0', async () => {
    const history = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
    const pending = history.rows.find((r) => r.category === 'receive' && r.confirmations === 0);
    expect(pending).toBeDefined();
    // The wallet's history does not know what the sender paid either.
    expect(pending!.feeSats).toBeNull();
    const tx = await dispatchOk<TransactionView>(app, 'watch:transaction', { txid: pending!.txid });
    expect(tx.coinbase).toBe(false);
    expect(tx.inputs.some((i) => i.amountSats === null)).toBe(true);
    expect(tx.inputs.every((i) => i.amountSats !== '0')).toBe(true);
    expect(tx.feeSats).toBeNull();
    expect(tx.feeRate).toBeNull();
    // What is known stays known: the outputs' amounts.
    expect(tx.outputs.every((o) => o.amountSats !== null && BigInt(o.amountSats) >= 0n)).toBe(true);
  });
});
