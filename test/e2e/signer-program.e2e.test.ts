/**
 * The signer program chosen on the Signers page in Chromium over the loopback bridge (#30): a browser has
 * no native file dialog, so there is no Choose… button — the page says the typed path is the way in —
 * and a typed path is checked (a file that cannot run is refused with its reason) and kept, then run:
 * the test HWI program (test/support/hwi-signer.mjs, standing in for a device) lists its device.
 * SPYGLASS_SIGNER is unset here, so the choice is what runs.
 *
 * Then the window's side of the Electron app, which cannot run here: a stand-in for Electron's preload
 * (STAND_IN_PRELOAD, a page init script) forwards every channel to the same main services over the bridge
 * and reports a native file dialog as Electron's main does; its "dialog" answers what the test set, and
 * passes it to signer:set-program — the checks main's signer:pick-program makes (tested in Node with a
 * stand-in dialog: test/main/signer-program.test.ts). The page shows Choose… only then.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER } from '../support/hwi-devices';
import { e2eSkipReason, SCREENSHOTS, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

/** Stands in for Electron's preload and dialog (see above): window.api over the bridge, reporting a native picker. */
const STAND_IN_PRELOAD = `(() => {
  const fromUrl = new URLSearchParams(location.search).get('bridgeToken');
  if (fromUrl) sessionStorage.setItem('standin.token', fromUrl);
  const token = sessionStorage.getItem('standin.token');
  const post = (channel, body) =>
    fetch('/ipc/' + channel, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token }, body: JSON.stringify(body) }).then((r) => r.json());
  const picker = (v) => { if (v && typeof v === 'object' && 'nativePicker' in v) v.nativePicker = true; return v; };
  const withPicker = (r) => { if (r.ok && r.value && typeof r.value === 'object') { picker(r.value); picker(r.value.program); } return r; };
  window.__dialogAnswer = null;
  window.__dialogs = 0;
  window.api = {
    async invoke(channel, request) {
      if (channel !== 'signer:pick-program') return withPicker(await post(channel, request));
      window.__dialogs++;
      const file = window.__dialogAnswer;
      if (file === null) return withPicker({ ok: true, value: { picked: false, program: (await post('signer:program', {})).value } });
      const r = await post('signer:set-program', { file });
      return r.ok ? withPicker({ ok: true, value: { picked: true, program: r.value } }) : r;
    },
    on() {
      return () => {};
    },
  };
})();`;

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

  /** The signer channels the page calls from now on, counted by name (each a POST to the bridge's /ipc/<channel>). */
  const countSignerCalls = (page: Page): Record<string, number> => {
    const calls: Record<string, number> = {};
    page.on('request', (r) => {
      const m = /\/ipc\/(signer:[a-z-]+)$/.exec(new URL(r.url()).pathname);
      if (m) calls[m[1]!] = (calls[m[1]!] ?? 0) + 1;
    });
    return calls;
  };

  it('no Choose… button in a browser; a typed path is checked, kept and run', async () => {
    const calls = countSignerCalls(rig.page);
    await rig.page.goto(`${rig.web.bridge.origin}/#/signers`);
    await tid('signer-program').waitFor({ timeout: 60_000 });
    await rig.page.locator('[data-testid="signer-devices"][data-busy="false"]').waitFor({ timeout: 60_000 });
    // one request on opening the page: the device list, which names the program too
    expect(calls).toEqual({ 'signer:list': 1 });
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

  it('with a native file dialog reported (a stand-in for Electron’s preload): Choose… opens it, its answer is checked and kept', async () => {
    await rig.web.app.dispatch('signer:set-program', { file: null });
    const page = await rig.context.newPage();
    try {
      await page.addInitScript(STAND_IN_PRELOAD);
      await page.goto(`${rig.web.bridge.pageUrl}#/signers`);
      const t = (id: string) => page.getByTestId(id);
      await t('signer-program-choose').waitFor({ timeout: 60_000 });
      expect(await t('signer-program-typed-hint').count()).toBe(0);
      const answer = (file: string | null) => page.evaluate((f) => ((globalThis as unknown as { __dialogAnswer: string | null }).__dialogAnswer = f), file);

      const plain = join(tmp, 'picked.txt');
      writeFileSync(plain, 'text');
      chmodSync(plain, 0o644);
      await answer(plain);
      await t('signer-program-choose').click();
      expect(await t('signer-program-error').innerText({ timeout: 60_000 })).toMatch(/You chose .*picked\.txt.*no execute permission/);
      expect(await t('signer-program').getAttribute('data-source')).toBe('path');

      await answer(null);
      await t('signer-program-choose').click();
      await page.locator('[data-testid="signer-program-choose"]:not([disabled])').waitFor({ timeout: 60_000 });
      expect(await t('signer-program-error').count()).toBe(0);
      expect(await t('signer-program').getAttribute('data-source')).toBe('path');

      await answer(HWI_SIGNER);
      await t('signer-program-choose').click();
      await page.locator('[data-testid="signer-program"][data-source="setting"]').waitFor({ timeout: 60_000 });
      expect(await t('signer-program').innerText()).toContain(HWI_SIGNER);
      await page.locator(`[data-testid="signer-device"][data-fingerprint="${fingerprintOf('A')}"]`).waitFor({ timeout: 60_000 });
      expect(await page.evaluate(() => (globalThis as unknown as { __dialogs: number }).__dialogs)).toBe(3);
      await page.screenshot({ path: join(SCREENSHOTS, '71-signer-program-choose.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 120_000);

  it('a device list that fails: its error, and the program still named (asked for on its own, once)', async () => {
    writeFileSync(join(tmp, 'hwi-config.json'), JSON.stringify({ devices: [{ name: 'A', type: 'trezor', model: 'trezor_t', mode: 'garbage' }] }));
    const page = await rig.context.newPage();
    try {
      const calls = countSignerCalls(page);
      await page.goto(`${rig.web.bridge.pageUrl}#/signers`);
      await page.getByTestId('signer-list-error').waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('signer-list-error').innerText()).toMatch(/not JSON/);
      await page.locator('[data-testid="signer-program"][data-source="setting"]').waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('signer-program').innerText()).toContain(HWI_SIGNER);
      expect(calls).toEqual({ 'signer:list': 1, 'signer:program': 1 });
    } finally {
      await page.close();
    }
  }, 120_000);
});
