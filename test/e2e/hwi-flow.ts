/**
 * Hardware wallets over USB (#30) in Chromium, against a node: the devnet (hwi.e2e.test.ts) or real
 * Bitcoin Core (hwi-core.e2e.test.ts). The signer program is the test HWI program
 * (test/support/hwi-signer.mjs, standing in for a device, which cannot exist here), named by
 * SPYGLASS_SIGNER: the Signers page lists the devices → Watch a wallet imports the device's account
 * (From a device, the import preview) → Receive: Verify on device → Send composes → a declined
 * signature leaves the draft as it was → Sign with device → finalize → broadcast → mined.
 */
import { expect, it } from 'vitest';
import type { PayerNode } from '../support/payer-node';
import { fingerprintOf, type HwiDevice } from '../support/hwi-devices';
import { useHwiRig } from './hwi-rig';

/**
 * `lean` (the real-Core variant, whose CI time is counted): the Signers page and the declined signature
 * are left to the devnet run; the import, the verification and the signing run on every node.
 */
export function defineHwiFlow(start: () => Promise<PayerNode>, shot: (name: string) => string, opts: { lean?: boolean } = {}): void {
  const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
  const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus', mode: 'locked' };
  const fpA = fingerprintOf('A');
  const suffix = Date.now().toString(36);
  const h = useHwiRig(start, [A, B]);
  const { tid, origin, setDevices } = h;

  it.skipIf(opts.lean === true)('Signers: each device with its model and fingerprint, a locked one with what it needs', async () => {
    await h.page.goto(`${origin()}/#/signers`);
    await tid('nav-signers').waitFor();
    await h.page.locator(`[data-testid="signer-device"][data-fingerprint="${fpA}"]`).waitFor({ timeout: 60_000 });
    expect(await tid('signer-device').allInnerTexts()).toEqual([expect.stringContaining('trezor_t'), expect.stringMatching(/ledger_nano_s_plus[\s\S]*PIN/)]);
    expect(await tid('signer-program').innerText()).toContain('SPYGLASS_SIGNER');
    await h.rig.screenshot(shot('signers'));
  }, 90_000);

  it('Watch a wallet, From a device: the account’s native SegWit descriptors, previewed and imported', async () => {
    setDevices([A]);
    await h.page.goto(`${origin()}/#/import`);
    await tid('device-import-open').click();
    await tid(`signer-choose-${fpA}`).click({ timeout: 60_000 });
    await tid('device-import-type').selectOption('p2wpkh', { timeout: 60_000 });
    await tid('device-import-use').click();
    await h.page.locator('[data-testid="import-preview"][data-stale="false"]').waitFor({ timeout: 60_000 });
    expect(await tid('import-key').allInnerTexts()).toEqual([expect.stringContaining(fpA)]);
    await tid('import-wallet-name').fill(`device-${suffix}`);
    await tid('import-rescan-now').check();
    await tid('import-create').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
  }, 120_000);

  it('Receive: Verify on device shows the same address', async () => {
    const address = await tid('receive-address').innerText();
    await tid('device-verify-go').click();
    await h.page.locator('[data-testid="device-verify-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-verify-result').innerText()).toContain(address);
    await h.n.rpc.call('sendtoaddress', [address, 1], h.n.payer);
    await h.n.mine(1);
  }, 90_000);

  it(`Send: ${opts.lean ? '' : 'declined on the device, the draft is as it was; then '}signed on the device, finalized, broadcast, mined`, async () => {
    const payTo = await h.n.rpc.call<string>('getnewaddress', ['', 'bech32'], h.n.payer);
    await h.page.goto(`${origin()}/#/send?seed=5`);
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
      await h.page.locator('[data-testid="device-sign-result"][data-ok="false"]').waitFor({ timeout: 60_000 });
      expect(await tid('device-sign-result').innerText()).toMatch(/Declined on trezor_t.*draft is as it was/);
      expect(await h.page.locator('[data-testid="signing"]').getAttribute('data-complete')).toBe('false');
      setDevices([A]);
    }
    await tid(`signer-choose-${fpA}`).click({ timeout: 60_000 });
    await h.page.locator('[data-testid="device-sign-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-sign-result').innerText()).toMatch(/trezor_t \(.{8}\) signed: PSBT v0: 1 new signature/);
    await h.page.locator('[data-testid="signing"][data-complete="true"]').waitFor();
    await h.rig.screenshot(shot('signed'));
    await tid('broadcast-finalize').click();
    await tid('broadcast-check').click();
    await tid('broadcast-confirm').waitFor();
    await tid('broadcast-send').click();
    await tid('broadcast-sent').waitFor();
    const txid = (await tid('broadcast-sent').getAttribute('data-txid'))!;
    await h.n.mine(1);
    expect((await h.n.rpc.call<{ confirmations: number }>('gettransaction', [txid], h.n.payer)).confirmations).toBe(1);
  }, 180_000);
}
