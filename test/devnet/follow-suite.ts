/**
 * Checks of the index follower (devnet/follow) that run against any Bitcoin Core–compatible regtest
 * node: the devnet (follow.test.ts) or a real `bitcoind -regtest` (follow-bitcoind.test.ts, when
 * BITCOIND_URL is set). The truth is read from the node's own RPC (getblock verbosity 3, the
 * mempool) and compared with the follower's index replies over HTTP: every block record, every
 * transaction record (inputs with their prevouts, outputs with their spenders, fee, position), the
 * mempool, and address UTXO lists; then new blocks, a payment (mempool first, then confirmed) and
 * a reorg.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import type { RunningFollower } from '../../devnet/index';
import type { TestRpc } from '../support/rpc';

export const sats = (btc: number): number => Math.round(btc * 1e8);

export interface IndexReply {
  status: number;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

export async function indexGet(indexUrl: string, path: string): Promise<IndexReply> {
  const res = await fetch(`${indexUrl}/v1/blockchain/${path}`);
  const body = await res.text();
  let data: unknown = null;
  try {
    data = (JSON.parse(body) as { data?: unknown }).data ?? null;
  } catch {
    data = null;
  }
  return { status: res.status, body, data };
}

/** Polls `fn` until it returns something truthy; the limit is a hang guard (60 s, as expect.poll), never a speed check. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ------------------------------------------------------------------ the node's truth (Core RPC)

interface CoreScript {
  hex: string;
  address?: string;
  type: string;
}
interface CoreVin {
  coinbase?: string;
  txid?: string;
  vout?: number;
  sequence: number;
  txinwitness?: string[];
  prevout?: { generated: boolean; height: number; value: number; scriptPubKey: CoreScript };
}
export interface CoreTx {
  txid: string;
  hash: string;
  version: number;
  size: number;
  vsize: number;
  weight: number;
  locktime: number;
  vin: CoreVin[];
  vout: { value: number; n: number; scriptPubKey: CoreScript }[];
  fee?: number;
  hex: string;
}
export interface CoreBlock {
  hash: string;
  confirmations: number;
  height: number;
  version: number;
  merkleroot: string;
  time: number;
  mediantime: number;
  nonce: number;
  bits: string;
  target: string;
  nTx: number;
  previousblockhash?: string;
  nextblockhash?: string;
  strippedsize: number;
  size: number;
  weight: number;
  tx: CoreTx[];
}
interface MempoolEntry {
  time: number;
  fees: { base: number };
}

interface Out {
  value: number;
  script: string;
  address?: string;
  height: number | null;
  txIndex: number | null;
}

export interface NodeChain {
  tip: number;
  from: number;
  blocks: CoreBlock[];
  mempool: Map<string, { entry: MempoolEntry; tx: CoreTx }>;
  /** Outputs created at heights ≥ from and in the mempool. */
  outputs: Map<string, Out>;
  /** Spenders of any output, from blocks ≥ from (confirmed) and the mempool. */
  spenders: Map<string, { txid: string; vin: number; confirmed: boolean }[]>;
  /** Where each transaction of the window is. */
  txAt: Map<string, { height: number; index: number }>;
}

/** Reads heights from..tip with getblock verbosity 3 and the mempool. Retries if the tip moves meanwhile. */
export async function readNode(rpc: TestRpc, from: number): Promise<NodeChain> {
  for (;;) {
    const best = await rpc.call<string>('getbestblockhash');
    const tip = await rpc.call<number>('getblockcount');
    const blocks: CoreBlock[] = [];
    for (let h = Math.max(0, from); h <= tip; h++) {
      const hash = await rpc.call<string>('getblockhash', [h]);
      blocks.push(await rpc.call<CoreBlock>('getblock', [hash, 3]));
    }
    const mempool = new Map<string, { entry: MempoolEntry; tx: CoreTx }>();
    const verbose = await rpc.call<Record<string, MempoolEntry>>('getrawmempool', [true]);
    for (const [txid, entry] of Object.entries(verbose)) {
      try {
        mempool.set(txid, { entry, tx: await rpc.call<CoreTx>('getrawtransaction', [txid, true]) });
      } catch {
        // left the mempool meanwhile; the tip check below retries
      }
    }
    if ((await rpc.call<string>('getbestblockhash')) !== best) continue;
    const outputs = new Map<string, Out>();
    const spenders = new Map<string, { txid: string; vin: number; confirmed: boolean }[]>();
    const txAt = new Map<string, { height: number; index: number }>();
    const addSpender = (k: string, s: { txid: string; vin: number; confirmed: boolean }): void => {
      spenders.set(k, [...(spenders.get(k) ?? []), s]);
    };
    for (const b of blocks) {
      b.tx.forEach((tx, index) => {
        txAt.set(tx.txid, { height: b.height, index });
        tx.vout.forEach((o) => outputs.set(`${tx.txid}:${o.n}`, { value: sats(o.value), script: o.scriptPubKey.hex, address: o.scriptPubKey.address, height: b.height, txIndex: index }));
        tx.vin.forEach((i, n) => {
          if (i.txid !== undefined) addSpender(`${i.txid}:${i.vout}`, { txid: tx.txid, vin: n, confirmed: true });
        });
      });
    }
    for (const { tx } of mempool.values()) {
      tx.vout.forEach((o) => outputs.set(`${tx.txid}:${o.n}`, { value: sats(o.value), script: o.scriptPubKey.hex, address: o.scriptPubKey.address, height: null, txIndex: null }));
      tx.vin.forEach((i, n) => addSpender(`${i.txid}:${i.vout}`, { txid: tx.txid, vin: n, confirmed: false }));
    }
    return { tip, from: Math.max(0, from), blocks, mempool, outputs, spenders, txAt };
  }
}

