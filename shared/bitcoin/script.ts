/**
 * Faithful ports of Bitcoin Core's script helpers:
 * - script/script.cpp: GetScriptOp, GetOpName, IsPayToScriptHash, IsWitnessProgram, IsPushOnly,
 *   IsUnspendable, IsPayToAnchor, CScriptNum decoding
 * - script/solver.cpp: Solver, GetTxnOutputType
 * - core_write.cpp: ScriptToAsmStr (with sighash decoding of DER signatures)
 * - script/interpreter.cpp: IsValidSignatureEncoding / CheckSignatureEncoding(STRICTENC)
 */
import { hexOf as toHex } from './tx';

// ---------------------------------------------------------------------------------------------
// Opcodes
// ---------------------------------------------------------------------------------------------

export const OP_0 = 0x00;
export const OP_PUSHDATA1 = 0x4c;
export const OP_PUSHDATA2 = 0x4d;
export const OP_PUSHDATA4 = 0x4e;
export const OP_1NEGATE = 0x4f;
export const OP_RESERVED = 0x50;
export const OP_1 = 0x51;
export const OP_16 = 0x60;
export const OP_NOP = 0x61;
export const OP_RETURN = 0x6a;
export const OP_DUP = 0x76;
export const OP_EQUAL = 0x87;
export const OP_EQUALVERIFY = 0x88;
export const OP_HASH160 = 0xa9;
export const OP_CHECKSIG = 0xac;
export const OP_CHECKMULTISIG = 0xae;
export const OP_NOP10 = 0xb9;
export const OP_CHECKSIGADD = 0xba;
export const OP_INVALIDOPCODE = 0xff;

export const MAX_SCRIPT_SIZE = 10000;
export const MAX_PUBKEYS_PER_MULTISIG = 20;

const OP_NAMES: string[] = new Array<string>(256).fill('OP_UNKNOWN');
(() => {
  const named: [number, string][] = [
    [0x00, '0'], [0x4c, 'OP_PUSHDATA1'], [0x4d, 'OP_PUSHDATA2'], [0x4e, 'OP_PUSHDATA4'],
    [0x4f, '-1'], [0x50, 'OP_RESERVED'],
    [0x61, 'OP_NOP'], [0x62, 'OP_VER'], [0x63, 'OP_IF'], [0x64, 'OP_NOTIF'], [0x65, 'OP_VERIF'],
    [0x66, 'OP_VERNOTIF'], [0x67, 'OP_ELSE'], [0x68, 'OP_ENDIF'], [0x69, 'OP_VERIFY'], [0x6a, 'OP_RETURN'],
    [0x6b, 'OP_TOALTSTACK'], [0x6c, 'OP_FROMALTSTACK'], [0x6d, 'OP_2DROP'], [0x6e, 'OP_2DUP'],
    [0x6f, 'OP_3DUP'], [0x70, 'OP_2OVER'], [0x71, 'OP_2ROT'], [0x72, 'OP_2SWAP'], [0x73, 'OP_IFDUP'],
    [0x74, 'OP_DEPTH'], [0x75, 'OP_DROP'], [0x76, 'OP_DUP'], [0x77, 'OP_NIP'], [0x78, 'OP_OVER'],
    [0x79, 'OP_PICK'], [0x7a, 'OP_ROLL'], [0x7b, 'OP_ROT'], [0x7c, 'OP_SWAP'], [0x7d, 'OP_TUCK'],
    [0x7e, 'OP_CAT'], [0x7f, 'OP_SUBSTR'], [0x80, 'OP_LEFT'], [0x81, 'OP_RIGHT'], [0x82, 'OP_SIZE'],
    [0x83, 'OP_INVERT'], [0x84, 'OP_AND'], [0x85, 'OP_OR'], [0x86, 'OP_XOR'], [0x87, 'OP_EQUAL'],
    [0x88, 'OP_EQUALVERIFY'], [0x89, 'OP_RESERVED1'], [0x8a, 'OP_RESERVED2'],
    [0x8b, 'OP_1ADD'], [0x8c, 'OP_1SUB'], [0x8d, 'OP_2MUL'], [0x8e, 'OP_2DIV'], [0x8f, 'OP_NEGATE'],
    [0x90, 'OP_ABS'], [0x91, 'OP_NOT'], [0x92, 'OP_0NOTEQUAL'], [0x93, 'OP_ADD'], [0x94, 'OP_SUB'],
    [0x95, 'OP_MUL'], [0x96, 'OP_DIV'], [0x97, 'OP_MOD'], [0x98, 'OP_LSHIFT'], [0x99, 'OP_RSHIFT'],
    [0x9a, 'OP_BOOLAND'], [0x9b, 'OP_BOOLOR'], [0x9c, 'OP_NUMEQUAL'], [0x9d, 'OP_NUMEQUALVERIFY'],
    [0x9e, 'OP_NUMNOTEQUAL'], [0x9f, 'OP_LESSTHAN'], [0xa0, 'OP_GREATERTHAN'],
    [0xa1, 'OP_LESSTHANOREQUAL'], [0xa2, 'OP_GREATERTHANOREQUAL'], [0xa3, 'OP_MIN'], [0xa4, 'OP_MAX'],
    [0xa5, 'OP_WITHIN'],
    [0xa6, 'OP_RIPEMD160'], [0xa7, 'OP_SHA1'], [0xa8, 'OP_SHA256'], [0xa9, 'OP_HASH160'],
    [0xaa, 'OP_HASH256'], [0xab, 'OP_CODESEPARATOR'], [0xac, 'OP_CHECKSIG'], [0xad, 'OP_CHECKSIGVERIFY'],
    [0xae, 'OP_CHECKMULTISIG'], [0xaf, 'OP_CHECKMULTISIGVERIFY'],
    [0xb0, 'OP_NOP1'], [0xb1, 'OP_CHECKLOCKTIMEVERIFY'], [0xb2, 'OP_CHECKSEQUENCEVERIFY'],
    [0xb3, 'OP_NOP4'], [0xb4, 'OP_NOP5'], [0xb5, 'OP_NOP6'], [0xb6, 'OP_NOP7'], [0xb7, 'OP_NOP8'],
    [0xb8, 'OP_NOP9'], [0xb9, 'OP_NOP10'], [0xba, 'OP_CHECKSIGADD'], [0xff, 'OP_INVALIDOPCODE'],
  ];
  for (const [op, name] of named) OP_NAMES[op] = name;
  for (let n = 1; n <= 16; n++) OP_NAMES[OP_1 + n - 1] = String(n);
})();

