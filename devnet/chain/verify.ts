/**
 * Script and signature verification of a transaction's inputs as Core's mempool does it
 * (VerifyScript with the standard flags): P2PKH and other bare scripts, P2SH (with nested segwit),
 * P2WPKH, P2WSH and taproot key path spends; ECDSA (strict DER, low S, each sighash type) and
 * Schnorr signatures checked with @noble/curves over Core's signature hashes (sighash.ts). A
 * taproot script path spend is refused: the devnet does not interpret tapscript.
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { isPayToAnchorProgram, isPayToScriptHash, isPushOnly, witnessProgram } from '../../shared/bitcoin/script';
import { castToBool, ERR, evalScript, ScriptError, type Checker, type SigVersion } from './interpreter';
import { legacySighash, segwitV0Sighash, taprootKeySighash } from './sighash';
import type { ChainTx, ChainTxOut } from './types';

const fail = (e: string): never => {
  throw new ScriptError(e);
};
const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const LOCKTIME_THRESHOLD = 500_000_000n;
const SEQUENCE_FINAL = 0xffffffff;

/** The strict DER signature (without its sighash byte) as 64 bytes r‖s, or null when a value does not fit. */
function derToCompact(der: Uint8Array): Uint8Array | null {
  const lenR = der[3]!;
  const r = der.subarray(4, 4 + lenR);
  const s = der.subarray(6 + lenR, 6 + lenR + der[5 + lenR]!);
  const out = new Uint8Array(64);
  const put = (v: Uint8Array, at: number): boolean => {
    let x = v;
    while (x.length > 0 && x[0] === 0) x = x.subarray(1);
    if (x.length > 32) return false;
    out.set(x, at + 32 - x.length);
    return true;
  };
  return put(r, 0) && put(s, 32) ? out : null;
}

function inputChecker(tx: ChainTx, nIn: number, spent: readonly ChainTxOut[]): Checker {
  const input = tx.vin[nIn]!;
  return {
    checkEcdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean {
      if (sig.length === 0) return false;
      const hashType = sig[sig.length - 1]!;
      const compact = derToCompact(sig.subarray(0, sig.length - 1));
      if (!compact) return false;
      const hash = sigversion === 'base' ? legacySighash(tx, nIn, scriptCode, hashType) : segwitV0Sighash(tx, nIn, scriptCode, spent[nIn]!.value, hashType);
      try {
        return secp256k1.verify(compact, hash, pubkey, { prehash: false, lowS: false });
      } catch {
        return false;
      }
    },
    checkLockTime(n: bigint): boolean {
      const lt = BigInt(tx.locktime >>> 0);
      if (!((lt < LOCKTIME_THRESHOLD && n < LOCKTIME_THRESHOLD) || (lt >= LOCKTIME_THRESHOLD && n >= LOCKTIME_THRESHOLD))) return false;
      return n <= lt && input.sequence >>> 0 !== SEQUENCE_FINAL;
    },
    checkSequence(n: bigint): boolean {
      const seq = BigInt(input.sequence >>> 0);
      if (tx.version >>> 0 < 2 || (seq & (1n << 31n)) !== 0n) return false;
      const mask = (1n << 22n) | 0xffffn;
      const a = seq & mask;
      const b = n & mask;
      const type = 1n << 22n;
      if (!((a < type && b < type) || (a >= type && b >= type))) return false;
      return b <= a;
    },
  };
}

function executeWitnessScript(stack: Uint8Array[], script: Uint8Array, checker: Checker): void {
  if (stack.some((e) => e.length > 520)) fail(ERR.PUSH_SIZE);
  evalScript(stack, script, 'witness_v0', checker);
  if (stack.length !== 1) fail(ERR.CLEANSTACK);
  if (!castToBool(stack[0]!)) fail(ERR.EVAL_FALSE);
}

