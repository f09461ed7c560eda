/**
 * Electrum's wallet file (the unencrypted JSON Electrum keeps in ~/.electrum/wallets), read as
 * Electrum reads it — spesmilo/electrum: electrum/wallet_db.py (the storage format since
 * seed_version 13, Electrum 2.7; _convert_version_20 turns Coldcard's "ckcc_xfp" into
 * root_fingerprint, little-endian), electrum/keystore.py and electrum/bip32.py (xpub_type),
 * electrum/storage.py (an encrypted file is base64 of "BIE1"/"BIE2"…):
 *
 *   { "wallet_type": "standard", "keystore": { "type": "hardware" | "bip32", "xpub": "zpub…",
 *     "derivation": "m/84'/0'/0'", "root_fingerprint": "5436d724" | "ckcc_xfp": 1130956047 }, … }
 *   { "wallet_type": "2of3", "x1/": { keystore }, "x2/": { keystore }, "x3/": { keystore }, … }
 *
 * The script type is the xpub's SLIP-132 version (Electrum's xtype): xpub/tpub → P2PKH (multisig
 * P2SH), ypub/upub → P2SH-P2WPKH, zpub/vpub → P2WPKH, Ypub/Upub → P2SH-P2WSH, Zpub/Vpub → P2WSH.
 * Addresses are /0/i (receive) and /1/i (change) below each keystore's xpub; multisig keys are
 * sorted (BIP67, Electrum's sortedmulti). The file's own "addresses" lists, when present, must
 * start with the addresses derived here. A file holding a seed or a private key is refused.
 */
import type { Network } from '../../bitcoin/networks';
import { decodeExtKey, parseFingerprint, parsePath } from '../keys';
import type { JsonObject } from '../json-input';
import { finishWallet, type DraftKey } from '../wallet';
import { WalletAddresses } from '../derive';
import { isMultisig, WalletImportError, type ScriptType, type WalletDescription } from '../types';

const SINGLE: Record<string, ScriptType> = { xpub: 'p2pkh', tpub: 'p2pkh', ypub: 'p2sh-p2wpkh', upub: 'p2sh-p2wpkh', zpub: 'p2wpkh', vpub: 'p2wpkh' };
const MULTI: Record<string, ScriptType> = { xpub: 'p2sh', tpub: 'p2sh', Ypub: 'p2sh-p2wsh', Upub: 'p2sh-p2wsh', Zpub: 'p2wsh', Vpub: 'p2wsh' };

const NEVER_ONLINE = 'Never type or paste a seed or private key into a computer that is online.';

/** Electrum's encrypted wallet file: base64 of "BIE1" (password) or "BIE2" (hardware-wallet key). */
export function looksLikeEncryptedElectrum(text: string): boolean {
  return /^QklFM[QgRw][A-Za-z0-9+/=\s]{40,}$/.test(text.trim());
}

/** An Electrum 1.x/2.0–2.6 file: a Python dict (single quotes) with 'seed_version'. */
export function looksLikeOldElectrum(text: string): boolean {
  return /^\{'/.test(text.trim()) && text.includes("'seed_version'");
}

export function looksLikeElectrum(o: unknown): boolean {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return false;
  const r = o as JsonObject;
  return typeof r['wallet_type'] === 'string' && ('seed_version' in r || 'keystore' in r || 'x1/' in r);
}

function object(v: unknown, field: string): JsonObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new WalletImportError('invalid', field, `${field} must be an object in an Electrum wallet file.`);
  return v as JsonObject;
}

function refusePrivate(ks: JsonObject, field: string): void {
  const held = (['seed', 'xprv', 'keypairs', 'mpk'] as const).filter((k) => {
    const v = ks[k];
    return v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v as object).length === 0);
  });
  if (held.includes('seed') || held.includes('xprv') || held.includes('keypairs')) {
    throw new WalletImportError(
      'private-key',
      field,
      `This Electrum wallet file holds the wallet's ${held.includes('seed') ? 'seed' : 'private keys'} (${field}). Spyglass only watches and never takes it. ${NEVER_ONLINE} In Electrum, open Wallet > Information and import its master public key (xpub/zpub…) here instead.`,
    );
  }
}

