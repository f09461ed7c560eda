/**
 * Never watch a key-holding wallet silently (#26), in Chromium against the devnet through the real
 * services and the loopback bridge. A node whose only wallet, `miner`, holds private keys; a profile
 * with the Wallet field left empty: connected, "no wallet watched", a warning saying to choose one,
 * and the node's wallets listed with their kind on the Dashboard and in Watch a wallet — never as
 * "Watched now". "Watch it anyway…" needs the box ticked; then the wallet is watched, marked "holds
 * private keys" on the Dashboard, in the report and in Edit profile, which shows its name. A second
 * profile, left empty, on a node whose only loaded wallet is watch-only: Edit profile shows that wallet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDevnet, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { fillConnectForm } from './connect-form';
import { e2eSkipReason, startRig, type Rig, exactText } from './harness';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`a wallet holding private keys is never watched silently (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  let rig: Rig;
  let page: Page;
  const tid = (t: string) => page.getByTestId(t);
  const row = (list: string, name: string) => page.locator(`[data-testid="${list}"] [data-testid="node-wallet"][data-name="${name}"]`);

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'empty', rpcUser: 'keys', rpcPassword: 'e2e-keys-pw' });
    rpc = new TestRpc(devnet.rpcUrl, 'keys', 'e2e-keys-pw');
    await rpc.call('createwallet', ['miner']);
    await rpc.call('generatetoaddress', [101, await rpc.call<string>('getnewaddress', [], 'miner')]);
    rig = await startRig();
    page = rig.page;
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
  });

  const connectForm = (name: string): Promise<void> =>
    fillConnectForm(page, rig.web.bridge.origin, { name, rpcUrl: devnet.rpcUrl, user: 'keys', password: 'e2e-keys-pw', wallet: '', indexUrl: devnet.indexUrl });

  it('wallet left empty, the only wallet holds keys: connected, no wallet watched, a warning, the wallets listed with their kind', async () => {
    await connectForm('Key node');
    await tid('form-test').click();
    await tid('test-result-report').waitFor({ timeout: 60_000 });
    expect(await tid('test-result-wallet').innerText()).toContain('none watched');
    await tid('form-save').click();
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
    await page.goto(`${rig.web.bridge.origin}/#/`);
    await tid('dashboard-no-wallet').waitFor();
    expect(await tid('dashboard-warnings').innerText()).toMatch(/only loaded wallet, "miner", holds private keys on the node.*Choose a wallet/s);
    const miner = row('dashboard-node-wallets', 'miner');
    await miner.waitFor();
    expect(await miner.getByTestId('node-wallet-kind').innerText()).toBe('Holds private keys');
    expect(await miner.getAttribute('data-active')).toBe('false');
    expect(await page.getByTestId('node-wallet-watched').count()).toBe(0);
    await rig.screenshot('90-key-wallet-not-watched');
    // Watch a wallet says the same.
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    const listed = row('node-wallets-list', 'miner');
    await listed.waitFor();
    expect(await listed.getAttribute('data-active')).toBe('false');
    expect(await listed.getByTestId('node-wallet-acknowledge').count()).toBe(1);
    expect(await page.getByTestId('node-wallet-watched').count()).toBe(0);
  });

  it('"Watch it anyway…" needs the acknowledgement; then the wallet is watched and marked everywhere', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/`);
    const miner = row('dashboard-node-wallets', 'miner');
    await miner.getByTestId('node-wallet-acknowledge').click();
    await tid('node-wallet-confirm').waitFor();
    expect(await tid('node-wallet-confirm').innerText()).toContain('This wallet holds private keys on the node. Spyglass never uses them, but anyone with access to this node can spend its coins.');
    expect(await tid('node-wallet-attach-keys').isDisabled()).toBe(true);
    await tid('node-wallet-understood').check();
    await rig.screenshot('91-key-wallet-acknowledge');
    await tid('node-wallet-attach-keys').click();
    await tid('dashboard-keys-badge').waitFor({ timeout: 60_000 });
    expect(await tid('dashboard-watched-wallet').innerText()).toBe('miner');
    expect(await tid('dashboard-wallet-keys').count()).toBe(1);
    expect(await tid('dashboard-warnings').innerText()).toMatch(/"miner" holds private keys on the node \(you acknowledged this\)/);
    expect(await tid('dashboard-choose-wallet').count()).toBe(0);
    await rig.screenshot('92-key-wallet-watched');
    await tid('dashboard-edit-profile').click();
    await tid('profile-form').waitFor();
    await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { value?: string } | null } }).document.querySelector('[data-testid="form-wallet"]')?.value === 'miner');
    expect(await tid('form-wallet-in-use').getAttribute('data-wallet')).toBe('miner');
    expect(await tid('form-wallet-keys-badge').count()).toBe(1);
    // The top bar's switcher marks it too.
    await page.locator('[data-testid="active-wallet"]').filter({ hasText: exactText('miner') }).waitFor({ timeout: 30_000 });
    await tid('active-wallet-holds-keys').waitFor({ timeout: 30_000 });
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    const listed = row('node-wallets-list', 'miner');
    await listed.getByTestId('node-wallet-watched').waitFor();
    expect(await listed.getByTestId('node-wallet-watched').innerText()).toBe('Watched now (keys acknowledged)');
  });

  it('a profile left empty whose node has only a watch-only wallet loaded: watched, and Edit profile shows its name', async () => {
    await rpc.call('createwallet', { wallet_name: 'cold', disable_private_keys: true, blank: true });
    await rpc.call('unloadwallet', ['miner']);
    await connectForm('Watch-only node');
    await tid('form-test').click();
    await tid('form-wallet-test-pick').waitFor({ timeout: 60_000 });
    expect(await tid('form-wallet-test-pick').innerText()).toContain('cold');
    await tid('form-save').click();
    // The previous profile stays connected until this one's test passes: wait for this one.
    await page.goto(`${rig.web.bridge.origin}/#/`);
    await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null; getAttribute(a: string): string | null } | null } }).document;
        return doc.querySelector('[data-testid="dashboard-profile"]')?.textContent === 'Watch-only node' && doc.querySelector('[data-testid="topbar-state"]')?.getAttribute('data-state') === 'connected';
      },
      undefined,
      { timeout: 60_000 },
    );
    await tid('dashboard-watched-wallet').waitFor();
    expect(await tid('dashboard-watched-wallet').innerText()).toBe('cold');
    expect(await tid('dashboard-keys-badge').count()).toBe(0);
    await tid('dashboard-edit-profile').click();
    await tid('profile-form').waitFor();
    await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { value?: string } | null } }).document.querySelector('[data-testid="form-wallet"]')?.value === 'cold');
    expect(await tid('form-wallet-in-use').getAttribute('data-wallet')).toBe('cold');
  });
});
