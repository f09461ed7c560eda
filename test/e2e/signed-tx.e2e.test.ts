/**
 * A signer's answer as a signed raw transaction (#28), in Chromium against the devnet: drafts of a
 * single-sig watch-only wallet are signed outside the app by a test signer with the wallet's keys
 * and finalized there, the way a signer that returns a transaction does; the transaction is saved as
 * a binary `.txn` and as hex. Opened in Review PSBT it is named for what it is and for its draft;
 * opened with the draft page's file picker (binary and hex) or pasted there, it ends "ready to
 * broadcast" on its own draft — and the wrong draft's page names the right one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as btc from '@scure/btc-signer';
import { base64 } from '@scure/base';
import type { DraftView, SendCreateReply } from '../../shared/ipc/send';
import { startDevnetPayer } from '../support/payer-node';
import { signPsbtBase64 } from '../support/signer';
import { makeSendWallets, type SendNode, type SendWallets } from '../main/send-setup';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`a signed transaction back from the signer (Chromium e2e, devnet)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let n: SendNode;
  let w: SendWallets;
  let rig: Rig;
  let page: Page;
  let payTo = '';
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-txn-e2e-'));
  const tid = (t: string) => page.getByTestId(t);
  const ok = async <T>(channel: string, payload: unknown): Promise<T> => {
    const r = await rig.web.app.dispatch(channel, payload);
    if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
    return r.value as T;
  };

  /** A draft, signed and finalized outside the app: its .txn as bytes and as hex. */
  async function signedDraft(name: string, amount: string): Promise<{ draft: DraftView; bytes: Uint8Array; hex: string; txid: string }> {
    const r = await ok<SendCreateReply>('send:create', { form: { rows: [{ kind: 'pay', address: payTo, amount }], unit: 'btc', feeRate: '2', name } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const exported = await ok<{ base64: string }>('drafts:export', { id: r.draft.id, version: 0 });
    const signed = signPsbtBase64(exported.base64, w.hotKeys);
    expect(signed.signed.length).toBe(r.draft.inputs.length);
    const tx = btc.Transaction.fromPSBT(base64.decode(signed.base64));
    tx.finalize();
    return { draft: r.draft, bytes: tx.toBytes(true, true), hex: tx.hex, txid: tx.id };
  }

  async function openDraft(id: string): Promise<void> {
    await page.goto(`${rig.web.bridge.origin}/#/drafts/${id}`);
    await page.locator(`[data-testid="draft"]`).waitFor();
  }

  /** The draft page once its signed transaction is in: final, ready to broadcast (the import card gives way to Broadcast). */
  async function readyToBroadcast(d: { draft: DraftView; txid: string; hex: string }): Promise<void> {
    await page.locator('[data-testid="draft"][data-status="final"]').waitFor({ timeout: 60_000 });
    expect(await tid('broadcast-ready').innerText()).toBe('Every input verifies against the coins it spends: ready to broadcast.');
    expect(await tid('broadcast-final').innerText()).toContain(d.txid);
    expect(await tid('draft-name').innerText()).toBe(d.draft.name);
    expect((await ok<DraftView>('drafts:get', { id: d.draft.id })).finalTx).toMatchObject({ txid: d.txid, hex: d.hex });
  }

  /** The import's one result line on the draft page, once it is there. */
  async function result(source: string): Promise<{ ok: string | null; text: string }> {
    const li = page.locator('[data-testid="sig-import-result"]', { hasText: source });
    await li.waitFor({ timeout: 60_000 });
    return { ok: await li.getAttribute('data-ok'), text: await li.innerText() };
  }

  beforeAll(async () => {
    n = await startDevnetPayer('e2e-txn-pw');
    w = await makeSendWallets(n, Date.now().toString(36));
    payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    rig = await startRig();
    page = rig.page;
    const saved = await ok<{ profile: { id: string } }>('profiles:save', {
      profile: { name: 'Node', nodeUrl: n.rpcUrl, auth: 'password', rpcUser: n.user, wallet: w.watch, indexUrl: n.indexUrl },
      password: n.password,
      remember: 'session',
    });
    await ok('profiles:activate', { id: saved.profile.id });
    await page.goto(`${rig.web.bridge.origin}/#/`);
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await n?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a .txn (binary, then hex) from the file picker and the same pasted: each ready to broadcast on its own draft', async () => {
    const a = await signedDraft('Pay A', '0.011');
    const b = await signedDraft('Pay B', '0.012');
    const c = await signedDraft('Pay C', '0.013');
    const aBin = join(tmp, 'pay-a.txn');
    const aHex = join(tmp, 'pay-a-hex.txn');
    const bHex = join(tmp, 'pay-b-hex.txn');
    writeFileSync(aBin, a.bytes);
    writeFileSync(aHex, `${a.hex}\n`);
    writeFileSync(bHex, b.hex);

    // Review PSBT: the binary .txn is read as bytes, named a signed transaction, and sent to its draft.
    await page.goto(`${rig.web.bridge.origin}/#/psbt`);
    expect(await tid('psbt-file').getAttribute('accept')).toContain('.txn');
    await tid('psbt-file').setInputFiles(aBin);
    await tid('psbt-error').waitFor();
    expect(await tid('psbt-error-message').innerText()).toBe('This is a signed transaction, not a PSBT: open it on its draft to broadcast. It belongs to your draft “Pay A”.');
    expect(await tid('psbt-error-core').innerText()).toMatch(/^decodepsbt: TX decode failed /);
    await rig.screenshot('62-txn-review');
    await tid('psbt-error-draft').click();
    await page.waitForURL(`**/#/drafts/${a.draft.id}`);
    await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor();

    // The draft page's picker: the binary .txn → ready to broadcast on draft A.
    expect(await tid('sig-import-files').getAttribute('accept')).toContain('.txn');
    await tid('sig-import-files').setInputFiles(aBin);
    await readyToBroadcast(a);
    await rig.screenshot('62-txn-ready');

    // Draft B's page: A's hex .txn is refused, naming draft A; B's own hex .txn is ready to broadcast.
    await openDraft(b.draft.id);
    await tid('sig-import-files').setInputFiles(aHex);
    const wrong = await result('pay-a-hex.txn');
    expect(wrong.ok).toBe('false');
    expect(wrong.text).toContain('It belongs to your draft “Pay A”: open it there.');
    expect((await ok<DraftView>('drafts:get', { id: b.draft.id })).status).toBe('unsigned');
    await tid('sig-import-files').setInputFiles(bHex);
    await readyToBroadcast(b);

    // Pasted: Review PSBT names draft C; pasted on draft C's page it is ready to broadcast.
    await page.goto(`${rig.web.bridge.origin}/#/psbt`);
    await tid('psbt-input').fill(c.hex);
    await tid('psbt-decode').click();
    await tid('psbt-error-message').filter({ hasText: '“Pay C”' }).waitFor();
    await openDraft(c.draft.id);
    await tid('sig-import-paste').fill(c.hex);
    await tid('sig-import-paste-go').click();
    await readyToBroadcast(c);
    // Draft B's is still final and its own: nothing of another draft's transaction was kept there.
    expect((await ok<DraftView>('drafts:get', { id: b.draft.id })).finalTx?.txid).toBe(b.txid);
  });

  it('the binary .txn pasted as hex into another draft is refused there, naming its draft; the import reply says ready to broadcast', async () => {
    const d = await signedDraft('Pay D', '0.014');
    const e = await signedDraft('Pay E', '0.015');
    await openDraft(e.draft.id);
    await tid('sig-import-paste').fill(d.hex);
    await tid('sig-import-paste-go').click();
    const wrong = await result('pasted text');
    expect(wrong.ok).toBe('false');
    expect(wrong.text).toContain('It belongs to your draft “Pay D”: open it there.');
    // Matched by its transaction alone (no draft named): the reply says whose and that it is ready.
    const r = await ok<{ draft: DraftView; results: Array<{ ok: boolean; message: string }> }>('drafts:import', { texts: [{ text: d.hex, source: 'pay-d.txn' }] });
    expect(r.draft.id).toBe(d.draft.id);
    expect(r.results[0]).toEqual({ source: 'pay-d.txn', ok: true, message: `A fully signed transaction (${d.txid.slice(0, 16)}…) of the draft “Pay D”: every input verifies, ready to broadcast` });
  });
});
