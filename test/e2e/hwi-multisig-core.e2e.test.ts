/**
 * A 2-of-3 multisig signed by two hardware wallets over USB (#30), in Chromium against real Bitcoin
 * Core (both generations under `npm run test:core`), with an index following that node. The hardware
 * wallets are the test HWI program (test/support/hwi-signer.mjs: HWI's command line with known keys,
 * really signing), standing in for devices, which cannot exist here. Signers lists the devices → Watch a
 * wallet → Assemble: the Trezor's and the Ledger's BIP48 keys (getxpub) and a pasted third key → Core's
 * watch-only descriptor wallet → Receive: Verify on device (the Ledger needs the multisig registered;
 * registered, it shows it from the wallet's descriptor at the address, and so does the Trezor) → paid by the node's payer, mined → Send composes → a device that holds none of
 * the keys is refused → the Trezor signs → the Ledger answering with another transaction is refused,
 * the draft as it was → the Ledger signs → finalized, checked, confirmed, broadcast, mined: the node's
 * gettransaction and getbalances of that wallet say so, and Balances equals getbalances. The same
 * assembly on the devnet: multisig-assemble.e2e.test.ts; the single-sig device flow on real Core:
 * hwi-core.e2e.test.ts.
 */
import { expect, it } from 'vitest';
import { parseBtc } from '../../shared/amounts';
import type { DraftView } from '../../shared/ipc/send';
import { describeWithBitcoind } from '../support/bitcoind';
import { fingerprintOf, type HwiDevice } from '../support/hwi-devices';
import { startCorePayer } from '../support/payer-node';
import { e2eSkipReason } from './harness';
import { useHwiRig } from './hwi-rig';
import { addDeviceCosigner, openAssembler, pasteCosigner, useAndImport, vaultDescriptor, vaultWith, verifyMultisigOnDevice } from './multisig-steps';

const skip = e2eSkipReason();
if (skip) console.warn(`[hwi-multisig-core e2e] ${skip}`);

interface Balances {
  mine: { trusted: number; untrusted_pending: number; immature: number };
}
const sats = (btc: number): string => parseBtc(btc.toFixed(8)).toString();

