// E2E in Chromium for the PSBT review (issue 4): garbage refused with Core's own message, a recorded
// PSBT loaded from a binary .psbt file with no node at all (summary, inputs, outputs, Core's JSON equal
// to the recording), crafted PSBTs raising every warning the review knows, and a real spend of a watched
// coin on the devnet demo — dropped on the page, cross-checked by the node, labelled, exported byte for byte.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDevnet, type Devnet } from '../../devnet/index';
import { openDatabase } from '../../electron/main/store/db';
import { WatchRepository } from '../../electron/main/store/watch';
import { parseBtc } from '../../shared/amounts';
import { PSBT_WARNING_CODES, type PsbtWarningCode } from '../../shared/bitcoin/psbt-review';
import { TestRpc } from '../support/rpc';
import jsQR from 'jsqr';
import { decodePsbtUr } from '../../electron/main/psbt/ur';
import { decodePng } from '../qr/png';
import { EXPECTED_SEVERITY, OP_RETURN_TEXT, devnetSpend, recording, unhex, v2Psbt, warningPsbts, type Unspent } from './fixtures/psbt-craft';
import { dispatchOk } from '../support/app';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();
const keyring = Boolean(process.env.SPYGLASS_TEST_KEYRING);

// The wallet of the recordings: the watched input address and the change address of "funded bech32 input".
const REC_INPUT = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';
const REC_CHANGE = 'bcrt1qwqle5hlhu9zjeu4g8nn6wnq75mqsec900e56jr';

