/**
 * Miniscript from a Script, following Bitcoin Core's miniscript::FromScript (DecomposeScript and
 * internal::DecodeScript, src/script/miniscript.h/.cpp): the script is split into opcodes (the
 * -VERIFY opcodes into their base opcode plus OP_VERIFY, non-minimal pushes and VERIFY sequences
 * refused), read from its end, and rebuilt as the node tree the text form would give. Like Core
 * it returns null for a script that is not valid miniscript at the top level.
 *
 * Keys: the satisfier's context turns a key push into a key (`fromPk`) and a key hash into the key
 * it hashes (`fromPkh`, which may fail: then the script cannot be decoded, as in Core). The node's
 * keys are indices into the returned `keys` list.
 */
import { checkMinimalPush, getScriptOp, scriptNumDecode } from '../script';
import { BINARY_FRAGMENT, HASH_FRAGMENTS, WRAPPER_FRAGMENT } from './fragments';
import { maxScriptSize, MAX_PUBKEYS_PER_MULTI_A, MsNode } from './node';
import type { Fragment, MsContext } from './types';

const OP_0 = 0x00;
const OP_PUSHDATA4 = 0x4e;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_IF = 0x63;
const OP_NOTIF = 0x64;
const OP_ELSE = 0x67;
const OP_ENDIF = 0x68;
const OP_VERIFY = 0x69;
const OP_TOALTSTACK = 0x6b;
const OP_FROMALTSTACK = 0x6c;
const OP_IFDUP = 0x73;
const OP_DUP = 0x76;
const OP_SWAP = 0x7c;
const OP_SIZE = 0x82;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_0NOTEQUAL = 0x92;
const OP_ADD = 0x93;
const OP_BOOLAND = 0x9a;
const OP_BOOLOR = 0x9b;
const OP_NUMEQUAL = 0x9c;
const OP_NUMEQUALVERIFY = 0x9d;
const OP_HASH160 = 0xa9;
const OP_CHECKSIG = 0xac;
const OP_CHECKSIGVERIFY = 0xad;
const OP_CHECKMULTISIG = 0xae;
const OP_CHECKMULTISIGVERIFY = 0xaf;
const OP_CHECKLOCKTIMEVERIFY = 0xb1;
const OP_CHECKSEQUENCEVERIFY = 0xb2;
const OP_CHECKSIGADD = 0xba;

/** Core's Opcode pair: the opcode and what it pushes (OP_n included; empty for other opcodes). */
interface Op {
  op: number;
  data: Uint8Array;
}

const NONE = new Uint8Array(0);

/** Core DecomposeScript: the opcodes in reverse order, or null. */
export function decomposeScript(script: Uint8Array): Op[] | null {
  const out: Op[] = [];
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) return null;
    pc = r.next;
    let op = r.op;
    let data: Uint8Array = r.data;
    const split = (base: number): void => {
      out.push({ op: base, data: NONE });
      op = OP_VERIFY;
    };
    if (op >= OP_1 && op <= OP_16) data = Uint8Array.of(op - OP_1 + 1);
    else if (op === OP_CHECKSIGVERIFY) split(OP_CHECKSIG);
    else if (op === OP_CHECKMULTISIGVERIFY) split(OP_CHECKMULTISIG);
    else if (op === OP_EQUALVERIFY) split(OP_EQUAL);
    else if (op === OP_NUMEQUALVERIFY) split(OP_NUMEQUAL);
    else if (op <= OP_PUSHDATA4) {
      if (!checkMinimalPush(data, op)) return null;
    } else if (pc < script.length && (op === OP_CHECKSIG || op === OP_CHECKMULTISIG || op === OP_EQUAL || op === OP_NUMEQUAL) && script[pc] === OP_VERIFY) {
      return null; // a non-minimal VERIFY sequence
    }
    out.push({ op, data });
  }
  return out.reverse();
}

