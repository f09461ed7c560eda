// The jobs the PSBT worker runs, by name, with their request and reply types: the one table both the
// worker (worker.ts) and the inline runner use, so a job runs the same code on either side.
import type { PsbtConvertReply, PsbtDifference, PsbtQrReply, PsbtReviewReply } from '../../../shared/ipc/contract';
import { convertJob, crosscheckDiff, crosscheckPrepare, qrJob, reviewJob, type CrosscheckPrepared, type JobStore, type ReviewRequest } from './jobs';

export interface Jobs {
  review: { request: ReviewRequest; reply: PsbtReviewReply };
  convert: { request: Parameters<typeof convertJob>[0]; reply: PsbtConvertReply };
  qr: { request: Parameters<typeof qrJob>[0]; reply: PsbtQrReply };
  'crosscheck-prepare': { request: Parameters<typeof crosscheckPrepare>[0]; reply: CrosscheckPrepared };
  'crosscheck-diff': { request: { offlineJson: string; nodeResult: unknown }; reply: { differences: PsbtDifference[]; truncated: boolean } };
}
export type JobName = keyof Jobs;

export interface JobMessage {
  id: number;
  job: JobName;
  request: unknown;
}

export function runJob(store: JobStore, job: JobName, request: unknown): unknown {
  switch (job) {
    case 'review':
      return reviewJob(store, request as ReviewRequest);
    case 'convert':
      return convertJob(request as Jobs['convert']['request']);
    case 'qr':
      return qrJob(request as Jobs['qr']['request']);
    case 'crosscheck-prepare':
      return crosscheckPrepare(request as Jobs['crosscheck-prepare']['request']);
    case 'crosscheck-diff': {
      const r = request as Jobs['crosscheck-diff']['request'];
      return crosscheckDiff(r.offlineJson, r.nodeResult);
    }
    default:
      throw new Error(`unknown PSBT job ${String(job)}`);
  }
}
