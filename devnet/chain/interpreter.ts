/**
 * Core's script interpreter (script/interpreter.cpp EvalScript) for legacy and segwit v0 scripts
 * under the mempool's standard flags (STRICTENC, DERSIG, LOW_S, NULLDUMMY, NULLFAIL, MINIMALDATA,
 * MINIMALIF for v0, CONST_SCRIPTCODE, WITNESS_PUBKEYTYPE, CLTV/CSV, DISCOURAGE_UPGRADABLE_NOPS), with
 * Core's error texts (script_error.cpp). Tapscript (BIP342) is not interpreted: the devnet verifies
 * taproot key path spends only (verify.ts).
 */
import { ripemd160, sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { checkMinimalPush, getScriptOp, isDefinedHashtypeSignature, isValidSignatureEncoding } from '../../shared/bitcoin/script';
import { sha256d } from '../../shared/bitcoin/tx';

export class ScriptError extends Error {}

export const ERR = {
  EVAL_FALSE: 'Script evaluated without error but finished with a false/empty top stack element',
  VERIFY: 'Script failed an OP_VERIFY operation',
  EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  CHECKMULTISIGVERIFY: 'Script failed an OP_CHECKMULTISIGVERIFY operation',
  CHECKSIGVERIFY: 'Script failed an OP_CHECKSIGVERIFY operation',
  NUMEQUALVERIFY: 'Script failed an OP_NUMEQUALVERIFY operation',
  SCRIPT_SIZE: 'Script is too big',
  PUSH_SIZE: 'Push value size limit exceeded',
  OP_COUNT: 'Operation limit exceeded',
  STACK_SIZE: 'Stack size limit exceeded',
  SIG_COUNT: 'Signature count negative or greater than pubkey count',
  PUBKEY_COUNT: 'Pubkey count negative or limit exceeded',
  BAD_OPCODE: 'Opcode missing or not understood',
  DISABLED_OPCODE: 'Attempted to use a disabled opcode',
  INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  INVALID_ALTSTACK_OPERATION: 'Operation not valid with the current altstack size',
  OP_RETURN: 'OP_RETURN was encountered',
  UNBALANCED_CONDITIONAL: 'Invalid OP_IF construction',
  NEGATIVE_LOCKTIME: 'Negative locktime',
  UNSATISFIED_LOCKTIME: 'Locktime requirement not satisfied',
  SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SIG_DER: 'Non-canonical DER signature',
  MINIMALDATA: 'Data push larger than necessary',
  SIG_PUSHONLY: 'Only push operators allowed in signatures',
  SIG_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  SIG_NULLDUMMY: 'Dummy CHECKMULTISIG argument must be zero',
  MINIMALIF: 'OP_IF/NOTIF argument must be minimal',
  SIG_NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  DISCOURAGE_UPGRADABLE_NOPS: 'NOPx reserved for soft-fork upgrades',
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 'Witness version reserved for soft-fork upgrades',
  PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  CLEANSTACK: 'Stack size must be exactly one after execution',
  WITNESS_PROGRAM_WRONG_LENGTH: 'Witness program has incorrect length',
  WITNESS_PROGRAM_WITNESS_EMPTY: 'Witness program was passed an empty witness',
  WITNESS_PROGRAM_MISMATCH: 'Witness program hash mismatch',
  WITNESS_MALLEATED: 'Witness requires empty scriptSig',
  WITNESS_MALLEATED_P2SH: 'Witness requires only-redeemscript scriptSig',
  WITNESS_UNEXPECTED: 'Witness provided for non-witness script',
  WITNESS_PUBKEYTYPE: 'Using non-compressed keys in segwit',
  SCHNORR_SIG_SIZE: 'Invalid Schnorr signature size',
  SCHNORR_SIG_HASHTYPE: 'Invalid Schnorr signature hash type',
  SCHNORR_SIG: 'Invalid Schnorr signature',
  SIG_FINDANDDELETE: 'Signature is found in scriptCode',
} as const;

const fail = (e: string): never => {
  throw new ScriptError(e);
};

export type SigVersion = 'base' | 'witness_v0';

/** What EvalScript asks of the transaction: an ECDSA check over a scriptCode, and the lock time rules. */
export interface Checker {
  checkEcdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean;
  checkLockTime(n: bigint): boolean;
  checkSequence(n: bigint): boolean;
}

const MAX_ELEMENT = 520;
const MAX_OPS = 201;
const MAX_STACK = 1000;
const MAX_MULTISIG_KEYS = 20;
const DISABLED = new Set([0x7e, 0x7f, 0x80, 0x81, 0x83, 0x84, 0x85, 0x86, 0x8d, 0x8e, 0x95, 0x96, 0x97, 0x98, 0x99]);
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80);
  }
  return false;
}

