/**
 * Chromium e2e of "Watch a wallet"'s preview (#26 item 7): the preview always belongs to what is in
 * the box. Text A shows preview A; changing it to B marks A's preview stale and disables Create until
 * B's preview arrives; an older answer arriving last never replaces the newer; a refused new text
 * leaves nothing of the old preview; a second file replaces the first file's preview; the default
 * wallet name is the file's name, else "Wallet N" — never a piece of the key.
 *
 * Timing-free: every preview request of the page is held by a Playwright route until the test lets it
 * through, so "Create is disabled until preview B arrives" is checked while B's answer is provably
 * still held, not raced against it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { NodeWalletsView } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { FILES, KEY_INPUTS, NODE } from '../wallet/vectors';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

/** The preview requests the page sent, held until released (in the order they were sent). */
class HeldPreviews {
  private held: { route: Route; text: string }[] = [];
  private waiters: Array<() => void> = [];
  handle = async (route: Route): Promise<void> => {
    const body = JSON.parse(route.request().postData() ?? '{}') as { text?: string };
    this.held.push({ route, text: body.text ?? '' });
    for (const w of this.waiters.splice(0)) w();
  };
  /** Waits until a request for `text` is held (the page's own debounce decides when it is sent). */
  async arrived(text: string): Promise<void> {
    while (!this.held.some((h) => h.text === text)) await new Promise<void>((r) => this.waiters.push(r));
  }
  /** Lets the held request for `text` through. */
  async release(text: string): Promise<void> {
    await this.arrived(text);
    const i = this.held.findIndex((h) => h.text === text);
    const [h] = this.held.splice(i, 1);
    await h!.route.continue();
  }
  /** Lets everything through (between tests). */
  async releaseAll(): Promise<void> {
    for (const h of this.held.splice(0)) await h.route.continue();
  }
}

