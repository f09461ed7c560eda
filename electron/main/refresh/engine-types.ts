// The refresh engine's public types (engine.ts): its options, progress events and result.
import type { IndexClient } from '../blockindex/client';
import type { Logger } from '../log';
import type { RpcClient } from '../rpc/client';
import type { SnapshotPartWriter, SnapshotWriter } from './snapshot-writer';
import type { InfoBatchOutcome } from './address-infos';
import type { ReceivedJobReply, ReceivedOp } from './received-job';
import type { LookupJobReply, LookupJobRequest } from './lookup-job';
import type { DiffSummary, RefreshStep, Tip, WatchRepository } from '../store/watch';

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
  /**
   * The node wallet whose data the refresh reads and writes. Omitted: the wallet the profile names at
   * each step — so pass it whenever the profile's wallet can be switched while a refresh runs.
   */
  wallet?: string;
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
  /** Release after the steps too (default true), not only after the refresh. */
  releaseSteps?: boolean;
  /**
   * Where a new snapshot is written (snapshot-writer.ts; the app: the import worker). Default: on
   * `store`, in this thread.
   */
  writer?: SnapshotWriter;
  /**
   * With `writer`: where the getaddressinfo replies go as each batch arrives (the import worker keeps
   * them for the write), instead of being held in this thread until the write. Default: held here.
   */
  writerPart?: SnapshotPartWriter;
  /**
   * With `writerPart`: asks the node one batch of getaddressinfo where the parts are kept (the import
   * worker's snapshot-infos job, info-batches.ts) and keeps its replies as the session's part, so that
   * this thread never parses them; returns the counts and log lines. Default: asked here on `rpc`.
   */
  infoBatches?: (request: { session: string; addresses: string[] }) => Promise<InfoBatchOutcome>;
  /**
   * With `writerPart`: runs one job of the received step where the parts are kept (the import worker's
   * snapshot-received job, received-job.ts): listreceivedbyaddress and listunspent asked and parsed
   * there, their records read back a page at a time. Default: asked and parsed here on `rpc`.
   */
  receivedJobs?: (request: ReceivedOp & { session: string }) => Promise<ReceivedJobReply>;
  /** With `receivedJobs`: records read back from the worker per job (default 1,000). */
  receivedPage?: number;
  /**
   * With `writerPart`: runs the index lookups where the parts are kept (the import worker's
   * snapshot-lookups job, lookup-job.ts) with a client built from `index` (its handoff()) and paced by
   * its budget (its lend(): one rate limit and concurrency cap for both threads); this thread gets back
   * each address's UTXOs or error code, never a reply to parse. `index` is the engine's index client.
   * Default: looked up here on `index`.
   */
  lookupJobs?: { run: (request: LookupJobRequest) => Promise<LookupJobReply>; index: Pick<IndexClient, 'handoff' | 'lend'> };
  /**
   * How long the engine's loops run before the event loop gets a turn (slice.ts; default SLICE_MS);
   * null: never (the bench's baseline).
   */
  sliceMs?: number | null;
  /** Genesis hash of the chain, for the transaction cache (default: asked from the index once). */
  genesisHash?: string;
}

export const DEFAULT_INFO_MAX_AGE_MS = 24 * 60 * 60 * 1000;
