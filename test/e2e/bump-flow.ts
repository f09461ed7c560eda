/**
 * Fee bumps from any unconfirmed wallet transaction (#28) in Chromium, against a node: the devnet
 * (bump.e2e.test.ts) or real Bitcoin Core of both generations (bump-core.e2e.test.ts, `npm run
 * test:core`). The watch-only wallet imports the public descriptors of the node's key wallet `hot`
 * (test/main/send-setup.ts); the test signer holds their keys.
 *
 * - a payment received at 1 sat/vB: on the Transactions list its pending row's Speed up opens the
 *   dialog, where RBF says why not (the sender's inputs) and CPFP shows the package's size and fee;
 *   the child draft is exported, signed, imported, finalized, confirmed and broadcast; both are mined
 *   in the next block;
 * - a payment the node's own key wallet made from the same keys: on its transaction page Increase fee
 *   (RBF) makes the replacement draft (the node's psbtbumpfee agreeing), signed and broadcast; the
 *   original leaves the mempool and the replacement is mined.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { DraftView } from '../../shared/ipc/send';
import { signPsbt } from '../support/signer';
import { makeSendWallets, type SendNode, type SendWallets } from '../main/send-setup';
import { startRig, type Rig } from './harness';

type WalletTx = { confirmations: number; blockhash?: string };

export function defineBumpFlow(start: () => Promise<SendNode>, shot: (name: string) => string): void {
  let n: SendNode;
  let w: SendWallets;
  let rig: Rig;
  let page: Page;
  let hot = '';
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-bump-e2e-'));
  const tid = (t: string) => page.getByTestId(t);
  const origin = () => rig.web.bridge.origin;
  const ok = async <T>(channel: string, payload: unknown): Promise<T> => {
    const r = await rig.web.app.dispatch(channel, payload);
    if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
    return r.value as T;
  };
  /** Core's wallets learn of a mempool transaction asynchronously: wait until every wallet has it. */
  const settle = () => n.rpc.call('syncwithvalidationinterfacequeue');
  const draftId = () => page.url().split('/drafts/')[1]!;

  /** The draft on screen: its .psbt downloaded, signed by the test signer, opened, finalized, confirmed, broadcast. */
  async function signAndBroadcast(name: string): Promise<string> {
    await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor({ timeout: 60_000 });
    const [dl] = await Promise.all([page.waitForEvent('download'), tid('draft-export-file').click()]);
    const signed = signPsbt(new Uint8Array(readFileSync((await dl.path())!)), w.hotKeys);
    expect(signed.signed.length).toBeGreaterThan(0);
    writeFileSync(join(tmp, `${name}.psbt`), signed.psbt);
    await tid('sig-import-files').setInputFiles(join(tmp, `${name}.psbt`));
    await page.locator('[data-testid="sig-import-result"][data-ok="true"]').waitFor();
    await page.locator('[data-testid="signing"][data-complete="true"]').waitFor();
    await tid('broadcast-finalize').click();
    await tid('broadcast-check').click();
    await tid('broadcast-confirm').waitFor();
    await tid('broadcast-send').click();
    await tid('broadcast-sent').waitFor();
    return (await tid('broadcast-sent').getAttribute('data-txid'))!;
  }

  beforeAll(async () => {
    n = await start();
    const suffix = Date.now().toString(36);
    w = await makeSendWallets(n, suffix);
    hot = `hot-${suffix}`;
    rig = await startRig();
    page = rig.page;
    const saved = await ok<{ profile: { id: string } }>('profiles:save', {
      profile: { name: 'Node', nodeUrl: n.rpcUrl, auth: 'password', rpcUser: n.user, wallet: w.watch, indexUrl: n.indexUrl },
      password: n.password,
      remember: 'session',
    });
    await ok('profiles:activate', { id: saved.profile.id });
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await n?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a payment received at 1 sat/vB: Speed up on its pending row, no RBF (said why), CPFP with the package shown; both mined in the next block', async () => {
    const to = await n.rpc.call<string>('getnewaddress', ['slow payment', 'bech32'], w.watch);
    const parent = await n.rpc.call<string>('sendtoaddress', { address: to, amount: 0.4, fee_rate: 1, replaceable: true }, n.payer);
    await settle();
    await page.goto(`${origin()}/#/`);
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
    await page.goto(`${origin()}/#/transactions`);
    const row = page.locator(`[data-testid="transaction-row"][data-txid="${parent}"][data-pending="true"]`);
    await row.waitFor({ timeout: 30_000 });
    await row.getByTestId('transaction-bump').click();
    const dialog = tid('bump-dialog');
    // hang guards, not speed checks: the node is asked several things, on a machine that may be busy
    await dialog.locator('[data-testid="bump-method-rbf"][data-possible="false"]').waitFor({ timeout: 120_000 });
    expect(await tid('bump-rbf-reason').innerText()).toMatch(/^Inputs not ours/);
    expect(await dialog.locator('[data-testid="bump-method-cpfp"] input').isChecked()).toBe(true);
    await tid('bump-dialog-rate').fill('10');
    const pkg = tid('bump-package');
    await pkg.waitFor({ timeout: 60_000 });
    const entry = await n.rpc.call<{ vsize: number; fees: { base: number } }>('getmempoolentry', [parent]);
    const shownVsize = Number(await pkg.getAttribute('data-vsize'));
    const shownFee = BigInt((await pkg.getAttribute('data-fee'))!);
    expect(shownVsize).toBeGreaterThan(entry.vsize);
    expect(shownFee * 1000n).toBeGreaterThanOrEqual(10_000n * BigInt(shownVsize));
    await rig.screenshot(shot('cpfp-dialog'));
    await tid('bump-create').click();
    await page.waitForURL((u) => u.hash.includes('/drafts/'), { timeout: 120_000 });
    await tid('draft-bump-info').waitFor();
    const draft = await ok<DraftView>('drafts:get', { id: draftId() });
    expect(draft.bump).toMatchObject({ kind: 'cpfp', txid: parent, parentVsize: entry.vsize, packageVsize: shownVsize, packageFeeSats: shownFee.toString() });
    expect(await tid('draft-bump-package').getAttribute('data-vsize')).toBe(String(shownVsize));
    await rig.screenshot(shot('cpfp-draft'));
    const child = await signAndBroadcast('child');
    expect(await n.rpc.call<string[]>('getrawmempool')).toEqual(expect.arrayContaining([parent, child]));
    await n.mine(1);
    const p = await n.rpc.call<WalletTx>('gettransaction', [parent], w.watch);
    expect(p.confirmations).toBe(1);
    expect(await n.rpc.call<WalletTx>('gettransaction', [child], w.watch)).toMatchObject({ confirmations: 1, blockhash: p.blockhash });
  });

  it("a payment made by the node's own wallet from the same keys: Increase fee (RBF) on its page, the replacement mined", async () => {
    const payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    const original = await n.rpc.call<string>('sendtoaddress', { address: payTo, amount: 0.3, fee_rate: 1, replaceable: true }, hot);
    await settle();
    await page.goto(`${origin()}/#/tx/${original}`);
    await page.locator('[data-testid="tx-bump"][data-rbf="true"]').waitFor({ timeout: 120_000 });
    await tid('tx-bump-rbf').click();
    await tid('bump-dialog').locator('[data-testid="bump-method-rbf"][data-possible="true"]').waitFor({ timeout: 120_000 });
    // the rate starts at the least a replacement must pay; below it the main process refuses by name
    expect(Number(await tid('bump-dialog-rate').inputValue())).toBeGreaterThan(1);
    await tid('bump-dialog-rate').fill('1');
    await tid('bump-create').click();
    await expect.poll(() => tid('bump-dialog-error').textContent(), { timeout: 120_000 }).toMatch(/a replacement must pay at least/);
    await tid('bump-dialog-rate').fill('5');
    await tid('bump-rbf-fee').waitFor();
    await rig.screenshot(shot('rbf-dialog'));
    await tid('bump-create').click();
    await page.waitForURL((u) => u.hash.includes('/drafts/'), { timeout: 120_000 });
    await page.locator('[data-testid="draft-bump-info"][data-kind="rbf"]').waitFor();
    expect(await tid('draft-build').getAttribute('data-identical')).toBe('true');
    expect(await tid('draft-build').textContent()).toContain("Bumped here and by your node's wallet");
    const replacement = await signAndBroadcast('replacement');
    const pool = await n.rpc.call<string[]>('getrawmempool');
    expect(pool).toContain(replacement);
    expect(pool).not.toContain(original);
    await n.mine(1);
    expect((await n.rpc.call<WalletTx>('gettransaction', [replacement], w.watch)).confirmations).toBe(1);
    expect((await n.rpc.call<WalletTx>('gettransaction', [original], w.watch)).confirmations).toBe(-1);
  });
}
