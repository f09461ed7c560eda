// The refresh's first step (engine.ts, "received"): what the node's wallet has received
// (`listreceivedbyaddress`), and, when spends are checked, the node's own unspent outputs per address
// and the wallet's change addresses that hold coins (one `listunspent`, skipped while the wallet's
// state is the one the latest snapshot recorded). The engine's header comment says why each call.
// The two replies are asked and parsed here, or (`elsewhere`: the app) in the import worker
// (received-job.ts), which sends back the records a page at a time; the wallet-state check is made
// here either way, around listreceivedbyaddress.
import type { Logger } from '../log';
import type { AddressFetch, ReceivedRecord, WalletScope, WatchRepository } from '../store/watch';
import type { RefreshResult, RefreshRpc } from './engine-types';
import { addUnspent, LIST_RECEIVED_PARAMS, parseReceived, walletStateOf } from './node-replies';
import type { ReceivedJobReply, ReceivedOp } from './received-job';
import type { Slicer } from './slice';

export interface ReceivedStep {
  prev: ReturnType<WatchRepository['latestSnapshot']>;
  prevReceived: Map<string, ReceivedRecord>;
  prevFetch: Map<string, AddressFetch>;
  /** The node's addresses (change addresses with coins included), with their node-unspent digests. */
  received: ReceivedRecord[];
  /** The wallet state the rows are exact at, or null when the wallet moved meanwhile (or is not checked). */
  walletState: string | null;
  /** How many reply entries were parsed on this thread (for the engine's memory release). */
  handled: number;
  spendCheck: RefreshResult['spendCheck'];
}

/** Runs one job of the step in the import worker, under the refresh's session (received-job.ts). */
export type ReceivedElsewhere = (op: ReceivedOp) => Promise<ReceivedJobReply>;

/** Records read from the worker per job (default): each reply is a short structured clone, not one of 20,000 records. */
export const RECEIVED_PAGE = 1000;

/** Where the two replies are asked and parsed: `list` gives the records, `unspent` completes them. */
interface ReceivedSource {
  list(): Promise<ReceivedRecord[]>;
  /** Gives the records their digests and appends the change rows; returns the entries parsed here. */
  unspent(received: ReceivedRecord[]): Promise<number>;
}

function askedHere(rpc: RefreshRpc, callOpts: { signal?: AbortSignal }): ReceivedSource {
  return {
    // Named, without include_watchonly (no effect on descriptor wallets; removed after v30, which
    // shifts the positions of the arguments after it): valid in every Core variant (spec §7).
    list: async () => parseReceived(await rpc.call('listreceivedbyaddress', LIST_RECEIVED_PARAMS, callOpts)),
    unspent: async (received) => addUnspent(received, await rpc.call('listunspent', [0], callOpts)),
  };
}

function askedElsewhere(job: ReceivedElsewhere, page: number, slicer: Slicer): ReceivedSource {
  const pages = async (what: 'records' | 'unspent', from: number, to: number, take: (r: ReceivedJobReply, at: number) => void): Promise<void> => {
    for (let at = from; at < to; at += page) {
      take(await job({ op: 'page', what, from: at, size: Math.min(page, to - at) }), at);
      await slicer.pause();
    }
  };
  return {
    list: async () => {
      const { count } = await job({ op: 'list' });
      const out: ReceivedRecord[] = [];
      await pages('records', 0, count, (r) => {
        for (const x of r.records ?? []) out.push(x);
      });
      return out;
    },
    unspent: async (received) => {
      const { count, listed } = await job({ op: 'unspent' });
      if (listed !== received.length) throw new Error(`The import worker kept ${listed} received records, this thread ${received.length}.`);
      await pages('unspent', 0, listed, (r, at) => (r.unspent ?? []).forEach((u, i) => (received[at + i]!.nodeUnspent = u)));
      await pages('records', listed, count, (r) => {
        for (const x of r.records ?? []) received.push(x);
      });
      return 0;
    },
  };
}

/**
 * Rows of the previous snapshot read per step: one `store.received` of 10,000 entries held the main
 * thread 113 ms (their txids and digests parsed), 1,000 take about a tenth of that.
 */
export const PREVIOUS_SLICE = 1000;

