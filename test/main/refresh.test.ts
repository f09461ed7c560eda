/**
 * The refresh engine against the REAL devnet (`demo` scenario) over loopback: the node's received
 * totals, and the index balances, UTXOs and confirmations, compared with the truth computed here from
 * the devnet's chain (every block and the mempool, not the index code); warm refreshes that ask
 * nothing; a payment, a spend from watched addresses and a block, with the diff; failures part-way
 * (index 500, node down), cancellation, one refresh at a time, and an address the index refuses.
 *
 * The tests of this file run in order on one devnet and one database (each builds on the last).
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { bytesToHex } from '../../devnet/chain/encoding';
import { parseJson, uGet, type UValue } from '../../shared/json';
import { formatBtc, parseBtc } from '../../shared/amounts';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { AppError } from '../../shared/errors';
import { RpcClient, type CallOptions } from '../../electron/main/rpc/client';
import { IndexClient } from '../../electron/main/blockindex/client';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { btcNumberToSats, RefreshEngine, type RefreshProgress, type RefreshResult } from '../../electron/main/refresh/engine';
import { TestRpc } from '../support/rpc';
import { CountingIndex, CountingRpc } from '../support/refresh-counting';

// ---------------------------------------------------------------------------------------------
// truth, from the devnet's chain and the node's own replies

interface NodeReceived {
  amountSats: bigint;
  confirmations: number;
  txids: string[];
  label: string;
}

/** listreceivedbyaddress as the node writes it, amounts read from the reply's TEXT (no float). */
async function nodeReceived(): Promise<Map<string, NodeReceived>> {
  const reply = await testRpc.raw('/wallet/watch', JSON.stringify({ jsonrpc: '2.0', id: 'r', method: 'listreceivedbyaddress', params: [0, true, true] }));
  const result = uGet(parseJson(reply.text), 'result')!;
  if (result.t !== 'arr') throw new Error('listreceivedbyaddress: not an array');
  const str = (u: UValue | undefined): string => (u?.t === 'str' ? u.v : (() => { throw new Error('not a string'); })());
  const num = (u: UValue | undefined): string => (u?.t === 'num' ? u.v : (() => { throw new Error('not a number'); })());
  const out = new Map<string, NodeReceived>();
  for (const e of result.v) {
    const txids = uGet(e, 'txids');
    out.set(str(uGet(e, 'address')), {
      amountSats: parseBtc(num(uGet(e, 'amount'))),
      confirmations: Number(num(uGet(e, 'confirmations'))),
      txids: txids?.t === 'arr' ? txids.v.map(str) : [],
      label: str(uGet(e, 'label')),
    });
  }
  // Change addresses holding coins (listreceivedbyaddress never lists change): what listunspent 0 has at each.
  const unspent = await testRpc.raw('/wallet/watch', JSON.stringify({ jsonrpc: '2.0', id: 'u', method: 'listunspent', params: [0] }));
  const coins = uGet(parseJson(unspent.text), 'result')!;
  if (coins.t !== 'arr') throw new Error('listunspent: not an array');
  const listed = new Set(out.keys());
  for (const c of coins.v) {
    const address = str(uGet(c, 'address'));
    if (listed.has(address)) continue;
    const e = out.get(address) ?? { amountSats: 0n, confirmations: Number.MAX_SAFE_INTEGER, txids: [], label: '' };
    e.amountSats += parseBtc(num(uGet(c, 'amount')));
    e.confirmations = Math.min(e.confirmations, Number(num(uGet(c, 'confirmations'))));
    const txid = str(uGet(c, 'txid'));
    if (!e.txids.includes(txid)) e.txids.push(txid);
    out.set(address, e);
  }
  return out;
}

interface TruthUtxo {
  address: string;
  txid: string;
  vout: number;
  amountSats: bigint;
  height: number;
}

/**
 * The confirmed outputs paying each address that no block or mempool transaction spends (what the
 * index must list), from a walk over every block and the mempool.
 */
