// E2E in Chromium for watch-only tracking: balances from a refresh against the devnet demo chain,
// inline label edit that survives an app restart, address and transaction details (merkle proof,
// the node's check, spenders), history, BIP329 export → import round trip, adding addresses (a wrong
// line adds nothing; kinds the index does not serve are named), and offline mode after the devnet stops.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { BalanceRowView, WatchOverview } from '../../shared/ipc/contract';
import { balanceRows } from '../../shared/ipc/balance-columns';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

/** Runs in the page (self-contained): whether the room the toasts reserve below the content (ToastRegion publishes it) is zero. */
function toastSpaceIsZero(zero: boolean): boolean {
  const g = globalThis as unknown as { document: { documentElement: unknown }; getComputedStyle(e: unknown): { getPropertyValue(p: string): string } };
  return (g.getComputedStyle(g.document.documentElement).getPropertyValue('--toast-space') === '0px') === zero;
}
const keyring = Boolean(process.env.SPYGLASS_TEST_KEYRING);

describe.skipIf(skip !== null)(`watch-only tracking (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rig: Rig;
  let dataDir: string;
  let labelled = '';

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'e2e-watch-pw' });
    dataDir = mkdtempSync(join(tmpdir(), 'spyglass-e2e-watch-'));
    rig = await startRig({ dataDir });
    // Connecting through the UI is covered by connect.e2e; here the profile is made through the same channels.
    const saved = await rig.web.app.dispatch('profiles:save', {
      profile: { name: 'Demo node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl },
      password: 'e2e-watch-pw',
      remember: keyring ? 'keychain' : 'session',
    });
    if (!saved.ok) throw new Error(saved.error.message);
    await rig.web.app.dispatch('profiles:activate', { id: (saved.value as { profile: { id: string } }).profile.id });
    // The page opened on Welcome (no profile then); once it sees the connection it replaces itself with
    // the dashboard — a goto made before that would be undone by it.
    await rig.page.waitForURL((u) => !u.hash.includes('welcome'), { timeout: 30_000 });
  });

  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const overview = async (): Promise<WatchOverview & { rows: BalanceRowView[] }> => {
    const r = await rig.web.app.dispatch('watch:overview', {});
    if (!r.ok) throw new Error(r.error.message);
    const o = r.value as WatchOverview;
    return { ...o, rows: balanceRows(o.balances) };
  };

  it('refresh fills the balances table with what the index holds', async () => {
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    // The chain monitor may be refreshing already (Cancel shows in the button's place until it ends): on a
    // loaded machine that took over 30 s once, so the button is waited for as long as the rows are.
    await page.getByTestId('balances-refresh').first().click({ timeout: 120_000 });
    await page.waitForSelector('[data-testid="balances-row"]', { timeout: 60_000 });
    const o = await overview();
    expect(o.rows.length).toBeGreaterThan(20);
    expect(await page.getByTestId('balances-count').getAttribute('data-total')).toBe(String(o.rows.filter((r) => !r.hidden).length));
    const funded = o.rows.find((r) => BigInt(r.balanceSats) > 0n)!;
    const row = page.locator(`[data-testid="balances-row"][data-address="${funded.address}"]`);
    if ((await row.count()) > 0) expect(await row.getAttribute('data-balance')).toBe(funded.balanceSats);
    await rig.screenshot('20-balances');
  });

  it('a whole header cell sorts (not only its text); a toast leaves the table uncovered', async () => {
    const page = rig.page;
    const balanceHeader = page.locator('[role="columnheader"]', { has: page.getByTestId('sort-balance') });
    const initial = await balanceHeader.getAttribute('aria-sort');
    expect(initial).not.toBe('none');
    // Click the Type header far from its text: the right end of the cell.
    const cell = page.locator('[role="columnheader"]', { has: page.getByTestId('sort-type') });
    const box = (await cell.boundingBox())!;
    await page.mouse.click(box.x + box.width - 3, box.y + box.height - 2);
    expect(await cell.getAttribute('aria-sort')).toBe('ascending');
    const types = await page.getByTestId('row-type').allInnerTexts();
    expect(types).toEqual([...types].sort());
    // Back to the order the next tests expect.
    for (let i = 0; i < 2 && (await balanceHeader.getAttribute('aria-sort')) !== initial; i++) await page.getByTestId('sort-balance').click();
    expect(await balanceHeader.getAttribute('aria-sort')).toBe(initial);
    // Export CSV says what it wrote in a toast; the table's last rows and totals stay in view beside it.
    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    await download;
    const item = page.getByTestId('toast-item').filter({ hasText: 'spyglass-balances.csv' });
    await item.waitFor();
    await page.waitForFunction(toastSpaceIsZero, false);
    const toastBox = (await item.boundingBox())!;
    const tableBox = (await page.getByTestId('balances-table').boundingBox())!;
    expect(tableBox.y + tableBox.height).toBeLessThanOrEqual(toastBox.y);
    await rig.screenshot('20b-balances-toast');
    await item.getByTestId('toast-dismiss').click();
    await page.waitForFunction(toastSpaceIsZero, true);
  });

  it('a label edited inline is saved', async () => {
    const page = rig.page;
    const first = page.getByTestId('balances-row').first();
    labelled = (await first.getAttribute('data-address'))!;
    await first.getByTestId('label-edit').click();
    await page.getByTestId('label-input').fill('Cold storage');
    await page.getByTestId('label-input').press('Enter');
    await page.locator(`[data-testid="balances-row"][data-address="${labelled}"]`, { hasText: 'Cold storage' }).waitFor();
    expect((await overview()).rows.find((r) => r.address === labelled)?.label).toBe('Cold storage');
    await rig.screenshot('21-label-edited');
  });

  it('address details and a transaction with its merkle proof checked', async () => {
    const page = rig.page;
    const o = await overview();
    const funded = o.rows.find((r) => r.utxoCount > 0 && (r.minConfirmations ?? 0) > 0)!;
    await page.goto(`${rig.web.bridge.origin}/#/address/${encodeURIComponent(funded.address)}`);
    await page.waitForSelector(`text=${funded.address}`);
    const detail = await rig.web.app.dispatch('watch:address', { address: funded.address });
    const txid = detail.ok ? (detail.value as { utxos: { txid: string }[] }).utxos[0]!.txid : '';
    // Its transactions listed with what each paid here, linking to the transaction page.
    await page.locator(`[data-testid="address-tx"][data-txid="${txid}"]`).waitFor();
    expect(await page.getByTestId('address-tx').count()).toBe(funded.receivedTxCount);
    await rig.screenshot('22-address');
    await page.goto(`${rig.web.bridge.origin}/#/tx/${txid}`);
    await page.waitForSelector('[data-testid="tx-merkle"][data-valid="true"]', { timeout: 30_000 });
    expect(await page.getByTestId('tx-node-block').getAttribute('data-state')).toBe('same');
    await rig.screenshot('23-transaction');
    // The output holding the UTXO is unspent; the input's outpoint leads to the previous
    // transaction, whose output links back here as its spender.
    const watchedOut = page.locator(`[data-testid="tx-output"][data-address="${funded.address}"]`).first();
    expect(await watchedOut.getByTestId('tx-output-spent').getAttribute('data-spent')).toBe('no');
    await expect.poll(() => watchedOut.getByTestId('tx-output-spent').innerText()).toBe('unspent');
    const outpoint = page.getByTestId('tx-input-outpoint').first();
    expect(await outpoint.count(), 'the demo UTXO comes from a transaction with inputs, not a coinbase').toBe(1);
    await outpoint.click();
    await page.waitForSelector(`[data-testid="tx-view"]:not([data-txid="${txid}"])`);
    const backLink = page.locator(`[data-testid="tx-output-spent"] a[href$="/tx/${txid}"]`).first();
    await backLink.waitFor();
    await rig.screenshot('23-transaction-spent-by');
    await backLink.click();
    await page.waitForSelector(`[data-testid="tx-view"][data-txid="${txid}"]`);
  });

  it('history shows the chart and what changed', async () => {
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/history`);
    await page.getByTestId('history-chart').waitFor();
    // The first snapshot: every UTXO is new; the list shows its first 25 until asked for all.
    const h = await rig.web.app.dispatch('watch:history', {});
    if (!h.ok) throw new Error(h.error.message);
    const newUtxos = (h.value as { diff: { newUtxos: unknown[] } }).diff.newUtxos.length;
    expect(newUtxos).toBeGreaterThan(25);
    expect(await page.getByTestId('history-new-utxo').count()).toBe(25);
    await rig.screenshot('24-history');
    await page.getByTestId('history-new-utxo-all').click();
    expect(await page.getByTestId('history-new-utxo').count()).toBe(newUtxos);
    expect(await page.getByTestId('history-spent-utxo').count()).toBe(0);
  });

  it('BIP329 export → import round trip', async () => {
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/labels`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('labels-export').click()]);
    const file = join(dataDir, 'exported.jsonl');
    await download.saveAs(file);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`"ref":"${labelled}","label":"Cold storage"`);
    // Forget the label, then bring it back from the file.
    await rig.web.app.dispatch('labels:set', { type: 'addr', ref: labelled, label: '' });
    expect((await overview()).rows.find((r) => r.address === labelled)?.label).toBeNull();
    await page.getByTestId('labels-import-file').setInputFiles(file);
    await page.getByTestId('labels-preview').click();
    await page.getByTestId('labels-preview-result').waitFor();
    await rig.screenshot('25-labels-import-preview');
    await page.getByTestId('labels-apply').click();
    await page.getByTestId('labels-import-result').waitFor();
    expect((await overview()).rows.find((r) => r.address === labelled)?.label).toBe('Cold storage');
  });

  it('the label survives a restart of the app', async () => {
    await rig.close();
    rig = await startRig({ dataDir });
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await page.waitForSelector('[data-testid="balances-row"]', { timeout: 30_000 });
    await page.getByTestId('balances-filter').fill('Cold storage');
    await page.locator(`[data-testid="balances-row"][data-address="${labelled}"]`, { hasText: 'Cold storage' }).waitFor();
    await rig.screenshot('27-after-restart-filtered');
  });

  it('adding addresses: a wrong line adds nothing; a list is added, and the dialog says which the index cannot look up', async () => {
    const page = rig.page;
    const friend = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
    const anchor = 'bcrt1pfeesnyr2tx'; // pay-to-anchor: valid on regtest, not a kind a bitaps index serves
    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await page.getByTestId('add-addresses').click();
    await page.getByTestId('add-addresses-text').fill(`address,label\n${friend},Friend\nnot-an-address,\n${anchor},Anchor`);
    await page.getByTestId('add-addresses-submit').click();
    await page.getByTestId('add-addresses-errors').waitFor();
    expect(await page.getByTestId('add-addresses-error').getAttribute('data-line')).toBe('3');
    expect((await overview()).rows.some((r) => r.address === friend)).toBe(false); // nothing half-applied
    await page.getByTestId('add-addresses-text').fill(`address,label\n${friend},Friend\n${anchor},Anchor`);
    await page.getByTestId('add-addresses-submit').click();
    await page.getByTestId('add-addresses-result').waitFor();
    expect(await page.getByTestId('add-addresses-result').getAttribute('data-added')).toBe('2');
    expect(await page.getByTestId('add-addresses-unserved').getAttribute('data-count')).toBe('1');
    expect(await page.getByTestId('add-addresses-unserved').innerText()).toContain(anchor);
    await rig.screenshot('21-add-addresses');
    await page.getByTestId('add-addresses-refresh').click();
    await page.getByTestId('balances-filter').fill('Friend'); // a 0-balance row sorts far below the fold
    await page.locator(`[data-testid="balances-row"][data-address="${friend}"]`, { hasText: 'Friend' }).waitFor({ timeout: 30_000 });
  });

  it('offline after the devnet stops: the last snapshot, marked offline', async () => {
    await devnet.close();
    await rig.web.app.dispatch('connection:refresh', {});
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await page.reload();
    await page.getByTestId('offline-banner').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('offline-banner').innerText()).toMatch(/offline/i);
    await page.getByTestId('balances-filter').fill('');
    expect(await page.locator('[data-testid="balances-row"]').count()).toBeGreaterThan(5);
    await rig.screenshot('26-offline');
  });
});
