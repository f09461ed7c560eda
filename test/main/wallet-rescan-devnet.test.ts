/**
 * Watch any wallet (#17), what only a devnet can stage: a node too old for descriptor wallets and a
 * legacy wallet (a small JSON-RPC proxy in front of the devnet answers getnetworkinfo / getwalletinfo
 * as such a node would, everything else passes through), and a node that stops during an import's
 * rescan — the devnet rescans slowly, its HTTP server is closed mid-rescan and the rescan stopped, as a
 * node shutdown does — after which the wallet says the rescan was interrupted, and running it again
 * finds the history the interrupted one had not reached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { IpcError } from '../../shared/errors';
import type { WalletHistoryView, WalletRescanStatus, WalletScanProgress } from '../../shared/ipc/contract';
import { dispatchOk } from '../support/app';
import { TestRpc } from '../support/rpc';
import { FILES, NODE } from '../wallet/vectors';

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function appOn(rpcUrl: string, indexUrl: string, wallet: string): Promise<{ app: SpyglassApp; profileId: string; scans: WalletScanProgress[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-rescan-'));
  dirs.push(dir);
  const app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
  closers.push(() => app.close());
  const scans: WalletScanProgress[] = [];
  app.services.on('wallet:scan', (p) => scans.push(p));
  const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
    profile: { name: 'Node', nodeUrl: rpcUrl, auth: 'password', rpcUser: 'u', wallet, indexUrl },
    password: 'p',
    remember: 'session',
  });
  expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');
  return { app, profileId: saved.profile.id, scans };
}

/** A JSON-RPC proxy to `target` that answers the methods of `overrides` itself (a real HTTP server on loopback). */
async function proxy(
  target: string,
  overrides: Record<string, (path: string) => unknown>,
  rewrite: Record<string, (result: unknown) => unknown> = {},
  opts: { port?: number; downAfter?: string; downAfterMs?: number } = {},
): Promise<string> {
  const sockets = new Set<import('node:net').Socket>();
  const down = (): void => {
    for (const sock of sockets) sock.destroy();
    server.close();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { id: unknown; method: string };
      const own = overrides[parsed.method];
      if (own) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: own(req.url ?? '/'), error: null, id: parsed.id }));
        return;
      }
      void fetch(target + (req.url ?? '/'), { method: 'POST', headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' }, body }).then(async (r) => {
        let text = await r.text();
        const change = rewrite[parsed.method];
        if (change) {
          const reply = JSON.parse(text) as { result: unknown };
          text = JSON.stringify({ ...reply, result: change(reply.result) });
        }
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        // As real Core does at a shutdown: it answers the call it was in, then stops (at once, or taking
        // other calls for `downAfterMs` more, as its HTTP server does until its main thread gets to it).
        res.end(text, () => (opts.downAfter === parsed.method ? (opts.downAfterMs ? setTimeout(down, opts.downAfterMs) : setImmediate(down)) : undefined));
      });
    });
  });
  server.on('connection', (sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const sock of sockets) sock.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const failure = async (app: SpyglassApp, channel: string, req: object): Promise<IpcError> => {
  const r = await app.dispatch(channel, req);
  expect(r.ok, JSON.stringify(r)).toBe(false);
  return (r as { ok: false; error: IpcError }).error;
};

describe('a node too old, a legacy wallet', () => {
  it('Core 0.20.1: import and attach refused with node.unsupported before anything is created', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    const url = await proxy(devnet.rpcUrl, { getnetworkinfo: () => ({ version: 200100, subversion: '/Satoshi:0.20.1/', protocolversion: 70015 }) });
    const { app } = await appOn(url, devnet.indexUrl, 'miner');
    const rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
    const before = await rpc.call<string[]>('listwallets');
    const imp = await failure(app, 'wallet:import', { text: FILES.caravan, walletName: 'old-node', rescan: { from: 'now' } });
    expect(imp).toEqual({
      code: 'node.unsupported',
      message: 'The node runs Bitcoin Core 0.20.1 (/Satoshi:0.20.1/): watch-only descriptor wallets need Bitcoin Core 21.0 or newer (createwallet with descriptors, importdescriptors, listdescriptors). Upgrade the node to watch a wallet with Spyglass.',
      detail: { version: 200100, required: 210000 },
    });
    expect((await failure(app, 'wallet:attach', { walletName: 'miner' })).code).toBe('node.unsupported');
    expect(await rpc.call<string[]>('listwallets')).toEqual(before);
    expect((await rpc.call<{ wallets: unknown[] }>('listwalletdir')).wallets).toHaveLength(before.length);
  });

  it('a legacy wallet (getwalletinfo without descriptors): attach refused, saying how to migrate', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    const rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
    await rpc.call('createwallet', ['old', true, true]);
    const url = await proxy(devnet.rpcUrl, {
      getwalletinfo: (path) => (path === '/wallet/old' ? { walletname: 'old', walletversion: 169900, format: 'bdb', private_keys_enabled: false, descriptors: false } : { walletname: 'miner', private_keys_enabled: true, descriptors: true }),
    });
    const { app } = await appOn(url, devnet.indexUrl, 'miner');
    const e = await failure(app, 'wallet:attach', { walletName: 'old' });
    expect(e).toMatchObject({ code: 'input.invalid', detail: { walletName: 'old', reason: 'legacy' } });
    expect(e.message).toBe('"old" is a legacy wallet (not a descriptor wallet): Spyglass watches descriptor wallets only. Migrate it with `bitcoin-cli -rpcwallet=old migratewallet` (Core 26 or newer), or import its public keys as a new watch-only wallet.');
  });
});

