/**
 * Offline signature verification of a PSBT: every partial signature is checked against its public
 * key and the sighash it claims — ECDSA with the legacy or BIP143 sighash for P2PKH, P2PK, bare
 * multisig, P2SH, P2WPKH, P2WSH and their nestings; BIP340 Schnorr with the BIP341 sighash for the
 * taproot key path and BIP342 for tapscript leaves — under the encoding rules of Core's standard
 * script flags; MuSig2 partial signatures with BIP327's PartialSigVerify (musig2-verify.ts). A bad
 * signature is named: input, public key, why.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { fromHex } from '../hex';
import { isPayToScriptHash, solver, witnessProgram } from '../script';
import { hexOf, type Tx, type TxOut } from '../tx';
import { ecdsaEncodingProblem, pubkeyEncodingProblem, TxChecker } from './checker';
import { bytesEqual, concatBytes, hash160 } from './edit';
import { precompute, getUtxo } from './sign-input';
import { checkMusigPartials } from './musig2-verify';
import { isFinalInput } from './sigdata';
import type { SighashData } from './sighash';
import type { Psbt, PsbtInput } from './types';

export type SignatureKind = 'ecdsa' | 'taproot-key' | 'tapscript' | 'musig2-partial';

export interface SignatureCheck {
  input: number;
  kind: SignatureKind;
  /** The public key (hex; x-only for taproot: the output key for a key path signature; a MuSig2 participant's 33 bytes). */
  pubkey: string;
  /** MuSig2 partial signatures: the key the session signs for, as the PSBT field names it (hex). */
  aggregate?: string;
  /** Tapscript signatures: the leaf hash (hex). */
  leafHash?: string;
  /** The sighash type the signature claims (0 for a 64-byte Schnorr signature). */
  sighash: number;
  /** valid; invalid (it does not verify, or breaks a rule); unverifiable (data is missing to check it). */
  status: 'valid' | 'invalid' | 'unverifiable';
  /** Why, unless valid. */
  reason?: string;
}

export interface VerifyReport {
  checks: SignatureCheck[];
  /** The checks that are not valid. */
  problems: SignatureCheck[];
  /** Every signature is valid (and there is at least one, or every input is final). */
  ok: boolean;
}

/** What an ECDSA signature of this input signs: the script code and signature version, or why unknown. */
function ecdsaTarget(input: PsbtInput, spk: Uint8Array): { code: Uint8Array; sv: 'base' | 'v0' } | string {
  let script = spk;
  if (isPayToScriptHash(spk)) {
    const rs = input.redeemScript;
    if (!rs || rs.length === 0) return 'the redeem script is missing';
    if (!bytesEqual(hash160(rs), spk.subarray(2, 22))) return 'the redeem script does not match the spent script';
    script = rs;
  }
  const wp = witnessProgram(script);
  if (!wp) return { code: script, sv: 'base' };
  if (wp.version === 0 && wp.program.length === 20) {
    return { code: concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), wp.program, Uint8Array.of(0x88, 0xac)), sv: 'v0' };
  }
  if (wp.version === 0 && wp.program.length === 32) {
    const ws = input.witnessScript;
    if (!ws || ws.length === 0) return 'the witness script is missing';
    if (!bytesEqual(sha256(ws), wp.program)) return 'the witness script does not match the spent script';
    return { code: ws, sv: 'v0' };
  }
  return wp.version === 1 ? 'an ECDSA signature on a taproot input' : 'an ECDSA signature on an unknown witness version';
}

/** Whether a key is one the script code checks a signature against (the script solved once for all its signatures). */
function keysInScript(code: Uint8Array): (pubkey: Uint8Array) => boolean {
  const { type, solutions } = solver(code);
  if (type === 'pubkeyhash') return (pubkey) => bytesEqual(solutions[0], hash160(pubkey));
  if (type === 'pubkey') return (pubkey) => bytesEqual(solutions[0], pubkey);
  if (type === 'multisig') {
    const keys = solutions.slice(1, -1);
    return (pubkey) => keys.some((k) => bytesEqual(k, pubkey));
  }
  return () => true; // other scripts: the signature check itself decides
}

function sighashMismatch(input: PsbtInput, claimed: number): string | null {
  if (input.sighash === undefined || input.sighash === claimed) return null;
  return `it signs with sighash type 0x${claimed.toString(16).padStart(2, '0')} but the input asks for ${input.sighash}`;
}

