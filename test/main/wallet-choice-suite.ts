/**
 * Never watch a key-holding wallet silently (#26): the real services against a node — the devnet
 * (wallet-choice-devnet.test.ts) or real Bitcoin Core of both generations (wallet-choice-core.test.ts)
 * — seen through a recording proxy in front of its RPC port. A profile naming no wallet on a node whose
 * only loaded wallet holds private keys connects to the node but watches nothing, says so, and lists
 * the wallet with its kind; attaching it is refused until acknowledged, then it is watched and marked,
 * also after a reconnect; a profile naming that wallet is not acknowledged by another profile's consent;
 * several wallets and none named watch nothing; the only loaded wallet, watch-only, is watched and
 * written into the profile. No wallet call ever leaves without `/wallet/<name>`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { WALLET_METHODS } from '../../electron/main/rpc/wallet-methods';
import type { ConnectionReport, ConnectionState, NodeWalletsView, ProfileView, SettingsView, WalletAttachResult } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy';
import type { TestRpc } from '../support/rpc';

/** A node whose only loaded wallet is `keyWallet` (private keys, mined coins); `close` puts back what it changed. */
export interface ChoiceTarget {
  rpc: TestRpc;
  rpcUrl: string;
  user: string;
  password: string;
  keyWallet: string;
  close(): Promise<void>;
}