function truthUtxos(addresses: readonly string[]): Map<string, TruthUtxo[]> {
  const chain = devnet.node.chain;
  const byScript = new Map(addresses.map((a) => [bytesToHex(devnet.node.scriptFor(a)), a]));
  const spent = new Set<string>();
  for (const b of chain.blocks) for (const t of b.txs) if (!t.coinbase) for (const i of t.vin) spent.add(`${i.txid}:${i.vout}`);
  for (const t of chain.mempoolTxs()) for (const i of t.vin) spent.add(`${i.txid}:${i.vout}`);
  const out = new Map<string, TruthUtxo[]>(addresses.map((a) => [a, []]));
  for (const b of chain.blocks) {
    for (const t of b.txs) {
      t.vout.forEach((o, vout) => {
        const address = byScript.get(bytesToHex(o.script));
        if (address === undefined || spent.has(`${t.txid}:${vout}`)) return;
        out.get(address)!.push({ address, txid: t.txid, vout, amountSats: o.value, height: b.height });
      });
    }
  }
  return out;
}

const key = (u: { txid: string; vout: number }): string => `${u.txid}:${u.vout}`;

function flatten(m: Map<string, TruthUtxo[]>): Map<string, TruthUtxo> {
  const out = new Map<string, TruthUtxo>();
  for (const list of m.values()) for (const u of list) out.set(key(u), u);
  return out;
}

/** Everything the latest snapshot says equals the truth (node replies + chain walk). */
async function expectSnapshotMatchesTruth(result: RefreshResult): Promise<void> {
  const node = await nodeReceived();
  const tipHeight = devnet.node.chain.tipHeight();
  expect(result.node).toEqual({ height: tipHeight, hash: devnet.node.chain.tip().hash });
  expect(result.index).toEqual(result.node);
  const rows = store.balances(profileId, result.snapshotId);
  const addresses = rows.map((r) => r.address);
  expect(new Set(addresses)).toEqual(new Set([...node.keys(), ...userAddresses]));
  const truth = truthUtxos(addresses);
  const received = store.received(result.snapshotId);
  let checkedUtxos = 0;
  for (const r of rows) {
    const n = node.get(r.address);
    if (n === undefined) {
      expect(r.source, r.address).toBe('user');
      expect(r.receivedSats).toBeNull();
    } else {
      expect(r.source).toBe('node');
      expect(r.receivedSats, r.address).toBe(n.amountSats);
      expect(r.receivedConfirmations, r.address).toBe(n.confirmations);
      expect(r.nodeLabel, r.address).toBe(n.label);
      expect(received.get(r.address)?.txids, r.address).toEqual(n.txids);
    }
    const want = truth.get(r.address)!;
    const got = store.utxos(profileId, r.address, result.snapshotId);
    expect(got.map((u) => [key(u), u.amountSats, u.height, u.confirmations]).sort(), r.address).toEqual(
      want.map((u) => [key(u), u.amountSats, u.height, tipHeight - u.height + 1]).sort(),
    );
    checkedUtxos += want.length;
    expect(r.balanceSats, r.address).toBe(want.reduce((s, u) => s + u.amountSats, 0n));
    expect(r.utxoCount).toBe(want.length);
    const youngest = want.length === 0 ? null : Math.max(...want.map((u) => u.height));
    expect(r.lastActivityHeight, r.address).toBe(youngest);
    expect(r.minConfirmations, r.address).toBe(youngest === null ? null : tipHeight - youngest + 1);
  }
  expect(checkedUtxos).toBeGreaterThan(20);
  const snap = store.getSnapshot(result.snapshotId)!;
  expect(snap.balanceSats).toBe(rows.reduce((s, r) => s + r.balanceSats, 0n));
  expect(snap.utxoCount).toBe(checkedUtxos);
}

// ---------------------------------------------------------------------------------------------

let devnet: Devnet;
let testRpc: TestRpc;
let dir: string;
let db: Database;
let store: WatchRepository;
let profileId: string;
let rpcClient: RpcClient;
let indexClient: IndexClient;
let rpc: CountingRpc;
let index: CountingIndex;
let engine: RefreshEngine;
/** Added by the user: the miner's coinbase address (many UTXOs, index only) and a fresh empty one. */
let userAddresses: string[] = [];
const measured: Record<string, number> = {};

