// The refresh engine (issue 5, item 2): asks the node and the index what the watched addresses have
// received and hold, and writes one snapshot. Electron-free: it gets a repository, an RPC client and an
// index client, so tests run it against the devnet and the app against the user's node.
//
// One refresh, step by step (a failing step is named in the failure record):
//   received     one `listreceivedbyaddress 0 true true` on the wallet (+ one `listunspent 1`, see below)
//   addressinfo  `getaddressinfo` for addresses that are new or whose info is older than infoMaxAgeMs,
//                as JSON-RPC batches
//   tips         the node's tip (`getblockchaininfo`) and the index's (`block/last`), read BEFORE the
//                lookups: the snapshot records the index tip its UTXOs are at least as fresh as, so a
//                block found during the lookups makes the next refresh look again rather than never
//   utxos        index `address/utxo` for the addresses that changed (below), handed to the index
//                client a window at a time (lookupWindow, default 64: enough to keep its concurrency
//                cap busy; the client applies its own rate limit and cap), so that 10,000 lookups do
//                not sit in memory as 10,000 pending requests
//   write        the snapshot, in one SQLite transaction; then old snapshots are pruned. When nothing
//                changed (no getaddressinfo, lookups that found the UTXOs already held, the same
//                addresses, received amounts, txids and node-unspent digests as the latest snapshot,
//                which is 'ok' and the last attempt), no snapshot is written: the latest one takes the
//                check's time, tips and confirmations in place (WatchRepository.touchSnapshot, one
//                transaction) and the result says `unchanged`
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
// Failures: any error of a step (node down, index 5xx or 429 after the client's retries, a reply
// that is not what it should be) ends the refresh: the latest good snapshot stays the latest, a
// 'failed' row records the step, code and message, and run() rejects with the AppError. A lookup the
// index refuses for that one address (400 invalid address, 404) does not end it: the address is
// marked failed, keeps its previous UTXOs, the snapshot is 'partial', and the next refresh asks again.
// Cancelling (the AbortSignal) rejects with 'cancelled' and writes nothing, not even a failure row: a
// cancel is the user's choice, not something that went wrong.
//
// One refresh at a time: run() while a refresh is going returns the promise of the running one (its
// options — signal, onProgress — stay those of the first call).
//
// After a new block or wallet transaction the app runs the incremental refresh (incremental.ts),
// which updates the latest snapshot in place from `listsinceblock` and falls back to this one.
import { setMaxListeners } from 'node:events';
import { AppError, isAppError } from '../../../shared/errors';
import type { IndexClient } from '../blockindex/client';
import type { IndexTransaction, IndexUtxo } from '../blockindex/types';
import { silentLogger, type Logger } from '../log';
import { collectGarbage } from '../memory';
import type { RpcClient } from '../rpc/client';
import {
  btcNumberToSats,
  changeByAddress,
  changeRecords,
  EMPTY_NODE_UNSPENT,
  isRecord,
  LIST_RECEIVED_PARAMS,
  outpointsDigest,
  parseNodeTip,
  parseReceived,
  parseUnspent,
} from './node-replies';
import {
  DEFAULT_KEEP_SNAPSHOTS,
  type AddressFetch,
  type AddressSource,
  type DiffSummary,
  type ReceivedRecord,
  type RefreshStep,
  type Snapshot,
  type SnapshotAddress,
  type Tip,
  type UtxoRecord,
  type UtxoRow,
  type WatchRepository,
} from '../store/watch';

export { btcNumberToSats, changeByAddress, changeRecords, EMPTY_NODE_UNSPENT, LIST_RECEIVED_PARAMS, outpointsDigest, parseNodeTip, parseReceived, parseUnspent };

export type RefreshPhase = 'received' | 'addressinfo' | 'utxos' | 'write';

export interface RefreshProgress {
  phase: RefreshPhase;
  done: number;
  total: number;
}

export interface RefreshRunOptions {
  signal?: AbortSignal;
  onProgress?(p: RefreshProgress): void;
}

