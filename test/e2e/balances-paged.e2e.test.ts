// E2E: a large wallet's Balances, paged (issue 27). Real parts: the built renderer in Chromium, the
// services behind the bridge, a real SQLite file holding a snapshot of 12,000 addresses (more than
// OVERVIEW_FULL_ROWS, so main sorts, filters and pages them), offline (no node is needed to show a
// snapshot). The table shows the count, the totals of every row, the first rows in its order, rows
// far below once scrolled to, a sort and a filter as main applies them, and an inline label.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository, type NewSnapshot } from '../../electron/main/store/watch';
import { filterTerms } from '../../shared/balance-query';
import { OVERVIEW_FULL_ROWS } from '../../shared/ipc/watch';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();
const N = 12_000;

const address = (i: number): string => bech32.encode('bcrt', [0, ...bech32.toWords(createHash('sha256').update(`paged-e2e-${i}`).digest().subarray(0, 20))]);
const txid = (i: number): string => createHash('sha256').update(`paged-e2e-tx-${i}`).digest('hex');

interface Written {
  addresses: string[];
  balances: bigint[];
  labels: Map<string, string>;
}

/** The snapshot: balance (i % 500) × 1,000 sats at address i (one UTXO), a label on every 50th. */
function seed(dataDir: string): Written {
  const db = openDatabase(join(dataDir, 'spyglass.sqlite'));
  try {
    const profiles = new ProfileRepository(db);
    // A node nobody listens on: the app shows the snapshot offline.
    const profile = profiles.create({ name: 'Big wallet', nodeUrl: 'http://127.0.0.1:9/', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'watch', indexUrl: '' }, { passwordStorage: 'session' });
    profiles.setActiveId(profile.id);
    const repo = new WatchRepository(db);
    const t = { height: 1_000, hash: txid(-1) };
    const s: NewSnapshot = { takenAt: '2026-11-28T12:00:00.000Z', node: t, index: t, previousId: null, received: [], addresses: [] };
    const out: Written = { addresses: [], balances: [], labels: new Map() };
    for (let i = 0; i < N; i++) {
      const a = address(i);
      const sats = BigInt((i % 500) * 1000);
      out.addresses.push(a);
      out.balances.push(sats);
      s.received.push({ address: a, amountSats: sats, confirmations: 3, txids: [], nodeLabel: '', nodeUnspent: { hash: `h${i}`, sats, count: 1, pending: [] } });
      s.addresses.push({ address: a, source: 'node', state: 'fetched', utxos: sats > 0n ? [{ txid: txid(i), vout: 0, amountSats: sats, height: 998 }] : [] });
    }
    repo.writeSnapshot(profile.id, s);
    for (let i = 0; i < N; i += 50) {
      const label = `Shop ${String(i / 50).padStart(3, '0')}`;
      repo.setLabel(profile.id, { type: 'addr', ref: out.addresses[i]!, label });
      out.labels.set(out.addresses[i]!, label);
    }
    return out;
  } finally {
    closeDatabase(db);
  }
}

describe.skipIf(skip !== null)(`a large wallet's Balances, paged (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let rig: Rig;
  let dataDir: string;
  let written: Written;

  beforeAll(async () => {
    expect(N).toBeGreaterThan(OVERVIEW_FULL_ROWS);
    dataDir = mkdtempSync(join(tmpdir(), 'spyglass-e2e-paged-'));
    written = seed(dataDir);
    rig = await startRig({ dataDir });
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the count, the totals of every row and the first rows by balance', async () => {
    const page = rig.page;
    await page.goto(rig.web.bridge.pageUrl);
    await page.waitForSelector('[data-testid="balances-row"][data-address]', { timeout: 60_000 });
    await expect.poll(() => page.getByTestId('balances-count').getAttribute('data-total'), { timeout: 30_000 }).toBe(String(N));
    expect(await page.getByTestId('balances-count').getAttribute('data-shown')).toBe(String(N));
    const total = written.balances.reduce((a, b) => a + b, 0n);
    await expect.poll(() => page.getByTestId('balances-total-balance').getAttribute('data-sats'), { timeout: 30_000 }).toBe(total.toString());
    // The first row: the largest balance (ties by address).
    const order = written.addresses.map((a, i) => ({ a, b: written.balances[i]! })).sort((x, y) => (x.b === y.b ? (x.a < y.a ? -1 : 1) : x.b > y.b ? -1 : 1));
    const first = page.locator('[data-testid="balances-row"][data-address]').first();
    expect(await first.getAttribute('data-address')).toBe(order[0]!.a);
    await rig.screenshot('paged-01-first-page');

    // Far below: the last row, once its page has come.
    await page.getByTestId('balances-table').focus();
    await page.keyboard.press('End');
    const last = page.locator(`[data-testid="balances-row"][data-address="${order[N - 1]!.a}"]`);
    await last.waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="balances-row-loading"]').count()).toBe(0);
  });

  it('a sort and a filter are main’s: the rows, the count and the totals of what is shown', async () => {
    const page = rig.page;
    await page.getByTestId('balances-table').focus();
    await page.keyboard.press('Home');
    await page.getByTestId('sort-label').click();
    const labelled = [...written.labels].sort((x, y) => (x[1].toLowerCase() < y[1].toLowerCase() ? -1 : 1));
    await expect.poll(() => page.locator('[data-testid="balances-row"][data-address]').first().getAttribute('data-address'), { timeout: 30_000 }).toBe(labelled[0]![0]);

    await page.getByTestId('balances-filter').fill('shop 01');
    // Every term in the row (addresses have no "shop"): Shop 001, 010…019, 101, 201.
    const matching = labelled.filter(([, l]) => filterTerms('shop 01').every((t) => l.toLowerCase().includes(t)));
    expect(matching.length).toBe(13);
    await expect.poll(() => page.getByTestId('balances-count').getAttribute('data-shown'), { timeout: 30_000 }).toBe(String(matching.length));
    const sum = matching.reduce((a, [addr]) => a + written.balances[written.addresses.indexOf(addr)]!, 0n);
    await expect.poll(() => page.getByTestId('balances-total-balance').getAttribute('data-sats'), { timeout: 30_000 }).toBe(sum.toString());
    const shown = await page.locator('[data-testid="balances-row"][data-address]').evaluateAll((els) => els.map((e) => e.getAttribute('data-address')));
    expect(shown).toEqual(matching.map(([a]) => a).slice(0, shown.length));
    await rig.screenshot('paged-02-sorted-filtered');
  });

  it('a label edited inline is saved and found by the filter', async () => {
    const page = rig.page;
    const row = page.locator('[data-testid="balances-row"][data-address]').first();
    const target = (await row.getAttribute('data-address'))!;
    await row.getByTestId('label-edit').click();
    await page.getByTestId('label-input').fill('Renamed in place');
    await page.getByTestId('label-input').press('Enter');
    await page.getByTestId('balances-filter').fill('renamed in place');
    await expect.poll(() => page.getByTestId('balances-count').getAttribute('data-shown'), { timeout: 30_000 }).toBe('1');
    const only = page.locator('[data-testid="balances-row"][data-address]').first();
    expect(await only.getAttribute('data-address')).toBe(target);
    expect(await only.getByTestId('label-text').innerText()).toBe('Renamed in place');
  });
});
