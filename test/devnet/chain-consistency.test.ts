/**
 * Self-consistency of the devnet's one chain as seen through both interfaces, over real HTTP:
 * recomputed block hashes, txids and wtxids match; proof of work, BIP34 heights and the regtest
 * subsidy hold; every merkleProof verifies against its block's merkle root; fee = inputs − outputs;
 * the index's UTXO set equals the chain's unspent outputs; every address the node reports received
 * funds for has matching index transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { startDevnet, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';

const sha256d = (b: Uint8Array): Uint8Array => sha256(sha256(b));
const rev = (b: Uint8Array): string => Buffer.from(Uint8Array.from(b).reverse()).toString('hex');
const internal = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex')).reverse();

/** Strips the witness from a serialized transaction (BIP144), for txid recomputation. */
function stripWitness(raw: Uint8Array): Uint8Array {
  if (raw[4] !== 0 || raw[5] !== 1) return raw;
  let p = 6;
  const cs = (): number => {
    const f = raw[p]!;
    p++;
    if (f < 0xfd) return f;
    const n = f === 0xfd ? 2 : f === 0xfe ? 4 : 8;
    let v = 0;
    for (let i = 0; i < n; i++) v += raw[p + i]! * 2 ** (8 * i);
    p += n;
    return v;
  };
  const nIn = cs();
  // (read the length before advancing: `p += cs()` would use p's value from before cs() moved it)
  for (let i = 0; i < nIn; i++) {
    p += 36;
    const len = cs();
    p += len + 4;
  }
  const nOut = cs();
  for (let i = 0; i < nOut; i++) {
    p += 8;
    const len = cs();
    p += len;
  }
  const end = p;
  return Uint8Array.from([...raw.subarray(0, 4), ...raw.subarray(6, end), ...raw.subarray(raw.length - 4)]);
}

function merkleRootOf(txids: string[]): string {
  let level = txids.map(internal);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Uint8Array.from([...level[i]!, ...(level[i + 1] ?? level[i]!)])));
    level = next;
  }
  return rev(level[0]!);
}

function verifyProof(txid: string, index: number, proof: string, root: string): boolean {
  let h = internal(txid);
  const bytes = base64.decode(proof);
  for (let off = 0; off < bytes.length; off += 32) {
    const sib = bytes.subarray(off, off + 32);
    h = index % 2 === 1 ? sha256d(Uint8Array.from([...sib, ...h])) : sha256d(Uint8Array.from([...h, ...sib]));
    index = Math.floor(index / 2);
  }
  return rev(h) === root;
}

interface Envelope<T> {
  data: T;
  time: number;
}
type Rec = Record<string, unknown>;

let devnet: Devnet;
let rpc: TestRpc;
const get = async <T = Rec>(path: string): Promise<T> => {
  const res = await fetch(`${devnet.indexUrl}/v1/blockchain/${path}`, { headers: { 'Content-Type': 'application/json' } });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as Envelope<T>).data;
};

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', seed: 'consistency', rpcUser: 'u', rpcPassword: 'p' });
  rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
}, 120_000);
afterAll(async () => {
  await devnet?.close();
});

