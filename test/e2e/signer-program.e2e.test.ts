/**
 * The signer program chosen on the Signers page in Chromium over the loopback bridge (#30): a browser has
 * no native file dialog, so there is no Choose… button — the page says the typed path is the way in —
 * and a typed path is checked (a file that cannot run is refused with its reason) and kept, then run:
 * the test HWI program (test/support/hwi-signer.mjs, standing in for a device) lists its device.
 * SPYGLASS_SIGNER is unset here, so the choice is what runs.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER } from '../support/hwi-devices';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`the signer program over the browser bridge (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let rig: Rig;
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-signer-program-e2e-'));
  const saved: Record<string, string | undefined> = {};
  const tid = (t: string) => rig.page.getByTestId(t);

  beforeAll(async () => {
    const config = join(tmp, 'hwi-config.json');
    writeFileSync(config, JSON.stringify({ devices: [{ name: 'A', type: 'trezor', model: 'trezor_t' }] }));
    for (const k of ['SPYGLASS_SIGNER', HWI_CONFIG_ENV]) saved[k] = process.env[k];
    delete process.env.SPYGLASS_SIGNER;
    process.env[HWI_CONFIG_ENV] = config;
    rig = await startRig();
  }, 120_000);
  afterAll(async () => {
    await rig?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('no Choose… button in a browser; a typed path is checked, kept and run', async () => {
    await rig.page.goto(`${rig.web.bridge.origin}/#/signers`);
    await tid('signer-program').waitFor({ timeout: 60_000 });
    expect(await tid('signer-program-typed-hint').innerText()).toMatch(/no file dialog: type the program’s full path/);
    expect(await tid('signer-program-choose').count()).toBe(0);

    // a file that cannot run: refused with the reason, nothing kept
    const plain = join(tmp, 'not-a-program.txt');
    writeFileSync(plain, 'text');
    chmodSync(plain, 0o644);
    await tid('signer-program-file').fill(plain);
    await tid('signer-program-set').click();
    expect(await tid('signer-program-error').innerText({ timeout: 60_000 })).toMatch(/You chose .*not-a-program\.txt.*no execute permission.*Install HWI/);
    expect(await tid('signer-program').getAttribute('data-source')).not.toBe('setting');

    await tid('signer-program-file').fill(HWI_SIGNER);
    await tid('signer-program-set').click();
    await rig.page.locator('[data-testid="signer-program"][data-source="setting"]').waitFor({ timeout: 60_000 });
    expect(await tid('signer-program').innerText()).toContain(HWI_SIGNER);
    await rig.page.locator(`[data-testid="signer-device"][data-fingerprint="${fingerprintOf('A')}"]`).waitFor({ timeout: 60_000 });
    expect(await tid('signer-program-error').count()).toBe(0);
    expect(await tid('signer-program-choose').count()).toBe(0);
    await rig.screenshot('71-signer-program-typed');
  }, 120_000);
});
