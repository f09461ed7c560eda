/**
 * PSBT review for a careful signer (issue 4): what a PSBT spends, where the money goes, what it
 * costs, what is signed, and every reason to hesitate, as data with stable warning codes.
 *
 * Two steps, both pure:
 * - {@link parsePsbtForReview} reads the PSBT key-value maps (BIP174 v0 and BIP370 v2). It is
 *   lenient where Bitcoin Core's decoder (psbt.ts, which stays the source of Core's exact JSON) is
 *   strict on meaning rather than form: a non_witness_utxo whose txid is not the input's prevout is
 *   kept so the review can say so, and version 2 is read (Core v30 rejects it).
 * - {@link reviewPsbt} turns that structure and what the wallet knows (watched addresses,
 *   getaddressinfo ischange, used addresses, chain tip) into a summary, inputs, outputs and warnings.
 *
 * Amounts are bigint satoshis; fee rates and percentages are computed in integers and written with
 * two decimals.
 */
import { formatBtc } from '../amounts';
import { encodeDestination, extractDestination } from './address';
import { fromHex, isHex, toHex } from './hex';
import type { Network } from './networks';
import { decodeBase64Core } from './psbt';
import {
  OP_RETURN,
  getScriptOp,
  isValidSignatureEncoding,
  solver,
  witnessProgram,
  type TxoutType,
} from './script';
import { ByteReader, StreamError, compactSizeLen, hexReversed, readTx, serializeTx, sha256d, type ParsedTx, type Tx, type TxOut } from './tx';

// ---------------------------------------------------------------------------------------------
// Parsed PSBT (the review's input)
// ---------------------------------------------------------------------------------------------

export interface ReviewPsbtInput {
  /** Previous txid in display hex. */
  prevTxid: string;
  vout: number;
  sequence: number;
  nonWitnessUtxo?: ParsedTx;
  witnessUtxo?: TxOut;
  partialSigs: Array<{ pubkey: Uint8Array; sig: Uint8Array }>;
  /** PSBT_IN_SIGHASH as written (uint32). */
  sighash?: number;
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  finalScriptSig?: Uint8Array;
  finalScriptWitness?: Uint8Array[];
  tapKeySig?: Uint8Array;
  tapScriptSigs: Uint8Array[];
  tapLeafScripts: number;
  tapInternalKey?: Uint8Array;
  /** Pubkeys of the BIP32 derivations (PSBT_IN_BIP32_DERIVATION). */
  bip32Pubkeys: Uint8Array[];
  /** BIP370 PSBT_IN_REQUIRED_TIME_LOCKTIME / _HEIGHT_LOCKTIME. */
  requiredTimeLocktime?: number;
  requiredHeightLocktime?: number;
  /** Keys (hex) of fields this reader does not know. */
  unknown: string[];
  /** Keys (hex) of proprietary fields (0xfc). */
  proprietary: string[];
}

export interface ReviewPsbtOutput {
  value: bigint;
  script: Uint8Array;
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  unknown: string[];
  proprietary: string[];
}

export interface ReviewPsbt {
  version: 0 | 2;
  txVersion: number;
  /** v0: the unsigned transaction's; v2: as BIP370 determines it from the inputs and the fallback. */
  locktime: number;
  /** v2 only: PSBT_GLOBAL_TX_MODIFIABLE (bit 0 inputs, bit 1 outputs, bit 2 SIGHASH_SINGLE). */
  txModifiable: number | null;
  xpubs: number;
  unknown: string[];
  proprietary: string[];
  inputs: ReviewPsbtInput[];
  outputs: ReviewPsbtOutput[];
}

export type ParseReviewResult = { ok: true; psbt: ReviewPsbt } | { ok: false; message: string };

interface KV {
  key: Uint8Array;
  /** Key type, or -1 when the key's type is not a valid compact size. */
  type: number;
  value: Uint8Array;
}

function fail(msg: string): never {
  throw new StreamError(msg);
}

function readMap(s: ByteReader, where: string): KV[] {
  const out: KV[] = [];
  const seen = new Set<string>();
  for (;;) {
    if (s.empty) fail(`Separator is missing at the end of ${where}`);
    const key = s.varBytes();
    if (key.length === 0) return out;
    const value = s.varBytes();
    const k = toHex(key);
    if (seen.has(k)) fail(`Duplicate key ${k} in ${where}`);
    seen.add(k);
    let type = -1;
    try {
      type = new ByteReader(key).compactSize();
    } catch {
      type = -1;
    }
    out.push({ key, type, value });
  }
}

/** Reads a value with `f`, which must consume it exactly. */
function val<T>(kv: KV, what: string, f: (r: ByteReader) => T): T {
  const r = new ByteReader(kv.value, 0, kv.value.length, 'SpanReader');
  const v = f(r);
  if (!r.empty) fail(`${what} has extra bytes`);
  return v;
}

function oneByteKey(kv: KV, what: string): void {
  if (kv.key.length !== 1) fail(`${what} key is more than one byte type`);
}

const GLOBAL_V0 = new Set([0x00, 0x01, 0xfb]);
const GLOBAL_V2 = new Set([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0xfb]);
const INPUT_V0 = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c]);
const INPUT_V2 = new Set([...INPUT_V0, 0x0e, 0x0f, 0x10, 0x11, 0x12]);
const OUTPUT_V0 = new Set([0x00, 0x01, 0x02, 0x05, 0x06, 0x07, 0x08]);
const OUTPUT_V2 = new Set([...OUTPUT_V0, 0x03, 0x04]);

/**
 * Reads a PSBT's maps for review (BIP174 v0, BIP370 v2). Errors are data: `{ok: false, message}`.
 * Fields are sorted into known, proprietary and unknown as Bitcoin Core v30 sorts them for v0
 * (so `unknown` matches decodepsbt's "unknown" maps), plus the BIP370 fields for v2.
 */
export function parsePsbtForReview(bytes: Uint8Array): ParseReviewResult {
  try {
    return { ok: true, psbt: readReviewPsbt(bytes) };
  } catch (e) {
    if (e instanceof StreamError) return { ok: false, message: e.message };
    throw e;
  }
}

