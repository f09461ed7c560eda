/**
 * Miniscript to Script and to text, following Bitcoin Core's Node::ToScript and Node::ToString
 * (src/script/miniscript.h): -VERIFY opcodes folded in for v:, sugar printed back (pk, pkh, t:,
 * l:, u:, and_n) with ':' after wrappers.
 */
import { HASH_FRAGMENTS } from './fragments';
import type { MsNode } from './node';
import { has, scriptNum } from './types';

const OP = {
  0: 0x00,
  PUSHDATA1: 0x4c,
  PUSHDATA2: 0x4d,
  1: 0x51,
  IF: 0x63,
  NOTIF: 0x64,
  ELSE: 0x67,
  ENDIF: 0x68,
  VERIFY: 0x69,
  TOALTSTACK: 0x6b,
  FROMALTSTACK: 0x6c,
  IFDUP: 0x73,
  DUP: 0x76,
  SWAP: 0x7c,
  SIZE: 0x82,
  EQUAL: 0x87,
  EQUALVERIFY: 0x88,
  '0NOTEQUAL': 0x92,
  ADD: 0x93,
  BOOLAND: 0x9a,
  BOOLOR: 0x9b,
  NUMEQUAL: 0x9c,
  NUMEQUALVERIFY: 0x9d,
  HASH160: 0xa9,
  CHECKSIG: 0xac,
  CHECKSIGVERIFY: 0xad,
  CHECKMULTISIG: 0xae,
  CHECKMULTISIGVERIFY: 0xaf,
  CHECKLOCKTIMEVERIFY: 0xb1,
  CHECKSEQUENCEVERIFY: 0xb2,
  CHECKSIGADD: 0xba,
} as const;

/** CScript push of data (minimal). */
export function pushBytes(d: Uint8Array): number[] {
  if (d.length < OP.PUSHDATA1) return [d.length, ...d];
  if (d.length <= 0xff) return [OP.PUSHDATA1, d.length, ...d];
  return [OP.PUSHDATA2, d.length & 0xff, d.length >> 8, ...d];
}

/** CScript << int64 (OP_0, OP_1..OP_16 or a CScriptNum push). */
export function pushNum(n: number): number[] {
  if (n === 0) return [OP[0]];
  if (n >= 1 && n <= 16) return [OP[1] + n - 1];
  return pushBytes(scriptNum(n));
}

export interface KeyBytes {
  /** ToPKBytes: 33-byte key in P2WSH, 32-byte x-only key in Tapscript. */
  pk(key: number): Uint8Array;
  /** ToPKHBytes: HASH160 of the key's bytes above. */
  pkh(key: number): Uint8Array;
  /**
   * For script templates (shared/wallet/policy-template.ts): told where the bytes of pk()/pkh()
   * of `key` start in the script (after the push's length byte).
   */
  mark?(form: 'pk' | 'pkh', key: number, offset: number): void;
}

/** Core Node::ToScript. */
export function toScript(root: MsNode, ctx: KeyBytes): Uint8Array {
  const out: number[] = [];
  // a key's bytes (32 or 33) or a key hash (20) is one push: its length byte, then the bytes
  const pushKey = (form: 'pk' | 'pkh', key: number): void => {
    const d = form === 'pk' ? ctx.pk(key) : ctx.pkh(key);
    ctx.mark?.(form, key, out.length + 1);
    out.push(...pushBytes(d));
  };
  const emit = (n: MsNode, verify: boolean): void => {
    const s = n.subs;
    switch (n.frag) {
      case 'pk_k':
        pushKey('pk', n.keys[0]!);
        return;
      case 'pk_h':
        out.push(OP.DUP, OP.HASH160);
        pushKey('pkh', n.keys[0]!);
        out.push(OP.EQUALVERIFY);
        return;
      case 'older':
        out.push(...pushNum(n.k), OP.CHECKSEQUENCEVERIFY);
        return;
      case 'after':
        out.push(...pushNum(n.k), OP.CHECKLOCKTIMEVERIFY);
        return;
      case 'sha256':
      case 'ripemd160':
      case 'hash256':
      case 'hash160': {
        const op = HASH_FRAGMENTS.find((h) => h.frag === n.frag)!.op;
        out.push(OP.SIZE, ...pushNum(32), OP.EQUALVERIFY, op, ...pushBytes(n.data), verify ? OP.EQUALVERIFY : OP.EQUAL);
        return;
      }
      case 'wrap_a':
        out.push(OP.TOALTSTACK);
        emit(s[0]!, false);
        out.push(OP.FROMALTSTACK);
        return;
      case 'wrap_s':
        out.push(OP.SWAP);
        emit(s[0]!, verify);
        return;
      case 'wrap_c':
        emit(s[0]!, false);
        out.push(verify ? OP.CHECKSIGVERIFY : OP.CHECKSIG);
        return;
      case 'wrap_d':
        out.push(OP.DUP, OP.IF);
        emit(s[0]!, false);
        out.push(OP.ENDIF);
        return;
      case 'wrap_v':
        emit(s[0]!, true);
        if (has(s[0]!.type, 'x')) out.push(OP.VERIFY);
        return;
      case 'wrap_j':
        out.push(OP.SIZE, OP['0NOTEQUAL'], OP.IF);
        emit(s[0]!, false);
        out.push(OP.ENDIF);
        return;
      case 'wrap_n':
        emit(s[0]!, false);
        out.push(OP['0NOTEQUAL']);
        return;
      case 'just_1':
        out.push(OP[1]);
        return;
      case 'just_0':
        out.push(OP[0]);
        return;
      case 'and_v':
        emit(s[0]!, false);
        emit(s[1]!, verify);
        return;
      case 'and_b':
      case 'or_b':
        emit(s[0]!, false);
        emit(s[1]!, false);
        out.push(n.frag === 'and_b' ? OP.BOOLAND : OP.BOOLOR);
        return;
      case 'or_d':
        emit(s[0]!, false);
        out.push(OP.IFDUP, OP.NOTIF);
        emit(s[1]!, false);
        out.push(OP.ENDIF);
        return;
      case 'or_c':
        emit(s[0]!, false);
        out.push(OP.NOTIF);
        emit(s[1]!, false);
        out.push(OP.ENDIF);
        return;
      case 'or_i':
        out.push(OP.IF);
        emit(s[0]!, false);
        out.push(OP.ELSE);
        emit(s[1]!, false);
        out.push(OP.ENDIF);
        return;
      case 'andor':
        emit(s[0]!, false);
        out.push(OP.NOTIF);
        emit(s[2]!, false);
        out.push(OP.ELSE);
        emit(s[1]!, false);
        out.push(OP.ENDIF);
        return;
      case 'multi':
        out.push(...pushNum(n.k));
        for (const key of n.keys) pushKey('pk', key);
        out.push(...pushNum(n.keys.length), verify ? OP.CHECKMULTISIGVERIFY : OP.CHECKMULTISIG);
        return;
      case 'multi_a':
        n.keys.forEach((key, i) => {
          pushKey('pk', key);
          out.push(i === 0 ? OP.CHECKSIG : OP.CHECKSIGADD);
        });
        out.push(...pushNum(n.k), verify ? OP.NUMEQUALVERIFY : OP.NUMEQUAL);
        return;
      case 'thresh':
        s.forEach((sub, i) => {
          emit(sub, false);
          if (i > 0) out.push(OP.ADD);
        });
        out.push(...pushNum(n.k), verify ? OP.EQUALVERIFY : OP.EQUAL);
        return;
    }
  };
  emit(root, false);
  return Uint8Array.from(out);
}

