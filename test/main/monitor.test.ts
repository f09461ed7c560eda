// The chain monitor (electron/main/monitor.ts) on the real services, a real SQLite file and the devnet
// over loopback, each poll run by the test (tick) so that nothing depends on timing: the first poll
// refreshes without anyone pressing anything; a new block and a payment in the mempool are noticed;
// the node going away ends the connection with "down since" kept across polls; the app comes back by
// itself when the node does; wrong credentials are not retried.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import { ChainMonitor } from '../../electron/main/monitor';
import type { ConnectionState, PaymentNotice, WatchOverview } from '../../shared/ipc/contract';
import { dispatchOk, startProfiledApp } from '../support/app';
import { TestRpc } from '../support/rpc';

let devnet: Devnet;
let app: SpyglassApp;
let dir: string;
let rpc: TestRpc;
const states: ConnectionState[] = [];

const overview = (): Promise<WatchOverview> => dispatchOk<WatchOverview>(app, 'watch:overview');
const state = (): ConnectionState => app.services.connectionState();

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  let s: string;
  ({ app, dir, state: s } = await startProfiledApp({ prefix: 'monitor', name: 'Demo node', nodeUrl: devnet.rpcUrl, indexUrl: devnet.indexUrl, rpcUser: 'u', password: 'p' }));
  expect(s).toBe('connected');
  app.services.on('connection:changed', (x) => states.push(x));
});

