/**
 * VerifyScript (src/script/interpreter.cpp) with STANDARD_SCRIPT_VERIFY_FLAGS, for the scripts a
 * PSBT finalizer produces solutions for (Core's SignStep templates): P2PK, P2PKH, bare multisig,
 * P2SH of those, P2WPKH, P2WSH of those (also inside P2SH), taproot key path, P2A anchors. Each
 * is evaluated step by step as the interpreter would (push-only and minimal scriptSigs, NULLDUMMY,
 * NULLFAIL, CLEANSTACK, the witness rules). Other P2WSH witness scripts and tapscript leaves
 * (taproot script paths, after their control block is checked) run in the miniscript interpreter
 * (miniscript/exec.ts), which evaluates the opcodes miniscript uses; any other script is reported
 * as not verifiable here, so the finalizer leaves such an input unfinalized rather than guessing.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { checkMinimalPush, getScriptOp, isPayToScriptHash, OP_1NEGATE, OP_16, OP_1, OP_RESERVED, solver, witnessProgram } from '../script';
import { bytesEqual, concatBytes, hash160 } from './edit';
import { ecdsaEncodingProblem, pubkeyEncodingProblem, type Checker, type CheckResult } from './checker';
import { schnorr } from '@noble/curves/secp256k1.js';
import { execMiniscript, type ExecChecker } from '../miniscript/exec';
import { hexOf } from '../tx';
import { taprootTweak } from './ecc';
import { tapLeafHash } from './sighash';

const MAX_ELEMENT = 520;
const MAX_SCRIPT_SIZE = 10000;
const EMPTY = new Uint8Array(0);
const TRUE = Uint8Array.of(1);

/** A script failure and why (not an Error: no stack is captured — an unfinalized input fails here once per finalize). */
class ScriptFail {
  constructor(readonly message: string) {}
}

const fail = (why: string): never => {
  throw new ScriptFail(why);
};

/** CastToBool. */
export function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80);
  }
  return false;
}

/** The minimal push of `data` (CScript() << data). */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  if (n < 0x4c) return concatBytes(Uint8Array.of(n), data);
  if (n <= 0xff) return concatBytes(Uint8Array.of(0x4c, n), data);
  if (n <= 0xffff) return concatBytes(Uint8Array.of(0x4d, n & 0xff, n >> 8), data);
  return concatBytes(Uint8Array.of(0x4e, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24), data);
}

/** EvalScript of a push-only scriptSig (SIGPUSHONLY, MINIMALDATA). */
function evalPushOnly(script: Uint8Array): Uint8Array[] {
  const stack: Uint8Array[] = [];
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) fail('the scriptSig is malformed');
    pc = r.next;
    if (r.op > OP_16) fail('the scriptSig is not push-only');
    if (r.op === OP_RESERVED) fail('the scriptSig executes OP_RESERVED');
    if (r.op <= 0x4e) {
      if (!checkMinimalPush(r.data, r.op)) fail('the scriptSig has a non-minimal push');
      if (r.data.length > MAX_ELEMENT) fail('a pushed element is over 520 bytes');
      stack.push(r.op === 0 ? EMPTY : r.data);
    } else if (r.op === OP_1NEGATE) stack.push(Uint8Array.of(0x81));
    else stack.push(Uint8Array.of(r.op - OP_1 + 1));
  }
  return stack;
}

/** Whether `script` holds the push of `sig` (FindAndDelete would change it: CONST_SCRIPTCODE). */
function containsPush(script: Uint8Array, sig: Uint8Array): boolean {
  const needle = pushData(sig);
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) return false;
    if (r.next - pc === needle.length && bytesEqual(script.subarray(pc, r.next), needle)) return true;
    pc = r.next;
  }
  return false;
}

type Sv = 'base' | 'v0';

/** OP_CHECKSIG before tapscript: true/false, or a script failure (encoding, NULLFAIL). */
function checkSig(sig: Uint8Array, pubkey: Uint8Array, code: Uint8Array, sv: Sv, c: Checker): boolean {
  if (sv === 'base' && sig.length && containsPush(code, sig)) fail('the script code contains the signature');
  const enc = ecdsaEncodingProblem(sig) ?? pubkeyEncodingProblem(pubkey, sv);
  if (enc) fail(enc);
  if (sig.length === 0) return false;
  const why = c.ecdsa(sig, pubkey, code, sv);
  if (why) fail(why); // NULLFAIL: a failed non-empty signature is an error
  return true;
}

/**
 * CHECKMULTISIG's answer "true" when it is known without its trial checks. Core's loop walks the
 * signatures and keys from the last down, checking the encodings of each pair it visits and moving
 * to the next signature when one verifies; it fails only on a bad encoding, or when fewer keys are
 * left than signatures. When every signature and every key is well encoded, no visited pair can
 * fail on encoding; and when each signature has a verdict "valid" already reached (the PSBT's
 * signature check, ecdsaKnownValid) against a key, with these keys distinct and in the signatures'
 * order, the loop passes: signature i is matched at the latest at its own key, so it never runs
 * out of keys (by induction from the last signature). The loop's answer is then the same whatever
 * the other pairs would verify to, so they need not be tried. Anything less (an empty signature, a
 * bad encoding anywhere, a signature with no known verdict) and the loop runs as Core runs it.
 */
