/**
 * Devnet benchmarks (loopback only, bounded in time and count):
 * - index requests/s (goal ≥ 2,000) against a naive index whose UTXO lookup scans the whole chain;
 * - getaddressinfo calls/s in JSON-RPC batches of 100 against one call per HTTP request;
 * - the large:10000 scenario build time (goal ≤ 60 s), and batched funding against one funding
 *   transaction per output at a smaller N.
 */
import { Agent, request } from 'node:http';
import { startDevnet, type Devnet } from '../devnet/index';
import { IndexServer } from '../devnet/index/server';
import { Faults } from '../devnet/faults';
import { listen } from '../devnet/http';
import type { ChainView, OutputInfo } from '../devnet/chain/types';
import type { Chain } from '../devnet/chain/chain';
import { DevnetNode } from '../devnet/node/node';
import { buildScenario } from '../devnet/scenarios';
import { printTable, type Row } from './table';

interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
}

/** Runs `concurrency` keep-alive loops for `seconds` (or `maxRequests`), returning throughput. */
async function load(url: (i: number) => { path: string; body?: string; headers?: Record<string, string> }, base: string, seconds: number, concurrency = 16, maxRequests = 200_000): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const { hostname, port } = new URL(base);
  let done = 0;
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const one = (i: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const r = url(i);
      const req = request(
        { agent, hostname, port, path: r.path, method: r.body === undefined ? 'GET' : 'POST', headers: r.headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode} for ${r.path}`));
            else resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(r.body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && started < maxRequests) {
        await one(started++);
        done++;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  agent.destroy();
  return { requests: done, seconds: secs, perSecond: done / secs };
}

/** The same ChainView, but UTXO lookups scan every block and the mempool (what a naive index does). */
function naiveView(view: ChainView & { blocks: readonly { txs: readonly { txid: string; vout: readonly { script: Uint8Array }[] }[] }[] }): ChainView {
  const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  return {
    tipHeight: () => view.tipHeight(),
    blockAt: (h) => view.blockAt(h),
    blockByHash: (h) => view.blockByHash(h),
    findTx: (t) => view.findTx(t),
    output: (t, v) => view.output(t, v),
    spenders: (t, v) => view.spenders(t, v),
    mempoolByFeeRate: () => view.mempoolByFeeRate(),
    p2pkScript: (keyHash) => view.p2pkScript(keyHash),
    unspentForScript: (script) => {
      const out: OutputInfo[] = [];
      for (const b of view.blocks) {
        for (const tx of b.txs) {
          tx.vout.forEach((o, n) => {
            if (!same(o.script, script)) return;
            if (view.spenders(tx.txid, n).length) return;
            out.push(view.output(tx.txid, n)!);
          });
        }
      }
      return out;
    },
  };
}

/** Serves `chain` with our index and with a naive one (UTXO lookup by chain scan); loads both. */
async function indexRow(name: string, chain: Chain, path: (i: number) => string, seconds: number): Promise<Row> {
  const serve = async (server: IndexServer): Promise<LoadResult> => {
    const l = await listen(0, new Faults('index'), (req) => server.handle({ method: req.method, path: req.url.pathname, query: req.url.searchParams }));
    try {
      await load((i) => ({ path: path(i) }), `http://127.0.0.1:${l.port}`, 0.5); // warm-up, not counted
      return await load((i) => ({ path: path(i) }), `http://127.0.0.1:${l.port}`, seconds);
    } finally {
      await l.close();
    }
  };
  const ours = await serve(new IndexServer(chain));
  const naive = await serve(new IndexServer(naiveView(chain)));
  return { name, unit: 'req/s', ours: ours.perSecond, baseline: naive.perSecond, note: 'baseline = UTXO lookup by chain scan' };
}