function readReviewPsbt(bytes: Uint8Array): ReviewPsbt {
  const s = new ByteReader(bytes);
  const magic = s.bytes(5);
  if (magic[0] !== 0x70 || magic[1] !== 0x73 || magic[2] !== 0x62 || magic[3] !== 0x74 || magic[4] !== 0xff) fail('Invalid PSBT magic bytes');
  const global = readMap(s, 'the global map');
  let version = 0;
  for (const kv of global) {
    if (kv.type === 0xfb) {
      oneByteKey(kv, 'Global version');
      version = val(kv, 'PSBT version', (r) => r.u32());
    }
  }
  if (version !== 0 && version !== 2) fail(`Unsupported PSBT version ${version}`);
  const known = version === 2 ? GLOBAL_V2 : GLOBAL_V0;
  let tx: ParsedTx | undefined;
  let txVersion: number | undefined;
  let fallbackLocktime = 0;
  let nIn: number | undefined;
  let nOut: number | undefined;
  let txModifiable: number | null = null;
  let xpubs = 0;
  const unknown: string[] = [];
  const proprietary: string[] = [];
  for (const kv of global) {
    if (kv.type === 0xfc) {
      proprietary.push(toHex(kv.key));
      continue;
    }
    if (!known.has(kv.type)) {
      if (kv.type === 0x00 && version === 2) fail('PSBT version 2 must not contain an unsigned transaction');
      unknown.push(toHex(kv.key));
      continue;
    }
    switch (kv.type) {
      case 0x00:
        oneByteKey(kv, 'Global unsigned tx');
        tx = val(kv, 'Unsigned tx', (r) => readTx(r, false));
        for (const i of tx.vin) if (i.scriptSig.length > 0) fail('Unsigned tx does not have empty scriptSigs and scriptWitnesses.');
        break;
      case 0x01:
        xpubs++;
        break;
      case 0x02:
        oneByteKey(kv, 'Global tx version');
        txVersion = val(kv, 'Tx version', (r) => r.u32());
        break;
      case 0x03:
        oneByteKey(kv, 'Global fallback locktime');
        fallbackLocktime = val(kv, 'Fallback locktime', (r) => r.u32());
        break;
      case 0x04:
        oneByteKey(kv, 'Global input count');
        nIn = val(kv, 'Input count', (r) => r.compactSize());
        break;
      case 0x05:
        oneByteKey(kv, 'Global output count');
        nOut = val(kv, 'Output count', (r) => r.compactSize());
        break;
      case 0x06:
        oneByteKey(kv, 'Global tx modifiable');
        txModifiable = val(kv, 'Tx modifiable', (r) => r.u8());
        break;
    }
  }
  if (version === 0) {
    if (!tx) fail('No unsigned transaction was provided');
    nIn = tx.vin.length;
    nOut = tx.vout.length;
  } else {
    if (txVersion === undefined) fail('PSBT version 2 needs PSBT_GLOBAL_TX_VERSION');
    if (nIn === undefined) fail('PSBT version 2 needs PSBT_GLOBAL_INPUT_COUNT');
    if (nOut === undefined) fail('PSBT version 2 needs PSBT_GLOBAL_OUTPUT_COUNT');
  }

  const inputs: ReviewPsbtInput[] = [];
  const cache: PrevTxCache = new Map();
  for (let i = 0; i < nIn!; i++) inputs.push(readInput(s, i, version, tx, cache));
  const outputs: ReviewPsbtOutput[] = [];
  for (let i = 0; i < nOut!; i++) outputs.push(readOutput(s, i, version, tx));
  if (!s.empty) fail('extra data after PSBT');

  let locktime = tx ? tx.locktime : fallbackLocktime;
  if (version === 2) {
    const locked = inputs.filter((i) => i.requiredTimeLocktime !== undefined || i.requiredHeightLocktime !== undefined);
    if (locked.length > 0) {
      const heights = locked.every((i) => i.requiredHeightLocktime !== undefined);
      const times = locked.every((i) => i.requiredTimeLocktime !== undefined);
      if (heights) locktime = Math.max(...locked.map((i) => i.requiredHeightLocktime!));
      else if (times) locktime = Math.max(...locked.map((i) => i.requiredTimeLocktime!));
      else fail('The inputs require both a height and a time locktime: no locktime satisfies them all');
    }
  }
  return { version: version as 0 | 2, txVersion: tx ? tx.version : txVersion!, locktime, txModifiable, xpubs, unknown, proprietary, inputs, outputs };
}

/** Previous transactions by their bytes: inputs spending outputs of one transaction carry it again and again. */
type PrevTxCache = Map<string, Array<{ bytes: Uint8Array; tx: ParsedTx }>>;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function cachedPrevTx(kv: KV, cache: PrevTxCache): ParsedTx {
  const v = kv.value;
  const key = `${v.length}:${toHex(v.subarray(0, 48))}:${toHex(v.subarray(Math.max(0, v.length - 48)))}`;
  const list = cache.get(key);
  const hit = list?.find((e) => sameBytes(e.bytes, v));
  if (hit) return hit.tx;
  const tx = val(kv, 'Non-witness utxo', (r) => readTx(r, true));
  if (list) list.push({ bytes: v, tx });
  else cache.set(key, [{ bytes: v, tx }]);
  return tx;
}

