// What the refresh engine (engine.ts) decides from the latest snapshot: which addresses to look up
// again in the index (lookupPlan, mustLookUp), and whether a refresh found nothing a new snapshot would
// record differently (isUnchanged).
//
// Which addresses are looked up in the index. A node address is looked up when it was never fetched,
// its last lookup failed, or, against the latest good snapshot, its received amount or txids changed,
// an unconfirmed receive confirmed (or the reverse, after a reorg), or the node's own set of its
// confirmed unspent outputs changed. That last test is why the engine also calls `listunspent` (one
// call): `listreceivedbyaddress` only counts outputs PAYING an address, so a spend FROM a watched
// address changes none of its numbers, and without it the spent coins would stay in the balance until
// something else happened to the address. (`checkSpends: false` turns it off.) The wallet-wide
// `listunspent` is the heaviest call of a warm refresh (every wallet coin with its descriptor), so it
// is skipped while the wallet reports the same `getwalletinfo` state (name, `txcount`,
// `lastprocessedblock` hash, read before it) as the latest snapshot recorded: a spend of a wallet
// coin is itself a new wallet transaction, and a block moves lastprocessedblock, so the confirmed
// unspent set cannot have changed and the snapshot's digests are reused. (Not seen by that test: a
// transaction abandoned on the node with abandontransaction, until the next block or wallet
// transaction; a node without those getwalletinfo fields always gets the `listunspent`.)
// The same `listunspent` (minconf 0) adds the wallet's change addresses that hold coins, which
// listreceivedbyaddress never lists (changeRecords): a spend's change stays in the balances.
// Two more reasons to ask the index again, for when it lags the node (a public index a block or two
// behind, a self-hosted one still catching up): the last lookup was made at an index height below
// the block of the address's latest receive (node tip − its confirmations + 1); or the node's
// confirmed unspent outputs for the address (sum and count) differ from the UTXOs the latest snapshot
// holds for it — the disagreement Reconcile shows. Without them, an address looked up while the index
// lacked its new block would keep the index's old answer until the address changed again.
// A user-added address (not in the node's wallet) has only the index: it is looked up when the index
// tip moved. Every other address keeps the UTXOs of the latest snapshot (copied forward in the same
// transaction). Lookups that find exactly the UTXOs the snapshot holds do not make a new snapshot.
//
import type { IndexUtxo } from '../blockindex/types';
import type { AddressFetch, AddressSource, ReceivedRecord, Snapshot, Tip, UtxoRecord, UtxoRow, WalletScope, WatchRepository } from '../store/watch';
import type { Slicer } from './slice';
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
 * Whether a node address must be looked up (again) in the index (the rules at the top of this file): `index`
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

/** One address of the refresh: where it comes from and whether the index is asked for it this time. */
export interface PlannedAddress {
  address: string;
  source: AddressSource;
  fetch: boolean;
}

/**
 * The refresh's addresses (the node's, then the user's) and which of them to look up in the index
 * (the rules at the top of this file), against the latest snapshot `prev`.
 */
export async function lookupPlan(a: {
  store: WatchRepository;
  prev: Pick<Snapshot, 'id' | 'index'> | null;
  received: readonly ReceivedRecord[];
  prevReceived: ReadonlyMap<string, ReceivedRecord>;
  prevFetch: ReadonlyMap<string, AddressFetch>;
  userAddresses: readonly string[];
  nodeTip: Tip;
  indexTip: Tip;
  slicer: Slicer;
}): Promise<PlannedAddress[]> {
  const plan: PlannedAddress[] = [];
  // What the index said last time, to compare with what the node says now.
  const prevIndex = a.prev !== null && a.received.some((r) => r.nodeUnspent !== null) ? a.store.utxoTotals(a.prev.id) : new Map<string, IndexTotals>();
  for (const r of a.received) {
    const fetch = mustLookUp(r, a.prevReceived.get(r.address), a.prevFetch.get(r.address), prevIndex.get(r.address) ?? NO_UTXOS, a.nodeTip.height);
    plan.push({ address: r.address, source: 'node', fetch });
    await a.slicer.tick();
  }
  const tipMoved = a.prev === null || a.prev.index === null || a.prev.index.hash !== a.indexTip.hash;
  for (const address of a.userAddresses) {
    const f = a.prevFetch.get(address);
    plan.push({ address, source: 'user', fetch: tipMoved || f === undefined || f.state === 'failed' || f.fetchedAt === null });
    await a.slicer.tick();
  }
  return plan;
}
