/**
 * pybtc's script handling, reproduced byte for byte for the index imitation (interface B):
 * `parse_script` (nType/type/addressHash/reqSigs/data), `decode_script` (the `…Opcodes` and
 * `…Asm` renderings, malformed scripts included) and the address of a script.
 * Spec: shared/spec/index-api.md sections 4 and 5.
 */
import { bech32, bech32m, createBase58check, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { REGTEST, type Network } from '../../shared/bitcoin/networks';
import { p2pkKey } from '../chain/indexed';

export const base58check = createBase58check(sha256);

export function toHex(b: Uint8Array): string {
  return hex.encode(b);
}

export function hash160(b: Uint8Array): Uint8Array {
  return ripemd160(sha256(b));
}

/** Script type names by nType (pybtc SCRIPT_N_TYPES). */
export const SCRIPT_N_TYPES: Readonly<Record<number, string>> = {
  0: 'P2PKH',
  1: 'P2SH',
  2: 'PUBKEY',
  3: 'NULL_DATA',
  4: 'MULTISIG',
  5: 'P2WPKH',
  6: 'P2WSH',
  7: 'NON_STANDARD',
  8: 'NULL_DATA_NON_STANDARD',
  9: 'V1_P2TR',
};

export interface ScriptInfo {
  readonly nType: number;
  readonly type: string;
  /** For nType 0,1,2,5,6,9: hash160 / witness program (PUBKEY: hash160 of the key). */
  readonly addressHash?: Uint8Array;
  /** pybtc's reqSigs (null for P2SH, P2WSH, V1_P2TR). */
  readonly reqSigs: number | null;
  /** NULL_DATA payload. */
  readonly data?: Uint8Array;
}

const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_RETURN = 0x6a;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;
const OP_CHECKSIG = 0xac;
const OP_CHECKSIGVERIFY = 0xad;
const OP_CHECKMULTISIG = 0xae;
const OP_CHECKMULTISIGVERIFY = 0xaf;

/** Byte at i; like Python indexing, callers guarantee 0 <= i < length. */
function at(s: Uint8Array, i: number): number {
  const v = s[i < 0 ? s.length + i : i];
  if (v === undefined) throw new RangeError('index out of range');
  return v;
}

/** pybtc `parse_script(script, segwit=True)`: rule order and quirks as in the source. */
export function parseScript(script: Uint8Array): ScriptInfo {
  const l = script.length;
  if (l === 0) return { nType: 7, type: 'NON_STANDARD', reqSigs: 0 };
  const s0 = at(script, 0);
  if (l === 34 && s0 === OP_1) return { nType: 9, type: 'V1_P2TR', reqSigs: null, addressHash: script.slice(2) };
  if (l === 22 && s0 === 0) return { nType: 5, type: 'P2WPKH', reqSigs: 1, addressHash: script.slice(2) };
  if (l === 34 && s0 === 0) return { nType: 6, type: 'P2WSH', reqSigs: null, addressHash: script.slice(2) };
  if (l === 25 && s0 === 0x76 && at(script, 1) === 0xa9 && at(script, -2) === 0x88 && at(script, -1) === 0xac) {
    return { nType: 0, type: 'P2PKH', reqSigs: 1, addressHash: script.slice(3, -2) };
  }
  if (l === 23 && s0 === 0xa9 && at(script, -1) === 0x87) {
    return { nType: 1, type: 'P2SH', reqSigs: null, addressHash: script.slice(2, -1) };
  }
  const key = p2pkKey(script);
  if (key !== null) return { nType: 2, type: 'PUBKEY', reqSigs: 1, addressHash: hash160(key) };
  if (s0 === OP_RETURN) {
    if (l === 1) return { nType: 3, type: 'NULL_DATA', reqSigs: 0, data: new Uint8Array(0) };
    const s1 = at(script, 1);
    if (s1 < OP_PUSHDATA1) {
      if (s1 === l - 2) return { nType: 3, type: 'NULL_DATA', reqSigs: 0, data: script.slice(2) };
    } else if (s1 === OP_PUSHDATA1) {
      if (l > 2) {
        const s2 = at(script, 2);
        if (s2 === l - 3 && s2 <= 80) return { nType: 3, type: 'NULL_DATA', reqSigs: 0, data: script.slice(3) };
      }
    }
    return { nType: 8, type: 'NULL_DATA_NON_STANDARD', reqSigs: 0 };
  }
  if (s0 >= OP_1 && s0 <= OP_16 && at(script, -1) === OP_CHECKMULTISIG) {
    const n = at(script, -2);
    if (n >= OP_1 && n <= OP_16 && n >= s0) {
      let c = 0;
      let s = 1;
      while (l - 2 - s > 0) {
        const b = at(script, s);
        if (b < OP_PUSHDATA1) {
          s += b;
          c += 1;
        } else {
          c = 0;
          break;
        }
        s += 1;
      }
      if (c === n - 80) return { nType: 4, type: 'MULTISIG', reqSigs: s0 - 80 };
    }
  }
  return { nType: 7, type: 'NON_STANDARD', reqSigs: nonStandardReqSigs(script) };
}

/** The reqSigs count pybtc computes for NON_STANDARD scripts (never rendered by the index). */
function nonStandardReqSigs(script: Uint8Array): number {
  const l = script.length;
  let s = 0;
  let m = 0;
  let n = 0;
  let last = 0;
  let req = 0;
  while (l - s > 0) {
    const b = at(script, s);
    if (b >= OP_1 && b <= OP_16) {
      if (!n) n = b - 80;
      else if (!m) {
        n = b - 80;
        m = 0;
      } else if (n > m) {
        n = b - 80;
        m = 0;
      } else if (m === b - 80) last = last ? 0 : 2;
    } else if (b < OP_PUSHDATA1) {
      s += b;
      m += 1;
      if (m > 16) {
        n = 0;
        m = 0;
      }
    } else if (b === OP_PUSHDATA1) {
      if (s + 1 >= l) break;
      s += 1 + at(script, s + 1);
    } else if (b === OP_PUSHDATA2) {
      if (s + 3 > l) break;
      s += 2 + (at(script, s + 1) | (at(script, s + 2) << 8));
    } else if (b === OP_PUSHDATA4) {
      if (s + 5 > l) break;
      s += 4 + readU32(script, s + 1);
    } else {
      if (b === OP_CHECKSIG || b === OP_CHECKSIGVERIFY) req += 1;
      else if (b === OP_CHECKMULTISIG || b === OP_CHECKMULTISIGVERIFY) req += last ? n : 20;
      n = 0;
      m = 0;
    }
    if (last) last -= 1;
    s += 1;
  }
  return req;
}

function readU32(b: Uint8Array, i: number): number {
  return (at(b, i) | (at(b, i + 1) << 8) | (at(b, i + 2) << 16) | (at(b, i + 3) << 24)) >>> 0;
}

// ---- opcode names (pybtc/opcodes.py RAW_OPCODE) ----

const OPCODE_NAMES: string[] = (() => {
  const names: string[] = new Array<string>(256).fill('OP_UNKNOWN');
  const set = (code: number, name: string): void => {
    names[code] = name;
  };
  set(0x00, 'OP_0');
  set(0x4c, 'OP_PUSHDATA1');
  set(0x4d, 'OP_PUSHDATA2');
  set(0x4e, 'OP_PUSHDATA4');
  set(0x4f, 'OP_1NEGATE');
  set(0x50, 'OP_RESERVED');
  for (let i = 1; i <= 16; i++) set(0x50 + i, `OP_${i}`);
  const seq: [number, string[]][] = [
    [0x61, ['OP_NOP', 'OP_VER', 'OP_IF', 'OP_NOTIF', 'OP_VERIF']],
    [0x67, ['OP_ELSE', 'OP_ENDIF', 'OP_VERIFY', 'OP_RETURN', 'OP_TOALTSTACK', 'OP_FROMALTSTACK',
      'OP_2DROP', 'OP_2DUP', 'OP_3DUP', 'OP_2OVER', 'OP_2ROT', 'OP_2SWAP', 'OP_IFDUP', 'OP_DEPTH',
      'OP_DROP', 'OP_DUP', 'OP_NIP', 'OP_OVER', 'OP_PICK', 'OP_ROLL', 'OP_ROT', 'OP_SWAP', 'OP_TUCK',
      'OP_CAT', 'OP_SUBSTR', 'OP_LEFT', 'OP_RIGHT', 'OP_SIZE', 'OP_INVERT', 'OP_AND', 'OP_OR',
      'OP_XOR', 'OP_EQUAL', 'OP_EQUALVERIFY', 'OP_RESERVED1', 'OP_RESERVED2', 'OP_1ADD', 'OP_1SUB',
      'OP_2MUL', 'OP_2DIV', 'OP_NEGATE', 'OP_ABS', 'OP_NOT', 'OP_0NOTEQUAL', 'OP_ADD', 'OP_SUB',
      'OP_MUL', 'OP_DIV', 'OP_MOD', 'OP_LSHIFT', 'OP_RSHIFT', 'OP_BOOLAND', 'OP_BOOLOR',
      'OP_NUMEQUAL', 'OP_NUMEQUALVERIFY', 'OP_NUMNOTEQUAL', 'OP_LESSTHAN', 'OP_GREATERTHAN',
      'OP_LESSTHANOREQUAL', 'OP_GREATERTHANOREQUAL', 'OP_MIN', 'OP_MAX', 'OP_WITHIN',
      'OP_RIPEMD160', 'OP_SHA1', 'OP_SHA256', 'OP_HASH160', 'OP_HASH256', 'OP_CODESEPARATOR',
      'OP_CHECKSIG', 'OP_CHECKSIGVERIFY', 'OP_CHECKMULTISIG', 'OP_CHECKMULTISIGVERIFY', 'OP_NOP1',
      'OP_CHECKLOCKTIMEVERIFY', 'OP_CHECKSEQUENCEVERIFY', 'OP_NOP4', 'OP_NOP5', 'OP_NOP6', 'OP_NOP7',
      'OP_NOP8', 'OP_NOP9', 'OP_NOP10']],
    [0xfa, ['OP_SMALLINTEGER', 'OP_PUBKEYS']],
    [0xfd, ['OP_PUBKEYHASH', 'OP_PUBKEY', 'OP_INVALIDOPCODE']],
  ];
  for (const [start, list] of seq) list.forEach((name, i) => set(start + i, name));
  return names;
})();

export function opcodeName(byte: number): string {
  return OPCODE_NAMES[byte] ?? 'OP_UNKNOWN';
}

const DECODE_FAILED = '[SCRIPT_DECODE_FAILED]';

/**
 * pybtc `decode_script(script, asm)`. Python slices never fail (short pushes render the
 * available bytes), but reading a missing PUSHDATA length raises and appends
 * `[SCRIPT_DECODE_FAILED]`; tokens are joined by one space (an empty payload token leaves a
 * trailing space, as in Python).
 */
function decodeScript(script: Uint8Array, asm: boolean): string {
  const l = script.length;
  const out: string[] = [];
  let s = 0;
  const slice = (from: number, len: number): string => toHex(script.slice(from, from + len));
  try {
    while (l - s > 0) {
      const b = at(script, s);
      if (b < OP_PUSHDATA1 && b !== 0) {
        if (asm) {
          out.push(`OP_PUSHBYTES[${b}]`);
          out.push(slice(s + 1, b));
        } else out.push(`[${b}]`);
        s += b + 1;
        continue;
      }
      if (b === OP_PUSHDATA1) {
        if (asm) {
          const ld = at(script, s + 1);
          out.push(`OP_PUSHDATA1[${ld}]`);
          out.push(slice(s + 2, ld));
        } else {
          out.push(opcodeName(b));
          const ld = at(script, s + 1);
          out.push(`[${ld}]`);
        }
        s += 1 + at(script, s + 1) + 1;
      } else if (b === OP_PUSHDATA2) {
        // struct.unpack('<H', short slice) raises before anything is appended.
        if (s + 3 > l) throw new RangeError('unpack requires 2 bytes');
        const ld = at(script, s + 1) | (at(script, s + 2) << 8);
        if (asm) {
          out.push(`OP_PUSHDATA2[${ld}]`);
          out.push(slice(s + 3, ld));
        } else {
          out.push(opcodeName(b));
          out.push(`[${ld}]`);
        }
        s += 2 + 1 + ld;
      } else if (b === OP_PUSHDATA4) {
        if (s + 5 > l) throw new RangeError('unpack requires 4 bytes');
        const ld = readU32(script, s + 1);
        if (asm) {
          out.push(`OP_PUSHDATA4[${ld}]`);
          out.push(slice(s + 5, ld));
        } else {
          out.push(opcodeName(b));
          out.push(`[${ld}]`);
        }
        s += 5 + 1 + ld; // pybtc bug: one byte too many
      } else {
        out.push(opcodeName(b));
        s += 1;
      }
    }
  } catch {
    out.push(DECODE_FAILED);
  }
  return out.join(' ');
}

export function scriptOpcodes(script: Uint8Array): string {
  return decodeScript(script, false);
}

export function scriptAsm(script: Uint8Array): string {
  return decodeScript(script, true);
}

/** nTypes that carry addressHash/reqSigs/address in index records. */
export const ADDRESS_TYPES: ReadonlySet<number> = new Set([0, 1, 2, 5, 6, 9]);

export function encodeSegwit(network: Network, version: number, program: Uint8Array): string {
  const words = [version, ...bech32.toWords(program)];
  return version === 0 ? bech32.encode(network.bech32, words, 1000) : bech32m.encode(network.bech32, words, 1000);
}

export function encodeBase58(version: number, payload: Uint8Array): string {
  const b = new Uint8Array(payload.length + 1);
  b[0] = version;
  b.set(payload, 1);
  return base58check.encode(b);
}

/** The address pybtc `hash_to_address` gives for a parsed script, or undefined. */
export function infoAddress(info: ScriptInfo, network: Network = REGTEST): string | undefined {
  const h = info.addressHash;
  if (!h || !ADDRESS_TYPES.has(info.nType)) return undefined;
  switch (info.nType) {
    case 0:
    case 2:
      return encodeBase58(network.pubKeyHash, h);
    case 1:
      return encodeBase58(network.scriptHash, h);
    case 5:
    case 6:
      return encodeSegwit(network, 0, h);
    case 9:
      return encodeSegwit(network, 1, h);
    default:
      return undefined;
  }
}

export function scriptAddress(script: Uint8Array, network: Network = REGTEST): string | undefined {
  return infoAddress(parseScript(script), network);
}

/** Hex payload of the first NULL_DATA output (`""` for a bare OP_RETURN), or null. */
export function firstNullData(scripts: readonly Uint8Array[]): string | null {
  for (const s of scripts) {
    const info = parseScript(s);
    if (info.nType === 3) return toHex(info.data ?? new Uint8Array(0));
  }
  return null;
}
