/**
 * Signature checks as Core's script interpreter makes them under STANDARD_SCRIPT_VERIFY_FLAGS:
 * the encoding rules (strict DER, low S, a defined hash type, compressed keys in segwit v0) and
 * the cryptographic check against the sighash the signature claims (ECDSA for legacy and segwit
 * v0, BIP340 Schnorr for taproot). Each check says why it failed, for the verifier's report.
 */
import { isDefinedHashtypeSignature, isValidSignatureEncoding } from '../script';
import { hexOf, type Tx } from '../tx';
import { legacySighash, segwitV0Sighash, SighashData, taprootSighash, type SigVersion } from './sighash';
import { ecdsaRecoverAll, N, pointKey, schnorrVerify } from './ecc';

const HALF_N = N >> 1n;

/** Null when the signature is good, else why not (for the report). */
export type CheckResult = string | null;

/** BaseSignatureChecker: the script evaluator's questions. */
export interface Checker {
  ecdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'base' | 'v0'): CheckResult;
  schnorr(sig: Uint8Array, xonly: Uint8Array, sv: 'taproot' | 'tapscript', leafHash: Uint8Array | null): CheckResult;
}

/** Core's DummySignatureChecker: every non-empty signature passes. */
export const DUMMY_CHECKER: Checker = {
  ecdsa: (sig) => (sig.length ? null : 'empty signature'),
  schnorr: (sig) => (sig.length ? null : 'empty signature'),
};

function bigOf(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

/** r and s of a strictly DER-encoded signature (with its hash type byte), as integers. */
export function derRS(sig: Uint8Array): { r: bigint; s: bigint } {
  const lenR = sig[3]!;
  const lenS = sig[5 + lenR]!;
  return { r: bigOf(sig.subarray(4, 4 + lenR)), s: bigOf(sig.subarray(6 + lenR, 6 + lenR + lenS)) };
}

/** CheckSignatureEncoding with DERSIG | LOW_S | STRICTENC (an empty signature is allowed: it is "false"). */
export function ecdsaEncodingProblem(sig: Uint8Array): CheckResult {
  if (sig.length === 0) return null;
  if (!isValidSignatureEncoding(sig)) return 'the signature is not strict DER';
  // CPubKey::CheckLowS parses laxly: an r or s of the group order or above reads as zero, not high.
  const { r, s } = derRS(sig);
  if (r < N && s < N && s > HALF_N) return 'the signature has a high S value (not standard)';
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
 * Reached already: the keys each ECDSA signature recovers to (by hash and signature), the points
 * of public keys, the verdicts on Schnorr signatures. A PSBT's signatures are checked by verify,
 * again before finalizing and in the script evaluation, and CHECKMULTISIG tries a signature against
 * several keys: each is a lookup after the first time. Pure functions of their bytes, so reusing
 * them is exact; each memo is dropped when it grows large.
 */
const recovered = new Map<string, Set<string>>();
const points = new Map<string, string | null>();
const schnorrVerdicts = new Map<string, boolean>();

/** Forgets everything reached (measurements start from nothing; nothing else needs this). */
export function forgetSignatureVerdicts(): void {
  recovered.clear();
  points.clear();
  schnorrVerdicts.clear();
}

/**
 * What verifying reached, as plain data: the keys each ECDSA signature recovers to and the Schnorr
 * verdicts. Another thread that verified some of a PSBT's inputs hands these over, and
 * `seedSignatureVerdicts` makes them lookups here (each entry is a pure function of its id, so a
 * verdict reached elsewhere is the verdict reached here).
 */
export interface SignatureVerdicts {
  ecdsa: [string, string[]][];
  schnorr: [string, boolean][];
}

export function exportSignatureVerdicts(): SignatureVerdicts {
  return { ecdsa: [...recovered].map(([id, keys]) => [id, [...keys]]), schnorr: [...schnorrVerdicts] };
}

export function seedSignatureVerdicts(v: SignatureVerdicts): void {
  for (const [id, keys] of v.ecdsa) remember(recovered, id, () => new Set(keys));
  for (const [id, ok] of v.schnorr) remember(schnorrVerdicts, id, () => ok);
}

function remember<V>(m: Map<string, V>, id: string, make: () => V): V {
  const known = m.get(id);
  if (known !== undefined) return known;
  const v = make();
  if (m.size >= 50_000) m.clear();
  m.set(id, v);
  return v;
}

/**
 * ECDSA verification of a DER signature (without its hash type byte) over a 32-byte hash, as
 * libsecp256k1 checks it after Core's lax parse and S normalization: the key must be one of those
 * the signature recovers to (ecc.ts).
 */
export function ecdsaVerify(sig: Uint8Array, hash: Uint8Array, pubkey: Uint8Array): boolean {
  const { r, s } = derRS(sig);
  if (r === 0n || s === 0n || r >= N || s >= N) return false;
  const keys = remember(recovered, hexOf(hash) + r.toString(16) + ':' + s.toString(16), () => ecdsaRecoverAll(hash, r, s));
  if (keys.size === 0) return false;
  const pk = remember(points, hexOf(pubkey), () => pointKey(pubkey));
  return pk !== null && keys.has(pk);
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

  ecdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'base' | 'v0'): CheckResult {
    if (sig.length === 0) return 'empty signature';
    const hashType = sig[sig.length - 1]!;
    const hash =
      sv === 'base'
        ? legacySighash(this.tx, this.nIn, scriptCode, hashType)
        : segwitV0Sighash(this.data ?? bip143(this.tx), this.nIn, scriptCode, this.amount, hashType);
    return ecdsaVerify(sig.subarray(0, sig.length - 1), hash, pubkey) ? null : `the signature does not verify (sighash ${hashTypeName(hashType)})`;
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
    const ok = remember(schnorrVerdicts, hexOf(hash) + hexOf(sig, 0, 64) + hexOf(xonly), () => schnorrVerify(sig.subarray(0, 64), hash, xonly));
    return ok ? null : `the signature does not verify (sighash ${hashTypeName(hashType)})`;
  }
}