/** Core ParseScriptNumber. */
function scriptNumber(o: Op | undefined): number | null {
  if (!o) return null;
  if (o.op === OP_0) return 0;
  if (o.data.length === 0) return null;
  if (o.op <= OP_PUSHDATA4 && !checkMinimalPush(o.data, o.op)) return null;
  return scriptNumDecode(o.data, true, 4);
}

export interface DecodeKeys {
  /** FromPKBytes: the key of a push (33 bytes in P2WSH, 32 in Tapscript), or null. */
  fromPk(bytes: Uint8Array): Uint8Array | null;
  /** FromPKHBytes: the key whose hash is this 20-byte push, or null (unknown). */
  fromPkh(hash: Uint8Array): Uint8Array | null;
}

export interface Decoded {
  node: MsNode;
  /** The keys the node's key indices stand for (as the context returned them). */
  keys: Uint8Array[];
}

type Ctx =
  | 'SINGLE_BKV_EXPR'
  | 'BKV_EXPR'
  | 'W_EXPR'
  | 'SWAP'
  | 'ALT'
  | 'CHECK'
  | 'DUP_IF'
  | 'VERIFY'
  | 'NON_ZERO'
  | 'ZERO_NOTEQUAL'
  | 'MAYBE_AND_V'
  | 'AND_V'
  | 'AND_B'
  | 'ANDOR'
  | 'OR_B'
  | 'OR_C'
  | 'OR_D'
  | 'THRESH_W'
  | 'THRESH_E'
  | 'ENDIF'
  | 'ENDIF_NOTIF'
  | 'ENDIF_ELSE';

const HASHES = new Map(HASH_FRAGMENTS.map((h) => [h.op, h]));