const spentList = (node: NodeChain, txid: string, vout: number): { txId: string; vIn: number }[] => {
  const list = node.spenders.get(`${txid}:${vout}`) ?? [];
  return [...list.filter((s) => !s.confirmed), ...list.filter((s) => s.confirmed)].map((s) => ({ txId: s.txid, vIn: s.vin }));
};

/** The follower's transaction record against Core's view of the same tx. */
function checkTx(node: NodeChain, rec: Record<string, unknown> & { vIn: Record<string, Record<string, unknown>>; vOut: Record<string, Record<string, unknown>> }, tx: CoreTx, where: { block: CoreBlock; index: number } | null, mempoolEntry: MempoolEntry | null): void {
  const ctx = `tx ${tx.txid}`;
  expect(rec.txId, ctx).toBe(tx.txid);
  expect(rec.hash, ctx).toBe(tx.hash);
  expect(rec.version, ctx).toBe(tx.version >>> 0);
  expect([rec.size, rec.vSize, rec.weight, rec.lockTime], ctx).toEqual([tx.size, tx.vsize, tx.weight, tx.locktime]);
  const coinbase = tx.vin[0]?.coinbase !== undefined;
  expect(rec.coinbase, ctx).toBe(coinbase);
  expect(rec.amount, ctx).toBe(tx.vout.reduce((a, o) => a + sats(o.value), 0));
  if (where) {
    expect([rec.blockHash, rec.blockHeight, rec.blockIndex, rec.confirmations, rec.blockTime], ctx).toEqual([
      where.block.hash,
      where.block.height,
      where.index,
      node.tip - where.block.height + 1,
      where.block.time,
    ]);
    expect(typeof rec.merkleProof, ctx).toBe('string');
    if (coinbase) expect(rec.fee, ctx).toBe(0);
    else expect(rec.fee, ctx).toBe(sats(tx.fee!));
  } else {
    expect([rec.blockHash, rec.blockHeight, rec.blockIndex, rec.confirmations], ctx).toEqual([null, null, null, null]);
    expect(rec.time, ctx).toBe(mempoolEntry!.time);
    expect(rec.fee, ctx).toBe(sats(mempoolEntry!.fees.base));
    expect(typeof rec.mempoolRank, ctx).toBe('number');
  }
  let inputs = 0;
  tx.vin.forEach((vin, i) => {
    const r = rec.vIn[String(i)]!;
    expect(r.sequence, ctx).toBe(vin.sequence);
    if (coinbase) {
      expect(r.txId, ctx).toBe('0'.repeat(64));
      return;
    }
    expect([r.txId, r.vOut], ctx).toEqual([vin.txid, vin.vout]);
    // Prevouts: Core's undo data (blocks) or the outputs the window holds (mempool).
    const prev = vin.prevout
      ? { value: sats(vin.prevout.value), script: vin.prevout.scriptPubKey.hex, address: vin.prevout.scriptPubKey.address, height: vin.prevout.height as number | null }
      : node.outputs.get(`${vin.txid}:${vin.vout}`);
    if (!prev) return;
    inputs += prev.value;
    expect([r.amount, r.scriptPubKey, r.blockHeight], ctx).toEqual([prev.value, prev.script, prev.height]);
    if (prev.address !== undefined) expect(r.address, ctx).toBe(prev.address);
  });
  if (!coinbase && tx.vin.every((v) => v.prevout || node.outputs.has(`${v.txid}:${v.vout}`))) expect(rec.inputsAmount, ctx).toBe(inputs);
  tx.vout.forEach((o) => {
    const r = rec.vOut[String(o.n)]!;
    expect([r.value, r.scriptPubKey], ctx).toEqual([sats(o.value), o.scriptPubKey.hex]);
    if (o.scriptPubKey.address !== undefined) expect(r.address, ctx).toBe(o.scriptPubKey.address);
    expect(r.spent, `${ctx}:${o.n} spent`).toEqual(spentList(node, tx.txid, o.n));
  });
  expect(rec.valid, ctx).toBe(true);
}

