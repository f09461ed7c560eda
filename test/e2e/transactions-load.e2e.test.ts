/**
 * The Transactions screen's load (#26 item 9), in what ships: the built `npm run web` bundle
 * (out/main/web.js) in its own Node process, its page in Chromium. The node is down (a port nothing
 * listens on), so the history shown is the one kept in the data folder's SQLite file
 * (store/history-cache.ts) — 1,200 transactions, more than the first page — and no connection event
 * can ask for it again meanwhile: what the page asks is exactly what its own load asks.
 *
 * A page load of #/transactions asks `wallet:history` twice: the newest page (sent by public/early.js
 * while the page loads) and then the whole history. It asked four times before (the view loaded on
 * mount twice: each load asked for its first page and then for all, two of those the whole history).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeDatabase, openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WalletHistoryCache } from '../../electron/main/store/history-cache';
import type { WalletHistoryView, WalletTxView } from '../../shared/ipc/wallet';
import { HISTORY_FIRST_PAGE } from '../../shared/wallet/history-page';
import { startWebProcess, webBundleMissing, type WebProcess } from '../support/web-process';
import { e2eSkipReason, launchChromium } from './harness';

const skip = e2eSkipReason() ?? webBundleMissing();
const N = 1_200;

/** N receives of 1,000 sats each, newest first, with the balance after each. */
function keptHistory(): WalletHistoryView {
  const rows: WalletTxView[] = [];
  for (let i = N - 1; i >= 0; i--) {
    rows.push({
      txid: i.toString(16).padStart(64, '0'),
      time: 1_767_225_600 + i * 600,
      category: 'receive',
      amountSats: '1000',
      feeSats: null,
      confirmations: N - i,
      blockHeight: 100 + i,
      label: '',
      runningSats: String((i + 1) * 1000),
    });
  }
  return { wallet: 'vault', rows, balance: { confirmedSats: String(N * 1000), pendingSats: '0', immatureSats: '0' } };
}

describe.skipIf(skip !== null)(`Transactions page load, in the built app (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let dataDir: string;
  let chromeDir: string;
  let web: WebProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    expect(N).toBeGreaterThan(HISTORY_FIRST_PAGE);
    dataDir = mkdtempSync(join(tmpdir(), 'spyglass-txload-'));
    chromeDir = mkdtempSync(join(tmpdir(), 'spyglass-txload-chromium-'));
    const db = openDatabase(join(dataDir, 'spyglass.sqlite'));
    const profiles = new ProfileRepository(db);
    const id = profiles.create({ name: 'Cold storage', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'vault', indexUrl: '' }, { passwordStorage: 'none' }).id;
    profiles.setActiveId(id);
    new WalletHistoryCache(db).save(id, keptHistory(), new Date('2026-11-01T00:00:00Z'));
    closeDatabase(db);
    web = await startWebProcess({ dataDir });
    browser = await launchChromium(chromeDir);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(chromeDir, { recursive: true, force: true });
  });

  it('opened on #/transactions: the newest page, then the whole history — two calls, the kept history under the offline banner', async () => {
    // The bridge token first (the page moves it to this tab's sessionStorage), then a fresh page load
    // opening on #/transactions (public/early.js sends the first call while it loads).
    await page.goto(web.pageUrl);
    await page.getByTestId('topbar-state').waitFor({ timeout: 60_000 });
    const asked: unknown[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/ipc/wallet:history') asked.push(JSON.parse(r.postData() ?? 'null'));
    });
    await page.goto(`${web.origin}/#/transactions`);
    await page.locator(`[data-testid="transactions-table"][data-rows="${N}"]`).waitFor({ timeout: 60_000 });
    await page.getByTestId('transactions-partial').waitFor({ state: 'detached' });
    expect(await page.getByTestId('transactions-count').getAttribute('data-count')).toBe(String(N));
    expect(await page.getByTestId('transactions-balance').getAttribute('data-cached')).toBe('true');
    // Counted once the whole history is on screen: the page's load is over by then, and with the node
    // down nothing else asks again.
    expect(asked).toEqual([{}, { all: true }]);
  });
});
