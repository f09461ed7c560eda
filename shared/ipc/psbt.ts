// Wire types of the PSBT channels (issue 4): `psbt:review` and `psbt:crosscheck`. Amounts cross IPC as
// decimal strings of satoshis ("12345"), like shared/ipc/watch.ts; the analysis behind them is
// shared/bitcoin/psbt-review.ts (bigint inside).
import type { OutputKind, PsbtWarningCode, UtxoPresence, WarningSeverity } from '../bitcoin/psbt-review';

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

export interface PsbtReviewView {
  summary: PsbtSummaryView;
  inputs: PsbtInputView[];
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
  /**
   * Bitcoin Core's `decodepsbt` result as JSON text (offline decoder, same text as Core), or null when
   * Core would refuse this PSBT (then `coreError` says why; the review still shows what it holds).
   */
  coreJson: string | null;
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
}

/** A PSBT as BC-UR parts (`ur:crypto-psbt`) for a QR code: one static part, or animated fountain-coded ones. */
export interface PsbtQrReply {
  kind: 'single' | 'multi';
  /** Uppercase (alphanumeric QR mode); for 'multi', the pure parts then as many fountain parts again. */
  parts: string[];
  seqLen: number;
  fragmentLength: number;
}
