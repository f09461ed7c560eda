/** Shared by the wallet tests: error expectations and keys made on the spot (test-only secrets). */
import { expect } from 'vitest';
import { HDKey } from '@scure/bip32';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase58Check } from '../../shared/bitcoin/address';
import { WalletImportError, type WalletErrorReason } from '../../shared/wallet/index';

/** Runs f and checks it threw a WalletImportError with this reason, field and message. */
export function expectImportError(f: () => unknown, reason: WalletErrorReason, field: string, message?: RegExp | string): WalletImportError {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(WalletImportError);
  const e = err as WalletImportError;
  expect({ reason: e.reason, field: e.field }).toEqual({ reason, field });
  expect(e.code).toBe('input.invalid');
  expect(e.toIpc().detail).toEqual({ reason, field });
  if (typeof message === 'string') expect(e.message).toBe(message);
  else if (message) expect(e.message).toMatch(message);
  return e;
}

const TEST_VERSIONS = { public: 0x043587cf, private: 0x04358394 };
const MAIN_VERSIONS = { public: 0x0488b21e, private: 0x0488ade4 };

/** A BIP32 master from a label (test keys only). */
export function master(label: string, main = false): HDKey {
  return HDKey.fromMasterSeed(sha256(new TextEncoder().encode(label)), main ? MAIN_VERSIONS : TEST_VERSIONS);
}

export function fingerprint(m: HDKey): string {
  return m.fingerprint.toString(16).padStart(8, '0');
}

/** A WIF of a test secret (regtest/testnet version, compressed). */
export function testWif(label: string): string {
  const k = sha256(new TextEncoder().encode(label));
  return encodeBase58Check(Uint8Array.of(0xef, ...k, 1));
}