describeWithBitcoind(
  'Chromium e2e against real Bitcoin Core: a 2-of-3 from two devices and a pasted key, signed by both devices',
  (node) => {
    const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
    const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus' };
    /** A device whose key is in none of the vault's cosigners. */
    const D: HwiDevice = { name: 'D', type: 'coldcard', model: 'coldcard' };
    const [fpA, fpB, fpC, fpD] = ['A', 'B', 'C', 'D'].map(fingerprintOf) as [string, string, string, string];
    const shot = (name: string) => `74-hwi-multisig-core-${node().generation}-${name}`;
    const vault = `vault-${Date.now().toString(36)}`;
    const h = useHwiRig(() => startCorePayer(node(), 110), [A, B]);
    const { tid, origin } = h;
    const draftId = () => h.page.url().split('/drafts/')[1]!;
    const getDraft = () => h.ok<DraftView>('drafts:get', { id: draftId() });
    const cosignerSigned = (fp: string) => h.page.locator(`[data-testid="signing-cosigner"][data-fingerprint="${fp}"]`).getAttribute('data-signed');

    it('Signers lists both devices; Assemble: their BIP48 keys and a pasted one → 2-of-3 → Core’s watch-only descriptor wallet', async () => {
      await h.page.goto(`${origin()}/#/signers`);
      await h.page.locator(`[data-testid="signer-device"][data-fingerprint="${fpB}"]`).waitFor({ timeout: 60_000 });
      expect(await tid('signer-device').evaluateAll((els) => els.map((e) => e.getAttribute('data-fingerprint')))).toEqual([fpA, fpB]);
      expect(await tid('signer-device').allInnerTexts()).toEqual([expect.stringContaining('trezor_t'), expect.stringContaining('ledger_nano_s_plus')]);
      await openAssembler(h);
      await addDeviceCosigner(h, fpA);
      await addDeviceCosigner(h, fpB);
      await pasteCosigner(h, 'C');
      await useAndImport(h, { threshold: 2, names: ['A', 'B', 'C'], wallet: vault, shot: shot('assembled') });
      // the node holds it as a watch-only descriptor wallet with the two branches of that 2-of-3
      const info = await h.n.rpc.call<{ private_keys_enabled: boolean; descriptors: boolean }>('getwalletinfo', [], vault);
      expect(info).toMatchObject({ private_keys_enabled: false, descriptors: true });
      const listed = await h.n.rpc.call<{ descriptors: Array<{ desc: string; internal: boolean; active: boolean }> }>('listdescriptors', [], vault);
      const strip = (d: string) => d.replace(/#.*$/, '').replace(/'/g, 'h');
      expect(listed.descriptors.filter((d) => d.active).map((d) => [strip(d.desc), d.internal]).sort()).toEqual(
        [[strip(vaultDescriptor(2, ['A', 'B', 'C'], 0)), false], [strip(vaultDescriptor(2, ['A', 'B', 'C'], 1)), true]].sort(),
      );
    }, 240_000);

    it('Receive → Verify on device: the Ledger needs the multisig registered; it (registered) and the Trezor show the address from Core’s parent_desc; paid 1 BTC, mined', async () => {
      // Core names the wallet's receive descriptor of the address (parent_desc): what the devices are given, at index 0
      const info = await h.n.rpc.call<{ parent_desc?: string }>('getaddressinfo', [await tid('receive-address').innerText()], vault);
      expect(info.parent_desc).toBe(vaultDescriptor(2, ['A', 'B', 'C'], 0));
      h.setDevices([A, { ...B, registered: [vaultWith(2, ['A', 'B', 'C'], '/<0;1>/*')] }]);
      await verifyMultisigOnDevice(h, { register: [null, 'Ledger'], showOn: [fpB, fpA], sent: vaultWith(2, ['A', 'B', 'C'], '/0/0'), shot: shot('verify') });
      h.setDevices([A, B]);
      const address = await tid('receive-address').innerText();
      await h.n.rpc.call('sendtoaddress', [address, 1], h.n.payer);
      await h.n.mine(1);
      expect((await h.n.rpc.call<Balances>('getbalances', [], vault)).mine.trusted).toBe(1);
    }, 120_000);

    it('Send: a non-cosigner refused, the Trezor signs, the Ledger’s tampered answer refused (draft as it was), the Ledger signs; broadcast, mined', async () => {
      const { page } = h;
      const payTo = await h.n.rpc.call<string>('getnewaddress', ['', 'bech32'], h.n.payer);
      await page.goto(`${origin()}/#/send?seed=5`);
      await tid('send-address').fill(payTo, { timeout: 60_000 });
      await tid('send-amount').fill('0.4');
      await tid('send-fee-rate').fill('2');
      await tid('send-sum-fee').waitFor({ timeout: 60_000 });
      await tid('send-create').click();
      await page.locator('[data-testid="draft"][data-status="unsigned"]').waitFor({ timeout: 60_000 });
      const unsigned = await getDraft();
      expect(unsigned.outputs.find((o) => o.role === 'recipient')).toMatchObject({ address: payTo, amountSats: '40000000' });

      // a device that holds none of the vault's keys: refused by name, never asked, the draft as it was
      h.setDevices([A, B, D]);
      const signRuns = () => h.runs().filter((argv) => argv.includes('signtx'));
      await tid('device-sign-open').click();
      await tid(`signer-choose-${fpD}`).click({ timeout: 60_000 });
      await page.locator('[data-testid="device-sign-result"][data-ok="false"]').waitFor({ timeout: 60_000 });
      const refused = /^coldcard \(([0-9a-f]{8})\) holds none of this draft’s keys: its inputs are signed by ([0-9a-f, ]+)\.$/.exec(await tid('device-sign-result').innerText());
      expect(refused?.[1]).toBe(fpD);
      expect(refused?.[2]?.split(', ').sort()).toEqual([fpA, fpB, fpC].sort());
      expect(await getDraft()).toMatchObject({ status: 'unsigned', combined: null, imports: [], finalTx: null });
      expect(signRuns()).toEqual([]);

      // the Trezor signs: one of the two signatures needed
      await tid(`signer-choose-${fpA}`).click({ timeout: 60_000 });
      await page.locator('[data-testid="device-sign-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
      expect(await tid('device-sign-result').innerText()).toMatch(new RegExp(`^trezor_t \\(${fpA}\\) signed: PSBT v0: 1 new signature`));
      await expect.poll(() => page.locator('[data-testid="signing-input-text"]').first().innerText(), { timeout: 30_000 }).toMatch(/^1 of 3, missing: .* — 2 needed$/);
      expect(await page.locator('[data-testid="signing"]').getAttribute('data-complete')).toBe('false');
      expect([await cosignerSigned(fpA), await cosignerSigned(fpB), await cosignerSigned(fpC)]).toEqual(['true', 'false', 'false']);
      const withA = await getDraft();
      const withAPsbt = await h.ok<{ base64: string }>('drafts:export', { id: withA.id, version: 0, which: 'combined' });
      expect(withA.imports.map((i) => i.source)).toEqual([`Signed on trezor_t (${fpA})`]);
      await h.rig.screenshot(shot('signed-one'));

      // the Ledger answers with another transaction (an output 1,000 sats less): refused and named; the draft keeps the Trezor's signature only
      h.setDevices([A, { ...B, mode: 'tamper' }, D]);
      await tid(`signer-choose-${fpB}`).click({ timeout: 60_000 });
      await page.locator('[data-testid="device-sign-result"][data-ok="false"]').waitFor({ timeout: 60_000 });
      expect(await tid('device-sign-result').innerText()).toMatch(new RegExp(`^Refused: ledger_nano_s_plus \\(${fpB}\\) signed a different transaction than the draft you reviewed — output 0's amount .*Nothing was kept`));
      const after = await getDraft();
      expect({ status: after.status, combined: after.combined, imports: after.imports, finalTx: after.finalTx }).toEqual({ status: withA.status, combined: withA.combined, imports: withA.imports, finalTx: null });
      expect(await page.locator('[data-testid="signing-input-text"]').first().innerText()).toMatch(/^1 of 3, missing: /);
      expect(await cosignerSigned(fpB)).toBe('false');

      // the Ledger signs the draft with the Trezor's signature in it: enough
      h.setDevices([A, B, D]);
      await tid(`signer-choose-${fpB}`).click({ timeout: 60_000 });
      await page.locator('[data-testid="device-sign-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
      expect(await tid('device-sign-result').innerText()).toMatch(new RegExp(`^ledger_nano_s_plus \\(${fpB}\\) signed: PSBT v0: 1 new signature`));
      await page.locator('[data-testid="signing"][data-complete="true"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid="signing-input-text"]').first().innerText()).toBe(`2 of 3, missing: ${fpC} — enough (2 needed)`);
      expect((await getDraft()).imports.map((i) => i.source)).toEqual([`Signed on trezor_t (${fpA})`, `Signed on ledger_nano_s_plus (${fpB})`]);
      // each device got the draft as PSBT v0 with the signatures collected before it: the Ledger, the Trezor's
      expect(signRuns().map((argv) => argv.slice(0, 2))).toEqual([['--fingerprint', fpA], ['--fingerprint', fpB], ['--fingerprint', fpB]]);
      expect(signRuns()[2]).toEqual(['--fingerprint', fpB, '--chain', 'regtest', 'signtx', withAPsbt.base64]);
      await h.rig.screenshot(shot('signed-both'));

      // finalized, checked by the node, confirmed by the person, broadcast
      await tid('broadcast-finalize').click();
      await tid('broadcast-check').click();
      await tid('broadcast-confirm').waitFor({ timeout: 60_000 });
      expect(await h.n.rpc.call<string[]>('getrawmempool')).toEqual([]);
      await tid('broadcast-send').click();
      await tid('broadcast-sent').waitFor({ timeout: 60_000 });
      const txid = (await tid('broadcast-sent').getAttribute('data-txid'))!;
      expect(txid).toBe(unsigned.unsignedTxid); // segwit: the txid the person reviewed
      expect(await h.n.rpc.call<string[]>('getrawmempool')).toContain(txid);
      await h.n.mine(1);
      const tx = await h.n.rpc.call<{ confirmations: number; amount: number; fee: number }>('gettransaction', [txid], vault);
      expect(tx.confirmations).toBe(1);
      expect(sats(-tx.fee)).toBe(unsigned.feeSats);
      expect((await h.n.rpc.call<{ confirmations: number }>('gettransaction', [txid], h.n.payer)).confirmations).toBe(1);
      const b = await h.n.rpc.call<Balances>('getbalances', [], vault);
      expect(sats(b.mine.trusted)).toBe(String(100_000_000n - 40_000_000n - BigInt(unsigned.feeSats)));
      expect(b.mine.untrusted_pending).toBe(0);

      // Balances, refreshed, is the node's getbalances of the vault
      await page.goto(`${origin()}/#/balances`);
      await page.locator('[data-testid="balances-refresh"]:not([disabled])').waitFor({ timeout: 60_000 });
      await tid('balances-refresh').click();
      await page.locator(`[data-testid="wallet-available"][data-sats="${sats(b.mine.trusted)}"]`).waitFor({ timeout: 60_000 });
      await page.locator(`[data-testid="balances-total-trusted"][data-sats="${sats(b.mine.trusted)}"]`).waitFor({ timeout: 60_000 });
      expect(await tid('balances-total-untrusted-pending').getAttribute('data-sats')).toBe('0');
      await h.rig.screenshot(shot('balances'));
    }, 300_000);
  },
  { tag: 'hwi-multisig-core-e2e' },
);