describe('one chain, two interfaces', () => {
  it('blocks: hashes, links, proof of work, merkle roots, BIP34 heights, subsidy', async () => {
    const height = await rpc.call<number>('getblockcount');
    expect(height).toBeGreaterThanOrEqual(200);
    let prev = '0'.repeat(64);
    for (let h = 0; h <= height; h++) {
      const b = await get(`block/${h}`);
      const header = base64.decode(b.header as string);
      expect(rev(sha256d(header.subarray(0, 80)))).toBe(b.hash);
      expect(await rpc.call('getblockhash', [h])).toBe(b.hash);
      expect(b.previousBlockHash ?? prev).toBe(prev);
      expect(BigInt(`0x${b.hash as string}`) <= BigInt(`0x${b.target as string}`)).toBe(true);
      expect(header[80]).toBe(b.transactionsCount);
      expect(b.weight).toBe(3 * (b.strippedSize as number) + (b.size as number));
      const ids = await blockTxids(h, b);
      expect(merkleRootOf(ids)).toBe(b.merkleRoot);
      if (h > 0) {
        const coinbase = Buffer.from(b.coinbase as string, 'hex');
        const push = h <= 16 ? [0x50 + h] : encodeHeight(h);
        expect([...coinbase.subarray(0, push.length)], `BIP34 height of ${h}`).toEqual(push);
        expect(b.estimatedBlockReward).toBe(Number((5_000_000_000n >> BigInt(Math.floor(h / 150)))));
      }
      prev = b.hash as string;
    }
  });

  it('transactions: txid/wtxid recompute, merkle proofs verify, fee = inputs − outputs', async () => {
    const height = await rpc.call<number>('getblockcount');
    let checked = 0;
    for (let h = 0; h <= height; h++) {
      const b = await get(`block/${h}`);
      const ids = await blockTxids(h, b);
      for (let i = 0; i < ids.length; i++) {
        if (h === 0) continue; // the genesis coinbase is not in the index (as in Core: unspendable)
        const t = await get(`transaction/${ids[i]}?raw_tx=1`);
        const raw = base64.decode(t.rawTx as string);
        expect(rev(sha256d(stripWitness(raw)))).toBe(t.txId);
        expect(rev(sha256d(raw)) === t.hash || (!t.segwit && t.hash === t.txId)).toBe(true);
        expect(verifyProof(t.txId as string, t.blockIndex as number, t.merkleProof as string, b.merkleRoot as string)).toBe(true);
        const vin = Object.values(t.vIn as Record<string, Rec>);
        const vout = Object.values(t.vOut as Record<string, Rec>);
        const outSum = vout.reduce((s, o) => s + (o.value as number), 0);
        expect(t.amount).toBe(outSum);
        if (!t.coinbase) {
          const inSum = vin.reduce((s, x) => s + (x.amount as number), 0);
          expect(t.inputsAmount).toBe(inSum);
          expect(t.fee).toBe(inSum - outSum);
          expect(t.fee as number).toBeGreaterThan(0);
        }
        expect(t.weight).toBe(3 * (t.bSize as number) + (t.size as number));
        expect(t.vSize).toBe(Math.ceil((t.weight as number) / 4));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(250);
  });

  it('the index UTXO set equals the unspent outputs of the chain', async () => {
    const chain = devnet.node.chain;
    const created = new Map<string, { address: string; spent: boolean; confirmed: boolean }>();
    const addresses = new Set<string>();
    for (let h = 1; h <= chain.tipHeight(); h++) {
      for (const id of await blockTxids(h, await get(`block/${h}`))) {
        const t = await get(`transaction/${id}`);
        for (const [n, o] of Object.entries(t.vOut as Record<string, Rec>)) {
          if (typeof o.address !== 'string') continue;
          addresses.add(o.address);
          created.set(`${id}:${n}`, { address: o.address, spent: (o.spent as unknown[]).length > 0, confirmed: true });
        }
      }
    }
    let compared = 0;
    for (const address of addresses) {
      const utxos = await get<Array<{ txId: string; vOut: number; amount: number }>>(`address/utxo/${address}`);
      const fromIndex = new Set(utxos.map((u) => `${u.txId}:${u.vOut}`));
      const fromChain = new Set([...created].filter(([, v]) => v.address === address && !v.spent).map(([k]) => k));
      expect([...fromIndex].sort(), address).toEqual([...fromChain].sort());
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('every address the node reports received funds for has matching index transactions', async () => {
    const rows = await rpc.call<Array<{ address: string; amount: number; txids: string[] }>>('listreceivedbyaddress', [1, false], 'watch');
    expect(rows.length).toBeGreaterThan(30);
    for (const row of rows) {
      let sum = 0;
      for (const txid of new Set(row.txids)) {
        const t = await get(`transaction/${txid}`);
        const paid = Object.values(t.vOut as Record<string, Rec>).filter((o) => o.address === row.address);
        expect(paid.length, `${txid} pays ${row.address}`).toBeGreaterThan(0);
        sum += paid.reduce((s, o) => s + (o.value as number), 0);
      }
      expect(sum).toBe(Math.round(row.amount * 1e8));
    }
  });

  it('mempool transactions are served unconfirmed by the index and at depth 0 by the node', async () => {
    const mempool = devnet.node.chain.mempoolTxs();
    expect(mempool.length).toBeGreaterThanOrEqual(2);
    for (const tx of mempool) {
      const t = await get(`transaction/${tx.txid}`);
      expect(t.blockHeight).toBeNull();
      expect(t.confirmations).toBeNull();
      expect('merkleProof' in t).toBe(false);
      expect(typeof t.mempoolRank).toBe('number');
    }
    const rows = await rpc.call<Array<{ confirmations: number }>>('listreceivedbyaddress', [0, false], 'watch');
    expect(rows.some((r) => r.confirmations === 0)).toBe(true);
  });

  it('confirmations move as blocks are mined', async () => {
    const before = await get('block/1');
    const addr = await rpc.call<string>('getnewaddress', [], 'miner');
    await rpc.call('generatetoaddress', [2, addr]);
    const after = await get('block/1');
    expect(after.confirmations).toBe((before.confirmations as number) + 2);
    expect(devnet.node.chain.mempoolTxs().length).toBe(0);
  });
});

function encodeHeight(h: number): number[] {
  const bytes: number[] = [];
  let v = h;
  while (v > 0) {
    bytes.push(v & 0xff);
    v >>= 8;
  }
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(0);
  return [bytes.length, ...bytes];
}

/** Txids of a block, via the index's position pointer `<height>:<index>`. */
async function blockTxids(h: number, b: Rec): Promise<string[]> {
  if (h === 0) return ['4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b'];
  const ids: string[] = [];
  for (let i = 0; i < (b.transactionsCount as number); i++) ids.push(((await get(`transaction/${h}:${i}`)) as Rec).txId as string);
  return ids;
}

describe('index replies have the key sets and types of the real server samples', () => {
  const keysAndTypes = (o: Record<string, unknown>): Array<[string, string]> =>
    Object.entries(o).map(([k, v]) => [k, v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v]);
  // Fields that the real server sends as null in some states (spec 2 and 3.4).
  const nullable = new Set(['miner', 'nextBlockHash', 'data']);
  const compatible = (ours: Array<[string, string]>, sample: Array<[string, string]>): void => {
    expect(ours.map(([k]) => k).sort()).toEqual(sample.map(([k]) => k).sort());
    const types = new Map(sample);
    for (const [k, t] of ours) if (!(nullable.has(k) && (t === 'null' || types.get(k) === 'null'))) expect(t, k).toBe(types.get(k));
  };

  it('block, confirmed segwit transaction (inputs and outputs) and utxo list', async () => {
    const { indexSample } = await import('../fixtures');
    const sBlock = (indexSample('bgl_block_37258.json') as Envelope<Rec>).data;
    const sTx = (indexSample('bgl_transaction_b68b5080.json') as Envelope<Rec>).data;
    const sUtxo = (indexSample('bgl_address_utxo_bgl1qt3jeum.json') as Envelope<Rec[]>).data;
    compatible(keysAndTypes(await get('block/150')), keysAndTypes(sBlock));
    // a confirmed segwit spend with a P2WPKH input, like the sample
    const chain = devnet.node.chain;
    let found: Rec | undefined;
    for (let h = 120; h <= chain.tipHeight() && !found; h++) {
      for (const tx of chain.blockAt(h)!.txs) {
        if (tx.coinbase || !tx.segwit) continue;
        const t = await get(`transaction/${tx.txid}`);
        const vin0 = (t.vIn as Record<string, Rec>)['0']!;
        if (vin0.type === 'P2WPKH') {
          found = t;
          break;
        }
      }
    }
    expect(found).toBeDefined();
    compatible(keysAndTypes(found!), keysAndTypes(sTx));
    const sIn = (sTx.vIn as Record<string, Rec>)['0']!;
    const sOut = (sTx.vOut as Record<string, Rec>)['0']!;
    compatible(keysAndTypes((found!.vIn as Record<string, Rec>)['0']!), keysAndTypes(sIn));
    for (const o of Object.values(found!.vOut as Record<string, Rec>)) {
      if (o.type === 'P2WPKH') compatible(keysAndTypes(o), keysAndTypes(sOut));
    }
    const watch = [...devnet.node.wallets.get('watch')!.addressBook.keys()].find((a) => a.startsWith('bcrt1q') && a.length < 50)!;
    const utxos = await get<Rec[]>(`address/utxo/${watch}`);
    expect(utxos.length).toBeGreaterThan(0);
    for (const u of utxos) compatible(keysAndTypes(u), keysAndTypes(sUtxo[0]!));
  });
});
