// Wire types of the PSBT channels (issue 4): `psbt:review` and `psbt:crosscheck`. Amounts cross IPC as
// decimal strings of satoshis ("12345"), like shared/ipc/watch.ts; the analysis behind them is
// shared/bitcoin/psbt-review.ts (bigint inside).
import type { OutputKind, PsbtWarningCode, UtxoPresence, WarningSeverity } from '../bitcoin/psbt-review';
import type { InputPaths } from '../bitcoin/psbt/review-paths';

export type { OutputKind, PsbtWarningCode, UtxoPresence, WarningSeverity } from '../bitcoin/psbt-review';

type Sats = string;

export interface PsbtWarningView {
  code: PsbtWarningCode;
  severity: WarningSeverity;
  message: string;
  /** Rows the warning is about (indexes into `inputs` / `outputs`). */
  inputs: number[];
  outputs: number[];
}

export interface PsbtSummaryView {
  version: 0 | 2;
  txVersion: number;
  txid: string;
  /** Signing cannot change the txid any more (no scriptSig left to add). */
  txidFinal: boolean;
  inputCount: number;
  outputCount: number;
  /** Over every output (the reply carries only the first page of them). */
  changeOutputs: number;
  opReturnOutputs: number;
  /** Distinct destinations of the external outputs (by address, or script for scripts without one). */
  externalDestinations: number;
  inputTotalSats: Sats | null;
  outputTotalSats: Sats;
  /** Leaving to addresses outside the watched set. */
  sentSats: Sats;
  /** Returning to watched addresses. */
  changeSats: Sats;
  /** Paid to OP_RETURN outputs. */
  burnedSats: Sats;
  /** null when an input has no UTXO data. */
  feeSats: Sats | null;
  vsize: number | null;
  weight: number | null;
  /** vsize is exact (every input finalized) rather than estimated. */
  vsizeExact: boolean;
  /** sat/vB with two decimals, e.g. "12.34". */
  feeRate: string | null;
  /** Fee as a percentage of the amount sent, two decimals, e.g. "0.42". */
  feePercent: string | null;
  locktime: { value: number; kind: 'none' | 'height' | 'time'; enforced: boolean };
  rbf: boolean;
  finalized: boolean;
  signaturesComplete: boolean;
}

export interface PsbtInputView {
  index: number;
  txid: string;
  vout: number;
  outpoint: string;
  sequence: number;
  address: string | null;
  amountSats: Sats | null;
  /** p2wpkh, p2sh-p2wpkh, p2pkh, p2wsh 2-of-3, p2tr, … or unknown */
  spendType: string;
  watched: boolean;
  utxo: UtxoPresence;
  sighash: string | null;
  signatureSighashes: string[];
  signatures: { present: number; required: number | null; total: number | null };
  finalized: boolean;
  /** The label of the spent output (or of its address), when there is one. */
  label: string | null;
  /** The wallet's spending paths for this coin: each path's keys that signed and those missing (null: not a coin of the wallet's descriptors). */
  paths: InputPaths | null;
}

export interface PsbtOutputView {
  index: number;
  address: string | null;
  amountSats: Sats;
  scriptType: string;
  scriptHex: string;
  kind: OutputKind;
  changeReason: 'ischange' | 'watched' | null;
  used: boolean;
  dustThresholdSats: Sats;
  dust: boolean;
  opReturn: { hex: string; text: string | null } | null;
  /** The address's label, when there is one. */
  label: string | null;
}

/**
 * The rows a review reply carries at once: the first page of inputs and of outputs (issue 27: the
 * whole 100,000-input review was a 119 MB reply). The rest come by `psbt:review-page`; the summary and
 * the warnings are always over every row.
 */
export const REVIEW_PAGE = 200;
/** The most rows one `psbt:review-page` answers. */
export const REVIEW_PAGE_MAX = 5000;

export interface PsbtReviewView {
  summary: PsbtSummaryView;
  /** The first REVIEW_PAGE inputs (all of them: `summary.inputCount`; the rest by `psbt:review-page`). */
  inputs: PsbtInputView[];
  /** The first REVIEW_PAGE outputs (all of them: `summary.outputCount`). */
  outputs: PsbtOutputView[];
  /** Most severe first. */
  warnings: PsbtWarningView[];
}

