/**
 * Watch-only wallet import: pasted text or a file's content → one WalletDescription.
 *
 *   importWallet(text, network, { format?, name?, scriptType?, fingerprint?, path? })
 *
 * The format is detected (detectImport) unless given. Every failure is a WalletImportError
 * (AppError 'input.invalid' with detail { field, reason }).
 */
import type { Network } from '../bitcoin/networks';
import { importBsms } from './bsms';
import { importCaravan } from './caravan';
import { importColdcard } from './coldcard';
import { descriptorLines, detectImport } from './detect';
import { importDescriptors } from './descriptors';
import { importCore, importSpecter } from './json-wallets';
import { refuseSecrets } from './keys';
import { importExtendedKey } from './xpub';
import { FORMAT_NAMES, MAX_IMPORT_CHARS, WalletImportError, type ImportFormat, type ScriptType, type WalletDescription } from './types';

export * from './types';
export { detectImport, type Detection, type DetectedFormat } from './detect';
export { WalletAddresses, type AddressDetails, type AddressKey, type Branch } from './derive';
export { exportBsms, exportDescriptors, type DescriptorExport } from './export';
export { importExtendedKey, inferScriptType, type ExtendedKeyInput, type ScriptTypeSource } from './xpub';
export { importDescriptors, type DescriptorInput } from './descriptors';

export interface ImportOptions {
  /** Skip detection. */
  format?: ImportFormat;
  /** Replaces the name the input gives (or the default one). */
  name?: string;
  /** For an extended key: overrides the inferred type; for Core's JSON: which type to watch. */
  scriptType?: ScriptType;
  /** For an extended key: the import form's fields. */
  fingerprint?: string;
  path?: string;
}

const TRIED = (['xpub', 'descriptor', 'caravan', 'specter', 'bsms', 'coldcard', 'sparrow', 'core'] as const).map((f) => FORMAT_NAMES[f]).join(', ');

function descriptorsOf(text: string, format: ImportFormat, network: Network, name: string | undefined): WalletDescription {
  const lines = descriptorLines(text);
  if (!lines) throw new WalletImportError('unrecognized', 'file', `This is not ${FORMAT_NAMES[format]}: no line starts with a descriptor like wpkh(…) or wsh(…).`);
  const field = (n: number): string => (lines.length === 1 ? 'descriptor' : `line ${n}`);
  return importDescriptors(
    lines.map((l) => ({ text: l.text, field: field(l.number) })),
    network,
    { name: name ?? '', format },
  );
}

export function importWallet(input: string, network: Network, opts: ImportOptions = {}): WalletDescription {
  const text = input.replace(/^\uFEFF/, ''); // files saved with a byte order mark
  if (text.length > MAX_IMPORT_CHARS) {
    throw new WalletImportError('too-large', 'file', `This is ${Math.round(text.length / 1024)} kB; a wallet file is a few kB (at most ${MAX_IMPORT_CHARS / 1024} kB are read).`);
  }
  refuseSecrets(text, 'file');
  const detected = detectImport(text);
  const format = opts.format ?? detected.format;
  let wallet: WalletDescription;
  switch (format) {
    case 'xpub': {
      const line = text.trim().split(/\s+/);
      const input = {
        xpub: line[0]!,
        ...(opts.fingerprint !== undefined ? { fingerprint: opts.fingerprint } : {}),
        ...(opts.path !== undefined ? { path: opts.path } : {}),
        ...(opts.scriptType !== undefined ? { scriptType: opts.scriptType } : {}),
        ...(opts.name !== undefined ? { name: opts.name } : line.length > 1 ? { name: line.slice(1).join(' ') } : {}),
      };
      return importExtendedKey(input, network);
    }
    case 'descriptor':
    case 'sparrow':
      wallet = descriptorsOf(text, format, network, opts.name);
      break;
    case 'caravan':
      wallet = importCaravan(text, network);
      break;
    case 'specter':
      wallet = importSpecter(text, network);
      break;
    case 'core':
      wallet = importCore(text, network, opts.scriptType ? { scriptType: opts.scriptType } : {});
      break;
    case 'bsms':
    case 'bsms-key-record':
    case 'bsms-encrypted':
      wallet = importBsms(text, network);
      break;
    case 'coldcard':
      wallet = importColdcard(text, network);
      break;
    case 'seed-words':
      throw new WalletImportError(
        'private-key',
        'file',
        'This looks like a recovery phrase. Spyglass only watches and never takes one: keep it offline, and import the wallet\'s extended public key or descriptor instead.',
      );
    case 'addresses':
      throw new WalletImportError('unrecognized', 'file', 'These are addresses, not a wallet: add them with "Add addresses".');
    default:
      throw new WalletImportError('unrecognized', 'file', `This is not a wallet Spyglass can read. Tried: ${TRIED}.`);
  }
  if (opts.name?.trim()) wallet.name = opts.name.trim();
  if (!wallet.name) wallet.name = defaultName(wallet);
  return wallet;
}

function defaultName(w: WalletDescription): string {
  return w.keys.length > 1 ? `${w.threshold}-of-${w.keys.length} multisig` : `${w.scriptType} wallet`;
}
