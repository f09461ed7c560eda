/**
 * Coldcard's generic single-sig JSON export (Advanced/Tools > Export Wallet > Generic JSON), and
 * its multisig key export (one cosigner's key, refused) — as Coldcard documents and writes them:
 * Coldcard/firmware docs/generic-wallet-export.md and shared/export.py (generate_generic_export,
 * generate_public_contents / the "ccxp-XFP.json" multisig file):
 *
 *   { "chain": "BTC" | "XTN" | "XRT", "xfp": "0F056943", "account": 0, "xpub": <master xpub>,
 *     "bip44": { "deriv": "m/44h/0h/0h", "xpub": …, "desc": …, "first": <address /0/0> },
 *     "bip49": {…}, "bip84": {…}, "bip86": {…},  "bip48_1": {…}, "bip48_2": {…}, "bip45": {…} }
 *
 * The master xfp is the origin of every section ("xfp" inside a section is that key's own
 * fingerprint, not the master's). Single-sig sections are accounts: receive /0/*, change /1/*.
 * "first" is the account's /0/0 address and must be the one derived here. The bip48/bip45
 * sections are this device's multisig cosigner keys and are not a wallet by themselves.
 */
import type { Network } from '../../bitcoin/networks';
import { decodeExtKey, parseFingerprint, parsePath } from '../keys';
import type { JsonObject } from '../json-input';
import { finishWallet } from '../wallet';
import { WalletAddresses } from '../derive';
import { SCRIPT_TYPE_NAMES, WalletImportError, type ScriptType, type WalletDescription } from '../types';

const SECTIONS: [section: string, scriptType: ScriptType][] = [
  ['bip84', 'p2wpkh'],
  ['bip86', 'p2tr'],
  ['bip49', 'p2sh-p2wpkh'],
  ['bip44', 'p2pkh'],
];

/** The keys of Coldcard's multisig key export (ccxp-XFP.json; older firmware wrote p2wsh_p2sh). */
const MULTISIG_KEYS = ['p2sh', 'p2wsh', 'p2sh_p2wsh', 'p2wsh_p2sh'];

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Coldcard's generic export: an xfp and at least one bip44/49/84/86 section. */
export function looksLikeColdcardGeneric(o: unknown): boolean {
  return isObject(o) && typeof o['xfp'] === 'string' && SECTIONS.some(([s]) => isObject(o[s]));
}

/** Coldcard's multisig key export: an xfp and p2sh/p2wsh… keys, no single-sig section. */
export function looksLikeColdcardMultisigKey(o: unknown): boolean {
  return isObject(o) && typeof o['xfp'] === 'string' && MULTISIG_KEYS.some((k) => typeof o[k] === 'string') && !looksLikeColdcardGeneric(o);
}

export function refuseColdcardMultisigKey(o: JsonObject): never {
  throw new WalletImportError(
    'cosigner-key',
    'file',
    `This is one Coldcard's multisig key export (fingerprint ${String(o['xfp'])}): one cosigner's keys for setting up a multisig, not a wallet. Import the wallet's setup file (the Coldcard multisig file, a BSMS record or the descriptors) that the coordinator made from every cosigner's key.`,
  );
}

export function importColdcardGeneric(o: JsonObject, network: Network, opts: { scriptType?: ScriptType } = {}): WalletDescription {
  const present = SECTIONS.filter(([s]) => isObject(o[s]));
  let chosen = present[0]!;
  if (opts.scriptType) {
    const hit = present.find(([, t]) => t === opts.scriptType);
    if (!hit) {
      throw new WalletImportError(
        'script-type',
        'scriptType',
        `This Coldcard export has no ${SCRIPT_TYPE_NAMES[opts.scriptType]} account; it has ${present.map(([s, t]) => `${SCRIPT_TYPE_NAMES[t]} (${s})`).join(', ')}.`,
      );
    }
    chosen = hit;
  }
  const [section, scriptType] = chosen;
  const s = o[section] as JsonObject;
  const field = section;
  const master = parseFingerprint(String(o['xfp']), 'xfp');
  if (typeof s['xpub'] !== 'string') throw new WalletImportError('invalid', `${field}.xpub`, `${field}.xpub is missing.`);
  const ext = decodeExtKey(s['xpub'].trim());
  if (!ext) throw new WalletImportError('invalid', `${field}.xpub`, `${field}.xpub is not an extended public key.`);
  if (typeof s['deriv'] !== 'string') throw new WalletImportError('invalid', `${field}.deriv`, `${field}.deriv is missing.`);
  const path = parsePath(s['deriv'], `${field}.deriv`);
  const warnings: string[] = [];
  const others = present.filter((p) => p !== chosen);
  if (others.length) {
    warnings.push(
      `The file has ${present.length} single-signature accounts; this is the ${SCRIPT_TYPE_NAMES[scriptType]} one (${section}). To watch ${others.map(([sec, t]) => `${SCRIPT_TYPE_NAMES[t]} (${sec})`).join(' or ')} instead, choose that script type.`,
    );
  }
  const wallet = finishWallet({
    name: '',
    format: 'coldcard-generic',
    network,
    scriptType,
    threshold: 1,
    sorted: true,
    keys: [{ ext, fingerprint: master, path, field: `${field}.xpub` }],
    fillOrigins: true,
    warnings,
  });
  const first = s['first'];
  if (typeof first === 'string') {
    const ours = WalletAddresses.of(wallet).address('receive', 0);
    if (first !== ours) {
      throw new WalletImportError('address-mismatch', `${field}.first`, `The file's first address ${first} is not the one its key gives (${ours}): the file was altered or is not what it says. Do not use it.`);
    }
  }
  return wallet;
}
