/**
 * The index follower (devnet/follow) against the devnet's own node, over real HTTP:
 * - the devnet node answers the RPCs the follower relies on (getblock 0–3, getblockheader,
 *   getrawmempool, getmempoolentry, gettxout, getrawtransaction) with Core v30's shapes;
 * - a follower of a `demo` devnet answers every block, every transaction (by txid and by position),
 *   the mempool and every address's UTXO list exactly as the devnet's own index does (the envelope
 *   `time` aside, and the first-seen `time` of historic transactions the follower never saw
 *   unconfirmed: a node does not keep it, so the follower reports the block time);
 * - the shared suite (follow-suite.ts): node RPC truth, new blocks, a payment through the mempool,
 *   and a reorg — made by switching the followed URL to a twin devnet (same seed, same history)
 *   that mined a longer branch, since the devnet node has no invalidateblock;
 * - cookie authentication, an unreachable node (logged, retried, recovered) and the CLI flags.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, startFollower, type Devnet, type RunningFollower } from '../../devnet/index';
import { parseArgs, parseCli } from '../../devnet/cli-args';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { REGTEST } from '../../shared/bitcoin/networks';
import { sha256d } from '../../shared/bitcoin/tx';
import { amountTokens, shapeOf, TestRpc } from '../support/rpc';
import { defineFollowSuite, indexGet, until, type FollowTarget, type IndexReply } from './follow-suite';

/** A switchable forwarder: the follower polls it; tests point it at one devnet or another, or "down". */
class Proxy {
  target: string | null;
  private server: Server | null = null;
  url = '';
  constructor(target: string) {
    this.target = target;
  }
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (!this.target) {
          req.socket.destroy();
          return;
        }
        void fetch(this.target + (req.url ?? '/'), {
          method: req.method,
          headers: { authorization: req.headers.authorization ?? '', 'content-type': 'text/plain' },
          body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
        })
          .then(async (r) => {
            const body = Buffer.from(await r.arrayBuffer());
            res.writeHead(r.status, { 'Content-Type': r.headers.get('content-type') ?? 'text/plain', 'Content-Length': String(body.length) });
            res.end(body);
          })
          .catch(() => req.socket.destroy());
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }
  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }
}

const addressOf = (script: Uint8Array): string | undefined => {
  const d = extractDestination(script);
  return d ? encodeDestination(d, REGTEST) : undefined;
};

/** Every address paid by an output of the devnet's chain or mempool, in first-seen order. */
function addressesOf(devnet: Devnet): string[] {
  const seen = new Set<string>();
  const chain = devnet.node.chain;
  const txs = [...chain.blocks.flatMap((b) => b.txs), ...chain.mempoolTxs()];
  for (const tx of txs) for (const o of tx.vout) {
    const a = addressOf(o.script);
    if (a) seen.add(a);
  }
  return [...seen];
}

/**
 * The follower's replies against the devnet's own index: every block (by height, hash and `last`),
 * every transaction (by txid with raw_tx, by height:index), the mempool, every address's UTXOs and a
 * few error replies. Data must be deep-equal except `time` of `historic` transactions (see above).
 */