export function defineWalletChoiceSuite(start: () => Promise<ChoiceTarget>): void {
  let t: ChoiceTarget;
  let app: SpyglassApp;
  let proxy: RecordingProxy;
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-choice-'));
  const watchOnly = `watch-only-${Date.now().toString(36)}`;

  const save = async (name: string, wallet: string): Promise<string> =>
    (
      await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
        profile: { name, nodeUrl: proxy.url, auth: 'password', rpcUser: t.user, wallet, indexUrl: '' },
        password: t.password,
        remember: 'session',
      })
    ).profile.id;
  const connect = async (id: string): Promise<ConnectionReport> => {
    const r = await dispatchOk<{ connected: boolean; state: ConnectionState; error: { message: string } | null }>(app, 'profiles:connect', { id });
    expect(r.error).toBeNull();
    const s = app.services.connectionState();
    if (s.state !== 'connected' || s.profileId !== id) throw new Error(`not connected: ${JSON.stringify(s)}`);
    return s.report;
  };
  const profile = async (id: string): Promise<ProfileView> => (await dispatchOk<{ profiles: ProfileView[] }>(app, 'profiles:list')).profiles.find((p) => p.id === id)!;
  const listed = async (name: string) => (await dispatchOk<NodeWalletsView>(app, 'wallet:node-wallets')).wallets.find((w) => w.name === name);

  beforeAll(async () => {
    t = await start();
    proxy = await startRecordingProxy(t.rpcUrl);
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let keyProfile = '';
  describe('never watch a key-holding wallet silently', () => {
    it('no wallet named, the only loaded wallet holds keys: connected to the node, no wallet watched, a warning saying what to do', async () => {
      keyProfile = await save('Key node', '');
      const report = await connect(keyProfile);
      expect(report.node).toMatchObject({ wallet: null, walletKind: null, walletFrom: null, walletsLoaded: [t.keyWallet] });
      const warning = report.warnings.find((w) => w.code === 'no-wallet');
      expect(warning?.message).toMatch(new RegExp(`only loaded wallet, "${t.keyWallet}", holds private keys on the node, so Spyglass does not pick it by itself\\. Choose a wallet`));
      expect((await profile(keyProfile)).wallet).toBe('');
      // The page lists it with its kind, not as watched.
      expect(await listed(t.keyWallet)).toMatchObject({ loaded: true, kind: 'private-keys', active: false, keysAcknowledged: false });
      // Nothing is asked of the wallet the node would have picked: a refresh is refused here, unsent.
      const r = await app.dispatch('watch:refresh', {});
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code: 'rpc.wallet_not_specified', message: expect.stringMatching(/watches no wallet on this node.*choose a wallet/) });
    });

    it('attaching it without the acknowledgement is refused with how to acknowledge; the profile stays as it was', async () => {
      const r = await app.dispatch('wallet:attach', { walletName: t.keyWallet });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('input.invalid');
        expect(r.error.message).toMatch(/holds private keys: Spyglass never holds keys.*or watch it anyway by acknowledging that it holds private keys on the node.*acknowledgeKeys/);
        expect(r.error.detail).toMatchObject({ reason: 'private-keys', canAcknowledge: true });
      }
      expect((await profile(keyProfile)).wallet).toBe('');
      expect(await listed(t.keyWallet)).toMatchObject({ active: false, keysAcknowledged: false });
    });

    it('acknowledged: watched, named in the profile, marked in the list and the report, remembered across a reconnect', async () => {
      const r = await dispatchOk<WalletAttachResult>(app, 'wallet:attach', { walletName: t.keyWallet, acknowledgeKeys: true });
      expect(r).toMatchObject({ walletName: t.keyWallet, profileId: keyProfile, holdsKeys: true });
      expect(r.warnings.join(' ')).toMatch(/holds private keys on the node \(acknowledged\)/);
      const s = app.services.connectionState();
      expect(s.state === 'connected' && s.report.node).toMatchObject({ wallet: t.keyWallet, walletKind: 'private-keys', walletFrom: 'profile' });
      expect(s.state === 'connected' && s.report.warnings.map((w) => w.code)).toEqual(['wallet-holds-keys']);
      expect((await profile(keyProfile)).wallet).toBe(t.keyWallet);
      expect(await listed(t.keyWallet)).toMatchObject({ kind: 'private-keys', active: true, keysAcknowledged: true });
      expect((await dispatchOk<SettingsView>(app, 'settings:get')).profile?.keyWalletsAcknowledged).toEqual([t.keyWallet]);
      // Only wallet:attach records the consent.
      expect((await app.dispatch('settings:set', { profile: { keyWalletsAcknowledged: ['x'] } })).ok).toBe(false);
      const again = await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: keyProfile });
      expect(again.state).toBe('connected');
      const after = app.services.connectionState();
      expect(after.state === 'connected' && after.report.node).toMatchObject({ wallet: t.keyWallet, walletKind: 'private-keys' });
      expect((await dispatchOk<{ ok: true } | object>(app, 'watch:refresh'))).toBeTruthy();
    });

    it('another profile naming the same key wallet is not covered by that consent: connected, nothing watched, told how', async () => {
      const named = await save('Names the key wallet', t.keyWallet);
      const report = await connect(named);
      expect(report.node).toMatchObject({ wallet: null, walletKind: null });
      expect(report.warnings.find((w) => w.code === 'no-wallet')?.message).toMatch(new RegExp(`the profile names "${t.keyWallet}", which holds private keys on the node, and watches it only once you acknowledge that`));
      expect(await listed(t.keyWallet)).toMatchObject({ active: false, keysAcknowledged: false });
      expect((await profile(named)).wallet).toBe(t.keyWallet);
    });

    let open = '';
    it('several wallets loaded and none named: connected, nothing watched, a warning naming them', async () => {
      await t.rpc.call('createwallet', { wallet_name: watchOnly, disable_private_keys: true, blank: true });
      open = await save('No wallet named', '');
      const report = await connect(open);
      expect(report.node.wallet).toBeNull();
      expect(report.warnings.find((w) => w.code === 'no-wallet')?.message).toMatch(/the profile names none and the node has 2 wallets loaded \(.*"watch-only-.*\)\. Choose a wallet/);
      const kinds = (await dispatchOk<NodeWalletsView>(app, 'wallet:node-wallets')).wallets.filter((w) => w.loaded).map((w) => [w.name, w.kind, w.active]);
      expect(kinds.sort()).toEqual([[t.keyWallet, 'private-keys', false], [watchOnly, 'watch-only', false]].sort());
    });

    it('the only loaded wallet is watch-only: watched, and written into the profile (Edit profile shows it)', async () => {
      await t.rpc.call('unloadwallet', [t.keyWallet]);
      try {
        const report = await connect(open);
        expect(report.node).toMatchObject({ wallet: watchOnly, walletKind: 'watch-only', walletFrom: 'node' });
        expect(report.warnings).toEqual([]);
        expect((await profile(open)).wallet).toBe(watchOnly);
        expect(await listed(watchOnly)).toMatchObject({ kind: 'watch-only', active: true });
        // Its wallet calls go to it by name.
        const s = app.services.activeConnection()!;
        await s.rpc.call('getwalletinfo');
        expect(proxy.calls.at(-1)).toEqual({ path: `/wallet/${watchOnly}`, method: 'getwalletinfo' });
      } finally {
        await t.rpc.call('loadwallet', [t.keyWallet]);
      }
    });

    it('every wallet call the app sent named its wallet (/wallet/<name>)', () => {
      const walletCalls = proxy.calls.filter((c) => WALLET_METHODS.has(c.method));
      expect(walletCalls.length).toBeGreaterThan(5);
      expect(walletCalls.filter((c) => !/^\/wallet\/[^/]+$/.test(c.path))).toEqual([]);
      expect(new Set(walletCalls.map((c) => decodeURIComponent(c.path.slice('/wallet/'.length))))).toEqual(new Set([t.keyWallet, watchOnly]));
    });
  });
}
