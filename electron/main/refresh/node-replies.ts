// Node replies the refresh reads (listreceivedbyaddress, listunspent, getblockchaininfo), checked and
// turned into exact records: amounts in satoshis, per-address digests of unspent outputs, and the
// wallet's change addresses that hold coins. Shared by the full refresh (engine.ts) and the
// incremental one (incremental.ts).
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { RpcClient } from '../rpc/client';
import type { NodeUnspent, PendingCoin, ReceivedRecord, Tip } from '../store/watch';

const HEX64 = /^[0-9a-f]{64}$/;

const MAX_MONEY_SATS = 2_100_000_000_000_000;

/**
 * A BTC amount from a node reply to satoshis. RpcClient hands over JSON.parse's double, not the
 * reply's text, so this works on the double and proves the result exact:
 *
 * Core writes every amount with at most 8 decimals. Let k be the amount in satoshis, |k| ≤ MAX_MONEY
 * = 2.1e15. JSON.parse returns d = (k/1e8)(1+e1), the double nearest to k/1e8, |e1| ≤ 2^-53, and
 * the product d * 1e8 is rounded once more: k(1+e1)(1+e2), |e2| ≤ 2^-53. So
 * |fl(d·1e8) − k| ≤ |k|·(2^-52 + 2^-106) ≤ 2.1e15 · 2.2205e-16 ≈ 0.466 < 0.5, and Math.round gives k.
 * (The weaker bound |d| < 2^53/1e8 would not do: near 2^53 satoshis the error can reach 1 or 2.)
 * The check `k / 1e8 === d` then proves d really was an 8-decimal amount: k and 1e8 are exact doubles,
 * so IEEE division gives the double nearest to k/1e8 — the very double the parser makes from the
 * text of k/1e8. A value with a 9th decimal (not an amount Core writes) fails the check.
 */
export function btcNumberToSats(n: unknown, what = 'amount'): bigint {
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw new AppError('rpc.bad_reply', `The node sent ${what} as ${JSON.stringify(n) ?? typeof n}, not a number of BTC.`);
  }
  if (Math.abs(n) > MAX_MONEY_SATS / 1e8) throw new AppError('rpc.bad_reply', `The node sent ${what} ${n} BTC, more than 21 million.`);
  const k = Math.round(n * 1e8);
  if (k / 1e8 !== n) throw new AppError('rpc.bad_reply', `The node sent ${what} ${n} BTC, which has more than 8 decimals.`);
  return BigInt(k);
}

/** Digest of a set of outpoints (order-independent): equal digests, same set. */
export function outpointsDigest(outpoints: Iterable<string>): string {
  const sorted = [...outpoints].sort();
  return createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 32);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** listreceivedbyaddress's arguments: every address of the wallet, unconfirmed receives and empty addresses included. */
export const LIST_RECEIVED_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({ minconf: 0, include_empty: true });

/** listreceivedbyaddress → records (shape checked; amounts exact). */
export function parseReceived(reply: unknown): ReceivedRecord[] {
  if (!Array.isArray(reply)) throw new AppError('rpc.bad_reply', 'The node answered listreceivedbyaddress with something other than a list.');
  const seen = new Set<string>();
  return reply.map((e: unknown, i) => {
    if (!isRecord(e)) throw new AppError('rpc.bad_reply', `Entry ${i} of listreceivedbyaddress is not an object.`);
    const { address, amount, confirmations, label, txids } = e;
    if (typeof address !== 'string' || !/^[A-Za-z0-9]{14,100}$/.test(address)) {
      throw new AppError('rpc.bad_reply', `Entry ${i} of listreceivedbyaddress has no valid address.`);
    }
    if (seen.has(address)) throw new AppError('rpc.bad_reply', `listreceivedbyaddress lists ${address} twice.`);
    seen.add(address);
    if (typeof confirmations !== 'number' || !Number.isSafeInteger(confirmations) || confirmations < 0) {
      throw new AppError('rpc.bad_reply', `listreceivedbyaddress: the confirmations of ${address} are not a whole number.`);
    }
    if (!Array.isArray(txids) || !txids.every((t): t is string => typeof t === 'string' && HEX64.test(t))) {
      throw new AppError('rpc.bad_reply', `listreceivedbyaddress: the txids of ${address} are not a list of transaction ids.`);
    }
    const amountSats = btcNumberToSats(amount, `the amount received by ${address}`);
    if (amountSats < 0n) throw new AppError('rpc.bad_reply', `listreceivedbyaddress: ${address} received a negative amount.`);
    return {
      address,
      amountSats,
      confirmations,
      txids: [...txids],
      nodeLabel: typeof label === 'string' ? label : '',
      nodeUnspent: null,
    };
  });
}