/** Core GetOpName. Direct pushes (0x01..0x4b) and undefined opcodes give 'OP_UNKNOWN'. */
export function opcodeName(op: number): string {
  return OP_NAMES[op & 0xff] ?? 'OP_UNKNOWN';
}

/** Core CScript::DecodeOP_N. */
export function decodeOpN(op: number): number {
  if (op === OP_0) return 0;
  return op - (OP_1 - 1);
}

/** Core CScript::EncodeOP_N (0..16). */
export function encodeOpN(n: number): number {
  if (n < 0 || n > 16) throw new RangeError('encodeOpN: out of range');
  return n === 0 ? OP_0 : OP_1 + n - 1;
}

// ---------------------------------------------------------------------------------------------
// GetScriptOp
// ---------------------------------------------------------------------------------------------

/** One GetScriptOp result. On failure `ok` is false, `op` is OP_INVALIDOPCODE and `data` empty. */
export interface OpResult {
  ok: boolean;
  op: number;
  /** Pushed bytes (a view into the script; empty for non-push opcodes). */
  data: Uint8Array;
  /** Position of the next opcode (only meaningful when ok). */
  next: number;
}

const EMPTY = new Uint8Array(0);

/** Core GetScriptOp starting at `pc`. Never throws. */
export function getScriptOp(script: Uint8Array, pc: number): OpResult {
  const end = script.length;
  const fail: OpResult = { ok: false, op: OP_INVALIDOPCODE, data: EMPTY, next: end };
  if (pc >= end) return fail;
  const opcode = script[pc++]!;
  if (opcode <= OP_PUSHDATA4) {
    let size = 0;
    if (opcode < OP_PUSHDATA1) {
      size = opcode;
    } else if (opcode === OP_PUSHDATA1) {
      if (end - pc < 1) return fail;
      size = script[pc++]!;
    } else if (opcode === OP_PUSHDATA2) {
      if (end - pc < 2) return fail;
      size = script[pc]! | (script[pc + 1]! << 8);
      pc += 2;
    } else {
      if (end - pc < 4) return fail;
      size = (script[pc]! | (script[pc + 1]! << 8) | (script[pc + 2]! << 16)) + script[pc + 3]! * 0x1000000;
      pc += 4;
    }
    if (end - pc < size) return fail;
    const data = script.subarray(pc, pc + size);
    return { ok: true, op: opcode, data, next: pc + size };
  }
  return { ok: true, op: opcode, data: EMPTY, next: pc };
}

