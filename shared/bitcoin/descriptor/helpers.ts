/**
 * Descriptor helpers: byte utilities, HD path printing and Core's span parsing (script/parsing.cpp:
 * Const, Func, Expr). Split out of shared/bitcoin/descriptor.ts.
 */
import { concatBytes as concat, hash160 } from '../psbt/edit';
import { secp256k1 } from '@noble/curves/secp256k1.js';

export const HARDENED = 0x80000000;
export const MAX_PUBKEYS_PER_MULTISIG = 20;
export const MAX_SCRIPT_ELEMENT_SIZE = 520;

// Small helpers
// ---------------------------------------------------------------------------------------------

// The byte helpers of the PSBT code, one copy for both.
export { concat, hash160 };

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Core FormatHDKeypath (leading '/' per step). */
export function formatPath(path: readonly number[], apostrophe: boolean): string {
  let s = '';
  for (const step of path) {
    s += '/' + String(step & 0x7fffffff);
    if (step >>> 31) s += apostrophe ? "'" : 'h';
  }
  return s;
}

/** Core WriteHDKeypath: 'm' + FormatHDKeypath. */
export function writeHDKeypath(path: readonly number[], apostrophe = false): string {
  return 'm' + formatPath(path, apostrophe);
}

export function isSpaceChar(c: string): boolean {
  return c === ' ' || c === '\f' || c === '\n' || c === '\r' || c === '\t' || c === '\v';
}

/** CPubKey::IsFullyValid. */
export function isFullyValidPubkey(pk: Uint8Array): boolean {
  try {
    secp256k1.Point.fromBytes(pk);
    return true;
  } catch {
    return false;
  }
}

/** CPubKey size from its header byte (0 = invalid). */
export function pubKeyLen(header: number | undefined): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

export function pushData(data: Uint8Array): Uint8Array {
  // keys and hashes only: always < 76 bytes
  return concat(Uint8Array.of(data.length), data);
}

// ---------------------------------------------------------------------------------------------
// Span-like parsing helpers (script/parsing.cpp: Const, Func, Expr)
// ---------------------------------------------------------------------------------------------

export class Span {
  constructor(
    public s: string,
    public pos = 0,
    public end = s.length,
  ) {}
  get size(): number {
    return this.end - this.pos;
  }
  text(): string {
    return this.s.slice(this.pos, this.end);
  }
  at(i: number): string {
    return this.s[this.pos + i] ?? '';
  }
}

export function Const(str: string, sp: Span, skip = true): boolean {
  if (sp.size >= str.length && sp.s.startsWith(str, sp.pos)) {
    if (skip) sp.pos += str.length;
    return true;
  }
  return false;
}

export function Func(str: string, sp: Span): boolean {
  if (sp.size >= str.length + 2 && sp.at(str.length) === '(' && sp.at(sp.size - 1) === ')' && sp.s.startsWith(str, sp.pos)) {
    sp.pos += str.length + 1;
    sp.end -= 1;
    return true;
  }
  return false;
}

export function Expr(sp: Span): Span {
  let level = 0;
  let it = sp.pos;
  while (it < sp.end) {
    const c = sp.s[it];
    if (c === '(' || c === '{') ++level;
    else if (level && (c === ')' || c === '}')) --level;
    else if (level === 0 && (c === ')' || c === '}' || c === ',')) break;
    ++it;
  }
  const ret = new Span(sp.s, sp.pos, it);
  sp.pos = it;
  return ret;
}


export class ParseError extends Error {}