describe('a node stopping during the rescan', () => {
  it('the import says the rescan was interrupted; after the restart the wallet says so, and running it again finds the history', async () => {
    let devnet: Devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p', rescanDelayMs: 40 });
    closers.push(() => devnet.close());
    const rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
    const miner = await rpc.call<string>('getnewaddress', [], 'miner');
    const txid = await rpc.call<string>('sendtoaddress', [NODE['sparrow']!.node.receive['0-2'][0], 0.3], 'miner');
    await rpc.call('generatetoaddress', [1, miner]);
    const tip = await rpc.call<number>('getblockcount');

    const { app, profileId, scans } = await appOn(devnet.rpcUrl, devnet.indexUrl, 'miner');
    const importing = app.dispatch('wallet:import', { text: FILES.sparrow, walletName: 'vault', rescan: { from: 'everything' } });
    // The node's rescan is under way (it reports progress)…
    const deadline = Date.now() + 30_000;
    while (!scans.some((s) => s.scanning && (s.progress ?? 0) > 0)) {
      if (Date.now() > deadline) throw new Error('the rescan never showed progress');
      await new Promise((r) => setTimeout(r, 50));
    }
    // …when the node stops: its HTTP server goes (open connections dropped) and the rescan ends with it.
    await devnet.close();
    const scanner = devnet.node.wallets.get('vault')!.scanner;
    scanner.abort();
    while (scanner.isScanning()) await new Promise((r) => setTimeout(r, 20)); // stopped with the node
    const r = await importing;
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toMatch(/^net\./);
    expect(r.error.message).toMatch(/^The rescan of "vault" was interrupted by the node stopping — history before \d{4}-\d\d-\d\d \d\d:\d\d UTC may be missing \(it looked for payments since the start of the chain, from block 0\)\. Run the rescan again\./);
    expect(r.error.detail).toMatchObject({ walletName: 'vault', rescanInterrupted: true, startHeight: 0 });

    // The node comes back (same chain, same wallets, same ports); reconnecting watches the new wallet.
    const port = (u: string): number => Number(new URL(u).port);
    devnet = await startDevnet({ node: devnet.node, rpcPort: port(devnet.rpcUrl), indexPort: port(devnet.indexUrl), rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).toBe('connected');
    const s = app.services.connectionState();
    expect(s.state === 'connected' && s.report.node.wallet).toBe('vault');
    expect((await dispatchOk<WalletHistoryView>(app, 'wallet:history')).rows).toEqual([]); // not reached before the stop
    const { status } = await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status');
    expect(status).toMatchObject({ walletName: 'vault', state: 'interrupted', startHeight: 0, fromTime: 0 });
    expect(status!.message).toBe(r.error.message.replace(/ \([^()]*\)$/, ''));

    scans.length = 0;
    const again = await dispatchOk<{ startHeight: number; stopHeight: number }>(app, 'wallet:rescan');
    expect(again).toEqual({ walletName: 'vault', startHeight: 0, stopHeight: tip });
    expect(scans.some((p) => p.scanning && p.progress !== null)).toBe(true); // progress as for an import
    expect(scans.at(-1)).toMatchObject({ walletName: 'vault', scanning: false, progress: 1 });
    const h = await dispatchOk<WalletHistoryView>(app, 'wallet:history');
    expect(h.rows.map((x) => x.txid)).toEqual([txid]);
    expect(h.balance.confirmedSats).toBe('30000000');
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toBeNull();
  }, 120_000);
});

describe('Core’s own word for a rescan cut short', () => {
  it('importdescriptors answering "Rescan failed for descriptor…": the wallet is kept and watched, the rescan recorded as interrupted, and run again', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    // The descriptors go in on the node; the reply says what Core says when its rescan stopped short.
    const url = await proxy(devnet.rpcUrl, {}, {
      importdescriptors: (result) =>
        (result as unknown[]).map(() => ({
          success: false,
          error: {
            code: -1,
            message:
              'Rescan failed for descriptor with timestamp 0. There was an error reading a block from time 1296688602, which is after or within 7200 seconds of key creation, and could contain transactions pertaining to the desc. As a result, transactions and coins using this desc may not appear in the wallet. This error could be caused by pruning or data corruption (see bitcoind log for details) and could be dealt with by downloading and rescanning the relevant blocks (see -reindex option and rescanblockchain RPC).',
          },
        })),
    });
    const { app } = await appOn(url, devnet.indexUrl, 'miner');
    const e = await failure(app, 'wallet:import', { text: FILES.caravan, walletName: 'cut', rescan: { from: 'everything' } });
    expect(e).toMatchObject({ code: 'rpc.error', detail: { walletName: 'cut', rescanInterrupted: true, startHeight: 0 } });
    expect(e.message).toMatch(/^The rescan of "cut" was interrupted by the node stopping — history before .* UTC may be missing .* Run the rescan again\. \(the node: Rescan failed for descriptor with timestamp 0\./);
    const s = app.services.connectionState();
    expect(s.state === 'connected' && s.report.node.wallet).toBe('cut');
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toMatchObject({ walletName: 'cut', state: 'interrupted', startHeight: 0 });
    const again = await dispatchOk<{ startHeight: number; stopHeight: number }>(app, 'wallet:rescan');
    expect(again.startHeight).toBe(0);
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toBeNull();
  });

  it('a refusal of the descriptors themselves is not taken for an interrupted rescan', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    const url = await proxy(devnet.rpcUrl, {}, { importdescriptors: (result) => (result as unknown[]).map(() => ({ success: false, error: { code: -5, message: 'Cannot import descriptor without private keys to a wallet with private keys enabled' } })) });
    const { app } = await appOn(url, devnet.indexUrl, 'miner');
    const e = await failure(app, 'wallet:import', { text: FILES.caravan, walletName: 'refused', rescan: { from: 'everything' } });
    expect(e.message).toBe('The node refused the descriptors: Cannot import descriptor without private keys to a wallet with private keys enabled. The wallet "refused" was created empty.');
    expect(e.detail?.rescanInterrupted).toBeUndefined();
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toBeNull();
  });
});