function verifyWitnessProgram(tx: ChainTx, nIn: number, spent: readonly ChainTxOut[], version: number, program: Uint8Array, isP2sh: boolean, checker: Checker): void {
  const witness = [...tx.vin[nIn]!.witness];
  if (version === 0) {
    if (program.length === 32) {
      if (witness.length === 0) fail(ERR.WITNESS_PROGRAM_WITNESS_EMPTY);
      const script = witness.pop()!;
      if (!equal(sha256(script), program)) fail(ERR.WITNESS_PROGRAM_MISMATCH);
      if (script.length > 10_000) fail(ERR.SCRIPT_SIZE);
      executeWitnessScript(witness, script, checker);
    } else if (program.length === 20) {
      if (witness.length !== 2) fail(ERR.WITNESS_PROGRAM_MISMATCH);
      const script = Uint8Array.from([0x76, 0xa9, 0x14, ...program, 0x88, 0xac]);
      executeWitnessScript(witness, script, checker);
    } else {
      fail(ERR.WITNESS_PROGRAM_WRONG_LENGTH);
    }
    return;
  }
  if (version === 1 && program.length === 32 && !isP2sh) {
    if (witness.length === 0) fail(ERR.WITNESS_PROGRAM_WITNESS_EMPTY);
    let annex: Uint8Array | null = null;
    if (witness.length >= 2 && witness[witness.length - 1]!.length > 0 && witness[witness.length - 1]![0] === 0x50) annex = witness.pop()!;
    if (witness.length !== 1) throw new ScriptError('devnet: a taproot script path spend (the devnet verifies key path spends only)');
    let sig = witness[0]!;
    if (sig.length !== 64 && sig.length !== 65) fail(ERR.SCHNORR_SIG_SIZE);
    let hashType = 0;
    if (sig.length === 65) {
      hashType = sig[64]!;
      sig = sig.subarray(0, 64);
      if (hashType === 0) fail(ERR.SCHNORR_SIG_HASHTYPE);
    }
    const hash = taprootKeySighash(tx, nIn, spent, hashType, annex);
    if (!hash) fail(ERR.SCHNORR_SIG_HASHTYPE);
    let ok = false;
    try {
      ok = schnorr.verify(sig, hash!, program);
    } catch {
      ok = false;
    }
    if (!ok) fail(ERR.SCHNORR_SIG);
    return;
  }
  if (isPayToAnchorProgram(version, program)) return;
  fail(ERR.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM);
}

/** VerifyScript of input `nIn` under the standard flags; throws {@link ScriptError}. */
export function verifyInput(tx: ChainTx, nIn: number, spent: readonly ChainTxOut[]): void {
  const input = tx.vin[nIn]!;
  const scriptPubKey = spent[nIn]!.script;
  const checker = inputChecker(tx, nIn, spent);
  const stack: Uint8Array[] = [];
  evalScript(stack, input.scriptSig, 'base', checker);
  const copy = [...stack];
  evalScript(stack, scriptPubKey, 'base', checker);
  if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) fail(ERR.EVAL_FALSE);
  let hadWitness = false;
  const wp = witnessProgram(scriptPubKey);
  let final = stack;
  if (wp) {
    hadWitness = true;
    if (input.scriptSig.length !== 0) fail(ERR.WITNESS_MALLEATED);
    verifyWitnessProgram(tx, nIn, spent, wp.version, wp.program, false, checker);
    final = [stack[stack.length - 1]!];
  }
  if (isPayToScriptHash(scriptPubKey)) {
    if (!isPushOnly(input.scriptSig)) fail(ERR.SIG_PUSHONLY);
    const st = copy;
    const redeem = st.pop()!;
    evalScript(st, redeem, 'base', checker);
    if (st.length === 0 || !castToBool(st[st.length - 1]!)) fail(ERR.EVAL_FALSE);
    final = st;
    const inner = witnessProgram(redeem);
    if (inner) {
      hadWitness = true;
      const single = input.scriptSig.length === redeem.length + 1 && input.scriptSig[0] === redeem.length && equal(input.scriptSig.subarray(1), redeem);
      if (!single) fail(ERR.WITNESS_MALLEATED_P2SH);
      verifyWitnessProgram(tx, nIn, spent, inner.version, inner.program, true, checker);
      final = [st[st.length - 1]!];
    }
  }
  if (final.length !== 1) fail(ERR.CLEANSTACK);
  if (!hadWitness && input.witness.length > 0) fail(ERR.WITNESS_UNEXPECTED);
}

/** The first failing input as Core reports it, or null when every input verifies. */
export function verifyInputs(tx: ChainTx, spent: readonly ChainTxOut[]): { reason: string; details: string } | null {
  for (let n = 0; n < tx.vin.length; n++) {
    try {
      verifyInput(tx, n, spent);
    } catch (e) {
      if (!(e instanceof ScriptError)) throw e;
      const input = tx.vin[n]!;
      return {
        reason: `mempool-script-verify-flag-failed (${e.message})`,
        details: `input ${n} of ${tx.txid} (wtxid ${tx.wtxid}), spending ${input.txid}:${input.vout}`,
      };
    }
  }
  return null;
}
