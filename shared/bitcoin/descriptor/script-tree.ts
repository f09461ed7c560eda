/**
 * The descriptor parts added for issue #32 (Core src/script/descriptor.cpp): multi_a/sortedmulti_a
 * (MultiADescriptor), miniscript in wsh() and tr() leaves (MiniscriptDescriptor with its sanity
 * errors), tr() script trees (TRDescriptor: brace parsing, depths, string form) and the taproot
 * output (TaprootBuilder: leaf hashes, branch hashes, the TapTweak of the internal key).
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { taprootTweakPubkey } from '@scure/btc-signer/utils.js';
import { parseMiniscript } from '../miniscript/parse';
import { MAX_PUBKEYS_PER_MULTI_A, type MsNode } from '../miniscript/node';
import { toText } from '../miniscript/script';
import { toHex } from '../hex';
import { deriveKey, keyBranches, keyPublicString, parsePubkey, type Ctx, type KeyExpr, type ParseState } from './keys';
import { compareBytes, Const, Expr, ParseError, Span } from './helpers';

export const TAPROOT_CONTROL_MAX_NODE_COUNT = 128;
export const TAPROOT_LEAF_TAPSCRIPT = 0xc0;

/** Core ParseScript's multi_a/sortedmulti_a branch, after the function name is consumed. */
export function parseMultiA(st: ParseState, expr: Span, ctx: Ctx): { k: number; keys: KeyExpr[] } {
  const threshold = Expr(expr).text();
  if (!/^[0-9]+$/.test(threshold) || Number(threshold) > 0xffffffff) {
    throw new ParseError(`Multi threshold '${threshold}' is not valid`);
  }
  const thres = Number(threshold);
  const keys: KeyExpr[] = [];
  while (expr.size) {
    if (!Const(',', expr)) throw new ParseError(`Multi: expected ',', got '${expr.at(0)}'`);
    const arg = Expr(expr);
    try {
      keys.push(parsePubkey(st, arg.text(), ctx));
    } catch (e) {
      if (e instanceof ParseError) throw new ParseError('Multi: ' + e.message);
      throw e;
    }
  }
  if (keys.length === 0 || keys.length > MAX_PUBKEYS_PER_MULTI_A) {
    throw new ParseError(`Cannot have ${keys.length} keys in multi_a; must have between 1 and ${MAX_PUBKEYS_PER_MULTI_A} keys, inclusive`);
  } else if (thres < 1) {
    throw new ParseError(`Multisig threshold cannot be ${thres}, must be at least 1`);
  } else if (thres > keys.length) {
    throw new ParseError(`Multisig threshold cannot be larger than the number of keys; threshold is ${thres} but only ${keys.length} keys specified`);
  }
  checkSameBranches(keys, 'multi(): Multipath derivation paths have mismatched lengths');
  return { k: thres, keys };
}

function checkSameBranches(keys: KeyExpr[], message: string): number {
  const n = keys.length ? Math.max(...keys.map(keyBranches)) : 1;
  if (keys.some((k) => keyBranches(k) !== 1 && keyBranches(k) !== n)) throw new ParseError(message);
  return n;
}

/** A key's identity for Core's duplicate-key check (KeyCompare): its first derived key, else its text. */
function keyIdentity(k: KeyExpr): string {
  try {
    return 'pub:' + toHex(deriveKey(k, 0, 0).pubkey);
  } catch {
    return 'str:' + keyPublicString(k, 0);
  }
}

/**
 * Core's miniscript fallback in ParseScript: returns null when the text is not miniscript (the
 * caller then reports "A function is needed within P2WSH" or "'…' is not a valid descriptor
 * function"), throws Core's error for a key error, a wrong context or an insane miniscript.
 */
export function parseMiniscriptExpr(st: ParseState, text: string, ctx: Ctx): { ms: MsNode; keys: KeyExpr[] } | null {
  const msCtx = ctx === 'p2wsh' ? 'p2wsh' : 'tapscript';
  const keys: KeyExpr[] = [];
  const parseKey = (keyText: string): number => {
    keys.push(parsePubkey(st, keyText, ctx === 'p2wsh' ? 'p2wsh' : 'p2tr'));
    return keys.length - 1;
  };
  // Core 30 ended the key of pk()/pkh()/pk_k()/pk_h() at the first ')' (so musig() keys fail there)
  const node = parseMiniscript(text, msCtx, parseKey, { keyEndsAtParen: st.coreVersion === 30 });
  if (!node) return null;
  if (ctx !== 'p2wsh' && ctx !== 'p2tr') throw new ParseError('Miniscript expressions can only be used in wsh or tr.');
  node.checkDuplicateKeys((i) => keyIdentity(keys[i]!));
  if (!node.isSane() || node.isNotSatisfiable()) {
    const insane = node.findInsaneSub() ?? node;
    let error = toText(insane, (i) => keyPublicString(keys[i]!, 0));
    if (!insane.isValid()) {
      error += ' is invalid';
    } else if (!node.isSane()) {
      error += ' is not sane';
      if (!insane.isNonMalleable()) error += ': malleable witnesses exist';
      else if (insane === node && !insane.needsSignature()) error += ': witnesses without signature exist';
      else if (!insane.checkTimeLocksMix()) error += ': contains mixes of timelocks expressed in blocks and seconds';
      else if (!insane.checkDuplicateKey()) error += ': contains duplicate public keys';
      else if (!insane.validSatisfactions()) error += ': needs witnesses that may exceed resource limits';
    } else {
      error += ' is not satisfiable';
    }
    throw new ParseError(error);
  }
  checkSameBranches(keys, 'Miniscript: Multipath derivation paths have mismatched lengths');
  return { ms: node, keys };
}