describe('Core answering, then stopping', () => {
  it('importdescriptors answers success as the node shuts down (real Core does): the node gone right after means the rescan was cut short', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    const url = await proxy(devnet.rpcUrl, {}, {}, { downAfter: 'importdescriptors' });
    const { app, profileId } = await appOn(url, devnet.indexUrl, 'miner');
    const e = await failure(app, 'wallet:import', { text: FILES.caravan, walletName: 'late', rescan: { from: 'everything' } });
    expect(e.code).toMatch(/^net\./);
    expect(e.message).toMatch(/^The rescan of "late" was interrupted by the node stopping — history before .* may be missing/);
    expect(e.detail).toMatchObject({ walletName: 'late', rescanInterrupted: true });
    // The node back at the same address: the profile watches the new wallet, which says the rescan is to be run again.
    await proxy(devnet.rpcUrl, {}, {}, { port: Number(new URL(url).port) });
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).toBe('connected');
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toMatchObject({ walletName: 'late', state: 'interrupted', startHeight: 0 });
    await dispatchOk(app, 'wallet:rescan');
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toBeNull();
  });

  it('the node still answering for a moment after the import (Core’s HTTP server closes after its rescan was cut short): asked again a second later, it is gone, and the rescan counts as cut short', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    closers.push(() => devnet.close());
    // 200 ms of answers after the import's: its timer starts before the app has the answer, so it ends
    // before the app's RESCAN_SETTLE_MS (1 s) does — the same event loop runs both.
    const url = await proxy(devnet.rpcUrl, {}, {}, { downAfter: 'importdescriptors', downAfterMs: 200 });
    const { app } = await appOn(url, devnet.indexUrl, 'miner');
    const e = await failure(app, 'wallet:import', { text: FILES.caravan, walletName: 'lagging', rescan: { from: 'everything' } });
    expect(e.code).toMatch(/^net\./);
    expect(e.detail).toMatchObject({ walletName: 'lagging', rescanInterrupted: true, startHeight: 0 });
  });

  it('"Run the rescan again" answered "Rescan aborted." (Core’s rescanblockchain cut short) keeps the record, though the node stays up', async () => {
    const devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p', rescanDelayMs: 20 });
    closers.push(() => devnet.close());
    const url = await proxy(devnet.rpcUrl, {}, {}, { downAfter: 'importdescriptors' });
    const { app, profileId, scans } = await appOn(url, devnet.indexUrl, 'miner');
    expect((await failure(app, 'wallet:import', { text: FILES.caravan, walletName: 'aborted', rescan: { from: 'everything' } })).detail).toMatchObject({ rescanInterrupted: true });
    await proxy(devnet.rpcUrl, {}, {}, { port: Number(new URL(url).port) });
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: profileId })).state).toBe('connected');

    scans.length = 0;
    const again = app.dispatch('wallet:rescan', {});
    const deadline = Date.now() + 30_000;
    while (!scans.some((p) => p.scanning && (p.progress ?? 0) > 0)) {
      if (Date.now() > deadline) throw new Error('the rescan never showed progress');
      await new Promise((r) => setTimeout(r, 20));
    }
    devnet.node.wallets.get('aborted')!.scanner.abort(); // what a shutdown (or abortrescan) does to Core's rescan
    const r = await again;
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'rpc.error', detail: { walletName: 'aborted', rescanInterrupted: true, startHeight: 0 } });
    expect(r.error.message).toMatch(/^The rescan of "aborted" was interrupted by the node stopping — .* Run the rescan again\. \(the node: Rescan aborted\.\)$/);
    expect((await dispatchOk<{ status: WalletRescanStatus | null }>(app, 'wallet:rescan-status')).status).toMatchObject({ walletName: 'aborted', state: 'interrupted', startHeight: 0 });
  });
});