export interface ScriptOp {
  /** Opcode byte (OP_INVALIDOPCODE on a failed parse). */
  op: number;
  /** Offset of the opcode byte in the script. */
  pos: number;
  /** Pushed data, present for push opcodes (0x00..0x4e). */
  data?: Uint8Array;
  /** Set on the final element when GetScriptOp failed there (truncated push). */
  error?: true;
}

/**
 * All operations of a script in order, as Core's `while (GetOp(pc, op, data))` loop sees them.
 * If parsing fails the last element has `error: true` (and nothing follows it).
 */
export function parseScriptOps(script: Uint8Array): ScriptOp[] {
  const out: ScriptOp[] = [];
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) {
      out.push({ op: OP_INVALIDOPCODE, pos: pc, error: true });
      break;
    }
    out.push(r.op <= OP_PUSHDATA4 ? { op: r.op, pos: pc, data: r.data } : { op: r.op, pos: pc });
    pc = r.next;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// CScriptNum
// ---------------------------------------------------------------------------------------------

/**
 * CScriptNum(vch, fRequireMinimal=false).getint() for a push of at most 4 bytes... or any size
 * (values are clamped to int range like getint()). Returns null if `requireMinimal` and the
 * encoding is not minimal (Core throws scriptnum_error) or the push is longer than `maxSize`.
 */
export function scriptNumDecode(vch: Uint8Array, requireMinimal = false, maxSize = 4): number | null {
  if (vch.length > maxSize) return null;
  if (requireMinimal && vch.length > 0) {
    const last = vch[vch.length - 1]!;
    if ((last & 0x7f) === 0) {
      if (vch.length <= 1 || (vch[vch.length - 2]! & 0x80) === 0) return null;
    }
  }
  if (vch.length === 0) return 0;
  let result = 0;
  for (let i = 0; i < vch.length; i++) result += vch[i]! * 2 ** (8 * i);
  const last = vch[vch.length - 1]!;
  if (last & 0x80) {
    result -= 0x80 * 2 ** (8 * (vch.length - 1));
    result = -result;
  }
  if (result > 0x7fffffff) return 0x7fffffff;
  if (result < -0x80000000) return -0x80000000;
  return result;
}

