/**
 * One number for pending (#26 item 5), against a node and an index following it, into a real SQLite
 * file: a watch-only wallet receives 1 BTC confirmed, then 0.1 BTC unconfirmed, then spends from the
 * 1 BTC leaving unconfirmed change (signed by a key-holding wallet with the same descriptors). After
 * each step, through the full refresh, the reused one (nothing changed: the kept node rows) and the
 * incremental one: every address's confirmed and pending amounts are the node wallet's own
 * (listunspent minconf 0: `confirmations`, `safe`), and the table's totals equal the wallet's
 * getbalances — trusted (confirmed + own unconfirmed change), untrusted_pending — as the service's
 * overview sends them. Shared by pending-devnet.test.ts and pending-core.test.ts (real Core).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseBtc } from '../../shared/amounts';
import { RpcClient } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { OverviewQuery } from '../../electron/main/store/overview';
import { storedSums, wireTotals } from '../../electron/main/store/overview-totals';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { RefreshEngine } from '../../electron/main/refresh/engine';
import { IncrementalRefresh } from '../../electron/main/refresh/incremental';
import type { PayerNode } from '../support/payer-node';

export interface PendingNode extends PayerNode {
  /** Resolves once the index has the node's tip. */
  indexSynced(): Promise<void>;
}

interface Unspent {
  txid: string;
  vout: number;
  address?: string;
  amount: number;
  confirmations: number;
  safe: boolean;
}

const sats = (btc: number): bigint => parseBtc(btc.toFixed(8));