/**
 * Core's tr() script tree parsing (after the internal key and its ','): leaves with their depths.
 * `parseLeaf` parses one leaf script expression in P2TR context.
 */
export function parseTapTree<N>(expr: Span, parseLeaf: (sp: Span) => N): { depth: number; node: N }[] {
  const leaves: { depth: number; node: N }[] = [];
  const branches: boolean[] = [];
  do {
    while (Const('{', expr)) {
      branches.push(false);
      if (branches.length > TAPROOT_CONTROL_MAX_NODE_COUNT) {
        throw new ParseError(`tr() supports at most ${TAPROOT_CONTROL_MAX_NODE_COUNT} nesting levels`);
      }
    }
    const sarg = Expr(expr);
    leaves.push({ depth: branches.length, node: parseLeaf(sarg) });
    while (branches.length && branches[branches.length - 1]) {
      if (!Const('}', expr)) throw new ParseError("tr(): expected '}' after script expression");
      branches.pop();
    }
    if (branches.length && !branches[branches.length - 1]) {
      if (!Const(',', expr)) throw new ParseError("tr(): expected ',' after script expression");
      branches[branches.length - 1] = true;
    }
  } while (branches.length);
  if (expr.size) throw new ParseError("tr(): expected ')' after script expression");
  return leaves;
}

/** TRDescriptor::ToStringSubScriptHelper: the braces of a tree from its leaves' depths. */
export function tapTreeString(depths: number[], leaf: (i: number) => string): string {
  let ret = '';
  const path: boolean[] = [];
  for (let pos = 0; pos < depths.length; pos++) {
    if (pos) ret += ',';
    while (path.length <= depths[pos]!) {
      if (path.length) ret += '{';
      path.push(false);
    }
    ret += leaf(pos);
    while (path.length && path[path.length - 1]) {
      if (path.length > 1) ret += '}';
      path.pop();
    }
    if (path.length) path[path.length - 1] = true;
  }
  return ret;
}

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
}

/** BIP341 tapleaf hash of a script (leaf version 0xc0). */
export function tapLeafHash(script: Uint8Array, leafVersion = TAPROOT_LEAF_TAPSCRIPT): Uint8Array {
  return schnorr.utils.taggedHash('TapLeaf', Uint8Array.of(leafVersion), compactSize(script.length), script);
}

/** BIP341 branch hash of two nodes (in byte order). */
export function tapBranch(a: Uint8Array, b: Uint8Array): Uint8Array {
  const [x, y] = compareBytes(a, b) < 0 ? [a, b] : [b, a];
  return schnorr.utils.taggedHash('TapBranch', x, y);
}

export interface TapLeafInfo {
  script: Uint8Array;
  leafVersion: number;
  depth: number;
  leafHash: Uint8Array;
  /** Merkle path (sibling hashes from the leaf up), as in the control block. */
  path: Uint8Array[];
}

/**
 * Core TaprootBuilder (Add in depth-first order, then Finalize): the merkle root and each leaf's
 * path. Depths come from parsing and are always a valid tree.
 */
export function tapTree(leaves: { script: Uint8Array; depth: number }[]): { root: Uint8Array | null; leaves: TapLeafInfo[] } {
  type Info = { hash: Uint8Array; leaves: number[] };
  const infos: TapLeafInfo[] = [];
  const branch: (Info | null)[] = [];
  for (const { script, depth: d0 } of leaves) {
    const leafHash = tapLeafHash(script);
    infos.push({ script, leafVersion: TAPROOT_LEAF_TAPSCRIPT, depth: d0, leafHash, path: [] });
    let node: Info = { hash: leafHash, leaves: [infos.length - 1] };
    let depth = d0;
    while (branch.length > depth && branch[depth]) {
      const other = branch[depth]!;
      for (const i of node.leaves) infos[i]!.path.push(other.hash);
      for (const i of other.leaves) infos[i]!.path.push(node.hash);
      node = { hash: tapBranch(other.hash, node.hash), leaves: [...other.leaves, ...node.leaves] };
      branch.pop();
      depth--;
    }
    while (branch.length <= depth) branch.push(null);
    branch[depth] = node;
  }
  return { root: branch[0]?.hash ?? null, leaves: infos };
}

/** The taproot output key and parity for an x-only internal key and a merkle root (or none). */
export function tapOutputKey(internal: Uint8Array, root: Uint8Array | null): { key: Uint8Array; parity: number } {
  const [key, parity] = taprootTweakPubkey(internal, root ?? new Uint8Array(0));
  return { key, parity };
}
