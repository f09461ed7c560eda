/**
 * The user flows against a node, in Chromium (shared by core-node.e2e.test.ts against real Bitcoin
 * Core of both generations and wallet.e2e.test.ts against the devnet): "Connect your node" through the
 * form, then "Watch a wallet" — a Caravan 2-of-3 file and an extended public key imported as blank
 * watch-only wallets, the rescan finishing; Receive showing the same address on every visit, a label
 * typed there on the node at once, Next address with the gap-limit warning past 20; a payment to the
 * shown receive address moving Receive on and seen pending, then
 * confirmed, in the transactions and balances; then a wallet already on the node attached from the
 * list, and a name in use answered with "Attach this wallet instead"; a rescan left unfinished (its
 * record, as a node stop leaves it) shown as interrupted and run again from the notice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { FILES, KEY_INPUTS, NODE } from '../wallet/vectors';
import type { PayerNode } from '../support/payer-node';
import { fillConnectForm } from './connect-form';
import { startRig, type Rig } from './harness';

/** A node with a wallet that pays and mines, and its index (test/support/payer-node.ts starts them). */
export type FlowNode = PayerNode;

export function defineWalletFlow(start: () => Promise<FlowNode>, shot: (name: string) => string): void {
  let node: FlowNode;
  let rig: Rig;
  let page: Page;
  const tid = (t: string) => page.getByTestId(t);
  const suffix = Date.now().toString(36);

  beforeAll(async () => {
    node = await start();
    rig = await startRig();
    page = rig.page;
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
    await node?.close();
  });

  it('connect your node: the form, Test connection, Save and connect', async () => {
    await fillConnectForm(page, rig.web.bridge.origin, { name: 'My node', rpcUrl: node.rpcUrl, user: node.user, password: node.password, wallet: node.payer, indexUrl: node.indexUrl });
    await tid('form-test').click();
    await tid('test-result-report').waitFor({ timeout: 60_000 });
    expect(await tid('test-result-chain').innerText()).toContain('regtest');
    await tid('form-save').click();
    await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
    await rig.screenshot(shot('connected'));
  });

  it('watch a Caravan 2-of-3 file: preview with the keys and Core’s first addresses, create, rescan to the end', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    await tid('import-text').fill(FILES.caravan);
    await tid('import-check').click();
    await tid('import-preview').waitFor();
    expect(await tid('import-preview').getAttribute('data-threshold')).toBe('2');
    expect(await tid('import-key').count()).toBe(3);
    expect(await tid('import-address').allInnerTexts()).toEqual(NODE['caravan']!.node.receive['0-2']);
    await tid('import-wallet-name').fill(`vault-${suffix}`);
    await tid('import-rescan-everything').check();
    await rig.screenshot(shot('import-preview'));
    await tid('import-create').click();
    await tid('receive').waitFor({ timeout: 120_000 });
    expect(await node.rpc.call<{ private_keys_enabled: boolean }>('getwalletinfo', [], `vault-${suffix}`)).toMatchObject({ private_keys_enabled: false });
  });

  it('receive like Sparrow: the same address on every visit, a typed label on the node and in the labels at once, Next address a fresh one', async () => {
    await tid('receive-address').waitFor();
    const address = await tid('receive-address').innerText();
    expect(address).toBe(NODE['caravan']!.node.receive['0-2'][0]);
    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await page.goto(`${rig.web.bridge.origin}/#/receive`);
    await page.locator(`[data-testid="receive-address"][data-index="0"]`).waitFor();
    expect(await tid('receive-address').innerText()).toBe(address);
    // The label, saved as typed (Enter saves at once): the node's wallet has it, and so do this computer's labels.
    await tid('receive-label').fill('Invoice 7');
    await tid('receive-label').press('Enter');
    await page.locator('[data-testid="receive-label-status"][data-state="saved"]').waitFor();
    expect(await tid('receive-label-status').innerText()).toBe("Label saved on the node's wallet and on this computer.");
    expect((await node.rpc.call<{ labels: string[] }>('getaddressinfo', [address], `vault-${suffix}`)).labels).toEqual(['Invoice 7']);
    expect(await tid('receive-copy-uri').innerText()).toContain(`bitcoin:${address}?label=Invoice%207`);
    await rig.screenshot(shot('receive-labelled'));
    await page.goto(`${rig.web.bridge.origin}/#/address/${address}`);
    await tid('label-text').waitFor();
    expect(await tid('label-text').innerText()).toBe('Invoice 7');
    expect(await tid('address-source').getAttribute('data-source')).toBe('node');
    // Back on Receive: the same address, its label with it. Next address: a fresh one, without the label.
    await page.goto(`${rig.web.bridge.origin}/#/receive`);
    await page.locator(`[data-testid="receive-address"][data-index="0"]`).waitFor();
    expect(await tid('receive-label').inputValue()).toBe('Invoice 7');
    await tid('receive-next').click();
    await page.locator(`[data-testid="receive-address"][data-index="1"]`).waitFor();
    expect(await tid('receive-address').innerText()).toBe(NODE['caravan']!.node.receive['0-2'][1]);
    expect(await tid('receive-label').inputValue()).toBe('');
    expect(await tid('receive-gap-warning').count()).toBe(0);
    expect((await node.rpc.call<{ ismine: boolean }>('getaddressinfo', [NODE['caravan']!.node.receive['0-2'][1]], `vault-${suffix}`)).ismine).toBe(true);
  });

  it('receive to the shown address: pending, then confirmed, in Transactions and the balances', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/receive`);
    await page.locator(`[data-testid="receive-address"][data-index="1"]`).waitFor();
    const address = await tid('receive-address').innerText();
    expect(await tid('receive-path').count()).toBe(3);
    await tid('receive-amount').fill('0.5');
    expect(await tid('receive-copy-uri').innerText()).toContain(`bitcoin:${address}?amount=0.5`);
    await rig.screenshot(shot('receive'));
    const txid = await node.rpc.call<string>('sendtoaddress', [address, 0.5], node.payer);
    await node.rpc.call('syncwithvalidationinterfacequeue');
    // The shown address paid, still unconfirmed: Receive moves on to #2.
    await page.reload();
    await page.locator(`[data-testid="receive-address"][data-index="2"]`).waitFor();
    expect(await tid('receive-address').innerText()).toBe(NODE['caravan']!.node.receive['0-2'][2]);
    await page.goto(`${rig.web.bridge.origin}/#/transactions`);
    const row = page.locator(`[data-testid="transaction-row"][data-txid="${txid}"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getAttribute('data-confirmations')).toBe('0');
    expect(await tid('balance-pending').getAttribute('data-sats')).toBe('50000000');
    await rig.screenshot(shot('pending'));
    await node.mine(1);
    await page.reload();
    await page.locator(`[data-testid="transaction-row"][data-txid="${txid}"][data-confirmations="1"]`).waitFor({ timeout: 30_000 });
    expect(await tid('balance-confirmed').getAttribute('data-sats')).toBe('50000000');
    expect(await tid('balance-pending').getAttribute('data-sats')).toBe('0');
    // The grid: fee unknown for a receive, the running balance, one row links to its transaction page.
    const confirmedRow = page.locator(`[data-testid="transaction-row"][data-txid="${txid}"]`);
    expect(await confirmedRow.getByTestId('transaction-amount').getAttribute('data-sats')).toBe('50000000');
    expect(await confirmedRow.getByTestId('transaction-balance').getAttribute('data-sats')).toBe('50000000');
    expect(await confirmedRow.getAttribute('data-pending')).toBe('false');
    // The history as CSV: a header and this transaction, exact amounts.
    const [csv] = await Promise.all([page.waitForEvent('download'), tid('transactions-csv').click()]);
    expect(csv.suggestedFilename()).toBe(`spyglass-vault-${suffix}-transactions.csv`);
    const csvDir = mkdtempSync(join(tmpdir(), 'spyglass-e2e-csv-'));
    try {
      await csv.saveAs(join(csvDir, 'h.csv'));
      const lines = readFileSync(join(csvDir, 'h.csv'), 'utf8').trimEnd().split('\r\n');
      expect(lines[0]).toBe('date,txid,type,status,confirmations,block,amount,fee,balance,label,unit');
      expect(lines.find((l) => l.includes(txid))).toMatch(new RegExp(`^[^,]+,${txid},receive,confirmed,1,\\d+,0\\.50000000,,0\\.50000000,,BTC$`));
    } finally {
      rmSync(csvDir, { recursive: true, force: true });
    }
    await confirmedRow.getByTestId('transaction-link').click();
    await page.waitForURL(`**/#/tx/${txid}`);
  });

  it('export the wallet from Receive: descriptors and a BSMS record, shown, copied, saved; the record re-imports to the same wallet', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/receive`);
    await tid('receive-address').waitFor();
    const files = mkdtempSync(join(tmpdir(), 'spyglass-e2e-export-'));
    try {
      await tid('receive-export-descriptors').click();
      await page.locator('[data-testid="receive-export-text"][data-format="descriptors"]').waitFor();
      const descriptors = await tid('receive-export-text').innerText();
      expect(descriptors).toContain(NODE['caravan']!.external);
      expect(descriptors).toContain(NODE['caravan']!.internal!);
      expect(descriptors).toContain('/<0;1>/*');

      await tid('receive-export-bsms').click();
      await page.locator('[data-testid="receive-export-text"][data-format="bsms"]').waitFor();
      const record = await tid('receive-export-text').innerText();
      const lines = record.trim().split('\n');
      expect(lines[0]).toBe('BSMS 1.0');
      expect(lines[2]).toBe('/0/*,/1/*');
      expect(lines[3]).toBe(NODE['caravan']!.node.receive['0-2'][0]);
      expect(await tid('receive-export-first').innerText()).toBe(lines[3]);
      await tid('receive-export-copy').click();
      await page.locator('[data-testid="receive-export-note"]:not(:empty)').waitFor();
      expect(await tid('receive-export-note').innerText()).toMatch(/Copied|clipboard refused/);
      const [dl] = await Promise.all([page.waitForEvent('download'), tid('receive-export-save').click()]);
      expect(dl.suggestedFilename()).toBe(`vault-${suffix}.bsms`);
      const file = join(files, 'saved.bsms');
      await dl.saveAs(file);
      const saved = readFileSync(file, 'utf8');
      expect(saved.trim()).toBe(record.trim());
      await rig.screenshot(shot('receive-export'));

      // The saved record, checked in "Watch a wallet": the same descriptors and first addresses.
      await page.goto(`${rig.web.bridge.origin}/#/import`);
      await tid('import-text').fill(saved);
      await tid('import-check').click();
      await tid('import-preview').waitFor();
      expect(await tid('import-preview').getAttribute('data-threshold')).toBe('2');
      expect(await tid('import-key').count()).toBe(3);
      expect(await tid('import-address').allInnerTexts()).toEqual(NODE['caravan']!.node.receive['0-2']);
    } finally {
      rmSync(files, { recursive: true, force: true });
    }
  });

  it('watch an extended public key (vpub with its origin): its receive address is Core’s', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    await tid('import-text').fill(KEY_INPUTS.vpub.xpub);
    await tid('import-fingerprint').fill(KEY_INPUTS.vpub.fingerprint);
    await tid('import-path').fill(KEY_INPUTS.vpub.path);
    await tid('import-check').click();
    await tid('import-preview').waitFor();
    await tid('import-wallet-name').fill(`zpub-${suffix}`);
    await tid('import-rescan-now').check();
    await tid('import-create').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
    const listed = await node.rpc.call<{ descriptors: Array<{ desc: string; internal: boolean }> }>('listdescriptors', [], `zpub-${suffix}`);
    const external = listed.descriptors.find((d) => !d.internal)!.desc;
    expect(await tid('receive-address').innerText()).toBe((await node.rpc.call<string[]>('deriveaddresses', [external, [0, 0]]))[0]);
    // Next address 20 times: the 21st unused address in a row is past the gap limit, and the page says so.
    for (let i = 1; i <= 20; i++) {
      await tid('receive-next').click();
      await page.locator(`[data-testid="receive-address"][data-index="${i}"]`).waitFor();
      expect(await tid('receive-gap-warning').count()).toBe(i === 20 ? 1 : 0);
    }
    expect(await tid('receive-address').innerText()).toBe((await node.rpc.call<string[]>('deriveaddresses', [external, [20, 20]]))[0]);
    expect(await tid('receive-gap-warning').getAttribute('data-unused')).toBe('21');
    expect(await tid('receive-gap-warning').innerText()).toContain('21 unused addresses in a row from the first: past the gap limit of 20.');
    await rig.screenshot(shot('receive-gap'));
  });

  it('use a wallet already on the node: the list marks each, Attach watches it', async () => {
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    const vault = page.locator(`[data-testid="node-wallet"][data-name="vault-${suffix}"]`);
    await vault.waitFor({ timeout: 30_000 });
    expect(await vault.getAttribute('data-loaded')).toBe('true');
    // The node's own wallet holds keys: marked, no Attach — only "Watch it anyway…" (the acknowledgement); not watched.
    const payer = page.locator(`[data-testid="node-wallet"][data-name="${node.payer}"]`);
    expect(await payer.getByTestId('node-wallet-kind').innerText()).toBe('Holds private keys');
    expect(await payer.getAttribute('data-active')).toBe('false');
    expect(await payer.getByTestId('node-wallet-attach').count()).toBe(0);
    expect(await payer.getByTestId('node-wallet-acknowledge').count()).toBe(1);
    await rig.screenshot(shot('node-wallets'));
    await vault.getByTestId('node-wallet-attach').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
    expect(NODE['caravan']!.node.receive['0-2']).toContain(await tid('receive-address').innerText());
  });

  it('a name in use (a wallet on disk, not loaded): "Attach this wallet instead" loads and watches it', async () => {
    const name = `disk-${suffix}`;
    const d = NODE['sparrow']!;
    await node.rpc.call('createwallet', [name, true, true, '', false, true, false]);
    await node.rpc.call('importdescriptors', [[
      { desc: d.external, active: true, range: [0, 99], timestamp: 'now', internal: false },
      { desc: d.internal, active: true, range: [0, 99], timestamp: 'now', internal: true },
    ]], name);
    await node.rpc.call('unloadwallet', [name]);
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    await tid('import-text').fill(FILES.sparrow);
    await tid('import-check').click();
    await tid('import-preview').waitFor();
    await tid('import-wallet-name').fill(name);
    await tid('import-rescan-now').check();
    await tid('import-create').click();
    await tid('import-attach-instead').waitFor({ timeout: 30_000 });
    expect(await tid('import-error').innerText()).toContain(`already has a wallet named "${name}" in its wallets directory (not loaded)`);
    await rig.screenshot(shot('attach-instead'));
    await tid('import-attach-instead').click();
    await tid('receive-address').waitFor({ timeout: 60_000 });
    expect(await tid('receive-address').innerText()).toBe(d.node.receive['0-2'][0]);
    expect(await node.rpc.call<string[]>('listwallets')).toContain(name);
  });

  it('a rescan the node did not finish: the notice says so, "Run the rescan again" completes it', async () => {
    const db = new BetterSqlite3(rig.web.app.dbFile);
    const profileId = db.prepare<[], { id: string }>('SELECT id FROM profiles').get()!.id;
    db.prepare("INSERT INTO wallet_rescans VALUES (?, ?, 0, 0, 'import', '2026-11-25T06:00:00.000Z')").run(profileId, `disk-${suffix}`);
    db.close();
    await page.goto(`${rig.web.bridge.origin}/#/import`);
    await page.locator('[data-testid="rescan-notice"][data-state="interrupted"]').waitFor({ timeout: 30_000 });
    expect(await tid('rescan-notice-message').innerText()).toBe(
      `The rescan of "disk-${suffix}" was interrupted by the node stopping — history before 2026-11-25 06:00 UTC may be missing (it looked for payments since the start of the chain, from block 0). Run the rescan again.`,
    );
    await rig.screenshot(shot('rescan-interrupted'));
    await tid('rescan-again').click();
    await tid('rescan-notice-done').waitFor({ timeout: 60_000 });
    expect(await tid('rescan-notice-done').innerText()).toMatch(new RegExp(`^Rescanned blocks 0 to \\d+: the history of "disk-${suffix}" is complete\\.$`));
  });
}