/** Core FromScript: the miniscript a script is, or null. */
export function fromScript(script: Uint8Array, msCtx: MsContext, keyCtx: DecodeKeys): Decoded | null {
  if (script.length > maxScriptSize(msCtx)) return null;
  const ops = decomposeScript(script);
  if (!ops) return null;
  const keys: Uint8Array[] = [];
  const keyIndex = (k: Uint8Array): number => keys.push(k) - 1;
  const mk = (frag: Fragment, subs: MsNode[] = [], ks: number[] = [], data?: Uint8Array, k = 0): MsNode => new MsNode(msCtx, frag, subs, ks, data, k);
  let i = 0;
  const last = ops.length;
  const at = (j: number): Op => ops[i + j]!;
  const toParse: [Ctx, number, number][] = [['BKV_EXPR', -1, -1]];
  const built: MsNode[] = [];
  const buildBack = (frag: Fragment): void => {
    const child = built.pop()!;
    built[built.length - 1] = mk(frag, [child, built[built.length - 1]!]);
  };

  while (toParse.length > 0) {
    if (built.length > 0 && !built[built.length - 1]!.isValid()) return null;
    const [cur, n, k] = toParse.pop()!;
    const left = last - i;
    switch (cur) {
      case 'SINGLE_BKV_EXPR': {
        if (left <= 0) return null;
        const o = at(0);
        if (o.op === OP_1) {
          i++;
          built.push(mk('just_1'));
          break;
        }
        if (o.op === OP_0) {
          i++;
          built.push(mk('just_0'));
          break;
        }
        if (o.data.length === 33 || o.data.length === 32) {
          const key = keyCtx.fromPk(o.data);
          if (!key) return null;
          i++;
          built.push(mk('pk_k', [], [keyIndex(key)]));
          break;
        }
        if (left >= 5 && o.op === OP_VERIFY && at(1).op === OP_EQUAL && at(3).op === OP_HASH160 && at(4).op === OP_DUP && at(2).data.length === 20) {
          const key = keyCtx.fromPkh(at(2).data);
          if (!key) return null;
          i += 5;
          built.push(mk('pk_h', [], [keyIndex(key)]));
          break;
        }
        let num: number | null;
        if (left >= 2 && (o.op === OP_CHECKSEQUENCEVERIFY || o.op === OP_CHECKLOCKTIMEVERIFY) && (num = scriptNumber(at(1))) !== null) {
          i += 2;
          if (num < 1 || num > 0x7fffffff) return null;
          built.push(mk(o.op === OP_CHECKSEQUENCEVERIFY ? 'older' : 'after', [], [], undefined, num));
          break;
        }
        if (left >= 7 && o.op === OP_EQUAL && at(3).op === OP_VERIFY && at(4).op === OP_EQUAL && scriptNumber(at(5)) === 32 && at(6).op === OP_SIZE) {
          const h = HASHES.get(at(2).op);
          if (h && at(1).data.length === h.len) {
            built.push(mk(h.frag, [], [], at(1).data));
            i += 7;
            break;
          }
        }
        if (left >= 3 && o.op === OP_CHECKMULTISIG) {
          if (msCtx === 'tapscript') return null;
          const nk = scriptNumber(at(1));
          if (nk === null || left < 3 + nk) return null;
          if (nk < 1 || nk > 20) return null;
          const ks: number[] = [];
          for (let j = 0; j < nk; j++) {
            if (at(2 + j).data.length !== 33) return null;
            const key = keyCtx.fromPk(at(2 + j).data);
            if (!key) return null;
            ks.push(keyIndex(key));
          }
          const kk = scriptNumber(at(2 + nk));
          if (kk === null || kk < 1 || kk > nk) return null;
          i += 3 + nk;
          built.push(mk('multi', [], ks.reverse(), undefined, kk));
          break;
        }
        if (left >= 4 && o.op === OP_NUMEQUAL) {
          if (msCtx !== 'tapscript') return null;
          const kk = scriptNumber(at(1));
          if (kk === null || kk < 1 || kk > MAX_PUBKEYS_PER_MULTI_A) return null;
          if (left < 2 + kk * 2) return null;
          const ks: number[] = [];
          for (let pos = 2; ; pos += 2) {
            if (left < pos + 2) return null;
            if (at(pos).op !== OP_CHECKSIGADD && at(pos).op !== OP_CHECKSIG) return null;
            if (at(pos + 1).data.length !== 32) return null;
            const key = keyCtx.fromPk(at(pos + 1).data);
            if (!key) return null;
            ks.push(keyIndex(key));
            if (ks.length > MAX_PUBKEYS_PER_MULTI_A) return null;
            if (at(pos).op === OP_CHECKSIG) break;
          }
          if (ks.length < kk) return null;
          i += 2 + ks.length * 2;
          built.push(mk('multi_a', [], ks.reverse(), undefined, kk));
          break;
        }
        // c:, v:, n: wrappers (and_v commutes with them, so a single expression suffices)
        const wrap = o.op === OP_CHECKSIG ? 'CHECK' : o.op === OP_VERIFY ? 'VERIFY' : o.op === OP_0NOTEQUAL ? 'ZERO_NOTEQUAL' : null;
        if (wrap) {
          i++;
          toParse.push([wrap, -1, -1], ['SINGLE_BKV_EXPR', -1, -1]);
          break;
        }
        if (left >= 3 && o.op === OP_EQUAL && (num = scriptNumber(at(1))) !== null) {
          if (num < 1) return null;
          i += 2;
          toParse.push(['THRESH_W', 0, num]);
          break;
        }
        if (o.op === OP_ENDIF) {
          i++;
          toParse.push(['ENDIF', -1, -1], ['BKV_EXPR', -1, -1]);
          break;
        }
        if (o.op === OP_BOOLAND || o.op === OP_BOOLOR) {
          i++;
          toParse.push([o.op === OP_BOOLAND ? 'AND_B' : 'OR_B', -1, -1], ['SINGLE_BKV_EXPR', -1, -1], ['W_EXPR', -1, -1]);
          break;
        }
        return null;
      }
      case 'BKV_EXPR':
        toParse.push(['MAYBE_AND_V', -1, -1], ['SINGLE_BKV_EXPR', -1, -1]);
        break;
      case 'W_EXPR':
        if (left <= 0) return null;
        if (at(0).op === OP_FROMALTSTACK) {
          i++;
          toParse.push(['ALT', -1, -1]);
        } else toParse.push(['SWAP', -1, -1]);
        toParse.push(['BKV_EXPR', -1, -1]);
        break;
      case 'MAYBE_AND_V':
        if (left > 0 && ![OP_IF, OP_ELSE, OP_NOTIF, OP_TOALTSTACK, OP_SWAP].includes(at(0).op)) toParse.push(['AND_V', -1, -1], ['BKV_EXPR', -1, -1]);
        break;
      case 'SWAP':
      case 'ALT':
        if (left <= 0 || at(0).op !== (cur === 'SWAP' ? OP_SWAP : OP_TOALTSTACK) || built.length === 0) return null;
        i++;
        built[built.length - 1] = mk(WRAPPER_FRAGMENT[cur], [built[built.length - 1]!]);
        break;
      case 'CHECK':
      case 'DUP_IF':
      case 'VERIFY':
      case 'NON_ZERO':
      case 'ZERO_NOTEQUAL':
        if (built.length === 0) return null;
        built[built.length - 1] = mk(WRAPPER_FRAGMENT[cur], [built[built.length - 1]!]);
        break;
      case 'AND_V':
      case 'AND_B':
      case 'OR_B':
      case 'OR_C':
      case 'OR_D':
        if (built.length < 2) return null;
        buildBack(BINARY_FRAGMENT[cur]);
        break;
      case 'ANDOR': {
        if (built.length < 3) return null;
        const l = built.pop()!;
        const r = built.pop()!;
        const mid = built[built.length - 1]!;
        built[built.length - 1] = mk('andor', [l, mid, r]);
        break;
      }
      case 'THRESH_W':
        if (left <= 0) return null;
        if (at(0).op === OP_ADD) {
          i++;
          toParse.push(['THRESH_W', n + 1, k], ['W_EXPR', -1, -1]);
        } else toParse.push(['THRESH_E', n + 1, k], ['SINGLE_BKV_EXPR', -1, -1]);
        break;
      case 'THRESH_E': {
        if (k < 1 || k > n || built.length < n) return null;
        const subs: MsNode[] = [];
        for (let j = 0; j < n; j++) subs.push(built.pop()!);
        built.push(mk('thresh', subs, [], undefined, k));
        break;
      }
      case 'ENDIF': {
        if (left <= 0) return null;
        const o = at(0).op;
        if (o === OP_ELSE) {
          i++;
          toParse.push(['ENDIF_ELSE', -1, -1], ['BKV_EXPR', -1, -1]);
        } else if (o === OP_IF) {
          if (left >= 2 && at(1).op === OP_DUP) {
            i += 2;
            toParse.push(['DUP_IF', -1, -1]);
          } else if (left >= 3 && at(1).op === OP_0NOTEQUAL && at(2).op === OP_SIZE) {
            i += 3;
            toParse.push(['NON_ZERO', -1, -1]);
          } else return null;
        } else if (o === OP_NOTIF) {
          i++;
          toParse.push(['ENDIF_NOTIF', -1, -1]);
        } else return null;
        break;
      }
      case 'ENDIF_NOTIF':
        if (left <= 0) return null;
        if (at(0).op === OP_IFDUP) {
          i++;
          toParse.push(['OR_D', -1, -1]);
        } else toParse.push(['OR_C', -1, -1]);
        toParse.push(['SINGLE_BKV_EXPR', -1, -1]);
        break;
      case 'ENDIF_ELSE':
        if (left <= 0) return null;
        if (at(0).op === OP_IF) {
          i++;
          if (built.length < 2) return null;
          buildBack('or_i');
        } else if (at(0).op === OP_NOTIF) {
          i++;
          toParse.push(['ANDOR', -1, -1], ['SINGLE_BKV_EXPR', -1, -1]);
        } else return null;
        break;
    }
  }
  if (built.length !== 1 || i !== last) return null;
  const node = built[0]!;
  node.checkDuplicateKeys((j) => Array.from(keys[j]!, (b) => b.toString(16).padStart(2, '0')).join(''));
  if (!node.isValidTopLevel()) return null;
  return { node, keys };
}
