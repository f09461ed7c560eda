/**
 * The watch-only wallet flow (#17) on the real services against a node: the devnet
 * (wallet-devnet.test.ts) or real Bitcoin Core of both generations (wallet-core.test.ts, under
 * `npm run test:core`). A Caravan 2-of-3 file and a zpub-style key are previewed, imported as blank
 * watch-only wallets (createwallet, importdescriptors, rescan), receive addresses are handed out and
 * checked against Core's own derivation — the same one on every visit until it is paid (unconfirmed
 * or confirmed), Next address with the gap past 20, a label typed on Receive on the node and in the
 * BIP329 export at once — a payment to one shows pending then confirmed in the wallet's
 * history and balances; bad input leaves the node as it was. Attaching to a wallet the node already
 * has (loaded, or only on disk: loaded for it), refusing wallets with private keys or without
 * descriptors; a name in use offering the attach; a rescan left unfinished (its record left behind, as a
 * node stop leaves it) reported and run again, finding the history; 5,000 addresses watched ahead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { AddressDetailView, NodeWalletsView, ReceiveAddressView, ReceiveLabelResult, WalletAttachResult, WalletHistoryView, WalletImportResult, WalletPreview, WalletRescanStatus, WalletScanProgress } from '../../shared/ipc/contract';
import type { IpcError } from '../../shared/errors';
import { dispatchOk } from '../support/app';
import type { PayerNode } from '../support/payer-node';
import { FILES, KEY_INPUTS, NODE } from '../wallet/vectors';

/** The node the suite runs against (test/support/payer-node.ts: a devnet or real Core with a follower index). */
export type WalletTarget = PayerNode;