export interface CheckCounts {
  blocks: number;
  txs: number;
  mempool: number;
  addresses: number;
}

/**
 * Compares the follower's index with the node's RPC: blocks and transactions of heights ≥ `from`,
 * the mempool, and the UTXOs of `addresses` (all of whose outputs must lie at heights ≥ from).
 */
export async function checkAgainstNode(rpc: TestRpc, indexUrl: string, from: number, addresses: readonly string[]): Promise<CheckCounts> {
  const node = await readNode(rpc, from);
  const last = await indexGet(indexUrl, 'block/last');
  expect(last.data?.hash, 'the follower is at the node tip').toBe(node.blocks[node.blocks.length - 1]!.hash);
  let txs = 0;
  for (const b of node.blocks) {
    const { status, data: rec } = await indexGet(indexUrl, `block/${b.height}`);
    expect(status, `block ${b.height}`).toBe(200);
    expect(rec).toMatchObject({
      height: b.height,
      hash: b.hash,
      previousBlockHash: b.previousblockhash ?? '0'.repeat(64),
      merkleRoot: b.merkleroot,
      version: b.version,
      bits: parseInt(b.bits, 16),
      bitsHex: b.bits,
      nonce: b.nonce,
      target: b.target,
      blockTime: b.time,
      medianBlockTime: b.mediantime,
      size: b.size,
      strippedSize: b.strippedsize,
      weight: b.weight,
      transactionsCount: b.nTx,
      confirmations: b.confirmations,
      nextBlockHash: b.nextblockhash ?? null,
      coinbase: b.tx[0]!.vin[0]!.coinbase,
      amount: b.tx.reduce((a, t) => a + t.vout.reduce((x, o) => x + sats(o.value), 0), 0),
    });
    expect((await indexGet(indexUrl, `block/${b.hash}`)).data?.height).toBe(b.height);
    for (let index = 0; index < b.tx.length; index++) {
      const tx = b.tx[index]!;
      const r = await indexGet(indexUrl, `transaction/${tx.txid}?raw_tx=True`);
      expect(r.status, `tx ${tx.txid}`).toBe(200);
      checkTx(node, r.data, tx, { block: b, index }, null);
      expect(Buffer.from(base64.decode(r.data.rawTx as string)).toString('hex'), `raw ${tx.txid}`).toBe(tx.hex);
      txs++;
    }
  }
  for (const [txid, { entry, tx }] of node.mempool) {
    const r = await indexGet(indexUrl, `transaction/${txid}`);
    expect(r.status, `mempool tx ${txid}`).toBe(200);
    checkTx(node, r.data, tx, null, entry);
  }
  for (const address of addresses) {
    const expected = [...node.outputs.entries()]
      .filter(([k, o]) => o.address === address && o.height !== null && (node.spenders.get(k) ?? []).length === 0)
      .map(([k, o]) => ({ txId: k.split(':')[0]!, vOut: Number(k.split(':')[1]), block: o.height!, txIndex: o.txIndex!, amount: o.value, ...(/^[mn]/.test(address) ? { type: 'P2PKH' } : {}) }))
      .sort((a, b) => a.block - b.block || a.txIndex - b.txIndex || a.vOut - b.vOut);
    const r = await indexGet(indexUrl, `address/utxo/${address}`);
    expect(r.status, address).toBe(200);
    expect(r.data, `utxo ${address}`).toEqual(expected);
  }
  return { blocks: node.blocks.length, txs, mempool: node.mempool.size, addresses: addresses.length };
}

// ------------------------------------------------------------------ the shared suite

export interface FollowTarget {
  /** The followed node (the same one the follower polls). */
  rpc: TestRpc;
  follower: RunningFollower;
  /** A wallet with spendable coins on that node. */
  wallet: string;
  /** First height to check against the node (0 on a fresh devnet; recent blocks on a long chain). */
  checkFrom: number;
  /** Addresses whose UTXO lists are checked (every output to them at heights ≥ checkFrom). */
  addresses: string[];
  /**
   * Replaces the node's last block(s) by a longer competing branch (invalidateblock, or another
   * node with the same history); `payTxid` is the payment confirmed in the node's tip block.
   * Returns the stale block hashes.
   */
  reorg(payTxid: string): Promise<{ stale: string[] }>;
  /** Extra checks after each step (the devnet compares with its own index). */
  afterStep?(step: 'synced' | 'mempool' | 'confirmed' | 'reorg'): Promise<void>;
  close(): Promise<void>;
}

