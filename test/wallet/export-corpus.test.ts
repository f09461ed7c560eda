/**
 * Issue #33: every real export file in test/fixtures/exports (makers' docs and test data: Coldcard,
 * Keystone/Cobo, Specter, Electrum, Caravan, BIP129/Sparrow's BSMS vectors — SOURCES in
 * corpus.json) imports to exactly the first receive and change addresses its maker means, or is
 * refused with its specific reason. The expected addresses in corpus.json came from Bitcoin Core
 * 31.99's deriveaddresses of the descriptors each maker means, and agree with every address the
 * file or its maker states (makerStates). Files are read as the import view reads them (UTF-8).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDKey } from '@scure/bip32';
import { p2wpkh } from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { MAINNET, NETWORKS } from '../../shared/bitcoin/networks';
import { detectImport, importWallet, WalletAddresses, type ScriptType, type WalletErrorReason } from '../../shared/wallet/index';
import { expectImportError } from './helpers';

const DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'exports');

interface Entry {
  file: string;
  source: { repo: string; path: string; commit: string | null };
  options?: { scriptType: ScriptType };
  network: 'main' | 'test' | 'signet' | 'regtest';
  expect?: {
    format: string;
    scriptType: ScriptType;
    threshold: number;
    keys: { fingerprint: string | null; path: string | null }[];
    receive: string;
    change: string | null;
    coreDescriptors: { receive: string; change: string | null };
    makerStates?: { receive?: string; change?: string; fixedChildAddress?: string; where: string };
    warnings?: string[];
  };
  refuse?: { reason: WalletErrorReason; field: string; message: string };
}

const corpus = JSON.parse(readFileSync(join(DIR, 'corpus.json'), 'utf8')) as { files: Entry[] };
const text = (file: string): string => readFileSync(join(DIR, file), 'utf8');
const net = (e: Entry) => NETWORKS[e.network];
const label = (e: Entry): string => `${e.file}${e.options ? ` (${e.options.scriptType})` : ''}`;

describe('real export files (test/fixtures/exports)', () => {
  it('every entry names its public source, and the corpus covers every maker the issue names', () => {
    for (const e of corpus.files) {
      expect(e.source.repo, e.file).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(e.source.path.length, e.file).toBeGreaterThan(0);
      expect(readFileSync(join(DIR, e.file)).length, e.file).toBeGreaterThan(0);
    }
    const repos = new Set(corpus.files.map((e) => e.source.repo));
    for (const r of ['Coldcard/firmware', 'spesmilo/electrum', 'sparrowwallet/sparrow', 'bitcoin/bitcoin']) expect(repos).toContain(r);
    const formats = new Set(corpus.files.map((e) => e.expect?.format));
    for (const f of ['electrum', 'coldcard-generic', 'keystore-json', 'specter', 'bsms', 'caravan', 'coldcard', 'descriptor']) expect(formats).toContain(f);
  });

  for (const e of corpus.files.filter((x) => x.expect)) {
    it(`${label(e)} imports to its maker's first receive and change addresses`, () => {
      const x = e.expect!;
      const w = importWallet(text(e.file), net(e), e.options ?? {});
      expect({ format: w.format, scriptType: w.scriptType, threshold: w.threshold }).toEqual({ format: x.format, scriptType: x.scriptType, threshold: x.threshold });
      expect(w.keys.map((k) => ({ fingerprint: k.fingerprint, path: k.path }))).toEqual(x.keys);
      expect([w.external, w.internal]).toEqual([x.coreDescriptors.receive, x.coreDescriptors.change]);
      const d = WalletAddresses.of(w);
      expect(d.address('receive', 0)).toBe(x.receive);
      expect(w.internal ? d.address('change', 0) : null).toBe(x.change);
      expect(w.warnings).toEqual(x.warnings ?? []);
      // what the file or its maker states agrees (bech32 in a BSMS record may be upper case)
      if (x.makerStates?.receive) expect(x.makerStates.receive.toLowerCase()).toBe(x.receive.toLowerCase());
      if (x.makerStates?.change) expect(x.makerStates.change).toBe(x.change);
    });
  }

  for (const e of corpus.files.filter((x) => x.refuse)) {
    it(`${label(e)} is refused: ${e.refuse!.reason}`, () => {
      expectImportError(() => importWallet(text(e.file), net(e), e.options ?? {}), e.refuse!.reason, e.refuse!.field, e.refuse!.message);
    });
  }

  it('the detector names each refused kind of file (what the import page shows before Check)', () => {
    expect(detectImport(text('electrum-encrypted')).format).toBe('electrum-encrypted');
    expect(detectImport(text('core-descriptor-wallet.dat')).format).toBe('database');
    expect(detectImport(text('coldcard-multisig-key-0F056943.json')).format).toBe('cosigner-key');
    expect(detectImport(text('electrum-client_1_9_8_seeded.json')).format).toBe('electrum-old');
    expect(detectImport(text('electrum-seed-wallet.json')).format).toBe('electrum');
    expect(detectImport(text('descriptor-labelled.txt')).format).toBe('descriptor');
  });
});

describe('account semantics (a key at a standard account path is the account)', () => {
  // a test key made here (never a real wallet's): BIP84 account 0 on mainnet
  const master = HDKey.fromMasterSeed(sha256(new TextEncoder().encode('keystone-style /1/* export')));
  const fp = master.fingerprint.toString(16).padStart(8, '0');
  const account = master.derive("m/84'/0'/0'");
  const address = (chain: number, i: number): string => p2wpkh(account.deriveChild(chain).deriveChild(i).publicKey!).address!;

  it("a Keystone-style single-sig export naming the change chain (…/1/*) watches the device's receive chain /0/* and change /1/*", () => {
    const w = importWallet(`wpkh([${fp}/84'/0'/0']${account.publicExtendedKey}/1/*)`, MAINNET);
    const d = WalletAddresses.of(w);
    // addresses computed here with @scure/btc-signer from the BIP32 children, not by Spyglass
    expect([0, 1, 2].map((i) => d.address('receive', i))).toEqual([0, 1, 2].map((i) => address(0, i)));
    expect([0, 1].map((i) => d.address('change', i))).toEqual([0, 1].map((i) => address(1, i)));
    expect(w.warnings.join(' ')).toMatch(/names the account's change chain.*m\/84h\/0h\/0h.*receive addresses on \/0\/\*, change on \/1\/\*/);
  });

  it('the same with the receive chain named, or a multipath descriptor: the same wallet', () => {
    const one = importWallet(`wpkh([${fp}/84'/0'/0']${account.publicExtendedKey}/1/*)`, MAINNET);
    for (const t of [`wpkh([${fp}/84h/0h/0h]${account.publicExtendedKey}/0/*)`, `wpkh([${fp}/84h/0h/0h]${account.publicExtendedKey}/<0;1>/*)`]) {
      const w = importWallet(t, MAINNET);
      expect([w.external, w.internal]).toEqual([one.external, one.internal]);
    }
  });

  it('a key at a non-standard path is watched as written, and the preview says so', () => {
    const odd = master.derive("m/84'/0'/0'/7'");
    const w = importWallet(`wpkh([${fp}/84'/0'/0'/7']${odd.publicExtendedKey}/1/*)`, MAINNET);
    const d = WalletAddresses.of(w);
    expect(d.address('receive', 0)).toBe(p2wpkh(odd.deriveChild(1).deriveChild(0).publicKey!).address);
    expect(w.internal).toBeNull();
    expect(w.warnings.join(' ')).toMatch(/m\/84h\/0h\/0h\/7h is not a standard account path.*watched as written/);
  });

  it('a key without origin is watched as written (nothing says it is an account)', () => {
    const w = importWallet(`wpkh(${account.publicExtendedKey}/1/*)`, MAINNET);
    expect(WalletAddresses.of(w).address('receive', 0)).toBe(address(1, 0));
  });
});
