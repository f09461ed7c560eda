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
//                not sit in memory as 10,000 pending requests; in the app sent and parsed by the import
//                worker (lookup-job.ts) with a client built from the engine's, on its rate limit and cap
//   write        the snapshot, in one SQLite transaction; then old snapshots are pruned. When nothing
//                changed (no getaddressinfo, lookups that found the UTXOs already held, the same
//                addresses, received amounts, txids and node-unspent digests as the latest snapshot,
//                which is 'ok' and the last attempt), no snapshot is written: the latest one takes the
//                check's time, tips and confirmations in place (WatchRepository.touchSnapshot, one
//                transaction) and the result says `unchanged`
//
// Which addresses are looked up in the index, and why the engine also calls `listunspent`: see
// change-check.ts (lookupPlan, mustLookUp).
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
// The engine is split by responsibility: engine-types.ts (options, result), node-replies.ts (parsing
// the node's replies), address-infos.ts (the getaddressinfo step), change-check.ts (what to look up,
// whether anything changed), received-step.ts (the received step), lookups.ts (the index lookups and the
// snapshot's address rows), progress.ts (errors, progress events),
// index-tx.ts (the transaction cache), slice.ts (turns for the event loop), snapshot-text.ts +
// snapshot-writer.ts (the write elsewhere), writer-session.ts + received-job.ts + info-batches.ts +
// worker-session.ts (the received step and the getaddressinfo batches asked and parsed there),
// lookup-job.ts (the index lookups sent and parsed there).
import type { IndexTransaction } from '../blockindex/types';
import { silentLogger, type Logger } from '../log';
import { collectGarbage } from '../memory';
import {
  btcNumberToSats,
  changeByAddress,
  changeRecords,
  EMPTY_NODE_UNSPENT,
  LIST_RECEIVED_PARAMS,
  outpointsDigest,
  parseNodeTip,
  parseReceived,
  parseUnspent,
} from './node-replies';
import {
  DEFAULT_KEEP_SNAPSHOTS,
  type DiffSummary,
  type RefreshStep,
  type Tip,
  type WalletScope,
  type WatchRepository,
} from '../store/watch';
import { DEFAULT_INFO_MAX_AGE_MS, type RefreshEngineOptions, type RefreshIndex, type RefreshResult, type RefreshRpc, type RefreshRunOptions } from './engine-types';
import { isUnchanged, lookupPlan } from './change-check';
import { fetchAddressInfos, type InfoBatchOutcome } from './address-infos';
import { readReceived } from './received-step';
import { IndexTxCache } from './index-tx';
import { foundCount, keptSameThere, lookUpElsewhere, lookUpUtxos, snapshotAddresses } from './lookups';
import type { LookupJobReply, LookupOp } from './lookup-job';
import { cancelled, progressEmitter, toAppError } from './progress';
import { SLICE_MS, Slicer } from './slice';
import { WriterSession } from './writer-session';
import type { ReceivedJobReply, ReceivedOp } from './received-job';
import { snapshotText } from './snapshot-text';
import type { SnapshotPartWriter, SnapshotWriter } from './snapshot-writer';

export { btcNumberToSats, changeByAddress, changeRecords, EMPTY_NODE_UNSPENT, LIST_RECEIVED_PARAMS, outpointsDigest, parseNodeTip, parseReceived, parseUnspent };
export { DEFAULT_INFO_MAX_AGE_MS } from './engine-types';
export type { RefreshEngineOptions, RefreshIndex, RefreshPhase, RefreshProgress, RefreshResult, RefreshRpc, RefreshRunOptions } from './engine-types';

