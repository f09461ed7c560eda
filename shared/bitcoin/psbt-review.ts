/**
 * The PSBT review's old import path: the review now lives in ./psbt/ (review.ts, review-types.ts,
 * review-scripts.ts, review-warnings.ts, psbt-text.ts) and reads the one PSBT model.
 */
export { parsePsbtForReview, reviewPsbt, type ParseReviewResult, type ReviewPsbt } from './psbt/review';
export {
  DEFAULT_THRESHOLDS,
  PSBT_WARNING_CODES,
  type OutputKind,
  type PsbtReview,
  type PsbtReviewInput,
  type PsbtReviewOutput,
  type PsbtReviewSummary,
  type PsbtWarning,
  type PsbtWarningCode,
  type ReviewContext,
  type ReviewThresholds,
  type UtxoPresence,
  type WarningSeverity,
} from './psbt/review-types';
export { dustThreshold, ratio2, sighashName, typeName } from './psbt/review-scripts';
export { psbtTextToBytes, type PsbtEncoding, type PsbtTextResult } from './psbt/psbt-text';