/** Reads slices of `slice` rows in address order until a short one, the event loop getting a turn between them. */
async function inSlices<T extends { address: string }>(read: (after: string | null) => T[], slice: number, slicer: Slicer): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for (let after: string | null = null; ; ) {
    const rows = read(after);
    for (const r of rows) out.set(r.address, r);
    await slicer.pause();
    if (rows.length < slice) return out;
    after = rows[rows.length - 1]!.address;
  }
}

/**
 * The previous snapshot's received entries and fetch states (the same maps as store.received and
 * store.fetchStates), read `slice` rows at a time (the warm refresh's first step on the main thread).
 */
export async function readPrevious(
  store: Pick<WatchRepository, 'receivedSlice' | 'fetchStatesSlice'>,
  prevId: number | null,
  slicer: Slicer,
  slice = PREVIOUS_SLICE,
): Promise<{ prevReceived: Map<string, ReceivedRecord>; prevFetch: Map<string, AddressFetch> }> {
  if (prevId === null) {
    await slicer.pause();
    return { prevReceived: new Map(), prevFetch: new Map() };
  }
  const n = Math.max(1, Math.floor(slice));
  const prevReceived = await inSlices((after) => store.receivedSlice(prevId, after, n), n, slicer);
  const prevFetch = await inSlices((after) => store.fetchStatesSlice(prevId, after, n), n, slicer);
  return { prevReceived, prevFetch };
}

export async function readReceived(a: {
  store: WatchRepository;
  scope: WalletScope;
  rpc: RefreshRpc;
  checkSpends: boolean;
  callOpts: { signal?: AbortSignal };
  log: Logger;
  slicer: Slicer;
  /** Asks and parses the two replies in the import worker (received-job.ts). */
  elsewhere?: ReceivedElsewhere | null;
  /** With `elsewhere`: drops the refresh's session there (aborting its call), at once when the signal aborts. */
  drop?: () => void;
  /** With `elsewhere`: records read back per job (default RECEIVED_PAGE). */
  page?: number;
  /** Rows of the previous snapshot read per step (default PREVIOUS_SLICE). */
  prevSlice?: number;
}): Promise<ReceivedStep> {
  const signal = a.callOpts.signal;
  const drop = a.elsewhere ? a.drop : undefined;
  if (drop) signal?.addEventListener('abort', drop);
  try {
    return await read(a, a.elsewhere ? askedElsewhere(a.elsewhere, Math.max(1, Math.floor(a.page ?? RECEIVED_PAGE)), a.slicer) : askedHere(a.rpc, a.callOpts), !a.elsewhere);
  } finally {
    if (drop) signal?.removeEventListener('abort', drop);
  }
}

async function read(a: Parameters<typeof readReceived>[0], source: ReceivedSource, here: boolean): Promise<ReceivedStep> {
  let spendCheck: RefreshResult['spendCheck'] = 'off';
  const prev = a.store.latestSnapshot(a.scope);
  const { prevReceived, prevFetch } = await readPrevious(a.store, prev?.id ?? null, a.slicer, a.prevSlice);
  const [walletStateBefore, received] = await Promise.all([a.checkSpends ? walletStateOf(a.rpc, a.callOpts, a.log) : Promise.resolve(null), source.list()]);
  await a.slicer.pause();
  // The state is what the snapshot's node rows are exact at (the incremental refresh lists what
  // happened since its block, refresh/incremental.ts): asked again, and not recorded when the
  // wallet moved while listreceivedbyaddress was read (then the next refresh is a full one).
  const walletState = walletStateBefore !== null && (await walletStateOf(a.rpc, a.callOpts, a.log)) === walletStateBefore ? walletStateBefore : null;
  let handled = here ? received.length : 0;
  if (a.checkSpends) {
    const reuse =
      walletState !== null && prev !== null && prev.walletState === walletState && received.every((r) => prevReceived.get(r.address)?.nodeUnspent != null);
    if (reuse) {
      const listed = new Set(received.map((r) => r.address));
      for (const r of received) r.nodeUnspent = prevReceived.get(r.address)!.nodeUnspent;
      // The same wallet state: the same change coins as the previous snapshot's change rows.
      for (const r of prevReceived.values()) if (!listed.has(r.address)) received.push(r);
    } else {
      handled += await source.unspent(received);
      await a.slicer.pause();
    }
    spendCheck = reuse ? 'reused' : 'listunspent';
  }
  if (!here) await a.elsewhere!({ op: 'release' });
  return { prev, prevReceived, prevFetch, received, walletState, handled, spendCheck };
}
