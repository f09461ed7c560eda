/**
 * Real Bitcoin Core (both generations, `npm run test:core`) stopping during an import's rescan (#17).
 * Core cut short by a shutdown still answers importdescriptors — with success (its log: "Rescan
 * interrupted by shutdown request at block …") — so Spyglass must not take that answer for a finished
 * rescan: the import says the rescan was interrupted by the node stopping, and the record that makes
 * the wallet offer "Run the rescan again" after the restart stays in SQLite. Then Core is started again
 * on its datadir: the wallet says its rescan was interrupted, "Run the rescan again" runs
 * rescanblockchain, and Core stopping during that one (it answers "Rescan aborted.") keeps the record
 * too. (The run again to its end: wallet-rescan-devnet.test.ts.)
 *
 * No race with the rescan's speed: from the call on, the node runs in short steps (SIGCONT, a few ms,
 * SIGSTOP) and between two steps, frozen, its debug.log (written unbuffered) is read. Once it shows the
 * vault's rescan started and not ended, the node is frozen in the middle of the rescan — it cannot have
 * answered the call — and it is told to shut down (SIGTERM, what the `stop` RPC does) and thawed.
 * Core then answers importdescriptors with success, and may answer a call or two more before its HTTP
 * server closes: the app asks again RESCAN_SETTLE_MS after the answer. (This test used to send the stop
 * RPC once the app's progress poll saw the rescan, and the app asked at once: on a loaded CI machine Core
 * 30.99 answered that ask, and the import said ok.)
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { startFollower } from '../../devnet/index';
import { alive, bitcoindSource, describeWithBitcoind, startBitcoind, type BitcoindNode } from '../support/bitcoind';
import type { WalletRescanStatus } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { FILES, NODE } from '../wallet/vectors';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-stop-'));
let app: SpyglassApp | undefined;
let closeFollower: (() => Promise<void>) | undefined;
let again: BitcoindNode | undefined;
afterAll(async () => {
  await app?.close();
  await again?.stop();
  await closeFollower?.();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the node in steps while `call` is pending until, frozen between two steps, its debug.log shows
 * the vault's rescan started and not ended; then tells it to shut down and thaws it. Throws when the
 * rescan was not caught running (it ended within one step, or the call ended first).
 */
async function stopMidRescan(pid: number, log: string, call: Promise<unknown>): Promise<void> {
  let seen = statSync(log).size;
  let lines = '';
  let settled = false;
  void call.then(() => (settled = true));
  for (let steps = 0; ; steps++) {
    process.kill(pid, 'SIGSTOP');
    // Frozen: every line it wrote is in the file.
    const size = statSync(log).size;
    if (size > seen) {
      const fd = openSync(log, 'r');
      const buf = Buffer.alloc(size - seen);
      readSync(fd, buf, 0, buf.length, seen);
      closeSync(fd);
      lines += buf.toString('utf8');
      seen = size;
    }
    const vault = lines.split('\n').filter((l) => l.includes('[vault]'));
    const started = vault.some((l) => l.includes('Rescan started'));
    const ended = vault.some((l) => /Rescan (completed|interrupted|aborted)/.test(l));
    if (started && !ended) break;
    if (ended || settled || steps > 20_000) {
      process.kill(pid, 'SIGCONT');
      throw new Error(`the node was not caught in the middle of the rescan (${steps} steps, call settled: ${settled}): ${vault.slice(-5).join(' | ')}`);
    }
    process.kill(pid, 'SIGCONT');
    await new Promise((r) => setTimeout(r, 2));
  }
  process.kill(pid, 'SIGTERM');
  process.kill(pid, 'SIGCONT');
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

describeWithBitcoind(
  'a real Core node stopping during the rescan of an import',
  (node) => {
    it('the import says the rescan was interrupted, and its record stays for "Run the rescan again"; Core stopping during that one keeps it too', async () => {
      const { rpc, url, user, password } = node();
      await rpc.call('createwallet', ['payer']);
      // Enough blocks paying the imported wallet for a rescan that lasts seconds (Core skips unrelated blocks fast),
      // many times one step of the node below.
      for (let i = 0; i < 24; i++) await rpc.call('generatetoaddress', [250, NODE['sparrow']!.node.receive['0-2'][0]]);
      const follower = await startFollower({ url, user, password, pollMs: 100, log: () => undefined });
      closeFollower = () => follower.close();
      await follower.follower.waitFor((s) => s.synced, 180_000);

      app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
      const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
        profile: { name: 'Node', nodeUrl: url, auth: 'password', rpcUser: user, wallet: 'payer', indexUrl: follower.indexUrl },
        password,
        remember: 'session',
      });
      expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');

      const { pid, datadir } = node();
      if (pid === null || datadir === null) throw new Error('this test needs a node it started (its pid and debug.log)');
      const log = join(datadir, 'regtest', 'debug.log');
      const importing = app.dispatch('wallet:import', { text: FILES.sparrow, walletName: 'vault', rescan: { from: 'everything' } });
      await stopMidRescan(pid, log, importing);
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

      // Core again on its datadir, port and credentials, with its wallets (as a node operator's bitcoin.conf lists them).
      const source = bitcoindSource();
      if (source.kind !== 'binary') throw new Error('no bitcoind binary to start again');
      again = await startBitcoind({ binary: source.path, datadir, port: Number(new URL(url).port), password, args: ['-wallet=payer', '-wallet=vault'] });
      expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');
      expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toMatchObject({ walletName: 'vault', state: 'interrupted', startHeight: 0 });
      const rescanning = app.dispatch('wallet:rescan', {});
      await stopMidRescan(again.pid!, log, rescanning);
      const r2 = await rescanning;
      await again.stop(); // gone already; before the harness removes the datadir
      again = undefined;
      expect(r2.ok, JSON.stringify(r2)).toBe(false);
      if (r2.ok) return;
      // Core's answer to the rescanblockchain it was in says so itself (the app no longer needs the node gone after it)
      expect(r2.error.message).toMatch(/^The rescan of "vault" was interrupted by the node stopping — .* Run the rescan again\. \(the node: Rescan aborted\.\)$/);
      expect(r2.error.detail).toMatchObject({ walletName: 'vault', rescanInterrupted: true, startHeight: 0 });
      const db2 = new BetterSqlite3(app.dbFile, { readonly: true });
      expect(db2.prepare('SELECT node_wallet, start_height, from_time, kind FROM wallet_rescans').all()).toEqual([{ node_wallet: 'vault', start_height: 0, from_time: 0, kind: 'rescan' }]);
      db2.close();
    }, 400_000);
  },
  { tag: 'wallet-stop-core' },
);
