/**
 * Coldcard's multisig setup file (also written by Sparrow, Caravan/Unchained, BlueWallet, Nunchuk
 * and Keystone), read as Coldcard's firmware reads it (shared/multisig.py, from_file):
 *
 *   # Coldcard Multisig setup file (…)
 *   Name: My vault
 *   Policy: 2 of 3                  ← "2 of 3", "2/3", "2,3"…; absent: N of N
 *   Derivation: m/48'/0'/0'/2'      ← applies to the keys that follow (may change between keys)
 *   Format: P2WSH                   ← P2SH (the default), P2WSH, P2SH-P2WSH (alias P2WSH-P2SH)
 *
 *   0F056943: xpub6E…               ← master fingerprint: key (xpub, Zpub, tpub…)
 *
 * Labels are case-insensitive; '#' starts a comment. Addresses are BIP67-sorted multisig at
 * /0/i (receive) and /1/i (change) below each key.
 */
import type { Network } from '../bitcoin/networks';
import { parseFingerprint, parsePath } from './keys';
import { finishWallet, type DraftKey } from './wallet';
import { parseKeyField } from './xpub';
import { WalletImportError, type ScriptType, type WalletDescription } from './types';

const FORMATS: Record<string, ScriptType> = {
  p2sh: 'p2sh',
  p2wsh: 'p2wsh',
  'p2sh-p2wsh': 'p2sh-p2wsh',
  'p2wsh-p2sh': 'p2sh-p2wsh',
};

const LABEL = /^\s*([A-Za-z0-9]+)\s*:\s*(.*?)\s*$/;

function stripComment(line: string): string {
  const at = line.indexOf('#');
  return at === -1 ? line : line.slice(0, at);
}

/** A Coldcard-style setup file? (a Policy, Format or Derivation line and an 'XFP: key' line) */
export function looksLikeColdcard(text: string): boolean {
  let header = false;
  let key = false;
  for (const raw of text.split(/\r?\n/)) {
    const m = LABEL.exec(stripComment(raw));
    if (!m) continue;
    const label = m[1]!.toLowerCase();
    if (label === 'policy' || label === 'format' || label === 'derivation') header = true;
    if (/^[0-9a-fA-F]{8}$/.test(m[1]!) && /^[a-zA-Z]pub/.test(m[2]!)) key = true;
  }
  return header && key;
}

export function importColdcard(text: string, network: Network): WalletDescription {
  let name = '';
  let m = -1;
  let n = -1;
  let policyField = 'Policy';
  let scriptType: ScriptType = 'p2sh';
  let sawFormat = false;
  let derivation: number[] | null = null;
  const keys: DraftKey[] = [];
  const warnings: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const field = `line ${i + 1}`;
    const ln = stripComment(raw).trim();
    if (!ln) return;
    const lm = LABEL.exec(ln);
    if (!lm) {
      if (/^\S*[a-zA-Z]pub\S+$/.test(ln)) {
        // Coldcard also takes a bare key; its fingerprint is then unknown (or implied at depth 1)
        const parsed = parseKeyField(ln, field);
        keys.push({ ext: parsed.ext, fingerprint: parsed.fingerprint ?? null, path: parsed.path ?? derivation, field });
      } else {
        warnings.push(`Line ${i + 1} was ignored: it is not 'Label: value'.`);
      }
      return;
    }
    const label = lm[1]!.toLowerCase();
    const value = lm[2]!;
    if (label === 'name') {
      name = value;
    } else if (label === 'policy') {
      const pm = /^(\d+)\D+(\d+)$/.exec(value);
      if (!pm) throw new WalletImportError('threshold', field, `'${value}' is not a policy like "2 of 3".`);
      m = Number(pm[1]);
      n = Number(pm[2]);
      policyField = field;
    } else if (label === 'derivation') {
      derivation = parsePath(value, field);
    } else if (label === 'format') {
      const t = FORMATS[value.toLowerCase()];
      if (!t) throw new WalletImportError('script-type', field, `Unknown format '${value}' (Coldcard's are P2SH, P2WSH and P2SH-P2WSH).`);
      scriptType = t;
      sawFormat = true;
    } else if (/^[0-9a-f]{8}$/.test(label)) {
      const parsed = parseKeyField(value, field);
      keys.push({ ext: parsed.ext, fingerprint: parseFingerprint(label, field), path: parsed.path ?? derivation, field });
    } else {
      warnings.push(`Line ${i + 1} ('${lm[1]}:') was ignored: Coldcard files have Name, Policy, Derivation, Format and 'fingerprint: key' lines.`);
    }
  });
  if (keys.length === 0) throw new WalletImportError('invalid', 'file', 'The file lists no keys (lines like "0F056943: xpub…").');
  if (m === -1) m = n = keys.length;
  if (!sawFormat) warnings.push('The file has no Format line: P2SH (legacy multisig) assumed, as Coldcard does.');
  return finishWallet({
    name, // '': importWallet names it
    format: 'coldcard',
    network,
    scriptType,
    threshold: m,
    thresholdField: policyField,
    announcedKeys: { n, field: policyField },
    sorted: true,
    keys,
    fillOrigins: true,
    warnings,
  });
}
