/**
 * Miniscript from its text form, following Bitcoin Core's miniscript::internal::Parse
 * (src/script/miniscript.h): the same fragments, wrappers (a s c d v j n t l u), sugar (pk, pkh,
 * and_n, t:, l:, u:), number rules and failure cases. Like Core it returns null for text that is
 * not miniscript; validity and sanity are checked afterwards on the node.
 *
 * `parseKey(text)` parses one key expression and returns its index; it throws the key's own
 * error (Core reports m_key_parsing_error as the descriptor's error).
 */
import { isHex, fromHex } from '../hex';
import { Const, Expr, Func, Span } from '../descriptor/helpers';
import { maxScriptSize, MAX_PUBKEYS_PER_MULTI_A, MAX_PUBKEYS_PER_MULTISIG, MsNode } from './node';
import { BINARY_FRAGMENT, HASH_FRAGMENTS, WRAPPER_FRAGMENT } from './fragments';
import { has, numPushSize } from './types';
import type { Fragment, MsContext } from './types';

const INT64_MAX = 2n ** 63n - 1n;

/** Core ToIntegral<int64_t> (std::from_chars: optional '-', digits, nothing else). */
function toInt64(s: string): number | null {
  if (!/^-?[0-9]+$/.test(s)) return null;
  const v = BigInt(s);
  if (v > INT64_MAX || v < -INT64_MAX - 1n) return null;
  // callers only accept values within 32 bits; clamp the rest to something out of their range
  if (v > 2n ** 40n) return 2 ** 40;
  if (v < -(2n ** 40n)) return -(2 ** 40);
  return Number(v);
}

/** Core FindNextChar: index of m before any ')' in the span, or -1. */
function findNextChar(sp: Span, m: string): number {
  for (let i = 0; i < sp.size; i++) {
    const c = sp.at(i);
    if (c === m) return i;
    if (c === ')') break;
  }
  return -1;
}

type Todo =
  | 'WRAPPED_EXPR'
  | 'EXPR'
  | 'SWAP'
  | 'ALT'
  | 'CHECK'
  | 'DUP_IF'
  | 'VERIFY'
  | 'NON_ZERO'
  | 'ZERO_NOTEQUAL'
  | 'WRAP_U'
  | 'WRAP_T'
  | 'AND_N'
  | 'AND_V'
  | 'AND_B'
  | 'ANDOR'
  | 'OR_B'
  | 'OR_C'
  | 'OR_D'
  | 'OR_I'
  | 'THRESH'
  | 'COMMA'
  | 'CLOSE_BRACKET';

const WRAPPER_SIZE: Record<string, number> = { a: 2, s: 1, c: 1, d: 3, j: 4, n: 1, u: 4, t: 1, l: 4 };
const WRAPPER_TODO: Record<string, Todo> = {
  a: 'ALT',
  s: 'SWAP',
  c: 'CHECK',
  d: 'DUP_IF',
  j: 'NON_ZERO',
  n: 'ZERO_NOTEQUAL',
  v: 'VERIFY',
  u: 'WRAP_U',
  t: 'WRAP_T',
  l: 'OR_I',
};
const BINARY: [string, Todo, number][] = [
  ['and_n(', 'AND_N', 5],
  ['and_b(', 'AND_B', 2],
  ['and_v(', 'AND_V', 1],
  ['or_b(', 'OR_B', 2],
  ['or_c(', 'OR_C', 3],
  ['or_d(', 'OR_D', 4],
  ['or_i(', 'OR_I', 4],
];

