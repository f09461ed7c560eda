/**
 * Watch a wallet → Assemble a multisig (#30) in Chromium against the devnet: two test devices (the test
 * HWI program, test/support/hwi-signer.mjs, standing in for hardware wallets, which cannot exist here)
 * give their BIP48 keys (getxpub), a third cosigner's key is pasted; the 2-of-3 goes to the import's
 * own preview, is imported, and Receive's first address is the node's deriveaddresses of that wallet's
 * receive descriptor. Receive → Verify on device then says which connected device needs the multisig
 * registered, and the Ledger (the 2-of-3 registered on it) and the Trezor show it from the wallet's
 * descriptor at the address.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { fingerprintOf, type HwiDevice } from '../support/hwi-devices';
import { e2eSkipReason } from './harness';
import { useHwiRig } from './hwi-rig';
import { addDeviceCosigner, openAssembler, pasteCosigner, useAndImport, vaultWith, verifyMultisigOnDevice } from './multisig-steps';

const skip = e2eSkipReason();
if (skip) console.warn(`[multisig-assemble e2e] ${skip}`);

describe.skipIf(skip !== null)('Chromium e2e on the devnet: a 2-of-3 assembled from two devices and a pasted key', () => {
  const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
  const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus' };
  const [fpA, fpB] = ['A', 'B'].map(fingerprintOf) as [string, string];
  const suffix = Date.now().toString(36);
  const h = useHwiRig(() => startDevnetPayer('ms-e2e-pw'), [A, B]);
  const { tid } = h;

  it('two devices’ keys and a pasted one → 2-of-3 → the import preview → imported; Receive’s address is the node’s deriveaddresses', async () => {
    const { page } = h;
    await openAssembler(h);
    const ms = tid('multisig-assembler');
    const rows = ms.getByTestId('ms-cosigner');
    await addDeviceCosigner(h, fpA);
    await addDeviceCosigner(h, fpB);
    // the same device twice is refused, and the list stays as it was
    await ms.getByTestId(`signer-choose-${fpA}`).click();
    await tid('ms-error').waitFor({ timeout: 60_000 });
    expect(await tid('ms-error').innerText()).toMatch(/Cosigner 3 \(trezor_t .*\) is the same key as cosigner 1/);
    expect(await rows.count()).toBe(2);
    await pasteCosigner(h, 'C');
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
    await useAndImport(h, { threshold: 2, names: ['A', 'B', 'C'], wallet: `vault-${suffix}`, shot: '72-multisig-assembled' });
  }, 240_000);

  it('Receive → Verify on device: each connected device says whether it needs the multisig registered; the Ledger (with the 2-of-3 registered) and the Trezor show the address', async () => {
    // the Ledger shows a multisig only for the wallet policy registered on it (HWI 3.2.0's ledger.py: xpubs, sortedmulti)
    h.setDevices([A, { ...B, registered: [vaultWith(2, ['A', 'B', 'C'], '/<0;1>/*')] }]);
    await verifyMultisigOnDevice(h, { register: [null, 'Ledger'], showOn: [fpB, fpA], sent: vaultWith(2, ['A', 'B', 'C'], '/0/0'), shot: '73-multisig-verify-registration' });
  }, 120_000);
});
