/**
 * PSBTs (BIP174 version 0, BIP370 version 2) over one model, as Bitcoin Core reads, writes and
 * decodes them. Modules (see ../../../../shared/design/psbt-layout.md):
 *
 * - generation.ts   which Core's rules apply: `{ coreVersion: 30 | 31.99 }` (default the newest)
 * - keys.ts         the key types and their texts, as data
 * - model.ts        parsePsbt: bytes → the model (types.ts), with Core's errors
 * - decode-json.ts  decodePsbt / decodePsbtJson: Core's decodepsbt result (decode-text.ts: the fast text path)
 * - serialize.ts    serializePsbt: the model as Core writes it
 * - convert.ts      convertPsbt / convertPsbtBase64: version 0 <-> version 2 (to 0 as BIP370 and HWI: locktime.ts)
 * - locktime.ts     determineLocktime: BIP370's Determining Lock Time, with the rule that decided
 * - review*.ts      parsePsbtForReview / reviewPsbt: what a careful signer must see, from the same model
 *                   (also at the old path ../psbt-review)
 * - fill.ts         fillPsbt / fillPsbtBase64: the updater (walletprocesspsbt without signing) for a
 *                   watch-only descriptor wallet (wallet-index.ts), through Core's signing steps without
 *                   keys (sign-input.ts, produce.ts, sigdata.ts, provider.ts; interp.ts, checker.ts and
 *                   sighash.ts verify); produce-ms.ts: Core's miniscript satisfier contexts (wsh() and
 *                   tapscript leaves) over ../miniscript (decode.ts, satisfy.ts, exec.ts)
 * - utxo-update.ts  utxoUpdatePsbt: utxoupdatepsbt (coins from the UTXO set, descriptors' data)
 * - tr-tree.ts      tr() descriptors with script trees for the updater (TaprootBuilder)
 * - combine.ts      combinePsbts: combinepsbt
 * - verify.ts       verifyPsbtSignatures: every partial signature checked offline (ECDSA, Schnorr)
 * - finalize.ts     finalizePsbt: finalizepsbt (with extraction), refusing inputs with bad signatures,
 *                   saying why an input is incomplete (missing signatures, unmet timelocks)
 * - analyze.ts      analyzePsbt: analyzepsbt
 * - signer-answer.ts what a signer hands back: a PSBT or a signed raw transaction (hex, base64, binary .txn), and
 *                   the words for Core's decode errors (a raw transaction, not a PSBT, a PSBT cut short)
 */
export { CORE_LATEST, CORE_VERSIONS, nodeCoreVersion, parseCoreVersion, type CoreVersion, type CoreVersionOption } from './generation';
export { decodeBase64Core, encodeBase64 } from './base64';
export { isFullyValidPubkey } from './pubkey';
export { computeLocktime, parsePsbt, type ParsePsbtOptions, type ParsePsbtResult } from './model';
export { determineLocktime, locktimeConflict, locktimeReason, type LocktimeDetermination } from './locktime';
export {
  decodePsbt,
  decodePsbtBytes,
  decodePsbtBytesJson,
  decodePsbtJson,
  psbtToUniv,
  type DecodePsbtJsonResult,
  type DecodePsbtResult,
} from './decode-json';
export { serializePsbt, unsignedTxOf } from './serialize';
export { convertPsbt, convertPsbtBase64, convertPsbtBytes, v0Obstacle, type ConvertBytesResult, type ConvertResult, type PsbtVersion } from './convert';
export { parsePsbtForReview, reviewPsbt, type ParseReviewResult, type ReviewPsbt } from './review';
export { psbtTextToBytes, type PsbtEncoding, type PsbtTextResult } from './psbt-text';
export type { PsbtReview, PsbtWarning, ReviewContext, ReviewThresholds } from './review-types';
export type { KeyOrigin, Proprietary, Psbt, PsbtInput, PsbtOutput } from './types';
export {
  fillPsbt,
  fillPsbtBase64,
  readPrevTxs,
  watchOnlyWallet,
  PrevTxError,
  WalletDescriptorError,
  WatchOnlyWallet,
  type FillBase64Result,
  type FillOptions,
  type FillRequest,
  type FillResult,
  type PrevTxs,
  type WalletDescriptor,
} from './fill';

import type { Network } from '../networks';
import { decodePsbtJson, type DecodePsbtJsonResult } from './decode-json';

/**
 * {@link decodePsbtJson} with Core v30's rules and texts: for the callers that speak for a Core v30
 * node until they choose the node's generation themselves (the devnet's decodepsbt, the app's
 * cross-check).
 */
export function decodePsbtJsonV30(base64: string, network: Network): DecodePsbtJsonResult {
  return decodePsbtJson(base64, network, { coreVersion: 30 });
}
export { utxoUpdatePsbt, type ProcessOptions, type UtxoSources, type UtxoUpdateResult } from './utxo-update';
export { signingCreator, type KeySigner } from './signer';
export { combinePsbts, combinePsbtsBase64, uniqueId, type CombineBase64Result, type CombineOptions, type CombineResult } from './combine';
export { describeProblem, verifyPsbtSignatures, type SignatureCheck, type SignatureKind, type VerifyReport } from './verify';
export {
  finalizePsbt,
  finalizePsbtBase64,
  type FinalizeBase64Options,
  type FinalizeBase64Result,
  type FinalizeOptions,
  type FinalizeResult,
} from './finalize';
export { analysisJson, analyzePsbt, analyzePsbtBase64, type InputAnalysis, type PsbtAnalysis, type PsbtRole } from './analyze';
export { SIGNED_TX_NOT_PSBT, explainPsbtError, hasPsbtMagic, rawTxFromText, readRawTx, type RawTxAnswer } from './signer-answer';