export function definePendingSuite(start: () => Promise<PendingNode>): void {
  let node: PendingNode;
  let dir: string;
  let db: Database;
  let store: WatchRepository;
  let rpc: RpcClient;
  let index: IndexClient;
  let engine: RefreshEngine;
  let incremental: IncrementalRefresh;
  let pid: string;
  const suffix = Date.now().toString(36);
  const keys = `pkeys-${suffix}`;
  const watch = `pwatch-${suffix}`;
  let first: string;
  let second: string;

  beforeAll(async () => {
    node = await start();
    dir = mkdtempSync(join(tmpdir(), 'spyglass-pending-'));
    await node.rpc.call('createwallet', [keys]);
    const { descriptors } = await node.rpc.call<{ descriptors: Array<{ desc: string; active: boolean; internal?: boolean }> }>('listdescriptors', [], keys);
    await node.rpc.call('createwallet', { wallet_name: watch, disable_private_keys: true, blank: true });
    const wpkh = descriptors.filter((d) => d.active && d.desc.startsWith('wpkh('));
    const imported = await node.rpc.call<Array<{ success: boolean }>>('importdescriptors', [wpkh.map((d) => ({ desc: d.desc, active: true, internal: d.internal ?? false, range: [0, 50], timestamp: 'now' }))], watch);
    expect(imported.every((r) => r.success)).toBe(true);
    rpc = new RpcClient({ url: node.rpcUrl, auth: { user: node.user, password: node.password }, wallet: watch });
    index = new IndexClient({ url: node.indexUrl, baseDelayMs: 5 });
    db = openDatabase(join(dir, 'spyglass.sqlite'));
    store = new WatchRepository(db);
    pid = new ProfileRepository(db).create({ name: 'p', nodeUrl: node.rpcUrl, auth: 'password', rpcUser: node.user, cookiePath: '', wallet: watch, indexUrl: node.indexUrl }, { passwordStorage: 'none' }).id;
    engine = new RefreshEngine({ store, rpc, index, profileId: pid, wallet: watch });
    incremental = new IncrementalRefresh({ engine, store, rpc, index, profileId: pid, wallet: watch });
  }, 300_000);
  afterAll(async () => {
    rpc?.close();
    index?.close();
    if (db) closeDatabase(db);
    await node?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The latest snapshot against the node now: per address, confirmed (the index's UTXOs, equal to the
   * node's confirmed coins) and pending (own change / from others) as listunspent says; the overview's
   * totals equal getbalances. Returns the rows by address.
   */
  async function expectTruth(): Promise<Map<string, { confirmed: bigint; own: bigint | null; others: bigint | null }>> {
    const unspent = await node.rpc.call<Unspent[]>('listunspent', [0], watch);
    const want = new Map<string, { confirmed: bigint; own: bigint; others: bigint }>();
    for (const u of unspent) {
      const w = want.get(u.address!) ?? { confirmed: 0n, own: 0n, others: 0n };
      if (u.confirmations > 0) w.confirmed += sats(u.amount);
      else if (u.safe) w.own += sats(u.amount);
      else w.others += sats(u.amount);
      want.set(u.address!, w);
    }
    const snap = store.latestSnapshot(pid)!;
    const rows = store.balances(pid, snap.id);
    const got = new Map(rows.map((r) => [r.address, { confirmed: r.balanceSats, own: r.pendingTrustedSats, others: r.pendingUntrustedSats }]));
    for (const [address, w] of want) expect(got.get(address), address).toEqual(w);
    for (const [address, g] of got) if (!want.has(address)) expect(g, address).toEqual({ confirmed: 0n, own: 0n, others: 0n });
    // The overview (what watch:overview sends, what Balances sums) against the wallet's getbalances.
    const { totals } = new OverviewQuery(db).balances(pid, snap.id, snap.index?.height ?? null, () => 'p2wpkh', 'test');
    const b = await node.rpc.call<{ mine: { trusted: number; untrusted_pending: number; immature: number } }>('getbalances', [], watch);
    expect(totals.trustedSats).toBe(sats(b.mine.trusted).toString());
    expect(totals.pendingUntrustedSats).toBe(sats(b.mine.untrusted_pending).toString());
    expect(b.mine.immature).toBe(0); // nothing mined to the watched wallet: none the table leaves out
    expect(totals.pendingUnknown).toBe(0);
    // The totals stored with the snapshot (schema 110, what a large wallet's first page shows) are the same.
    expect(wireTotals(storedSums(db, snap.id)!)).toEqual(totals);
    return got;
  }

  /** Real Core hands a mempool transaction to its wallets asynchronously: wait until they have it. */
  async function walletsSynced(): Promise<void> {
    await node.rpc.call('syncwithvalidationinterfacequeue');
  }

  async function full(): Promise<void> {
    await node.indexSynced();
    await engine.run();
  }

  it('1 BTC confirmed: confirmed 1, nothing pending; trusted = getbalances trusted', async () => {
    first = await node.rpc.call<string>('getnewaddress', [], watch);
    // Handed out now: a new address in the wallet's book would send the incremental refresh to the full one.
    second = await node.rpc.call<string>('getnewaddress', [], watch);
    await node.rpc.call('sendtoaddress', [first, 1], node.payer);
    await node.mine(1);
    await full();
    const rows = await expectTruth();
    expect(rows.get(first)).toEqual({ confirmed: 100_000_000n, own: 0n, others: 0n });
  });

  it('then 0.1 BTC unconfirmed: pending from others at its address (untrusted_pending), through the full, the reused and the incremental refresh', async () => {
    await node.rpc.call('sendtoaddress', [second, 0.1], node.payer);
    await walletsSynced();
    const inc = await incremental.run();
    expect(inc.fallback).toBeNull();
    expect(inc.mode).toBe('incremental');
    expect((await expectTruth()).get(second)).toEqual({ confirmed: 0n, own: 0n, others: 10_000_000n });
    await full();
    expect((await expectTruth()).get(second)).toEqual({ confirmed: 0n, own: 0n, others: 10_000_000n });
    // Nothing changed: the wallet's state is the same, the node rows (and their pending coins) are kept.
    const again = await engine.run();
    expect(again.spendCheck).toBe('reused');
    expect((await expectTruth()).get(second)).toEqual({ confirmed: 0n, own: 0n, others: 10_000_000n });
  });

  it('a spend from the 1 BTC leaving unconfirmed change: the change is pending, our own (trusted); totals = getbalances', async () => {
    const out = await node.rpc.call<string>('getnewaddress', [], node.payer);
    const coin = (await node.rpc.call<Unspent[]>('listunspent', [1], keys)).find((u) => u.address === first)!;
    const change = await node.rpc.call<string>('getrawchangeaddress', [], keys);
    const funded = await node.rpc.call<{ psbt: string }>('walletcreatefundedpsbt', [[{ txid: coin.txid, vout: coin.vout }], [{ [out]: 0.3 }], 0, { add_inputs: false, changeAddress: change, fee_rate: 2 }], keys);
    const signed = await node.rpc.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [funded.psbt], keys);
    const { hex } = await node.rpc.call<{ hex: string }>('finalizepsbt', [signed.psbt], keys);
    await node.rpc.call('sendrawtransaction', [hex]);
    await walletsSynced();
    await full();
    const rows = await expectTruth();
    expect(rows.get(first)).toEqual({ confirmed: 0n, own: 0n, others: 0n });
    const c = rows.get(change)!;
    expect(c.confirmed).toBe(0n);
    expect(c.others).toBe(0n);
    expect(c.own! > 69_000_000n && c.own! < 70_000_000n).toBe(true); // 0.7 BTC less the fee
    const b = await node.rpc.call<{ mine: { trusted: number; untrusted_pending: number } }>('getbalances', [], watch);
    expect(sats(b.mine.trusted)).toBe(c.own); // the wallet's trusted is exactly that change
    expect(sats(b.mine.untrusted_pending)).toBe(10_000_000n);
  });

  it('a block confirms both: everything confirmed, nothing pending, through the incremental refresh', async () => {
    await node.mine(1);
    await node.indexSynced();
    await incremental.run();
    const rows = await expectTruth();
    expect(rows.get(second)).toEqual({ confirmed: 10_000_000n, own: 0n, others: 0n });
  });
}