export interface RefreshResult {
  snapshotId: number;
  /** The good snapshot this one was compared with (and carried UTXOs from); null for the first. */
  previousId: number | null;
  status: 'ok' | 'partial';
  /**
   * True when the refresh found nothing changed and wrote no new snapshot: `snapshotId` is then the
   * latest snapshot (= `previousId`), whose time, tips and confirmations were updated in place.
   */
  unchanged: boolean;
  takenAt: string;
  node: Tip;
  index: Tip;
  counts: {
    /** Watched addresses in the snapshot (node + user). */
    addresses: number;
    nodeAddresses: number;
    userAddresses: number;
    /** getaddressinfo replies stored / refused by the node. */
    infosFetched: number;
    infoErrors: number;
    /** Index address/utxo lookups made, and those the index refused for that address. */
    utxoLookups: number;
    utxoFailures: number;
    /** Addresses whose UTXOs were copied from the previous snapshot. */
    carriedForward: number;
    /** UTXOs fetched in this refresh. */
    utxosFetched: number;
  };
  /** The addresses looked up in the index, in the order they were queued. */
  fetched: string[];
  diff: DiffSummary;
  /**
   * How the node's unspent outputs were checked: asked (`listunspent`), taken from the latest
   * snapshot because the wallet reported the same state (`reused`), or not at all (`off`).
   */
  spendCheck: 'listunspent' | 'reused' | 'off';
  /** Milliseconds per step, and in all. */
  timings: Record<RefreshStep | 'total', number>;
}

/** What the engine needs of the RPC client (RpcClient, or a counting wrapper in tests). */
export type RefreshRpc = Pick<RpcClient, 'call' | 'batch'>;
/** What the engine needs of the index client. */
export type RefreshIndex = Pick<IndexClient, 'addressUtxo' | 'tip' | 'transaction' | 'genesisHash'>;

export interface RefreshEngineOptions {
  store: WatchRepository;
  rpc: RefreshRpc;
  index: RefreshIndex;
  profileId: string;
  /** Clock, ms since the epoch (default Date.now). */
  now?: () => number;
  log?: Logger;
  /** getaddressinfo replies older than this are fetched again (default 24 h). */
  infoMaxAgeMs?: number;
  /** Good snapshots kept per profile (default 50). */
  keepSnapshots?: number;
  /** Ask the node (`listunspent`) which addresses' coins were spent (default true; see the top of the file). */
  checkSpends?: boolean;
  /** getaddressinfo calls per JSON-RPC batch (default 500). */
  infoBatchSize?: number;
  /** Index lookups handed to the index client at a time (default 64). */
  lookupWindow?: number;
  /**
   * Called after a step that handled at least `releaseAfter` replies (default 2,000), and after a
   * refresh of that many addresses, whose parsed replies are garbage from then on (default: a full
   * V8 collection, electron/main/memory.ts; null: never).
   */
  releaseMemory?: (() => void) | null;
  releaseAfter?: number;
  /** Genesis hash of the chain, for the transaction cache (default: asked from the index once). */
  genesisHash?: string;
}

export const DEFAULT_INFO_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const PROGRESS_INTERVAL_MS = 50;
const HEX64 = /^[0-9a-f]{64}$/;
/** Index errors that concern one address; any other error ends the refresh. */
const PER_ADDRESS_CODES: ReadonlySet<string> = new Set(['index.invalid', 'index.not_found', 'index.not_configured']);

function cancelled(): AppError {
  return new AppError('cancelled', 'The refresh was cancelled.');
}

