/**
 * Real Bitcoin Core (both generations, `npm run test:core`) stopping during an import's rescan (#17).
 * Core cut short by a shutdown still answers importdescriptors — with success (its log: "Rescan
 * interrupted by shutdown request at block …") — so Spyglass must not take that answer for a finished
 * rescan: the import says the rescan was interrupted by the node stopping, and the record that makes
 * the wallet offer "Run the rescan again" after the restart stays in SQLite. (The restart and the run
 * again: wallet-rescan-devnet.test.ts; Core's reply was checked by hand with curl against 31.99.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { startFollower } from '../../devnet/index';
import type { WalletScanProgress } from '../../shared/ipc/contract';
import { describeWithBitcoind } from '../support/bitcoind';
import { dispatchOk } from '../support/app';
import { FILES, NODE } from '../wallet/vectors';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-stop-'));
let app: SpyglassApp | undefined;
let closeFollower: (() => Promise<void>) | undefined;
afterAll(async () => {
  await app?.close();
  await closeFollower?.();
  rmSync(dir, { recursive: true, force: true });
});

describeWithBitcoind(
  'a real Core node stopping during the rescan of an import',
  (node) => {
    it('the import says the rescan was interrupted, and its record stays for "Run the rescan again"', async () => {
      const { rpc, url, user, password } = node();
      await rpc.call('createwallet', ['payer']);
      // Enough blocks paying the imported wallet for a rescan that lasts seconds (Core skips unrelated blocks fast):
      // 6,000, so that the stop sent once the rescan shows reaches it before it ends, on a quiet machine too
      // (2,000 were rescanned by Core 30.99 before its stop in one clean CI run).
      for (let i = 0; i < 24; i++) await rpc.call('generatetoaddress', [250, NODE['sparrow']!.node.receive['0-2'][0]]);
      const follower = await startFollower({ url, user, password, pollMs: 100, log: () => undefined });
      closeFollower = () => follower.close();
      await follower.follower.waitFor((s) => s.synced, 180_000);

      app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
      const scans: WalletScanProgress[] = [];
      app.services.on('wallet:scan', (p) => scans.push(p));
      const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
        profile: { name: 'Node', nodeUrl: url, auth: 'password', rpcUser: user, wallet: 'payer', indexUrl: follower.indexUrl },
        password,
        remember: 'session',
      });
      expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');

      const importing = app.dispatch('wallet:import', { text: FILES.sparrow, walletName: 'vault', rescan: { from: 'everything' } });
      const deadline = Date.now() + 60_000;
      while (!scans.some((s) => s.scanning)) {
        if (Date.now() > deadline) throw new Error(`the rescan never showed: ${JSON.stringify(scans.slice(-5))} ${JSON.stringify(await Promise.race([importing, new Promise((r) => setTimeout(() => r('pending'), 100))]))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await node().stop();
      const r = await importing;
      expect(r.ok, JSON.stringify(r)).toBe(false);
      if (r.ok) return;
      expect(r.error.message).toMatch(/^The rescan of "vault" was interrupted by the node stopping — history before .* UTC may be missing \(it looked for payments since the start of the chain, from block 0\)\. Run the rescan again\./);
      expect(r.error.detail).toMatchObject({ walletName: 'vault', rescanInterrupted: true, startHeight: 0 });
      const db = new BetterSqlite3(app.dbFile, { readonly: true });
      expect(db.prepare('SELECT node_wallet, start_height, from_time, kind FROM wallet_rescans').all()).toEqual([{ node_wallet: 'vault', start_height: 0, from_time: 0, kind: 'import' }]);
      // The profile watches the new wallet at the next connection.
      expect(db.prepare<[], { wallet: string }>('SELECT wallet FROM profiles').get()?.wallet).toBe('vault');
      db.close();
    }, 400_000);
  },
  { tag: 'wallet-stop-core' },
);