export function defineWalletSuite(start: () => Promise<WalletTarget>): void {
  let t: WalletTarget;
  let app: SpyglassApp;
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-'));
  const scans: WalletScanProgress[] = [];
  const suffix = Date.now().toString(36);

  beforeAll(async () => {
    t = await start();
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    app.services.on('wallet:scan', (p) => scans.push(p));
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Node', nodeUrl: t.rpcUrl, auth: 'password', rpcUser: t.user, wallet: t.payer, indexUrl: t.indexUrl },
      password: t.password,
      remember: 'session',
    });
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('watch any wallet', () => {
    it('preview of a Caravan 2-of-3 file: the wallet, its keys and the addresses Core derives', async () => {
      const p = await dispatchOk<WalletPreview>(app, 'wallet:preview', { text: FILES.caravan });
      expect(p).toMatchObject({ format: 'caravan', threshold: 2, scriptType: NODE['caravan']!.scriptType, external: NODE['caravan']!.external, internal: NODE['caravan']!.internal });
      expect(p.keys).toHaveLength(3);
      expect(p.firstAddresses.map((a) => a.address)).toEqual(NODE['caravan']!.node.receive['0-2']);
      // The name the file carries (the default wallet name); a bare key carries none.
      expect(p.givenName).toBe('Caravan vault');
      expect((await dispatchOk<WalletPreview>(app, 'wallet:preview', { text: NODE['caravan']!.external })).givenName).toBeNull();
    });

    it('bad input leaves the node as it was: a private key, a wrong checksum, a name in use', async () => {
      const before = await t.rpc.call<string[]>('listwallets');
      const tprv = 'tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK';
      const bad = async (req: object, code: string, words: RegExp): Promise<void> => {
        const r = await app.dispatch('wallet:import', { walletName: `x-${suffix}`, rescan: { from: 'now' }, ...req });
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.code).toBe(code);
          expect(r.error.message).toMatch(words);
        }
      };
      await bad({ text: `wpkh(${tprv}/84h/1h/0h/0/*)` }, 'input.invalid', /private key/i);
      await bad({ text: NODE['caravan']!.external.replace(/#.*$/, '#abcdefgh') }, 'input.invalid', /checksum/i);
      await bad({ text: FILES.caravan, walletName: t.payer }, 'input.invalid', /already has a wallet named/);
      await bad({ text: FILES.caravan, watchAhead: 10_001 }, 'input.invalid', /watchAhead: At most 10,000 addresses/);
      await bad({ text: FILES.caravan, watchAhead: 5 }, 'input.invalid', /watchAhead: At least 20 addresses/);
      await bad({ text: FILES.caravan, rescan: { from: 'date', date: '2026-13-45' } }, 'input.invalid', /"2026-13-45" is not a date/);
      expect(await t.rpc.call<string[]>('listwallets')).toEqual(before);
    });

    let vault: WalletImportResult;
    it('import the Caravan file: a blank watch-only wallet on the node, rescanned; the profile watches it', async () => {
      vault = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: FILES.caravan, walletName: `caravan-${suffix}`, rescan: { from: 'everything' } });
      expect(vault).toMatchObject({ walletName: `caravan-${suffix}`, descriptors: 2, rescan: 'everything' });
      const info = await t.rpc.call<{ private_keys_enabled: boolean; descriptors: boolean }>('getwalletinfo', [], vault.walletName);
      expect(info).toMatchObject({ private_keys_enabled: false, descriptors: true });
      const listed = await t.rpc.call<{ descriptors: Array<{ desc: string; active: boolean; internal: boolean }> }>('listdescriptors', [], vault.walletName);
      expect(listed.descriptors.map((d) => [d.desc, d.active, d.internal]).sort()).toEqual([[NODE['caravan']!.external, true, false], [NODE['caravan']!.internal, true, true]].sort());
      const s = app.services.connectionState();
      expect(s.state === 'connected' && s.report.node.wallet).toBe(vault.walletName);
      expect(scans.at(-1)).toMatchObject({ walletName: vault.walletName, scanning: false, progress: 1 });
    });

    const failure = async (channel: string, req: object): Promise<IpcError> => {
      const r = await app.dispatch(channel, req);
      expect(r.ok, JSON.stringify(r)).toBe(false);
      return (r as { ok: false; error: IpcError }).error;
    };
    let first: ReceiveAddressView;
    const receive = (): Promise<ReceiveAddressView> => dispatchOk<ReceiveAddressView>(app, 'wallet:receive', {});
    const nextAddress = (): Promise<ReceiveAddressView> => dispatchOk<ReceiveAddressView>(app, 'wallet:next-address', {});
    it('receive: the address Core derives at index 0, with every cosigner’s path; a second visit shows the same one', async () => {
      first = await receive();
      expect(first).toMatchObject({ address: NODE['caravan']!.node.receive['0-2'][0], index: 0, used: false, label: '', source: 'node', gap: { unusedInARow: 1, limit: 20, lastUsedIndex: null } });
      expect(first.paths).toHaveLength(3);
      for (const p of first.paths) expect(p.path).toMatch(/\/0\/0$/);
      expect(await receive()).toEqual(first);
      // Handed out: in the node wallet's address book (listed with include_empty) and watched here as a node address.
      const listed = await t.rpc.call<Array<{ address: string }>>('listreceivedbyaddress', [0, true], vault.walletName);
      expect(listed.map((r) => r.address)).toContain(first.address);
      const page = await dispatchOk<AddressDetailView>(app, 'watch:address', { address: first.address });
      expect(page).toMatchObject({ address: first.address, source: 'node', label: null });
    });

    it('a label typed on Receive: on the node at once (getaddressinfo), in the BIP329 export, on the address page, and back with the address', async () => {
      const r = await dispatchOk<ReceiveLabelResult>(app, 'wallet:receive-label', { address: first.address, label: 'Invoice 7' });
      expect(r).toEqual({ address: first.address, label: 'Invoice 7', node: 'saved', message: "Label saved on the node's wallet and on this computer." });
      expect((await t.rpc.call<{ labels: string[] }>('getaddressinfo', [first.address], vault.walletName)).labels).toEqual(['Invoice 7']);
      const exported = await dispatchOk<{ text: string }>(app, 'labels:export', {});
      expect(exported.text.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toContainEqual({ type: 'addr', ref: first.address, label: 'Invoice 7' });
      expect((await dispatchOk<AddressDetailView>(app, 'watch:address', { address: first.address })).label).toBe('Invoice 7');
      expect(await receive()).toMatchObject({ address: first.address, label: 'Invoice 7' });
    });

    it('labelling refuses an address Receive did not hand out, and Core’s reserved "*", saving nothing', async () => {
      const notHanded = NODE['caravan']!.node.receive['0-2'][2]!;
      const e = await failure('wallet:receive-label', { address: notHanded, label: 'x' });
      expect(e).toMatchObject({ code: 'input.invalid', message: `${notHanded} is not a receive address this wallet handed out: open Receive to get one.` });
      const star = await failure('wallet:receive-label', { address: first.address, label: '*' });
      expect(star.message).toBe('Bitcoin Core reserves "*" (it means every label): choose another label.');
      expect((await t.rpc.call<{ labels: string[] }>('getaddressinfo', [first.address], vault.walletName)).labels).toEqual(['Invoice 7']);
    });

    it('a payment to it, still unconfirmed: the next visit to Receive gives a new address; pending, then confirmed, in the history and the balances', async () => {
      const txid = await t.rpc.call<string>('sendtoaddress', [first.address, 0.25], t.payer);
      await t.rpc.call('syncwithvalidationinterfacequeue'); // the watch-only wallet has seen it
      const fresh = await receive();
      expect(fresh).toMatchObject({ address: NODE['caravan']!.node.receive['0-2'][1], index: 1, label: '', gap: { unusedInARow: 1, lastUsedIndex: 0 } });
      const pending = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
      expect(pending.rows[0]).toMatchObject({ txid, category: 'receive', amountSats: '25000000', confirmations: 0, label: 'Invoice 7', runningSats: '25000000' });
      expect(pending.balance).toMatchObject({ confirmedSats: '0', pendingSats: '25000000' });
      await t.mine(1);
      const confirmed = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
      expect(confirmed.rows[0]).toMatchObject({ txid, confirmations: 1 });
      expect(confirmed.balance).toMatchObject({ confirmedSats: '25000000', pendingSats: '0' });
      expect(await receive()).toEqual(fresh);
    });

    it('a confirmed payment to the shown address: Receive moves on to the next one', async () => {
      const shown = await receive();
      await t.rpc.call<string>('sendtoaddress', [shown.address, 0.01], t.payer);
      await t.mine(1);
      await t.rpc.call('syncwithvalidationinterfacequeue');
      expect(await receive()).toMatchObject({ index: shown.index + 1, gap: { unusedInARow: 1, lastUsedIndex: shown.index } });
    });

    it('Next address: a different, unused address each time, watched by the node; past 20 unused in a row, the gap says so', async () => {
      const start = await receive();
      const seen = new Set([start.address]);
      let a = start;
      for (let k = 1; k <= 20; k++) {
        a = await nextAddress();
        expect(seen.has(a.address)).toBe(false);
        seen.add(a.address);
        expect(a).toMatchObject({ index: start.index + k, gap: { unusedInARow: 1 + k, limit: 20, lastUsedIndex: start.index - 1 } });
      }
      // The 20th in a row is the last a restoring wallet finds; the 21st is past the gap limit.
      expect(a.gap.unusedInARow).toBe(21);
      const info = await t.rpc.call<{ ismine: boolean; labels: string[] }>('getaddressinfo', [a.address], vault.walletName);
      expect(info).toMatchObject({ ismine: true, labels: [''] });
      // Receive stays on the last one handed out.
      expect(await receive()).toEqual(a);
    });

    it('an extended public key (vpub): imported, its first address Core’s', async () => {
      const r = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: KEY_INPUTS.vpub.xpub, fingerprint: KEY_INPUTS.vpub.fingerprint, path: KEY_INPUTS.vpub.path, walletName: `zpub-${suffix}`, rescan: { from: 'now' } });
      const addr = await dispatchOk<ReceiveAddressView>(app, 'wallet:receive', {});
      const listed = await t.rpc.call<{ descriptors: Array<{ desc: string; internal: boolean }> }>('listdescriptors', [], r.walletName);
      const external = listed.descriptors.find((d) => !d.internal)!.desc;
      expect(addr.address).toBe((await t.rpc.call<string[]>('deriveaddresses', [external, [0, 0]]))[0]);
      expect(addr.paths).toEqual([{ fingerprint: 'a74008ce', path: "m/84h/1h/0h/0/0" }]);
    });

    const activeWallet = (): string | null => {
      const s = app.services.connectionState();
      return s.state === 'connected' ? s.report.node.wallet : null;
    };
    /** A watch-only wallet made on the node by hand (as another tool would): the Sparrow descriptors, or none. */
    const nodeWallet = async (name: string, descriptors: boolean): Promise<void> => {
      await t.rpc.call('createwallet', [name, true, true, '', false, true, false]);
      if (!descriptors) return;
      const d = NODE['sparrow']!;
      const r = await t.rpc.call<Array<{ success: boolean }>>('importdescriptors', [[
        { desc: d.external, active: true, range: [0, 99], timestamp: 'now', internal: false },
        { desc: d.internal, active: true, range: [0, 99], timestamp: 'now', internal: true },
      ]], name);
      expect(r.every((x) => x.success)).toBe(true);
    };

    it('a name in use (loaded): the refusal offers to attach; attaching a wallet with private keys is refused, the node as it was', async () => {
      const e = await failure('wallet:import', { text: FILES.caravan, walletName: t.payer, rescan: { from: 'now' } });
      expect(e).toMatchObject({ code: 'input.invalid', detail: { walletName: t.payer, canAttach: true, loaded: true } });
      expect(e.message).toMatch(/attach that wallet instead/);
      const before = await t.rpc.call<string[]>('listwallets');
      const refused = await failure('wallet:attach', { walletName: t.payer });
      expect(refused).toMatchObject({ code: 'input.invalid', detail: { walletName: t.payer, reason: 'private-keys' } });
      expect(refused.message).toMatch(/holds private keys: Spyglass never holds keys/);
      expect(await t.rpc.call<string[]>('listwallets')).toEqual(before);
      expect(activeWallet()).toBe(`zpub-${suffix}`);
    });

    it('the node’s wallets: loaded and on disk (listwalletdir), each marked', async () => {
      await nodeWallet(`disk-${suffix}`, true);
      await t.rpc.call('unloadwallet', [`disk-${suffix}`]);
      const v = await dispatchOk<NodeWalletsView>(app, 'wallet:node-wallets');
      expect(v.walletDirListed).toBe(true);
      const byName = new Map(v.wallets.map((w) => [w.name, w]));
      expect(byName.get(`disk-${suffix}`)).toMatchObject({ loaded: false, kind: null, known: false, active: false });
      expect(byName.get(`zpub-${suffix}`)).toMatchObject({ loaded: true, kind: 'watch-only', known: true, active: true });
      expect(byName.get(t.payer)).toMatchObject({ loaded: true, kind: 'private-keys', known: false });
    });

    it('a name in use on disk (not loaded): the refusal offers to attach, nothing loaded; the attach loads it and the profile watches it', async () => {
      const e = await failure('wallet:import', { text: FILES.caravan, walletName: `disk-${suffix}`, rescan: { from: 'now' } });
      expect(e).toMatchObject({ code: 'input.invalid', detail: { walletName: `disk-${suffix}`, canAttach: true, loaded: false } });
      expect(e.message).toMatch(/in its wallets directory \(not loaded\).*attach that wallet instead/);
      expect(await t.rpc.call<string[]>('listwallets')).not.toContain(`disk-${suffix}`);

      const a = await dispatchOk<WalletAttachResult>(app, 'wallet:attach', { walletName: `disk-${suffix}` });
      expect(a).toMatchObject({ walletName: `disk-${suffix}`, loaded: true, external: NODE['sparrow']!.external, internal: NODE['sparrow']!.internal, threshold: 2, keys: 3 });
      expect(await t.rpc.call<string[]>('listwallets')).toContain(`disk-${suffix}`);
      expect(activeWallet()).toBe(`disk-${suffix}`);
      const addr = await dispatchOk<ReceiveAddressView>(app, 'wallet:receive', {});
      expect(addr).toMatchObject({ address: NODE['sparrow']!.node.receive['0-2'][0], index: 0 });
      expect(addr.paths).toHaveLength(3);
      const v = await dispatchOk<NodeWalletsView>(app, 'wallet:node-wallets');
      expect(v.wallets.find((w) => w.name === `disk-${suffix}`)).toMatchObject({ loaded: true, known: true, active: true });
    });

    it('attach refuses a blank wallet (unloaded again) and a name the node does not have', async () => {
      await nodeWallet(`blank-${suffix}`, false);
      await t.rpc.call('unloadwallet', [`blank-${suffix}`]);
      const blank = await failure('wallet:attach', { walletName: `blank-${suffix}` });
      expect(blank).toMatchObject({ code: 'input.invalid', detail: { reason: 'no-descriptors' } });
      expect(blank.message).toMatch(/has no active receive descriptor \(it is blank\)/);
      expect(await t.rpc.call<string[]>('listwallets')).not.toContain(`blank-${suffix}`);
      expect((await failure('wallet:attach', { walletName: '' })).message).toBe('Invalid request for wallet:attach: walletName: Choose the wallet to attach');
      const none = await failure('wallet:attach', { walletName: `nope-${suffix}` });
      expect(none.message).toBe(`The node has no wallet named "nope-${suffix}" (not loaded, and not in its wallets directory).`);
      expect(activeWallet()).toBe(`disk-${suffix}`);
    });

    it('a rescan left unfinished (the record a node stop leaves): reported after reconnecting; run again, it finds the history', async () => {
      const d = NODE['coldcard']!;
      const txid = await t.rpc.call<string>('sendtoaddress', [d.node.receive['0-2'][0], 0.125], t.payer);
      await t.mine(1);
      // A finished import leaves no record (a rescan that a real stop cuts short, finding the history only
      // when run again: wallet-rescan-devnet.test.ts, whose devnet rescans slowly).
      const r = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: FILES.coldcard, walletName: `cc-${suffix}`, rescan: { from: 'date', date: '2026-01-01' } });
      expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toBeNull();
      // A whole-chain rescan of it cut short: its record is what a stop leaves behind.
      const db = new BetterSqlite3(app.dbFile);
      const profileId = db.prepare<[], { id: string }>('SELECT id FROM profiles').get()!.id;
      db.prepare("INSERT INTO wallet_rescans VALUES (?, ?, 0, 0, 'import', '2026-11-25T06:00:00.000Z')").run(profileId, r.walletName);
      db.close();
      expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).toBe('connected');
      const { status } = await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status');
      expect(status).toMatchObject({ walletName: r.walletName, state: 'interrupted', startHeight: 0, fromTime: 0 });
      expect(status!.message).toBe(`The rescan of "${r.walletName}" was interrupted by the node stopping — history before 2026-11-25 06:00 UTC may be missing (it looked for payments since the start of the chain, from block 0). Run the rescan again.`);
      scans.length = 0;
      const again = await dispatchOk<{ startHeight: number; stopHeight: number }>(app, 'wallet:rescan');
      expect(again.startHeight).toBe(0);
      expect(again.stopHeight).toBe(await t.rpc.call<number>('getblockcount'));
      expect(scans.at(-1)).toMatchObject({ walletName: r.walletName, scanning: false, progress: 1 });
      const h = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
      expect(h.rows.map((x) => x.txid)).toEqual([txid]);
      expect(h.balance.confirmedSats).toBe('12500000');
      expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toBeNull();
      const nothing = await failure('wallet:rescan', {});
      expect(nothing.message).toBe('This wallet has no interrupted rescan to run again.');
    });

    it('5,000 addresses watched ahead: a payment to receive index 4,900 shows in the history and the balances', async () => {
      const k = KEY_INPUTS.tr86;
      const r = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: k.xpub, fingerprint: k.fingerprint, path: k.path, scriptType: k.scriptType, walletName: `gap-${suffix}`, rescan: { from: 'now' }, watchAhead: 5000 });
      const listed = await t.rpc.call<{ descriptors: Array<{ desc: string; internal: boolean; range: [number, number] }> }>('listdescriptors', [], r.walletName);
      const external = listed.descriptors.find((d) => !d.internal)!;
      expect(external.range).toEqual([0, 4999]);
      const far = (await t.rpc.call<string[]>('deriveaddresses', [external.desc, [4900, 4900]]))[0]!;
      const txid = await t.rpc.call<string>('sendtoaddress', [far, 0.0042], t.payer);
      await t.mine(1);
      const h = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
      expect(h.rows[0]).toMatchObject({ txid, category: 'receive', amountSats: '420000', confirmations: 1 });
      expect(h.balance.confirmedSats).toBe('420000');
    }, 420_000);
  });
}
