/**
 * EvalScript (src/script/interpreter.cpp) for the opcodes miniscript scripts are made of, under
 * Core's standard flags, in witness v0 (P2WSH) and in tapscript (BIP342): pushes (minimal),
 * IF/NOTIF/ELSE/ENDIF (MINIMALIF), VERIFY, the stack ops DUP/IFDUP/SWAP/SIZE/TOALTSTACK/
 * FROMALTSTACK, EQUAL(VERIFY), the hashes, the arithmetic ADD/BOOLAND/BOOLOR/NUMEQUAL(VERIFY)/
 * 0NOTEQUAL, CHECKSIG(VERIFY), CHECKMULTISIG(VERIFY) (v0 only), CHECKSIGADD (tapscript only),
 * CHECKLOCKTIMEVERIFY and CHECKSEQUENCEVERIFY. Any other opcode fails the script ("not evaluated
 * here"), so a finalized witness is only called valid after a real evaluation. The finalizer runs
 * this on the witness the satisfier produced (the VerifyScript step of ProduceSignature).
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { checkMinimalPush, getScriptOp, scriptNumDecode } from '../script';
import { scriptNum } from './types';

export interface ExecChecker {
  /** Null when the signature verifies, else why not; the caller checks encodings. */
  ecdsa(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sv: 'v0'): string | null;
  schnorr(sig: Uint8Array, xonly: Uint8Array, sv: 'tapscript', leafHash: Uint8Array): string | null;
  checkLockTime(n: number): boolean;
  checkSequence(n: number): boolean;
  /** Encoding problems of an ECDSA signature / a v0 public key (null when fine). */
  ecdsaEncoding(sig: Uint8Array): string | null;
  pubkeyEncoding(pubkey: Uint8Array): string | null;
}

class Fail extends Error {}
const fail = (why: string): never => {
  throw new Fail(why);
};

const TRUE = Uint8Array.of(1);
const FALSE = new Uint8Array(0);

function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80);
  return false;
}

