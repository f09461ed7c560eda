/**
 * Signature checks as Core's script interpreter makes them under STANDARD_SCRIPT_VERIFY_FLAGS:
 * the encoding rules (strict DER, low S, a defined hash type, compressed keys in segwit v0) and
 * the cryptographic check against the sighash the signature claims (ECDSA for legacy and segwit
 * v0, BIP340 Schnorr for taproot). Each check says why it failed, for the verifier's report.
 */
import { isDefinedHashtypeSignature, isValidSignatureEncoding } from '../script';
import type { Tx } from '../tx';
import { legacySighash, segwitV0Sighash, SighashData, taprootSighash, type SigVersion } from './sighash';
import { derCompact, ecdsaVerify as verifyCompact, highS, rsBelowN, schnorrVerify } from './ecc';
import { LOCKTIME_THRESHOLD, SEQUENCE_FINAL, SEQUENCE_LOCKTIME_DISABLE_FLAG, SEQUENCE_LOCKTIME_MASK, SEQUENCE_LOCKTIME_TYPE_FLAG } from '../locktime';

/** Null when the signature is good, else why not (for the report). */
export type CheckResult = string | null;

/** BaseSignatureChecker: the script evaluator's questions. */
export interface Checker {
  ecdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'base' | 'v0'): CheckResult;
  /**
   * Whether `ecdsa` with these arguments is already known to answer null (a verdict reached
   * before, e.g. by the PSBT's signature check): nothing is verified to answer. Optional; a
   * checker without it knows nothing.
   */
  ecdsaKnownValid?(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'base' | 'v0'): boolean;
  schnorr(sig: Uint8Array, xonly: Uint8Array, sv: 'taproot' | 'tapscript', leafHash: Uint8Array | null): CheckResult;
  /** CheckLockTime / CheckSequence: the transaction meets after(n) / older(n). */
  checkLockTime(n: number): boolean;
  checkSequence(n: number): boolean;
}

/** GenericTransactionSignatureChecker::CheckLockTime for input `nIn` of `tx`. */
export function txMeetsLockTime(tx: Tx, nIn: number, n: number): boolean {
  if (!((tx.locktime < LOCKTIME_THRESHOLD && n < LOCKTIME_THRESHOLD) || (tx.locktime >= LOCKTIME_THRESHOLD && n >= LOCKTIME_THRESHOLD))) return false;
  if (n > tx.locktime) return false;
  return tx.vin[nIn]!.sequence !== SEQUENCE_FINAL;
}

/** GenericTransactionSignatureChecker::CheckSequence (BIP112) for input `nIn` of `tx`. */
export function txMeetsSequence(tx: Tx, nIn: number, n: number): boolean {
  const seq = tx.vin[nIn]!.sequence >>> 0;
  if (tx.version >>> 0 < 2) return false;
  if (seq & SEQUENCE_LOCKTIME_DISABLE_FLAG) return false;
  const mask = SEQUENCE_LOCKTIME_TYPE_FLAG | SEQUENCE_LOCKTIME_MASK;
  const txMasked = seq & mask;
  const nMasked = n & mask;
  if (!((txMasked < SEQUENCE_LOCKTIME_TYPE_FLAG && nMasked < SEQUENCE_LOCKTIME_TYPE_FLAG) || (txMasked >= SEQUENCE_LOCKTIME_TYPE_FLAG && nMasked >= SEQUENCE_LOCKTIME_TYPE_FLAG))) return false;
  return nMasked <= txMasked;
}

/** Core's DummySignatureChecker: every non-empty signature passes, and every timelock. */
export const DUMMY_CHECKER: Checker = {
  ecdsa: (sig) => (sig.length ? null : 'empty signature'),
  schnorr: (sig) => (sig.length ? null : 'empty signature'),
  checkLockTime: () => true,
  checkSequence: () => true,
};

