/**
 * A profile without an index (#17 item 5), in Chromium against the devnet, through the real services
 * and the loopback bridge. First the screens: "Connect your node" with the index URL left empty, the
 * dashboard saying there is none, balances from the node's wallet equal to what the node counts, an
 * address outside the wallet marked "needs an index", reconciliation refusing with the reason, a
 * transaction page without a merkle check, receive and the wallet's transactions. Then the whole send
 * flow (send-flow.ts: compose, sign elsewhere, finalize, broadcast, bump, the 2-of-3 vault) with
 * profiles that have no index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDevnet, type Devnet } from '../../devnet/index';
import { parseBtc } from '../../shared/amounts';
import { TestRpc } from '../support/rpc';
import { e2eSkipReason, startRig, type Rig } from './harness';
import { defineSendFlow } from './send-flow';
import { startDevnetPayer } from '../support/payer-node';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`no index: the node wallet alone (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  let rig: Rig;
  let page: Page;
  const tid = (t: string) => page.getByTestId(t);
  let outsider = '';

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'solo', rpcPassword: 'e2e-solo-pw' });
    rpc = new TestRpc(devnet.rpcUrl, 'solo', 'e2e-solo-pw');
    rig = await startRig();
    page = rig.page;
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
  });

  it('connect with the index URL left empty: the test and the dashboard say there is no index', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/connect`);
    await tid('profile-form').waitFor();
    await tid('form-name').fill('Node only');
    await tid('form-node-url').fill(devnet.rpcUrl);
    await tid('form-auth-password').check();
    await tid('form-rpc-user').fill('solo');
    await tid('form-password').fill('e2e-solo-pw');
    await tid('form-wallet').fill('watch');
    await tid('form-test').click();
    await tid('test-result-report').waitFor({ timeout: 60_000 });
    expect(await tid('test-result-no-index').innerText()).toContain('None configured');
    await tid('form-save').click();
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
    await page.goto(`${rig.web.bridge.origin}/#/`);
    await tid('dashboard-no-index').waitFor();
    expect(await tid('dashboard-index-height').count()).toBe(0);
    await rig.screenshot('80-no-index-dashboard');
  });

  it('balances come from the node wallet: the total is what the node counts unspent', async () => {
    outsider = await rpc.call<string>('getnewaddress', [], 'miner');
    await rpc.call('sendtoaddress', [outsider, 0.5], 'miner');
    await rpc.call('generatetoaddress', [1, await rpc.call<string>('getnewaddress', [], 'miner')]);
    // Every confirmed coin of the wallet, change included (listreceivedbyaddress never lists change).
    const unspent = await rpc.call<Array<{ address: string; amount: number }>>('listunspent', [1], 'watch');
    const expected = unspent.reduce((t, u) => t + parseBtc(u.amount.toFixed(8)), 0n);
    expect(expected).toBeGreaterThan(0n);

    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await tid('add-addresses').click();
    await tid('add-addresses-text').fill(`${outsider} someone else's`);
    await tid('add-addresses-submit').click();
    await tid('add-addresses-result').waitFor();
    await tid('add-addresses-close').click();
    await tid('balances-refresh').click();
    await page.waitForSelector('[data-testid="snapshot-status"]', { timeout: 60_000 });
    await page.waitForFunction(
      (want) => (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null } }).document.querySelector('[data-testid="balances-total-balance"]')?.getAttribute('data-sats') === want,
      expected.toString(),
      { timeout: 60_000 },
    );
    // An incoming payment not in a block yet: not a confirmed coin, but shown above the rows at once.
    const incomingTo = await rpc.call<string>('getnewaddress', [], 'watch');
    await rpc.call('sendtoaddress', [incomingTo, 0.123], 'miner');
    await tid('balances-refresh').click();
    const pending = await rpc.call<{ mine: { untrusted_pending: number; trusted: number } }>('getbalances', [], 'watch');
    expect(pending.mine.untrusted_pending).toBeGreaterThanOrEqual(0.123);
    await page.waitForFunction(
      (want) => (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null } }).document.querySelector('[data-testid="wallet-incoming"]')?.getAttribute('data-sats') === want,
      parseBtc(pending.mine.untrusted_pending.toFixed(8)).toString(),
      { timeout: 60_000 },
    );
    expect(await tid('wallet-available').getAttribute('data-sats')).toBe(parseBtc(pending.mine.trusted.toFixed(8)).toString());
    // The address outside the wallet: marked, with the reason.
    await tid('balances-filter').fill(outsider);
    const mark = tid('row-fetch-failed');
    await mark.waitFor();
    expect(await mark.getAttribute('title')).toContain('no index');
    await rig.screenshot('81-no-index-balances');
  });

  it('the outside address’s page and reconciliation say they need an index', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/address/${encodeURIComponent(outsider)}`);
    expect(await tid('address-needs-index').innerText()).toContain('no index');
    await page.goto(`${rig.web.bridge.origin}/#/reconcile`);
    await tid('reconcile-error').waitFor({ timeout: 30_000 });
    expect(await tid('reconcile-error').innerText()).toMatch(/has none/);
  });

  it('a wallet transaction’s page: inputs and outputs from the node, no merkle check, spends known', async () => {
    const tx = (await rpc.call<Array<{ txid: string; confirmations: number }>>('listtransactions', ['*', 50], 'watch')).filter((t) => t.confirmations > 0).pop();
    await page.goto(`${rig.web.bridge.origin}/#/tx/${tx!.txid}`);
    await tid('tx-view').waitFor();
    await tid('tx-merkle-message').waitFor({ timeout: 30_000 });
    expect(await tid('tx-merkle-message').innerText()).toContain('no index');
    expect(await tid('tx-merkle').getAttribute('data-checked')).toBe('false');
    expect(await tid('tx-output').count()).toBeGreaterThan(0);
    const decoded = await rpc.call<{ vout: unknown[] }>('getrawtransaction', [tx!.txid, 1]).catch(() => null);
    if (decoded) expect(await tid('tx-output').count()).toBe(decoded.vout.length);
  });

  it('receive and the wallet’s transactions work without an index', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/receive`);
    await tid('receive-address').waitFor({ timeout: 30_000 });
    const address = (await tid('receive-address').innerText()).trim();
    expect((await rpc.call<{ ismine: boolean }>('getaddressinfo', [address], 'watch')).ismine).toBe(true);
    await page.goto(`${rig.web.bridge.origin}/#/transactions`);
    await tid('transaction-row').first().waitFor({ timeout: 30_000 });
  });
});

describe.skipIf(skip !== null)(`send with no index (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  // The devnet payer of send.e2e, with profiles that have no index for the whole flow.
  defineSendFlow(async () => ({ ...(await startDevnetPayer('e2e-send-pw')), indexUrl: '' }), (name) => `82-no-index-send-${name}`);
});