export class RefreshEngine {
  readonly #store: WatchRepository;
  readonly #rpc: RefreshRpc;
  readonly #index: RefreshIndex;
  readonly #scope: WalletScope;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #infoMaxAgeMs: number;
  readonly #keep: number;
  readonly #checkSpends: boolean;
  readonly #infoBatch: number;
  readonly #lookupWindow: number;
  readonly #releaseMemory: (() => void) | null;
  readonly #releaseAfter: number;
  readonly #releaseSteps: boolean;
  readonly #writer: SnapshotWriter | null;
  readonly #writerPart: SnapshotPartWriter | null;
  readonly #infoBatches: RefreshEngineOptions['infoBatches'] | null;
  readonly #receivedJobs: RefreshEngineOptions['receivedJobs'] | null;
  readonly #receivedPage: number | undefined;
  readonly #lookupJobs: RefreshEngineOptions['lookupJobs'] | null;
  readonly #sliceMs: number | null;
  readonly #txs: IndexTxCache;
  #running: Promise<RefreshResult> | null = null;

  constructor(options: RefreshEngineOptions) {
    this.#store = options.store;
    this.#rpc = options.rpc;
    this.#index = options.index;
    this.#scope = options.wallet === undefined ? options.profileId : { profileId: options.profileId, wallet: options.wallet };
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? silentLogger;
    this.#infoMaxAgeMs = options.infoMaxAgeMs ?? DEFAULT_INFO_MAX_AGE_MS;
    this.#keep = options.keepSnapshots ?? DEFAULT_KEEP_SNAPSHOTS;
    this.#checkSpends = options.checkSpends ?? true;
    this.#infoBatch = Math.max(1, Math.floor(options.infoBatchSize ?? 500));
    this.#lookupWindow = Math.max(1, Math.floor(options.lookupWindow ?? 64));
    this.#releaseMemory = options.releaseMemory === undefined ? collectGarbage : options.releaseMemory;
    this.#releaseAfter = Math.max(1, Math.floor(options.releaseAfter ?? 2000));
    this.#releaseSteps = options.releaseSteps ?? true;
    this.#writer = options.writer ?? null;
    this.#writerPart = this.#writer !== null ? (options.writerPart ?? null) : null;
    this.#infoBatches = this.#writerPart !== null ? (options.infoBatches ?? null) : null;
    this.#receivedJobs = this.#writerPart !== null ? (options.receivedJobs ?? null) : null;
    this.#receivedPage = options.receivedPage;
    this.#lookupJobs = this.#writerPart !== null ? (options.lookupJobs ?? null) : null;
    this.#sliceMs = options.sliceMs === undefined ? SLICE_MS : options.sliceMs;
    this.#txs = new IndexTxCache(this.#store, this.#index, this.#now, options.genesisHash);
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
   * An index transaction record, from the cache when it holds a confirmed one (index-tx.ts); `refresh:
   * true` asks the index even for a cached confirmed record (e.g. for its `spent` lists).
   */
  transaction(txid: string, opts: { signal?: AbortSignal; refresh?: boolean } = {}): Promise<{ tx: IndexTransaction; fetchedAt: string; fromCache: boolean }> {
    return this.#txs.get(txid, opts);
  }

  // -------------------------------------------------------------------------------------------

  /** releaseMemory after a step that handled `n` replies, when that is many. */
  #release(n: number): void {
    if (n < this.#releaseAfter || this.#releaseMemory === null) return;
    try {
      const t = performance.now();
      this.#releaseMemory();
      this.#log.info(`refresh: memory released after ${n} replies in ${Math.round(performance.now() - t)} ms`);
    } catch (e) {
      this.#log.warn(`refresh: releasing memory failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async #run(opts: RefreshRunOptions): Promise<RefreshResult> {
    const { signal } = opts;
    const t0 = performance.now();
    const takenAt = new Date(this.#now()).toISOString();
    const timings: Record<RefreshStep | 'total', number> = { received: 0, addressinfo: 0, tips: 0, utxos: 0, write: 0, total: 0 };
    const scope = this.#scope;
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
    const progress = progressEmitter(opts.onProgress, this.#log);
    // The loops over every address give the event loop a turn every few ms (slice.ts), and so does
    // each long synchronous store call.
    const slicer = new Slicer(this.#sliceMs);
    const checkAbort = (): void => {
      if (signal?.aborted) throw cancelled();
    };
    // With a writer that takes parts ahead (the import worker), the received step and the
    // getaddressinfo replies go to it under this session, and this thread keeps none of them.
    const session = this.#writerPart !== null ? new WriterSession(this.#writerPart) : null;
    const drop = (): void => session?.drop();
    // The received step's replies asked and parsed by the writer itself when it can (received-job.ts).
    const receivedJobs = session !== null && this.#receivedJobs != null ? session.job<ReceivedOp, ReceivedJobReply>(this.#receivedJobs) : null;

    try {
      checkAbort();
      // ---- 1. received (+ the node's unspent outputs)
      progress('received', 0, 1, true);
      const { prev, prevReceived, prevFetch, received, walletState, handled, spendCheck: checked } = await readReceived({
        store: this.#store,
        scope,
        rpc: this.#rpc,
        checkSpends: this.#checkSpends,
        callOpts,
        log: this.#log,
        slicer,
        ...(receivedJobs !== null ? { elsewhere: receivedJobs, drop, page: this.#receivedPage } : {}),
      });
      spendCheck = checked;
      progress('received', 1, 1, true);
      checkAbort();

      const nodeSet = new Set(received.map((r) => r.address));
      const userAddresses = this.#store.addressList(scope, 'user').filter((a) => !nodeSet.has(a));
      await slicer.pause();

      if (this.#releaseSteps) this.#release(handled);

      // ---- 2. addressinfo
      endStep('addressinfo');
      const all = [...nodeSet, ...userAddresses];
      const stale = this.#store.staleInfo(scope, all, this.#infoMaxAgeMs, this.#now());
      await slicer.pause();
      // Asked and parsed by the writer itself when it can (info-batches.ts), else here.
      const elsewhere = session !== null && this.#infoBatches != null ? session.job<{ addresses: string[] }, InfoBatchOutcome>(this.#infoBatches) : null;
      const { infos, count: infoCount, errors: infoErrors } = await fetchAddressInfos({
        rpc: this.#rpc,
        addresses: stale,
        batchSize: this.#infoBatch,
        callOpts,
        log: this.#log,
        slicer,
        progress,
        checkAbort,
        send: session === null ? null : (text) => session.send(text),
        ...(elsewhere !== null ? { elsewhere: (addresses: string[]) => elsewhere({ addresses }), drop } : {}),
      });

      // (Replies parsed elsewhere left nothing here to release.)
      if (this.#releaseSteps && elsewhere === null) this.#release(stale.length);

      // ---- 3. tips
      endStep('tips');
      [nodeTip, indexTip] = await Promise.all([
        this.#rpc.call('getblockchaininfo', [], { ...callOpts, wallet: false }).then(parseNodeTip),
        this.#index.tip(callOpts),
      ]);
      checkAbort();

      // ---- 4. utxos
      endStep('utxos');
      const plan = await lookupPlan({ store: this.#store, prev, received, prevReceived, prevFetch, userAddresses, nodeTip, indexTip, slicer });
      const toFetch = plan.filter((p) => p.fetch).map((p) => p.address);
      const onLookedUp = (done: number): void => progress('utxos', done, toFetch.length);
      // Sent and parsed by the import worker when it can (lookup-job.ts), on this thread's index budget.
      const lookupJob = session !== null && this.#lookupJobs != null ? session.job<LookupOp, LookupJobReply>(this.#lookupJobs.run) : null;
      const lookups =
        lookupJob !== null && this.#lookupJobs != null
          ? await lookUpElsewhere({
              job: lookupJob,
              index: this.#lookupJobs.index,
              addresses: toFetch,
              window: this.#lookupWindow,
              signal,
              log: this.#log,
              onDone: onLookedUp,
              drop,
            })
          : await lookUpUtxos(this.#index, toFetch, this.#lookupWindow, signal, this.#log, onLookedUp);
      checkAbort();
      if (this.#releaseSteps) this.#release(toFetch.length);

      // ---- 5. write
      endStep('write');
      progress('write', 0, 1, true);
      let snapshotId: number;
      let diff: DiffSummary;
      let failures = 0;
      let utxosFetched = 0;
      const keptSame = prev !== null && infoCount === 0 && lookupJob !== null ? await keptSameThere(lookupJob, lookups, scope, prev.id) : undefined;
      const unchanged =
        prev !== null && infoCount === 0 && isUnchanged(this.#store, scope, { prevId: prev.id, prevStatus: prev.status, plan, received, prevReceived, prevFetch, lookups, ...(keptSame !== undefined ? { keptSame } : {}) });
      if (unchanged) {
        // Nothing changed: the latest snapshot records the check (time, tips, confirmations, and the
        // lookups that found the same UTXOs) in place.
        snapshotId = prev.id;
        this.#store.touchSnapshot(scope, snapshotId, { takenAt, node: nodeTip, index: indexTip, received, walletState, refetched: toFetch });
        progress('write', 1, 1, true);
        diff = { newUtxos: 0, newSats: 0n, spentUtxos: 0, spentSats: 0n, newTxids: 0 };
        // The received step there, or batches whose every reply was refused, left a session (and the worker's client) behind.
        if (session?.used) session.drop();
      } else {
        const addresses = await snapshotAddresses(plan, lookups, slicer);
        const snapshot = { takenAt, node: nodeTip, index: indexTip, previousId: prev?.id ?? null, received, addresses, infos, walletState };
        let pruneError: string | null = null;
        if (this.#writer !== null) {
          // In the import worker (snapshot-writer.ts): the text built in slices, the one-transaction
          // write, the pruning and the diff's counts off this thread.
          const text = await snapshotText(snapshot, slicer);
          checkAbort();
          if (session !== null) session.used = false; // the write takes them (and drops them, written or not)
          ({ snapshotId, diff, pruneError } = await this.#writer({ scope, text, keep: this.#keep, ...(session !== null ? { session: session.id } : {}) }));
          progress('write', 1, 1, true);
        } else {
          snapshotId = this.#store.writeSnapshot(scope, snapshot);
          progress('write', 1, 1, true);
          try {
            this.#store.prune(scope, this.#keep);
          } catch (e) {
            pruneError = e instanceof Error ? e.message : String(e);
          }
          diff = this.#store.diffSummary(prev?.id ?? null, snapshotId);
        }
        if (pruneError !== null) this.#log.warn(`refresh: pruning old snapshots failed: ${pruneError}`);
        failures = addresses.filter((a) => a.state === 'failed').length;
        utxosFetched = addresses.reduce((n, a) => n + (a.state === 'fetched' ? Math.max(a.utxos.length, foundCount(lookups.get(a.address))) : 0), 0);
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
          infosFetched: infoCount,
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
          `refresh: snapshot ${snapshotId} (${result.status}) addresses=${plan.length} infos=${infoCount} lookups=${toFetch.length} carried=${result.counts.carriedForward} ` +
            `+${diff.newUtxos}/-${diff.spentUtxos} utxos in ${timings.total} ms`,
        );
      }
      return result;
    } catch (e) {
      // The parts sent ahead are of no use now.
      if (session?.used) session.drop((e2) => this.#log.warn(`refresh: dropping the snapshot's parts failed: ${e2 instanceof Error ? e2.message : String(e2)}`));
      const err = signal?.aborted ? cancelled() : toAppError(e, this.#log);
      if (err.code !== 'cancelled') {
        try {
          this.#store.recordFailure(scope, { takenAt, step, code: err.code, message: err.message, node: nodeTip, index: indexTip });
        } catch (e2) {
          this.#log.error(`refresh: could not record the failure: ${e2 instanceof Error ? e2.message : String(e2)}`);
        }
        this.#log.warn(`refresh: failed at ${step}: ${err.code} ${err.message}`);
      }
      throw err;
    }
  }
}
