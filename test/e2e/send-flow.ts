/**
 * Send and the way back in Chromium (#15, #16), against a node: the devnet (send.e2e.test.ts) or real
 * Bitcoin Core of both generations (send-core.e2e.test.ts, `npm run test:core`). A single-sig
 * watch-only wallet pays a BIP21 request: composed on the Send page, exported as a .psbt file, signed
 * by a test signer from what the PSBT carries, the signed file opened, finalized, checked by the node,
 * confirmed and broadcast, pending, mined, confirmed and labelled; then bumped (RBF) and replaced in the
 * mempool. A 2-of-3 vault pays: two cosigners sign the exported file separately, one file is opened,
 * the other scanned as an animated QR from the (fake) camera, combined, finalized, broadcast, mined.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { base64 } from '@scure/base';
import { encodePsbtUr } from '../../electron/main/psbt/ur';
import type { DraftView } from '../../shared/ipc/send';
import { signPsbt } from '../support/signer';
import { makeSendWallets, type SendNode, type SendWallets } from '../main/send-setup';
import { startRig, type Rig } from './harness';
import { writeQrVideo } from './qr-video';

export function defineSendFlow(start: () => Promise<SendNode>, shot: (name: string) => string): void {
  let n: SendNode;
  let w: SendWallets;
  let rig: Rig;
  let page: Page;
  let profileId = '';
  let payTo = '';
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-send-e2e-'));
  const camera = join(tmp, 'camera.y4m');
  const tid = (t: string) => page.getByTestId(t);
  const origin = () => rig.web.bridge.origin;
  const ok = async <T>(channel: string, payload: unknown): Promise<T> => {
    const r = await rig.web.app.dispatch(channel, payload);
    if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
    return r.value as T;
  };
  const useWallet = async (wallet: string, password?: string) => {
    const saved = await ok<{ profile: { id: string } }>('profiles:save', {
      ...(profileId ? { id: profileId } : {}),
      profile: { name: 'Node', nodeUrl: n.rpcUrl, auth: 'password', rpcUser: n.user, wallet, indexUrl: n.indexUrl },
      ...(password ? { password, remember: 'session' } : {}),
    });
    profileId = saved.profile.id;
    await ok('profiles:activate', { id: profileId });
  };
  const draftId = () => page.url().split('/drafts/')[1]!;

  /** Downloads the draft's .psbt through the page (the file a signer gets). */
  async function exportFile(): Promise<Uint8Array> {
    const [dl] = await Promise.all([page.waitForEvent('download'), tid('draft-export-file').click()]);
    return new Uint8Array(readFileSync((await dl.path())!));
  }

  async function finalizeAndBroadcast(): Promise<string> {
    await page.locator('[data-testid="signing"][data-complete="true"]').waitFor();
    await tid('broadcast-finalize').click();
    await tid('broadcast-check').click();
    await tid('broadcast-confirm').waitFor();
    await rig.screenshot(shot('confirm'));
    await tid('broadcast-send').click();
    await tid('broadcast-sent').waitFor();
    return (await tid('broadcast-sent').getAttribute('data-txid'))!;
  }

  beforeAll(async () => {
    n = await start();
    w = await makeSendWallets(n, Date.now().toString(36));
    payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    writeFileSync(camera, '');
    rig = await startRig({ fakeCamera: camera });
    page = rig.page;
    await useWallet(w.watch, n.password);
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await n?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a BIP21 request paid from the single-sig wallet: compose, export, sign elsewhere, import, finalize, broadcast, mined', async () => {
    // the page opened before the profile existed: let it settle on the connected dashboard first
    await page.goto(`${origin()}/#/`);
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
    await page.goto(`${origin()}/#/pay?uri=${encodeURIComponent(`bitcoin:${payTo}?amount=0.5&label=Coffee%20shop`)}`);
    await tid('pay-request').waitFor().catch(async (e: unknown) => {
      await rig.screenshot(shot('pay-request-failed'));
      throw new Error(`${String(e)}\n${page.url()}\n${(await page.locator('body').innerText()).slice(0, 1500)}`);
    });
    await rig.screenshot(shot('pay-request'));
    await tid('pay-send').click();
    await tid('send-summary').waitFor();
    expect(await tid('send-address').inputValue()).toBe(payTo);
    expect(await tid('send-amount').inputValue()).toBe('0.5');
    expect(await tid('send-label').inputValue()).toBe('Coffee shop');
    await tid('send-fee-rate').fill('');
    await tid('send-fee-rate').fill('0');
    // an error shows once its field is left (or Create pressed), not while it is typed
    await expect.poll(() => tid('send-sum-incomplete').count()).toBe(1);
    expect(await tid('send-fee-error').count()).toBe(0);
    await tid('send-fee-rate').blur();
    await expect.poll(() => tid('send-fee-error').textContent()).toMatch(/above 0/);
    await tid('send-fee-rate').fill('2.5');
    await tid('send-sum-fee').waitFor();
    expect(await tid('send-sum-fee-rate').innerText()).toBe('2.5 sat/vB');
    expect(await tid('send-fee-origin').innerText()).toBe('Typed by you');
    // the selection named, with why it won
    expect(await tid('send-sum-algorithm').innerText()).toMatch(/^(Branch and Bound|CoinGrinder|Single Random Draw|Largest first)$/);
    expect(await tid('send-sum-why').innerText()).toMatch(/waste/i);
    await rig.screenshot(shot('compose'));
    // what the summary shows, in order: the transaction Create builds
    const summary = tid('send-summary');
    const shown = {
      txid: await summary.getAttribute('data-txid'),
      fee: await summary.getAttribute('data-fee'),
      inputs: await page.locator('[data-testid="send-sum-input"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-outpoint'))),
      outputs: await page.locator('[data-testid="send-sum-output"]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-role'), e.getAttribute('data-address'), e.getAttribute('data-amount')])),
    };
    await tid('send-create').click();
    await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor({ timeout: 60_000 });
    const draft = await ok<DraftView>('drafts:get', { id: draftId() });
    expect(shown).toEqual({
      txid: draft.unsignedTxid,
      fee: draft.feeSats,
      inputs: draft.inputs.map((i) => i.outpoint),
      outputs: draft.outputs.map((o) => [o.role, o.address ?? '', o.amountSats]),
    });
    expect(await tid('draft-build').getAttribute('data-node')).toBe(String(draft.build.nodeAvailable));
    if (draft.build.nodeAvailable) expect(await tid('draft-build').getAttribute('data-identical')).toBe('true');
    await rig.screenshot(shot('draft'));
    // the review recognises the draft's inputs and its change as the wallet's
    await tid('draft-open-review').click();
    await page.locator('[data-testid="psbt-input-row"]').first().waitFor();
    expect(await page.locator('[data-testid="psbt-input-row"][data-watched="true"]').count()).toBe(draft.inputs.length);
    const change = draft.outputs.find((o) => o.role === 'change')!;
    expect(await page.locator(`[data-testid="psbt-output-row"][data-index="${change.index}"]`).getAttribute('data-kind')).toBe('change');
    await page.goBack();
    await page.locator('[data-testid="draft"]').waitFor();

    const file = await exportFile();
    expect(Array.from(file.subarray(0, 5))).toEqual([0x70, 0x73, 0x62, 0x74, 0xff]);
    expect(file[6]).toBe(0x00); // version 0: the unsigned transaction is the first global key
    const signed = signPsbt(file, w.hotKeys);
    expect(signed.signed.length).toBe(draft.inputs.length);
    writeFileSync(join(tmp, 'signed.psbt'), signed.psbt);
    await tid('sig-import-files').setInputFiles(join(tmp, 'signed.psbt'));
    await page.locator('[data-testid="sig-import-result"][data-ok="true"]').waitFor();
    const txid = await finalizeAndBroadcast();
    expect(await n.rpc.call<string[]>('getrawmempool')).toContain(txid);
    await rig.screenshot(shot('sent'));
    const history = await n.rpc.call('listtransactions', [], w.watch).then(() => true, (e: { code?: number }) => e.code !== -32601);
    if (history) {
      // pending in the wallet's transactions, then confirmed
      await page.goto(`${origin()}/#/transactions`);
      await page.locator(`[data-testid="transaction-row"][data-txid="${txid}"][data-confirmations="0"]`).waitFor({ timeout: 30_000 });
    }
    await n.mine(1);
    if (history) {
      await page.reload();
      await page.locator(`[data-testid="transaction-row"][data-txid="${txid}"][data-confirmations="1"]`).waitFor({ timeout: 30_000 });
    }
    await page.goto(`${origin()}/#/drafts`);
    await page.locator(`[data-testid="drafts-row"][data-id="${draft.id}"][data-status="confirmed"]`).waitFor({ timeout: 30_000 });
    const labels = await ok<{ text: string }>('drafts:labels', { id: draft.id });
    expect(labels.text).toContain(`"ref":"${txid}:${draft.outputs.find((o) => o.role === 'recipient')!.index}","label":"Coffee shop"`);
  });

  it('a fee bump (RBF) replaces a single-sig spend in the mempool', async () => {
    await page.goto(`${origin()}/#/send?seed=3`);
    await tid('send-address').fill(payTo);
    await tid('send-amount').fill('0.1');
    await tid('send-fee-rate').fill('1');
    await tid('send-sum-fee').waitFor();
    await tid('send-create').click();
    await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor({ timeout: 60_000 });
    writeFileSync(join(tmp, 'a.psbt'), signPsbt(await exportFile(), w.hotKeys).psbt);
    await tid('sig-import-files').setInputFiles(join(tmp, 'a.psbt'));
    const first = await finalizeAndBroadcast();
    await tid('bump-rate').fill('1.01');
    await tid('bump-rbf').click();
    await expect.poll(() => tid('bump-error').textContent()).toMatch(/replacement must pay at least/);
    await tid('bump-rate').fill('6');
    await tid('bump-rbf').click();
    await page.waitForURL((u) => !u.hash.endsWith(first) && u.hash.includes('/drafts/'));
    await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor();
    // built twice: the node wallet's psbtbumpfee (where the node has it) spends the same coins
    const build = tid('draft-build');
    const nodeBumps = await n.rpc.call('psbtbumpfee', []).then(() => true, (e: { code?: number }) => e.code !== -32601);
    if (nodeBumps) {
      expect(await build.getAttribute('data-identical')).toBe('true');
      expect(await build.textContent()).toContain("Bumped here and by your node's wallet");
    } else expect(await build.textContent()).toMatch(/psbtbumpfee did not bump it/);
    writeFileSync(join(tmp, 'b.psbt'), signPsbt(await exportFile(), w.hotKeys).psbt);
    await tid('sig-import-files').setInputFiles(join(tmp, 'b.psbt'));
    const second = await finalizeAndBroadcast();
    const pool = await n.rpc.call<string[]>('getrawmempool');
    expect(pool).toContain(second);
    expect(pool).not.toContain(first);
    await n.mine(1);
  });

  it('the 2-of-3 vault: two cosigners sign separately, one file and one animated QR from the camera, combined, broadcast, mined', async () => {
    await useWallet(w.vault);
    await page.goto(`${origin()}/#/send?seed=8`);
    await tid('send-address').fill(payTo);
    await tid('send-amount').fill('1.5');
    await tid('send-label').fill('Supplier');
    await tid('send-fee-rate').fill('3');
    await tid('send-coin-control').check();
    await page.locator('[data-testid="send-coin"]').first().waitFor();
    expect(await page.locator('[data-testid="send-coin"]').count()).toBe(2);
    await page.locator('[data-testid="send-coin-use"]').first().check();
    await page.locator('[data-testid="send-coin-use"]').nth(1).check();
    await tid('send-sum-fee').waitFor();
    await tid('send-create').click();
    await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor({ timeout: 60_000 });
    const id = draftId();
    const file = await exportFile();
    const one = signPsbt(file, w.cosigners[0]!);
    const two = signPsbt(file, w.cosigners[1]!);
    writeFileSync(join(tmp, 'cosigner1.psbt'), one.psbt);
    await tid('sig-import-files').setInputFiles(join(tmp, 'cosigner1.psbt'));
    await expect.poll(() => page.locator('[data-testid="signing-input-text"]').first().innerText()).toMatch(/^1 of 3, missing: .* — 2 needed$/);
    await rig.screenshot(shot('vault-one'));
    // cosigner 2 answers with an animated QR code, read by the webcam
    const ur = encodePsbtUr(two.psbt, { maxFragmentLength: 120 });
    const parts = ur.kind === 'single' ? ur.parts : encodePsbtUr(two.psbt, { maxFragmentLength: 120, fountainParts: ur.seqLen }).parts;
    expect(parts.length).toBeGreaterThan(3);
    writeQrVideo(camera, parts);
    await tid('qr-scan-start').click();
    await page.locator('[data-testid="qr-scan-parts"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="sig-import-result"][data-ok="true"]', { hasText: /^QR code: PSBT v0/ }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('[data-testid="signing-input-text"]').first().innerText()).toBe(`2 of 3, missing: ${w.cosignerFps[2]} — enough (2 needed)`);
    await rig.screenshot(shot('vault-both'));
    const txid = await finalizeAndBroadcast();
    expect(await n.rpc.call<string[]>('getrawmempool')).toContain(txid);
    await n.mine(1);
    await page.goto(`${origin()}/#/drafts`);
    await page.locator(`[data-testid="drafts-row"][data-id="${id}"][data-status="confirmed"]`).waitFor({ timeout: 30_000 });
    expect(base64.encode(one.psbt)).not.toBe(base64.encode(two.psbt));
  });
}
