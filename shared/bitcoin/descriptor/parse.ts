/** Descriptor tree and Core's ParseScript (src/script/descriptor.cpp). */
import { decodeDestination, type Destination } from '../address';
import { fromHex, isHex } from '../hex';
import type { MsNode } from '../miniscript/node';
import { musigSelect } from './musig';
import { parseMiniscriptExpr, parseMultiA, parseTapTree } from './script-tree';
import { keyBranches, keySize, parsePubkey, type Ctx, type KeyExpr, type ParseState } from './keys';
import { Const, Expr, Func, MAX_PUBKEYS_PER_MULTISIG, MAX_SCRIPT_ELEMENT_SIZE, ParseError, Span } from './helpers';

// Descriptor tree
// ---------------------------------------------------------------------------------------------

export type Node =
  | { t: 'pk' | 'pkh' | 'wpkh' | 'rawtr'; key: KeyExpr }
  | { t: 'tr'; key: KeyExpr; leaves: { depth: number; node: Node }[] }
  | { t: 'multi' | 'multi_a'; k: number; keys: KeyExpr[]; sorted: boolean }
  | { t: 'ms'; ms: MsNode; keys: KeyExpr[]; tap: boolean }
  | { t: 'sh' | 'wsh'; sub: Node }
  | { t: 'addr'; dest: Destination }
  | { t: 'raw'; script: Uint8Array };

export function parseScript(st: ParseState, sp: Span, ctx: Ctx): Node {
  const expr = Expr(sp);
  if (Func('pk', expr)) {
    return { t: 'pk', key: wrapKeyError('pk(): ', () => parsePubkey(st, expr.text(), ctx)) };
  }
  if ((ctx === 'top' || ctx === 'p2sh' || ctx === 'p2wsh') && Func('pkh', expr)) {
    return { t: 'pkh', key: wrapKeyError('pkh(): ', () => parsePubkey(st, expr.text(), ctx)) };
  }
  if (Func('combo', new Span(expr.s, expr.pos, expr.end))) {
    if (ctx !== 'top') throw new ParseError('Can only have combo() at top level');
    throw new ParseError('combo() descriptors are not supported');
  }
  const multi = Func('multi', expr);
  const sortedmulti = !multi && Func('sortedmulti', expr);
  if ((ctx === 'top' || ctx === 'p2sh' || ctx === 'p2wsh') && (multi || sortedmulti)) {
    const threshold = Expr(expr).text();
    if (!/^[0-9]+$/.test(threshold) || Number(threshold) > 0xffffffff) {
      throw new ParseError(`Multi threshold '${threshold}' is not valid`);
    }
    const thres = Number(threshold);
    const keys: KeyExpr[] = [];
    let scriptSize = 0;
    while (expr.size) {
      if (!Const(',', expr)) throw new ParseError(`Multi: expected ',', got '${expr.at(0)}'`);
      const arg = Expr(expr);
      const key = wrapKeyError('Multi: ', () => parsePubkey(st, arg.text(), ctx));
      scriptSize += keySize(key) + 1;
      keys.push(key);
    }
    if (keys.length === 0 || keys.length > MAX_PUBKEYS_PER_MULTISIG) {
      throw new ParseError(`Cannot have ${keys.length} keys in multisig; must have between 1 and ${MAX_PUBKEYS_PER_MULTISIG} keys, inclusive`);
    } else if (thres < 1) {
      throw new ParseError(`Multisig threshold cannot be ${thres}, must be at least 1`);
    } else if (thres > keys.length) {
      throw new ParseError(`Multisig threshold cannot be larger than the number of keys; threshold is ${thres} but only ${keys.length} keys specified`);
    }
    if (ctx === 'top' && keys.length > 3) {
      throw new ParseError(`Cannot have ${keys.length} pubkeys in bare multisig; only at most 3 pubkeys`);
    }
    if (ctx === 'p2sh' && scriptSize + 3 > MAX_SCRIPT_ELEMENT_SIZE) {
      throw new ParseError(`P2SH script is too large, ${scriptSize + 3} bytes is larger than ${MAX_SCRIPT_ELEMENT_SIZE} bytes`);
    }
    const n = Math.max(...keys.map(keyBranches));
    if (keys.some((k) => keyBranches(k) !== 1 && keyBranches(k) !== n)) {
      throw new ParseError('multi(): Multipath derivation paths have mismatched lengths');
    }
    return { t: 'multi', k: thres, keys, sorted: sortedmulti };
  } else if (multi || sortedmulti) {
    throw new ParseError('Can only have multi/sortedmulti at top level, in sh(), or in wsh()');
  }
  const multiA = Func('multi_a', expr);
  const sortedMultiA = !multiA && Func('sortedmulti_a', expr);
  if (ctx === 'p2tr' && (multiA || sortedMultiA)) {
    const { k, keys } = parseMultiA(st, expr, ctx);
    return { t: 'multi_a', k, keys, sorted: sortedMultiA };
  } else if (multiA || sortedMultiA) {
    throw new ParseError('Can only have multi_a/sortedmulti_a inside tr()');
  }
  if ((ctx === 'top' || ctx === 'p2sh') && Func('wpkh', expr)) {
    return { t: 'wpkh', key: wrapKeyError('wpkh(): ', () => parsePubkey(st, expr.text(), 'p2wpkh')) };
  } else if (Func('wpkh', expr)) {
    throw new ParseError('Can only have wpkh() at top level or inside sh()');
  }
  if (ctx === 'top' && Func('sh', expr)) {
    const sub = parseScript(st, expr, 'p2sh');
    if (expr.size) throw new ParseError('');
    return { t: 'sh', sub };
  } else if (Func('sh', expr)) {
    throw new ParseError('Can only have sh() at top level');
  }
  if ((ctx === 'top' || ctx === 'p2sh') && Func('wsh', expr)) {
    const sub = parseScript(st, expr, 'p2wsh');
    if (expr.size) throw new ParseError('');
    return { t: 'wsh', sub };
  } else if (Func('wsh', expr)) {
    throw new ParseError('Can only have wsh() at top level or inside sh()');
  }
  if (ctx === 'top' && Func('addr', expr)) {
    const dec = decodeDestination(expr.text(), st.net);
    if (!dec.ok) throw new ParseError('Address is not valid');
    return { t: 'addr', dest: dec.dest };
  } else if (Func('addr', expr)) {
    throw new ParseError('Can only have addr() at top level');
  }
  if (ctx === 'top' && Func('tr', expr)) {
    const arg = Expr(expr);
    const key = wrapKeyError('tr(): ', () => parsePubkey(st, arg.text(), 'p2tr'));
    let leaves: { depth: number; node: Node }[] = [];
    if (expr.size) {
      if (!Const(',', expr)) throw new ParseError(`tr: expected ',', got '${expr.at(0)}'`);
      leaves = parseTapTree(expr, (sarg) => parseScript(st, sarg, 'p2tr'));
    }
    const counts = [keyBranches(key), ...leaves.map((l) => checkBranches(l.node))];
    const max = Math.max(...counts);
    if (leaves.some((l) => checkBranches(l.node) !== 1 && checkBranches(l.node) !== max)) {
      throw new ParseError('tr(): Multipath subscripts have mismatched lengths');
    }
    if (keyBranches(key) > 1 && keyBranches(key) !== max) {
      throw new ParseError('tr(): Multipath internal key mismatches multipath subscripts lengths');
    }
    return { t: 'tr', key, leaves };
  } else if (Func('tr', expr)) {
    throw new ParseError('Can only have tr at top level');
  }
  if (ctx === 'top' && Func('rawtr', expr)) {
    const arg = Expr(expr);
    if (expr.size) throw new ParseError('rawtr(): only one key expected.');
    return { t: 'rawtr', key: wrapKeyError('rawtr(): ', () => parsePubkey(st, arg.text(), 'p2tr')) };
  } else if (Func('rawtr', expr)) {
    throw new ParseError('Can only have rawtr at top level');
  }
  if (ctx === 'top' && Func('raw', expr)) {
    const str = expr.text();
    if (!isHex(str)) throw new ParseError('Raw script is not hex');
    return { t: 'raw', script: fromHex(str) };
  } else if (Func('raw', expr)) {
    throw new ParseError('Can only have raw() at top level');
  }
  const ms = parseMiniscriptExpr(st, expr.text(), ctx);
  if (ms) return { t: 'ms', ms: ms.ms, keys: ms.keys, tap: ctx === 'p2tr' };
  if (ctx === 'p2sh') throw new ParseError('A function is needed within P2SH');
  if (ctx === 'p2wsh') throw new ParseError('A function is needed within P2WSH');
  throw new ParseError(`'${expr.text()}' is not a valid descriptor function`);
}