describe.skipIf(skip !== null)(`PSBT review (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let rig: Rig;
  let devnet: Devnet | null = null;
  let dataDir: string;
  let files: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'spyglass-e2e-psbt-'));
    files = mkdtempSync(join(tmpdir(), 'spyglass-e2e-psbt-files-'));
    rig = await startRig({ dataDir });
  });

  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  const ok = <T>(channel: string, payload: unknown = {}): Promise<T> => dispatchOk<T>(rig.web.app, channel, payload);

  async function openPsbtPage(page: Page): Promise<void> {
    await page.getByTestId('nav-psbt').click();
    await page.getByTestId('psbt-drop').waitFor();
  }

  async function paste(page: Page, text: string): Promise<void> {
    await page.getByTestId('psbt-input').fill(text);
    await page.getByTestId('psbt-decode').click();
    await page.locator('[data-testid="psbt-drop"][data-state="loaded"], [data-testid="psbt-drop"][data-state="error"]').waitFor({ timeout: 30_000 });
  }

  /** A full-page screenshot from the top (the sticky top bar would otherwise sit mid-page). */
  async function shot(name: string): Promise<void> {
    await rig.page.evaluate('window.scrollTo(0, 0)');
    await rig.screenshot(name);
  }

  /** Every warning shown, in order, as code:severity. */
  async function shownWarnings(page: Page): Promise<string[]> {
    return page.locator('[data-testid="psbt-warning"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-code')}:${e.getAttribute('data-severity')}`));
  }

  it('works without any profile; garbage gets Bitcoin Core’s own error message and code', async () => {
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/`);
    await page.getByTestId('topbar-profile').filter({ hasText: 'No profile' }).waitFor();
    await openPsbtPage(page);
    await page.getByTestId('psbt-empty').waitFor();
    await shot('30-psbt-empty');

    const notPsbt = recording('base64 but not psbt');
    await paste(page, notPsbt.base64);
    // Words first; Core's exact text below them.
    expect(await page.getByTestId('psbt-error-message').innerText()).toMatch(/^This is not a PSBT: a PSBT starts with the bytes 70 73 62 74 ff/);
    expect(await page.getByTestId('psbt-error-core').innerText()).toBe(`decodepsbt: ${notPsbt.error!.message}`);
    expect(notPsbt.error!.message).toBe('TX decode failed Invalid PSBT magic bytes: iostream error');
    expect(await page.getByTestId('psbt-error').getAttribute('data-core-code')).toBe(String(notPsbt.error!.code));
    expect(await page.getByTestId('psbt-error-code').innerText()).toContain('decodepsbt error code -22');

    const invalid = recording('invalid base64');
    await paste(page, 'this is not a PSBT at all!');
    expect(await page.getByTestId('psbt-error-message').innerText()).toBe(invalid.error!.message);
    expect(invalid.error!.message).toBe('TX decode failed invalid base64');

    const truncated = recording('magic then garbage');
    await paste(page, truncated.base64);
    // Core's text: as the message itself, or under Spyglass's words (a PSBT cut short).
    const words = await page.getByTestId('psbt-error-message').innerText();
    if (words !== truncated.error!.message) {
      expect(words).toMatch(/^The PSBT is cut short after \d+ bytes/);
      expect(await page.getByTestId('psbt-error-core').innerText()).toBe(`decodepsbt: ${truncated.error!.message}`);
    }
    expect(await page.locator('[data-testid="psbt-summary"]').count()).toBe(0);
    await shot('30-psbt-error');

    // Over the size cap: refused before the file is read or anything is sent.
    const big = join(files, 'big.psbt');
    writeFileSync(big, Buffer.alloc(20 * 1024 * 1024 + 1));
    await page.getByTestId('psbt-file').setInputFiles(big);
    await page.getByTestId('psbt-error-message').filter({ hasText: 'big.psbt' }).waitFor();
    expect(await page.getByTestId('psbt-error-message').innerText()).toBe('“big.psbt” is 20.0 MB, above the 20.0 MB Spyglass reads. Nothing was sent for decoding.');
  });

  it('offline: a recorded PSBT from a binary .psbt file — summary, inputs, outputs, Core’s JSON equal to the recording', async () => {
    // An air-gapped profile: its node is unreachable, two watched addresses put in the store directly.
    const saved = await ok<{ profile: { id: string } }>('profiles:save', {
      profile: { name: 'Air-gapped', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'u', wallet: '', indexUrl: 'http://127.0.0.1:9' },
      password: 'p',
      remember: 'session',
    });
    const state = await ok<{ state: string }>('profiles:activate', { id: saved.profile.id });
    expect(state.state).not.toBe('connected');
    const db = openDatabase(rig.web.app.dbFile);
    try {
      const repo = new WatchRepository(db);
      repo.addAddresses(saved.profile.id, [REC_INPUT, REC_CHANGE], 'user');
      repo.setLabel(saved.profile.id, { type: 'addr', ref: REC_CHANGE, label: 'change pot' });
    } finally {
      db.close();
    }

    const rec = recording('funded bech32 input');
    const file = join(files, 'funded.psbt');
    const bytes = Buffer.from(rec.base64, 'base64');
    expect(bytes.subarray(0, 5).toString('hex')).toBe('70736274ff');
    writeFileSync(file, bytes);

    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/psbt`);
    await page.reload();
    await page.getByTestId('psbt-drop').waitFor();
    await page.getByTestId('psbt-file').setInputFiles(file);
    await page.getByTestId('psbt-summary').waitFor({ timeout: 30_000 });

    // Summary in words.
    const summary = page.getByTestId('psbt-summary');
    expect(await summary.getAttribute('data-sent')).toBe('30000000');
    expect(await summary.getAttribute('data-change')).toBe('94999235');
    expect(await summary.getAttribute('data-fee')).toBe('765');
    const words = (await summary.innerText()).replace(/\s+/g, ' ');
    expect(words).toContain('Sends 0.30000000 BTC to 1 external address');
    expect(words).toContain('returns 0.94999235 BTC change to your watched address');
    expect(words).toContain('pays a fee of 765 sats (5.00 sat/vB, 0.0026 % of the amount sent)');
    expect(await page.getByTestId('psbt-vsize').getAttribute('data-exact')).toBe('false');
    expect(await page.getByTestId('psbt-vsize').innerText()).toContain('153 vB');
    expect(await page.getByTestId('psbt-version').getAttribute('data-version')).toBe('0');
    expect(await page.getByTestId('psbt-counts').innerText()).toBe('1 in · 2 out');
    expect(await page.getByTestId('psbt-size').getAttribute('data-bytes')).toBe(String(bytes.length));
    expect(await page.getByTestId('psbt-size').innerText()).toContain('“funded.psbt” (binary .psbt)');
    expect(await page.getByTestId('psbt-context').getAttribute('data-offline')).toBe('true');
    expect(await page.getByTestId('psbt-context').getAttribute('data-chain')).toBe('regtest');
    expect(await shownWarnings(page)).toEqual(['rbf:info']);

    // Inputs.
    const inputs = page.getByTestId('psbt-input-row');
    expect(await inputs.count()).toBe(1);
    const in0 = inputs.first();
    expect(await in0.getAttribute('data-address')).toBe(REC_INPUT);
    expect(await in0.getAttribute('data-watched')).toBe('true');
    expect(await in0.getAttribute('data-utxo')).toBe('both');
    expect(await in0.getAttribute('data-finalized')).toBe('false');
    expect(await in0.getByTestId('psbt-input-owner').innerText()).toBe('watched');
    expect(await in0.getByTestId('psbt-input-amount').getAttribute('data-sats')).toBe('125000000');
    expect(await in0.getByTestId('psbt-input-sigs').innerText()).toBe('0 of 1');
    expect(await in0.getByTestId('psbt-input-utxo').innerText()).toBe('both');

    // Outputs.
    const outputs = page.getByTestId('psbt-output-row');
    expect(await outputs.count()).toBe(2);
    expect(await outputs.nth(0).getAttribute('data-kind')).toBe('change');
    expect(await outputs.nth(0).getAttribute('data-address')).toBe(REC_CHANGE);
    expect(await outputs.nth(0).getByTestId('label-text').innerText()).toBe('change pot');
    expect(await outputs.nth(1).getAttribute('data-kind')).toBe('external');
    expect(await outputs.nth(1).getAttribute('data-amount')).toBe('30000000');

    // Core's JSON: collapsed, then exactly the recording's result (indented, and as written).
    await page.getByTestId('psbt-core-json-details').locator('summary').click();
    await page.locator('[data-testid="psbt-core-json"]:not(:empty)').waitFor();
    const shown = await page.getByTestId('psbt-core-json').innerText();
    expect(JSON.parse(shown)).toEqual(rec.result);
    expect(shown).toContain('"fee": 0.00000765');
    await page.getByTestId('psbt-core-json-raw').check();
    await page.locator('[data-testid="psbt-core-json"][data-raw="true"]').waitFor();
    const raw = await page.getByTestId('psbt-core-json').innerText();
    expect(JSON.parse(raw)).toEqual(rec.result);
    expect(raw).toContain('"fee":0.00000765');
    await page.getByTestId('psbt-core-json-raw').uncheck();

    // No node: the cross-check says so, and the offline decode stands.
    await page.getByTestId('psbt-crosscheck').click();
    const cross = page.getByTestId('psbt-crosscheck-result');
    await cross.waitFor();
    expect(await cross.getAttribute('data-agrees')).toBe('false');
    expect(await cross.getAttribute('data-available')).toBe('false');
    expect(await cross.innerText()).toContain('Node not available — the offline decode stands on its own');
    await shot('30-psbt-offline-file');
  });

  describe('connected to the devnet demo', () => {
    let rpc: TestRpc;
    let coin: Unspent;
    let external: string;
    let changeAddress: string;
    let psbt: string;
    const PAY = 10_000_000n;
    const FEE = 1_410n; // 141 vB at 10 sat/vB

    beforeAll(async () => {
      devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'e2e-psbt-pw' });
      rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
      const saved = await ok<{ profile: { id: string } }>('profiles:save', {
        profile: { name: 'Demo node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl },
        password: 'e2e-psbt-pw',
        remember: keyring ? 'keychain' : 'session',
      });
      const state = await ok<{ state: string }>('profiles:activate', { id: saved.profile.id });
      expect(state.state).toBe('connected');
      // A fresh change address of the watch wallet joins the watched set; the refresh stores its getaddressinfo (ischange).
      changeAddress = await rpc.call<string>('getrawchangeaddress', ['bech32'], 'watch');
      await ok('watch:add', { text: changeAddress });
      await ok('watch:refresh');
      external = await rpc.call<string>('getnewaddress', ['', 'bech32'], 'other');
      const unspent = await rpc.call<Unspent[]>('listunspent', [1], 'watch');
      coin = unspent.find((u) => u.scriptPubKey.length === 44 && u.scriptPubKey.startsWith('0014') && u.amount >= 0.2)!;
      expect(coin).toBeDefined();
      const amount = parseBtc(String(coin.amount));
      psbt = await devnetSpend(devnet, rpc, coin, [
        [external, PAY],
        [changeAddress, amount - PAY - FEE],
      ]);
    }, 180_000);

    it('a spend of a watched coin dropped on the page: input watched, change recognised, the node agrees; exports byte for byte', async () => {
      const page = rig.page;
      await page.goto(`${rig.web.bridge.origin}/#/balances`);
      await page.reload();
      await page.getByTestId('topbar-state').and(page.locator('[data-state="connected"]')).waitFor({ timeout: 30_000 });
      await openPsbtPage(page);
      if ((await page.getByTestId('psbt-clear').count()) > 0) await page.getByTestId('psbt-clear').click();

      // Drag and drop a binary .psbt onto the page.
      const dropped = Buffer.from(psbt, 'base64');
      await page.evaluate(`(() => {
        const bin = atob(${JSON.stringify(psbt)});
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'spend.psbt', { type: 'application/octet-stream' }));
        const zone = document.querySelector('[data-testid="psbt-drop"]');
        for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      })()`);
      await page.getByTestId('psbt-summary').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('psbt-size').innerText()).toContain('Dropped “spend.psbt” (binary .psbt)');

      const amount = parseBtc(String(coin.amount));
      const in0 = page.getByTestId('psbt-input-row').first();
      expect(await in0.getAttribute('data-outpoint')).toBe(`${coin.txid}:${coin.vout}`);
      expect(await in0.getAttribute('data-watched')).toBe('true');
      expect(await in0.getByTestId('psbt-input-owner').innerText()).toBe('watched');
      const change = page.locator(`[data-testid="psbt-output-row"][data-address="${changeAddress}"]`);
      expect(await change.getAttribute('data-kind')).toBe('change');
      expect(await change.getByTestId('psbt-output-kind').innerText()).toBe('change');
      expect(await change.innerText()).toContain('node: ischange');
      expect(await page.locator(`[data-testid="psbt-output-row"][data-address="${external}"]`).getAttribute('data-kind')).toBe('external');
      const summary = page.getByTestId('psbt-summary');
      expect(await summary.getAttribute('data-fee')).toBe(FEE.toString());
      expect(await summary.getAttribute('data-change')).toBe((amount - PAY - FEE).toString());
      expect((await summary.innerText()).replace(/\s+/g, ' ')).toContain('(10.00 sat/vB, 0.014 % of the amount sent)');
      expect(await page.getByTestId('psbt-context').getAttribute('data-offline')).toBe('false');
      expect(await shownWarnings(page)).toEqual(['rbf:info']);

      // The node's own decodepsbt agrees.
      await page.getByTestId('psbt-crosscheck').click();
      await page.locator('[data-testid="psbt-crosscheck-result"][data-available="true"]').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('psbt-crosscheck-result').getAttribute('data-agrees')).toBe('true');
      expect(await page.getByTestId('psbt-crosscheck-verdict').innerText()).toContain('Bitcoin Core agrees');

      // A label on the change address, saved as an addr label.
      await change.getByTestId('label-edit').click();
      await page.getByTestId('label-input').fill('PSBT change');
      await page.getByTestId('label-input').press('Enter');
      await change.getByTestId('label-text').filter({ hasText: 'PSBT change' }).waitFor();
      const labels = await ok<{ text: string }>('labels:export');
      expect(labels.text).toContain(`"ref":"${changeAddress}","label":"PSBT change"`);
      await shot('30-psbt-devnet-spend');

      // Export: the binary file is the dropped bytes, the text file its base64.
      const [bin] = await Promise.all([page.waitForEvent('download'), page.getByTestId('psbt-export-binary').click()]);
      expect(bin.suggestedFilename()).toBe('spend.psbt');
      const binFile = join(files, 'exported.psbt');
      await bin.saveAs(binFile);
      expect(readFileSync(binFile).equals(dropped)).toBe(true);
      const [txt] = await Promise.all([page.waitForEvent('download'), page.getByTestId('psbt-export-base64').click()]);
      const txtFile = join(files, 'exported.txt');
      await txt.saveAs(txtFile);
      expect(readFileSync(txtFile, 'utf8')).toBe(psbt);

      // QR for an air-gapped signer: each frame shown is read back by a QR decoder (jsqr, from a
      // screenshot) and the frames together give back the PSBT's bytes.
      await page.getByTestId('psbt-qr-toggle').click();
      await page.getByTestId('animated-qr-svg').waitFor();
      const frames = Number(await page.getByTestId('animated-qr').getAttribute('data-frames'));
      const pureFrames = Number(await page.getByTestId('psbt-qr-summary').getAttribute('data-frames'));
      expect(await page.getByTestId('psbt-qr-summary').getAttribute('data-kind')).toBe('multi');
      expect(frames).toBe(2 * pureFrames);
      await page.getByTestId('animated-qr-play').click(); // pause: step through by hand
      const read: string[] = [];
      for (let i = 0; i < pureFrames; i++) {
        const png = await page.getByTestId('animated-qr-svg').screenshot();
        const { width, height, data } = decodePng(png);
        const text = jsQR(data, width, height)?.data;
        expect(text, `frame ${i + 1}`).toMatch(/^UR:CRYPTO-PSBT\//);
        read.push(text!);
        await page.getByTestId('animated-qr-next').click();
      }
      expect(Buffer.from(decodePsbtUr(read)).equals(dropped)).toBe(true);
      await shot('30-psbt-qr');
      await page.getByTestId('psbt-qr-toggle').click();

      // Copy: the clipboard holds the base64.
      await rig.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.web.bridge.origin });
      await page.getByTestId('psbt-copy').click();
      await page.locator('[data-testid="psbt-copy"][data-state="copied"]').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(psbt);
    });

    it('crafted PSBTs raise every warning the review knows, each with its severity', async () => {
      const page = rig.page;
      await openPsbtPage(page);
      const tip = devnet!.node.chain.tipHeight();
      const seen = new Set<PsbtWarningCode>();
      for (const w of warningPsbts(unhex(coin.scriptPubKey), tip)) {
        await paste(page, w.base64);
        expect(await page.getByTestId('psbt-drop').getAttribute('data-state'), w.name).toBe('loaded');
        const shown = await shownWarnings(page);
        expect(new Set(shown.map((s) => s.split(':')[0])), w.name).toEqual(new Set(w.codes));
        for (const code of w.codes) {
          const item = page.locator(`[data-testid="psbt-warning"][data-code="${code}"]`).first();
          expect(await item.isVisible(), `${w.name}: ${code}`).toBe(true);
          expect(await item.getAttribute('data-severity'), `${w.name}: ${code}`).toBe(EXPECTED_SEVERITY[code]);
          expect(await item.getByTestId('psbt-warning-severity').innerText()).toMatch(/^(danger|warning|note)$/i);
          seen.add(code);
        }
        // Most severe first.
        const ranks = shown.map((s) => ['danger', 'warning', 'info'].indexOf(s.split(':')[1]!));
        expect(ranks, w.name).toEqual([...ranks].sort((a, b) => a - b));
        expect(await page.getByTestId('psbt-danger-banner').isVisible()).toBe(ranks[0] === 0);
        expect(await page.getByTestId('psbt-core-error').count(), w.name).toBe(w.coreRefuses ? 1 : 0);
        if (w.name === 'many') {
          // The rows the warnings point at are marked.
          expect(await page.locator('[data-testid="psbt-input-row"][data-index="0"]').getAttribute('data-flag')).toBe('danger');
          expect(await page.locator('[data-testid="psbt-input-row"][data-index="1"]').getAttribute('data-watched')).toBe('false');
          expect(await page.locator('[data-testid="psbt-input-row"][data-index="1"]').getByTestId('psbt-input-owner').innerText()).toBe('foreign');
          expect(await page.locator('[data-testid="psbt-input-row"][data-index="0"]').getByTestId('psbt-input-sighash').getAttribute('data-sighash')).toBe('NONE');
          expect(await page.locator('[data-testid="psbt-output-row"][data-index="0"]').getByTestId('psbt-output-dust').count()).toBe(1);
          expect(await page.locator('[data-testid="psbt-output-row"][data-index="1"]').getByTestId('psbt-output-used').count()).toBe(1);
          await shot('30-psbt-warnings');
        }
        if (w.name === 'unknown-fee') {
          expect(await page.getByTestId('psbt-core-error').getAttribute('data-message')).toBe('TX decode failed Non-witness UTXO does not match outpoint hash: iostream error');
          expect(await page.getByTestId('psbt-fee-unknown').isVisible()).toBe(true);
          await shot('30-psbt-core-refuses');
        }
        if (w.name === 'negative-fee') {
          const opReturn = page.locator('[data-testid="psbt-output-row"][data-kind="op_return"]');
          expect(await opReturn.getByTestId('psbt-output-opreturn').getAttribute('data-format')).toBe('text');
          expect(await opReturn.getByTestId('psbt-output-opreturn').innerText()).toBe(`“${OP_RETURN_TEXT}”`);
          expect(await opReturn.getByTestId('psbt-output-kind').innerText()).toBe('OP_RETURN');
        }
      }
      expect([...seen].sort()).toEqual([...PSBT_WARNING_CODES].sort());
    });

    it('version 2 (BIP 370) with current Core: reviewed as it is, cross-checked as it is; conversion both ways', async () => {
      const page = rig.page;
      // A version 2 PSBT still open to changes (modifiable flags, as @scure/btc-signer writes it).
      const open = v2Psbt(unhex(coin.scriptPubKey));
      await paste(page, open);
      expect(await page.getByTestId('psbt-version').getAttribute('data-version')).toBe('2');
      expect(await page.getByTestId('psbt-version-card').getAttribute('data-version')).toBe('2');
      expect(await page.getByTestId('psbt-core-error').count()).toBe(0);
      expect(await page.getByTestId('psbt-input-row').first().getAttribute('data-watched')).toBe('true');
      expect(await page.getByTestId('psbt-summary').getAttribute('data-fee')).toBe('1000');
      expect(await page.getByTestId('psbt-version-node').innerText()).toContain('reads and makes both versions');
      await page.getByTestId('psbt-crosscheck').click();
      await page.locator('[data-testid="psbt-crosscheck-result"][data-available="true"]').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('psbt-crosscheck-result').getAttribute('data-agrees')).toBe('true');
      expect(await page.getByTestId('psbt-crosscheck-asked').count()).toBe(0);
      // Its modifiable flags have no version 0 form: converted without them (as HWI does), said in a note.
      await page.getByTestId('psbt-convert').click();
      await page.locator('[data-testid="psbt-version-card"][data-version="0"][data-converted="2-0"]').waitFor();
      expect(await page.getByTestId('psbt-convert-notes').innerText()).toContain('PSBT_GLOBAL_TX_MODIFIABLE: inputs modifiable, outputs modifiable) were dropped');

      // The devnet spend, converted here to version 2 as Core's createpsbt would make it.
      await paste(page, psbt);
      await page.getByTestId('psbt-convert').click();
      await page.locator('[data-testid="psbt-version-card"][data-version="2"][data-converted="0-2"]').waitFor();
      expect(await page.getByTestId('psbt-converted').innerText()).toContain('export and copy below give the version 2 (BIP 370) bytes');
      expect(await page.getByTestId('psbt-summary').getAttribute('data-fee')).toBe(FEE.toString());
      expect(await page.getByTestId('psbt-input-row').first().getAttribute('data-watched')).toBe('true');
      // Export gives the version 2 bytes, named so.
      const v2 = await ok<{ base64: string }>('psbt:convert', { psbt, to: 2 });
      const [txt] = await Promise.all([page.waitForEvent('download'), page.getByTestId('psbt-export-base64').click()]);
      expect(txt.suggestedFilename()).toMatch(/-v2\.base64\.txt$/);
      const file = join(files, 'converted.txt');
      await txt.saveAs(file);
      expect(readFileSync(file, 'utf8')).toBe(v2.base64);
      // And back: version 0, no longer "converted".
      await page.getByTestId('psbt-convert').click();
      await page.locator('[data-testid="psbt-version-card"][data-version="0"][data-converted=""]').waitFor();
    });

    it('version 2 with a node that reads only version 0 (the devnet as Core v30): asked about its version 0 form, never a false "disagrees"', async () => {
      const page = rig.page;
      const v30 = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'e2e-psbt-pw', coreVersion: '30' });
      try {
        const saved = await ok<{ profile: { id: string } }>('profiles:save', {
          profile: { name: 'Core v30 node', nodeUrl: v30.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: v30.indexUrl },
          password: 'e2e-psbt-pw',
          remember: 'session',
        });
        expect((await ok<{ state: string }>('profiles:activate', { id: saved.profile.id })).state).toBe('connected');
        await page.getByTestId('topbar-profile').filter({ hasText: 'Core v30 node' }).waitFor();
        await openPsbtPage(page);
        const v2 = (await ok<{ base64: string }>('psbt:convert', { psbt, to: 2 })).base64;
        await paste(page, v2);
        expect(await page.getByTestId('psbt-version-node').innerText()).toContain('reads only version 0 PSBTs');
        await page.getByTestId('psbt-crosscheck').click();
        await page.locator('[data-testid="psbt-crosscheck-result"][data-available="true"]').waitFor({ timeout: 30_000 });
        expect(await page.getByTestId('psbt-crosscheck-result').getAttribute('data-agrees')).toBe('true');
        expect(await page.getByTestId('psbt-crosscheck-asked').isVisible()).toBe(true);
        await shot('30-psbt-v2');
        // One still open to changes (modifiable flags): its version 0 form drops them (as HWI), and the node agrees on it.
        await paste(page, v2Psbt(unhex(coin.scriptPubKey)));
        await page.getByTestId('psbt-crosscheck').click();
        await page.locator('[data-testid="psbt-crosscheck-result"][data-available="true"]').waitFor({ timeout: 30_000 });
        expect(await page.getByTestId('psbt-crosscheck-result').getAttribute('data-agrees')).toBe('true');
        expect(await page.getByTestId('psbt-crosscheck-asked').isVisible()).toBe(true);
      } finally {
        await v30.close();
      }
    });
  });
});
