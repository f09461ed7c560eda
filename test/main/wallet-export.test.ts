/**
 * `wallet:export` (#17) on the real services and SQLite against the devnet: a Caravan 2-of-3 wallet
 * imported on the node comes back out as descriptors and as a BSMS 1.0 record; each re-imports
 * (wallet:preview) to the same descriptors, keys and first addresses, and the record is the same
 * once the node is gone (it is made from SQLite). Bad requests and a profile without an imported
 * wallet get their own errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { safeFileStem } from '../../electron/main/wallet/export-service';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { WalletImportResult, WalletPreview } from '../../shared/ipc/contract';
import type { WalletExportView } from '../../shared/ipc/wallet-export';
import { dispatchOk } from '../support/app';
import { TestRpc } from '../support/rpc';
import { FILES, NODE } from '../wallet/vectors';

describe('wallet:export', () => {
  let devnet: Devnet;
  let app: SpyglassApp;
  let profileId: string;
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-export-'));
  const caravan = NODE['caravan']!;

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'u', wallet: 'miner', indexUrl: devnet.indexUrl },
      password: 'p',
      remember: 'session',
    });
    profileId = saved.profile.id;
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).toBe('connected');
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await devnet?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a wallet the node has but Spyglass did not import: refused, saying where its descriptors are', async () => {
    const r = await app.dispatch('wallet:export', { format: 'bsms' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('input.invalid');
      expect(r.error.message).toMatch(/"miner" was not imported with Spyglass.*listdescriptors/);
    }
  });

  it('bad requests: an unknown format, a missing one, an extra field', async () => {
    for (const payload of [{ format: 'json' }, {}, { format: 'bsms', wallet: 'x' }]) {
      const r = await app.dispatch('wallet:export', payload);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('input.invalid');
        expect(r.error.message).toMatch(/^Invalid request for wallet:export: /);
      }
    }
  });

  let imported: WalletImportResult;
  let bsms: WalletExportView;
  it('BSMS: a 1.0 record of the imported 2-of-3 (template, restrictions, address 0) that re-imports to the same wallet', async () => {
    imported = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: FILES.caravan, walletName: 'vault 1', rescan: { from: 'now' } });
    bsms = await dispatchOk<WalletExportView>(app, 'wallet:export', { format: 'bsms' });
    const lines = bsms.text.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('BSMS 1.0');
    // The receive descriptor with each key's /0/* as /** (and no checksum: a template has none).
    expect(lines[1]).toBe(caravan.external.replace(/#.*$/, '').split('/0/*').join('/**'));
    expect(lines[1]).toMatch(/^sh\(wsh\(sortedmulti\(2,(\[[0-9a-f]{8}\/[^\]]+\]tpub[1-9A-HJ-NP-Za-km-z]+\/\*\*,?){3}\)\)\)$/);
    expect(lines[2]).toBe('/0/*,/1/*');
    expect(lines[3]).toBe(caravan.node.receive['0-2'][0]);
    expect(bsms).toMatchObject({ walletName: 'vault 1', format: 'bsms', filename: 'vault-1.bsms', external: caravan.external, internal: caravan.internal, firstAddress: caravan.node.receive['0-2'][0], network: 'regtest' });

    const before = await dispatchOk<WalletPreview>(app, 'wallet:preview', { text: FILES.caravan });
    const again = await dispatchOk<WalletPreview>(app, 'wallet:preview', { text: bsms.text });
    expect(again.format).toBe('bsms');
    expect(again).toMatchObject({ external: caravan.external, internal: caravan.internal, threshold: 2, scriptType: before.scriptType });
    expect(again.firstAddresses).toEqual(before.firstAddresses);
    expect(again.firstAddresses.map((a) => a.address)).toEqual(caravan.node.receive['0-2']);
    expect(again.keys.map((k) => [k.xpub, k.fingerprint, k.path])).toEqual(before.keys.map((k) => [k.xpub, k.fingerprint, k.path]));
  });

  it('descriptors: receive, change and the <0;1> form, Core’s own (listdescriptors), re-importing to the same wallet', async () => {
    const d = await dispatchOk<WalletExportView>(app, 'wallet:export', { format: 'descriptors' });
    expect(d).toMatchObject({ format: 'descriptors', filename: 'vault-1-descriptors.txt', external: caravan.external, internal: caravan.internal });
    expect(d.multipath!.replace(/#[a-z0-9]{8}$/, '')).toBe(caravan.external.replace(/#.*$/, '').split('/0/*').join('/<0;1>/*'));
    expect(d.text).toContain(`# Receive descriptor (Bitcoin Core):\n${caravan.external}\n`);
    expect(d.text).toContain(`# Change descriptor (Bitcoin Core):\n${caravan.internal}\n`);
    const rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
    const listed = await rpc.call<{ descriptors: Array<{ desc: string }> }>('listdescriptors', [], imported.walletName);
    expect(listed.descriptors.map((x) => x.desc).sort()).toEqual([d.external, d.internal].sort());
    for (const text of [d.text, d.multipath!, `${d.external}\n${d.internal}`]) {
      const p = await dispatchOk<WalletPreview>(app, 'wallet:preview', { text });
      expect(p).toMatchObject({ external: caravan.external, internal: caravan.internal, threshold: 2 });
      expect(p.firstAddresses.map((a) => a.address)).toEqual(caravan.node.receive['0-2']);
    }
  });

  it('offline: with the node gone, the same record from SQLite', async () => {
    await devnet.close();
    const s = await dispatchOk<{ state: string }>(app, 'connection:refresh');
    expect(s.state).toBe('failed');
    const off = await dispatchOk<WalletExportView>(app, 'wallet:export', { format: 'bsms' });
    expect(off).toEqual(bsms);
  });

  it('a profile with no imported wallet: refused with what to do', async () => {
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Other', nodeUrl: 'http://127.0.0.1:9/', auth: 'password', rpcUser: 'u', wallet: '', indexUrl: 'http://127.0.0.1:9/' },
      password: 'p',
      remember: 'session',
    });
    await dispatchOk(app, 'profiles:activate', { id: saved.profile.id });
    const r = await app.dispatch('wallet:export', { format: 'descriptors' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe('The profile "Other" has no imported wallet to export: import one with “Watch a wallet”.');
  });

  it('file names: a wallet name made safe', () => {
    expect(safeFileStem('vault 1')).toBe('vault-1');
    expect(safeFileStem('../../etc/passwd')).toBe('etc-passwd');
    expect(safeFileStem('...')).toBe('wallet');
    expect(safeFileStem('a'.repeat(100))).toHaveLength(64);
  });
});