export function defineFollowSuite(make: () => Promise<FollowTarget>): void {
  let t: FollowTarget;
  const state: { payAddress?: string; payTxid?: string; payHeight?: number } = {};

  beforeAll(async () => {
    t = await make();
  });
  afterAll(async () => {
    await t?.close();
  });

  const synced = async (): Promise<string> => {
    const best = await t.rpc.call<string>('getbestblockhash');
    await until(`the follower at ${best}`, async () => (await indexGet(t.follower.indexUrl, 'block/last')).data?.hash === best && t.follower.follower.status().synced);
    return best;
  };

  it('syncs to the node tip, and every block, transaction, mempool entry and UTXO list agrees with the node RPC', async () => {
    await synced();
    const counts = await checkAgainstNode(t.rpc, t.follower.indexUrl, t.checkFrom, t.addresses);
    expect(counts.blocks).toBeGreaterThan(0);
    expect(counts.txs).toBeGreaterThanOrEqual(counts.blocks);
    await t.afterStep?.('synced');
  });

  it('new blocks are indexed, and a payment shows in the mempool before it is mined', async () => {
    const miner = await t.rpc.call<string>('getnewaddress', [], t.wallet);
    const before = await t.rpc.call<number>('getblockcount');
    await t.rpc.call('generatetoaddress', [2, miner]);
    await synced();
    expect((await indexGet(t.follower.indexUrl, 'block/last')).data.height).toBe(before + 2);

    const payAddress = await t.rpc.call<string>('getnewaddress', ['follow', 'bech32'], t.wallet);
    const payTxid = await t.rpc.call<string>('sendtoaddress', [payAddress, 0.4321], t.wallet);
    const entry = await t.rpc.call<MempoolEntry>('getmempoolentry', [payTxid]);
    const rec = await until('the payment in the follower mempool', async () => {
      const r = await indexGet(t.follower.indexUrl, `transaction/${payTxid}`);
      return r.status === 200 ? r.data : null;
    });
    expect(rec.blockHash).toBeNull();
    expect(rec.time).toBe(entry.time);
    expect(rec.fee).toBe(sats(entry.fees.base));
    expect(Object.values(rec.vOut as Record<string, { address?: string; value: number }>).some((o) => o.address === payAddress && o.value === 43_210_000)).toBe(true);
    // Unconfirmed outputs are not in /address/utxo.
    expect((await indexGet(t.follower.indexUrl, `address/utxo/${payAddress}`)).data).toEqual([]);
    await synced();
    await t.afterStep?.('mempool');

    await t.rpc.call('generatetoaddress', [1, miner]);
    await synced();
    const confirmed = (await indexGet(t.follower.indexUrl, `transaction/${payTxid}`)).data;
    const height = await t.rpc.call<number>('getblockcount');
    expect(confirmed.blockHeight).toBe(height);
    expect(confirmed.time).toBe(entry.time); // first seen in the mempool, kept once confirmed
    const utxo = (await indexGet(t.follower.indexUrl, `address/utxo/${payAddress}`)).data as { txId: string; block: number; amount: number }[];
    expect(utxo).toEqual([expect.objectContaining({ txId: payTxid, block: height, amount: 43_210_000 })]);
    Object.assign(state, { payAddress, payTxid, payHeight: height });
    t.addresses.push(payAddress);
    await checkAgainstNode(t.rpc, t.follower.indexUrl, Math.max(t.checkFrom, height - 5), [payAddress]);
    await t.afterStep?.('confirmed');
  });

  it('a reorg: the stale blocks are dropped and the competing branch indexed', async () => {
    expect(state.payTxid, 'needs the previous test').toBeDefined();
    const { stale } = await t.reorg(state.payTxid!);
    expect(stale.length).toBeGreaterThan(0);
    await synced();
    for (const hash of stale) expect((await indexGet(t.follower.indexUrl, `block/${hash}`)).status, `stale ${hash}`).toBe(404);
    expect(t.follower.follower.status().reorgs).toBeGreaterThan(0);
    // Wherever the node has the payment now (new branch, mempool or nowhere), the index agrees.
    const node = await readNode(t.rpc, state.payHeight! - 3);
    const r = await indexGet(t.follower.indexUrl, `transaction/${state.payTxid}`);
    const at = node.txAt.get(state.payTxid!);
    if (at) expect(r.data.blockHash).toBe(node.blocks[at.height - node.from]!.hash);
    else if (node.mempool.has(state.payTxid!)) expect(r.data.blockHash).toBeNull();
    else expect(r.status).toBe(404);
    await checkAgainstNode(t.rpc, t.follower.indexUrl, Math.max(t.checkFrom, state.payHeight! - 5), [state.payAddress!]);
    await t.afterStep?.('reorg');
  });
}
