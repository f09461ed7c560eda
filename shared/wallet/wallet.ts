/**
 * Turns what an import found (script type, threshold, keys with their origins and branches) into
 * a checked WalletDescription with Core-normalized receive and change descriptors. Every format
 * ends here, so the checks are the same for all: network, threshold, duplicate keys, origins that
 * contradict their keys, script types the keys cannot be.
 */
import { parseDescriptor } from '../bitcoin/descriptor';
import type { Network } from '../bitcoin/networks';
import { checkKeyNetwork, formatPath, HARDENED, resolveOrigin, scriptTypeOfPath, type ExtKey } from './keys';
import { renderShape, type DescriptorShape, type FixedShape, type KeyShape } from './shape';
import {
  isMultisig,
  SCRIPT_TYPE_NAMES,
  WalletImportError,
  type Birthday,
  type ImportFormat,
  type ScriptType,
  type WalletDescription,
  type WalletKey,
} from './types';

export interface DraftKey {
  ext: ExtKey;
  fingerprint: string | null;
  path: number[] | null;
  label?: string;
  /** Where the key came from, for errors ('extendedPublicKeys[1]', 'line 7'…). */
  field: string;
  /** Steps after the key for receive and change (default /0 and /1). */
  receive?: number[];
  change?: number[] | null;
}

export interface Draft {
  name: string;
  format: ImportFormat;
  network: Network;
  scriptType: ScriptType;
  threshold: number;
  sorted: boolean;
  keys: DraftKey[];
  /** Field of the threshold (for its errors). */
  thresholdField?: string;
  /** The number of keys the input announced (Caravan's totalSigners, Coldcard's "of N"). */
  announcedKeys?: { n: number; field: string };
  /** Fill in origins a key implies (depth 0 or 1); descriptors are kept as given instead. */
  fillOrigins?: boolean;
  birthday?: Birthday;
  warnings?: string[];
}

/** Core: at most 20 keys in multi(); P2SH redeem scripts ≤ 520 bytes, i.e. 15 compressed keys. */
const MAX_KEYS: Partial<Record<ScriptType, number>> = { p2sh: 15, 'p2sh-p2wsh': 20, p2wsh: 20 };

function ordinal(i: number): string {
  return `key ${i + 1}`;
}

function checkThreshold(d: Draft): void {
  const n = d.keys.length;
  const field = d.thresholdField ?? 'threshold';
  if (d.announcedKeys && d.announcedKeys.n !== n) {
    throw new WalletImportError('threshold', d.announcedKeys.field, `The wallet says it has ${d.announcedKeys.n} keys, but ${n} ${n === 1 ? 'is' : 'are'} listed.`);
  }
  if (!isMultisig(d.scriptType)) {
    if (n !== 1) {
      throw new WalletImportError('script-type', 'scriptType', `${SCRIPT_TYPE_NAMES[d.scriptType]} has one key; this wallet has ${n}. Choose a multisig script type.`);
    }
    return;
  }
  if (!Number.isInteger(d.threshold) || d.threshold < 1) {
    throw new WalletImportError('threshold', field, `A multisig needs at least 1 signature; this one says ${d.threshold}.`);
  }
  if (d.threshold > n) {
    throw new WalletImportError('threshold', field, `${d.threshold} of ${n}: a multisig cannot need more signatures than it has keys.`);
  }
  const max = MAX_KEYS[d.scriptType]!;
  if (n > max) {
    throw new WalletImportError('threshold', field, `${SCRIPT_TYPE_NAMES[d.scriptType]} holds at most ${max} keys; this wallet has ${n}.`);
  }
}

/** Unchained's exports write an unknown path as m/0/0/…/0 (unhardened zeros): that is no path. */
function isMaskedPath(path: number[] | null): boolean {
  return !!path && path.length > 0 && path.every((s) => s === 0);
}

