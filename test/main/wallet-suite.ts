/**
 * The watch-only wallet flow (#17) on the real services against a node: the devnet
 * (wallet-devnet.test.ts) or real Bitcoin Core of both generations (wallet-core.test.ts, under
 * `npm run test:core`). A Caravan 2-of-3 file and a zpub-style key are previewed, imported as blank
 * watch-only wallets (createwallet, importdescriptors, rescan), receive addresses are handed out and
 * checked against Core's own derivation, a payment to one shows pending then confirmed in the wallet's
 * history and balances; bad input leaves the node as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { ReceiveAddressView, WalletHistoryView, WalletImportResult, WalletPreview, WalletScanProgress } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import type { TestRpc } from '../support/rpc';
import { FILES, KEY_INPUTS, NODE } from '../wallet/vectors';

export interface WalletTarget {
  rpc: TestRpc;
  rpcUrl: string;
  indexUrl: string;
  user: string;
  password: string;
  /** A wallet with coins that pays (sendtoaddress) and mines. */
  payer: string;
  mine(blocks: number): Promise<void>;
  close(): Promise<void>;
}

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

    let first: ReceiveAddressView;
    it('receive: the node’s next address, the one Core derives at index 0, with every cosigner’s path; then index 1', async () => {
      first = await dispatchOk<ReceiveAddressView>(app, 'wallet:receive', { label: 'Invoice 7' });
      expect(first).toMatchObject({ address: NODE['caravan']!.node.receive['0-2'][0], index: 0, used: false, label: 'Invoice 7', source: 'node' });
      expect(first.paths).toHaveLength(3);
      for (const p of first.paths) expect(p.path).toMatch(/\/0\/0$/);
      const second = await dispatchOk<ReceiveAddressView>(app, 'wallet:receive', { label: '' });
      expect(second).toMatchObject({ address: NODE['caravan']!.node.receive['0-2'][1], index: 1 });
    });

    it('a payment to it: pending, then confirmed, in the history and the balances', async () => {
      const txid = await t.rpc.call<string>('sendtoaddress', [first.address, 0.25], t.payer);
      await t.rpc.call('syncwithvalidationinterfacequeue'); // the watch-only wallet has seen it
      const pending = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
      expect(pending.rows[0]).toMatchObject({ txid, category: 'receive', amountSats: '25000000', confirmations: 0, label: 'Invoice 7', runningSats: '25000000' });
      expect(pending.balance).toMatchObject({ confirmedSats: '0', pendingSats: '25000000' });
      await t.mine(1);
      const confirmed = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
      expect(confirmed.rows[0]).toMatchObject({ txid, confirmations: 1 });
      expect(confirmed.balance).toMatchObject({ confirmedSats: '25000000', pendingSats: '0' });
    });

    it('an extended public key (vpub): imported, its first address Core’s', async () => {
      const r = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: KEY_INPUTS.vpub.xpub, fingerprint: KEY_INPUTS.vpub.fingerprint, path: KEY_INPUTS.vpub.path, walletName: `zpub-${suffix}`, rescan: { from: 'now' } });
      const addr = await dispatchOk<ReceiveAddressView>(app, 'wallet:receive', { label: '' });
      const listed = await t.rpc.call<{ descriptors: Array<{ desc: string; internal: boolean }> }>('listdescriptors', [], r.walletName);
      const external = listed.descriptors.find((d) => !d.internal)!.desc;
      expect(addr.address).toBe((await t.rpc.call<string[]>('deriveaddresses', [external, [0, 0]]))[0]);
      expect(addr.paths).toEqual([{ fingerprint: 'a74008ce', path: "m/84h/1h/0h/0/0" }]);
    });
  });
}
