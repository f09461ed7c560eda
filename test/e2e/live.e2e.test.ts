// E2E "live and truthful" (#18): the app follows the chain by itself. Real parts: the built renderer in
// Chromium, the services behind the bridge with the chain monitor running (a short interval, so the
// test waits seconds, not minutes), the devnet on loopback, a real SQLite file. Nothing is clicked to
// refresh: balances appear, a block paying a watched address moves the balance, the badge and a
// desktop notification (the page's Notification API, recorded by an init script); the node stopping
// shows "node down" within a poll, and its return brings the app back. Preferences apply live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { WatchOverview } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();
const POLL_MS = 400;
/** What the page functions below read (the tests' TypeScript has no DOM types; Playwright runs them in the page). */
type PageGlobal = { document: { documentElement: { dataset: Record<string, string | undefined> }; querySelector(s: string): { getAttribute(a: string): string | null } | null } };

describe.skipIf(skip !== null)(`live: follow the chain, truthful status (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rig: Rig;
  let rpcPort = 0;
  let indexPort = 0;

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'live-pw' });
    rpcPort = Number(new URL(devnet.rpcUrl).port);
    indexPort = Number(new URL(devnet.indexUrl).port);
    rig = await startRig();
    await rig.context.grantPermissions(['notifications'], { origin: rig.web.bridge.origin });
    await rig.page.addInitScript(`
      window.__notes = [];
      const Native = window.Notification;
      window.Notification = class extends Native {
        constructor(title, options) { super(title, options); window.__notes.push(title + ': ' + (options && options.body)); }
      };
    `);
    const saved = await dispatchOk<{ profile: { id: string } }>(rig.web.app, 'profiles:save', {
      profile: { name: 'Live node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl },
      password: 'live-pw',
      remember: 'session',
    });
    await dispatchOk(rig.web.app, 'profiles:activate', { id: saved.profile.id });
    rig.web.app.monitor.setInterval(POLL_MS);
    rig.web.app.monitor.start();
  });

  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
  });

  const notes = async (): Promise<string[]> => (await rig.page.evaluate('window.__notes')) as string[];

  it('balances without pressing anything', async () => {
    const page = rig.page;
    await page.goto(rig.web.bridge.pageUrl);
    await page.waitForSelector('[data-testid="balances-row"]', { timeout: 30_000 });
    expect(await page.getByTestId('topbar-state').getAttribute('data-status')).toBe('connected');
    await rig.screenshot('50-live-balances');
  });

  it('a block paying a watched address: the balance, the badge’s block and a notification change without a click', async () => {
    const page = rig.page;
    const o = await dispatchOk<WatchOverview>(rig.web.app, 'watch:overview');
    const address = o.balances.address[3]!;
    const before = await page.getByTestId('balances-total-balance').getAttribute('data-sats');
    const tooltipBefore = await page.getByTestId('topbar-state').getAttribute('title');
    devnet.node.mine(1, devnet.node.scriptFor(address));
    const height = devnet.node.chain.tipHeight();
    await page.waitForFunction((b) => (globalThis as unknown as PageGlobal).document.querySelector('[data-testid="balances-total-balance"]')?.getAttribute('data-sats') !== b, before, { timeout: 20_000 });
    expect(BigInt((await page.getByTestId('balances-total-balance').getAttribute('data-sats'))!)).toBeGreaterThan(BigInt(before!));
    await page.waitForFunction((h) => ((globalThis as unknown as PageGlobal).document.querySelector('[data-testid="topbar-state"]')?.getAttribute('title') ?? '').includes(`block ${h.toLocaleString('en-US')}`), height, { timeout: 20_000 });
    expect(await page.getByTestId('topbar-state').getAttribute('title')).not.toBe(tooltipBefore);
    await page.waitForFunction(() => (globalThis as unknown as { __notes: string[] }).__notes.length > 0, undefined, { timeout: 20_000 });
    expect((await notes()).some((n) => n.startsWith('Payment received: ') && n.includes(`confirmed in block ${height}`))).toBe(true);
    await page.getByTestId('toast-message').filter({ hasText: 'Payment received' }).first().waitFor();
    await rig.screenshot('51-live-payment');
  });

  it('the node stops: "node down since …" within a poll; it comes back and so does the app', async () => {
    const page = rig.page;
    await devnet.close();
    await page.waitForSelector('[data-testid="topbar-state"][data-status="node-down"]', { timeout: 20_000 });
    expect(await page.getByTestId('topbar-state').innerText()).toMatch(/^Node down since /);
    await rig.screenshot('52-live-node-down');
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'live-pw', rpcPort, indexPort });
    await page.waitForSelector('[data-testid="topbar-state"][data-status="connected"]', { timeout: 30_000 });
  });

  it('preferences apply at once: unit, theme; the refresh interval reaches the monitor', async () => {
    const page = rig.page;
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('preferences').waitFor();
    await page.getByTestId('pref-unit-sats').check();
    await page.locator('[data-testid="unit-toggle"][data-unit="sats"]').waitFor();
    await page.getByTestId('pref-theme-dark').check();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).document.documentElement.dataset['theme'] === 'dark');
    await page.getByTestId('pref-refresh').selectOption('60');
    await expect.poll(() => rig.web.app.monitor.intervalMs).toBe(60_000);
    await rig.screenshot('53-settings-dark');
    // Stored: a new page reads the same.
    await page.reload();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).document.documentElement.dataset['theme'] === 'dark');
    expect(await page.getByTestId('unit-toggle').getAttribute('data-unit')).toBe('sats');
    await page.getByTestId('pref-theme-light').check();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).document.documentElement.dataset['theme'] === 'light');
  });
});