/**
 * listunspent → per address: the digest of its confirmed outpoints, their sum and count, and its
 * unconfirmed coins (`confirmations` 0, with listunspent's `safe`: our own change when true). `minConf`
 * 1 keeps the confirmed ones (what the index lists) of a reply asked with minconf 0 in the digest and
 * sums, and the rest as pending; with `minConf` 0 every coin counts as confirmed (nothing pending).
 */
export function parseUnspent(reply: unknown, minConf = 0): Map<string, NodeUnspent> {
  if (!Array.isArray(reply)) throw new AppError('rpc.bad_reply', 'The node answered listunspent with something other than a list.');
  const by = new Map<string, { outpoints: string[]; sats: bigint; pending: PendingCoin[] }>();
  reply.forEach((e: unknown, i) => {
    if (!isRecord(e)) throw new AppError('rpc.bad_reply', `Entry ${i} of listunspent is not an object.`);
    const { txid, vout, address, amount } = e;
    if (typeof txid !== 'string' || !HEX64.test(txid) || typeof vout !== 'number' || !Number.isSafeInteger(vout) || vout < 0) {
      throw new AppError('rpc.bad_reply', `Entry ${i} of listunspent has no valid outpoint.`);
    }
    if (typeof address !== 'string') return; // outputs without an address (bare scripts) are not watched
    const confirmed = !(minConf > 0) || (typeof e.confirmations === 'number' && e.confirmations >= minConf);
    const g = by.get(address) ?? { outpoints: [], sats: 0n, pending: [] };
    by.set(address, g);
    const amountSats = btcNumberToSats(amount, `the amount of ${txid}:${vout}`);
    if (confirmed) {
      g.outpoints.push(`${txid}:${vout}`);
      g.sats += amountSats;
    } else if (e.confirmations === 0) {
      if (typeof e.safe !== 'boolean') throw new AppError('rpc.bad_reply', `listunspent: the unconfirmed output ${txid}:${vout} has no "safe" flag.`);
      g.pending.push({ txid, vout, amountSats, safe: e.safe });
    }
  });
  const out = new Map<string, NodeUnspent>();
  for (const [address, g] of by) {
    g.pending.sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.vout - b.vout));
    out.set(address, { hash: outpointsDigest(g.outpoints), sats: g.sats, count: g.outpoints.length, pending: g.pending });
  }
  return out;
}

/** Whether two records of one address name the same pending coins (null: not known, equal only to null). */
export function samePending(a: NodeUnspent | null, b: NodeUnspent | null): boolean {
  const x = a?.pending ?? null;
  const y = b?.pending ?? null;
  if (x === null || y === null) return x === y;
  return x.length === y.length && x.every((c, i) => c.txid === y[i]!.txid && c.vout === y[i]!.vout && c.amountSats === y[i]!.amountSats && c.safe === y[i]!.safe);
}

export function parseNodeTip(reply: unknown): Tip {
  if (!isRecord(reply) || typeof reply.blocks !== 'number' || !Number.isSafeInteger(reply.blocks) || typeof reply.bestblockhash !== 'string' || !HEX64.test(reply.bestblockhash)) {
    throw new AppError('rpc.bad_reply', 'The node answered getblockchaininfo without a valid block height and hash.');
  }
  return { height: reply.blocks, hash: reply.bestblockhash };
}

