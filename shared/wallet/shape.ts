/**
 * The shape of a wallet descriptor: script type, threshold, and each key's origin, extended key
 * and derivation after it. Read from the normalized string shared/bitcoin/descriptor.ts prints
 * (already validated there, Core-exactly), and written back; shape ↔ text round-trips.
 *
 * Two kinds of shape. 'fixed': pkh, sh(wpkh), wpkh, tr (key path), and multi/sortedmulti in sh, wsh
 * and sh(wsh) — what Sparrow, Specter, Caravan, Coldcard and Core's own wallets use — read into
 * script type, threshold and keys. 'policy': anything else Core's importdescriptors takes as a
 * wallet in wsh(), sh(wsh()) or tr() — miniscript, multi_a/sortedmulti_a, taproot script trees
 * (Liana's wallets, issue #32) — kept as the normalized text itself, its extended keys lifted out
 * as `@0`, `@1`… so that derivation steps and origins can be read and rewritten (receive ↔ change,
 * BIP389 multipath, BSMS templates) the same way as a multisig's. The text is validated by Core's
 * parser (shared/bitcoin/descriptor) before it gets here; derivation of a policy shape goes
 * through that parser too.
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

export interface FixedShape {
  kind: 'fixed';
  scriptType: ScriptType;
  /** m of a multisig; 1 for a single key. */
  threshold: number;
  /** sortedmulti rather than multi (true for a single key). */
  sorted: boolean;
  keys: KeyShape[];
}

/** The script types a policy wallet can have: Core reads miniscript in wsh() (also inside sh()) and in tr() leaves. */
export type PolicyScriptType = 'p2wsh' | 'p2sh-p2wsh' | 'p2tr';

export interface PolicyShape {
  kind: 'policy';
  scriptType: PolicyScriptType;
  /** The normalized descriptor (no checksum) with each extended key expression written `@i`. */
  template: string;
  /** The extended keys, in order of appearance (a key used twice appears twice). */
  keys: KeyShape[];
}

export type DescriptorShape = FixedShape | PolicyShape;

const WRAPPERS: [prefix: string, single: ScriptType | null, multi: ScriptType | null][] = [
  ['sh(wsh(', null, 'p2sh-p2wsh'],
  ['sh(wpkh(', 'p2sh-p2wpkh', null],
  ['pkh(', 'p2pkh', null],
  ['wpkh(', 'p2wpkh', null],
  ['tr(', 'p2tr', null],
  ['wsh(', null, 'p2wsh'],
  ['sh(', null, 'p2sh'],
];

const SUPPORTED =
  'pkh(), sh(wpkh()), wpkh(), tr() with one key, multi()/sortedmulti() inside sh(), wsh() or sh(wsh()), and miniscript in wsh(), sh(wsh()) or tr() script trees';

const POLICY_WRAPPERS: [prefix: string, type: PolicyScriptType][] = [
  ['sh(wsh(', 'p2sh-p2wsh'],
  ['wsh(', 'p2wsh'],
  ['tr(', 'p2tr'],
];

/** An extended key expression in normalized text: [fp/path]xpub/steps(/*). */
const EXT_KEY = /(?:\[[0-9a-f]{8}(?:\/[0-9]+h?)*\])?[xt]pub[1-9A-HJ-NP-Za-km-z]{100,112}(?:\/[0-9]+h?)*(?:\/\*h?)?/g;

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
      return { kind: 'fixed', scriptType: multi, threshold: Number(m[2]), sorted: m[1] === 'sortedmulti', keys: m[3]!.split(',').map(parseKey) };
    }
    if (!single || inner.includes('(') || inner.includes(',')) break;
    return { kind: 'fixed', scriptType: single, threshold: 1, sorted: true, keys: [parseKey(inner)] };
  }
  for (const [prefix, scriptType] of POLICY_WRAPPERS) {
    if (!body.startsWith(prefix)) continue;
    const keys: KeyShape[] = [];
    const template = body.replace(EXT_KEY, (k) => `@${keys.push(parseKey(k)) - 1}`);
    return { kind: 'policy', scriptType, template, keys };
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
  if (shape.kind === 'policy') return shape.template.replace(/@([0-9]+)/g, (_, i: string) => keys[Number(i)]!);
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