function multisigKnownToPass(sigs: Uint8Array[], keys: Uint8Array[], script: Uint8Array, sv: Sv, c: Checker): boolean {
  if (!c.ecdsaKnownValid) return false;
  for (const s of sigs) if (s.length === 0 || ecdsaEncodingProblem(s) !== null) return false;
  for (const k of keys) if (pubkeyEncodingProblem(k, sv) !== null) return false;
  let ki = keys.length - 1;
  for (let si = sigs.length - 1; si >= 0; si--, ki--) {
    while (ki >= si && !c.ecdsaKnownValid(sigs[si]!, keys[ki]!, script, sv)) ki--;
    if (ki < si) return false;
  }
  return true;
}

/** Runs one template script over `stack` (changed in place). */
function execTemplate(script: Uint8Array, stack: Uint8Array[], sv: Sv, c: Checker): void {
  if (script.length > MAX_SCRIPT_SIZE) fail('the script is over 10,000 bytes');
  const { type, solutions } = solver(script);
  const need = (n: number): void => {
    if (stack.length < n) fail('invalid stack operation (missing signatures or keys)');
  };
  switch (type) {
    case 'pubkey': {
      need(1);
      const ok = checkSig(stack.pop()!, solutions[0]!, script, sv, c);
      stack.push(ok ? TRUE : EMPTY);
      return;
    }
    case 'pubkeyhash': {
      need(2);
      const pubkey = stack.pop()!;
      if (!bytesEqual(hash160(pubkey), solutions[0])) fail('the public key does not hash to the script');
      const ok = checkSig(stack.pop()!, pubkey, script, sv, c);
      stack.push(ok ? TRUE : EMPTY);
      return;
    }
    case 'multisig': {
      const m = solutions[0]![0]!;
      const keys = solutions.slice(1, -1);
      need(m + 1);
      const sigs = stack.splice(stack.length - m, m);
      const dummy = stack.pop()!;
      if (sv === 'base') for (const s of sigs) if (s.length && containsPush(script, s)) fail('the script code contains a signature');
      let si = m - 1;
      let ki = keys.length - 1;
      let nSigs = m;
      let nKeys = keys.length;
      let success = true;
      if (multisigKnownToPass(sigs, keys, script, sv, c)) nSigs = 0;
      while (success && nSigs > 0) {
        const sig = sigs[si]!;
        const enc = ecdsaEncodingProblem(sig) ?? pubkeyEncodingProblem(keys[ki]!, sv);
        if (enc) fail(enc);
        if (sig.length && c.ecdsa(sig, keys[ki]!, script, sv) === null) {
          si--;
          nSigs--;
        }
        ki--;
        nKeys--;
        if (nSigs > nKeys) success = false;
      }
      if (!success && sigs.some((s) => s.length > 0)) fail('a signature does not verify against the keys in their order (CHECKMULTISIG)');
      if (dummy.length !== 0) fail('the CHECKMULTISIG dummy element is not empty');
      stack.push(success ? TRUE : EMPTY);
      return;
    }
    case 'scripthash': {
      need(1);
      stack.push(bytesEqual(hash160(stack.pop()!), solutions[0]) ? TRUE : EMPTY);
      return;
    }
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
    case 'witness_v1_taproot':
    case 'anchor':
    case 'witness_unknown': {
      const wp = witnessProgram(script)!;
      stack.push(wp.version === 0 ? EMPTY : Uint8Array.of(wp.version), wp.program);
      return;
    }
    default:
      fail(`a ${type} script is not evaluated by Spyglass's finalizer`);
  }
}

/** The miniscript evaluator's view of a checker (encodings as in checkSig above). */
function execChecker(c: Checker): ExecChecker {
  return {
    ecdsa: (sig, pubkey, code) => c.ecdsa(sig, pubkey, code, 'v0'),
    schnorr: (sig, x, _sv, leaf) => c.schnorr(sig, x, 'tapscript', leaf),
    checkLockTime: (n) => c.checkLockTime(n),
    checkSequence: (n) => c.checkSequence(n),
    ecdsaEncoding: ecdsaEncodingProblem,
    pubkeyEncoding: (k) => pubkeyEncodingProblem(k, 'v0'),
  };
}

function execWitnessScript(stack: Uint8Array[], script: Uint8Array, c: Checker): void {
  for (const e of stack) if (e.length > MAX_ELEMENT) fail('a witness element is over 520 bytes');
  if (solver(script).type === 'nonstandard') {
    // any other witness script: evaluated by the miniscript interpreter (its opcodes only)
    if (script.length > MAX_SCRIPT_SIZE) fail('the script is over 10,000 bytes');
    const why = execMiniscript(script, stack, 'v0', execChecker(c));
    if (why) fail(why);
    return;
  }
  execTemplate(script, stack, 'v0', c);
  if (stack.length !== 1) fail('the witness script leaves more than one element (CLEANSTACK)');
  if (!castToBool(stack[0]!)) fail('the witness script evaluates to false');
}