function eq(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const hash160 = (b: Uint8Array): Uint8Array => ripemd160(sha256(b));

/**
 * Runs `script` over `stack` (bottom first). Tapscript: `leafHash` is the leaf's. Returns null when
 * the script succeeds with exactly one true element left (CLEANSTACK), else why not.
 */
export function execMiniscript(script: Uint8Array, initial: Uint8Array[], sv: 'v0' | 'tapscript', c: ExecChecker, leafHash?: Uint8Array): string | null {
  try {
    const tap = sv === 'tapscript';
    for (const e of initial) if (e.length > 520) fail('a witness element is over 520 bytes');
    const st = initial.slice();
    const alt: Uint8Array[] = [];
    const exec: boolean[] = [];
    let ops = 0;
    const pop = (): Uint8Array => (st.length ? st.pop()! : fail('invalid stack operation'));
    const top = (): Uint8Array => (st.length ? st[st.length - 1]! : fail('invalid stack operation'));
    const num = (b: Uint8Array, size = 4): number => scriptNumDecode(b, true, size) ?? fail('a number is not minimally encoded or too long');
    const verify = (): void => {
      if (!castToBool(pop())) fail('a VERIFY failed');
    };
    const checkSig = (sig: Uint8Array, key: Uint8Array): boolean => {
      if (tap) {
        if (key.length === 0) fail('an empty public key in tapscript');
        if (sig.length === 0) return false;
        if (key.length !== 32) fail('an unknown public key type (DISCOURAGE_UPGRADABLE_PUBKEYTYPE)');
        const why = c.schnorr(sig, key, 'tapscript', leafHash!);
        return why ? fail(why) : true;
      }
      const enc = c.ecdsaEncoding(sig) ?? c.pubkeyEncoding(key);
      if (enc) fail(enc);
      if (sig.length === 0) return false;
      const why = c.ecdsa(sig, key, script, 'v0');
      return why ? fail(why) : true; // NULLFAIL
    };
    let pc = 0;
    while (pc < script.length) {
      const r = getScriptOp(script, pc);
      if (!r.ok) fail('the script is malformed');
      pc = r.next;
      const op = r.op;
      const running = exec.every((e) => e);
      if (op > 0x60 && !tap && ++ops > 201) fail('over 201 opcodes');
      if (op <= 0x4e) {
        if (r.data.length > 520) fail('a push is over 520 bytes');
        if (running) {
          if (!checkMinimalPush(r.data, op)) fail('a non-minimal push');
          st.push(r.data);
        }
        continue;
      }
      if (!running && (op < 0x63 || op > 0x68)) continue;
      switch (op) {
        case 0x4f:
          st.push(Uint8Array.of(0x81));
          break;
        case 0x63: // IF
        case 0x64: {
          let v = false;
          if (running) {
            const b = pop();
            if (b.length > 1 || (b.length === 1 && b[0] !== 1)) fail('the argument of IF/NOTIF is not minimal (MINIMALIF)');
            v = castToBool(b);
            if (op === 0x64) v = !v;
          }
          exec.push(v);
          break;
        }
        case 0x67:
          if (!exec.length) fail('ELSE without IF');
          exec[exec.length - 1] = !exec[exec.length - 1];
          break;
        case 0x68:
          if (!exec.length) fail('ENDIF without IF');
          exec.pop();
          break;
        case 0x69:
          verify();
          break;
        case 0x6b:
          alt.push(pop());
          break;
        case 0x6c:
          st.push(alt.length ? alt.pop()! : fail('FROMALTSTACK on an empty alt stack'));
          break;
        case 0x73:
          if (castToBool(top())) st.push(top());
          break;
        case 0x76:
          st.push(top());
          break;
        case 0x7c: {
          const a = pop();
          const b = pop();
          st.push(a, b);
          break;
        }
        case 0x82:
          st.push(scriptNum(top().length));
          break;
        case 0x87:
        case 0x88: {
          const ok = eq(pop(), pop());
          st.push(ok ? TRUE : FALSE);
          if (op === 0x88) verify();
          break;
        }
        case 0x92:
          st.push(num(pop()) !== 0 ? TRUE : FALSE);
          break;
        case 0x93:
        case 0x9a:
        case 0x9b:
        case 0x9c:
        case 0x9d: {
          const b = num(pop());
          const a = num(pop());
          const v = op === 0x93 ? a + b : op === 0x9a ? a !== 0 && b !== 0 : op === 0x9b ? a !== 0 || b !== 0 : a === b;
          st.push(typeof v === 'number' ? scriptNum(v) : v ? TRUE : FALSE);
          if (op === 0x9d) verify();
          break;
        }
        case 0xa6:
          st.push(ripemd160(pop()));
          break;
        case 0xa8:
          st.push(sha256(pop()));
          break;
        case 0xa9:
          st.push(hash160(pop()));
          break;
        case 0xaa:
          st.push(sha256(sha256(pop())));
          break;
        case 0xac:
        case 0xad: {
          const key = pop();
          const ok = checkSig(pop(), key);
          st.push(ok ? TRUE : FALSE);
          if (op === 0xad) verify();
          break;
        }
        case 0xba: {
          if (!tap) fail('CHECKSIGADD outside tapscript');
          const key = pop();
          const n = num(pop());
          const sig = pop();
          st.push(scriptNum(n + (checkSig(sig, key) ? 1 : 0)));
          break;
        }
        case 0xae:
        case 0xaf: {
          if (tap) fail('CHECKMULTISIG in tapscript');
          const nKeys = num(pop());
          if (nKeys < 0 || nKeys > 20) fail('a CHECKMULTISIG key count out of range');
          ops += nKeys;
          if (ops > 201) fail('over 201 opcodes');
          const keys: Uint8Array[] = [];
          for (let i = 0; i < nKeys; i++) keys.unshift(pop());
          const nSigs = num(pop());
          if (nSigs < 0 || nSigs > nKeys) fail('a CHECKMULTISIG signature count out of range');
          const sigs: Uint8Array[] = [];
          for (let i = 0; i < nSigs; i++) sigs.unshift(pop());
          if (pop().length !== 0) fail('the CHECKMULTISIG dummy element is not empty');
          let ki = 0;
          let si = 0;
          let ok = true;
          while (ok && si < nSigs) {
            const sig = sigs[si]!;
            const key = keys[ki]!;
            const enc = c.ecdsaEncoding(sig) ?? c.pubkeyEncoding(key);
            if (enc) fail(enc);
            if (sig.length && c.ecdsa(sig, key, script, 'v0') === null) si++;
            ki++;
            if (nSigs - si > nKeys - ki) ok = false;
          }
          if (!ok && sigs.some((s) => s.length > 0)) fail('a signature does not verify against the keys in their order (NULLFAIL)');
          st.push(ok ? TRUE : FALSE);
          if (op === 0xaf) verify();
          break;
        }
        case 0xb1:
        case 0xb2: {
          const n = num(top(), 5);
          if (n < 0) fail('a negative timelock');
          const ok = op === 0xb1 ? c.checkLockTime(n) : c.checkSequence(n);
          if (!ok) fail(op === 0xb1 ? "the transaction's nLockTime does not meet the script's after()" : "the input's nSequence does not meet the script's older()");
          break;
        }
        default:
          if (op >= 0x51 && op <= 0x60) st.push(Uint8Array.of(op - 0x50));
          else fail(`opcode 0x${op.toString(16)} is not evaluated here`);
      }
      if (st.length + alt.length > 1000) fail('the stack is over 1000 elements');
    }
    if (exec.length) fail('an IF without ENDIF');
    if (st.length !== 1) fail('the script leaves other than one element (CLEANSTACK)');
    if (!castToBool(st[0]!)) fail('the script evaluates to false');
    return null;
  } catch (e) {
    if (e instanceof Fail) return e.message;
    throw e;
  }
}
