/**
 * Cobo Vault / Keystone's single-sig key export (the JSON file and QR the device shows under
 * "Export wallet" for watch-only wallets), as Sparrow reads it (sparrowwallet/sparrow
 * io/CoboVaultSinglesig.java, test resource cobo-singlesig-keystore-1.json):
 *
 *   { "ExtPubKey": "zpub6r…", "MasterFingerprint": "73C5DA0A", "AccountKeyPath": "84'/0'/0'",
 *     "CoboVaultFirmwareVersion": "1.7.1(BTC-Only)" }
 *
 * The key is the account at AccountKeyPath (relative to the master): receive /0/*, change /1/*;
 * the script type is the key's SLIP-132 prefix, else its BIP44/49/84/86 path. A BIP48 path is a
 * multisig cosigner's key and is refused as such.
 */
import type { Network } from '../../bitcoin/networks';
import { scriptTypeOfPath, parsePath } from '../keys';
import type { JsonObject } from '../json-input';
import { importExtendedKey } from '../xpub';
import { isMultisig, WalletImportError, type ScriptType, type WalletDescription } from '../types';

export function looksLikeKeystoreJson(o: unknown): boolean {
  return typeof o === 'object' && o !== null && !Array.isArray(o) && typeof (o as JsonObject)['ExtPubKey'] === 'string';
}

function text(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new WalletImportError('invalid', key, `${key} must be text.`);
  return v.trim();
}

export function importKeystoreJson(o: JsonObject, network: Network, opts: { scriptType?: ScriptType } = {}): WalletDescription {
  const xpub = text(o, 'ExtPubKey')!;
  const fingerprint = text(o, 'MasterFingerprint');
  const rawPath = text(o, 'AccountKeyPath');
  const path = rawPath === undefined || rawPath === '' ? undefined : rawPath.startsWith('m') ? rawPath : `m/${rawPath}`;
  const implied = path ? scriptTypeOfPath(parsePath(path, 'AccountKeyPath')) : null;
  if (implied && isMultisig(implied)) {
    throw new WalletImportError(
      'cosigner-key',
      'AccountKeyPath',
      `This is one device's multisig key (${path}): one cosigner's key, not a wallet. Import the multisig wallet's setup file or descriptor instead.`,
    );
  }
  const wallet = importExtendedKey(
    {
      xpub,
      ...(fingerprint ? { fingerprint: fingerprint.toLowerCase() } : {}),
      ...(path ? { path } : {}),
      ...(opts.scriptType ? { scriptType: opts.scriptType } : {}),
      name: '',
    },
    network,
  );
  const { scriptTypeSource: _source, ...rest } = wallet;
  return { ...rest, name: '', format: 'keystore-json' };
}