function checkKeys(d: Draft, warnings: string[]): WalletKey[] {
  const seen = new Map<string, number>();
  const origins = new Map<string, number>();
  const out: WalletKey[] = [];
  d.keys.forEach((k, i) => {
    checkKeyNetwork(k.ext, d.network, k.field);
    let path = k.path;
    if (isMaskedPath(path) && k.ext.depth > 0 && k.ext.childNumber >= HARDENED) {
      warnings.push(`${ordinal(i)}: the path ${formatPath(path!)} is a placeholder for an unknown path; it was left out.`);
      path = null;
    }
    const resolved = resolveOrigin(k.ext, k.fingerprint, path, k.field);
    const keep = d.fillOrigins ? resolved : { fingerprint: k.fingerprint, path };
    const prev = seen.get(k.ext.normalized);
    if (prev !== undefined) {
      throw new WalletImportError('duplicate-key', k.field, `${ordinal(i)} is the same key as ${ordinal(prev)}: each cosigner must have its own key.`);
    }
    seen.set(k.ext.normalized, i);
    if (keep.fingerprint !== null && keep.path !== null) {
      const id = `${keep.fingerprint}${formatPath(keep.path).slice(1)}`;
      const other = origins.get(id);
      if (other !== undefined) {
        throw new WalletImportError('derivation', k.field, `${ordinal(i)} and ${ordinal(other)} both claim [${id}] but are different keys.`);
      }
      origins.set(id, i);
    } else {
      warnings.push(
        `${ordinal(i)} (${k.ext.prefix}…${k.ext.text.slice(-6)}) has no ${keep.fingerprint === null ? 'master fingerprint' : 'derivation path'}: addresses are right, but a hardware wallet may not recognize them as its own when signing.`,
      );
    }
    if (k.ext.script && k.ext.script !== d.scriptType) {
      warnings.push(`${ordinal(i)} is a ${k.ext.prefix} (${SCRIPT_TYPE_NAMES[k.ext.script]}), but the wallet is ${SCRIPT_TYPE_NAMES[d.scriptType]}.`);
    }
    const implied = keep.path ? scriptTypeOfPath(keep.path) : null;
    if (implied && implied !== d.scriptType && (d.keys.length === 1 || isMultisig(implied))) {
      warnings.push(`${ordinal(i)}'s path ${formatPath(keep.path!)} is the usual one for ${SCRIPT_TYPE_NAMES[implied]}, but the wallet is ${SCRIPT_TYPE_NAMES[d.scriptType]}.`);
    }
    out.push({
      xpub: k.ext.normalized,
      fingerprint: keep.fingerprint,
      path: keep.path === null ? null : formatPath(keep.path),
      ...(k.label !== undefined ? { label: k.label } : {}),
    });
  });
  return out;
}

function branchShape(d: Draft, keys: WalletKey[], branch: 'receive' | 'change'): FixedShape | null {
  const shapes: KeyShape[] = [];
  for (let i = 0; i < d.keys.length; i++) {
    const k = d.keys[i]!;
    const suffix = branch === 'receive' ? (k.receive ?? [0]) : k.change === undefined ? [1] : k.change;
    if (suffix === null) return null;
    const w = keys[i]!;
    shapes.push({
      fingerprint: w.fingerprint,
      originPath: w.path === null ? null : pathSteps(w.path),
      key: w.xpub,
      suffix,
      wildcard: 'unhardened',
    });
  }
  return { kind: 'fixed', scriptType: d.scriptType, threshold: isMultisig(d.scriptType) ? d.threshold : 1, sorted: d.sorted, keys: shapes };
}

function pathSteps(p: string): number[] {
  return p === 'm' ? [] : p.slice(2).split('/').map((s) => (s.endsWith('h') ? (Number(s.slice(0, -1)) | HARDENED) >>> 0 : Number(s)));
}

/** Core's normalized descriptor (with checksum) of a shape; a parse failure is an 'invalid' error. */
export function normalizedDescriptor(shape: DescriptorShape, network: Network, field: string): string {
  const text = renderShape(shape);
  try {
    return parseDescriptor(text, network).toString();
  } catch (e) {
    throw new WalletImportError('invalid', field, `Bitcoin Core would refuse this wallet's descriptor: ${(e as Error).message}`);
  }
}

/** Checks a draft and writes its descriptors. */
export function finishWallet(d: Draft): WalletDescription {
  const warnings = [...(d.warnings ?? [])];
  if (d.keys.length === 0) throw new WalletImportError('invalid', 'keys', 'The wallet lists no keys.');
  checkThreshold(d);
  const keys = checkKeys(d, warnings);
  const ext = branchShape(d, keys, 'receive')!;
  const int = branchShape(d, keys, 'change');
  const wallet: WalletDescription = {
    name: d.name,
    network: d.network.chain,
    scriptType: d.scriptType,
    threshold: ext.threshold,
    sorted: d.sorted,
    keys,
    external: normalizedDescriptor(ext, d.network, 'external'),
    internal: int ? normalizedDescriptor(int, d.network, 'internal') : null,
    format: d.format,
    warnings,
  };
  if (d.birthday) wallet.birthday = d.birthday;
  return wallet;
}