/** CheckSignatureEncoding with DERSIG | LOW_S | STRICTENC (an empty signature is allowed: it is "false"). */
export function ecdsaEncodingProblem(sig: Uint8Array): CheckResult {
  if (sig.length === 0) return null;
  if (!isValidSignatureEncoding(sig)) return 'the signature is not strict DER';
  // CPubKey::CheckLowS parses laxly: an r or s of the group order or above reads as zero, not high.
  const c = derCompact(sig.subarray(0, sig.length - 1));
  if (c !== null && rsBelowN(c) && highS(c)) return 'the signature has a high S value (not standard)';
  if (!isDefinedHashtypeSignature(sig)) return `undefined sighash type 0x${sig[sig.length - 1]!.toString(16).padStart(2, '0')}`;
  return null;
}

/** CheckPubKeyEncoding with STRICTENC and, in segwit v0, WITNESS_PUBKEYTYPE. */
export function pubkeyEncodingProblem(pubkey: Uint8Array, sv: SigVersion): CheckResult {
  const compressed = pubkey.length === 33 && (pubkey[0] === 2 || pubkey[0] === 3);
  const uncompressed = pubkey.length === 65 && pubkey[0] === 4;
  if (!compressed && !uncompressed) return 'the public key is not a valid compressed or uncompressed key';
  if (sv === 'v0' && !compressed) return 'an uncompressed public key in a segwit v0 script';
  return null;
}

/**
 * Verdicts reached already, by the bytes they were reached on (hash, signature, key): a PSBT's
 * signatures are checked by verify, again before finalizing and in the script evaluation, and
 * CHECKMULTISIG tries a signature against several keys. Pure functions of their bytes, so reusing
 * them is exact; the memo is dropped when it grows large.
 */
const verdicts = new Map<string, boolean>();

/** Forgets everything reached (measurements start from nothing; nothing else needs this). */
export function forgetSignatureVerdicts(): void {
  verdicts.clear();
}

let idBytes = new Uint8Array(256);
let idCodes = new Uint16Array(130);

/**
 * A verdict's key: the kind, the key's length, then the bytes of hash, signature and key two to a
 * UTF-16 code unit (a lone last byte as one) — one string per byte sequence, a quarter of hex's
 * length, made without a text decoder.
 */
function verdictId(kind: number, hash: Uint8Array, sig: Uint8Array, sigLen: number, key: Uint8Array): string {
  const n = hash.length + sigLen + key.length;
  if (n > idBytes.length) {
    idBytes = new Uint8Array(n);
    idCodes = new Uint16Array(2 + Math.ceil(n / 2));
  }
  idBytes.set(hash, 0);
  idBytes.set(sig.length === sigLen ? sig : sig.subarray(0, sigLen), hash.length);
  idBytes.set(key, hash.length + sigLen);
  idCodes[0] = kind;
  idCodes[1] = key.length;
  let k = 2;
  for (let i = 0; i < n; i += 2) idCodes[k++] = i + 1 < n ? (idBytes[i]! << 8) | idBytes[i + 1]! : idBytes[i]!;
  return String.fromCharCode.apply(null, idCodes.subarray(0, k) as unknown as number[]);
}

const ecdsaId = (hash: Uint8Array, compact: Uint8Array, pubkey: Uint8Array): string => verdictId(0x65, hash, compact, 64, pubkey);

function remember(id: string, make: () => boolean): boolean {
  const known = verdicts.get(id);
  if (known !== undefined) return known;
  const v = make();
  if (verdicts.size >= 50_000) verdicts.clear();
  verdicts.set(id, v);
  return v;
}

/**
 * ECDSA verification of a DER signature (without its hash type byte) over a 32-byte hash, as
 * Core checks it: its lax parse of r and s, then libsecp256k1 (ecc.ts) with S normalized.
 */
export function ecdsaVerify(sig: Uint8Array, hash: Uint8Array, pubkey: Uint8Array): boolean {
  const c = derCompact(sig);
  if (c === null) return false;
  return remember(ecdsaId(hash, c, pubkey), () => verifyCompact(hash, c, pubkey));
}