function p2pkhScript(keyHash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), keyHash, Uint8Array.of(0x88, 0xac));
}

function verifyWitnessProgram(witness: Uint8Array[], version: number, program: Uint8Array, isP2sh: boolean, c: Checker): void {
  if (version === 0) {
    if (program.length === 32) {
      if (witness.length === 0) fail('the witness is empty');
      const ws = witness[witness.length - 1]!;
      if (!bytesEqual(sha256(ws), program)) fail('the witness script does not hash to the program');
      return execWitnessScript(witness.slice(0, -1), ws, c);
    }
    if (program.length === 20) {
      if (witness.length !== 2) fail('a P2WPKH witness needs exactly two elements');
      return execWitnessScript(witness.slice(), p2pkhScript(program), c);
    }
    fail('a version 0 witness program of the wrong length');
  }
  if (version === 1 && program.length === 32 && !isP2sh) {
    if (witness.length === 0) fail('the witness is empty');
    let items = witness;
    if (items.length >= 2 && items[items.length - 1]!.length > 0 && items[items.length - 1]![0] === 0x50) items = items.slice(0, -1);
    if (items.length >= 2) return verifyTapscriptPath(items, program, c);
    const why = c.schnorr(items[0]!, program, 'taproot', null);
    if (why) fail(why);
    return;
  }
  if (version === 1 && !isP2sh && program.length === 2 && program[0] === 0x4e && program[1] === 0x73) return;
  fail('an unknown witness version (not standard)');
}

/** BIP341 script path: the control block commits the leaf to the output key; a tapscript leaf is evaluated. */
function verifyTapscriptPath(items: Uint8Array[], program: Uint8Array, c: Checker): void {
  const control = items[items.length - 1]!;
  const script = items[items.length - 2]!;
  if (control.length < 33 || control.length > 33 + 32 * 128 || (control.length - 33) % 32 !== 0) fail('the control block has a wrong size');
  const ver = control[0]! & 0xfe;
  let k = tapLeafHash(script, ver);
  const leaf = k;
  for (let p = 33; p < control.length; p += 32) {
    const e = control.subarray(p, p + 32);
    k = hexOf(k) < hexOf(e) ? schnorr.utils.taggedHash('TapBranch', k, e) : schnorr.utils.taggedHash('TapBranch', e, k);
  }
  const internal = control.subarray(1, 33);
  const q = taprootTweak(internal, schnorr.utils.taggedHash('TapTweak', internal, k));
  if (!q || !bytesEqual(q.x, program) || q.odd !== ((control[0]! & 1) === 1)) fail('the control block does not commit the script to the output key (witness program mismatch)');
  if (ver !== 0xc0) fail('an unknown leaf version is not evaluated by Spyglass');
  const stack = items.slice(0, -2);
  for (const e of stack) if (e.length > MAX_ELEMENT) fail('a witness element is over 520 bytes');
  const why = execMiniscript(script, stack, 'tapscript', execChecker(c), leaf);
  if (why) fail(why);
}

/** VerifyScript: null when the input's final scripts satisfy the script it spends, else why not. */
export function verifyScript(scriptSig: Uint8Array, spk: Uint8Array, witness: Uint8Array[], c: Checker): CheckResult {
  try {
    const stack = evalPushOnly(scriptSig);
    const copy = stack.slice();
    execTemplate(spk, stack, 'base', c);
    if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) fail('the script evaluates to false');
    let hadWitness = false;
    let top = stack;
    const wp = witnessProgram(spk);
    if (wp) {
      hadWitness = true;
      if (scriptSig.length !== 0) fail('a native witness spend with a non-empty scriptSig');
      verifyWitnessProgram(witness, wp.version, wp.program, false, c);
      top = [TRUE];
    }
    if (isPayToScriptHash(spk)) {
      const st = copy;
      if (st.length === 0) fail('the scriptSig is empty');
      const redeem = st.pop()!;
      execTemplate(redeem, st, 'base', c);
      if (st.length === 0 || !castToBool(st[st.length - 1]!)) fail('the redeem script evaluates to false');
      top = st;
      const wp2 = witnessProgram(redeem);
      if (wp2) {
        hadWitness = true;
        if (!bytesEqual(scriptSig, pushData(redeem))) fail('a P2SH witness spend whose scriptSig is more than the redeem script');
        verifyWitnessProgram(witness, wp2.version, wp2.program, true, c);
        top = [TRUE];
      }
    }
    if (top.length !== 1) fail('the scripts leave more than one element (CLEANSTACK)');
    if (!hadWitness && witness.length > 0) fail('a witness for a script that takes none');
    return null;
  } catch (e) {
    if (e instanceof ScriptFail) return e.message;
    throw e;
  }
}