function newEngine(over: Partial<ConstructorParameters<typeof RefreshEngine>[0]> = {}): RefreshEngine {
  return new RefreshEngine({ store, rpc, index, profileId, ...over });
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

async function mine(n = 1): Promise<void> {
  const to = await testRpc.call<string>('getnewaddress', [], 'other');
  await testRpc.call('generatetoaddress', [n, to]);
}

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo' });
  testRpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  dir = mkdtempSync(join(tmpdir(), 'spyglass-refresh-'));
  db = openDatabase(join(dir, 'spyglass.sqlite'));
  store = new WatchRepository(db);
  profileId = new ProfileRepository(db).create(
    { name: 'demo', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: devnet.auth.user, cookiePath: '', wallet: 'watch', indexUrl: devnet.indexUrl },
    { passwordStorage: 'session' },
  ).id;
  rpcClient = new RpcClient({ url: devnet.rpcUrl, auth: devnet.auth, wallet: 'watch' });
  indexClient = new IndexClient({ url: devnet.indexUrl, baseDelayMs: 5 });
  rpc = new CountingRpc(rpcClient);
  index = new CountingIndex(indexClient);
  engine = newEngine();

  // The user watches the address the tip's coinbase pays (the miner's, not in the watch wallet) and a fresh one.
  const coinbase = devnet.node.chain.tip().txs[0]!;
  const minerAddress = encodeDestination(extractDestination(coinbase.vout[0]!.script)!, devnet.node.network);
  userAddresses = [minerAddress, await testRpc.call<string>('getnewaddress', [], 'other')];
  store.addAddresses(profileId, userAddresses);
});

afterAll(async () => {
  rpcClient?.close();
  indexClient?.close();
  await devnet?.close();
  if (db) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (Object.keys(measured).length > 0) console.info(`refresh timings on demo (ms): ${JSON.stringify(measured)}`);
});

describe('btcNumberToSats', () => {
  it('is exact for 8-decimal amounts up to 21 million BTC and refuses anything else', () => {
    for (const text of ['0', '0.00000001', '0.1', '0.29', '1.00000000', '20999999.99999999', '21000000', '12345678.87654321', '0.07000001']) {
      expect(btcNumberToSats(JSON.parse(text), text)).toBe(parseBtc(text));
    }
    // Random amounts: through JSON text, as the node sends them.
    let x = 0x9e3779b9;
    for (let i = 0; i < 20_000; i++) {
      x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + i) >>> 0;
      const sats = (BigInt(x) * 489_133n + BigInt(i)) % 2_100_000_000_000_001n;
      const text = formatBtc(sats);
      expect(btcNumberToSats(JSON.parse(text))).toBe(sats);
    }
    for (const bad of [0.123456789, 21000000.00000001 + 1, Number.NaN, Infinity, '1.0', null, 1e-9]) {
      expect(() => btcNumberToSats(bad)).toThrow(AppError);
    }
  });
});