function readInput(s: ByteReader, index: number, version: number, tx: ParsedTx | undefined, cache: PrevTxCache): ReviewPsbtInput {
  const kvs = readMap(s, `input ${index}`);
  const known = version === 2 ? INPUT_V2 : INPUT_V0;
  const txin = tx?.vin[index];
  const inp: ReviewPsbtInput = {
    prevTxid: txin?.prevTxid ?? '',
    vout: txin?.vout ?? -1,
    sequence: txin?.sequence ?? 0xffffffff,
    partialSigs: [],
    tapScriptSigs: [],
    tapLeafScripts: 0,
    bip32Pubkeys: [],
    unknown: [],
    proprietary: [],
  };
  for (const kv of kvs) {
    if (kv.type === 0xfc) {
      inp.proprietary.push(toHex(kv.key));
      continue;
    }
    if (!known.has(kv.type)) {
      inp.unknown.push(toHex(kv.key));
      continue;
    }
    switch (kv.type) {
      case 0x00:
        oneByteKey(kv, 'Non-witness utxo');
        inp.nonWitnessUtxo = cachedPrevTx(kv, cache);
        break;
      case 0x01:
        oneByteKey(kv, 'Witness utxo');
        inp.witnessUtxo = val(kv, 'Witness utxo', (r) => ({ value: r.i64(), script: r.varBytes() }));
        break;
      case 0x02:
        inp.partialSigs.push({ pubkey: kv.key.subarray(1), sig: kv.value });
        break;
      case 0x03:
        oneByteKey(kv, 'Sighash type');
        inp.sighash = val(kv, 'Sighash type', (r) => r.u32());
        break;
      case 0x04:
        inp.redeemScript = kv.value;
        break;
      case 0x05:
        inp.witnessScript = kv.value;
        break;
      case 0x06:
        inp.bip32Pubkeys.push(kv.key.subarray(1));
        break;
      case 0x07:
        inp.finalScriptSig = kv.value;
        break;
      case 0x08:
        inp.finalScriptWitness = val(kv, 'Final scriptWitness', (r) => {
          const n = r.compactSize();
          const stack: Uint8Array[] = [];
          for (let i = 0; i < n; i++) stack.push(r.varBytes());
          return stack;
        });
        break;
      case 0x0e:
        if (kv.value.length !== 32) fail(`Input ${index} previous txid is not 32 bytes`);
        inp.prevTxid = hexReversed(kv.value);
        break;
      case 0x0f:
        inp.vout = val(kv, 'Output index', (r) => r.u32());
        break;
      case 0x10:
        inp.sequence = val(kv, 'Sequence', (r) => r.u32());
        break;
      case 0x11:
        inp.requiredTimeLocktime = val(kv, 'Required time locktime', (r) => r.u32());
        if (inp.requiredTimeLocktime < 500_000_000) fail(`Input ${index} required time locktime is below 500000000`);
        break;
      case 0x12:
        inp.requiredHeightLocktime = val(kv, 'Required height locktime', (r) => r.u32());
        if (inp.requiredHeightLocktime <= 0 || inp.requiredHeightLocktime >= 500_000_000) fail(`Input ${index} required height locktime is not a block height`);
        break;
      case 0x13:
        inp.tapKeySig = kv.value;
        break;
      case 0x14:
        inp.tapScriptSigs.push(kv.value);
        break;
      case 0x15:
        inp.tapLeafScripts++;
        break;
      case 0x17:
        inp.tapInternalKey = kv.value;
        break;
      default:
        break; // known, not needed for the review (preimages, taproot derivations, musig2)
    }
  }
  if (version === 2) {
    if (inp.prevTxid === '') fail(`Input ${index} has no PSBT_IN_PREVIOUS_TXID`);
    if (inp.vout < 0) fail(`Input ${index} has no PSBT_IN_OUTPUT_INDEX`);
  }
  return inp;
}

function readOutput(s: ByteReader, index: number, version: number, tx: ParsedTx | undefined): ReviewPsbtOutput {
  const kvs = readMap(s, `output ${index}`);
  const known = version === 2 ? OUTPUT_V2 : OUTPUT_V0;
  const txout = tx?.vout[index];
  let value: bigint | undefined = txout?.value;
  let script: Uint8Array | undefined = txout?.script;
  const out: Omit<ReviewPsbtOutput, 'value' | 'script'> = { unknown: [], proprietary: [] };
  for (const kv of kvs) {
    if (kv.type === 0xfc) {
      out.proprietary.push(toHex(kv.key));
      continue;
    }
    if (!known.has(kv.type)) {
      out.unknown.push(toHex(kv.key));
      continue;
    }
    switch (kv.type) {
      case 0x00:
        out.redeemScript = kv.value;
        break;
      case 0x01:
        out.witnessScript = kv.value;
        break;
      case 0x03:
        value = val(kv, 'Output amount', (r) => r.i64());
        break;
      case 0x04:
        script = kv.value;
        break;
      default:
        break;
    }
  }
  if (value === undefined) fail(`Output ${index} has no PSBT_OUT_AMOUNT`);
  if (script === undefined) fail(`Output ${index} has no PSBT_OUT_SCRIPT`);
  return { value, script, ...out };
}

// ---------------------------------------------------------------------------------------------
// Review
// ---------------------------------------------------------------------------------------------

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
}

const SEQUENCE_FINAL = 0xffffffff;
const LOCKTIME_THRESHOLD = 500_000_000;
const ECDSA_SIG_MAX = 72; // DER (≤ 71) + sighash byte: the largest a signature can be

const SEVERITY_ORDER: Record<WarningSeverity, number> = { danger: 0, warning: 1, info: 2 };

/** Sighash type names (script/interpreter.h), DEFAULT for taproot's 0, hex for the rest. */
export function sighashName(t: number): string {
  const base = t & 0x1f;
  const acp = (t & ~0x9f) === 0 && (t & 0x80) !== 0;
  if (t === 0) return 'DEFAULT';
  if ((t & ~0x83) === 0 && base >= 1 && base <= 3) {
    const n = base === 1 ? 'ALL' : base === 2 ? 'NONE' : 'SINGLE';
    return acp ? `${n}|ANYONECANPAY` : n;
  }
  return `0x${(t >>> 0).toString(16).padStart(2, '0')}`;
}

const sats = (v: bigint): string => `${v} sats`;
const satsBtc = (v: bigint): string => `${v} sats (${formatBtc(v)} BTC)`;

