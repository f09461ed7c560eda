/**
 * Watch-only wallet import: pasted text or a file's content → one WalletDescription.
 *
 *   importWallet(text, network, { format?, name?, scriptType?, fingerprint?, path? })
 *
 * The format is detected (detectImport) unless given. Every failure is a WalletImportError
 * (AppError 'input.invalid' with detail { field, reason }).
 */
import type { Network } from '../bitcoin/networks';
import { sizeProblem } from '../limits';
import { importBsms } from './bsms';
import { importCaravan } from './caravan';
import { importColdcard } from './coldcard';
import { descriptorLines, detectImport } from './detect';
import { importDescriptors } from './descriptors';
import { importCore, importSpecter } from './json-wallets';
import { refuseSecrets } from './keys';
import { importColdcardGeneric, refuseColdcardMultisigKey } from './formats/coldcard-generic';
import { databaseKind, refuseDatabase } from './formats/database';
import { importElectrum } from './formats/electrum';
import { importKeystoreJson } from './formats/keystore-json';
import { importLiana } from './formats/liana';
import { jsonObject } from './json-input';
import { importExtendedKey } from './xpub';
import { FORMAT_NAMES, MAX_IMPORT_CHARS, WalletImportError, type ImportFormat, type ScriptType, type WalletDescription } from './types';

export * from './types';
export { detectImport, isWalletText, type Detection, type DetectedFormat } from './detect';
export { WalletAddresses, type AddressDetails, type AddressKey, type Branch } from './derive';
export { exportBsms, exportDescriptors, type DescriptorExport } from './export';
export { importExtendedKey, inferScriptType, type ExtendedKeyInput, type ScriptTypeSource } from './xpub';
export { importDescriptors, type DescriptorInput } from './descriptors';
export { WALLET_NAME_MAX, cleanWalletName, fileBaseName, suggestWalletName, walletNameProblem } from './name';

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

const TRIED = (['xpub', 'descriptor', 'caravan', 'specter', 'bsms', 'coldcard', 'sparrow', 'core', 'electrum', 'coldcard-generic', 'keystore-json', 'liana'] as const).map((f) => FORMAT_NAMES[f]).join(', ');

function descriptorsOf(text: string, format: ImportFormat, network: Network, name: string | undefined): WalletDescription {
  const lines = descriptorLines(text);
  if (!lines) throw new WalletImportError('unrecognized', 'file', `This is not ${FORMAT_NAMES[format]}: no line starts with a descriptor like wpkh(…) or wsh(…).`);
  const field = (n: number): string => (lines.length === 1 ? 'descriptor' : `line ${n}`);
  return importDescriptors(
    lines.map((l) => ({ text: l.text, field: field(l.number), ...(l.internal !== undefined ? { internal: l.internal } : {}) })),
    network,
    { name: name ?? '', format },
  );
}

export function importWallet(input: string, network: Network, opts: ImportOptions = {}): WalletDescription {
  const text = input.replace(/^\uFEFF/, ''); // files saved with a byte order mark
  const database = databaseKind(text);
  if (database) refuseDatabase(database);
  if (text.length > MAX_IMPORT_CHARS) {
    throw new WalletImportError('too-large', 'file', sizeProblem('walletFile', text.length)!);
  }
  const detected = detectImport(text);
  // an Electrum file holding a seed is refused in Electrum's words (what to export instead)
  const electrum = (opts.format ?? detected.format) === 'electrum' ? importElectrum(jsonObject(text, 'Electrum wallet file'), network) : undefined;
  refuseSecrets(text, 'file');
  if (detected.format === 'empty') {
    throw new WalletImportError('empty', 'file', 'There is nothing to import: the text has only blank lines and # comments. Paste or open the wallet file itself.');
  }
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
      const key = importExtendedKey(input, network);
      const given = input.name?.trim();
      if (given) key.givenName = given;
      return key;
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
    case 'electrum':
      wallet = electrum ?? importElectrum(jsonObject(text, 'Electrum wallet file'), network);
      break;
    case 'coldcard-generic':
      wallet = importColdcardGeneric(jsonObject(text, 'Coldcard export'), network, opts.scriptType ? { scriptType: opts.scriptType } : {});
      break;
    case 'keystore-json':
      wallet = importKeystoreJson(jsonObject(text, 'key export'), network, opts.scriptType ? { scriptType: opts.scriptType } : {});
      break;
    case 'liana':
      wallet = importLiana(jsonObject(text, 'Liana wallet backup'), network);
      break;
    case 'cosigner-key':
      refuseColdcardMultisigKey(jsonObject(text, 'Coldcard multisig key export'));
    // falls through: refuseColdcardMultisigKey never returns
    case 'electrum-encrypted':
      throw new WalletImportError(
        'encrypted',
        'file',
        "This is an encrypted Electrum wallet file. Spyglass does not open it (it would need the password, and the file holds the wallet's private keys). In Electrum, open the wallet and import its master public key (Wallet > Information) here instead.",
      );
    case 'electrum-old':
      if (/'seed'\s*:\s*'[^']+'/.test(text)) {
        throw new WalletImportError(
          'private-key',
          'file',
          "This is a wallet file of an old Electrum (1.x–2.6): it holds the wallet's seed, and Spyglass cannot read it. Never type or paste a seed into a computer that is online. Open the wallet in a current Electrum and import its master public key (Wallet > Information) instead.",
        );
      }
      throw new WalletImportError('invalid', 'file', 'This is a wallet file of an old Electrum (1.x–2.6), which Spyglass cannot read. Open the wallet in a current Electrum (it upgrades the file) and import its master public key (Wallet > Information) instead.');
    case 'database':
      refuseDatabase(databaseKind(text) ?? 'a binary file');
    // falls through: refuseDatabase never returns
    case 'seed-words':
      throw new WalletImportError(
        'private-key',
        'file',
        'This looks like a recovery phrase. Spyglass only watches and never takes one. Never type or paste a recovery phrase into a computer that is online; keep it offline, and import the wallet\'s extended public key or descriptor instead.',
      );
    case 'addresses':
      throw new WalletImportError('unrecognized', 'file', 'These are addresses, not a wallet: add them with "Add addresses".');
    default:
      throw new WalletImportError('unrecognized', 'file', `This is not a wallet Spyglass can read. Tried: ${TRIED}.`);
  }
  const given = opts.name?.trim() || wallet.name.trim();
  if (given) wallet.givenName = given;
  wallet.name = given || defaultName(wallet);
  return wallet;
}

function defaultName(w: WalletDescription): string {
  if (w.policy) return w.scriptType === 'p2tr' ? 'Taproot policy wallet' : 'Miniscript wallet';
  return w.keys.length > 1 ? `${w.threshold}-of-${w.keys.length} multisig` : `${w.scriptType} wallet`;
}