describe('RefreshEngine on devnet demo', () => {
  let cold: RefreshResult;

  it('cold: one listreceivedbyaddress, infos in batches, every address looked up; everything equals the truth', async () => {
    const events: RefreshProgress[] = [];
    const t0 = performance.now();
    cold = await engine.run({ onProgress: (p) => events.push(p) });
    measured.cold = Math.round(performance.now() - t0);

    const node = await nodeReceived();
    expect(node.size).toBeGreaterThan(40);
    const all = node.size + userAddresses.length;
    expect(cold.status).toBe('ok');
    expect(cold.previousId).toBeNull();
    expect(cold.counts).toMatchObject({ addresses: all, nodeAddresses: node.size, userAddresses: 2, infosFetched: all, infoErrors: 0, utxoLookups: all, utxoFailures: 0, carriedForward: 0 });
    expect(rpc.n('listreceivedbyaddress')).toBe(1);
    // Named and without include_watchonly, as the spec's client rule asks: a node from after v30
    // that dropped that argument would read a positional `true` in its place as the address filter.
    expect(rpc.params.get('listreceivedbyaddress')).toEqual({ minconf: 0, include_empty: true });
    expect(rpc.n('getwalletinfo')).toBe(2); // before and after listreceivedbyaddress: the state the rows are exact at
    expect(rpc.n('listunspent')).toBe(1);
    expect(cold.spendCheck).toBe('listunspent');
    const wi = await testRpc.call<{ walletname: string; txcount: number; lastprocessedblock: { hash: string } }>('getwalletinfo', [], 'watch');
    expect(store.latestSnapshot(profileId)?.walletState).toBe(`watch:${wi.txcount}:${wi.lastprocessedblock.hash}`);
    expect(rpc.n('getaddressinfo')).toBe(all);
    expect(new Set(index.lookups)).toEqual(new Set([...node.keys(), ...userAddresses]));
    expect(index.lookups).toHaveLength(all);
    await expectSnapshotMatchesTruth(cold);
    expect(cold.diff.newUtxos).toBe(cold.counts.utxosFetched);
    expect(cold.diff.spentUtxos).toBe(0);

    // The node's getaddressinfo replies are stored as received.
    const vault = [...node.entries()].find(([, n]) => n.label === 'vault')![0];
    const info = store.getInfo(profileId, vault)!.info as Record<string, unknown>;
    expect(info).toEqual(await testRpc.call('getaddressinfo', [vault], 'watch'));
    expect(info.isscript).toBe(true);

    // Progress: the phases in order, done never above total, each phase finishing.
    expect([...new Set(events.map((e) => e.phase))]).toEqual(['received', 'addressinfo', 'utxos', 'write']);
    for (const e of events) expect(e.done).toBeLessThanOrEqual(e.total);
    for (const phase of ['received', 'addressinfo', 'utxos', 'write'] as const) {
      const last = events.filter((e) => e.phase === phase).at(-1)!;
      expect(last.done, phase).toBe(last.total);
    }
    expect(events.filter((e) => e.phase === 'utxos').at(-1)!.total).toBe(all);
  });

  it('warm: nothing changed → no getaddressinfo, no address/utxo, no new snapshot; the latest one records the check', async () => {
    rpc.reset();
    index.lookups.length = 0;
    const countRows = (): number => db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM snapshot_utxos').get()!.n;
    const rowsBefore = countRows();
    const snapshotsBefore = store.listSnapshots(profileId).length;
    const balancesBefore = store.balances(profileId, cold.snapshotId);
    const t0 = performance.now();
    const warm = await engine.run();
    measured.warm = Math.round(performance.now() - t0);
    expect(rpc.n('getaddressinfo')).toBe(0);
    expect(rpc.n('listreceivedbyaddress')).toBe(1);
    // The wallet reports the same state: the node's unspent outputs are not asked again.
    expect(rpc.n('getwalletinfo')).toBe(2); // before and after listreceivedbyaddress: the state the rows are exact at
    expect(rpc.n('listunspent')).toBe(0);
    expect(warm.spendCheck).toBe('reused');
    expect(index.lookups).toEqual([]);
    expect(warm.fetched).toEqual([]);
    expect(warm.unchanged).toBe(true);
    expect(warm.previousId).toBe(cold.snapshotId);
    expect(warm.snapshotId).toBe(cold.snapshotId);
    expect(warm.counts).toMatchObject({ infosFetched: 0, utxoLookups: 0, carriedForward: cold.counts.addresses });
    expect(warm.diff).toEqual({ newUtxos: 0, newSats: 0n, spentUtxos: 0, spentSats: 0n, newTxids: 0 });
    // No UTXO row and no snapshot row written: the history holds no identical snapshot.
    expect(countRows()).toBe(rowsBefore);
    expect(store.listSnapshots(profileId)).toHaveLength(snapshotsBefore);
    expect(store.history(profileId)).toHaveLength(1);
    // The latest snapshot tells when it was last checked ("offline — as of <time>").
    expect(store.latestSnapshot(profileId)).toMatchObject({ id: cold.snapshotId, takenAt: warm.takenAt, node: warm.node, index: warm.index });
    expect(store.balances(profileId, warm.snapshotId)).toEqual(balancesBefore);
    expect(store.fetchStates(warm.snapshotId).get(userAddresses[0]!)?.state).toBe('fetched');
    await expectSnapshotMatchesTruth(warm);
  });

  it('after a block, the next refresh with nothing changed writes no snapshot; a failure in between makes it write one', async () => {
    // A block to an address nobody watches: the index tip moves, so the user addresses are looked up
    // (a new snapshot); the refresh after it has nothing to do.
    await mine(1);
    const moved = await engine.run();
    expect(moved.unchanged).toBe(false);
    expect(moved.fetched).toEqual(expect.arrayContaining(userAddresses)); // (and any mempool receive the block confirmed)
    const countRows = (): number => db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM snapshot_utxos').get()!.n;
    const rowsBefore = countRows();
    const again = await engine.run();
    expect(again).toMatchObject({ unchanged: true, snapshotId: moved.snapshotId, previousId: moved.snapshotId, fetched: [] });
    expect(countRows()).toBe(rowsBefore);
    await expectSnapshotMatchesTruth(again);

    // A failure after the latest snapshot: the next refresh writes a new snapshot, so that the failure
    // stays before a later good snapshot instead of after an updated one.
    store.recordFailure(profileId, { takenAt: new Date().toISOString(), step: 'received', code: 'net.refused', message: 'test' });
    const after = await engine.run();
    expect(after.unchanged).toBe(false);
    expect(after.snapshotId).toBeGreaterThan(moved.snapshotId);
    expect(store.lastAttempt(profileId)?.id).toBe(after.snapshotId);
    await expectSnapshotMatchesTruth(after);
  });

  it('a payment to a watched address, a spend from watched addresses and a block: only the changed addresses are fetched; the diff is right', async () => {
    const before = { received: await nodeReceived(), prev: store.latestSnapshot(profileId)! };
    const watched = [...before.received.keys()];
    const beforeTruth = truthUtxos([...watched, ...userAddresses]);

    // A payment from the devnet's funded wallet to a watched address with coins already.
    const payee = watched.find((a) => (beforeTruth.get(a)?.length ?? 0) > 0 && before.received.get(a)!.confirmations > 0)!;
    const payment = await testRpc.call<string>('sendtoaddress', [payee, 0.777], 'miner');
    // The hot wallet (it holds the keys of the watched addresses) spends more than half of its coins.
    const hotCoins = await testRpc.call<Array<{ amount: number }>>('listunspent', [1], 'hot');
    const hotTotal = hotCoins.reduce((s, c) => s + btcNumberToSats(c.amount), 0n);
    const spend = await testRpc.call<string>('sendtoaddress', [await testRpc.call<string>('getnewaddress', [], 'other'), formatBtc((hotTotal * 6n) / 10n)], 'hot');
    await mine(1);

    rpc.reset();
    index.lookups.length = 0;
    const t0 = performance.now();
    const next = await engine.run();
    measured.afterBlock = Math.round(performance.now() - t0);

    // Which addresses changed, worked out here: the node's numbers, or the truth's UTXO set.
    const after = await nodeReceived();
    // The spend's change is a new node address (and a spent change address leaves the list).
    const both = [...new Set([...watched, ...after.keys()])];
    const afterTruth = truthUtxos([...both, ...userAddresses]);
    const pending = (n: NodeReceived): boolean => n.confirmations === 0 && n.txids.length > 0;
    const changed = new Set<string>(userAddresses); // the index tip moved
    for (const a of both) {
      const b = before.received.get(a);
      const n = after.get(a);
      if (b === undefined || n === undefined) {
        if (n !== undefined) changed.add(a);
        continue;
      }
      const sameUtxos = JSON.stringify((beforeTruth.get(a) ?? []).map(key).sort()) === JSON.stringify(afterTruth.get(a)!.map(key).sort());
      if (b.amountSats !== n.amountSats || [...b.txids].sort().join() !== [...n.txids].sort().join() || pending(b) !== pending(n) || !sameUtxos) changed.add(a);
    }
    expect(changed.has(payee)).toBe(true);
    expect(changed.size).toBeLessThan(watched.length / 2);
    expect(new Set(next.fetched)).toEqual(changed);
    expect(new Set(index.lookups)).toEqual(changed);
    const fresh = [...after.keys()].filter((a) => !before.received.has(a));
    expect(fresh.length).toBeGreaterThan(0); // the spend's change address
    expect(rpc.n('getaddressinfo')).toBe(fresh.length); // asked only for the new ones
    await expectSnapshotMatchesTruth(next);

    // The diff: exactly the UTXOs that appeared and disappeared, and the new transactions.
    const b = flatten(beforeTruth);
    const a = flatten(afterTruth);
    const appeared = [...a.keys()].filter((k) => !b.has(k)).sort();
    const gone = [...b.keys()].filter((k) => !a.has(k)).sort();
    const d = store.diff(before.prev.id, next.snapshotId);
    expect(d.newUtxos.map(key).sort()).toEqual(appeared);
    expect(d.spentUtxos.map(key).sort()).toEqual(gone);
    expect(gone.length).toBeGreaterThan(0); // the hot wallet's spend took watched coins
    expect(d.newUtxos.find((u) => u.txid === payment)).toMatchObject({ address: payee, amountSats: 77_700_000n, confirmations: 1 });
    for (const u of d.spentUtxos) expect(devnet.node.chain.spenders(u.txid, u.vout).map((s) => s.txid)).toContain(spend);
    expect(d.newTxids).toContain(payment);
    expect(next.diff).toMatchObject({ newUtxos: appeared.length, spentUtxos: gone.length, newTxids: d.newTxids.length });
    expect(next.diff.spentSats).toBe(d.spentUtxos.reduce((s, u) => s + u.amountSats, 0n));

    // Without the spend check, the spent coins of an address whose node numbers did not move would stay.
    const onlySpent = gone.map((k) => b.get(k)!.address).filter((addr) => {
      const x = before.received.get(addr);
      const y = after.get(addr);
      return x !== undefined && y !== undefined && x.amountSats === y.amountSats && x.txids.join() === y.txids.join() && pending(x) === pending(y);
    });
    expect(onlySpent.length).toBeGreaterThan(0);
  });

  it('a spend from a watched address still in the mempool (no block): the wallet txcount moved, so listunspent is asked and the coin leaves the balance', async () => {
    const prev = store.latestSnapshot(profileId)!;
    // The hot wallet (it holds the keys of watched addresses) pays someone; the spend stays in the mempool.
    const spendTxid = await testRpc.call<string>('sendtoaddress', [await testRpc.call<string>('getnewaddress', [], 'other'), 0.1], 'hot');
    const spent = devnet.node.chain
      .findTx(spendTxid)!
      .tx.vin.map((i) => ({ txid: i.txid, vout: i.vout, address: encodeDestination(extractDestination(devnet.node.chain.output(i.txid, i.vout)!.script)!, devnet.node.network) }))
      .filter((c) => store.utxos(profileId, c.address).some((u) => u.txid === c.txid && u.vout === c.vout));
    expect(spent.length).toBeGreaterThan(0); // coins of the latest snapshot
    expect(devnet.node.chain.tip().hash).toBe(prev.node!.hash); // no block

    rpc.reset();
    index.lookups.length = 0;
    const r = await engine.run();
    expect(r.spendCheck).toBe('listunspent');
    expect(rpc.n('listunspent')).toBe(1);
    expect(r.unchanged).toBe(false);
    for (const c of spent) {
      expect(index.lookups).toContain(c.address);
      expect(store.utxos(profileId, c.address).some((u) => u.txid === c.txid && u.vout === c.vout)).toBe(false);
    }
    await expectSnapshotMatchesTruth(r);

    // Nothing new since: the state recorded with that snapshot matches, so listunspent is not asked.
    rpc.reset();
    const again = await engine.run();
    expect(again).toMatchObject({ unchanged: true, spendCheck: 'reused' });
    expect(rpc.n('listunspent')).toBe(0);
  });

  it('a node whose getwalletinfo is missing (or lacks txcount/lastprocessedblock) gets listunspent on every refresh', async () => {
    class NoWalletInfo extends CountingRpc {
      override call<T = unknown>(method: string, params?: unknown[] | Record<string, unknown>, opts?: CallOptions): Promise<T> {
        if (method === 'getwalletinfo') return Promise.reject(new AppError('rpc.method_not_found', 'Method not found'));
        return super.call<T>(method, params, opts);
      }
    }
    class OldWalletInfo extends CountingRpc {
      override async call<T = unknown>(method: string, params?: unknown[] | Record<string, unknown>, opts?: CallOptions): Promise<T> {
        const r = await super.call<T>(method, params, opts);
        if (method !== 'getwalletinfo') return r;
        const { lastprocessedblock: _drop, ...rest } = r as Record<string, unknown>;
        return rest as T;
      }
    }
    for (const wrapped of [new NoWalletInfo(rpcClient), new OldWalletInfo(rpcClient)]) {
      const e = newEngine({ rpc: wrapped });
      for (let i = 0; i < 2; i++) {
        wrapped.reset();
        const r = await e.run();
        expect(r.spendCheck).toBe('listunspent');
        expect(wrapped.n('listunspent')).toBe(1);
        expect(store.latestSnapshot(profileId)?.walletState).toBeNull();
        await expectSnapshotMatchesTruth(r);
      }
    }
    // The next refresh with getwalletinfo records the state again; the one after reuses the digests.
    rpc.reset();
    expect((await engine.run()).spendCheck).toBe('listunspent');
    expect((await engine.run()).spendCheck).toBe('reused');
  });

  it('the index fails during the lookups (HTTP 500) → index.http; the latest good snapshot stays; the failure names the step', async () => {
    // Pending before the block (the last test's change, 0-conf): confirmed by it, so looked up again too.
    const pendingBefore = [...(await nodeReceived())].filter(([, n]) => n.confirmations === 0 && n.txids.length > 0).map(([a]) => a);
    await mine(1); // the index tip moves: the user addresses must be looked up again
    const latest = store.latestSnapshot(profileId)!;
    // Every 2nd index request fails: the tip (1st) passes, the first lookup (2nd) gets a 500.
    devnet.setFaults('index', { mode: 'http500', every: 2 });
    try {
      const err = await rejection(engine.run());
      expect(err.code).toBe('index.http');
      expect(err.message).toMatch(/HTTP 500/);
    } finally {
      devnet.setFaults('index', {});
    }
    expect(store.latestSnapshot(profileId)).toEqual(latest);
    expect(store.lastAttempt(profileId)).toMatchObject({ status: 'failed', failedStep: 'utxos', errorCode: 'index.http', node: { height: devnet.node.chain.tipHeight() } });
    expect(store.lastAttempt(profileId)!.errorMessage).toMatch(/HTTP 500/);

    // The next refresh does the lookups the failed one could not.
    index.lookups.length = 0;
    const again = await engine.run();
    expect(again.previousId).toBe(latest.id);
    expect(new Set(again.fetched)).toEqual(new Set([...userAddresses, ...pendingBefore]));
    await expectSnapshotMatchesTruth(again);
  });

  it('the index rate-limits the lookups (429 beyond what the client waits for) → index.rate_limited at "utxos"', async () => {
    await mine(1);
    const latest = store.latestSnapshot(profileId)!;
    // One request per 30 s window: the tip passes, the lookups get 429 with Ratelimit-Reset far beyond
    // what this client is willing to wait (maxRetryAfterMs 100 ms).
    const impatient = new IndexClient({ url: devnet.indexUrl, baseDelayMs: 5, maxRetryAfterMs: 100 });
    devnet.setFaults('index', { rateLimit: { limit: 1, windowSeconds: 30 } });
    try {
      const err = await rejection(newEngine({ index: impatient }).run());
      expect(err.code).toBe('index.rate_limited');
    } finally {
      devnet.setFaults('index', {});
      impatient.close();
    }
    expect(store.latestSnapshot(profileId)).toEqual(latest);
    expect(store.lastAttempt(profileId)).toMatchObject({ status: 'failed', failedStep: 'utxos', errorCode: 'index.rate_limited' });
    await expectSnapshotMatchesTruth(await engine.run());
  });

  it('cancelled during the lookups → cancelled, and nothing is written', async () => {
    await mine(1);
    const rows = store.listSnapshots(profileId).length;
    const latest = store.latestSnapshot(profileId);
    devnet.setFaults('index', { latencyMs: 300 });
    const ac = new AbortController();
    try {
      const err = await rejection(
        engine.run({
          signal: ac.signal,
          onProgress: (p) => {
            if (p.phase === 'utxos') ac.abort();
          },
        }),
      );
      expect(err.code).toBe('cancelled');
    } finally {
      devnet.setFaults('index', {});
    }
    expect(engine.running).toBe(false);
    expect(store.listSnapshots(profileId)).toHaveLength(rows);
    expect(store.latestSnapshot(profileId)).toEqual(latest);

    // Cancelled before it starts: the same.
    const ac2 = new AbortController();
    ac2.abort();
    expect((await rejection(engine.run({ signal: ac2.signal }))).code).toBe('cancelled');
    expect(store.listSnapshots(profileId)).toHaveLength(rows);
  });

  it('the node is down → net.refused, recorded at step "received"', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const down = new RpcClient({ url: `http://127.0.0.1:${port}`, auth: devnet.auth, wallet: 'watch' });
    try {
      const latest = store.latestSnapshot(profileId);
      const err = await rejection(newEngine({ rpc: down }).run());
      expect(err.code).toBe('net.refused');
      expect(store.latestSnapshot(profileId)).toEqual(latest);
      expect(store.lastAttempt(profileId)).toMatchObject({ status: 'failed', failedStep: 'received', errorCode: 'net.refused', node: null, index: null });
    } finally {
      down.close();
    }
  });

  it('one refresh at a time: a second run() while one is going gets the same promise', async () => {
    const first = engine.run();
    const second = engine.run();
    expect(second).toBe(first);
    expect(engine.running).toBe(true);
    const r = await first;
    expect(engine.running).toBe(false);
    await expectSnapshotMatchesTruth(r);
    expect(engine.run()).not.toBe(first);
    await engine.run();
  });

  it('an address the index refuses is marked failed (partial snapshot, previous UTXOs kept) and asked again next time', async () => {
    const bad = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt081'; // bad checksum: the devnet index answers 400
    store.addAddresses(profileId, [bad]);
    userAddresses.push(bad);
    try {
      const r = await engine.run();
      expect(r.status).toBe('partial');
      expect(r.counts.utxoFailures).toBe(1);
      expect(store.fetchStates(r.snapshotId).get(bad)).toMatchObject({ state: 'failed', errorCode: 'index.invalid', fetchedAt: null });
      expect(store.latestSnapshot(profileId)?.id).toBe(r.snapshotId);
      index.lookups.length = 0;
      const again = await engine.run();
      expect(again.fetched).toEqual([bad]);
      expect(again.status).toBe('partial');
    } finally {
      store.removeAddresses(profileId, [bad]);
      userAddresses.pop();
    }
  });

  it('after steps that handled many replies the engine releases memory; a release that throws does not fail the refresh', async () => {
    let released = 0;
    await mine(1); // something to do: the index tip moved
    const r = await newEngine({ releaseMemory: () => released++, releaseAfter: 2 }).run();
    expect(r.unchanged).toBe(false);
    // received (+ listunspent), the lookups (the user addresses at least), and the end of the refresh
    expect(released).toBeGreaterThanOrEqual(3);
    released = 0;
    await newEngine({ releaseMemory: () => released++ }).run(); // default threshold: 2,000 replies; demo has fewer
    expect(released).toBe(0);
    await mine(1);
    const after = await newEngine({
      releaseMemory: () => {
        throw new Error('no gc here');
      },
      releaseAfter: 1,
    }).run();
    expect(after.status).toBe('ok');
    await expectSnapshotMatchesTruth(after);
  });

  it('index transaction records are fetched on demand and cached', async () => {
    const txid = store.utxos(profileId, userAddresses[0]!)[0]!.txid;
    const first = await engine.transaction(txid);
    expect(first.fromCache).toBe(false);
    expect(first.tx.txId).toBe(txid);
    expect(first.tx.blockHeight).not.toBeNull();
    const second = await engine.transaction(txid.toUpperCase());
    expect(second).toEqual({ ...first, fromCache: true });
    expect(second.tx.vOut.map((o) => o.value)).toEqual(first.tx.vOut.map((o) => o.value));
    expect(typeof second.tx.vOut[0]!.value).toBe('bigint');
  });
});
