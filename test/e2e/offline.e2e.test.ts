// E2E "offline tells the truth" (#26 item 6): the node stops while the app runs. Real parts: the built
// renderer in Chromium, the services behind the bridge with the chain monitor running (a short
// interval), the password in the real OS keychain, a real SQLite file, the devnet on loopback, stopped
// and started again on the same ports. With the node down, Transactions and History show what was
// kept under "Offline — as of …" with the connection's own reason, and Refresh names that reason — not
// "credentials.missing" (the password is saved). Back: every banner is gone and the state connected.
// (The reconnect's 5 s promise is the schedule's, asserted in test/main/offline.test.ts, not by a clock here.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { dispatchOk } from '../support/app';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();
const POLL_MS = 400;

describe.skipIf(skip !== null)(`offline: cached data under the banner, the real reason, back by itself (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rig: Rig;
  let rpcPort = 0;
  let indexPort = 0;
  let txCount = 0;

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'olive', rpcPassword: 'offline-pw' });
    rpcPort = Number(new URL(devnet.rpcUrl).port);
    indexPort = Number(new URL(devnet.indexUrl).port);
    rig = await startRig();
    const saved = await dispatchOk<{ profile: { id: string; passwordStorage: string } }>(rig.web.app, 'profiles:save', {
      profile: { name: 'Offline node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'olive', wallet: 'watch', indexUrl: devnet.indexUrl },
      password: 'offline-pw',
      remember: 'keychain',
    });
    expect(saved.profile.passwordStorage).toBe('keychain');
    await dispatchOk(rig.web.app, 'profiles:activate', { id: saved.profile.id });
    rig.web.app.monitor.setInterval(POLL_MS);
    rig.web.app.monitor.start();
  });

  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
  });

  it('online: Transactions lists the wallet’s history, named as Core names its balances; History its snapshots', async () => {
    const page = rig.page;
    await page.goto(rig.web.bridge.pageUrl);
    await page.waitForSelector('[data-testid="balances-row"]', { timeout: 30_000 });
    await page.getByTestId('nav-transactions').click();
    await page.waitForSelector('[data-testid="transaction-row"]', { timeout: 20_000 });
    txCount = Number(await page.getByTestId('transactions-count').getAttribute('data-count'));
    expect(txCount).toBeGreaterThan(0);
    expect(await page.getByTestId('offline-banner').count()).toBe(0);
    const split = await page.getByTestId('transactions-balance').innerText();
    expect(split).toContain('Available (trusted)');
    expect(split).toContain('Incoming, unconfirmed (untrusted_pending)');
    expect(split).not.toContain('Confirmed');
    // A received payment's fee is not the wallet's to know: "unknown", never 0.
    const unknownFees = await page.getByTestId('transaction-fee-unknown').allInnerTexts();
    expect(unknownFees.length).toBeGreaterThan(0);
    expect(new Set(unknownFees)).toEqual(new Set(['unknown']));
    await page.getByTestId('nav-history').click();
    await page.waitForSelector('[data-testid="history-point"]', { timeout: 20_000 });
    expect(await page.getByTestId('offline-banner').count()).toBe(0);
  });

  it('the node stops: cached rows under the banner with the real reason; Refresh names it too, not credentials.missing', async () => {
    const page = rig.page;
    await devnet.close();
    await page.waitForSelector('[data-testid="topbar-state"][data-status="node-down"]', { timeout: 30_000 });
    const down = rig.web.app.services.connectionState();
    expect(down.state).toBe('failed');
    if (down.state !== 'failed') return;
    expect(down.error.code).toMatch(/^net\./);

    await page.getByTestId('nav-transactions').click();
    const banner = page.getByTestId('offline-banner');
    await banner.waitFor({ timeout: 20_000 });
    expect(await banner.getAttribute('data-reason')).toMatch(/^net\./);
    expect(await banner.innerText()).toMatch(/Offline — as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(await page.getByTestId('offline-reason').innerText()).not.toContain('credentials.missing');
    await page.waitForSelector('[data-testid="transaction-row"]');
    expect(Number(await page.getByTestId('transactions-count').getAttribute('data-count'))).toBe(txCount);
    expect(await page.getByTestId('transactions-error').count()).toBe(0);
    await rig.screenshot('80-offline-transactions');

    await page.getByTestId('nav-history').click();
    await page.getByTestId('offline-banner').waitFor({ timeout: 20_000 });
    // The points come from their own request, started as the view mounts.
    await page.getByTestId('history-point').first().waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('history-point').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('offline-banner').getAttribute('data-reason')).toMatch(/^net\./);
    await rig.screenshot('81-offline-history');

    await page.getByTestId('nav-balances').click();
    // The wallet's split stays, as the node last gave it, marked so.
    await page.getByTestId('wallet-balances-as-of').waitFor({ timeout: 20_000 });
    await page.getByTestId('balances-refresh').click();
    const refused = page.getByTestId('refresh-error');
    await refused.waitFor({ timeout: 20_000 });
    const code = await refused.getAttribute('data-code');
    expect(code).toMatch(/^net\./);
    expect(code).not.toBe('credentials.missing');
    expect(await page.getByTestId('refresh-error-message').innerText()).toMatch(/^Spyglass cannot refresh .*: the connection to the node failed — /);
    await rig.screenshot('82-offline-refresh');
  });

  it('the node is back: connected by itself, and every banner gone', async () => {
    const page = rig.page;
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'olive', rpcPassword: 'offline-pw', rpcPort, indexPort });
    await page.waitForSelector('[data-testid="topbar-state"][data-status="connected"]', { timeout: 60_000 });
    expect(rig.web.app.services.connectionState().state).toBe('connected');
    // Balances: "the refresh did not run" and the offline banner leave on their own.
    await page.waitForSelector('[data-testid="refresh-error"]', { state: 'detached', timeout: 30_000 });
    await page.waitForSelector('[data-testid="offline-banner"]', { state: 'detached', timeout: 30_000 });
    await page.waitForSelector('[data-testid="wallet-balances-as-of"]', { state: 'detached', timeout: 30_000 });
    await page.getByTestId('wallet-balances').waitFor();
    await page.getByTestId('nav-transactions').click();
    await page.waitForSelector('[data-testid="transaction-row"]', { timeout: 20_000 });
    await page.waitForSelector('[data-testid="transactions-balance"][data-cached="false"]', { timeout: 30_000 });
    expect(await page.getByTestId('offline-banner').count()).toBe(0);
    await page.getByTestId('nav-history').click();
    await page.waitForSelector('[data-testid="history-point"]', { timeout: 20_000 });
    expect(await page.getByTestId('offline-banner').count()).toBe(0);
    await rig.screenshot('83-offline-back');
  });
});