async function compareWithOwnIndex(ref: Devnet, followerUrl: string, historic: ReadonlySet<string>): Promise<{ blocks: number; txs: number; addresses: number; historicTimes: number }> {
  const same = async (path: string): Promise<{ own: IndexReply; theirs: IndexReply }> => {
    const [own, theirs] = await Promise.all([indexGet(ref.indexUrl, path), indexGet(followerUrl, path)]);
    expect(theirs.status, path).toBe(own.status);
    return { own, theirs };
  };
  const chain = ref.node.chain;
  let txs = 0;
  let historicTimes = 0;
  for (let h = 0; h <= chain.tipHeight(); h++) {
    const block = chain.blockAt(h)!;
    for (const path of [`block/${h}`, `block/${block.hash}`]) {
      const { own, theirs } = await same(path);
      expect(theirs.data, path).toEqual(own.data);
    }
    for (let i = 0; i < block.txs.length; i++) {
      const tx = block.txs[i]!;
      const paths = [`transaction/${tx.txid}?raw_tx=True`, ...(i === block.txs.length - 1 ? [`transaction/${h}:${i}`] : [])];
      for (const path of paths) {
        const { own, theirs } = await same(path);
        if (historic.has(tx.txid) && !tx.coinbase && own.data.time !== theirs.data.time) {
          // A node keeps no first-seen time for confirmed transactions: the follower says the block time.
          expect(theirs.data.time, path).toBe(theirs.data.blockTime);
          expect(own.data.time, path).toBeLessThanOrEqual(own.data.blockTime);
          theirs.data.time = own.data.time;
          if (path.includes('raw_tx')) historicTimes++;
        }
        expect(theirs.data, path).toEqual(own.data);
      }
      txs++;
    }
  }
  const last = await same('block/last');
  expect(last.theirs.data).toEqual(last.own.data);
  for (const tx of chain.mempoolTxs()) {
    const { own, theirs } = await same(`transaction/${tx.txid}`);
    expect(theirs.data, `mempool ${tx.txid}`).toEqual(own.data);
    txs++;
  }
  const addresses = addressesOf(ref);
  for (const a of addresses) {
    const { own, theirs } = await same(`address/utxo/${a}`);
    expect(theirs.data, a).toEqual(own.data);
  }
  for (const path of ['block/999999', `block/${'ab'.repeat(32)}`, 'block/x', `transaction/${'cd'.repeat(32)}`, 'transaction/5:999', 'address/utxo/nope', 'nothing/here']) {
    const { own, theirs } = await same(path);
    expect(theirs.body, path).toBe(own.body);
  }
  return { blocks: chain.tipHeight() + 1, txs, addresses: addresses.length, historicTimes };
}