describe.skipIf(skip !== null)(`Watch a wallet: the preview matches the box (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rig: Rig;
  const held = new HeldPreviews();
  const tid = (id: string) => rig.page.getByTestId(id);
  const previewTitle = () => tid('import-preview').locator('h2');
  const fresh = () => rig.page.locator('[data-testid="import-preview"][data-stale="false"]');

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'preview-pw' });
    rig = await startRig();
    const saved = await dispatchOk<{ profile: { id: string } }>(rig.web.app, 'profiles:save', {
      profile: { name: 'Preview node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl },
      password: 'preview-pw',
      remember: 'session',
    });
    await dispatchOk(rig.web.app, 'profiles:activate', { id: saved.profile.id });
    await rig.page.route('**/ipc/wallet:preview', held.handle);
    // Connected first (a page opening on a connecting profile lands on the dashboard), then the import screen.
    await rig.page.goto(`${rig.web.bridge.origin}/#/`);
    await rig.page.waitForSelector('[data-testid="dashboard-state"][data-state="connected"]', { timeout: 60_000 });
    await rig.page.goto(`${rig.web.bridge.origin}/#/import`);
    await tid('node-wallets').waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await held.releaseAll().catch(() => {});
    await rig?.close();
    await devnet?.close();
  });

  it('text A → preview A; changed to B: stale and Create disabled while B is checked; then preview B', async () => {
    const A = FILES.caravan;
    const B = FILES.coldcard;
    await tid('import-text').fill(A);
    await held.release(A);
    await fresh().waitFor();
    expect(await previewTitle().innerText()).toBe('Caravan vault');
    expect(await tid('import-address').allInnerTexts()).toEqual(NODE['caravan']!.node.receive['0-2']);
    expect(await tid('import-wallet-name').inputValue()).toBe('Caravan vault');
    expect(await tid('import-create').isEnabled()).toBe(true);

    await tid('import-text').fill(B);
    // At once, before B is even sent: A's preview is marked stale and cannot be created.
    expect(await tid('import-preview').getAttribute('data-stale')).toBe('true');
    expect(await tid('import-create').isDisabled()).toBe(true);
    await tid('import-preview-stale').waitFor();
    // B's check is sent and held: still A's preview, still stale, still no Create.
    await held.arrived(B);
    expect(await tid('import-preview').getAttribute('data-stale')).toBe('true');
    expect(await tid('import-create').isDisabled()).toBe(true);
    expect(await tid('import-preview-stale').innerText()).toBe('Checking the new input…');
    await rig.screenshot('63-import-preview-stale');
    await held.release(B);
    await fresh().waitFor();
    expect(await previewTitle().innerText()).toBe('CC vault');
    expect(await tid('import-preview').getAttribute('data-format')).toBe('coldcard');
    expect(await tid('import-address').allInnerTexts()).toEqual(NODE['coldcard']!.node.receive['0-2']);
    expect(await tid('import-wallet-name').inputValue()).toBe('CC vault');
    expect(await tid('import-create').isEnabled()).toBe(true);
    expect(await tid('import-preview-stale').count()).toBe(0);
  });

  it("an older answer arriving last does not replace the newer input's preview", async () => {
    const A = FILES.specter;
    const B = FILES.caravan;
    await tid('import-text').fill(A);
    await held.arrived(A);
    await tid('import-text').fill(B);
    await held.release(B);
    await fresh().waitFor();
    expect(await previewTitle().innerText()).toBe('Caravan vault');
    // A's answer now arrives: dropped, it is not what is in the box.
    const before = Number(await tid('import-wallet').getAttribute('data-answered'));
    await held.release(A);
    await rig.page.locator(`[data-testid="import-wallet"][data-answered="${before + 1}"]`).waitFor();
    expect(await previewTitle().innerText()).toBe('Caravan vault');
    expect(await tid('import-preview').getAttribute('data-stale')).toBe('false');
    expect(await tid('import-wallet-name').inputValue()).toBe('Caravan vault');
  });

  it('a refused new text leaves nothing of the old preview', async () => {
    await fresh().waitFor();
    const bad = FILES.caravan.replace('"requiredSigners": 2', '"requiredSigners": 5');
    await tid('import-text').fill(bad);
    expect(await tid('import-create').isDisabled()).toBe(true);
    await held.release(bad);
    await tid('import-error').waitFor();
    expect(await tid('import-preview').count()).toBe(0);
    expect(await tid('import-create').count()).toBe(0);
    expect(await tid('import-error').innerText()).toMatch(/5/);
    // Emptied box: no preview, no error.
    await tid('import-text').fill('');
    await tid('import-error').waitFor({ state: 'detached' });
    expect(await tid('import-preview').count()).toBe(0);
  });

  it("a second file replaces the first file's preview; a file without a name inside is named after the file", async () => {
    await tid('import-file').setInputFiles({ name: 'Family vault.txt', mimeType: 'text/plain', buffer: Buffer.from(FILES.sparrow) });
    await held.release(FILES.sparrow);
    await fresh().waitFor();
    expect(await tid('import-preview').getAttribute('data-format')).toBe('sparrow');
    expect(await tid('import-address').allInnerTexts()).toEqual(NODE['sparrow']!.node.receive['0-2']);
    expect(await tid('import-wallet-name').inputValue()).toBe('Family vault');

    await tid('import-file').setInputFiles({ name: 'cc-export.txt', mimeType: 'text/plain', buffer: Buffer.from(FILES.coldcard) });
    // The file is read asynchronously: once its text is in the box, the first file's preview is stale.
    await expect.poll(() => tid('import-text').inputValue()).toBe(FILES.coldcard);
    expect(await tid('import-create').isDisabled()).toBe(true);
    await held.release(FILES.coldcard);
    await fresh().waitFor();
    expect(await tid('import-preview').getAttribute('data-format')).toBe('coldcard');
    expect(await tid('import-address').allInnerTexts()).toEqual(NODE['coldcard']!.node.receive['0-2']);
    // The name the file carries wins over the file's own name.
    expect(await tid('import-wallet-name').inputValue()).toBe('CC vault');

    // The same file again still reads (and checks) it: the box and preview stay the file's.
    await tid('import-text').fill('');
    await tid('import-file').setInputFiles({ name: 'cc-export.txt', mimeType: 'text/plain', buffer: Buffer.from(FILES.coldcard) });
    await held.release(FILES.coldcard);
    await fresh().waitFor();
    expect(await tid('import-wallet-name').inputValue()).toBe('CC vault');
  });

  it('a bare extended key: "Wallet N", the first number the node does not use; a name typed by hand is kept', async () => {
    const key = KEY_INPUTS.vpub.xpub;
    await tid('import-text').fill(key);
    await held.release(key);
    await fresh().waitFor();
    const { wallets } = await dispatchOk<NodeWalletsView>(rig.web.app, 'wallet:node-wallets');
    const used = new Set(wallets.map((w) => w.name.toLowerCase()));
    let n = 1;
    while (used.has(`wallet ${n}`)) n++;
    const name = await tid('import-wallet-name').inputValue();
    expect(name).toBe(`Wallet ${n}`);
    expect(name).not.toMatch(/pub/);
    expect(await tid('import-create').isEnabled()).toBe(true);

    // A name of one's own survives a new preview (the fingerprint added).
    await tid('import-wallet-name').fill('Phone');
    await tid('import-fingerprint').fill(KEY_INPUTS.vpub.fingerprint);
    expect(await tid('import-create').isDisabled()).toBe(true);
    await held.release(key);
    await fresh().waitFor();
    expect(await tid('import-wallet-name').inputValue()).toBe('Phone');
    expect(await tid('import-create').isEnabled()).toBe(true);

    // A name the node cannot hold: said, and Create waits.
    await tid('import-wallet-name').fill('a/b');
    expect(await tid('import-name-problem').innerText()).toMatch(/not “\/”/);
    expect(await tid('import-create').isDisabled()).toBe(true);
    // A name the node already has: said before Create (which then offers to attach it).
    await tid('import-wallet-name').fill('watch');
    expect(await tid('import-name-taken').innerText()).toMatch(/already has a wallet named “watch”/);
    expect(await tid('import-create').isEnabled()).toBe(true);
  });
});