function keystore(ks: JsonObject, field: string): DraftKey & { prefix: string } {
  refusePrivate(ks, field);
  const type = ks['type'];
  if (type === 'old') throw new WalletImportError('script-type', field, 'This is an Electrum 1.x ("old seed") wallet: its addresses are not BIP32, and Spyglass cannot watch it.');
  if (type === 'imported') throw new WalletImportError('unrecognized', field, 'This Electrum wallet is a list of imported addresses or keys, not an HD wallet: add its addresses with "Add addresses".');
  const xpub = ks['xpub'];
  if (typeof xpub !== 'string') throw new WalletImportError('invalid', `${field}.xpub`, `${field} has no xpub.`);
  const ext = decodeExtKey(xpub.trim());
  if (!ext) throw new WalletImportError('invalid', `${field}.xpub`, `${field}.xpub is not an extended public key.`);
  let fingerprint: string | null = null;
  if (typeof ks['root_fingerprint'] === 'string') fingerprint = parseFingerprint(ks['root_fingerprint'], `${field}.root_fingerprint`);
  else if (typeof ks['ckcc_xfp'] === 'number') {
    // Electrum's _convert_version_20: Coldcard's xfp is the fingerprint bytes read little-endian
    const v = ks['ckcc_xfp'] >>> 0;
    fingerprint = [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24].map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  const path = typeof ks['derivation'] === 'string' && ks['derivation'].trim() !== '' ? parsePath(ks['derivation'], `${field}.derivation`) : null;
  const label = typeof ks['label'] === 'string' && ks['label'].trim() ? ks['label'].trim() : undefined;
  return { ext, fingerprint, path, field, prefix: ext.prefix, ...(label ? { label } : {}) };
}

function firstOf(list: unknown): string | undefined {
  return Array.isArray(list) && typeof list[0] === 'string' ? list[0] : undefined;
}

export function importElectrum(o: JsonObject, network: Network): WalletDescription {
  const walletType = String(o['wallet_type']);
  const seedVersion = typeof o['seed_version'] === 'number' ? o['seed_version'] : null;
  if (seedVersion !== null && seedVersion < 13) {
    throw new WalletImportError('invalid', 'seed_version', `This Electrum wallet file is from before Electrum 2.7 (seed_version ${seedVersion}). Open it once in a current Electrum, which upgrades it, and import that file or its master public key.`);
  }
  if (walletType === 'imported') throw new WalletImportError('unrecognized', 'wallet_type', 'This Electrum wallet is a list of imported addresses or keys, not an HD wallet: add its addresses with "Add addresses".');
  if (walletType === '2fa') throw new WalletImportError('script-type', 'wallet_type', 'This is an Electrum 2FA (TrustedCoin) wallet: its third key is TrustedCoin\'s, derived in Electrum\'s own way. Spyglass cannot watch it.');
  const multi = /^(\d+)of(\d+)$/.exec(walletType);
  const warnings: string[] = [];
  let keys: (DraftKey & { prefix: string })[];
  let m = 1;
  let n = 1;
  if (multi) {
    m = Number(multi[1]);
    n = Number(multi[2]);
    keys = [];
    for (let i = 1; `x${i}/` in o; i++) keys.push(keystore(object(o[`x${i}/`], `x${i}/`), `x${i}/`));
  } else if (walletType === 'standard' || walletType === 'xpub') {
    keys = [keystore(object(o['keystore'], 'keystore'), 'keystore')];
  } else {
    throw new WalletImportError('unrecognized', 'wallet_type', `Electrum wallet type '${walletType}' is not one Spyglass reads (standard, or a multisig like "2of3").`);
  }
  if (keys.length === 0) throw new WalletImportError('invalid', 'x1/', 'The Electrum multisig file lists no keystores (x1/, x2/…).');
  const table = multi ? MULTI : SINGLE;
  const scriptType = table[keys[0]!.prefix];
  if (!scriptType) {
    throw new WalletImportError('script-type', `${keys[0]!.field}.xpub`, `A ${keys[0]!.prefix} is not ${multi ? 'a multisig' : 'a single-signature'} key in Electrum (its script type comes from the key's prefix).`);
  }
  const other = keys.find((k) => table[k.prefix] !== scriptType);
  if (other) throw new WalletImportError('script-type', `${other.field}.xpub`, `${other.field} is a ${other.prefix} but ${keys[0]!.field} a ${keys[0]!.prefix}: the keystores disagree on the script type.`);
  const wallet = finishWallet({
    name: '', // importWallet names it
    format: 'electrum',
    network,
    scriptType,
    threshold: isMultisig(scriptType) ? m : 1,
    thresholdField: 'wallet_type',
    announcedKeys: { n, field: 'wallet_type' },
    sorted: true,
    keys: keys.map(({ prefix: _prefix, ...k }) => k),
    fillOrigins: true,
    warnings,
  });
  // The file's own address lists (Electrum writes them): the first of each must be ours.
  const addresses = o['addresses'];
  if (typeof addresses === 'object' && addresses !== null && !Array.isArray(addresses)) {
    const derive = WalletAddresses.of(wallet);
    const lists: [string, 'receive' | 'change'][] = [['receiving', 'receive'], ['change', 'change']];
    for (const [key, branch] of lists) {
      const stated = firstOf((addresses as JsonObject)[key]);
      if (stated === undefined) continue;
      const ours = derive.address(branch, 0);
      if (stated !== ours) {
        throw new WalletImportError('address-mismatch', `addresses.${key}`, `The file's first ${branch} address ${stated} is not the one its keys give (${ours}): the file was altered or is not what it says. Do not use it.`);
      }
    }
  }
  return wallet;
}
