/**
 * What a PSBT review (issue 4) hands back: a summary, inputs, outputs and warnings with stable
 * codes, as data; and what it is given besides the PSBT (the wallet's knowledge, thresholds).
 * Amounts are bigint satoshis; rates and percentages are decimal strings.
 */
import type { Descriptor } from '../descriptor';
import type { InputPaths } from './review-paths';
import type { Network } from '../networks';

export type WarningSeverity = 'danger' | 'warning' | 'info';

export const PSBT_WARNING_CODES = [
  'non-witness-utxo-txid-mismatch',
  'segwit-amount-mismatch',
  'fee-negative',
  'fee-unknown',
  'fee-rate-high',
  'fee-percent-high',
  'sighash-nonstandard',
  'input-not-watched',
  'output-to-used-address',
  'dust-output',
  'unknown-fields',
  'proprietary-fields',
  'locktime-future',
  'rbf',
] as const;
export type PsbtWarningCode = (typeof PSBT_WARNING_CODES)[number];

export interface PsbtWarning {
  code: PsbtWarningCode;
  severity: WarningSeverity;
  /** Plain words, with the numbers. */
  message: string;
  /** Indexes of the inputs / outputs the warning is about (for highlighting rows). */
  inputs: number[];
  outputs: number[];
}

export type UtxoPresence = 'witness_utxo' | 'non_witness_utxo' | 'both' | 'none';

export interface PsbtReviewInput {
  index: number;
  txid: string;
  vout: number;
  outpoint: string;
  sequence: number;
  /** The spent output's address (null without UTXO data or for scripts without an address). */
  address: string | null;
  /** The spent output's amount (null without UTXO data). */
  amount: bigint | null;
  /** p2pkh | p2sh-p2wpkh | p2wpkh | p2sh | p2sh-p2wsh | p2wsh | p2tr | p2pk | multisig | … | unknown */
  spendType: string;
  watched: boolean;
  utxo: UtxoPresence;
  /** PSBT_IN_SIGHASH as a name (ALL, NONE|ANYONECANPAY, DEFAULT, 0x…), null when not set. */
  sighash: string | null;
  /** Sighash types of the signatures already present (partial, taproot, final). */
  signatureSighashes: string[];
  /** `required`/`total`: m and n of m-of-n (1 of 1 for single-key scripts), null when unknown. */
  signatures: { present: number; required: number | null; total: number | null };
  finalized: boolean;
  /** Filled by the caller (labels are not the analysis's business). */
  label: string | null;
  /** The spending paths of the input's coin, who signed and who is missing (only with ReviewContext.descriptors; null: none of them pays it). */
  paths?: InputPaths | null;
}

export type OutputKind = 'change' | 'external' | 'op_return';

export interface PsbtReviewOutput {
  index: number;
  address: string | null;
  amount: bigint;
  /** p2pkh | p2sh | p2wpkh | p2wsh | p2tr | p2pk | multisig | op_return | anchor | witness_unknown | nonstandard */
  scriptType: string;
  scriptHex: string;
  kind: OutputKind;
  /** Why it is change: getaddressinfo says ischange, or only that the address is watched. */
  changeReason: 'ischange' | 'watched' | null;
  /** The address received before (usedAddresses). */
  used: boolean;
  dustThreshold: bigint;
  dust: boolean;
  /** OP_RETURN payload (the pushed data joined), with text when it is printable UTF-8. */
  opReturn: { hex: string; text: string | null } | null;
  label: string | null;
}

export interface PsbtReviewSummary {
  version: 0 | 2;
  txVersion: number;
  /** Txid of the transaction as it stands; `txidFinal` when signing cannot change it (no scriptSig to add). */
  txid: string;
  txidFinal: boolean;
  inputCount: number;
  outputCount: number;
  /** Sum of the inputs' amounts, null when an input has no UTXO data. */
  inputTotal: bigint | null;
  outputTotal: bigint;
  /** Leaving to addresses outside the watched set. */
  sent: bigint;
  /** Coming back to watched addresses. */
  change: bigint;
  /** Paid to OP_RETURN outputs (burned). */
  burned: bigint;
  fee: bigint | null;
  /** Virtual size once signed: exact when every input is finalized, else estimated (null when an input's script is unknown). */
  vsize: number | null;
  weight: number | null;
  vsizeExact: boolean;
  /** sat/vB with two decimals ("12.34"), null when the fee or the size is unknown. */
  feeRate: string | null;
  /** Fee as a percentage of `sent` + `burned`, two decimals, null when nothing is sent or the fee is unknown. */
  feePercent: string | null;
  locktime: { value: number; kind: 'none' | 'height' | 'time'; enforced: boolean };
  rbf: boolean;
  /** Every input finalized. */
  finalized: boolean;
  /** Every input finalized or holding the signatures its script needs. */
  signaturesComplete: boolean;
}

export interface PsbtReview {
  summary: PsbtReviewSummary;
  inputs: PsbtReviewInput[];
  outputs: PsbtReviewOutput[];
  /** Most severe first. */
  warnings: PsbtWarning[];
}

export interface ReviewThresholds {
  /** fee-rate-high above this many sat/vB (default 1000). */
  feeRateSatVb: number;
  /** fee-percent-high above this percentage of the amount sent (default 5). */
  feePercent: number;
}

export const DEFAULT_THRESHOLDS: ReviewThresholds = { feeRateSatVb: 1000, feePercent: 5 };

export interface ReviewContext {
  network: Network;
  /** The watched addresses. */
  watched: ReadonlySet<string>;
  /** getaddressinfo `ischange` per address, when known. */
  changeHints?: ReadonlyMap<string, { ischange: boolean }>;
  /** Addresses that already received (address reuse). */
  usedAddresses?: ReadonlySet<string>;
  /** The chain tip height: a height locktime above it is in the future. */
  tipHeight?: number;
  /** The tip's median time past: a time locktime at or above it is in the future. */
  medianTime?: number;
  /** This computer's clock (unix seconds), used for time locktimes when the median time is unknown. */
  now?: number;
  thresholds?: Partial<ReviewThresholds>;
  /** The wallet's single-branch descriptors: each input they pay gets its spending paths (review-paths.ts). */
  descriptors?: Descriptor[];
}