const WRAPPERS = new Set(['wrap_a', 'wrap_s', 'wrap_d', 'wrap_v', 'wrap_j', 'wrap_n', 'wrap_c']);

/** Core Node::ToString with `key(i)` printing key i. */
export function toText(root: MsNode, key: (i: number) => string): string {
  const str = (n: MsNode, wrapped: boolean): string => {
    const s = n.subs;
    const childWrapped =
      WRAPPERS.has(n.frag) ||
      (n.frag === 'and_v' && s[1]!.frag === 'just_1') ||
      (n.frag === 'or_i' && (s[0]!.frag === 'just_0' || s[1]!.frag === 'just_0'));
    const sub = (i: number): string => str(s[i]!, childWrapped);
    const ret = wrapped ? ':' : '';
    switch (n.frag) {
      case 'wrap_a':
        return 'a' + sub(0);
      case 'wrap_s':
        return 's' + sub(0);
      case 'wrap_c':
        if (s[0]!.frag === 'pk_k') return ret + 'pk(' + key(s[0]!.keys[0]!) + ')';
        if (s[0]!.frag === 'pk_h') return ret + 'pkh(' + key(s[0]!.keys[0]!) + ')';
        return 'c' + sub(0);
      case 'wrap_d':
        return 'd' + sub(0);
      case 'wrap_v':
        return 'v' + sub(0);
      case 'wrap_j':
        return 'j' + sub(0);
      case 'wrap_n':
        return 'n' + sub(0);
      case 'and_v':
        if (s[1]!.frag === 'just_1') return 't' + sub(0);
        return ret + 'and_v(' + sub(0) + ',' + sub(1) + ')';
      case 'or_i':
        if (s[0]!.frag === 'just_0') return 'l' + sub(1);
        if (s[1]!.frag === 'just_0') return 'u' + sub(0);
        return ret + 'or_i(' + sub(0) + ',' + sub(1) + ')';
      case 'pk_k':
        return ret + 'pk_k(' + key(n.keys[0]!) + ')';
      case 'pk_h':
        return ret + 'pk_h(' + key(n.keys[0]!) + ')';
      case 'after':
        return ret + 'after(' + String(n.k) + ')';
      case 'older':
        return ret + 'older(' + String(n.k) + ')';
      case 'hash256':
      case 'hash160':
      case 'sha256':
      case 'ripemd160':
        return ret + n.frag + '(' + Array.from(n.data, (b) => b.toString(16).padStart(2, '0')).join('') + ')';
      case 'just_1':
        return ret + '1';
      case 'just_0':
        return ret + '0';
      case 'and_b':
      case 'or_b':
      case 'or_d':
      case 'or_c':
        return ret + n.frag + '(' + sub(0) + ',' + sub(1) + ')';
      case 'andor':
        if (s[2]!.frag === 'just_0') return ret + 'and_n(' + sub(0) + ',' + sub(1) + ')';
        return ret + 'andor(' + sub(0) + ',' + sub(1) + ',' + sub(2) + ')';
      case 'multi':
      case 'multi_a':
        return ret + n.frag + '(' + String(n.k) + n.keys.map((k) => ',' + key(k)).join('') + ')';
      case 'thresh':
        return ret + 'thresh(' + String(n.k) + s.map((_, i) => ',' + sub(i)).join('') + ')';
    }
  };
  return str(root, false);
}
