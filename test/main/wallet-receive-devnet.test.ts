/**
 * Receive when the node goes away (#26), on the devnet: a label typed while the node does not answer is
 * kept on this computer and says so (in the BIP329 export at once); Receive then derives the same
 * address here from the stored descriptors, Next address goes on offline, and a label typed with no
 * connection at all is local and says so. A label set only locally (the Balances editor's `labels:set`)
 * reaches the node's wallet when Receive shows that address connected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { ReceiveAddressView, ReceiveLabelResult, WalletImportResult } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { TestRpc } from '../support/rpc';
import { KEY_INPUTS } from '../wallet/vectors';

describe('receive with the node gone (devnet)', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  let app: SpyglassApp;
  let profileId: string;
  let walletName: string;
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-receive-'));

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'u', wallet: 'miner', indexUrl: devnet.indexUrl },
      password: 'p',
      remember: 'session',
    });
    profileId = saved.profile.id;
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).toBe('connected');
    const k = KEY_INPUTS.vpub;
    walletName = (await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: k.xpub, fingerprint: k.fingerprint, path: k.path, walletName: 'receive-gone', rescan: { from: 'now' } })).walletName;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await devnet?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const receive = (): Promise<ReceiveAddressView> => dispatchOk<ReceiveAddressView>(app, 'wallet:receive', {});
  const exported = async (): Promise<unknown[]> => (await dispatchOk<{ text: string }>(app, 'labels:export', {})).text.trim().split('\n').map((l) => JSON.parse(l) as unknown);
  let shown: ReceiveAddressView;

  it('a label set only on this computer (the Balances editor) reaches the node when Receive shows the address', async () => {
    shown = await receive();
    expect(shown).toMatchObject({ index: 0, source: 'node', label: '' });
    await dispatchOk(app, 'labels:set', { type: 'addr', ref: shown.address, label: 'From Balances' });
    expect((await rpc.call<{ labels: string[] }>('getaddressinfo', [shown.address], walletName)).labels).toEqual(['']);
    expect(await receive()).toMatchObject({ address: shown.address, label: 'From Balances' });
    expect((await rpc.call<{ labels: string[] }>('getaddressinfo', [shown.address], walletName)).labels).toEqual(['From Balances']);
  });

  it('the node stops answering: a typed label is kept here and says so; Receive derives the same address here', async () => {
    await devnet.close();
    const r = await dispatchOk<ReceiveLabelResult>(app, 'wallet:receive-label', { address: shown.address, label: 'Typed while down' });
    expect(r).toMatchObject({ address: shown.address, label: 'Typed while down', node: 'unreachable' });
    expect(r.message).toMatch(/^Label saved on this computer only: the node did not answer \(.+\)\. Receive gives it to the node's wallet when it shows this address again with the node connected\.$/);
    expect(await exported()).toContainEqual({ type: 'addr', ref: shown.address, label: 'Typed while down' });
    expect(await receive()).toMatchObject({ address: shown.address, index: 0, source: 'offline', label: 'Typed while down' });
  });

  it('offline (the connection failed): the same address, Next address goes on, a label is local and says so', async () => {
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).not.toBe('connected');
    expect(await receive()).toMatchObject({ address: shown.address, index: 0, source: 'offline' });
    const next = await dispatchOk<ReceiveAddressView>(app, 'wallet:next-address', {});
    expect(next).toMatchObject({ index: 1, source: 'offline', label: '', gap: { unusedInARow: 2, lastUsedIndex: null } });
    expect(await receive()).toMatchObject({ address: next.address, index: 1 });
    const r = await dispatchOk<ReceiveLabelResult>(app, 'wallet:receive-label', { address: next.address, label: 'Offline' });
    expect(r).toEqual({
      address: next.address,
      label: 'Offline',
      node: 'offline',
      message: "Label saved on this computer only: the node is not connected. Receive gives it to the node's wallet when it shows this address again with the node connected.",
    });
    expect(await exported()).toContainEqual({ type: 'addr', ref: next.address, label: 'Offline' });
    const page = await dispatchOk<{ source: string; label: string | null }>(app, 'watch:address', { address: next.address });
    expect(page).toMatchObject({ source: 'node', label: 'Offline' });
  });
});