export async function benchDevnet(): Promise<Row[]> {
  const rows: Row[] = [];
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);

  // --- large:10000 build
  const t0 = performance.now();
  const large = new DevnetNode({ seed: 'bench' });
  buildScenario(large, 'large:10000', 'bench');
  const largeSecs = (performance.now() - t0) / 1000;
  rows.push({ name: 'large:10000 scenario build', unit: 's', ours: largeSecs, baseline: 60, note: 'baseline = the 60 s goal', lowerIsBetter: true });

  const small = 300;
  const tb = performance.now();
  buildScenario(new DevnetNode({ seed: 'bench-small' }), `large:${small}`, 'bench');
  const batchedSmall = (performance.now() - tb) / 1000;
  const tn = performance.now();
  buildNaiveLarge(small);
  const naiveSmall = (performance.now() - tn) / 1000;
  rows.push({ name: `large:${small} build, batched vs 1 tx/output`, unit: 's', ours: batchedSmall, baseline: naiveSmall, lowerIsBetter: true });

  // --- index throughput: a wallet-like mix on the demo chain, and UTXO lookups on large:10000
  const demo = new DevnetNode({ seed: 'bench' });
  buildScenario(demo, 'demo', 'bench');
  const demoChain = demo.chain;
  const demoTxids = demoChain.blocks.slice(100).flatMap((b) => b.txs.map((t) => t.txid));
  const demoAddrs = [...demo.wallets.get('watch')!.addressBook.keys()];
  const mix = (i: number): string => {
    switch (i % 3) {
      case 0: return `/v1/blockchain/block/${i % (demoChain.tipHeight() + 1)}`;
      case 1: return `/v1/blockchain/transaction/${demoTxids[i % demoTxids.length]}`;
      default: return `/v1/blockchain/address/utxo/${demoAddrs[i % demoAddrs.length]}`;
    }
  };
  rows.push(await indexRow('index requests/s, demo chain (block, tx, utxo mix; goal ≥ 2000)', demoChain, mix, seconds));

  const devnet: Devnet = await startDevnet({ node: large });
  try {
    const chain = devnet.node.chain;
    const addresses = [...devnet.node.wallets.get('watch')!.addressBook.keys()];
    rows.push(await indexRow('index UTXO lookups/s, large:10000 (10,000 addresses)', chain, (i) => `/v1/blockchain/address/utxo/${addresses[i % addresses.length]}`, seconds));

    // --- batched getaddressinfo
    const watchAddrs = [...devnet.node.wallets.get('watch')!.addressBook.keys()];
    const auth = `Basic ${Buffer.from(`${devnet.auth.user}:${devnet.auth.password}`).toString('base64')}`;
    const headers = { Authorization: auth, 'Content-Type': 'text/plain' };
    const batch = 100;
    const batched = await load(
      (i) => ({
        path: '/wallet/watch',
        headers,
        body: JSON.stringify(
          Array.from({ length: batch }, (_, k) => ({ jsonrpc: '1.0', id: `${i}-${k}`, method: 'getaddressinfo', params: [watchAddrs[(i * batch + k) % watchAddrs.length]] })),
        ),
      }),
      devnet.rpcUrl,
      seconds,
      4,
    );
    const single = await load(
      (i) => ({ path: '/wallet/watch', headers, body: JSON.stringify({ jsonrpc: '1.0', id: `${i}`, method: 'getaddressinfo', params: [watchAddrs[i % watchAddrs.length]] }) }),
      devnet.rpcUrl,
      seconds,
      4,
    );
    rows.push({ name: `getaddressinfo calls/s on large:10000 (batches of ${batch})`, unit: 'calls/s', ours: batched.perSecond * batch, baseline: single.perSecond, note: 'baseline = one call per request' });
  } finally {
    await devnet.close();
  }
  return rows;
}

/** The naive way to fund N addresses: one transaction and one block per output. */
function buildNaiveLarge(n: number): void {
  const node = new DevnetNode({ seed: 'bench-naive' });
  let t = 1_767_225_600;
  node.chain.clock = () => t;
  const miner = node.createWallet('miner');
  const watch = node.createWallet('watch', { disablePrivateKeys: true, blank: true });
  const minerScript = node.scriptFor(miner.nextAddress('bech32', false));
  for (let i = 0; i < 101 + Math.ceil(n / 25); i++) node.chain.mineBlock(minerScript, { time: (t += 600) });
  const src = node.createWallet('src');
  for (let i = 0; i < n; i++) {
    const addr = src.nextAddress('bech32', false);
    watch.setAddressBook(addr, `addr ${i}`, 'receive');
    miner.broadcast(miner.createTransaction([{ script: node.scriptFor(addr), value: 100_000n }], { feeRatePerKvB: 1000n }));
    if (i % 25 === 24) node.chain.mineBlock(minerScript, { time: (t += 600) });
  }
}

export { printTable };