afterAll(async () => {
  await app?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('chain monitor', () => {
  it('the first poll of a connection refreshes: balances without pressing anything', async () => {
    expect((await overview()).snapshot).toBeNull();
    await app.monitor.tick();
    const o = await overview();
    expect(o.snapshot?.nodeHeight).toBe(devnet.node.chain.tipHeight());
    expect(o.totals.addresses).toBeGreaterThan(20);
  });

  it('nothing new: a poll writes no snapshot', async () => {
    const before = (await overview()).snapshot?.id;
    await app.monitor.tick();
    expect((await overview()).snapshot?.id).toBe(before);
  });

  it('a new block paying a watched address: the report and the balance follow, without a click', async () => {
    const o = await overview();
    const address = o.balances.address[0]!;
    const height = devnet.node.chain.tipHeight();
    states.length = 0;
    devnet.node.mine(1, devnet.node.scriptFor(address));
    await app.monitor.tick();
    const s = state();
    expect(s.state === 'connected' && s.report.node.blocks).toBe(height + 1);
    expect(s.state === 'connected' && s.report.index.height).toBe(height + 1);
    // Checked again in place: never "connecting" in between.
    expect(states.map((x) => x.state)).toEqual(['connected']);
    const after = await overview();
    expect(after.snapshot?.nodeHeight).toBe(height + 1);
    expect(BigInt(after.totals.balanceSats)).toBeGreaterThan(BigInt(o.totals.balanceSats));
  });

  it('a payment still in the mempool is noticed too (the wallet’s transaction count moved)', async () => {
    const before = await overview();
    const address = before.balances.address[1]!;
    await rpc.call('sendtoaddress', [address, 0.125], 'miner');
    await app.monitor.tick();
    const after = await overview();
    // (The incremental refresh brings the latest snapshot up to date in place.)
    expect(BigInt(after.totals.receivedSats)).toBe(BigInt(before.totals.receivedSats) + 12_500_000n);
    expect(after.snapshot?.nodeHeight).toBe(before.snapshot?.nodeHeight);
  });

  it('notifications: an incoming payment, then its first confirmation; change of our own spends is not a payment; off means none', async () => {
    const notices: PaymentNotice[] = [];
    app.services.on('notify', (n) => notices.push(n));
    const o = await overview();
    const address = o.balances.address[2]!;
    const txid = await rpc.call<string>('sendtoaddress', [address, 0.0421], 'miner');
    await app.monitor.tick();
    expect(notices).toEqual([{ kind: 'incoming', profileId: expect.any(String), wallet: 'watch', txid, title: 'Incoming payment', body: expect.stringMatching(/^0\.04210000 BTC to .*, not yet confirmed$/) }]);
    notices.length = 0;
    const miner = await rpc.call<string>('getnewaddress', [], 'miner');
    devnet.node.mine(1, devnet.node.scriptFor(miner));
    await app.monitor.tick();
    // (The earlier test's 0.125 BTC, pending since, confirms in the same block.)
    expect(notices.map((n) => n.kind)).toEqual(['confirmed', 'confirmed']);
    const mine = notices.find((n) => n.txid === txid);
    expect(mine).toMatchObject({ title: 'Payment confirmed', body: expect.stringMatching(new RegExp(`^0\\.04210000 BTC to .* is in block ${devnet.node.chain.tipHeight()}$`)) });
    // Off for this profile: a payment makes no notice.
    notices.length = 0;
    await dispatchOk(app, 'settings:set', { profile: { notifications: false } });
    await rpc.call('sendtoaddress', [address, 0.01], 'miner');
    await app.monitor.tick();
    expect(notices).toEqual([]);
    await dispatchOk(app, 'settings:set', { profile: { notifications: true } });
  });

  it('the node goes away: "down since" from the first failed poll, kept while it stays down; back by itself', async () => {
    const rpcPort = Number(new URL(devnet.rpcUrl).port);
    const indexPort = Number(new URL(devnet.indexUrl).port);
    await devnet.close();
    await app.monitor.tick();
    const down = state();
    expect(down.state).toBe('failed');
    if (down.state !== 'failed') return;
    expect(down.error.code).toMatch(/^net\./);
    expect(down.error.detail?.['peer']).toBe('node');
    const since = down.since;
    // The snapshot stays, marked offline.
    expect((await overview()).offline).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    await app.monitor.tick();
    const still = state();
    expect(still.state === 'failed' && still.since).toBe(since);

    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p', rpcPort, indexPort });
    await app.monitor.tick();
    expect(state().state).toBe('connected');
  });

  it('a poll whose step fails (the check after a new block, say) resolves and says so in the log: never an unhandled rejection', async () => {
    // A monitor on the real services whose check after a new block throws, as activating a profile
    // deleted meanwhile does; the scheduled poll is `void tick()`: a rejection there would be unhandled.
    const s = app.services;
    const warnings: string[] = [];
    const monitor = new ChainMonitor(
      {
        services: {
          on: s.on.bind(s),
          connectionState: () => s.connectionState(),
          activeConnection: () => s.activeConnection(),
          recheckActive: () => Promise.reject(new Error('The profile was deleted')),
          connectionLost: (e: unknown) => s.connectionLost(e),
          refresh: () => s.refresh(),
        },
        watch: { refresh: async () => undefined, refreshing: false },
        log: { info() {}, warn: (m: string) => warnings.push(m), error() {} },
      },
      null,
    );
    expect(state().state).toBe('connected');
    await monitor.tick(); // what it sees now
    devnet.node.mine(1, devnet.node.scriptFor((await overview()).balances.address[0]!));
    await expect(monitor.tick()).resolves.toBeUndefined();
    expect(warnings).toEqual(['monitor: the poll failed: The profile was deleted']);
    await monitor.stop();
  });

  it('wrong credentials are not retried: the person has to act', async () => {
    const s = state();
    const id = s.state === 'none' ? '' : s.profileId;
    const input = { name: 'Demo node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'u', wallet: 'watch', indexUrl: devnet.indexUrl };
    await dispatchOk(app, 'profiles:save', { id, profile: input, password: 'wrong', remember: 'session' });
    await dispatchOk(app, 'connection:refresh');
    expect(state().state === 'failed' && (state() as { error: { code: string } }).error.code).toBe('rpc.unauthorized');
    states.length = 0;
    await app.monitor.tick();
    expect(states).toEqual([]);
  });
});