export const EMPTY_NODE_UNSPENT: NodeUnspent = { hash: outpointsDigest([]), sats: 0n, count: 0, pending: [] };

/**
 * The wallet's coins at addresses listreceivedbyaddress does not list — change: Core leaves change
 * addresses out of it ("no change addresses"), so without these rows a wallet's balance would drop by
 * the whole input of each spend. One record per such address from listunspent (minconf 0): what it
 * holds (0-conf included, so pending change is not invisible) stands for what it received; a change
 * address whose coins are spent leaves the list.
 */
export function changeRecords(reply: unknown, listed: ReadonlySet<string>, confirmed: ReadonlyMap<string, NodeUnspent>): ReceivedRecord[] {
  return [...changeByAddress(reply, listed, confirmed).values()];
}

/** changeRecords by address. */
export function changeByAddress(reply: unknown, listed: ReadonlySet<string>, confirmed: ReadonlyMap<string, NodeUnspent>): Map<string, ReceivedRecord> {
  const by = new Map<string, ReceivedRecord>();
  for (const e of Array.isArray(reply) ? reply : []) {
    if (!isRecord(e) || typeof e.address !== 'string' || listed.has(e.address) || typeof e.txid !== 'string') continue;
    const conf = typeof e.confirmations === 'number' && Number.isSafeInteger(e.confirmations) && e.confirmations >= 0 ? e.confirmations : 0;
    const r = by.get(e.address) ?? { address: e.address, amountSats: 0n, confirmations: conf, txids: [], nodeLabel: '', nodeUnspent: confirmed.get(e.address) ?? EMPTY_NODE_UNSPENT };
    r.amountSats += btcNumberToSats(e.amount, `the amount of ${e.txid}:${String(e.vout)}`);
    r.confirmations = Math.min(r.confirmations, conf);
    if (!r.txids.includes(e.txid)) r.txids.push(e.txid);
    by.set(e.address, r);
  }
  return by;
}

/**
 * The received step's `listunspent` (minconf 0) applied to listreceivedbyaddress's records, where the
 * reply was asked (the main thread, or the import worker: received-job.ts): each record takes its
 * address's node-unspent digest (confirmed coins; the unconfirmed ones pending), then the wallet's
 * change addresses that hold coins are appended (changeByAddress). Returns how many coins it listed.
 */
export function addUnspent(received: ReceivedRecord[], reply: unknown): number {
  const unspent = parseUnspent(reply, 1);
  const listed = new Set(received.map((r) => r.address));
  for (const r of received) r.nodeUnspent = unspent.get(r.address) ?? EMPTY_NODE_UNSPENT;
  for (const r of changeByAddress(reply, listed, unspent).values()) received.push(r);
  return Array.isArray(reply) ? reply.length : 0;
}

/**
 * The wallet's state for the spend check: "<walletname>:<txcount>:<lastprocessedblock hash>", or
 * null when the node does not report it (no such method, or the fields are missing) — then the
 * engine asks `listunspent` every time. Errors reaching the node end the refresh as usual.
 */
export async function walletStateOf(rpc: Pick<RpcClient, 'call'>, callOpts: { signal?: AbortSignal }, log: Logger): Promise<string | null> {
  let info: unknown;
  try {
    info = await rpc.call('getwalletinfo', [], callOpts);
  } catch (e) {
    if (isAppError(e) && (e.code === 'rpc.method_not_found' || e.code === 'rpc.error' || e.code === 'rpc.bad_reply')) {
      log.warn(`refresh: getwalletinfo: ${e.code} ${e.message}; the node's unspent outputs are asked every time`);
      return null;
    }
    throw e;
  }
  if (!isRecord(info)) return null;
  const { walletname, txcount, lastprocessedblock: lpb } = info;
  if (typeof walletname !== 'string' || typeof txcount !== 'number' || !Number.isSafeInteger(txcount) || !isRecord(lpb)) return null;
  if (typeof lpb.hash !== 'string' || !/^[0-9a-f]{64}$/.test(lpb.hash)) return null;
  return `${walletname.slice(0, 100)}:${txcount}:${lpb.hash}`;
}