/** Core CheckMinimalPush. */
export function checkMinimalPush(data: Uint8Array, opcode: number): boolean {
  if (data.length === 0) return opcode === OP_0;
  if (data.length === 1 && data[0]! >= 1 && data[0]! <= 16) return false;
  if (data.length === 1 && data[0] === 0x81) return false;
  if (data.length <= 75) return opcode === data.length;
  if (data.length <= 255) return opcode === OP_PUSHDATA1;
  if (data.length <= 65535) return opcode === OP_PUSHDATA2;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Script templates (CScript methods)
// ---------------------------------------------------------------------------------------------

export function isPayToScriptHash(s: Uint8Array): boolean {
  return s.length === 23 && s[0] === OP_HASH160 && s[1] === 0x14 && s[22] === OP_EQUAL;
}

export function isPayToWitnessScriptHash(s: Uint8Array): boolean {
  return s.length === 34 && s[0] === OP_0 && s[1] === 0x20;
}

export function isPayToAnchor(s: Uint8Array): boolean {
  return s.length === 4 && s[0] === OP_1 && s[1] === 0x02 && s[2] === 0x4e && s[3] === 0x73;
}

/** CScript::IsPayToAnchor(version, program). */
export function isPayToAnchorProgram(version: number, program: Uint8Array): boolean {
  return version === 1 && program.length === 2 && program[0] === 0x4e && program[1] === 0x73;
}

/** CScript::IsWitnessProgram. */
export function witnessProgram(s: Uint8Array): { version: number; program: Uint8Array } | null {
  if (s.length < 4 || s.length > 42) return null;
  const b0 = s[0]!;
  if (b0 !== OP_0 && (b0 < OP_1 || b0 > OP_16)) return null;
  if (s[1]! + 2 === s.length) return { version: decodeOpN(b0), program: s.subarray(2) };
  return null;
}

export function isWitnessProgram(s: Uint8Array): boolean {
  return witnessProgram(s) !== null;
}

/** CScript::IsPushOnly(pc). */
export function isPushOnly(s: Uint8Array, start = 0): boolean {
  let pc = start;
  while (pc < s.length) {
    const r = getScriptOp(s, pc);
    if (!r.ok) return false;
    if (r.op > OP_16) return false;
    pc = r.next;
  }
  return true;
}

/** CScript::IsUnspendable. */
export function isUnspendable(s: Uint8Array): boolean {
  return (s.length > 0 && s[0] === OP_RETURN) || s.length > MAX_SCRIPT_SIZE;
}

/** CPubKey::GetLen(header). */
export function pubKeyLen(header: number): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

/** CPubKey::ValidSize. */
export function pubKeyValidSize(v: Uint8Array): boolean {
  return v.length > 0 && pubKeyLen(v[0]!) === v.length;
}

// ---------------------------------------------------------------------------------------------
// Solver
// ---------------------------------------------------------------------------------------------

export type TxoutType =
  | 'nonstandard'
  | 'pubkey'
  | 'pubkeyhash'
  | 'scripthash'
  | 'multisig'
  | 'nulldata'
  | 'witness_v0_scripthash'
  | 'witness_v0_keyhash'
  | 'witness_v1_taproot'
  | 'anchor'
  | 'witness_unknown';

/** Core GetTxnOutputType (the type names are the TxoutType values themselves). */
export function txnOutputTypeName(t: TxoutType): string {
  return t;
}

function matchPayToPubkey(s: Uint8Array): Uint8Array | null {
  if (s.length === 67 && s[0] === 65 && s[66] === OP_CHECKSIG) {
    const pk = s.subarray(1, 66);
    return pubKeyValidSize(pk) ? pk : null;
  }
  if (s.length === 35 && s[0] === 33 && s[34] === OP_CHECKSIG) {
    const pk = s.subarray(1, 34);
    return pubKeyValidSize(pk) ? pk : null;
  }
  return null;
}

function matchPayToPubkeyHash(s: Uint8Array): Uint8Array | null {
  if (s.length === 25 && s[0] === OP_DUP && s[1] === OP_HASH160 && s[2] === 20 && s[23] === OP_EQUALVERIFY && s[24] === OP_CHECKSIG) {
    return s.subarray(3, 23);
  }
  return null;
}

/** Solver's GetScriptNumber: OP_1..OP_16 or a minimal push, within [min, max]. */
function getScriptNumber(op: number, data: Uint8Array, min: number, max: number): number | null {
  let count: number;
  if (op >= OP_1 && op <= OP_16) {
    count = decodeOpN(op);
  } else if (op > OP_0 && op <= OP_PUSHDATA4) {
    if (!checkMinimalPush(data, op)) return null;
    const n = scriptNumDecode(data, true, 4);
    if (n === null) return null;
    count = n;
  } else {
    return null;
  }
  if (count < min || count > max) return null;
  return count;
}

function matchMultisig(s: Uint8Array): { required: number; keys: Uint8Array[] } | null {
  if (s.length < 1 || s[s.length - 1] !== OP_CHECKMULTISIG) return null;
  let r = getScriptOp(s, 0);
  if (!r.ok) return null;
  const required = getScriptNumber(r.op, r.data, 1, MAX_PUBKEYS_PER_MULTISIG);
  if (required === null) return null;
  let pc = r.next;
  const keys: Uint8Array[] = [];
  for (;;) {
    r = getScriptOp(s, pc);
    if (r.ok) pc = r.next;
    if (!r.ok || !pubKeyValidSize(r.data)) break;
    keys.push(r.data);
  }
  const numKeys = getScriptNumber(r.op, r.data, required, MAX_PUBKEYS_PER_MULTISIG);
  if (numKeys === null) return null;
  if (keys.length !== numKeys) return null;
  return pc + 1 === s.length ? { required, keys } : null;
}

/** Core Solver (script/solver.cpp). Solutions are views into `script` where possible. */
export function solver(script: Uint8Array): { type: TxoutType; solutions: Uint8Array[] } {
  if (isPayToScriptHash(script)) {
    return { type: 'scripthash', solutions: [script.subarray(2, 22)] };
  }
  const wp = witnessProgram(script);
  if (wp) {
    const { version, program } = wp;
    if (version === 0 && program.length === 20) return { type: 'witness_v0_keyhash', solutions: [program] };
    if (version === 0 && program.length === 32) return { type: 'witness_v0_scripthash', solutions: [program] };
    if (version === 1 && program.length === 32) return { type: 'witness_v1_taproot', solutions: [program] };
    if (isPayToAnchor(script)) return { type: 'anchor', solutions: [] };
    if (version !== 0) return { type: 'witness_unknown', solutions: [Uint8Array.of(version), program] };
    return { type: 'nonstandard', solutions: [] };
  }
  if (script.length >= 1 && script[0] === OP_RETURN && isPushOnly(script, 1)) {
    return { type: 'nulldata', solutions: [] };
  }
  const pk = matchPayToPubkey(script);
  if (pk) return { type: 'pubkey', solutions: [pk] };
  const pkh = matchPayToPubkeyHash(script);
  if (pkh) return { type: 'pubkeyhash', solutions: [pkh] };
  const ms = matchMultisig(script);
  if (ms) {
    return { type: 'multisig', solutions: [Uint8Array.of(ms.required), ...ms.keys, Uint8Array.of(ms.keys.length)] };
  }
  return { type: 'nonstandard', solutions: [] };
}

// ---------------------------------------------------------------------------------------------
// Signature encoding checks (interpreter.cpp)
// ---------------------------------------------------------------------------------------------

/** BIP66 strict DER check, including the trailing sighash byte (IsValidSignatureEncoding). */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  const n = sig.length;
  if (n < 9 || n > 73) return false;
  if (sig[0] !== 0x30) return false;
  if (sig[1] !== n - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= n) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== n) return false;
  if (sig[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (sig[4]! & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}

/** IsDefinedHashtypeSignature. */
export function isDefinedHashtypeSignature(sig: Uint8Array): boolean {
  if (sig.length === 0) return false;
  const t = sig[sig.length - 1]! & ~0x80;
  return t >= 1 && t <= 3;
}

/** CheckSignatureEncoding(vchSig, SCRIPT_VERIFY_STRICTENC). */
export function checkSignatureEncodingStrict(sig: Uint8Array): boolean {
  if (sig.length === 0) return true;
  if (!isValidSignatureEncoding(sig)) return false;
  return isDefinedHashtypeSignature(sig);
}

const SIGHASH_NAMES = new Map<number, string>([
  [0x01, 'ALL'],
  [0x81, 'ALL|ANYONECANPAY'],
  [0x02, 'NONE'],
  [0x82, 'NONE|ANYONECANPAY'],
  [0x03, 'SINGLE'],
  [0x83, 'SINGLE|ANYONECANPAY'],
]);

/** core_write.cpp SighashToStr: '' for undefined types. */
export function sighashToStr(t: number): string {
  return SIGHASH_NAMES.get(t) ?? '';
}

// ---------------------------------------------------------------------------------------------
// ScriptToAsmStr
// ---------------------------------------------------------------------------------------------

/** Core ScriptToAsmStr. */
export function scriptToAsm(script: Uint8Array, attemptSighashDecode = false): string {
  const parts: string[] = [];
  const decodeSigs = attemptSighashDecode && !isUnspendable(script);
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) {
      parts.push('[error]');
      break;
    }
    pc = r.next;
    const op = r.op;
    if (op <= OP_PUSHDATA4) {
      const vch = r.data;
      if (vch.length <= 4) {
        parts.push(String(scriptNumDecode(vch, false, 4)));
      } else if (decodeSigs && checkSignatureEncodingStrict(vch)) {
        const name = SIGHASH_NAMES.get(vch[vch.length - 1]!);
        parts.push(name !== undefined ? `${toHex(vch.subarray(0, vch.length - 1))}[${name}]` : toHex(vch));
      } else {
        parts.push(toHex(vch));
      }
    } else {
      parts.push(OP_NAMES[op]!);
    }
  }
  return parts.join(' ');
}