function toAppError(e: unknown, log: Logger): AppError {
  if (isAppError(e)) return e;
  log.error(`refresh: unexpected ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  return new AppError('internal', 'The refresh failed inside Spyglass. The details were written to the log.');
}


/** A lookup's UTXOs equal a snapshot's (as the snapshot would store them: outpoint, amount, height). */
function sameUtxos(got: readonly IndexUtxo[], held: readonly UtxoRecord[]): boolean {
  if (got.length !== held.length) return false;
  const key = (txid: string, vout: number, sats: bigint, height: number | null): string => `${txid}:${vout}:${sats}:${height}`;
  const want = new Set(held.map((u) => key(u.txid, u.vout, u.amountSats, u.height)));
  return want.size === got.length && got.every((u) => want.has(key(u.txId, u.vOut, u.amount, u.block)));
}

interface IndexTotals {
  sats: bigint;
  count: number;
}

const NO_UTXOS: IndexTotals = { sats: 0n, count: 0 };

/** Up to this many addresses looked up again, their held UTXOs are read one address at a time. */
const HELD_ONE_BY_ONE = 256;

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

export class RefreshEngine {
  readonly #store: WatchRepository;
  readonly #rpc: RefreshRpc;
  readonly #index: RefreshIndex;
  readonly #profileId: string;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #infoMaxAgeMs: number;
  readonly #keep: number;
  readonly #checkSpends: boolean;
  readonly #infoBatch: number;
  readonly #lookupWindow: number;
  readonly #releaseMemory: (() => void) | null;
  readonly #releaseAfter: number;
  #genesis: Promise<string> | null;
  #running: Promise<RefreshResult> | null = null;

  constructor(options: RefreshEngineOptions) {
    this.#store = options.store;
    this.#rpc = options.rpc;
    this.#index = options.index;
    this.#profileId = options.profileId;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? silentLogger;
    this.#infoMaxAgeMs = options.infoMaxAgeMs ?? DEFAULT_INFO_MAX_AGE_MS;
    this.#keep = options.keepSnapshots ?? DEFAULT_KEEP_SNAPSHOTS;
    this.#checkSpends = options.checkSpends ?? true;
    this.#infoBatch = Math.max(1, Math.floor(options.infoBatchSize ?? 500));
    this.#lookupWindow = Math.max(1, Math.floor(options.lookupWindow ?? 64));
    this.#releaseMemory = options.releaseMemory === undefined ? collectGarbage : options.releaseMemory;
    this.#releaseAfter = Math.max(1, Math.floor(options.releaseAfter ?? 2000));
    this.#genesis = options.genesisHash === undefined ? null : Promise.resolve(options.genesisHash);
  }

  /** Whether a refresh is going. */
  get running(): boolean {
    return this.#running !== null;
  }

  /** Runs one refresh; while one is going, returns its promise. */
  run(opts: RefreshRunOptions = {}): Promise<RefreshResult> {
    if (this.#running !== null) return this.#running;
    const p = this.#run(opts)
      .then((r) => {
        // The refresh's replies and rows are garbage once #run returned.
        if (!r.unchanged) this.#release(r.counts.addresses);
        return r;
      })
      .finally(() => {
        this.#running = null;
      });
    this.#running = p;
    return p;
  }

  /**
   * An index transaction record, from the cache when it holds a confirmed one (its block, inputs and
   * outputs no longer change; confirmations follow from the tip), else from the index (and cached).
   * When the index cannot be reached, a cached record of any age is returned (`fromCache: true`).
   * `refresh: true` asks the index even for a cached confirmed record (e.g. for its `spent` lists).
   */
  async transaction(txid: string, opts: { signal?: AbortSignal; refresh?: boolean } = {}): Promise<{ tx: IndexTransaction; fetchedAt: string; fromCache: boolean }> {
    const id = txid.toLowerCase();
    if (!HEX64.test(id)) throw new AppError('input.invalid', `"${txid.slice(0, 70)}" is not a transaction id: expected 64 hex characters.`, { field: 'txid' });
    const genesis = await this.#genesisHash(opts.signal);
    const cached = this.#store.getIndexTx(genesis, id);
    if (cached !== null && cached.tx.blockHash !== null && opts.refresh !== true) return { ...cached, fromCache: true };
    try {
      const tx = await this.#index.transaction(id, opts.signal ? { signal: opts.signal } : {});
      const fetchedAt = new Date(this.#now()).toISOString();
      this.#store.putIndexTx(genesis, tx, fetchedAt);
      return { tx, fetchedAt, fromCache: false };
    } catch (e) {
      if (cached !== null && isAppError(e) && e.code.startsWith('net.')) return { ...cached, fromCache: true };
      throw e;
    }
  }

  // -------------------------------------------------------------------------------------------

  /**
   * The wallet's state for the spend check: "<walletname>:<txcount>:<lastprocessedblock hash>", or
   * null when the node does not report it (no such method, or the fields are missing) — then the
   * engine asks `listunspent` every time. Errors reaching the node end the refresh as usual.
   */
  async #walletState(callOpts: { signal?: AbortSignal }): Promise<string | null> {
    let info: unknown;
    try {
      info = await this.#rpc.call('getwalletinfo', [], callOpts);
    } catch (e) {
      if (isAppError(e) && (e.code === 'rpc.method_not_found' || e.code === 'rpc.error' || e.code === 'rpc.bad_reply')) {
        this.#log.warn(`refresh: getwalletinfo: ${e.code} ${e.message}; the node's unspent outputs are asked every time`);
        return null;
      }
      throw e;
    }
    if (!isRecord(info)) return null;
    const { walletname, txcount, lastprocessedblock: lpb } = info;
    if (typeof walletname !== 'string' || typeof txcount !== 'number' || !Number.isSafeInteger(txcount) || !isRecord(lpb)) return null;
    if (typeof lpb.hash !== 'string' || !HEX64.test(lpb.hash)) return null;
    return `${walletname.slice(0, 100)}:${txcount}:${lpb.hash}`;
  }

  /** releaseMemory after a step that handled `n` replies, when that is many. */
  #release(n: number): void {
    if (n < this.#releaseAfter || this.#releaseMemory === null) return;
    try {
      this.#releaseMemory();
    } catch (e) {
      this.#log.warn(`refresh: releasing memory failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  #genesisHash(signal: AbortSignal | undefined): Promise<string> {
    if (this.#genesis === null) {
      const p = this.#index.genesisHash(signal ? { signal } : {});
      this.#genesis = p;
      p.catch(() => {
        if (this.#genesis === p) this.#genesis = null; // not kept when it failed
      });
    }
    return this.#genesis;
  }

  async #run(opts: RefreshRunOptions): Promise<RefreshResult> {
    const { signal } = opts;
    const t0 = performance.now();
    const takenAt = new Date(this.#now()).toISOString();
    const timings: Record<RefreshStep | 'total', number> = { received: 0, addressinfo: 0, tips: 0, utxos: 0, write: 0, total: 0 };
    const profileId = this.#profileId;
    const callOpts = signal ? { signal } : {};
    let step: RefreshStep = 'received';
    let nodeTip: Tip | null = null;
    let indexTip: Tip | null = null;
    let stepStart = performance.now();
    let spendCheck: RefreshResult['spendCheck'] = 'off';
    const endStep = (next: RefreshStep): void => {
      const t = performance.now();
      timings[step] = Math.round(t - stepStart);
      step = next;
      stepStart = t;
    };
    const progress = this.#progressEmitter(opts.onProgress);
    const checkAbort = (): void => {
      if (signal?.aborted) throw cancelled();
    };

    try {
      checkAbort();
      // ---- 1. received (+ the node's unspent outputs)
      progress('received', 0, 1, true);
      const prev = this.#store.latestSnapshot(profileId);
      const prevReceived = prev === null ? new Map<string, ReceivedRecord>() : this.#store.received(prev.id);
      const prevFetch = prev === null ? new Map<string, AddressFetch>() : this.#store.fetchStates(prev.id);
      const [walletStateBefore, receivedReply] = await Promise.all([
        this.#checkSpends ? this.#walletState(callOpts) : Promise.resolve(null),
        // Named, without include_watchonly (no effect on descriptor wallets; removed after v30, which
        // shifts the positions of the arguments after it): valid in every Core variant (spec §7).
        this.#rpc.call('listreceivedbyaddress', LIST_RECEIVED_PARAMS, callOpts),
      ]);
      const received = parseReceived(receivedReply);
      // The state is what the snapshot's node rows are exact at (the incremental refresh lists what
      // happened since its block, refresh/incremental.ts): asked again, and not recorded when the
      // wallet moved while listreceivedbyaddress was read (then the next refresh is a full one).
      const walletState = walletStateBefore !== null && (await this.#walletState(callOpts)) === walletStateBefore ? walletStateBefore : null;
      let handled = received.length;
      if (this.#checkSpends) {
        const reuse =
          walletState !== null && prev !== null && prev.walletState === walletState && received.every((r) => prevReceived.get(r.address)?.nodeUnspent != null);
        const listed = new Set(received.map((r) => r.address));
        if (reuse) {
          for (const r of received) r.nodeUnspent = prevReceived.get(r.address)!.nodeUnspent;
          // The same wallet state: the same change coins as the previous snapshot's change rows.
          for (const r of prevReceived.values()) if (!listed.has(r.address)) received.push(r);
        } else {
          const reply = await this.#rpc.call('listunspent', [0], callOpts);
          handled += Array.isArray(reply) ? reply.length : 0;
          const unspent = parseUnspent(reply, 1);
          for (const r of received) r.nodeUnspent = unspent.get(r.address) ?? EMPTY_NODE_UNSPENT;
          const change = changeByAddress(reply, listed, unspent);
          received.push(...change.values());
        }
        spendCheck = reuse ? 'reused' : 'listunspent';
      }
      progress('received', 1, 1, true);
      checkAbort();

      const nodeSet = new Set(received.map((r) => r.address));
      const userAddresses = this.#store
        .listAddresses(profileId, { source: 'user' })
        .map((a) => a.address)
        .filter((a) => !nodeSet.has(a));

      this.#release(handled);

      // ---- 2. addressinfo
      endStep('addressinfo');
      const all = [...nodeSet, ...userAddresses];
      const stale = this.#store.staleInfo(profileId, all, this.#infoMaxAgeMs, this.#now());
      // Kept as JSON text until the write (10,000 parsed replies would hold several times the memory).
      const infos: Array<{ address: string; infoJson: string }> = [];
      let infoErrors = 0;
      progress('addressinfo', 0, stale.length, true);
      for (let i = 0; i < stale.length; i += this.#infoBatch) {
        const chunk = stale.slice(i, i + this.#infoBatch);
        const replies = await this.#rpc.batch(
          chunk.map((a) => ({ method: 'getaddressinfo', params: [a] })),
          callOpts,
        );
        replies.forEach((r, j) => {
          const address = chunk[j]!;
          if (r.ok && isRecord(r.value)) infos.push({ address, infoJson: JSON.stringify(r.value) });
          else {
            infoErrors++;
            this.#log.warn(`refresh: getaddressinfo ${address}: ${r.ok ? 'not an object' : `${r.error.code} ${r.error.message}`}`);
          }
        });
        progress('addressinfo', Math.min(stale.length, i + chunk.length), stale.length);
        checkAbort();
      }

      this.#release(stale.length);

      // ---- 3. tips
      endStep('tips');
      [nodeTip, indexTip] = await Promise.all([
        this.#rpc.call('getblockchaininfo', [], { ...callOpts, wallet: false }).then(parseNodeTip),
        this.#index.tip(callOpts),
      ]);
      checkAbort();

      // ---- 4. utxos
      endStep('utxos');
      const plan: Array<{ address: string; source: AddressSource; fetch: boolean }> = [];
      // What the index said last time, to compare with what the node says now.
      const prevIndex = prev !== null && received.some((r) => r.nodeUnspent !== null) ? this.#store.utxoTotals(prev.id) : new Map<string, IndexTotals>();
      for (const r of received) {
        const fetch = this.#mustLookUp(r, prevReceived.get(r.address), prevFetch.get(r.address), prevIndex.get(r.address) ?? NO_UTXOS, nodeTip.height);
        plan.push({ address: r.address, source: 'node', fetch });
      }
      const tipMoved = prev === null || prev.index === null || prev.index.hash !== indexTip.hash;
      for (const a of userAddresses) {
        const f = prevFetch.get(a);
        plan.push({ address: a, source: 'user', fetch: tipMoved || f === undefined || f.state === 'failed' || f.fetchedAt === null });
      }
      const toFetch = plan.filter((p) => p.fetch).map((p) => p.address);
      const lookups = await this.#lookUp(toFetch, signal, (done) => progress('utxos', done, toFetch.length));
      checkAbort();
      this.#release(toFetch.length);

      // ---- 5. write
      endStep('write');
      progress('write', 0, 1, true);
      let snapshotId: number;
      let diff: DiffSummary;
      let failures = 0;
      let utxosFetched = 0;
      const unchanged = prev !== null && infos.length === 0 && this.#unchanged(prev.id, prev.status, plan, received, prevReceived, prevFetch, lookups);
      if (unchanged) {
        // Nothing changed: the latest snapshot records the check (time, tips, confirmations, and the
        // lookups that found the same UTXOs) in place.
        snapshotId = prev.id;
        this.#store.touchSnapshot(profileId, snapshotId, { takenAt, node: nodeTip, index: indexTip, received, walletState, refetched: toFetch });
        progress('write', 1, 1, true);
        diff = { newUtxos: 0, newSats: 0n, spentUtxos: 0, spentSats: 0n, newTxids: 0 };
      } else {
        const addresses: SnapshotAddress[] = plan.map((p): SnapshotAddress => {
          if (!p.fetch) return { address: p.address, source: p.source, state: 'carried' };
          const got = lookups.get(p.address);
          if (got === undefined || 'error' in got) return { address: p.address, source: p.source, state: 'failed', errorCode: got?.error ?? 'internal' };
          return {
            address: p.address,
            source: p.source,
            state: 'fetched',
            utxos: got.utxos.map((u) => ({ txid: u.txId, vout: u.vOut, amountSats: u.amount, height: u.block })),
          };
        });
        snapshotId = this.#store.writeSnapshot(profileId, {
          takenAt,
          node: nodeTip,
          index: indexTip,
          previousId: prev?.id ?? null,
          received,
          addresses,
          infos,
          walletState,
        });
        progress('write', 1, 1, true);
        try {
          this.#store.prune(profileId, this.#keep);
        } catch (e) {
          this.#log.warn(`refresh: pruning old snapshots failed: ${e instanceof Error ? e.message : String(e)}`);
        }
        diff = this.#store.diffSummary(prev?.id ?? null, snapshotId);
        failures = addresses.filter((a) => a.state === 'failed').length;
        utxosFetched = addresses.reduce((n, a) => n + (a.state === 'fetched' ? a.utxos.length : 0), 0);
      }
      endStep('write');
      timings.total = Math.round(performance.now() - t0);

      // (When nothing changed, infos is empty and every lookup found the UTXOs the snapshot holds.)
      const result: RefreshResult = {
        snapshotId,
        previousId: prev?.id ?? null,
        status: failures > 0 ? 'partial' : 'ok',
        unchanged,
        takenAt,
        node: nodeTip,
        index: indexTip,
        counts: {
          addresses: plan.length,
          nodeAddresses: received.length,
          userAddresses: userAddresses.length,
          infosFetched: infos.length,
          infoErrors,
          utxoLookups: toFetch.length,
          utxoFailures: failures,
          carriedForward: plan.length - toFetch.length,
          utxosFetched,
        },
        fetched: toFetch,
        diff,
        spendCheck,
        timings,
      };
      if (unchanged) {
        this.#log.info(`refresh: nothing changed, snapshot ${snapshotId} checked at ${takenAt} (addresses=${plan.length} lookups=${toFetch.length}) in ${timings.total} ms`);
      } else {
        this.#log.info(
          `refresh: snapshot ${snapshotId} (${result.status}) addresses=${plan.length} infos=${infos.length} lookups=${toFetch.length} carried=${result.counts.carriedForward} ` +
            `+${diff.newUtxos}/-${diff.spentUtxos} utxos in ${timings.total} ms`,
        );
      }
      return result;
    } catch (e) {
      const err = signal?.aborted ? cancelled() : toAppError(e, this.#log);
      if (err.code !== 'cancelled') {
        try {
          this.#store.recordFailure(profileId, { takenAt, step, code: err.code, message: err.message, node: nodeTip, index: indexTip });
        } catch (e2) {
          this.#log.error(`refresh: could not record the failure: ${e2 instanceof Error ? e2.message : String(e2)}`);
        }
        this.#log.warn(`refresh: failed at ${step}: ${err.code} ${err.message}`);
      }
      throw err;
    }
  }

  /**
   * Whether a refresh found nothing that a new snapshot would record differently from the latest one
   * `prevId` apart from the time, the tips and the node's confirmations and labels: no lookup, the
   * same addresses with the same sources, the same received amounts, txid sets and node-unspent
   * digests, the previous snapshot 'ok' and also the last attempt (a failure after it stays visible).
   */
  #unchanged(
    prevId: number,
    prevStatus: Snapshot['status'],
    plan: ReadonlyArray<{ address: string; source: AddressSource; fetch: boolean }>,
    received: readonly ReceivedRecord[],
    prevReceived: ReadonlyMap<string, ReceivedRecord>,
    prevFetch: ReadonlyMap<string, AddressFetch>,
    lookups: ReadonlyMap<string, { utxos: IndexUtxo[] } | { error: string }>,
  ): boolean {
    if (prevStatus !== 'ok' || this.#store.lastAttempt(this.#profileId)?.id !== prevId) return false;
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
      if (a === null ? b !== null : b === null || a.hash !== b.hash || a.sats !== b.sats || a.count !== b.count) return false;
    }
    // Addresses looked up again: unchanged only if the index gave exactly the UTXOs the snapshot holds.
    if (looked.length === 0) return true;
    const held = this.#heldUtxos(prevId, looked);
    return looked.every((address) => {
      const got = lookups.get(address);
      return got !== undefined && !('error' in got) && sameUtxos(got.utxos, held.get(address) ?? []);
    });
  }

  /** The UTXOs snapshot `id` holds for `addresses` (one query per address, or one for all when there are many). */
  #heldUtxos(id: number, addresses: readonly string[]): Map<string, UtxoRecord[]> {
    const out = new Map<string, UtxoRecord[]>();
    const add = (u: UtxoRow): void => {
      const list = out.get(u.address);
      if (list === undefined) out.set(u.address, [u]);
      else list.push(u);
    };
    if (addresses.length <= HELD_ONE_BY_ONE) {
      for (const a of addresses) for (const u of this.#store.utxos(this.#profileId, a, id)) add(u);
    } else {
      const wanted = new Set(addresses);
      for (const u of this.#store.utxos(this.#profileId, null, id)) if (wanted.has(u.address)) add(u);
    }
    return out;
  }

  /**
   * Whether a node address must be looked up (again) in the index (see the top of the file): `index`
   * is what the latest snapshot holds for it, `nodeHeight` the node's tip now.
   */
  #mustLookUp(cur: ReceivedRecord, prev: ReceivedRecord | undefined, fetch: AddressFetch | undefined, index: IndexTotals, nodeHeight: number): boolean {
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

  /**
   * Looks up `addresses` through the index client, at most lookupWindow at a time (the client's
   * concurrency cap and rate limit apply within that). The first error that is not about one
   * address cancels the running lookups, starts no more, and is thrown.
   */
  async #lookUp(
    addresses: readonly string[],
    signal: AbortSignal | undefined,
    onDone: (done: number) => void,
  ): Promise<Map<string, { utxos: IndexUtxo[] } | { error: string }>> {
    const out = new Map<string, { utxos: IndexUtxo[] } | { error: string }>();
    onDone(0);
    if (addresses.length === 0) return out;
    const inner = new AbortController();
    setMaxListeners(0, inner.signal); // each running lookup listens to it (up to lookupWindow at a time)
    const onAbort = (): void => inner.abort();
    if (signal?.aborted) inner.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let fatal = null as AppError | null; // set from the workers below
    let done = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < addresses.length && !inner.signal.aborted) {
        const address = addresses[next++]!;
        try {
          out.set(address, { utxos: await this.#index.addressUtxo(address, { signal: inner.signal }) });
        } catch (e) {
          const err = toAppError(e, this.#log);
          if (PER_ADDRESS_CODES.has(err.code) && !inner.signal.aborted) {
            this.#log.warn(`refresh: address/utxo ${address}: ${err.code} ${err.message}`);
            out.set(address, { error: err.code });
          } else {
            fatal ??= err;
            inner.abort();
          }
        } finally {
          done++;
          onDone(done);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(addresses.length, this.#lookupWindow) }, worker));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) throw cancelled();
    if (fatal !== null) throw fatal;
    return out;
  }

  /** Progress events, at most one per PROGRESS_INTERVAL_MS per phase except the first and the last. */
  #progressEmitter(cb: RefreshRunOptions['onProgress']): (phase: RefreshPhase, done: number, total: number, force?: boolean) => void {
    let last = 0;
    let lastPhase: RefreshPhase | null = null;
    return (phase, done, total, force = false) => {
      if (cb === undefined) return;
      const t = performance.now();
      if (!force && phase === lastPhase && done < total && t - last < PROGRESS_INTERVAL_MS) return;
      last = t;
      lastPhase = phase;
      try {
        cb({ phase, done, total });
      } catch (e) {
        this.#log.warn(`refresh: progress listener threw: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
  }
}