export function wrapKeyError<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParseError) throw new ParseError(prefix + e.message);
    throw e;
  }
}

export function nodeKeys(n: Node): KeyExpr[] {
  switch (n.t) {
    case 'multi':
    case 'multi_a':
    case 'ms':
      return n.keys;
    case 'tr':
      return [n.key, ...n.leaves.flatMap((l) => nodeKeys(l.node))];
    case 'sh':
    case 'wsh':
      return nodeKeys(n.sub);
    case 'addr':
    case 'raw':
      return [];
    default:
      return [n.key];
  }
}

export function checkBranches(n: Node): number {
  const counts = nodeKeys(n).map(keyBranches);
  const max = counts.length ? Math.max(...counts) : 1;
  return max;
}

export function selectBranch(n: Node, b: number): Node {
  const key = (k: KeyExpr): KeyExpr => {
    if (k.base.kind === 'musig') return { ...k, base: musigSelect(k.base, b) };
    if (k.base.kind !== 'bip32' || k.base.paths.length === 1) return k;
    return { ...k, base: { ...k.base, paths: [k.base.paths[b]!], multiAt: -1 } };
  };
  switch (n.t) {
    case 'multi':
    case 'multi_a':
    case 'ms':
      return { ...n, keys: n.keys.map(key) };
    case 'tr':
      return { ...n, key: key(n.key), leaves: n.leaves.map((l) => ({ depth: l.depth, node: selectBranch(l.node, b) })) };
    case 'sh':
    case 'wsh':
      return { ...n, sub: selectBranch(n.sub, b) };
    case 'addr':
    case 'raw':
      return n;
    default:
      return { ...n, key: key(n.key) };
  }
}