/** Whether ecdsaVerify(sig, hash, pubkey) was answered true already (nothing is verified here). */
export function ecdsaKnownValid(sig: Uint8Array, hash: Uint8Array, pubkey: Uint8Array): boolean {
  const c = derCompact(sig);
  return c !== null && verdicts.get(ecdsaId(hash, c, pubkey)) === true;
}

/** BIP143 hashes of a transaction checked without precomputed data (Core computes them per check; the same values). */
const bip143Of = new WeakMap<Tx, SighashData>();
function bip143(tx: Tx): SighashData {
  let d = bip143Of.get(tx);
  if (!d) bip143Of.set(tx, (d = new SighashData(tx, null)));
  return d;
}

const hashTypeName = (t: number): string => `0x${t.toString(16).padStart(2, '0')}`;

/**
 * MutableTransactionSignatureChecker for input `nIn` spending `amount`: signatures are checked
 * against the sighash of this transaction. Without `data` (Core's checker without precomputed
 * data), taproot signatures cannot be checked.
 */
export class TxChecker implements Checker {
  constructor(
    readonly tx: Tx,
    readonly nIn: number,
    readonly amount: bigint,
    readonly data: SighashData | null,
  ) {}

  /** The last script code and signature version hashed, and its sighashes by hash type (a script's signatures share them). */
  private hashedCode: Uint8Array | null = null;
  private hashedSv: 'base' | 'v0' = 'base';
  private readonly hashes = new Map<number, Uint8Array>();

  private sighash(scriptCode: Uint8Array, sv: 'base' | 'v0', hashType: number): Uint8Array {
    if (scriptCode !== this.hashedCode || sv !== this.hashedSv) {
      this.hashedCode = scriptCode;
      this.hashedSv = sv;
      this.hashes.clear();
    }
    let hash = this.hashes.get(hashType);
    if (!hash) {
      hash =
        sv === 'base'
          ? legacySighash(this.tx, this.nIn, scriptCode, hashType)
          : segwitV0Sighash(this.data ?? bip143(this.tx), this.nIn, scriptCode, this.amount, hashType);
      this.hashes.set(hashType, hash);
    }
    return hash;
  }

  ecdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'base' | 'v0'): CheckResult {
    if (sig.length === 0) return 'empty signature';
    const hashType = sig[sig.length - 1]!;
    const hash = this.sighash(scriptCode, sv, hashType);
    return ecdsaVerify(sig.subarray(0, sig.length - 1), hash, pubkey) ? null : `the signature does not verify (sighash ${hashTypeName(hashType)})`;
  }

  ecdsaKnownValid(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'base' | 'v0'): boolean {
    if (sig.length === 0) return false;
    return ecdsaKnownValid(sig.subarray(0, sig.length - 1), this.sighash(scriptCode, sv, sig[sig.length - 1]!), pubkey);
  }

  checkLockTime(n: number): boolean {
    return txMeetsLockTime(this.tx, this.nIn, n);
  }

  checkSequence(n: number): boolean {
    return txMeetsSequence(this.tx, this.nIn, n);
  }

  schnorr(sig: Uint8Array, xonly: Uint8Array, _sv: 'taproot' | 'tapscript', leafHash: Uint8Array | null): CheckResult {
    if (sig.length !== 64 && sig.length !== 65) return `a Schnorr signature of ${sig.length} bytes (64 or 65 expected)`;
    let hashType = 0;
    if (sig.length === 65) {
      hashType = sig[64]!;
      if (hashType === 0) return 'a 65-byte Schnorr signature with sighash type 0x00';
    }
    if (!this.data?.taproot) return 'the sighash cannot be computed: a spent output (UTXO) of the transaction is missing';
    const hash = taprootSighash(this.data, this.nIn, hashType, leafHash);
    if (!hash) return `the sighash cannot be computed for sighash type ${hashTypeName(hashType)}`;
    const ok = remember(verdictId(0x73, hash, sig, 64, xonly), () => schnorrVerify(sig.subarray(0, 64), hash, xonly));
    return ok ? null : `the signature does not verify (sighash ${hashTypeName(hashType)})`;
  }
}