function checkInput(p: Psbt, index: number, tx: Tx, data: SighashData, out: SignatureCheck[]): void {
  const input = p.inputs[index]!;
  if (isFinalInput(input)) return;
  const utxo: TxOut | null = getUtxo(input);
  const add = (c: Omit<SignatureCheck, 'input'>): void => {
    out.push({ input: index, ...c });
  };
  // What every ECDSA signature of the input signs, found once for all of them (its sighashes too, in the checker).
  const target = utxo && input.partialSigs.size > 0 ? ecdsaTarget(input, utxo.script) : null;
  const inScript = target && typeof target !== 'string' ? keysInScript(target.code) : null;
  const checker = utxo ? new TxChecker(tx, index, utxo.value, data) : null;
  for (const { pubkey, sig } of input.partialSigs.values()) {
    const base = { kind: 'ecdsa' as const, pubkey: hexOf(pubkey), sighash: sig[sig.length - 1]! };
    if (!utxo || !checker || target === null) {
      add({ ...base, status: 'unverifiable', reason: 'the input has no UTXO (its sighash needs the spent output)' });
      continue;
    }
    if (typeof target === 'string') {
      add({ ...base, status: target.startsWith('an ECDSA') ? 'invalid' : 'unverifiable', reason: target });
      continue;
    }
    const why =
      ecdsaEncodingProblem(sig) ??
      pubkeyEncodingProblem(pubkey, target.sv) ??
      (inScript!(pubkey) ? null : 'the key is not one the spent script checks') ??
      sighashMismatch(input, base.sighash) ??
      checker.ecdsa(sig, pubkey, target.code, target.sv);
    add({ ...base, status: why ? 'invalid' : 'valid', ...(why ? { reason: why } : {}) });
  }
  const schnorr = (sig: Uint8Array, kind: SignatureKind, x: Uint8Array, leaf: Uint8Array | null): void => {
    const base = { kind, pubkey: hexOf(x), ...(leaf ? { leafHash: hexOf(leaf) } : {}), sighash: sig.length === 65 ? sig[64]! : 0 };
    if (!data.taproot) {
      add({ ...base, status: 'unverifiable', reason: 'a spent output (UTXO) of the transaction is missing; taproot sighashes commit to all of them' });
      return;
    }
    const why = sighashMismatch(input, base.sighash) ?? checker!.schnorr(sig, x, leaf ? 'tapscript' : 'taproot', leaf);
    add({ ...base, status: why ? 'invalid' : 'valid', ...(why ? { reason: why } : {}) });
  };
  if (input.tapKeySig && input.tapKeySig.length > 0) {
    const wp = utxo ? witnessProgram(utxo.script) : null;
    if (!wp || wp.version !== 1 || wp.program.length !== 32) {
      const x = input.tapInternalKey ?? new Uint8Array(32);
      add({ kind: 'taproot-key', pubkey: hexOf(x), sighash: 0, status: utxo ? 'invalid' : 'unverifiable', reason: utxo ? 'a taproot key path signature on an input that is not taproot' : 'the input has no UTXO' });
    } else schnorr(input.tapKeySig, 'taproot-key', wp.program, null);
  }
  for (const s of input.tapScriptSigs.values()) {
    const x = fromHex(s.pubkey);
    const leaf = fromHex(s.leaf);
    if (!utxo) add({ kind: 'tapscript', pubkey: s.pubkey, leafHash: s.leaf, sighash: 0, status: 'unverifiable', reason: 'the input has no UTXO' });
    else schnorr(s.sig, 'tapscript', x, leaf);
  }
  if (input.musigPartialSigs.size > 0) out.push(...checkMusigPartials(input, index, utxo, data));
}

/** Checks every partial signature of the PSBT, or of inputs [from, to) (final inputs are not re-checked here; finalize does). */
export function verifyPsbtSignatures(p: Psbt, inputs?: { from: number; to: number }): VerifyReport {
  const checks: SignatureCheck[] = [];
  const pre = precompute(p);
  const from = Math.max(0, inputs?.from ?? 0);
  const to = Math.min(p.inputs.length, inputs?.to ?? p.inputs.length);
  if (pre) for (let i = from; i < to; i++) checkInput(p, i, pre.tx, pre.data, checks);
  const problems = checks.filter((c) => c.status !== 'valid');
  return { checks, problems, ok: pre !== null && problems.length === 0 };
}

/** One line for a problem: "input 1, key 02ab…: the signature does not verify (sighash 0x01)". */
export function describeProblem(c: SignatureCheck): string {
  const who = c.kind === 'ecdsa' ? 'key' : c.kind === 'musig2-partial' ? 'MuSig2 participant' : 'x-only key';
  return `input ${c.input}, ${who} ${c.pubkey}${c.aggregate ? ` for ${c.aggregate}` : ''}${c.leafHash ? ` (leaf ${c.leafHash})` : ''}: ${c.reason ?? c.status}`;
}
