// The jobs the import worker runs, by name, with their request and reply types: the one table both the
// worker (import-worker.ts) and the inline runner use, so a job runs the same code on either side.
import { AppError } from '../../../shared/errors';
import type { AddAddressesResult } from '../../../shared/ipc/contract';
import type { WalletPreview } from '../../../shared/ipc/wallet';
import type { WalletDescription } from '../../../shared/wallet/index';
import type { WatchRepository } from '../store/watch';
import { walletParseJob, walletPreviewJob, type WalletParseRequest } from '../wallet/preview';
import { addAddressesJob, labelImportJob, type AddAddressesRequest, type LabelImportReply, type LabelImportRequest } from './import-jobs';
import { writeSnapshotJob, writeSnapshotPart, type SnapshotPartRequest, type SnapshotWriteReply, type SnapshotWriteRequest } from '../refresh/snapshot-writer';
import { infoBatchJob, type InfoBatchRequest } from '../refresh/info-batches';
import { receivedJob, type ReceivedJobReply, type ReceivedJobRequest } from '../refresh/received-job';
import { endWorkerSession, keptLookups } from '../refresh/worker-session';
import { lookupJob, type LookupJobReply, type LookupJobRequest } from '../refresh/lookup-job';
import type { InfoBatchOutcome } from '../refresh/address-infos';

export interface ImportJobs {
  labels: { request: LabelImportRequest; reply: LabelImportReply };
  'add-addresses': { request: AddAddressesRequest; reply: AddAddressesResult };
  'wallet-preview': { request: WalletParseRequest; reply: WalletPreview };
  'wallet-parse': { request: WalletParseRequest; reply: WalletDescription };
  /** A refresh's new snapshot (refresh/snapshot-writer.ts). */
  'snapshot-write': { request: SnapshotWriteRequest; reply: SnapshotWriteReply };
  /** A part of it sent ahead (its getaddressinfo lines, batch by batch), or the parts dropped. */
  'snapshot-part': { request: SnapshotPartRequest; reply: null };
  /**
   * A batch of its getaddressinfo replies asked of the node here and kept as a part
   * (refresh/info-batches.ts): the main thread never parses them. The one job that replies later (async).
   */
  'snapshot-infos': { request: InfoBatchRequest; reply: InfoBatchOutcome };
  /**
   * A job of its received step (listreceivedbyaddress, listunspent) asked and parsed here, the
   * records read back by pages (refresh/received-job.ts). Async, as snapshot-infos.
   */
  'snapshot-received': { request: ReceivedJobRequest; reply: ReceivedJobReply };
  /**
   * Its index lookups (`address/utxo`) sent and parsed here, on main's index budget (the first job
   * hands over its port), each address's answer sent back by pages (refresh/lookup-job.ts). Async.
   */
  'snapshot-lookups': { request: LookupJobRequest; reply: LookupJobReply };
}
export type ImportJobName = keyof ImportJobs;

/**
 * A message to the import worker: a job, or a slice of a long text that goes before its job (which
 * then says `sliced`: its request's `text` is the slices joined, in order).
 */
export type ImportJobMessage = { id: number; job: ImportJobName; request: unknown; sliced?: boolean } | { id: number; slice: string };

/**
 * Runs `job`; `repo` is the writable repository of the app's SQLite file (null: only the jobs that need
 * none run). Every job but snapshot-infos, snapshot-received and snapshot-lookups returns its reply at once; those return a promise.
 */
export function runImportJob(repo: WatchRepository | null, job: ImportJobName, request: unknown): unknown {
  const store = (): WatchRepository => {
    if (!repo) throw new AppError('internal', `The import job '${job}' needs the app's database, and this runner has none.`);
    return repo;
  };
  switch (job) {
    case 'labels':
      return labelImportJob(store(), request as LabelImportRequest);
    case 'add-addresses':
      return addAddressesJob(store(), request as AddAddressesRequest);
    case 'wallet-preview':
      return walletPreviewJob(request as WalletParseRequest);
    case 'wallet-parse':
      return walletParseJob(request as WalletParseRequest);
    case 'snapshot-write': {
      const r = request as SnapshotWriteRequest;
      if (r.session === undefined) return writeSnapshotJob(store(), r);
      const kept = keptLookups(r.session); // the lookups' UTXOs, for the snapshot's rows
      endWorkerSession(r.session);
      return writeSnapshotJob(store(), r, kept);
    }
    case 'snapshot-part': {
      const r = request as SnapshotPartRequest;
      if (r.text === null) endWorkerSession(r.session);
      return writeSnapshotPart(r);
    }
    case 'snapshot-infos':
      return infoBatchJob(request as InfoBatchRequest);
    case 'snapshot-received':
      return receivedJob(request as ReceivedJobRequest);
    case 'snapshot-lookups':
      return lookupJob(store, request as LookupJobRequest);
  }
}
