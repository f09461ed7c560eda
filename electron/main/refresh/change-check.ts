// What the refresh engine (engine.ts) decides from the latest snapshot: which node addresses to look
// up again in the index (mustLookUp, see the top of engine.ts), and whether a refresh found nothing a
// new snapshot would record differently (isUnchanged).
import type { IndexUtxo } from '../blockindex/types';
import type { AddressFetch, AddressSource, ReceivedRecord, Snapshot, UtxoRecord, UtxoRow, WalletScope, WatchRepository } from '../store/watch';
import type { LookupResult } from './lookups';
import { samePending } from './node-replies';

export interface IndexTotals {
  sats: bigint;
  count: number;
}

export const NO_UTXOS: IndexTotals = { sats: 0n, count: 0 };

/** Up to this many addresses looked up again, their held UTXOs are read one address at a time. */
const HELD_ONE_BY_ONE = 256;

/** A lookup's UTXOs equal a snapshot's (as the snapshot would store them: outpoint, amount, height). */
function sameUtxos(got: readonly IndexUtxo[], held: readonly UtxoRecord[]): boolean {
  if (got.length !== held.length) return false;
  const key = (txid: string, vout: number, sats: bigint, height: number | null): string => `${txid}:${vout}:${sats}:${height}`;
  const want = new Set(held.map((u) => key(u.txid, u.vout, u.amountSats, u.height)));
  return want.size === got.length && got.every((u) => want.has(key(u.txId, u.vOut, u.amount, u.block)));
}

function sameTxids(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((t, i) => t === y[i]);
}

/** An unconfirmed receive is waiting (Core: confirmations = the least depth among the receiving txs). */
function pending(r: ReceivedRecord): boolean {
  return r.confirmations === 0 && r.txids.length > 0;
}

/**
 * Whether a node address must be looked up (again) in the index (see the top of engine.ts): `index`
 * is what the latest snapshot holds for it, `nodeHeight` the node's tip now.
 */
export function mustLookUp(cur: ReceivedRecord, prev: ReceivedRecord | undefined, fetch: AddressFetch | undefined, index: IndexTotals, nodeHeight: number): boolean {
  if (fetch === undefined || fetch.state === 'failed' || fetch.fetchedAt === null) return true;
  if (prev === undefined) return true; // it was a user address until now
  if (cur.amountSats !== prev.amountSats || !sameTxids(cur.txids, prev.txids) || pending(cur) !== pending(prev)) return true;
  if (cur.nodeUnspent !== null && cur.nodeUnspent.hash !== prev.nodeUnspent?.hash) return true;
  // The last lookup asked an index that had not reached the block of the address's latest receive.
  if (cur.confirmations > 0 && fetch.fetchedIndexHeight !== null && nodeHeight - cur.confirmations + 1 > fetch.fetchedIndexHeight) return true;
  // The node and the index disagree about what the address holds (the index lagged when asked, or
  // still does): ask again; it costs one lookup per such address until they agree.
  if (cur.nodeUnspent !== null && (cur.nodeUnspent.sats !== index.sats || cur.nodeUnspent.count !== index.count)) return true;
  return false;
}

/** The UTXOs snapshot `id` holds for `addresses` (one query per address, or one for all when there are many). */
function heldUtxos(store: WatchRepository, scope: WalletScope, id: number, addresses: readonly string[]): Map<string, UtxoRecord[]> {
  const out = new Map<string, UtxoRecord[]>();
  const add = (u: UtxoRow): void => {
    const list = out.get(u.address);
    if (list === undefined) out.set(u.address, [u]);
    else list.push(u);
  };
  if (addresses.length <= HELD_ONE_BY_ONE) {
    for (const a of addresses) for (const u of store.utxos(scope, a, id)) add(u);
  } else {
    const wanted = new Set(addresses);
    for (const u of store.utxos(scope, null, id)) if (wanted.has(u.address)) add(u);
  }
  return out;
}

/** What isUnchanged compares: the refresh's plan, the node's entries and lookups, and the latest snapshot's. */
export interface UnchangedInput {
  prevId: number;
  prevStatus: Snapshot['status'];
  plan: ReadonlyArray<{ address: string; source: AddressSource; fetch: boolean }>;
  received: readonly ReceivedRecord[];
  prevReceived: ReadonlyMap<string, ReceivedRecord>;
  prevFetch: ReadonlyMap<string, AddressFetch>;
  lookups: ReadonlyMap<string, LookupResult>;
  /**
   * For lookups kept in the import worker (`kept`): whether their UTXOs are exactly those the snapshot
   * holds (asked there, keptSame); undefined: not asked (then they count as changed).
   */
  keptSame?: boolean;
}

/** Whether the UTXOs `kept` for `addresses` are exactly those snapshot `id` holds (every address kept). */
export function keptSame(store: WatchRepository, scope: WalletScope, id: number, addresses: readonly string[], kept: ReadonlyMap<string, readonly IndexUtxo[]>): boolean {
  if (addresses.length === 0) return true;
  const held = heldUtxos(store, scope, id, addresses);
  return addresses.every((address) => {
    const got = kept.get(address);
    return got !== undefined && sameUtxos(got, held.get(address) ?? []);
  });
}

/**
 * Whether a refresh found nothing that a new snapshot would record differently from the latest one
 * `prevId` apart from the time, the tips and the node's confirmations and labels: no lookup, the
 * same addresses with the same sources, the same received amounts, txid sets and node-unspent
 * digests, the previous snapshot 'ok' and also the last attempt (a failure after it stays visible).
 */
export function isUnchanged(store: WatchRepository, scope: WalletScope, c: UnchangedInput): boolean {
  const { prevId, plan, received, prevReceived, prevFetch, lookups } = c;
  if (c.prevStatus !== 'ok' || store.lastAttempt(scope)?.id !== prevId) return false;
  if (plan.length !== prevFetch.size || received.length !== prevReceived.size) return false;
  const looked: string[] = [];
  for (const p of plan) {
    const f = prevFetch.get(p.address);
    if (f === undefined || f.source !== p.source || f.state === 'failed') return false;
    if (p.fetch) looked.push(p.address);
  }
  for (const r of received) {
    const q = prevReceived.get(r.address);
    if (q === undefined || q.amountSats !== r.amountSats || !sameTxids(r.txids, q.txids)) return false;
    const a = r.nodeUnspent;
    const b = q.nodeUnspent;
    if (a === null ? b !== null : b === null || a.hash !== b.hash || a.sats !== b.sats || a.count !== b.count || !samePending(a, b)) return false;
  }
  // Addresses looked up again: unchanged only if the index gave exactly the UTXOs the snapshot holds.
  if (looked.length === 0) return true;
  const here = looked.filter((address) => {
    const got = lookups.get(address);
    return got === undefined || !('kept' in got);
  });
  if (here.length < looked.length && c.keptSame !== true) return false;
  const held = heldUtxos(store, scope, prevId, here);
  return here.every((address) => {
    const got = lookups.get(address);
    return got !== undefined && 'utxos' in got && sameUtxos(got.utxos, held.get(address) ?? []);
  });
}