/** Where the facts the review used came from. */
export interface PsbtReviewContextView {
  /** main | test | testnet4 | signet | regtest */
  chain: string;
  /** How the chain was chosen: the connected node, the profile (demo), the watched addresses, or a default. */
  chainSource: 'node' | 'profile' | 'watched-addresses' | 'default';
  watchedAddresses: number;
  /** The tip height used for the locktime check, and where it came from. */
  tipHeight: number | null;
  tipSource: 'node' | 'snapshot' | null;
  /** The snapshot the used-address and tip data came from. */
  snapshotId: number | null;
  snapshotTakenAt: string | null;
  offline: boolean;
  /**
   * The connected node's PSBT generation (getnetworkinfo version): 31.99 (the v32 line) and later read
   * and make version 2 PSBTs, older nodes only version 0. Null when not connected.
   */
  nodeCoreVersion: 30 | 31.99 | null;
}

export interface PsbtReviewReply {
  review: PsbtReviewView;
  /** Names this review in the PSBT worker (sha-256 of the PSBT text and the profile) for `psbt:review-page`. */
  reviewKey: string;
  /**
   * Bitcoin Core's `decodepsbt` result as JSON text (offline decoder, same text as Core), or null when
   * Core would refuse this PSBT (then `coreError` says why; the review still shows what it holds).
   */
  coreJson: string | null;
  /**
   * The length of Core's JSON. Above 1,000,000 characters it is not in this reply (`coreJson` is null;
   * a 100,000-input PSBT's is 58 MB): `psbt:review-core-json` brings it when it is shown.
   */
  coreJsonChars: number;
  coreError: { code: -22; message: string } | null;
  /** The PSBT as base64 (the exact bytes, for export). */
  base64: string;
  bytes: number;
  version: 0 | 2;
  /** How the text was read. */
  encoding: 'base64' | 'hex';
  context: PsbtReviewContextView;
}

export interface PsbtDifference {
  /** Where in the decodepsbt result: `tx.vin[0].txid`, `inputs[1].witness_utxo.amount`, `fee`; `` for the whole reply. */
  path: string;
  /** JSON text of the value on each side; null when that side has no value there. */
  offline: string | null;
  node: string | null;
}

export interface PsbtCrosscheckReply {
  agrees: boolean;
  nodeAvailable: boolean;
  /** Why the node could not be asked (offline, not connected, RPC failure), else null. */
  reason: string | null;
  /** The node's version string (getnetworkinfo subversion) when asked. */
  node: string | null;
  differences: PsbtDifference[];
  /** More differences than listed. */
  truncated: boolean;
  /** The error each side gave instead of a result (decodepsbt -22), else null. */
  offlineError: string | null;
  nodeError: string | null;
  /**
   * The form the node was asked in: a node that reads only version 0 (Core v30) gets the version 0
   * form of a version 2 PSBT, converted offline without loss (`converted`). Null when not asked.
   */
  asked: { version: 0 | 2; converted: boolean } | null;
}

export interface PsbtConvertReply {
  base64: string;
  bytes: number;
  version: 0 | 2;
  /** What version 0 holds in another form (required locktimes → nLockTime, modifiable flags dropped). */
  notes: string[];
}

/**
 * An animated QR's parts come a page at a time: the click gets the first page (frame 1 at once), the renderer asks
 * for each later page before the animation reaches it. Parts per page by default, and at most per request.
 */
export const QR_PAGE = 32;
export const QR_PAGE_MAX = 1024;

/**
 * A PSBT as BC-UR parts (`ur:crypto-psbt`) for a QR code: one static part, or animated fountain-coded ones — `total`
 * of them, the `parts` of this page being parts from .. from + parts.length − 1 (0-based).
 */
export interface PsbtQrReply {
  kind: 'single' | 'multi';
  /** Uppercase (alphanumeric QR mode); for 'multi', the pure parts then as many fountain parts again, this page's. */
  parts: string[];
  /** Index of parts[0] among all parts. */
  from: number;
  /** Parts in all: 1 for 'single', 2 × seqLen for 'multi'. */
  total: number;
  seqLen: number;
  fragmentLength: number;
}

/** A range of a review's rows (`psbt:review-page`): only the side asked for is filled. */
export interface PsbtReviewPageReply {
  side: 'inputs' | 'outputs';
  from: number;
  /** All the rows on that side. */
  total: number;
  inputs: PsbtInputView[];
  outputs: PsbtOutputView[];
}
