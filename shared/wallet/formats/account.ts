/**
 * Account semantics: a key at a standard account path is the account, and the account's addresses
 * are its receive chain /0/* and its change chain /1/* — whatever single chain a file names.
 *
 * Standard account paths (the BIPs every hardware wallet and coordinator follows):
 *   BIP44 m/44'/coin'/account'  BIP49 m/49'/coin'/account'  BIP84 m/84'/coin'/account'
 *   BIP86 m/86'/coin'/account'  BIP48 m/48'/coin'/account'/script'  (multisig; script 1' or 2')
 * BIP44 §"Change": "Constant 0 is used for external chain and constant 1 for internal chain".
 * A Keystone single-sig export names the change chain (wpkh([fp/84'/0'/0']xpub…/1/*)) and means
 * the account; so do BSMS records whose keys are fixed at one child (/0/0) and Specter's
 * account-level descriptors without any chain (embit/Specter's WalletImporter.check_descriptor
 * reads them as /0/*).
 */
import { HARDENED } from '../keys';

const SINGLE_PURPOSES = [44, 49, 84, 86];

/** Whether `path` (from the master) is a standard BIP44/49/84/86 or BIP48 account path. */
export function isStandardAccountPath(path: readonly number[] | null): boolean {
  if (!path || path.some((s) => s < HARDENED)) return false;
  const purpose = path[0]! - HARDENED;
  if (path.length === 3) return SINGLE_PURPOSES.includes(purpose);
  if (path.length === 4) return purpose === 48 && [1, 2].includes(path[3]! - HARDENED);
  return false;
}

/** 'receive' or 'change' for a one-step chain /0 or /1; null for anything else. */
export function chainOf(suffix: readonly number[]): 'receive' | 'change' | null {
  if (suffix.length !== 1) return null;
  return suffix[0] === 0 ? 'receive' : suffix[0] === 1 ? 'change' : null;
}