/** CScriptNum from a stack element (minimal encoding required, as under MINIMALDATA). */
function num(v: Uint8Array, maxSize = 4): bigint {
  // CScriptNum throws scriptnum_error; EvalScript reports it as SCRIPT_ERR_UNKNOWN_ERROR.
  if (v.length > maxSize) fail('unknown error');
  if (v.length > 0 && (v[v.length - 1]! & 0x7f) === 0 && (v.length <= 1 || (v[v.length - 2]! & 0x80) === 0)) fail('unknown error');
  let r = 0n;
  for (let i = 0; i < v.length; i++) r |= BigInt(v[i]!) << BigInt(8 * i);
  if (v.length > 0 && v[v.length - 1]! & 0x80) r = -(r & ~(0x80n << BigInt(8 * (v.length - 1))));
  return r;
}

function encodeNum(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  const neg = n < 0n;
  let a = neg ? -n : n;
  const out: number[] = [];
  while (a > 0n) {
    out.push(Number(a & 0xffn));
    a >>= 8n;
  }
  if (out[out.length - 1]! & 0x80) out.push(neg ? 0x80 : 0);
  else if (neg) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

/** IsLowDERSignature: S at most half the curve order (the encoding is already strict DER). */
function isLowS(sig: Uint8Array): boolean {
  const lenR = sig[3]!;
  const lenS = sig[5 + lenR]!;
  let s = 0n;
  for (const b of sig.subarray(6 + lenR, 6 + lenR + lenS)) s = (s << 8n) | BigInt(b);
  return s <= HALF_ORDER;
}

/** CheckSignatureEncoding under the standard flags. */
export function checkSignatureEncoding(sig: Uint8Array): void {
  if (sig.length === 0) return;
  if (!isValidSignatureEncoding(sig)) fail(ERR.SIG_DER);
  if (!isLowS(sig)) fail(ERR.SIG_HIGH_S);
  if (!isDefinedHashtypeSignature(sig)) fail(ERR.SIG_HASHTYPE);
}

/** CheckPubKeyEncoding under the standard flags. */
function checkPubKeyEncoding(key: Uint8Array, sigversion: SigVersion): void {
  const compressed = key.length === 33 && (key[0] === 2 || key[0] === 3);
  const uncompressed = key.length === 65 && key[0] === 4;
  if (!compressed && !uncompressed) fail(ERR.PUBKEYTYPE);
  if (sigversion === 'witness_v0' && !compressed) fail(ERR.WITNESS_PUBKEYTYPE);
}

/** FindAndDelete of a push of `sig` in `script` (whole opcodes only); returns the script and how many were removed. */
function findAndDelete(script: Uint8Array, sig: Uint8Array): { script: Uint8Array; found: number } {
  if (sig.length === 0) return { script, found: 0 };
  const push = Uint8Array.from([...(sig.length < 0x4c ? [sig.length] : sig.length <= 0xff ? [0x4c, sig.length] : [0x4d, sig.length & 0xff, sig.length >> 8]), ...sig]);
  const out: number[] = [];
  let found = 0;
  let pc = 0;
  while (pc < script.length) {
    if (pc + push.length <= script.length && push.every((b, i) => script[pc + i] === b)) {
      found++;
      pc += push.length;
      continue;
    }
    const r = getScriptOp(script, pc);
    const next = r.ok ? r.next : script.length;
    for (let k = pc; k < next; k++) out.push(script[k]!);
    pc = next;
  }
  return { script: found ? Uint8Array.from(out) : script, found };
}

/** EvalScript: runs `script` on `stack`. Throws {@link ScriptError} with Core's text. */
export function evalScript(stack: Uint8Array[], script: Uint8Array, sigversion: SigVersion, checker: Checker): void {
  if (script.length > 10_000) fail(ERR.SCRIPT_SIZE);
  const alt: Uint8Array[] = [];
  const exec: boolean[] = [];
  let ops = 0;
  let codeHashStart = 0;
  const top = (i: number): Uint8Array => {
    if (stack.length < -i) fail(ERR.INVALID_STACK_OPERATION);
    return stack[stack.length + i]!;
  };
  const pop = (): Uint8Array => {
    if (stack.length === 0) fail(ERR.INVALID_STACK_OPERATION);
    return stack.pop()!;
  };
  let pc = 0;
  while (pc < script.length) {
    const executing = exec.every(Boolean);
    const r = getScriptOp(script, pc);
    if (!r.ok) fail(ERR.BAD_OPCODE);
    pc = r.next;
    const op = r.op;
    if (r.data.length > MAX_ELEMENT) fail(ERR.PUSH_SIZE);
    if (op > 0x60 && ++ops > MAX_OPS) fail(ERR.OP_COUNT);
    if (DISABLED.has(op)) fail(ERR.DISABLED_OPCODE);
    if (op === 0xab && sigversion === 'base') fail('Using OP_CODESEPARATOR in non-witness script');
    if (executing && op <= 0x4e) {
      if (!checkMinimalPush(r.data, op)) fail(ERR.MINIMALDATA);
      stack.push(r.data);
    } else if (executing || (op >= 0x63 && op <= 0x68)) {
      switch (op) {
        case 0x4f: case 0x51: case 0x52: case 0x53: case 0x54: case 0x55: case 0x56: case 0x57: case 0x58:
        case 0x59: case 0x5a: case 0x5b: case 0x5c: case 0x5d: case 0x5e: case 0x5f: case 0x60:
          stack.push(encodeNum(BigInt(op - 0x50)));
          break;
        case 0x61: break; // OP_NOP
        case 0xb1: case 0xb2: { // CHECKLOCKTIMEVERIFY, CHECKSEQUENCEVERIFY
          const n = num(top(-1), 5);
          if (n < 0n) fail(ERR.NEGATIVE_LOCKTIME);
          if (op === 0xb1 ? !checker.checkLockTime(n) : (n & (1n << 31n)) === 0n && !checker.checkSequence(n)) fail(ERR.UNSATISFIED_LOCKTIME);
          break;
        }
        case 0xb0: case 0xb3: case 0xb4: case 0xb5: case 0xb6: case 0xb7: case 0xb8: case 0xb9:
          fail(ERR.DISCOURAGE_UPGRADABLE_NOPS);
          break;
        case 0x63: case 0x64: { // IF, NOTIF
          let v = false;
          if (executing) {
            const c = pop();
            if (sigversion === 'witness_v0' && (c.length > 1 || (c.length === 1 && c[0] !== 1))) fail(ERR.MINIMALIF);
            v = castToBool(c) === (op === 0x63);
          }
          exec.push(v);
          break;
        }
        case 0x67: if (!exec.length) fail(ERR.UNBALANCED_CONDITIONAL); exec[exec.length - 1] = !exec[exec.length - 1]; break;
        case 0x68: if (!exec.length) fail(ERR.UNBALANCED_CONDITIONAL); exec.pop(); break;
        case 0x69: if (!castToBool(top(-1))) fail(ERR.VERIFY); pop(); break;
        case 0x6a: fail(ERR.OP_RETURN); break;
        case 0x6b: alt.push(pop()); break;
        case 0x6c: if (!alt.length) fail(ERR.INVALID_ALTSTACK_OPERATION); stack.push(alt.pop()!); break;
        case 0x6d: top(-2); pop(); pop(); break;
        case 0x6e: stack.push(top(-2), top(-2)); break;
        case 0x6f: stack.push(top(-3), top(-3), top(-3)); break;
        case 0x70: stack.push(top(-4), top(-4)); break;
        case 0x71: { top(-6); const a = stack.splice(stack.length - 6, 2); stack.push(...a); break; }
        case 0x72: { top(-4); const a = stack.splice(stack.length - 4, 2); stack.push(...a); break; }
        case 0x73: if (castToBool(top(-1))) stack.push(top(-1)); break;
        case 0x74: stack.push(encodeNum(BigInt(stack.length))); break;
        case 0x75: pop(); break;
        case 0x76: stack.push(top(-1)); break;
        case 0x77: top(-2); stack.splice(stack.length - 2, 1); break;
        case 0x78: stack.push(top(-2)); break;
        case 0x79: case 0x7a: { // PICK, ROLL
          const n = Number(num(pop()));
          if (n < 0 || n >= stack.length) fail(ERR.INVALID_STACK_OPERATION);
          const v = stack[stack.length - 1 - n]!;
          if (op === 0x7a) stack.splice(stack.length - 1 - n, 1);
          stack.push(v);
          break;
        }
        case 0x7b: { top(-3); const v = stack.splice(stack.length - 3, 1)[0]!; stack.push(v); break; }
        case 0x7c: { top(-2); const v = stack.splice(stack.length - 2, 1)[0]!; stack.push(v); break; }
        case 0x7d: { top(-2); stack.splice(stack.length - 2, 0, top(-1)); break; }
        case 0x82: stack.push(encodeNum(BigInt(top(-1).length))); break;
        case 0x87: case 0x88: {
          const b = top(-1);
          const a = top(-2);
          const eq = a.length === b.length && a.every((x, i) => x === b[i]);
          pop(); pop();
          stack.push(eq ? Uint8Array.of(1) : new Uint8Array(0));
          if (op === 0x88) { if (!eq) fail(ERR.EQUALVERIFY); pop(); }
          break;
        }
        case 0x8b: case 0x8c: case 0x8f: case 0x90: case 0x91: case 0x92: { // 1ADD 1SUB NEGATE ABS NOT 0NOTEQUAL
          let n = num(pop());
          n = op === 0x8b ? n + 1n : op === 0x8c ? n - 1n : op === 0x8f ? -n : op === 0x90 ? (n < 0n ? -n : n) : op === 0x91 ? BigInt(n === 0n) : BigInt(n !== 0n);
          stack.push(encodeNum(n));
          break;
        }
        case 0x93: case 0x94: case 0x9a: case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: case 0xa0: case 0xa1: case 0xa2: case 0xa3: case 0xa4: {
          top(-2);
          const b = num(pop());
          const a = num(pop());
          const r2: Record<number, bigint> = {
            0x93: a + b, 0x94: a - b, 0x9a: BigInt(a !== 0n && b !== 0n), 0x9b: BigInt(a !== 0n || b !== 0n), 0x9c: BigInt(a === b), 0x9d: BigInt(a === b),
            0x9e: BigInt(a !== b), 0x9f: BigInt(a < b), 0xa0: BigInt(a > b), 0xa1: BigInt(a <= b), 0xa2: BigInt(a >= b), 0xa3: a < b ? a : b, 0xa4: a > b ? a : b,
          };
          stack.push(encodeNum(r2[op]!));
          if (op === 0x9d) { if (!castToBool(top(-1))) fail(ERR.NUMEQUALVERIFY); pop(); }
          break;
        }
        case 0xa5: { top(-3); const mx = num(pop()); const mn = num(pop()); const x = num(pop()); stack.push(encodeNum(BigInt(mn <= x && x < mx))); break; }
        case 0xa6: stack.push(ripemd160(pop())); break;
        case 0xa7: stack.push(sha1(pop())); break;
        case 0xa8: stack.push(sha256(pop())); break;
        case 0xa9: stack.push(ripemd160(sha256(pop()))); break;
        case 0xaa: stack.push(sha256d(pop())); break;
        case 0xab: codeHashStart = pc; break;
        case 0xac: case 0xad: { // CHECKSIG(VERIFY)
          const key = top(-1);
          const sig = top(-2);
          let code = script.subarray(codeHashStart);
          if (sigversion === 'base') {
            const d = findAndDelete(code, sig);
            if (d.found > 0) fail(ERR.SIG_FINDANDDELETE);
            code = d.script;
          }
          checkSignatureEncoding(sig);
          checkPubKeyEncoding(key, sigversion);
          const ok = sig.length > 0 && checker.checkEcdsa(sig, key, code, sigversion);
          if (!ok && sig.length) fail(ERR.SIG_NULLFAIL);
          pop(); pop();
          stack.push(ok ? Uint8Array.of(1) : new Uint8Array(0));
          if (op === 0xad) { if (!ok) fail(ERR.CHECKSIGVERIFY); pop(); }
          break;
        }
        case 0xae: case 0xaf: { // CHECKMULTISIG(VERIFY)
          let i = 1;
          const nKeys = Number(num(top(-i)));
          if (nKeys < 0 || nKeys > MAX_MULTISIG_KEYS) fail(ERR.PUBKEY_COUNT);
          ops += nKeys;
          if (ops > MAX_OPS) fail(ERR.OP_COUNT);
          let ikey = ++i;
          const ikey2 = nKeys + 2;
          i += nKeys;
          const nSigs = Number(num(top(-i)));
          if (nSigs < 0 || nSigs > nKeys) fail(ERR.SIG_COUNT);
          let isig = ++i;
          i += nSigs;
          top(-i);
          let code = script.subarray(codeHashStart);
          for (let k = 0; k < nSigs; k++) {
            const sig = top(-isig - k);
            if (sigversion === 'base') {
              const d = findAndDelete(code, sig);
              if (d.found > 0) fail(ERR.SIG_FINDANDDELETE);
              code = d.script;
            }
          }
          let ok = true;
          let sigsLeft = nSigs;
          let keysLeft = nKeys;
          while (ok && sigsLeft > 0) {
            const sig = top(-isig);
            const key = top(-ikey);
            checkSignatureEncoding(sig);
            checkPubKeyEncoding(key, sigversion);
            if (sig.length > 0 && checker.checkEcdsa(sig, key, code, sigversion)) {
              isig++;
              sigsLeft--;
            }
            ikey++;
            keysLeft--;
            if (sigsLeft > keysLeft) ok = false;
          }
          // Pops the arguments; when the check failed, every signature left must be empty (NULLFAIL).
          let nonSig = ikey2;
          while (i-- > 1) {
            if (!ok && nonSig === 0 && top(-1).length) fail(ERR.SIG_NULLFAIL);
            if (nonSig > 0) nonSig--;
            pop();
          }
          // The dummy element (NULLDUMMY).
          if (stack.length < 1) fail(ERR.INVALID_STACK_OPERATION);
          if (pop().length) fail(ERR.SIG_NULLDUMMY);
          stack.push(ok ? Uint8Array.of(1) : new Uint8Array(0));
          if (op === 0xaf) { if (!ok) fail(ERR.CHECKMULTISIGVERIFY); pop(); }
          break;
        }
        default:
          fail(ERR.BAD_OPCODE);
      }
    }
    if (stack.length + alt.length > MAX_STACK) fail(ERR.STACK_SIZE);
  }
  if (exec.length) fail(ERR.UNBALANCED_CONDITIONAL);
}
