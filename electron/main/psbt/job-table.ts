// The jobs the PSBT worker runs, by name, with their request and reply types: the one table both the
// worker (worker.ts) and the inline runner use, so a job runs the same code on either side.
import type { PsbtConvertReply, PsbtDifference, PsbtQrReply, PsbtReviewPageReply, PsbtReviewReply } from '../../../shared/ipc/contract';
import { convertJob, crosscheckDiff, crosscheckPrepare, qrJob, reviewCoreJsonJob, reviewJob, reviewPageJob, type CrosscheckPrepared, type JobStore, type ReviewPageRequest, type ReviewRequest } from './jobs';
import { buildJob, combineJob, exportJob, finalizeJob, type BuildReply, type BuildRequest, type CombineRequest } from '../send/jobs';

export interface Jobs {
  review: { request: ReviewRequest; reply: PsbtReviewReply };
  'review-page': { request: ReviewPageRequest; reply: PsbtReviewPageReply };
  'review-core-json': { request: { key: string; review: ReviewRequest | null }; reply: string | null };
  convert: { request: Parameters<typeof convertJob>[0]; reply: PsbtConvertReply };
  qr: { request: Parameters<typeof qrJob>[0]; reply: PsbtQrReply };
  'crosscheck-prepare': { request: Parameters<typeof crosscheckPrepare>[0]; reply: CrosscheckPrepared };
  'crosscheck-diff': { request: { offlineJson: string; nodeResult: unknown }; reply: { differences: PsbtDifference[]; truncated: boolean } };
  'send-build': { request: BuildRequest; reply: BuildReply };
  'send-combine': { request: CombineRequest; reply: ReturnType<typeof combineJob> };
  'send-finalize': { request: Parameters<typeof finalizeJob>[0]; reply: ReturnType<typeof finalizeJob> };
  'send-export': { request: Parameters<typeof exportJob>[0]; reply: ReturnType<typeof exportJob> };
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
    case 'review-core-json':
      return reviewCoreJsonJob(store, request as Jobs['review-core-json']['request']);
    case 'review-page':
      return reviewPageJob(store, request as ReviewPageRequest);
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
    case 'send-build':
      return buildJob(request as BuildRequest);
    case 'send-combine':
      return combineJob(request as CombineRequest);
    case 'send-finalize':
      return finalizeJob(request as Jobs['send-finalize']['request']);
    case 'send-export':
      return exportJob(request as Jobs['send-export']['request']);
    default:
      throw new Error(`unknown PSBT job ${String(job)}`);
  }
}
