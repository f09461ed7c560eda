/**
 * One wallet, one truth (#26), in Chromium through the real services and the loopback bridge: two
 * watch-only wallets on one node (A paid 1 BTC, B 2 BTC, then A 0.1 BTC unconfirmed), one profile.
 * After each switch the wallet's own numbers — the balances strip equal to that wallet's
 * `getbalances`, the table's rows its addresses only — and nothing of the other wallet on Balances,
 * History or Transactions; the pending column (A's 0.1 BTC unconfirmed, marked) and the totals named as
 * getbalances (trusted, untrusted_pending equal to the node's); A's address page lists the unconfirmed
 * coin, marked. A switch shows the wallet's cached rows before any refresh. Screenshots of
 * Balances, Transactions and Receive with the switcher, light and dark, 1280×800 and 900×600.
 * Shared by two-wallets.e2e.test.ts (devnet) and two-wallets-core.e2e.test.ts (real Core 31.99, 30.99).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parseBtc } from '../../shared/amounts';
import { NODE } from '../wallet/vectors';
import type { PayerNode } from '../support/payer-node';
import { dispatchOk } from '../support/app';
import { fillConnectForm } from './connect-form';
import { startRig, type Rig, exactText } from './harness';

interface Balances {
  mine: { trusted: number; untrusted_pending: number; immature: number };
}

type PageGlobal = { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null; scrollingElement: { scrollWidth: number; clientWidth: number } | null; documentElement: { dataset: Record<string, string | undefined> } } };

const sats = (btc: number): string => parseBtc(btc.toFixed(8)).toString();

export function defineTwoWalletsFlow(start: () => Promise<PayerNode>, shot: (name: string) => string): void {
  let node: PayerNode;
  let rig: Rig;
  let page: Page;
  const tid = (t: string) => page.getByTestId(t);
  const suffix = Date.now().toString(36);
  const A = `alice-${suffix}`;
  const B = `bob-${suffix}`;
  const addresses: Record<string, string[]> = {};

  async function createWatchOnly(name: string, vector: string): Promise<void> {
    const d = NODE[vector]!;
    await node.rpc.call('createwallet', [name, true, true, '', false, true, false]);
    await node.rpc.call('importdescriptors', [[
      { desc: d.external, active: true, range: [0, 99], timestamp: 'now', internal: false },
      { desc: d.internal, active: true, range: [0, 99], timestamp: 'now', internal: true },
    ]], name);
    addresses[name] = d.node.receive['0-2'];
  }

  beforeAll(async () => {
    node = await start();
    await createWatchOnly(A, 'sparrow');
    await createWatchOnly(B, 'caravan');
    await node.rpc.call('sendtoaddress', [addresses[A]![0], 1], node.payer);
    await node.rpc.call('sendtoaddress', [addresses[B]![0], 2], node.payer);
    await node.mine(1);
    await node.rpc.call('sendtoaddress', [addresses[A]![1], 0.1], node.payer);
    await node.rpc.call('syncwithvalidationinterfacequeue').catch(() => undefined);
    rig = await startRig();
    page = rig.page;
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await node?.close();
  });

  /** Balances after a refresh (or as cached): the strip equals `wallet`'s getbalances; the rows are its addresses only. */
  async function expectBalancesOf(wallet: string, other: string, opts: { refresh: boolean }): Promise<void> {
    if (page.url().includes('#/balances')) await page.reload();
    else await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await page.locator(`[data-testid="active-wallet"]`).filter({ hasText: exactText(wallet) }).waitFor({ timeout: 30_000 });
    if (opts.refresh) {
      await page.locator('[data-testid="balances-refresh"]:not([disabled])').waitFor({ timeout: 60_000 });
      await tid('balances-refresh').click();
    }
    await page.waitForSelector('[data-testid="snapshot-info"]', { timeout: 60_000 });
    const b = await node.rpc.call<Balances>('getbalances', [], wallet);
    const strip = page.locator(`[data-testid="wallet-balances"][data-wallet="${wallet}"]`);
    await strip.waitFor({ timeout: 60_000 });
    await page.waitForFunction(
      (want) => (globalThis as unknown as PageGlobal).document.querySelector('[data-testid="wallet-available"]')?.getAttribute('data-sats') === want,
      sats(b.mine.trusted),
      { timeout: 60_000 },
    );
    if (b.mine.untrusted_pending > 0) expect(await tid('wallet-incoming').getAttribute('data-sats')).toBe(sats(b.mine.untrusted_pending));
    // The table: the wallet's confirmed coins, and not one address of the other wallet.
    await page.waitForFunction(
      (want) => (globalThis as unknown as PageGlobal).document.querySelector('[data-testid="balances-total-balance"]')?.getAttribute('data-sats') === want,
      sats(b.mine.trusted),
      { timeout: 60_000 },
    );
    // The totals named as getbalances names them, summed from the rows: trusted and untrusted_pending equal the node's.
    await page.waitForFunction(
      (want) => (globalThis as unknown as PageGlobal).document.querySelector('[data-testid="balances-total-trusted"]')?.getAttribute('data-sats') === want,
      sats(b.mine.trusted),
      { timeout: 60_000 },
    );
    expect(await tid('balances-total-untrusted-pending').getAttribute('data-sats')).toBe(sats(b.mine.untrusted_pending));
    expect(await tid('balances-total-immature').innerText()).toBe('unknown'); // not listed per address: never 0
    const shown = await page.locator('[data-testid="balances-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-address')));
    expect(shown).toContain(addresses[wallet]![0]);
    for (const a of addresses[other]!) expect(shown, `an address of ${other} on ${wallet}'s Balances`).not.toContain(a);
  }

  it('connect with wallet A named: the switcher names A and the profile; Balances is A’s getbalances, none of B', async () => {
    await fillConnectForm(page, rig.web.bridge.origin, { name: 'Home node', rpcUrl: node.rpcUrl, user: node.user, password: node.password, wallet: A, indexUrl: node.indexUrl });
    await tid('form-save').click();
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
    await page.locator('[data-testid="active-wallet"]').filter({ hasText: exactText(A) }).waitFor({ timeout: 30_000 });
    expect(await tid('topbar-profile').innerText()).toBe('Home node');
    await expectBalancesOf(A, B, { refresh: true });
    // The pending column: A's 0.1 BTC unconfirmed, marked, at its address; the confirmed 1 BTC has nothing pending.
    const pending = page.locator(`[data-testid="balances-row"][data-address="${addresses[A]![1]}"] [data-testid="row-pending"]`);
    expect(await pending.getAttribute('data-untrusted')).toBe(sats(0.1));
    expect(await pending.getAttribute('data-trusted')).toBe('0');
    expect(await pending.innerText()).toMatch(/^\+0\.10*\s*pending$/);
    expect(await page.locator(`[data-testid="balances-row"][data-address="${addresses[A]![0]}"] [data-testid="row-pending"]`).getAttribute('data-sats')).toBe('0');
    await rig.screenshot(shot('balances-pending'));
    // Its address page lists the unconfirmed coin, marked so.
    await page.goto(`${rig.web.bridge.origin}/#/address/${addresses[A]![1]}`);
    const coin = page.getByTestId('address-pending-coin');
    await coin.waitFor({ timeout: 30_000 });
    expect(await coin.count()).toBe(1);
    expect(await coin.getAttribute('data-sats')).toBe(sats(0.1));
    expect(await coin.getAttribute('data-safe')).toBe('false');
    expect(await coin.getByTestId('address-pending-state').innerText()).toContain('unconfirmed');
    expect(await tid('address-balance-pending').getAttribute('data-sats')).toBe(sats(0.1));
    await rig.screenshot(shot('address-pending'));
  }, 240_000);

  it('watch B (attach it from the node’s list): every screen is B’s — its getbalances, none of A’s addresses or history', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    const b = page.locator(`[data-testid="node-wallet"][data-name="${B}"]`);
    await b.waitFor({ timeout: 30_000 });
    await b.getByTestId('node-wallet-attach').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="active-wallet"]').filter({ hasText: exactText(B) }).waitFor({ timeout: 30_000 });
    await expectBalancesOf(B, A, { refresh: true });
    // History: B's points only (one refresh, 2 BTC).
    await page.goto(`${rig.web.bridge.origin}/#/history`);
    await page.locator('[data-testid="history-point"]').first().waitFor({ timeout: 30_000 });
    const points = await page.locator('[data-testid="history-point"]').evaluateAll((els) => els.map((e) => e.querySelector('td:nth-child(5) [data-sats]')?.getAttribute('data-sats')));
    expect(points).toEqual([sats(2)]);
  }, 240_000);

  it('the switcher lists both wallets with their cached balances; switching back shows A’s cached rows at once, nothing of B', async () => {
    await tid('wallet-switcher-button').click();
    await tid('wallet-switcher-menu').waitFor();
    expect(await page.locator('[role="option"]').count()).toBe(2);
    expect(await tid(`wallet-option-${B}`).getAttribute('aria-selected')).toBe('true');
    await rig.screenshot(shot('switcher-open'));
    await tid(`wallet-option-${A}`).click();
    await page.locator('[data-testid="active-wallet"]').filter({ hasText: exactText(A) }).waitFor({ timeout: 30_000 });
    // No refresh: the rows are A's latest snapshot, kept in SQLite.
    await expectBalancesOf(A, B, { refresh: false });
    await page.goto(`${rig.web.bridge.origin}/#/transactions`);
    await page.locator('[data-testid="transaction-row"]').first().waitFor({ timeout: 30_000 });
    const txWallet = await node.rpc.call<Array<{ txid: string }>>('listtransactions', ['*', 100, 0, true], A);
    const rows = await page.locator('[data-testid="transaction-row"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-txid')));
    expect(new Set(rows)).toEqual(new Set(txWallet.map((t) => t.txid)));
  }, 240_000);

  it('a switch to a wallet the profile does not watch is refused with what to do', async () => {
    const r = await rig.web.app.dispatch('wallet:switch', { walletName: node.payer });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).toContain('is not one of this profile');
  }, 240_000);

  it('screenshots: Balances, Transactions and Receive with the switcher, light and dark, 1280×800 and 900×600', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await dispatchOk(rig.web.app, 'settings:set', { app: { theme } });
      await page.waitForFunction((t) => (globalThis as unknown as PageGlobal).document.documentElement.dataset['theme'] === t, theme);
      for (const size of [{ width: 1280, height: 800 }, { width: 900, height: 600 }]) {
        await page.setViewportSize(size);
        for (const [name, path, ready] of [
          ['balances', '/balances', 'balances-row'],
          ['transactions', '/transactions', 'transaction-row'],
          ['receive', '/receive', 'receive-address'],
        ] as const) {
          await page.goto(`${rig.web.bridge.origin}/#${path}`);
          await tid(ready).first().waitFor({ timeout: 30_000 });
          await page.locator('[data-testid="active-wallet"]').filter({ hasText: exactText(A) }).waitFor();
          const fits = await page.evaluate(() => {
            const d = (globalThis as unknown as PageGlobal).document.scrollingElement!;
            return d.scrollWidth <= d.clientWidth;
          });
          expect(fits, `${name} ${theme} ${size.width}: no sideways scroll`).toBe(true);
          // The wallet and profile names are readable: on screen and not cut short.
          for (const t of ['active-wallet', 'topbar-profile']) {
            const m = await tid(t).evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, right: e.getBoundingClientRect().right }));
            expect(m.scroll, `${t} cut short on ${name} ${size.width}`).toBeLessThanOrEqual(m.client + 1);
            expect(m.right).toBeLessThanOrEqual(size.width);
          }
          await rig.screenshot(shot(`${name}-${theme}-${size.width}x${size.height}`));
        }
      }
    }
    await dispatchOk(rig.web.app, 'settings:set', { app: { theme: 'light' } });
    await page.setViewportSize({ width: 1280, height: 860 });
  }, 240_000);
}
