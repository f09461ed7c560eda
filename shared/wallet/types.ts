/**
 * The one normalized description every wallet import produces (an extended public key, output
 * descriptors, Caravan / Specter JSON, a BSMS 1.0 record, a Coldcard multisig file, Sparrow's
 * descriptor export, Core's listdescriptors), and the error every import throws.
 *
 * Spyglass never holds a private key: every import refuses one, wherever it appears.
 */
import { AppError } from '../errors';
import type { Network } from '../bitcoin/networks';
import { LIMITS } from '../limits';

/** Address kinds a watch-only wallet can be: four single-key, three multisig (BIP67-sorted or not). */
export type ScriptType = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr' | 'p2sh' | 'p2sh-p2wsh' | 'p2wsh';

export const SINGLE_KEY_TYPES: readonly ScriptType[] = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'];
export const MULTISIG_TYPES: readonly ScriptType[] = ['p2sh', 'p2sh-p2wsh', 'p2wsh'];
export const SCRIPT_TYPES: readonly ScriptType[] = [...SINGLE_KEY_TYPES, ...MULTISIG_TYPES];

export function isMultisig(t: ScriptType): boolean {
  return MULTISIG_TYPES.includes(t);
}

/** How people name each type. */
export const SCRIPT_TYPE_NAMES: Record<ScriptType, string> = {
  p2pkh: 'Legacy (P2PKH)',
  'p2sh-p2wpkh': 'Nested SegWit (P2SH-P2WPKH)',
  p2wpkh: 'Native SegWit (P2WPKH)',
  p2tr: 'Taproot (P2TR)',
  p2sh: 'Legacy multisig (P2SH)',
  'p2sh-p2wsh': 'Nested SegWit multisig (P2SH-P2WSH)',
  p2wsh: 'Native SegWit multisig (P2WSH)',
};

/** Where an import came from. */
export type ImportFormat = 'xpub' | 'descriptor' | 'sparrow' | 'caravan' | 'specter' | 'bsms' | 'coldcard' | 'core' | 'electrum' | 'coldcard-generic' | 'keystore-json' | 'liana';

export const FORMAT_NAMES: Record<ImportFormat, string> = {
  xpub: 'an extended public key',
  descriptor: 'output descriptors',
  sparrow: "Sparrow's exported descriptor text",
  caravan: 'a Caravan wallet configuration (JSON)',
  specter: 'a Specter wallet export (JSON)',
  bsms: 'a BSMS 1.0 descriptor record',
  coldcard: 'a Coldcard multisig setup file',
  core: "Bitcoin Core's listdescriptors output (JSON)",
  electrum: 'an Electrum wallet file',
  'coldcard-generic': "Coldcard's generic single-sig export (JSON)",
  'keystore-json': 'a Cobo/Keystone single-sig key export (JSON)',
  liana: 'a Liana wallet backup (JSON)',
};

/** One cosigner (or the single key) of a wallet. */
export interface WalletKey {
  /** Extended public key in the network's standard version (xpub, or tpub off mainnet). */
  xpub: string;
  /** Master key fingerprint, 8 lowercase hex digits; null when the input did not say. */
  fingerprint: string | null;
  /** Derivation path from the master key to `xpub`, 'm/48h/0h/0h/2h' style; null when unknown. */
  path: string | null;
  /** A name the file gave the key (device label), if any. */
  label?: string;
}

/** A suggested rescan start: a block height, or a UNIX time (Core's timestamp). */
export type Birthday = { kind: 'height'; height: number } | { kind: 'time'; time: number };

export interface WalletDescription {
  /** What to call it: the name the input gave it, else one made up from its shape ("2-of-3 multisig"). */
  name: string;
  /** The name the input itself gave the wallet (a file's name or label, Core's wallet_name); absent when it gave none. */
  givenName?: string;
  network: Network['chain'];
  scriptType: ScriptType;
  /** Signatures needed (m); 1 for a single-key wallet. */
  threshold: number;
  /** sortedmulti (BIP67) rather than multi; true for single-key wallets. */
  sorted: boolean;
  /**
   * A policy wallet (miniscript in wsh()/sh(wsh()), tr() with a script tree): its descriptors are
   * the whole truth (shared/bitcoin/miniscript/policy.ts reads them); threshold is 1 and sorted
   * false, as no single threshold describes it. Absent for the fixed shapes.
   */
  policy?: true;
  keys: WalletKey[];
  /** Receive descriptor, Core's normalized form with checksum (what listdescriptors prints). */
  external: string;
  /** Change descriptor, likewise; null when the input has no change branch. */
  internal: string | null;
  birthday?: Birthday;
  format: ImportFormat;
  /** Things the user should know that do not stop the import (assumed script type, unknown origin…). */
  warnings: string[];
}

/** Why an import was refused (stable, for tests and for the renderer to pick a remedy). */
export type WalletErrorReason =
  | 'checksum' // a descriptor's checksum does not match (Core's words: expected vs got)
  | 'private-key' // an xprv/tprv/WIF anywhere in the input
  | 'network' // a key or address of another network than the chosen one
  | 'threshold' // m < 1, m > n, n not what the file says, too many keys
  | 'duplicate-key' // the same key twice in a multisig
  | 'script-type' // unknown or unsupported script type, or one the keys cannot be
  | 'derivation' // a path that does not fit its key, or descriptors that are not one wallet
  | 'not-ranged' // a descriptor without /*: one address, not a wallet
  | 'address-mismatch' // a BSMS record's first address is not the descriptor's
  | 'encrypted' // an encrypted BSMS record or Electrum wallet file
  | 'database' // another program's own database file (SQLite, Berkeley DB wallet.dat…), or any binary file
  | 'cosigner-key' // one cosigner's key for a multisig setup, not the wallet
  | 'unrecognized' // none of the formats
  | 'invalid' // malformed input of a recognized format (bad JSON field, bad key, Core's parse error)
  | 'too-large' // over the size cap (shared/limits.ts)
  | 'empty'; // nothing to import: blank, or only # comment lines

/**
 * The error every import throws: an AppError('input.invalid') whose detail names the field at
 * fault ('descriptor', 'extendedPublicKeys[1].xpub', 'line 5'…) and the reason.
 */
export class WalletImportError extends AppError {
  constructor(
    readonly reason: WalletErrorReason,
    readonly field: string,
    message: string,
  ) {
    super('input.invalid', message, { field, reason });
    this.name = 'WalletImportError';
  }
}

/** Longest input accepted (shared/limits.ts: wallet files). */
export const MAX_IMPORT_CHARS = LIMITS.walletFile.chars;
