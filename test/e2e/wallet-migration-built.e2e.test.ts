/**
 * A data folder from before the wallet scope (#26), opened by what ships: the built `npm run web`
 * bundle (out/main/web.js) in its own Node process, over its loopback bridge, and its page in Chromium.
 * Every snapshot, label and draft shows under the wallet it came from; nothing of the profile's other
 * wallet shows; a switch to that wallet shows its own cached rows. The node is down (a port nothing
 * listens on): what shows is what the file holds, marked offline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeDatabase, openDatabaseAtVersion } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { startWebProcess, webBundleMissing, type WebProcess } from '../support/web-process';
import { writeV80Draft, writeV80Rows } from '../support/v80-data';
import { e2eSkipReason, launchChromium, exactText } from './harness';

const skip = e2eSkipReason() ?? webBundleMissing();
const ADDR_VAULT = 'bcrt1qaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ADDR_OTHER = 'bcrt1qbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe.skipIf(skip !== null)(`a data folder from before the wallet scope, in the built app (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let dataDir: string;
  let chromeDir: string;
  let web: WebProcess;
  let browser: Browser;
  let page: Page;
  let vault = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'spyglass-v80-'));
    chromeDir = mkdtempSync(join(tmpdir(), 'spyglass-v80-chromium-'));
    const db = openDatabaseAtVersion(join(dataDir, 'spyglass.sqlite'), 80);
    const profiles = new ProfileRepository(db);
    vault = profiles.create({ name: 'Cold storage', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'vault', indexUrl: '' }, { passwordStorage: 'none' }).id;
    profiles.setActiveId(vault);
    writeV80Rows(db, vault, ADDR_VAULT, 150_000_000, 'a', 'cold coins');
    writeV80Draft(db, vault, 'vault', 'draft-vault', ADDR_OTHER);
    // A draft of another wallet of the same profile (written when the profile named it).
    writeV80Draft(db, vault, 'spending', 'draft-spending', ADDR_VAULT, 'e'.repeat(64));
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

  it('over the bridge: the snapshot, its label and the draft are the vault wallet’s; the other wallet’s draft is not listed but its wallet is', async () => {
    const list = await web.call<{ profileId: string; wallets: Array<{ name: string; active: boolean; balanceSats: string | null }> }>('wallet:list');
    expect(list.ok && list.value.wallets).toEqual([
      { name: 'spending', active: false, kind: null, snapshotAt: null, balanceSats: null, holdsKeys: false },
      { name: 'vault', active: true, kind: null, snapshotAt: '2026-11-01T00:00:00Z', balanceSats: '150000000', holdsKeys: false },
    ]);
    const overview = await web.call<{ offline: boolean; totals: { balanceSats: string } }>('watch:overview');
    expect(overview.ok && overview.value.totals.balanceSats).toBe('150000000');
    expect(overview.ok && overview.value.offline).toBe(true);
    const labels = await web.call<{ text: string }>('labels:export');
    expect(labels.ok && labels.value.text).toContain('"label":"cold coins"');
    const drafts = await web.call<{ drafts: Array<{ id: string; wallet: string }> }>('drafts:list');
    expect(drafts.ok && drafts.value.drafts.map((d) => [d.id, d.wallet])).toEqual([['draft-vault', 'vault']]);
  });

  it('in Chromium: the switcher names the vault and the profile; Balances shows its cached row, offline', async () => {
    await page.goto(web.pageUrl);
    await page.goto(`${web.origin}/#/balances`);
    await page.getByTestId('active-wallet').filter({ hasText: exactText('vault') }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('topbar-profile').innerText()).toBe('Cold storage');
    await page.locator(`[data-testid="balances-row"][data-address="${ADDR_VAULT}"]`).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('balances-total-balance').getAttribute('data-sats')).toBe('150000000');
  });

  it('switching to the other wallet: its draft, none of the vault’s rows; and back', async () => {
    await page.getByTestId('wallet-switcher-button').click();
    await page.getByTestId('wallet-option-spending').click();
    await page.getByTestId('active-wallet').filter({ hasText: exactText('spending') }).waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid="balances-row"]').count()).toBe(0);
    const drafts = await web.call<{ drafts: Array<{ id: string }> }>('drafts:list');
    expect(drafts.ok && drafts.value.drafts.map((d) => d.id)).toEqual(['draft-spending']);
    const labels = await web.call<{ text: string }>('labels:export');
    expect(labels.ok && labels.value.text).not.toContain('cold coins');
    await page.getByTestId('wallet-switcher-button').click();
    await page.getByTestId('wallet-option-vault').click();
    await page.locator(`[data-testid="balances-row"][data-address="${ADDR_VAULT}"]`).waitFor({ timeout: 60_000 });
  });
});