/** `num / den` with two decimals, rounded half away from zero, in integers (den > 0). */
export function ratio2(num: bigint, den: bigint): string {
  const neg = num < 0n;
  const n = neg ? -num : num;
  const hundredths = (n * 200n + den) / (2n * den);
  const s = `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
  return neg && hundredths !== 0n ? `-${s}` : s;
}

/** A threshold given as a number with at most two useful decimals, in hundredths. */
function hundredths(x: number): bigint {
  return BigInt(Math.round(x * 100));
}

function shortList(items: number[], prefix = '#'): string {
  const shown = items.slice(0, 8).map((i) => `${prefix}${i}`).join(', ');
  return items.length > 8 ? `${shown} and ${items.length - 8} more` : shown;
}

/** Short output type names (p2pkh, p2wpkh, p2tr, op_return…) as the app shows them. */
export function typeName(t: TxoutType): string {
  switch (t) {
    case 'pubkeyhash':
      return 'p2pkh';
    case 'scripthash':
      return 'p2sh';
    case 'witness_v0_keyhash':
      return 'p2wpkh';
    case 'witness_v0_scripthash':
      return 'p2wsh';
    case 'witness_v1_taproot':
      return 'p2tr';
    case 'pubkey':
      return 'p2pk';
    case 'nulldata':
      return 'op_return';
    default:
      return t;
  }
}

function addressOf(script: Uint8Array, network: Network): string | null {
  const d = extractDestination(script);
  if (!d) return null;
  const a = encodeDestination(d, network);
  return a === '' ? null : a;
}

/** Core GetDustThreshold at the default dust relay fee (3000 sat/kvB). */
export function dustThreshold(script: Uint8Array): bigint {
  if ((script.length > 0 && script[0] === OP_RETURN) || script.length > 10_000) return 0n;
  let size = 8 + compactSizeLen(script.length) + script.length;
  size += witnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt(size) * 3n;
}

/** The data pushed after OP_RETURN, joined; text when it decodes as UTF-8 with no control characters. */
function opReturnPayload(script: Uint8Array): { hex: string; text: string | null } {
  const parts: Uint8Array[] = [];
  let pc = 1;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) break;
    if (r.op <= 0x4e && r.data.length > 0) parts.push(r.data);
    pc = r.next;
  }
  const len = parts.reduce((a, p) => a + p.length, 0);
  const data = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  let text: string | null = null;
  if (len > 0) {
    try {
      const t = new TextDecoder('utf-8', { fatal: true }).decode(data);
      // eslint-disable-next-line no-control-regex
      if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(t)) text = t;
    } catch {
      text = null;
    }
  }
  return { hex: toHex(data), text };
}

interface Multisig {
  m: number;
  keys: string[];
}

function multisigOf(script: Uint8Array | undefined): Multisig | null {
  if (!script || script.length === 0) return null;
  const s = solver(script);
  if (s.type !== 'multisig') return null;
  return { m: s.solutions[0]![0]!, keys: s.solutions.slice(1, -1).map(toHex) };
}

/** How an input will be spent, from the UTXO's script and the redeem/witness scripts. */
interface SpendInfo {
  type: string;
  /** Native witness output (signing adds no scriptSig). */
  nativeWitness: boolean;
  multisig: Multisig | null;
  /** Single-key scripts: 1 signature. */
  single: boolean;
  taproot: boolean;
}

/** The last push of a script (a finalized P2SH scriptSig ends with the redeem script). */
function lastPush(script: Uint8Array | undefined): Uint8Array | undefined {
  if (!script) return undefined;
  let last: Uint8Array | undefined;
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) return undefined;
    if (r.op <= 0x4e) last = r.data;
    pc = r.next;
  }
  return last;
}

function spendInfo(input: ReviewPsbtInput, spk: Uint8Array | null): SpendInfo {
  const unknown: SpendInfo = { type: 'unknown', nativeWitness: false, multisig: null, single: false, taproot: false };
  // A finalized input has dropped its scripts: the final scriptSig / witness end with them.
  const inp = {
    ...input,
    redeemScript: input.redeemScript ?? lastPush(input.finalScriptSig),
    witnessScript: input.witnessScript ?? (input.finalScriptWitness && input.finalScriptWitness.length > 2 ? input.finalScriptWitness[input.finalScriptWitness.length - 1] : undefined),
  };
  const ws = multisigOf(inp.witnessScript);
  if (!spk) {
    // No UTXO data: what the scripts tell.
    const rs = inp.redeemScript ? solver(inp.redeemScript).type : null;
    if (rs === 'witness_v0_keyhash') return { ...unknown, type: 'p2sh-p2wpkh', single: true };
    if (rs === 'witness_v0_scripthash' && ws) return { ...unknown, type: `p2sh-p2wsh ${ws.m}-of-${ws.keys.length}`, multisig: ws };
    if (inp.redeemScript && multisigOf(inp.redeemScript)) {
      const ms = multisigOf(inp.redeemScript)!;
      return { ...unknown, type: `p2sh ${ms.m}-of-${ms.keys.length}`, multisig: ms };
    }
    if (!inp.redeemScript && ws) return { ...unknown, type: `p2wsh ${ws.m}-of-${ws.keys.length}`, nativeWitness: true, multisig: ws };
    return unknown;
  }
  const t = solver(spk).type;
  switch (t) {
    case 'pubkeyhash':
      return { ...unknown, type: 'p2pkh', single: true };
    case 'pubkey':
      return { ...unknown, type: 'p2pk', single: true };
    case 'witness_v0_keyhash':
      return { ...unknown, type: 'p2wpkh', nativeWitness: true, single: true };
    case 'witness_v1_taproot':
      return { ...unknown, type: 'p2tr', nativeWitness: true, taproot: true };
    case 'multisig': {
      const ms = multisigOf(spk)!;
      return { ...unknown, type: `multisig ${ms.m}-of-${ms.keys.length}`, multisig: ms };
    }
    case 'witness_v0_scripthash':
      return ws ? { ...unknown, type: `p2wsh ${ws.m}-of-${ws.keys.length}`, nativeWitness: true, multisig: ws } : { ...unknown, type: 'p2wsh', nativeWitness: true };
    case 'scripthash': {
      if (!inp.redeemScript) return { ...unknown, type: 'p2sh' };
      const rt = solver(inp.redeemScript).type;
      if (rt === 'witness_v0_keyhash') return { ...unknown, type: 'p2sh-p2wpkh', single: true };
      if (rt === 'witness_v0_scripthash') return ws ? { ...unknown, type: `p2sh-p2wsh ${ws.m}-of-${ws.keys.length}`, multisig: ws } : { ...unknown, type: 'p2sh-p2wsh' };
      const ms = multisigOf(inp.redeemScript);
      return ms ? { ...unknown, type: `p2sh ${ms.m}-of-${ms.keys.length}`, multisig: ms } : { ...unknown, type: 'p2sh' };
    }
    case 'anchor':
      return { ...unknown, type: 'anchor', nativeWitness: true };
    default:
      return { ...unknown, type: typeName(t), nativeWitness: t === 'witness_unknown' };
  }
}

function pushLen(n: number): number {
  return n < 0x4c ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
}

function witnessSize(stack: Uint8Array[]): number {
  let n = compactSizeLen(stack.length);
  for (const w of stack) n += compactSizeLen(w.length) + w.length;
  return n;
}

/** The final scriptSig length and serialized witness size of an input, or null when the script is unknown. */
function finalSizes(inp: ReviewPsbtInput, info: SpendInfo): { scriptSig: number; witness: number } | null {
  if (inp.finalScriptSig !== undefined || inp.finalScriptWitness !== undefined) {
    return { scriptSig: inp.finalScriptSig?.length ?? 0, witness: witnessSize(inp.finalScriptWitness ?? []) };
  }
  const sigLens = inp.partialSigs.map((p) => p.sig.length);
  const pubLen = inp.partialSigs[0]?.pubkey.length ?? inp.bip32Pubkeys[0]?.length ?? 33;
  const sigsFor = (m: number): number[] => {
    const have = sigLens.slice(0, m);
    while (have.length < m) have.push(ECDSA_SIG_MAX);
    return have;
  };
  const t = info.type;
  if (t === 'p2pkh') {
    const sig = sigsFor(1)[0]!;
    return { scriptSig: 1 + sig + 1 + pubLen, witness: 1 };
  }
  if (t === 'p2pk') return { scriptSig: 1 + sigsFor(1)[0]!, witness: 1 };
  if (t === 'p2wpkh' || t === 'p2sh-p2wpkh') {
    const sig = sigsFor(1)[0]!;
    return { scriptSig: t === 'p2wpkh' ? 0 : 1 + 22, witness: 1 + 1 + sig + 1 + pubLen };
  }
  if (info.taproot) {
    if (inp.tapLeafScripts > 0 && !inp.tapKeySig) return null; // script path: depends on the leaf
    const sig = inp.tapKeySig?.length ?? (inp.sighash !== undefined && inp.sighash !== 0 ? 65 : 64);
    return { scriptSig: 0, witness: 1 + 1 + sig };
  }
  const ms = info.multisig;
  if (ms) {
    const sigs = sigsFor(ms.m).reduce((a, l) => a + 1 + l, 0);
    if (t.startsWith('multisig')) return { scriptSig: 1 + sigs, witness: 1 };
    if (t.startsWith('p2sh ')) {
      if (!inp.redeemScript) return null;
      const rs = inp.redeemScript.length;
      return { scriptSig: 1 + sigs + pushLen(rs) + rs, witness: 1 };
    }
    if (!inp.witnessScript) return null;
    const wsLen = inp.witnessScript.length;
    const witness = compactSizeLen(ms.m + 2) + 1 + sigs + compactSizeLen(wsLen) + wsLen;
    return { scriptSig: t.startsWith('p2sh-p2wsh') ? 1 + 34 : 0, witness };
  }
  return null;
}

/** Sighash bytes of the signatures an input carries (partial, taproot, final). */
function signatureSighashes(inp: ReviewPsbtInput): number[] {
  const out: number[] = [];
  for (const p of inp.partialSigs) if (p.sig.length > 0) out.push(p.sig[p.sig.length - 1]!);
  const schnorr = (sig: Uint8Array): void => {
    out.push(sig.length === 65 ? sig[64]! : 0);
  };
  if (inp.tapKeySig) schnorr(inp.tapKeySig);
  for (const s of inp.tapScriptSigs) schnorr(s);
  const finalItems: Uint8Array[] = [...(inp.finalScriptWitness ?? [])];
  if (inp.finalScriptSig) {
    let pc = 0;
    while (pc < inp.finalScriptSig.length) {
      const r = getScriptOp(inp.finalScriptSig, pc);
      if (!r.ok) break;
      if (r.op <= 0x4e) finalItems.push(r.data);
      pc = r.next;
    }
  }
  for (const item of finalItems) {
    if (isValidSignatureEncoding(item)) out.push(item[item.length - 1]!);
  }
  if (inp.finalScriptWitness && inp.finalScriptWitness.length === 1) {
    const w = inp.finalScriptWitness[0]!;
    if (w.length === 64 || w.length === 65) schnorr(w); // taproot key path
  }
  return out;
}

/** Signatures present in a finalized input (DER items, or the taproot key-path signature). */
function finalSignatureCount(inp: ReviewPsbtInput): number {
  let n = 0;
  const items: Uint8Array[] = [...(inp.finalScriptWitness ?? [])];
  if (inp.finalScriptSig) {
    let pc = 0;
    while (pc < inp.finalScriptSig.length) {
      const r = getScriptOp(inp.finalScriptSig, pc);
      if (!r.ok) break;
      if (r.op <= 0x4e) items.push(r.data);
      pc = r.next;
    }
  }
  for (const it of items) if (isValidSignatureEncoding(it)) n++;
  if (n === 0 && inp.finalScriptWitness?.length === 1 && (inp.finalScriptWitness[0]!.length === 64 || inp.finalScriptWitness[0]!.length === 65)) n = 1;
  return n;
}

function timeText(t: number): string {
  return `${new Date(t * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC')}`;
}

/**
 * Reviews a parsed PSBT against what the wallet knows. Never throws for any PSBT that
 * {@link parsePsbtForReview} accepted.
 */
export function reviewPsbt(decoded: ReviewPsbt, ctx: ReviewContext): PsbtReview {
  const thresholds: ReviewThresholds = { ...DEFAULT_THRESHOLDS, ...(ctx.thresholds ?? {}) };
  const warnings: PsbtWarning[] = [];
  const warn = (code: PsbtWarningCode, severity: WarningSeverity, message: string, where: { inputs?: number[]; outputs?: number[] } = {}): void => {
    warnings.push({ code, severity, message, inputs: where.inputs ?? [], outputs: where.outputs ?? [] });
  };

  // ——— inputs ———
  const inputs: PsbtReviewInput[] = [];
  const infos: SpendInfo[] = [];
  const missingUtxo: number[] = [];
  const notWatched: number[] = [];
  const unknownAddress: number[] = [];
  let inputTotal: bigint | null = 0n;
  for (let index = 0; index < decoded.inputs.length; index++) {
    const inp = decoded.inputs[index]!;
    const outpoint = `${inp.prevTxid}:${inp.vout}`;
    const nwu = inp.nonWitnessUtxo;
    const wu = inp.witnessUtxo;
    let nwuOut: TxOut | undefined;
    if (nwu) {
      if (nwu.txid !== inp.prevTxid) {
        warn(
          'non-witness-utxo-txid-mismatch',
          'danger',
          `Input #${index} spends ${outpoint}, but the previous transaction given for it (non_witness_utxo) is ${nwu.txid}: the PSBT's UTXO data does not describe the coin being spent. Do not sign.`,
          { inputs: [index] },
        );
      } else if (inp.vout >= nwu.vout.length) {
        warn(
          'non-witness-utxo-txid-mismatch',
          'danger',
          `Input #${index} spends output ${inp.vout} of ${inp.prevTxid}, but that transaction (non_witness_utxo) has only ${nwu.vout.length} outputs. Do not sign.`,
          { inputs: [index] },
        );
      } else {
        nwuOut = nwu.vout[inp.vout];
      }
    }
    if (wu && nwuOut) {
      const sameScript = toHex(wu.script) === toHex(nwuOut.script);
      if (wu.value !== nwuOut.value || !sameScript) {
        const parts: string[] = [];
        if (wu.value !== nwuOut.value) {
          parts.push(`witness_utxo says ${satsBtc(wu.value)} but output ${inp.vout} of the previous transaction (non_witness_utxo) holds ${satsBtc(nwuOut.value)}, a difference of ${sats(wu.value > nwuOut.value ? wu.value - nwuOut.value : nwuOut.value - wu.value)}`);
        }
        if (!sameScript) parts.push('the scriptPubKey of witness_utxo differs from the previous transaction\'s output');
        warn(
          'segwit-amount-mismatch',
          'danger',
          `Input #${index} (${outpoint}): ${parts.join('; ')}. A signer trusting witness_utxo would sign a different fee than it thinks (the segwit fee attack). Do not sign.`,
          { inputs: [index] },
        );
      }
    }
    // The trusted UTXO: the previous transaction when it checks out, else witness_utxo.
    const utxo = nwuOut ?? wu;
    const amount = utxo ? utxo.value : null;
    if (amount === null || amount < 0n) inputTotal = null;
    else if (inputTotal !== null) inputTotal += amount;
    if (!wu && !nwu) missingUtxo.push(index);
    const spk = utxo?.script ?? null;
    const address = spk ? addressOf(spk, ctx.network) : null;
    const watched = address !== null && ctx.watched.has(address);
    if (!watched) {
      if (address === null) unknownAddress.push(index);
      else notWatched.push(index);
    }
    const info = spendInfo(inp, spk);
    infos.push(info);
    const finalized = inp.finalScriptSig !== undefined || inp.finalScriptWitness !== undefined;
    let present: number;
    let required: number | null = null;
    let total: number | null = null;
    if (info.multisig) {
      required = info.multisig.m;
      total = info.multisig.keys.length;
      const keys = new Set(info.multisig.keys);
      present = inp.partialSigs.filter((p) => keys.has(toHex(p.pubkey))).length;
    } else if (info.single) {
      required = 1;
      total = 1;
      present = inp.partialSigs.length;
    } else if (info.taproot) {
      present = (inp.tapKeySig ? 1 : 0) + inp.tapScriptSigs.length;
      if (inp.tapLeafScripts === 0) {
        required = 1;
        total = 1;
      }
    } else {
      present = inp.partialSigs.length + inp.tapScriptSigs.length + (inp.tapKeySig ? 1 : 0);
    }
    if (finalized) present = Math.max(present, finalSignatureCount(inp));
    const sighashes = signatureSighashes(inp);
    inputs.push({
      index,
      txid: inp.prevTxid,
      vout: inp.vout,
      outpoint,
      sequence: inp.sequence,
      address,
      amount,
      spendType: info.type,
      watched,
      utxo: wu && nwu ? 'both' : wu ? 'witness_utxo' : nwu ? 'non_witness_utxo' : 'none',
      sighash: inp.sighash === undefined ? null : sighashName(inp.sighash),
      signatureSighashes: [...new Set(sighashes.map(sighashName))],
      signatures: { present, required, total },
      finalized,
      label: null,
    });
    // Sighash: the requested type and the ones already signed with.
    const types = new Set<number>(sighashes);
    if (inp.sighash !== undefined) types.add(inp.sighash);
    const odd = [...types].filter((t) => t !== 0 && t !== 1);
    if (odd.length > 0) {
      const names = odd.map(sighashName);
      const dangerous = odd.some((t) => (t & 0x1f) !== 1 || (t & ~0x9f) !== 0);
      const why: string[] = [];
      if (odd.some((t) => (t & 0x1f) === 2)) why.push('NONE signs none of the outputs: whoever holds the PSBT can send the money anywhere');
      if (odd.some((t) => (t & 0x1f) === 3)) why.push('SINGLE signs only the output with the same index as the input');
      if (odd.some((t) => (t & 0x80) !== 0)) why.push('ANYONECANPAY lets others add inputs');
      if (odd.some((t) => sighashName(t).startsWith('0x'))) why.push('the type is not a defined sighash');
      warn(
        'sighash-nonstandard',
        dangerous ? 'danger' : 'warning',
        `Input #${index} (${outpoint}) uses sighash ${names.join(', ')} instead of ALL: ${why.join('; ')}.`,
        { inputs: [index] },
      );
    }
  }

  // ——— outputs ———
  const outputs: PsbtReviewOutput[] = [];
  let outputTotal = 0n;
  let sent = 0n;
  let change = 0n;
  let burned = 0n;
  decoded.outputs.forEach((out, index) => {
    outputTotal += out.value;
    const solved = solver(out.script);
    const isOpReturn = out.script.length > 0 && out.script[0] === OP_RETURN;
    const address = addressOf(out.script, ctx.network);
    const hint = address !== null ? ctx.changeHints?.get(address) : undefined;
    const isChange = address !== null && (ctx.watched.has(address) || hint?.ischange === true);
    const kind: OutputKind = isOpReturn ? 'op_return' : isChange ? 'change' : 'external';
    const threshold = dustThreshold(out.script);
    const dust = !isOpReturn && out.value < threshold;
    const used = address !== null && (ctx.usedAddresses?.has(address) ?? false);
    if (kind === 'op_return') burned += out.value;
    else if (kind === 'change') change += out.value;
    else sent += out.value;
    outputs.push({
      index,
      address,
      amount: out.value,
      scriptType: isOpReturn ? 'op_return' : typeName(solved.type),
      scriptHex: toHex(out.script),
      kind,
      changeReason: kind === 'change' ? (hint?.ischange === true ? 'ischange' : 'watched') : null,
      used,
      dustThreshold: threshold,
      dust,
      opReturn: isOpReturn ? opReturnPayload(out.script) : null,
      label: null,
    });
    if (dust) {
      warn(
        'dust-output',
        'warning',
        `Output #${index} pays ${sats(out.value)} to ${address ?? 'a ' + typeName(solved.type) + ' script'}, below the dust threshold of ${sats(threshold)} for a ${typeName(solved.type)} output (Bitcoin Core's rule at 3 sat/vB): nodes will not relay the transaction.`,
        { outputs: [index] },
      );
    }
    if (used) {
      warn(
        'output-to-used-address',
        'warning',
        `Output #${index} pays ${satsBtc(out.value)} to ${address}, which has already received payments: reusing an address links your transactions together.`,
        { outputs: [index] },
      );
    }
  });

  // ——— size, fee, rate ———
  const finalizedAll = decoded.inputs.length > 0 && inputs.every((i) => i.finalized);
  let base = 4 + compactSizeLen(decoded.inputs.length) + compactSizeLen(decoded.outputs.length) + 4;
  for (const o of decoded.outputs) base += 8 + compactSizeLen(o.script.length) + o.script.length;
  let witnessBytes = 0;
  let anyWitness = false;
  let sizeKnown = true;
  decoded.inputs.forEach((inp, i) => {
    const sz = finalSizes(inp, infos[i]!);
    if (!sz) {
      sizeKnown = false;
      return;
    }
    base += 32 + 4 + 4 + compactSizeLen(sz.scriptSig) + sz.scriptSig;
    witnessBytes += sz.witness;
    if (sz.witness > 1) anyWitness = true;
  });
  const weight = sizeKnown ? base * 4 + (anyWitness ? 2 + witnessBytes : 0) : null;
  const vsize = weight === null ? null : Math.ceil(weight / 4);
  const fee = inputTotal === null ? null : inputTotal - outputTotal;
  const feeRate = fee !== null && vsize !== null && vsize > 0 ? ratio2(fee, BigInt(vsize)) : null;
  const spent = sent + burned;
  const feePercent = fee !== null && spent > 0n ? ratio2(fee * 100n, spent) : null;

  if (missingUtxo.length > 0) {
    warn(
      'fee-unknown',
      'warning',
      `The fee cannot be known: ${missingUtxo.length === 1 ? 'input' : 'inputs'} ${shortList(missingUtxo)} ${missingUtxo.length === 1 ? 'has' : 'have'} no UTXO data (neither witness_utxo nor non_witness_utxo), so the amount being spent is not in the PSBT. Add it (for example with utxoupdatepsbt) before signing.`,
      { inputs: missingUtxo },
    );
  }
  if (fee !== null && fee < 0n) {
    warn('fee-negative', 'danger', `The outputs (${satsBtc(outputTotal)}) add up to more than the inputs (${satsBtc(fee + outputTotal)}): the transaction is invalid as it stands.`);
  }
  if (fee !== null && fee > 0n && vsize !== null && fee * 100n > hundredths(thresholds.feeRateSatVb) * BigInt(vsize)) {
    warn(
      'fee-rate-high',
      'danger',
      `The fee rate is ${feeRate} sat/vB (a fee of ${satsBtc(fee)} for ${vsizeExactText(finalizedAll)} ${vsize} vB), above the limit of ${thresholds.feeRateSatVb} sat/vB.`,
    );
  }
  if (fee !== null && fee > 0n && spent > 0n && fee * 10_000n > hundredths(thresholds.feePercent) * spent) {
    warn(
      'fee-percent-high',
      'warning',
      `The fee of ${satsBtc(fee)} is ${feePercent}% of the ${satsBtc(spent)} being sent, more than ${thresholds.feePercent}%.`,
    );
  }

  // ——— inputs outside the watched set ———
  if (notWatched.length + unknownAddress.length > 0) {
    const parts: string[] = [];
    if (notWatched.length > 0) {
      parts.push(`${notWatched.length === 1 ? 'input' : 'inputs'} ${shortList(notWatched)} ${notWatched.length === 1 ? 'spends a coin' : 'spend coins'} from ${notWatched.length === 1 ? 'an address' : 'addresses'} outside your watched set (${[...new Set(notWatched.map((i) => inputs[i]!.address))].slice(0, 3).join(', ')})`);
    }
    if (unknownAddress.length > 0) {
      parts.push(`${unknownAddress.length === 1 ? 'input' : 'inputs'} ${shortList(unknownAddress)} cannot be matched to your addresses (no UTXO data or a script without an address)`);
    }
    const all = [...notWatched, ...unknownAddress].sort((a, b) => a - b);
    warn('input-not-watched', 'warning', `${all.length} of ${decoded.inputs.length} inputs are not yours as far as Spyglass knows: ${parts.join('; ')}.`, { inputs: all });
  }

  // ——— unknown and proprietary fields ———
  const unknownWhere: string[] = [];
  const propWhere: string[] = [];
  let unknownCount = decoded.unknown.length;
  let propCount = decoded.proprietary.length;
  if (decoded.unknown.length) unknownWhere.push(`global ${decoded.unknown.slice(0, 3).join(', ')}`);
  if (decoded.proprietary.length) propWhere.push(`global ${decoded.proprietary.slice(0, 3).join(', ')}`);
  const unknownInputs: number[] = [];
  const propInputs: number[] = [];
  decoded.inputs.forEach((inp, i) => {
    unknownCount += inp.unknown.length;
    propCount += inp.proprietary.length;
    if (inp.unknown.length) {
      unknownInputs.push(i);
      unknownWhere.push(`input #${i} ${inp.unknown.slice(0, 3).join(', ')}`);
    }
    if (inp.proprietary.length) {
      propInputs.push(i);
      propWhere.push(`input #${i} ${inp.proprietary.slice(0, 3).join(', ')}`);
    }
  });
  const unknownOutputs: number[] = [];
  const propOutputs: number[] = [];
  decoded.outputs.forEach((out, i) => {
    unknownCount += out.unknown.length;
    propCount += out.proprietary.length;
    if (out.unknown.length) {
      unknownOutputs.push(i);
      unknownWhere.push(`output #${i} ${out.unknown.slice(0, 3).join(', ')}`);
    }
    if (out.proprietary.length) {
      propOutputs.push(i);
      propWhere.push(`output #${i} ${out.proprietary.slice(0, 3).join(', ')}`);
    }
  });
  const clip = (w: string[]): string => (w.length > 5 ? `${w.slice(0, 5).join('; ')}; …` : w.join('; '));
  if (unknownCount > 0) {
    warn(
      'unknown-fields',
      'warning',
      `The PSBT carries ${unknownCount} unknown ${unknownCount === 1 ? 'field' : 'fields'} (${clip(unknownWhere)}): Spyglass and Bitcoin Core ignore ${unknownCount === 1 ? 'it' : 'them'}, but another signer might act on ${unknownCount === 1 ? 'it' : 'them'}.`,
      { inputs: unknownInputs, outputs: unknownOutputs },
    );
  }
  if (propCount > 0) {
    warn(
      'proprietary-fields',
      'info',
      `The PSBT carries ${propCount} proprietary ${propCount === 1 ? 'field' : 'fields'} (${clip(propWhere)}), meant for a particular wallet or device.`,
      { inputs: propInputs, outputs: propOutputs },
    );
  }

  // ——— locktime and RBF ———
  const lt = decoded.locktime;
  const enforced = decoded.inputs.some((i) => i.sequence !== SEQUENCE_FINAL);
  const ltKind: 'none' | 'height' | 'time' = lt === 0 ? 'none' : lt < LOCKTIME_THRESHOLD ? 'height' : 'time';
  if (enforced && ltKind === 'height' && ctx.tipHeight !== undefined && lt > ctx.tipHeight) {
    const n = lt - ctx.tipHeight;
    warn(
      'locktime-future',
      'warning',
      `The locktime is block ${lt} but the chain tip is block ${ctx.tipHeight}: the transaction cannot be mined for another ${n} ${n === 1 ? 'block' : 'blocks'} (about ${describeDuration(n * 600)}).`,
    );
  }
  if (enforced && ltKind === 'time') {
    const ref = ctx.medianTime ?? ctx.now;
    if (ref !== undefined && lt >= ref) {
      warn(
        'locktime-future',
        'warning',
        `The locktime is ${timeText(lt)} (${lt}), later than ${ctx.medianTime !== undefined ? 'the median time of the last blocks' : "this computer's clock"}, ${timeText(ref)} (${ref}): the transaction cannot be mined for about ${describeDuration(lt - ref + 1)}.`,
      );
    }
  }
  const rbfInputs = decoded.inputs.flatMap((inp, i) => (inp.sequence < 0xfffffffe ? [i] : []));
  const rbf = rbfInputs.length > 0;
  if (rbf) {
    const seq = decoded.inputs[rbfInputs[0]!]!.sequence;
    warn(
      'rbf',
      'info',
      `Replace-by-fee is signalled (BIP125): ${rbfInputs.length === 1 ? 'input' : 'inputs'} ${shortList(rbfInputs)} ${rbfInputs.length === 1 ? 'has' : 'have'} a sequence below 0xfffffffe (0x${seq.toString(16).padStart(8, '0')}), so the fee can be raised later with a replacement.`,
      { inputs: rbfInputs },
    );
  } else {
    warn(
      'rbf',
      'info',
      'Replace-by-fee is not signalled (every input has sequence 0xfffffffe or 0xffffffff). Nodes that apply full RBF (Bitcoin Core\'s default since v28) may still accept a replacement.',
    );
  }

  // ——— summary ———
  const signaturesComplete = inputs.every((i) => i.finalized || (i.signatures.required !== null && i.signatures.present >= i.signatures.required));
  const { txid, final: txidFinal } = txidOf(decoded, infos);
  warnings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  return {
    summary: {
      version: decoded.version,
      txVersion: decoded.txVersion,
      txid,
      txidFinal,
      inputCount: decoded.inputs.length,
      outputCount: decoded.outputs.length,
      inputTotal,
      outputTotal,
      sent,
      change,
      burned,
      fee,
      vsize,
      weight,
      vsizeExact: finalizedAll && sizeKnown,
      feeRate,
      feePercent,
      locktime: { value: lt, kind: ltKind, enforced },
      rbf,
      finalized: finalizedAll,
      signaturesComplete,
    },
    inputs,
    outputs,
    warnings,
  };
}

function vsizeExactText(exact: boolean): string {
  return exact ? 'exactly' : 'an estimated';
}

function describeDuration(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} minutes`;
  if (seconds < 2 * 86400) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}

/** The transaction's txid now, and whether signing can still change it (scriptSigs to be added). */
function txidOf(p: ReviewPsbt, infos: SpendInfo[]): { txid: string; final: boolean } {
  let final = true;
  const tx: Tx = {
    version: p.txVersion,
    locktime: p.locktime,
    vin: p.inputs.map((inp, i) => {
      const finalized = inp.finalScriptSig !== undefined || inp.finalScriptWitness !== undefined;
      if (!finalized && !infos[i]!.nativeWitness) final = false;
      return { prevTxid: inp.prevTxid, vout: inp.vout >>> 0, scriptSig: inp.finalScriptSig ?? new Uint8Array(0), sequence: inp.sequence, witness: [] };
    }),
    vout: p.outputs.map((o) => ({ value: o.value, script: o.script })),
  };
  return { txid: hexReversed(sha256d(serializeTx(tx, { witness: false }))), final };
}

// ---------------------------------------------------------------------------------------------
// Input text
// ---------------------------------------------------------------------------------------------

export type PsbtEncoding = 'auto' | 'base64' | 'hex';

export type PsbtTextResult =
  | { ok: true; bytes: Uint8Array; encoding: 'base64' | 'hex' }
  | { ok: false; message: string; encoding: 'base64' | 'hex' };

const HEX_MAGIC = '70736274ff';

/**
 * A pasted or loaded PSBT as bytes: surrounding whitespace trimmed, then base64 (Core's strict
 * DecodeBase64) or hex. `auto` takes hex when the text is hex starting with the PSBT magic
 * (70736274ff), base64 otherwise. Base64 failures carry Core's decodepsbt text.
 */
export function psbtTextToBytes(text: string, encoding: PsbtEncoding = 'auto'): PsbtTextResult {
  const t = text.trim();
  const enc = encoding === 'auto' ? (t.length >= 10 && t.slice(0, 10).toLowerCase() === HEX_MAGIC && /^[0-9a-fA-F]*$/.test(t) ? 'hex' : 'base64') : encoding;
  if (enc === 'hex') {
    if (t.length % 2 !== 0) return { ok: false, encoding: enc, message: `The hex text has an odd number of digits (${t.length}).` };
    if (t.length > 0 && !isHex(t)) {
      const bad = t.search(/[^0-9a-fA-F]/);
      return { ok: false, encoding: enc, message: `The hex text has a character that is not a hex digit at position ${bad + 1}.` };
    }
    return { ok: true, encoding: enc, bytes: fromHex(t) };
  }
  const bytes = decodeBase64Core(t);
  if (!bytes) return { ok: false, encoding: enc, message: 'TX decode failed invalid base64' };
  return { ok: true, encoding: enc, bytes };
}