export function parseMiniscript(
  text: string,
  ctx: MsContext,
  parseKey: (text: string) => number,
  opts: { keyEndsAtParen?: boolean } = {},
): MsNode | null {
  const inp = new Span(text);
  let scriptSize = 1;
  const maxSize = maxScriptSize(ctx);
  const toParse: [Todo, number, number][] = [['WRAPPED_EXPR', -1, -1]];
  const built: MsNode[] = [];
  const node = (frag: Fragment, subs: MsNode[] = [], keys: number[] = [], data?: Uint8Array, k = 0): MsNode =>
    new MsNode(ctx, frag, subs, keys, data, k);

  const parseKeyIn = (func: string): number | null => {
    if (opts.keyEndsAtParen) {
      inp.pos += func.length + 1;
      const end = findNextChar(inp, ')');
      if (end < 1) return null;
      const key = parseKey(inp.s.slice(inp.pos, inp.pos + end));
      inp.pos += end + 1;
      return key;
    }
    const expr = Expr(inp);
    if (!Func(func, expr)) return null;
    return parseKey(expr.text());
  };

  const parseMulti = (isMultiA: boolean): boolean => {
    const maxKeys = isMultiA ? MAX_PUBKEYS_PER_MULTI_A : MAX_PUBKEYS_PER_MULTISIG;
    if (ctx !== (isMultiA ? 'tapscript' : 'p2wsh')) return false;
    let nextComma = findNextChar(inp, ',');
    if (nextComma < 1) return false;
    const k = toInt64(inp.s.slice(inp.pos, inp.pos + nextComma));
    if (k === null) return false;
    inp.pos += nextComma + 1;
    const keys: number[] = [];
    while (nextComma !== -1) {
      nextComma = findNextChar(inp, ',');
      const keyLength = nextComma === -1 ? findNextChar(inp, ')') : nextComma;
      if (keyLength < 1) return false;
      keys.push(parseKey(inp.s.slice(inp.pos, inp.pos + keyLength)));
      inp.pos += keyLength + 1;
    }
    if (keys.length < 1 || keys.length > maxKeys) return false;
    if (k < 1 || k > keys.length) return false;
    if (isMultiA) {
      scriptSize += (1 + 32 + 1) * keys.length + numPushSize(k);
      built.push(node('multi_a', [], keys, undefined, k));
    } else {
      scriptSize += 2 + (keys.length > 16 ? 1 : 0) + (k > 16 ? 1 : 0) + 34 * keys.length;
      built.push(node('multi', [], keys, undefined, k));
    }
    return true;
  };

  const numSize = (n: number): number => 1 + (n > 16 ? 1 : 0) + (n > 0x7f ? 1 : 0) + (n > 0x7fff ? 1 : 0) + (n > 0x7fffff ? 1 : 0);
  const back = (frag: Fragment): void => {
    const child = built.pop()!;
    built.push(node(frag, [built.pop()!, child]));
  };

  while (toParse.length) {
    if (scriptSize > maxSize) return null;
    const [cur, n, k] = toParse.pop()!;
    switch (cur) {
      case 'WRAPPED_EXPR': {
        let colon = -1;
        for (let i = 1; i < inp.size; i++) {
          const c = inp.at(i);
          if (c === ':') {
            colon = i;
            break;
          }
          if (c < 'a' || c > 'z') break;
        }
        let lastWasV = false;
        for (let j = 0; colon !== -1 && j < colon; j++) {
          if (scriptSize > maxSize) return null;
          const w = inp.at(j);
          const todo = WRAPPER_TODO[w];
          if (!todo) return null;
          if (w === 'v' && lastWasV) return null;
          scriptSize += WRAPPER_SIZE[w] ?? 0;
          if (w === 'l') built.push(node('just_0'));
          toParse.push([todo, -1, -1]);
          lastWasV = w === 'v';
        }
        toParse.push(['EXPR', -1, -1]);
        if (colon !== -1) inp.pos += colon + 1;
        break;
      }
      case 'EXPR': {
        if (Const('0', inp)) {
          built.push(node('just_0'));
        } else if (Const('1', inp)) {
          built.push(node('just_1'));
        } else if (Const('pk(', inp, false)) {
          const key = parseKeyIn('pk');
          if (key === null) return null;
          built.push(node('wrap_c', [node('pk_k', [], [key])]));
          scriptSize += ctx === 'tapscript' ? 33 : 34;
        } else if (Const('pkh(', inp, false)) {
          const key = parseKeyIn('pkh');
          if (key === null) return null;
          built.push(node('wrap_c', [node('pk_h', [], [key])]));
          scriptSize += 24;
        } else if (Const('pk_k(', inp, false)) {
          const key = parseKeyIn('pk_k');
          if (key === null) return null;
          built.push(node('pk_k', [], [key]));
          scriptSize += ctx === 'tapscript' ? 32 : 33;
        } else if (Const('pk_h(', inp, false)) {
          const key = parseKeyIn('pk_h');
          if (key === null) return null;
          built.push(node('pk_h', [], [key]));
          scriptSize += 23;
        } else {
          const hash = HASH_FRAGMENTS.find(({ frag }) => Const(frag + '(', inp, false));
          if (hash) {
            const { frag, len } = hash;
            const expr = Expr(inp);
            if (!Func(frag, expr)) return null;
            const val = expr.text();
            if (!isHex(val) || val.length !== len * 2) return null;
            built.push(node(frag, [], [], fromHex(val)));
            scriptSize += len + 6;
            break;
          }
          const lock = Const('after(', inp, false) ? 'after' : Const('older(', inp, false) ? 'older' : null;
          if (lock) {
            const expr = Expr(inp);
            if (!Func(lock, expr)) return null;
            const num = toInt64(expr.text());
            if (num === null || num < 1 || num >= 0x80000000) return null;
            built.push(node(lock, [], [], undefined, num));
            scriptSize += numSize(num);
          } else if (Const('multi(', inp)) {
            if (!parseMulti(false)) return null;
          } else if (Const('multi_a(', inp)) {
            if (!parseMulti(true)) return null;
          } else if (Const('thresh(', inp)) {
            const nextComma = findNextChar(inp, ',');
            if (nextComma < 1) return null;
            const kk = toInt64(inp.s.slice(inp.pos, inp.pos + nextComma));
            if (kk === null || kk < 1) return null;
            inp.pos += nextComma + 1;
            toParse.push(['THRESH', 1, kk], ['WRAPPED_EXPR', -1, -1]);
            scriptSize += 2 + (kk > 16 ? 1 : 0) + (kk > 0x7f ? 1 : 0) + (kk > 0x7fff ? 1 : 0) + (kk > 0x7fffff ? 1 : 0);
          } else if (Const('andor(', inp)) {
            toParse.push(['ANDOR', -1, -1], ['CLOSE_BRACKET', -1, -1], ['WRAPPED_EXPR', -1, -1], ['COMMA', -1, -1]);
            toParse.push(['WRAPPED_EXPR', -1, -1], ['COMMA', -1, -1], ['WRAPPED_EXPR', -1, -1]);
            scriptSize += 5;
          } else {
            const bin = BINARY.find(([name]) => Const(name, inp));
            if (!bin) return null;
            toParse.push([bin[1], -1, -1], ['CLOSE_BRACKET', -1, -1], ['WRAPPED_EXPR', -1, -1], ['COMMA', -1, -1], ['WRAPPED_EXPR', -1, -1]);
            scriptSize += bin[2];
          }
        }
        break;
      }
      case 'ALT':
      case 'SWAP':
      case 'CHECK':
      case 'DUP_IF':
      case 'NON_ZERO':
      case 'ZERO_NOTEQUAL':
      case 'VERIFY': {
        const frag = WRAPPER_FRAGMENT[cur];
        const sub = built.pop()!;
        if (cur === 'VERIFY' && has(sub.type, 'x')) scriptSize += 1; // v: of an 'x' node adds an OP_VERIFY
        built.push(node(frag, [sub]));
        break;
      }
      case 'WRAP_U':
        built.push(node('or_i', [built.pop()!, node('just_0')]));
        break;
      case 'WRAP_T':
        built.push(node('and_v', [built.pop()!, node('just_1')]));
        break;
      case 'AND_N': {
        const mid = built.pop()!;
        built.push(node('andor', [built.pop()!, mid, node('just_0')]));
        break;
      }
      case 'AND_V':
      case 'AND_B':
      case 'OR_B':
      case 'OR_C':
      case 'OR_D':
      case 'OR_I':
        back(BINARY_FRAGMENT[cur]);
        break;
      case 'ANDOR': {
        const right = built.pop()!;
        const mid = built.pop()!;
        built.push(node('andor', [built.pop()!, mid, right]));
        break;
      }
      case 'THRESH': {
        if (inp.size < 1) return null;
        if (inp.at(0) === ',') {
          inp.pos += 1;
          toParse.push(['THRESH', n + 1, k], ['WRAPPED_EXPR', -1, -1]);
          scriptSize += 2;
        } else if (inp.at(0) === ')') {
          if (k > n) return null;
          inp.pos += 1;
          const subs = built.splice(built.length - n, n);
          built.push(node('thresh', subs, [], undefined, k));
        } else {
          return null;
        }
        break;
      }
      case 'COMMA':
        if (inp.size < 1 || inp.at(0) !== ',') return null;
        inp.pos += 1;
        break;
      case 'CLOSE_BRACKET':
        if (inp.size < 1 || inp.at(0) !== ')') return null;
        inp.pos += 1;
        break;
    }
  }
  if (built.length !== 1) return null;
  if (inp.size > 0) return null;
  return built[0]!;
}
