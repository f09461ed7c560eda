/**
 * The refresh bench's baselines (children of bench/refresh.ts): the naive client (one sequential
 * request per address, one autocommitted INSERT per row) and its overview, the floor of a cold
 * refresh (only its requests, replies read and thrown away), and the node's own reply times.
 */
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { RPC_PASSWORD, RPC_USER, WALLET, memory, plainRequest, profileInput, type DevnetUrls, type MemoryReport, type OverviewResult } from './refresh-common';

/**
 * The naive overview: every UTXO and received row of the latest snapshot loaded as JS objects,
 * grouped per address in JS, serialized.
 */
export async function naiveOverview(dataDir: string): Promise<OverviewResult> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dataDir, 'spyglass.sqlite'), { readonly: true });
  try {
    const t0 = performance.now();
    const snap = db.prepare("SELECT * FROM snapshots WHERE status <> 'failed' ORDER BY id DESC LIMIT 1").get() as { id: number };
    const utxos = db.prepare('SELECT * FROM snapshot_utxos WHERE snapshot_id = ?').all(snap.id) as Array<{ address: string; amount_sats: number; height: number }>;
    const received = db.prepare('SELECT * FROM snapshot_received WHERE snapshot_id = ?').all(snap.id) as Array<{ address: string; amount_sats: number; txids: string; node_label: string }>;
    const labels = new Map((db.prepare("SELECT * FROM labels WHERE type = 'addr'").all() as Array<{ ref: string; label: string }>).map((l) => [l.ref, l.label]));
    const byAddress = new Map<string, { address: string; label: string | null; nodeLabel: string; received: string; balance: number; utxos: typeof utxos; txids: string[] }>();
    for (const r of received) {
      byAddress.set(r.address, { address: r.address, label: labels.get(r.address) ?? null, nodeLabel: r.node_label, received: String(r.amount_sats), balance: 0, utxos: [], txids: JSON.parse(r.txids) as string[] });
    }
    for (const u of utxos) {
      const row = byAddress.get(u.address);
      if (!row) continue;
      row.utxos.push(u);
      row.balance += u.amount_sats;
    }
    const rows = [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
    const json = JSON.stringify({ ok: true, value: { rows } });
    const ms = performance.now() - t0;
    return { ms, rows: rows.length, jsonBytes: json.length, memory: memory() };
  } finally {
    db.close();
  }
}

export interface NaiveRun {
  /** Addresses the wallet has, and how many of them the naive client went through. */
  total: number;
  sample: number;
  listMs: number;
  loopMs: number;
  /** listMs + loopMs × total / sample. */
  extrapolatedMs: number;
}

export interface NaiveChildResult {
  cold: NaiveRun;
  warm: NaiveRun;
  afterRefresh: MemoryReport;
  overview: OverviewResult | null;
}

/** One naive refresh: listreceivedbyaddress, then per address getaddressinfo + address/utxo, sequential, one INSERT per row. */
async function naiveRefresh(u: DevnetUrls, sample: number, profileId: string, db: import('better-sqlite3').Database): Promise<NaiveRun> {
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await plainRequest(`${u.rpcUrl}/wallet/${WALLET}`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 'naive', method, params }),
    });
    const j = JSON.parse(res.text) as { result: unknown; error: { message: string } | null };
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result;
  };
  const now = new Date().toISOString();
  const t0 = performance.now();
  const list = (await rpc('listreceivedbyaddress', [0, true, true])) as Array<{ address: string; amount: number; confirmations: number; label: string; txids: string[] }>;
  const listMs = performance.now() - t0;

  const t1 = performance.now();
  const snapshotId = Number(db.prepare("INSERT INTO snapshots (profile_id, node_wallet, taken_at, status) VALUES (?, ?, ?, 'ok')").run(profileId, WALLET, now).lastInsertRowid);
  const insAddress = db.prepare("INSERT OR REPLACE INTO addresses (profile_id, node_wallet, address, source, hidden, added_at) VALUES (?, ?, ?, 'node', 0, ?)");
  const insInfo = db.prepare('INSERT OR REPLACE INTO address_info (profile_id, node_wallet, address, info_json, fetched_at) VALUES (?, ?, ?, ?, ?)');
  const insReceived = db.prepare('INSERT INTO snapshot_received (snapshot_id, address, amount_sats, confirmations, txids, node_label) VALUES (?, ?, ?, ?, ?, ?)');
  const insFetched = db.prepare("INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at) VALUES (?, ?, 'node', 'fetched', ?)");
  const insUtxo = db.prepare('INSERT INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, ?, ?, ?)');
  const todo = list.slice(0, sample);
  for (const r of todo) {
    const info = await rpc('getaddressinfo', [r.address]);
    const res = await plainRequest(`${u.indexUrl}/v1/blockchain/address/utxo/${r.address}`);
    if (res.status !== 200) throw new Error(`index address/utxo ${r.address}: HTTP ${res.status}`);
    const { data } = JSON.parse(res.text) as { data: Array<{ txId: string; vOut: number; block: number; amount: number }> };
    insAddress.run(profileId, WALLET, r.address, now);
    insInfo.run(profileId, WALLET, r.address, JSON.stringify(info), now);
    insReceived.run(snapshotId, r.address, Math.round(r.amount * 1e8), r.confirmations, JSON.stringify(r.txids), r.label);
    insFetched.run(snapshotId, r.address, now);
    for (const o of data) insUtxo.run(snapshotId, r.address, o.txId, o.vOut, o.amount, o.block);
  }
  const loopMs = performance.now() - t1;
  return { total: list.length, sample: todo.length, listMs, loopMs, extrapolatedMs: listMs + (loopMs * list.length) / Math.max(1, todo.length) };
}

