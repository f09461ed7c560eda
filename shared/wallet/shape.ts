/**
 * The shape of a wallet descriptor: script type, threshold, and each key's origin, extended key
 * and derivation after it. Read from the normalized string shared/bitcoin/descriptor.ts prints
 * (already validated there, Core-exactly), and written back; shape ↔ text round-trips.
 *
 * The wallet shapes: pkh, sh(wpkh), wpkh, tr (key path), and multi/sortedmulti in sh, wsh and
 * sh(wsh) — what Sparrow, Specter, Caravan, Coldcard and Core's own wallets use.
 */
import { HARDENED } from './keys';
import { WalletImportError, type ScriptType } from './types';

export type Wildcard = 'none' | 'unhardened' | 'hardened';

export interface KeyShape {
  /** From the key origin [fp/path]; null without an origin. */
  fingerprint: string | null;
  originPath: number[] | null;
  /** The extended key as written (xpub/tpub), or a hex public key. */
  key: string;
  /** Steps after the key, before the wildcard. */
  suffix: number[];
  wildcard: Wildcard;
}

export interface DescriptorShape {
  scriptType: ScriptType;
  /** m of a multisig; 1 for a single key. */
  threshold: number;
  /** sortedmulti rather than multi (true for a single key). */
  sorted: boolean;
  keys: KeyShape[];
}

const WRAPPERS: [prefix: string, single: ScriptType | null, multi: ScriptType | null][] = [
  ['sh(wsh(', null, 'p2sh-p2wsh'],
  ['sh(wpkh(', 'p2sh-p2wpkh', null],
  ['pkh(', 'p2pkh', null],
  ['wpkh(', 'p2wpkh', null],
  ['tr(', 'p2tr', null],
  ['wsh(', null, 'p2wsh'],
  ['sh(', null, 'p2sh'],
];

const SUPPORTED = 'pkh(), sh(wpkh()), wpkh(), tr() with one key, and multi()/sortedmulti() inside sh(), wsh() or sh(wsh())';

function parseSteps(parts: string[]): number[] {
  return parts.map((p) => {
    const hard = p.endsWith('h') || p.endsWith("'");
    const n = Number(hard ? p.slice(0, -1) : p);
    return hard ? (n | HARDENED) >>> 0 : n;
  });
}

function parseKey(expr: string): KeyShape {
  let fingerprint: string | null = null;
  let originPath: number[] | null = null;
  let rest = expr;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    const origin = rest.slice(1, close).split('/');
    fingerprint = origin[0]!.toLowerCase();
    originPath = parseSteps(origin.slice(1));
    rest = rest.slice(close + 1);
  }
  const parts = rest.split('/');
  const key = parts.shift()!;
  let wildcard: Wildcard = 'none';
  const last = parts[parts.length - 1];
  if (last === '*') wildcard = 'unhardened';
  else if (last === '*h' || last === "*'") wildcard = 'hardened';
  if (wildcard !== 'none') parts.pop();
  return { fingerprint, originPath, key, suffix: parseSteps(parts), wildcard };
}

/** The shape of a validated descriptor string (checksum optional). Throws 'script-type' for other shapes. */
export function shapeOf(descriptor: string, field: string): DescriptorShape {
  const body = descriptor.split('#')[0]!;
  for (const [prefix, single, multi] of WRAPPERS) {
    if (!body.startsWith(prefix)) continue;
    const closing = prefix.split('(').length - 1;
    if (!body.endsWith(')'.repeat(closing))) break;
    const inner = body.slice(prefix.length, body.length - closing);
    const m = /^(multi|sortedmulti)\(([0-9]+),(.*)\)$/.exec(inner);
    if (m) {
      if (!multi) break;
      return { scriptType: multi, threshold: Number(m[2]), sorted: m[1] === 'sortedmulti', keys: m[3]!.split(',').map(parseKey) };
    }
    if (!single || inner.includes('(') || inner.includes(',')) break;
    return { scriptType: single, threshold: 1, sorted: true, keys: [parseKey(inner)] };
  }
  const fn = /^[a-z_]+\(/.exec(body)?.[0] ?? body.slice(0, 12);
  throw new WalletImportError('script-type', field, `${fn}…) is not a wallet Spyglass can watch: it supports ${SUPPORTED}.`);
}

function stepsText(steps: readonly number[]): string {
  return steps.map((s) => '/' + (s >= HARDENED ? `${s - HARDENED}h` : `${s}`)).join('');
}

/** A key expression: [fp/path]key/suffix/* (no origin when the fingerprint or path is unknown). */
export function keyText(k: KeyShape): string {
  let s = '';
  if (k.fingerprint !== null && k.originPath !== null) s += `[${k.fingerprint}${stepsText(k.originPath)}]`;
  s += k.key + stepsText(k.suffix);
  if (k.wildcard === 'unhardened') s += '/*';
  if (k.wildcard === 'hardened') s += '/*h';
  return s;
}

/** The descriptor text of a shape (no checksum); key expressions may be replaced (BSMS templates). */
export function renderShape(shape: DescriptorShape, keyExpr: (k: KeyShape, i: number) => string = keyText): string {
  const keys = shape.keys.map(keyExpr);
  const multi = `${shape.sorted ? 'sortedmulti' : 'multi'}(${shape.threshold},${keys.join(',')})`;
  switch (shape.scriptType) {
    case 'p2pkh':
      return `pkh(${keys[0]})`;
    case 'p2sh-p2wpkh':
      return `sh(wpkh(${keys[0]}))`;
    case 'p2wpkh':
      return `wpkh(${keys[0]})`;
    case 'p2tr':
      return `tr(${keys[0]})`;
    case 'p2sh':
      return `sh(${multi})`;
    case 'p2sh-p2wsh':
      return `sh(wsh(${multi}))`;
    case 'p2wsh':
      return `wsh(${multi})`;
  }
}
