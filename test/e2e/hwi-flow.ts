/**
 * Hardware wallets over USB (#30) in Chromium, against a node: the devnet (hwi.e2e.test.ts) or real
 * Bitcoin Core (hwi-core.e2e.test.ts). The signer program is the test HWI program
 * (test/support/hwi-signer.mjs, standing in for a device, which cannot exist here), named by
 * SPYGLASS_SIGNER: the Signers page lists the devices → Watch a wallet imports the device's account
 * (From a device, the import preview) → Receive: Verify on device → Send composes → a declined
 * signature leaves the draft as it was → Sign with device → finalize → broadcast → mined.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PayerNode } from '../support/payer-node';
import { fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER, type HwiDevice } from '../support/hwi-devices';
import { startRig, type Rig } from './harness';

/**
 * `lean` (the real-Core variant, whose CI time is counted): the Signers page and the declined signature
 * are left to the devnet run; the import, the verification and the signing run on every node.
 */
export function defineHwiFlow(start: () => Promise<PayerNode>, shot: (name: string) => string, opts: { lean?: boolean } = {}): void {
  let n: PayerNode;
  let rig: Rig;
  let page: Page;
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-hwi-e2e-'));
  const config = join(tmp, 'hwi-config.json');
  const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
  const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus', mode: 'locked' };
  const fpA = fingerprintOf('A');
  const suffix = Date.now().toString(36);
  const tid = (t: string) => page.getByTestId(t);
  const origin = () => rig.web.bridge.origin;
  const setDevices = (devices: HwiDevice[]) => writeFileSync(config, JSON.stringify({ devices }));
  const saved: Record<string, string | undefined> = {};
  const ok = async <T>(channel: string, payload: unknown): Promise<T> => {
    const r = await rig.web.app.dispatch(channel, payload);
    if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(async () => {
    setDevices([A, B]);
    for (const k of ['SPYGLASS_SIGNER', HWI_CONFIG_ENV]) saved[k] = process.env[k];
    process.env.SPYGLASS_SIGNER = HWI_SIGNER;
    process.env[HWI_CONFIG_ENV] = config;
    n = await start();
    rig = await startRig();
    page = rig.page;
    const p = await ok<{ profile: { id: string } }>('profiles:save', { profile: { name: 'Node', nodeUrl: n.rpcUrl, auth: 'password', rpcUser: n.user, wallet: '', indexUrl: n.indexUrl }, password: n.password, remember: 'session' });
    await ok('profiles:activate', { id: p.profile.id });
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await n?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it.skipIf(opts.lean === true)('Signers: each device with its model and fingerprint, a locked one with what it needs', async () => {
    await page.goto(`${origin()}/#/signers`);
    await tid('nav-signers').waitFor();
    await page.locator(`[data-testid="signer-device"][data-fingerprint="${fpA}"]`).waitFor({ timeout: 60_000 });
    expect(await tid('signer-device').allInnerTexts()).toEqual([expect.stringContaining('trezor_t'), expect.stringMatching(/ledger_nano_s_plus[\s\S]*PIN/)]);
    expect(await tid('signer-program').innerText()).toContain('SPYGLASS_SIGNER');
    await rig.screenshot(shot('signers'));
  }, 90_000);

  it('Watch a wallet, From a device: the account’s native SegWit descriptors, previewed and imported', async () => {
    setDevices([A]);
    await page.goto(`${origin()}/#/import`);
    await tid('device-import-open').click();
    await tid(`signer-choose-${fpA}`).click({ timeout: 60_000 });
    await tid('device-import-type').selectOption('p2wpkh', { timeout: 60_000 });
    await tid('device-import-use').click();
    await page.locator('[data-testid="import-preview"][data-stale="false"]').waitFor({ timeout: 60_000 });
    expect(await tid('import-key').allInnerTexts()).toEqual([expect.stringContaining(fpA)]);
    await tid('import-wallet-name').fill(`device-${suffix}`);
    await tid('import-rescan-now').check();
    await tid('import-create').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
  }, 120_000);

  it('Receive: Verify on device shows the same address', async () => {
    const address = await tid('receive-address').innerText();
    await tid('device-verify-go').click();
    await page.locator('[data-testid="device-verify-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-verify-result').innerText()).toContain(address);
    await n.rpc.call('sendtoaddress', [address, 1], n.payer);
    await n.mine(1);
  }, 90_000);

  it(`Send: ${opts.lean ? '' : 'declined on the device, the draft is as it was; then '}signed on the device, finalized, broadcast, mined`, async () => {
    const payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    await page.goto(`${origin()}/#/send?seed=5`);
    await tid('send-address').fill(payTo, { timeout: 60_000 });
    await tid('send-amount').fill('0.25');
    await tid('send-fee-rate').fill('2');
    await tid('send-sum-fee').waitFor({ timeout: 60_000 });
    await tid('send-create').click();
    await tid('device-sign').waitFor({ timeout: 60_000 });
    await tid('device-sign-open').click();
    if (!opts.lean) {
      setDevices([{ ...A, mode: 'decline' }]);
      await tid(`signer-choose-${fpA}`).click({ timeout: 60_000 });
      await page.locator('[data-testid="device-sign-result"][data-ok="false"]').waitFor({ timeout: 60_000 });
      expect(await tid('device-sign-result').innerText()).toMatch(/Declined on trezor_t.*draft is as it was/);
      expect(await page.locator('[data-testid="signing"]').getAttribute('data-complete')).toBe('false');
      setDevices([A]);
    }
    await tid(`signer-choose-${fpA}`).click({ timeout: 60_000 });
    await page.locator('[data-testid="device-sign-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-sign-result').innerText()).toMatch(/trezor_t \(.{8}\) signed: PSBT v0: 1 new signature/);
    await page.locator('[data-testid="signing"][data-complete="true"]').waitFor();
    await rig.screenshot(shot('signed'));
    await tid('broadcast-finalize').click();
    await tid('broadcast-check').click();
    await tid('broadcast-confirm').waitFor();
    await tid('broadcast-send').click();
    await tid('broadcast-sent').waitFor();
    const txid = (await tid('broadcast-sent').getAttribute('data-txid'))!;
    await n.mine(1);
    expect((await n.rpc.call<{ confirmations: number }>('gettransaction', [txid], n.payer)).confirmations).toBe(1);
  }, 180_000);
}