/** The naive client's process: cold and warm naive refresh on a sample, then (optionally) the naive overview of `overviewDir`. */
export async function naiveChild(arg: DevnetUrls & { dataDir: string; sample: number; overviewDir: string | null }): Promise<NaiveChildResult> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const db = openDatabase(join(arg.dataDir, 'spyglass.sqlite'));
  const profile = new ProfileRepository(db).create(profileInput(arg), { passwordStorage: 'none' });
  const cold = await naiveRefresh(arg, arg.sample, profile.id, db);
  const warm = await naiveRefresh(arg, arg.sample, profile.id, db);
  closeDatabase(db);
  const afterRefresh = memory();
  const overview = arg.overviewDir === null ? null : await naiveOverview(arg.overviewDir);
  return { cold, warm, afterRefresh, overview };
}

export interface FloorResult {
  addresses: number;
  listMs: number;
  /** getaddressinfo for every address in one JSON-RPC batch, the reply read and not parsed. */
  infoMs: number;
  /** Index address/utxo for every address at each concurrency, replies read and not parsed. */
  utxoMs: Record<number, number>;
  /** Both at once (the batch beside the lookups at the best concurrency). */
  overlappedMs: number;
  /** The floor: list + the better of (info, then the lookups at the best concurrency) and overlapped. */
  floorMs: number;
}

/**
 * The floor of a cold refresh against this devnet: only the requests a cold refresh must make
 * (listreceivedbyaddress, getaddressinfo per address, one index lookup per address, as the bitaps API
 * has no batch lookup), sent as fast as the server takes them, with every reply read and thrown away:
 * no parsing, no SQLite, no snapshot. No client that makes those requests can be faster; the ratio
 * naive / floor is the most any client can be faster than the naive one here.
 */
export async function floorChild(arg: DevnetUrls & { concurrency: number[] }): Promise<FloorResult> {
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  const drain = (url: string, agent: Agent, init: { method?: string; body?: string } = {}): Promise<number> =>
    new Promise((res, rej) => {
      const headers = init.body === undefined ? {} : { Authorization: auth, 'Content-Type': 'application/json' };
      const req = httpRequest(url, { method: init.method ?? 'GET', headers, agent }, (r) => {
        let bytes = 0;
        r.on('data', (d: Buffer) => (bytes += d.length));
        r.on('end', () => (r.statusCode === 200 ? res(bytes) : rej(new Error(`${url}: HTTP ${r.statusCode}`))));
        r.on('error', rej);
      });
      req.on('error', rej);
      req.end(init.body);
    });
  const rpcUrl = `${arg.rpcUrl}/wallet/${WALLET}`;
  const rpcAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  let t0 = performance.now();
  const listText = await plainRequest(rpcUrl, {
    method: 'POST',
    headers: { Authorization: auth },
    body: JSON.stringify({ jsonrpc: '1.0', id: 'floor', method: 'listreceivedbyaddress', params: [0, true, true] }),
  });
  const listMs = performance.now() - t0;
  const addresses = (JSON.parse(listText.text) as { result: Array<{ address: string }> }).result.map((r) => r.address); // not timed
  const batchBody = JSON.stringify(addresses.map((a, i) => ({ jsonrpc: '1.0', id: i, method: 'getaddressinfo', params: [a] })));
  const info = (): Promise<number> => drain(rpcUrl, rpcAgent, { method: 'POST', body: batchBody });
  const lookups = async (concurrency: number): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < addresses.length) await drain(`${arg.indexUrl}/v1/blockchain/address/utxo/${addresses[next++]!}`, agent);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    agent.destroy();
  };
  t0 = performance.now();
  await info();
  const infoMs = performance.now() - t0;
  const utxoMs: Record<number, number> = {};
  for (const c of arg.concurrency) {
    t0 = performance.now();
    await lookups(c);
    utxoMs[c] = performance.now() - t0;
  }
  const best = arg.concurrency.reduce((a, c) => (utxoMs[c]! < utxoMs[a]! ? c : a));
  t0 = performance.now();
  await Promise.all([info(), lookups(best)]);
  const overlappedMs = performance.now() - t0;
  rpcAgent.destroy();
  return { addresses: addresses.length, listMs, infoMs, utxoMs, overlappedMs, floorMs: listMs + Math.min(infoMs + utxoMs[best]!, overlappedMs) };
}

/** How long the node itself takes to answer the two wallet-wide calls of a refresh (to the last byte). */
export async function nodeReplyTimes(u: DevnetUrls): Promise<{ listMs: number; unspentMs: number; unspentBytes: number }> {
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  const time = async (method: string, params: unknown[]): Promise<{ ms: number; bytes: number }> => {
    const t0 = performance.now();
    const res = await plainRequest(`${u.rpcUrl}/wallet/${WALLET}`, { method: 'POST', headers: { Authorization: auth }, body: JSON.stringify({ jsonrpc: '1.0', id: 't', method, params }) });
    return { ms: performance.now() - t0, bytes: Buffer.byteLength(res.text) };
  };
  const list = await time('listreceivedbyaddress', [0, true, true]);
  const unspent = await time('listunspent', [1]);
  return { listMs: list.ms, unspentMs: unspent.ms, unspentBytes: unspent.bytes };
}
