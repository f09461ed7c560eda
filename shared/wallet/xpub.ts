/**
 * A single-key wallet from an extended public key, with the optional master fingerprint and
 * derivation path fields of the import form. Also takes a key expression '[fp/path]xpub' (what
 * HWI, Sparrow and Core print) in the key field.
 *
 * Script type: the one chosen, else the one the key's SLIP-132 prefix names (ypub/upub nested
 * SegWit, zpub/vpub native SegWit), else the one its BIP44/49/84/86 path names, else legacy
 * P2PKH (SLIP-132's reading of xpub/tpub) with a warning to check the first address.
 */
import type { Network } from '../bitcoin/networks';
import { decodeExtKey, formatPath, parseFingerprint, parsePath, refuseSecrets, resolveOrigin, scriptTypeOfPath, type ExtKey } from './keys';
import { finishWallet } from './wallet';
import { isMultisig, SCRIPT_TYPE_NAMES, SCRIPT_TYPES, WalletImportError, type ScriptType, type WalletDescription } from './types';

export interface ExtendedKeyInput {
  /** xpub/ypub/zpub/tpub/upub/vpub…, or '[fingerprint/path]xpub'. */
  xpub: string;
  fingerprint?: string;
  path?: string;
  /** Overrides what the prefix or path implies. */
  scriptType?: ScriptType;
  name?: string;
}

/** How the script type was chosen (the form shows it as editable). */
export type ScriptTypeSource = 'given' | 'prefix' | 'path' | 'assumed';

/** Reads a key field: a bare key or a key expression with origin. */
export function parseKeyField(text: string, field: string): { ext: ExtKey; fingerprint?: string; path?: number[] } {
  const s = text.trim();
  refuseSecrets(s, field);
  let keyText = s;
  let fingerprint: string | undefined;
  let path: number[] | undefined;
  const m = /^\[([^\]]*)\](.*)$/.exec(s);
  if (m) {
    const [fp, ...steps] = m[1]!.split('/');
    fingerprint = parseFingerprint(fp!, field);
    path = parsePath(steps.join('/'), field);
    keyText = m[2]!;
  }
  const ext = decodeExtKey(keyText);
  if (!ext) {
    throw new WalletImportError(
      'invalid',
      field,
      /^[xyzYZtuvUV]pub/.test(keyText)
        ? `'${keyText.slice(0, 12)}…' is not a valid extended public key (a character is wrong or missing).`
        : `'${keyText.slice(0, 12)}…' is not an extended public key (xpub, ypub, zpub, tpub, upub, vpub…).`,
    );
  }
  return { ext, ...(fingerprint !== undefined ? { fingerprint } : {}), ...(path ? { path } : {}) };
}

/** The script type the import form pre-selects, and why. */
export function inferScriptType(ext: ExtKey, path: number[] | null): { scriptType: ScriptType; source: ScriptTypeSource } {
  if (ext.script) return { scriptType: ext.script, source: 'prefix' };
  const byPath = path ? scriptTypeOfPath(path) : null;
  if (byPath && !isMultisig(byPath)) return { scriptType: byPath, source: 'path' };
  return { scriptType: 'p2pkh', source: 'assumed' };
}

export function importExtendedKey(input: ExtendedKeyInput, network: Network): WalletDescription & { scriptTypeSource: ScriptTypeSource } {
  const parsed = parseKeyField(input.xpub, 'xpub');
  let fingerprint = parsed.fingerprint ?? null;
  let path = parsed.path ?? null;
  const fpField = input.fingerprint?.trim() ? 'fingerprint' : 'xpub';
  const pathField = input.path?.trim() ? 'path' : 'xpub';
  if (input.fingerprint?.trim()) {
    const fp = parseFingerprint(input.fingerprint, 'fingerprint');
    if (fingerprint && fp !== fingerprint) {
      throw new WalletImportError('derivation', 'fingerprint', `The fingerprint field (${fp}) differs from the key's origin (${fingerprint}).`);
    }
    fingerprint = fp;
  }
  if (input.path?.trim()) {
    const p = parsePath(input.path, 'path');
    if (path && p.join('/') !== path.join('/')) {
      throw new WalletImportError('derivation', 'path', `The derivation path field (${input.path.trim()}) differs from the key's origin.`);
    }
    path = p;
  }
  const ext = parsed.ext;
  // contradictions are reported on the field that holds the wrong value
  resolveOrigin(ext, null, path, pathField);
  resolveOrigin(ext, fingerprint, null, fpField);
  const warnings: string[] = [];
  let scriptType: ScriptType;
  let source: ScriptTypeSource;
  if (input.scriptType) {
    if (!SCRIPT_TYPES.includes(input.scriptType)) {
      throw new WalletImportError('script-type', 'scriptType', `Unknown script type '${String(input.scriptType)}' (known: ${SCRIPT_TYPES.join(', ')}).`);
    }
    scriptType = input.scriptType;
    source = 'given';
  } else {
    if (ext.multisig) {
      throw new WalletImportError(
        'script-type',
        'xpub',
        `A ${ext.prefix} is one cosigner's key of a ${SCRIPT_TYPE_NAMES[ext.script!]} wallet, not a wallet by itself: import the multisig wallet's file or descriptor instead.`,
      );
    }
    const byPath = path ? scriptTypeOfPath(path) : null;
    if (byPath && isMultisig(byPath)) {
      throw new WalletImportError(
        'cosigner-key',
        pathField,
        `This key's path ${formatPath(path!)} is a multisig cosigner's (BIP48/BIP45): one cosigner's key, not a wallet by itself. Import the multisig wallet's file or descriptor instead, or choose a script type if this key really is a single-key wallet.`,
      );
    }
    ({ scriptType, source } = inferScriptType(ext, path));
    if (source === 'assumed') {
      warnings.push(
        `An ${ext.prefix} does not say which addresses it makes: assumed ${SCRIPT_TYPE_NAMES.p2pkh}, as SLIP-132 reads it. Many wallets use ${ext.prefix}s for SegWit or Taproot accounts too: if the first address is not your wallet's, choose the script type.`,
      );
    }
  }
  if (isMultisig(scriptType)) {
    throw new WalletImportError('script-type', 'scriptType', `${SCRIPT_TYPE_NAMES[scriptType]} needs all cosigners' keys: import the multisig wallet's file or descriptor instead.`);
  }
  const wallet = finishWallet({
    name: input.name?.trim() || `${ext.prefix} …${ext.normalized.slice(-8)}`,
    format: 'xpub',
    network,
    scriptType,
    threshold: 1,
    sorted: true,
    keys: [{ ext, fingerprint, path, field: 'xpub' }],
    fillOrigins: true,
    warnings,
  });
  return { ...wallet, scriptTypeSource: source };
}