describe.each(['30', '31.99'] as const)('the devnet node answers the follower’s RPCs with Core %s’s shapes', (coreVersion) => {
  let devnet: Devnet;
  let rpc: TestRpc;
  /** 31.99's getblock adds the coinbase's fields. */
  const coinbaseTx = coreVersion === '30' ? [] : ['coinbase_tx'];
  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', coreVersion });
    rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  });
  afterAll(async () => {
    await devnet?.close();
  });

  const HEADER_KEYS = ['hash', 'confirmations', 'height', 'version', 'versionHex', 'merkleroot', 'time', 'mediantime', 'nonce', 'bits', 'target', 'difficulty', 'chainwork', 'nTx'];

  it('getblockheader and getblock 0/1 (exact bytes, key order, chainwork, next/previous links)', async () => {
    const genesis = await rpc.call<string>('getblockhash', [0]);
    const g = await rpc.call<Record<string, unknown>>('getblockheader', [genesis]);
    expect(Object.keys(g)).toEqual([...HEADER_KEYS, 'nextblockhash']);
    expect(g).toMatchObject({ height: 0, version: 1, versionHex: '00000001', bits: '207fffff', target: '7fffff' + '0'.repeat(58), chainwork: '2'.padStart(64, '0'), nTx: 1, confirmations: 201 });
    const raw = await rpc.raw('/', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'getblockheader', params: [genesis] }));
    expect(raw.text).toContain('"difficulty":4.656542373906925e-10,');

    const tipHash = await rpc.call<string>('getbestblockhash');
    const tip = await rpc.call<Record<string, unknown>>('getblock', [tipHash]);
    expect(Object.keys(tip)).toEqual([...HEADER_KEYS, 'previousblockhash', 'strippedsize', 'size', 'weight', ...coinbaseTx, 'tx']);
    expect(tip.chainwork).toBe((2 * 201).toString(16).padStart(64, '0'));
    const mid = await rpc.call<Record<string, unknown>>('getblock', [await rpc.call<string>('getblockhash', [150]), 1]);
    expect(Object.keys(mid)).toEqual([...HEADER_KEYS, 'previousblockhash', 'nextblockhash', 'strippedsize', 'size', 'weight', ...coinbaseTx, 'tx']);
    expect(await rpc.call('getblock', [mid.hash, false])).toEqual(await rpc.call('getblock', [mid.hash, 0]));
    expect(await rpc.call('getblock', [mid.hash, true])).toEqual(mid);

    const hex = await rpc.call<string>('getblock', [mid.hash, 0]);
    const bytes = Buffer.from(hex, 'hex');
    expect(bytes.length).toBe(mid.size);
    expect(Buffer.from(sha256d(bytes.subarray(0, 80))).reverse().toString('hex')).toBe(mid.hash);
    expect(await rpc.call('getblockheader', [mid.hash, false])).toBe(hex.slice(0, 160));

    await expect(rpc.call('getblock', ['00'.repeat(32)])).rejects.toMatchObject({ code: -5, message: 'Block not found' });
    await expect(rpc.call('getblockheader', ['00'.repeat(32)])).rejects.toMatchObject({ code: -5, message: 'Block not found' });
    await expect(rpc.call('getblock', ['xyz'])).rejects.toMatchObject({ code: -8, message: "blockhash must be of length 64 (not 3, for 'xyz')" });
    await expect(rpc.call('getblock', [mid.hash, 'x'])).rejects.toMatchObject({ code: -3 });
    await expect(rpc.call('getblock', [])).rejects.toMatchObject({ code: -1 });
    expect(await rpc.call('getblock', { blockhash: mid.hash, verbose: 0 })).toBe(hex);
  });

  it('getblock 2/3: transactions as getrawtransaction shows them, fee, and each input’s prevout', async () => {
    // A block with spends of coinbase outputs and of earlier payments.
    let found: Record<string, unknown> | undefined;
    for (let h = 111; h <= 200 && !found; h++) {
      const b = await rpc.call<{ tx: unknown[] }>('getblock', [await rpc.call<string>('getblockhash', [h]), 3]);
      if (b.tx.length >= 3) found = b as Record<string, unknown>;
    }
    expect(found).toBeDefined();
    const b3 = found as { hash: string; height: number; tx: Record<string, unknown>[] };
    const b2 = await rpc.call<{ tx: Record<string, unknown>[] }>('getblock', [b3.hash, 2]);
    const coinbase = b3.tx[0]!;
    expect(Object.keys(coinbase)).toEqual(['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'hex']);
    const spend = b3.tx[1]! as { txid: string; vin: Record<string, unknown>[]; vout: { value: number }[]; fee: number; hex: string };
    expect(Object.keys(spend)).toEqual(['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'fee', 'hex']);
    expect(Object.keys(spend.vin[0]!)).toEqual(['txid', 'vout', 'scriptSig', 'txinwitness', 'prevout', 'sequence'].filter((k) => k in spend.vin[0]!));
    expect(Object.keys(spend.vin[0]!.prevout as object)).toEqual(['generated', 'height', 'value', 'scriptPubKey']);
    expect(Object.keys((spend.vin[0]!.prevout as { scriptPubKey: object }).scriptPubKey)).toEqual(['asm', 'desc', 'hex', 'address', 'type']);
    // verbosity 2 is verbosity 3 without the prevouts.
    const strip = (tx: Record<string, unknown>): unknown => ({ ...tx, vin: (tx.vin as Record<string, unknown>[]).map(({ prevout: _p, ...rest }) => rest) });
    expect(b2.tx).toEqual(b3.tx.map(strip));
    // The prevout is the spent output as its own block shows it; fee = inputs − outputs.
    let inSum = 0;
    for (const vin of spend.vin as { txid: string; vout: number; prevout: { height: number; value: number; generated: boolean; scriptPubKey: { hex: string } } }[]) {
      const pb = await rpc.call<{ tx: { txid: string; vout: { value: number; scriptPubKey: { hex: string } }[] }[] }>('getblock', [await rpc.call<string>('getblockhash', [vin.prevout.height]), 2]);
      const ptx = pb.tx.find((t) => t.txid === vin.txid)!;
      expect(ptx.vout[vin.vout]!.value).toBe(vin.prevout.value);
      expect(ptx.vout[vin.vout]!.scriptPubKey.hex).toBe(vin.prevout.scriptPubKey.hex);
      expect(vin.prevout.generated).toBe(pb.tx[0]!.txid === vin.txid);
      inSum += Math.round(vin.prevout.value * 1e8);
    }
    expect(Math.round(spend.fee * 1e8)).toBe(inSum - spend.vout.reduce((a, o) => a + Math.round(o.value * 1e8), 0));
    // getrawtransaction with the block hash: in_active_chain first; verbosity 2 adds prevouts and fee.
    const v1 = await rpc.call<Record<string, unknown>>('getrawtransaction', [spend.txid, 1, b3.hash]);
    expect(Object.keys(v1)).toEqual(['in_active_chain', 'txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'hex', 'blockhash', 'confirmations', 'time', 'blocktime']);
    const v2 = await rpc.call<Record<string, unknown>>('getrawtransaction', [spend.txid, 2, b3.hash]);
    const { in_active_chain: _a, blockhash: _b, confirmations: _c, time: _t, blocktime: _bt, ...body2 } = v2;
    expect(body2).toEqual(spend);
    // Amounts are 8-decimal tokens.
    const text = (await rpc.raw('/', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'getblock', params: [b3.hash, 3] }))).text;
    for (const tok of amountTokens(text, ['value', 'fee'])) expect(tok).toMatch(/^-?\d+\.\d{8}$/);
  });

  it('getrawmempool, getmempoolentry and gettxout', async () => {
    const txids = await rpc.call<string[]>('getrawmempool');
    expect(txids.length).toBe(3);
    const withSeq = await rpc.call<{ txids: string[]; mempool_sequence: number }>('getrawmempool', [false, true]);
    expect(Object.keys(withSeq)).toEqual(['txids', 'mempool_sequence']);
    expect(withSeq.txids).toEqual(txids);
    await expect(rpc.call('getrawmempool', [true, true])).rejects.toMatchObject({ code: -8, message: 'Verbose results cannot contain mempool sequence values.' });
    const verbose = await rpc.call<Record<string, Record<string, unknown>>>('getrawmempool', [true]);
    expect(Object.keys(verbose)).toEqual(txids);
    const entry = await rpc.call<Record<string, unknown>>('getmempoolentry', [txids[0]]);
    expect(entry).toEqual(verbose[txids[0]!]);
    expect(shapeOf(entry)).toEqual({
      vsize: 'number', weight: 'number', time: 'number', height: 'number', descendantcount: 'number', descendantsize: 'number',
      ancestorcount: 'number', ancestorsize: 'number', wtxid: 'string', chunkweight: 'number',
      fees: { base: 'number', modified: 'number', ancestor: 'number', descendant: 'number', chunk: 'number' },
      depends: [], spentby: [], ...(coreVersion === '30' ? { 'bip125-replaceable': 'boolean' } : {}), unbroadcast: 'boolean',
    });
    const tx = devnet.node.chain.findTx(txids[0]!)!.tx;
    expect(entry).toMatchObject({ vsize: Math.ceil(tx.weight / 4), weight: tx.weight, time: devnet.node.chain.findTx(tx.txid)!.firstSeen, height: 200, wtxid: tx.wtxid });
    expect(Math.round((entry.fees as { base: number }).base * 1e8)).toBe(Number(devnet.node.chain.mempoolFee(tx.txid)));
    await expect(rpc.call('getmempoolentry', ['00'.repeat(32)])).rejects.toMatchObject({ code: -5, message: 'Transaction not in mempool' });

    // gettxout: a mempool output; the confirmed output it spends (gone with the mempool, there without).
    const spent = tx.vin[0]!;
    const conf = await rpc.call<Record<string, unknown>>('gettxout', [spent.txid, spent.vout, false]);
    expect(Object.keys(conf)).toEqual(['bestblock', 'confirmations', 'value', 'scriptPubKey', 'coinbase']);
    expect(conf.bestblock).toBe(await rpc.call('getbestblockhash'));
    expect(await rpc.call('gettxout', [spent.txid, spent.vout])).toBeNull();
    const mem = await rpc.call<Record<string, unknown>>('gettxout', [tx.txid, 0, true]);
    expect(mem.confirmations).toBe(0);
    expect(await rpc.call('gettxout', [tx.txid, 0, false])).toBeNull();
    // The coinbase's witness-commitment output is OP_RETURN: never in the UTXO set; nor is the genesis coinbase.
    const tip = devnet.node.chain.tip();
    expect(await rpc.call('gettxout', [tip.txs[0]!.txid, 1])).toBeNull();
    expect(await rpc.call<Record<string, unknown>>('gettxout', [tip.txs[0]!.txid, 0])).toMatchObject({ confirmations: 1, coinbase: true, value: 25 });
    expect(await rpc.call('gettxout', [devnet.node.chain.blockAt(0)!.txs[0]!.txid, 0])).toBeNull();
    await expect(rpc.call('gettxout', [tx.txid, -1])).rejects.toMatchObject({ code: -1, message: 'JSON integer out of range' });
  });
});

describe('a follower of a demo devnet', () => {
  let a: Devnet;
  let b: Devnet;
  let proxy: Proxy;
  let running: RunningFollower;
  const log: string[] = [];
  /** Confirmed transactions the follower never saw unconfirmed (it started after they were mined). */
  const historic = new Set<string>();

  defineFollowSuite(async (): Promise<FollowTarget> => {
    // Two devnets with the same seed have the same history; B later mines a competing branch.
    [a, b] = await Promise.all([startDevnet({ scenario: 'demo' }), startDevnet({ scenario: 'demo' })]);
    expect(b.node.chain.tip().hash).toBe(a.node.chain.tip().hash);
    for (const blk of a.node.chain.blocks) for (const tx of blk.txs) historic.add(tx.txid);
    proxy = new Proxy(a.rpcUrl);
    await proxy.start();
    const started = Date.now();
    running = await startFollower({ url: proxy.url, user: a.auth.user, password: a.auth.password, pollMs: 100, log: (l) => log.push(l) });
    await running.follower.waitFor((s) => s.synced, 30_000);
    console.info(`[follow] demo: ${a.node.chain.tipHeight() + 1} blocks synced in ${Date.now() - started} ms; ${log.join(' | ')}`);
    let reference = a;
    return {
      rpc: new TestRpc(proxy.url, a.auth.user, a.auth.password),
      follower: running,
      wallet: 'miner',
      checkFrom: 0,
      addresses: addressesOf(a),
      async reorg() {
        const fork = b.node.chain.tipHeight();
        const stale = a.node.chain.blocks.slice(fork + 1).map((x) => x.hash);
        const miner = b.node.scriptFor(b.node.wallets.get('miner')!.nextAddress('bech32', false));
        b.node.mine(stale.length + 1, miner);
        proxy.target = b.rpcUrl;
        reference = b;
        return { stale };
      },
      async afterStep(step) {
        const counts = await compareWithOwnIndex(reference, running.indexUrl, historic);
        if (step === 'synced') {
          expect(counts.blocks).toBe(201);
          expect(counts.addresses).toBeGreaterThan(40);
          // Only confirmed non-coinbase transactions from before the follower started may differ in `time`.
          expect(counts.historicTimes).toBeGreaterThan(0);
        }
      },
      async close() {
        await running?.close();
        await proxy?.close();
        await Promise.all([a?.close(), b?.close()]);
      },
    };
  });

  it('logs progress to its log: the initial sync, new blocks, the mempool and the reorg', () => {
    expect(log[0]).toMatch(/^follow: node http:\/\/127\.0\.0\.1:\d+ \(regtest, height 200, tip [0-9a-f]{64}\)$/);
    expect(log.some((l) => /^follow: indexed blocks 0–200 \(201 blocks in \d+ ms, \d+ blocks\/s\); tip 200 [0-9a-f]{64}$/.test(l))).toBe(true);
    expect(log.some((l) => /^follow: mempool \+3 -0 \(3 tx\)$/.test(l))).toBe(true);
    expect(log.some((l) => /^follow: reorg at height 201: dropped 3 block\(s\) up to 203 [0-9a-f]{64}, connected 4; tip 204 [0-9a-f]{64}$/.test(l))).toBe(true);
  });

  it('an unreachable node is logged and retried; the follower catches up when it is back', async () => {
    const target = proxy.target;
    proxy.target = null;
    await until('the error', async () => running.follower.status().lastError !== null);
    expect(log.at(-1)).toMatch(/^follow: .*; retrying every 100 ms$/);
    // The index keeps answering from what it holds.
    expect((await indexGet(running.indexUrl, 'block/last')).status).toBe(200);
    const hashes = b.node.mine(2, b.node.scriptFor(b.node.wallets.get('miner')!.nextAddress('bech32', false)));
    proxy.target = target;
    await until('recovery', async () => running.follower.status().synced && running.follower.status().hash === hashes[1]);
    expect(running.follower.status().lastError).toBeNull();
    expect(log.some((l) => l.startsWith('follow: node reachable again'))).toBe(true);
    await compareWithOwnIndex(b, running.indexUrl, historic);
  });

  it('authenticates with a Core cookie file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-follow-'));
    // A second RPC endpoint over the same node, with a cookie file as Core writes it.
    const withCookie = await startDevnet({ node: b.node, datadir: dir });
    const cookieLog: string[] = [];
    const f = await startFollower({ url: withCookie.rpcUrl, cookieFile: withCookie.cookieFile!, pollMs: 100, log: (l) => cookieLog.push(l) });
    try {
      const s = await f.follower.waitFor((x) => x.synced, 30_000);
      expect(s.hash).toBe(b.node.chain.tip().hash);
      expect((await indexGet(f.indexUrl, 'block/last')).data.hash).toBe(s.hash);
    } finally {
      await f.close();
      await withCookie.close();
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(startFollower({ url: withCookie.rpcUrl, cookieFile: join(dir, 'missing'), log: () => {} })).rejects.toThrow(/cannot read the cookie file/);
  });

  it('refuses wrong credentials and a node that is not regtest-reachable, with a message for people', async () => {
    await expect(startFollower({ url: b.rpcUrl, user: 'spyglass', password: 'wrong', log: () => {} })).rejects.toThrow(/401 Unauthorized: check --rpcuser and --rpcpassword/);
    await expect(startFollower({ url: 'http://127.0.0.1:1', user: 'u', password: 'p', log: () => {} })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:1: ECONNREFUSED/);
  });
});

