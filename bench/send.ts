/**
 * Compose + fill of a 500-input PSBT through the app's real services (createApp, its PSBT worker, a
 * SQLite file) against the devnet, each input from its own previous transaction (goal ≤ 1 s):
 *
 * - offline: the node down, the app composes from the facts and the previous transactions it kept
 *   (send:create: selection with coin control over the 500 coins, the unsigned PSBT, the fill in the
 *   worker, the draft saved) — "compose + offline fill";
 * - online: the same with the node up: listunspent, listdescriptors and the fee batch, a fresh change
 *   address, the node's createpsbt built and compared, the previous transactions asked in one batch;
 * - naive baseline: the same compose and fill, the previous transactions asked one node round trip
 *   each (500 gettransaction calls), in this process.
 *
 * Run alone: npx tsx bench/send.ts   (or as the `send` group of npm run bench)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet } from '../devnet/index';
import { createApp } from '../electron/main/app';
import { parseBtc } from '../shared/amounts';
import { decodeDestination } from '../shared/bitcoin/address';
import { REGTEST } from '../shared/bitcoin/networks';
import { fillPsbt, readPrevTxs, watchOnlyWallet, type WalletDescriptor } from '../shared/bitcoin/psbt';
import { inputKindFromDescriptor } from '../shared/bitcoin/spend/kind';
import { compose } from '../shared/send/compose';
import { createPsbt } from '../shared/send/create-psbt';
import { parseRecipients } from '../shared/send/recipients';
import type { SendCreateReply } from '../shared/ipc/send';
import { TestRpc } from '../test/support/rpc';
import { printTable, type Row } from './table';

const N = 500;
const LAN_MS = 5;

export async function benchSend(): Promise<Row[]> {
  const devnet = await startDevnet({ scenario: 'empty', rpcUser: 'b', rpcPassword: 'bench' });
  const rpc = new TestRpc(devnet.rpcUrl, 'b', 'bench');
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-bench-send-'));
  const app = createApp({ dataDir: dir, info: { version: 'bench', platform: process.platform, bridge: true }, secretBackend: null });
  try {
    await rpc.call('createwallet', ['payer']);
    const mineTo = await rpc.call<string>('getnewaddress', [], 'payer');
    await rpc.call('generatetoaddress', [110, mineTo]);
    await rpc.call('createwallet', ['hot']);
    await rpc.call('createwallet', ['watch', true, true, '', false, true, true]);
    const pub = await rpc.call<{ descriptors: WalletDescriptor[] }>('listdescriptors', [], 'hot');
    await rpc.call('importdescriptors', [pub.descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, range: [0, 999], timestamp: 'now', next_index: 0 }))], 'watch');
    // N coins, each the output of its own transaction
    for (let i = 0; i < N; i++) {
      await rpc.call('sendtoaddress', [await rpc.call<string>('getnewaddress', ['', 'bech32'], 'watch'), 0.001], 'payer');
      if (i % 20 === 19) await rpc.call('generatetoaddress', [1, mineTo]);
    }
    await rpc.call('generatetoaddress', [1, mineTo]);
    const unspent = await rpc.call<Array<{ txid: string; vout: number; amount: number; desc: string; confirmations: number }>>('listunspent', [], 'watch');
    if (unspent.length !== N || new Set(unspent.map((u) => u.txid)).size !== N) throw new Error(`bench: ${unspent.length} coins of ${new Set(unspent.map((u) => u.txid)).size} transactions`);
    const coins = unspent.map((u) => `${u.txid}:${u.vout}`);

    /** The naive way: the same compose and fill, one node round trip per previous transaction. */
    async function naiveRun(seed: number): Promise<number> {
      const descriptors = (await rpc.call<{ descriptors: WalletDescriptor[] }>('listdescriptors', [], 'watch')).descriptors;
      const t = performance.now();
      const r = parseRecipients([{ kind: 'pay', address: mineTo, amount: '', sendMax: true }], { network: REGTEST, unit: 'btc' });
      if (!r.ok) throw new Error('bench: recipients');
      const list = await rpc.call<typeof unspent>('listunspent', [], 'watch');
      const change = decodeDestination(await rpc.call<string>('getrawchangeaddress', ['bech32'], 'watch'), REGTEST) as { ok: true; script: Uint8Array };
      const c = compose({
        coins: list.map((u) => ({ txid: u.txid, vout: u.vout, value: parseBtc(u.amount.toFixed(8)), kind: inputKindFromDescriptor(u.desc), confirmations: u.confirmations })),
        recipients: r.recipients,
        feeRate: 2000n,
        change: { script: change.script, kind: { type: 'p2wpkh' } },
        manual: list.map((u) => ({ txid: u.txid, vout: u.vout })),
        locktime: 0,
        seed,
      });
      const prev: Record<string, string> = {};
      for (const i of c.spec.inputs) prev[i.txid] = (await rpc.call<{ hex: string }>('gettransaction', [i.txid], 'watch')).hex;
      const filled = fillPsbt(createPsbt(c.spec, 2), watchOnlyWallet(descriptors, REGTEST), readPrevTxs(prev));
      if (!filled.ok || filled.psbt.inputs.some((i) => !i.nonWitnessUtxo && !i.witnessUtxo)) throw new Error('bench: naive fill');
      return performance.now() - t;
    }

    const ok = async <T>(channel: string, payload: unknown): Promise<T> => {
      const r = await app.dispatch(channel, payload);
      if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
      return r.value as T;
    };
    const saved = await ok<{ profile: { id: string } }>('profiles:save', { profile: { name: 'Bench', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'b', wallet: 'watch', indexUrl: devnet.indexUrl }, password: 'bench', remember: 'session' });
    await ok('profiles:activate', { id: saved.profile.id });
    const form = (seed: number) => ({ rows: [{ kind: 'pay', address: mineTo, amount: '', sendMax: true }], unit: 'btc', feeRate: '2', coins, seed });
    const create = async (seed: number): Promise<number> => {
      const t = performance.now();
      const r = await ok<SendCreateReply>('send:create', { form: form(seed) });
      const ms = performance.now() - t;
      if (!r.ok || r.draft.inputs.length !== N) throw new Error(`bench: create ${JSON.stringify(!r.ok && r.errors)}`);
      return ms;
    };
    // with the node up and nothing kept: the previous transactions come from the node in one batch
    // (the kept ones are forgotten before each run; the first run also starts the worker: a warm-up)
    const forget = () => {
      const db = new BetterSqlite3(app.dbFile);
      db.prepare('DELETE FROM prev_txs').run();
      db.close();
    };
    const onlineRuns: number[] = [];
    for (let s = 1; s <= 4; s++) {
      forget();
      onlineRuns.push(await create(s));
    }
    const online = Math.min(...onlineRuns.slice(1));
    devnet.setFaults('rpc', { latencyMs: LAN_MS });
    forget();
    const lan = await create(5);
    const lanNaive = await naiveRun(50);
    devnet.setFaults('rpc', {});
    await ok('send:context', {}); // the Send page's load: keeps the coins' previous transactions

    devnet.setFaults('rpc', { mode: 'reset' });
    await ok('connection:refresh', {});
    let offline = Infinity;
    for (let s = 11; s <= 13; s++) offline = Math.min(offline, await create(s));
    devnet.setFaults('rpc', {});

    let naive = Infinity;
    for (let k = 0; k < 2; k++) naive = Math.min(naive, await naiveRun(100 + k));
    return [
      { name: `compose + offline fill, ${N} inputs of ${N} previous transactions (send:create, node down; goal ≤ 1,000 ms)`, unit: 'ms', ours: offline, baseline: naive, lowerIsBetter: true, note: `naive: one gettransaction round trip per previous transaction (${N}), then the same compose and fill` },
      { name: `compose + fill with the node up, nothing kept (send:create: facts, change address, createpsbt built twice, ${N} previous transactions in one batch)`, unit: 'ms', ours: online, baseline: naive, lowerIsBetter: true, note: `as above (first run, starting the worker and indexing the wallet: ${onlineRuns[0]!.toFixed(0)} ms)` },
      { name: `as above, the node ${LAN_MS} ms away (a node on the LAN; one run each)`, unit: 'ms', ours: lan, baseline: lanNaive, lowerIsBetter: true, note: 'as above, every call delayed' },
    ];
  } finally {
    await app.close();
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) void benchSend().then((rows) => printTable('send', rows));
