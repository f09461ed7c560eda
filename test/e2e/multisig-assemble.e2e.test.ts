/**
 * Watch a wallet → Assemble a multisig (#30) in Chromium against the devnet: two test devices (the test
 * HWI program, test/support/hwi-signer.mjs, standing in for hardware wallets, which cannot exist here)
 * give their BIP48 keys (getxpub), a third cosigner's key is pasted; the 2-of-3 goes to the import's
 * own preview, is imported, and Receive's first address is the node's deriveaddresses of that wallet's
 * receive descriptor. Receive → Verify on device then says which connected device needs the multisig
 * registered and shows it on the one that does not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDevnetPayer, type PayerNode } from '../support/payer-node';
import { cosignerKeyOf, fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER, withChecksum, type HwiDevice } from '../support/hwi-devices';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();
if (skip) console.warn(`[multisig-assemble e2e] ${skip}`);

describe.skipIf(skip !== null)('Chromium e2e on the devnet: a 2-of-3 assembled from two devices and a pasted key', () => {
  let n: PayerNode;
  let rig: Rig;
  let page: Page;
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-ms-e2e-'));
  const config = join(tmp, 'hwi-config.json');
  const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
  const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus' };
  const [fpA, fpB, fpC] = ['A', 'B', 'C'].map(fingerprintOf) as [string, string, string];
  const suffix = Date.now().toString(36);
  const tid = (t: string) => page.getByTestId(t);
  const saved: Record<string, string | undefined> = {};
  const ok = async <T>(channel: string, payload: unknown): Promise<T> => {
    const r = await rig.web.app.dispatch(channel, payload);
    if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(async () => {
    writeFileSync(config, JSON.stringify({ devices: [A, B] }));
    for (const k of ['SPYGLASS_SIGNER', HWI_CONFIG_ENV]) saved[k] = process.env[k];
    process.env.SPYGLASS_SIGNER = HWI_SIGNER;
    process.env[HWI_CONFIG_ENV] = config;
    n = await startDevnetPayer('ms-e2e-pw');
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

  it('two devices’ keys and a pasted one → 2-of-3 → the import preview → imported; Receive’s address is the node’s deriveaddresses', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    await tid('ms-open').click({ timeout: 60_000 });
    const ms = tid('multisig-assembler');
    expect(await ms.getByTestId('ms-device-path').innerText()).toBe('m/48h/1h/0h/2h');
    const rows = ms.getByTestId('ms-cosigner');
    await ms.getByTestId(`signer-choose-${fpA}`).click({ timeout: 60_000 });
    await page.locator(`[data-testid="ms-cosigner"][data-fingerprint="${fpA}"]`).waitFor({ timeout: 60_000 });
    await ms.getByTestId(`signer-choose-${fpB}`).click();
    await page.locator(`[data-testid="ms-cosigner"][data-fingerprint="${fpB}"]`).waitFor({ timeout: 60_000 });
    // the same device twice is refused, and the list stays as it was
    await ms.getByTestId(`signer-choose-${fpA}`).click();
    await tid('ms-error').waitFor({ timeout: 60_000 });
    expect(await tid('ms-error').innerText()).toMatch(/Cosigner 3 \(trezor_t .*\) is the same key as cosigner 1/);
    expect(await rows.count()).toBe(2);
    await tid('ms-key-text').fill(cosignerKeyOf('C', 'regtest'));
    await tid('ms-key-add').click();
    await page.locator(`[data-testid="ms-cosigner"][data-fingerprint="${fpC}"]`).waitFor();
    expect(await rows.allInnerTexts()).toEqual([expect.stringContaining('trezor_t'), expect.stringContaining('ledger_nano_s_plus'), expect.stringContaining('pasted key')]);
    // a cosigner file (Coldcard's multisig key export) is read too; removed again, the list is the three above
    await tid('ms-key-file').setInputFiles(join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'exports', 'coldcard-multisig-key-0F056943.json'));
    await page.locator('[data-testid="ms-cosigner"][data-fingerprint="0f056943"]').waitFor();
    expect(await rows.nth(3).innerText()).toMatch(/\[0f056943\/48h\/1h\/0h\/2h\][\s\S]*Coldcard 0F056943 \(file\)/);
    await tid('ms-remove-3').click();
    await page.locator('[data-testid="ms-cosigner"][data-fingerprint="0f056943"]').waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(3);
    // three needed of three listed is allowed; four is Core's refusal
    await tid('ms-threshold').fill('4');
    await tid('ms-use').click();
    await page.locator('[data-testid="ms-error"]', { hasText: 'threshold is 4' }).waitFor();
    expect(await tid('ms-error').innerText()).toBe('Multisig threshold cannot be larger than the number of keys; threshold is 4 but only 3 keys specified');
    await tid('ms-threshold').fill('2');
    await tid('ms-use').click();
    await page.locator('[data-testid="import-preview"][data-stale="false"][data-threshold="2"]').waitFor({ timeout: 60_000 });
    expect(await tid('import-text').inputValue()).toMatch(/^wsh\(sortedmulti\(2,.*\/<0;1>\/\*\)\)#[a-z0-9]{8}$/);
    expect(await tid('import-key').allInnerTexts()).toEqual([fpA, fpB, fpC].map((fp) => expect.stringContaining(fp)));
    await rig.screenshot('72-multisig-assembled');
    await tid('import-wallet-name').fill(`vault-${suffix}`);
    await tid('import-rescan-now').check();
    await tid('import-create').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
    const receive = withChecksum(`wsh(sortedmulti(2,${['A', 'B', 'C'].map((k) => `${cosignerKeyOf(k, 'regtest')}/0/*`).join(',')}))`);
    const [first] = await n.rpc.call<string[]>('deriveaddresses', [receive, [0, 0]]);
    expect(await tid('receive-address').innerText()).toBe(first);
  }, 240_000);

  it('Receive → Verify on device: each connected device says whether it needs the multisig registered; the Trezor shows the address', async () => {
    const address = await tid('receive-address').innerText();
    await tid('device-verify-go').click();
    await page.locator('[data-testid="device-verify-result"][data-ok="false"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-verify-result').innerText()).toContain('keys of several devices');
    const verify = tid('device-verify');
    await verify.getByTestId('signer-device-note').first().waitFor({ timeout: 60_000 });
    const notes = verify.getByTestId('signer-device-note');
    expect(await notes.count()).toBe(2);
    expect(await notes.nth(0).getAttribute('data-warn')).toBe('false');
    expect(await notes.nth(1).getAttribute('data-warn')).toBe('true');
    expect(await notes.nth(1).innerText()).toMatch(/^Needs this multisig registered: Register the multisig on the Ledger first/);
    await rig.screenshot('73-multisig-verify-registration');
    await verify.getByTestId(`signer-choose-${fpA}`).click();
    await page.locator('[data-testid="device-verify-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-verify-result').innerText()).toContain(address);
  }, 120_000);
});