describe('a follower of a large:1000 devnet', () => {
  it('syncs and answers like the devnet’s own index', async () => {
    const devnet = await startDevnet({ scenario: 'large:1000' });
    const started = Date.now();
    const f = await startFollower({ url: devnet.rpcUrl, user: devnet.auth.user, password: devnet.auth.password, pollMs: 100, log: () => {} });
    try {
      await f.follower.waitFor((s) => s.synced, 60_000);
      const ms = Date.now() - started;
      console.info(`[follow] large:1000: ${devnet.node.chain.tipHeight() + 1} blocks (${devnet.node.chain.blocks.reduce((n, x) => n + x.txs.length, 0)} txs) synced in ${ms} ms`);
      const all = new Set(devnet.node.chain.blocks.flatMap((x) => x.txs.map((t) => t.txid)));
      const counts = await compareWithOwnIndex(devnet, f.indexUrl, all);
      expect(counts.addresses).toBeGreaterThan(1000);
    } finally {
      await f.close();
      await devnet.close();
    }
  });
});

describe('CLI flags for follow mode', () => {
  it('--follow-node serves only the index; devnet flags are refused with it', () => {
    const cmd = parseCli(['--follow-node', 'http://127.0.0.1:18443', '--rpcuser', 'u', '--rpcpassword', 'p', '--index-port', '18444', '--poll-ms', '250', '--rate-limit', '15/5']);
    expect(cmd).toEqual({
      kind: 'follow',
      options: { url: 'http://127.0.0.1:18443', user: 'u', password: 'p', cookieFile: undefined, pollMs: 250, indexPort: 18444, faults: { rateLimit: { limit: 15, windowSeconds: 5 } } },
    });
    expect(parseCli(['--follow-node', 'http://h:1', '--rpccookiefile', '/x/.cookie'])).toMatchObject({ kind: 'follow', options: { cookieFile: '/x/.cookie' } });
    expect(() => parseCli(['--follow-node', 'http://h:1', '--scenario', 'demo'])).toThrow(/--scenario cannot be used with --follow-node/);
    expect(() => parseCli(['--follow-node', 'http://h:1', '--rpc-port', '1'])).toThrow(/--rpc-port cannot be used/);
    expect(() => parseCli(['--follow-node', 'ftp://h'])).toThrow(/not an http\(s\) URL/);
    expect(() => parseCli(['--follow-node', 'http://h:1', '--poll-ms', '5'])).toThrow(/--poll-ms/);
    expect(() => parseCli(['--follow-node', 'http://h:1', '--rpccookiefile', 'c', '--rpcuser', 'u'])).toThrow(/one or the other/);
    expect(() => parseCli(['--poll-ms', '100'])).toThrow(/only applies with --follow-node/);
    expect(() => parseArgs(['--follow-node', 'http://h:1'])).toThrow(/index follower/);
    expect(parseCli(['--scenario', 'demo'])).toMatchObject({ kind: 'devnet', options: { scenario: 'demo' } });
  });
});
