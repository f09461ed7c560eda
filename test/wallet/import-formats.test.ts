/**
 * Issue #33, the paths the real-file corpus does not reach: edited files caught by their own
 * stated addresses, Specter's checksum, labelled Change: lines, other databases' headers, BIP48
 * keys alone, and the preview reply (first change address, keys' fingerprints and paths).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAINNET, TESTNET } from '../../shared/bitcoin/networks';
import { descriptorChecksum } from '../../shared/bitcoin/descriptor-checksum';
import { detectImport, importWallet, WalletAddresses } from '../../shared/wallet/index';
import { walletPreviewJob } from '../../electron/main/wallet/preview';
import { expectImportError } from './helpers';

const DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'exports');
const text = (f: string): string => readFileSync(join(DIR, f), 'utf8');
const json = (f: string): Record<string, unknown> => JSON.parse(text(f)) as Record<string, unknown>;

describe('files whose own addresses give them away', () => {
  it("an Electrum file whose 'addresses' list is not its keys' is refused", () => {
    const o = json('electrum-client_3_2_3_ledger_standard_keystore_changes.json') as { addresses: { receiving: string[]; change: string[] } };
    o.addresses.receiving[0] = o.addresses.receiving[1]!;
    expectImportError(() => importWallet(JSON.stringify(o), MAINNET), 'address-mismatch', 'addresses.receiving', /first receive address bc1q.* is not the one its keys give \(bc1qav4zrnx5/);
  });

  it("a Coldcard generic export whose 'first' is not its key's is refused", () => {
    const o = json('coldcard-generic-doc-account-123.json') as Record<string, Record<string, string>>;
    o['bip84']!['first'] = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
    expectImportError(() => importWallet(JSON.stringify(o), MAINNET), 'address-mismatch', 'bip84.first', /not the one its key gives \(bc1qhj6avwmp/);
  });

  it('a Coldcard generic export asked for an account it does not have says which it has', () => {
    expectImportError(() => importWallet(text('coldcard-generic-doc-account-123.json'), MAINNET, { scriptType: 'p2tr' }), 'script-type', 'scriptType', /no Taproot \(P2TR\) account; it has Native SegWit \(P2WPKH\) \(bip84\), Nested SegWit/);
  });

  it('an Electrum multisig whose keystores disagree on the script type, or a wallet_type that lists other keys', () => {
    const o = json('coldcard-electrum-p2wsh-2-of-4.json') as Record<string, Record<string, string>>;
    o['x3/']!['xpub'] = (json('coldcard-electrum-2-of-4.json')['x3/'] as Record<string, string>)['xpub']!;
    expectImportError(() => importWallet(JSON.stringify(o), TESTNET), 'script-type', 'x3/.xpub', /x3\/ is a tpub but x1\/ a Vpub/);
    const p = json('coldcard-electrum-p2wsh-2-of-4.json');
    p['wallet_type'] = '2of3';
    expectImportError(() => importWallet(JSON.stringify(p), TESTNET), 'threshold', 'wallet_type', 'The wallet says it has 3 keys, but 4 are listed.');
  });
});

describe('Specter account-level descriptors', () => {
  const o = json('specter-singlesig-account.json') as { descriptor: string };
  it('a checksum over the account-level text is verified before /0/* is added', () => {
    const good = { ...o, descriptor: `${o.descriptor}#${descriptorChecksum(o.descriptor)}` };
    expect(importWallet(JSON.stringify(good), MAINNET).external).toBe(importWallet(JSON.stringify(o), MAINNET).external);
    const bad = { ...o, descriptor: `${o.descriptor}#aaaaaaaa` };
    expectImportError(() => importWallet(JSON.stringify(bad), MAINNET), 'checksum', 'descriptor', /Provided checksum 'aaaaaaaa' does not match computed checksum/);
  });

  it('multi() with a checksum is kept as written (only the checksum-less old format means sortedmulti)', () => {
    const m = json('specter-multisig-account.json') as { descriptor: string };
    const withSum = { ...m, descriptor: `${m.descriptor}#${descriptorChecksum(m.descriptor)}` };
    const w = importWallet(JSON.stringify(withSum), MAINNET);
    expect(w.sorted).toBe(false);
    expect(w.warnings).toEqual([]);
  });
});

describe('labelled descriptor lines', () => {
  it('Receive: and Change: labels give the roles, in either order', () => {
    const recv = text('descriptor-labelled.txt').trim();
    const change = recv.replace('Receive:', 'Change:').split('#')[0]!.replace('/0/*', '/1/*');
    const w = importWallet(`${change}\n${recv}`, MAINNET);
    expect(w.format).toBe('descriptor');
    expect(WalletAddresses.of(w).address('receive', 0)).toBe('bc1qg6stutzna28k472gr2hfnvvz63503qv8x2hsv9');
    expect(w.warnings).toEqual([]);
  });

  it('a label on a line that is not a descriptor is not one', () => {
    expect(detectImport('Receive: hello').format).toBe('unknown');
  });
});

describe('refusals that say what the file is', () => {
  const db = (head: string): string => head + 'x'.repeat(64);
  it("a Berkeley DB wallet.dat (Core's legacy wallet), Sparrow's H2 store and other binary files", () => {
    // BDB btree page 0: LSN (8 bytes) and page number (4) zero, then the magic 0x00053162 little-endian
    expectImportError(() => importWallet(db('\u0000'.repeat(12) + 'b1\u0005\u0000'), MAINNET), 'database', 'file', /Berkeley DB database file \(Bitcoin Core's legacy wallet\.dat\).*listdescriptors/);
    expectImportError(() => importWallet(db('H:2,block:5,blockSize:1000,'), MAINNET), 'database', 'file', /Sparrow's own wallet database \(H2\).*File > Export Wallet/);
    expectImportError(() => importWallet(db('PK\u0003\u0004\u0000\u0000'), MAINNET), 'database', 'file', /This is a binary file/);
  });

  it('an old Electrum (1.x–2.6) file without a seed is refused as unreadable, not as a seed', () => {
    const watchOnly = text('electrum-client_1_9_8_seeded.json').replace(/'seed':\s*'[^']+'/, "'seed': ''");
    expectImportError(() => importWallet(watchOnly, MAINNET), 'invalid', 'file', /old Electrum \(1\.x–2\.6\), which Spyglass cannot read/);
  });

  it('a BIP48 key alone (one cosigner of a multisig) is not imported as a single-key wallet', () => {
    const o = json('coldcard-multisig-key-0F056943.json') as Record<string, string>;
    const keystone = { ExtPubKey: o['p2wsh'], MasterFingerprint: o['xfp'], AccountKeyPath: "48'/1'/0'/2'" };
    expectImportError(() => importWallet(JSON.stringify(keystone), TESTNET), 'cosigner-key', 'AccountKeyPath', /one cosigner's key, not a wallet/);
    const fp = o['xfp']!.toLowerCase();
    expectImportError(() => importWallet(`[${fp}/48h/1h/0h/2h]${o['p2wsh']}`, TESTNET), 'script-type', 'xpub', /A Vpub is one cosigner's key/);
    const tpub = /\]([^/]+)\//.exec(o['p2wsh_desc']!)![1]!;
    expectImportError(() => importWallet(`[${fp}/48h/1h/0h/2h]${tpub}`, TESTNET), 'cosigner-key', 'xpub', /m\/48h\/1h\/0h\/2h is a multisig cosigner's.*one cosigner's key/);
  });
});

describe('the import preview (wallet:preview reply)', () => {
  it("shows the first receive and change addresses, script type, threshold and every key's fingerprint and path", () => {
    const p = walletPreviewJob({ text: text('coldcard-electrum-p2wsh-2-of-4.json'), chain: 'test' });
    expect(p).toMatchObject({ format: 'electrum', scriptType: 'p2wsh', threshold: 2 });
    expect(p.firstAddresses[0]!.address).toBe('tb1qafdvz3k4sjwn5lmq44yk5tzag4tyfq72mcqq5nzrsqepmsynrt9sue59v2');
    expect(p.firstChangeAddress).toEqual({ address: 'tb1qejdwr5n4h3uzd0h0yjuqn2jngftlqpp9vh6ftm22ul6tfxgxtrpqlt5rc7', path: expect.stringMatching(/^m\/48h\/1h\/0h\/2h\/1\/0$/) });
    expect(p.keys.map((k) => [k.fingerprint, k.path])).toEqual([
      ['0f056943', 'm/48h/1h/0h/2h'],
      ['6ba6cfd0', 'm/48h/1h/0h/2h'],
      ['747b698e', 'm/48h/1h/0h/2h'],
      ['7bb026be', 'm/48h/1h/0h/2h'],
    ]);
  });

  it('the Keystone /1/* export previews the receive chain, and says why', () => {
    const p = walletPreviewJob({ text: text('keystone-singlesig-change-chain.txt'), chain: 'main' });
    expect(p.firstAddresses[0]!.address).toBe('bc1q9unqc738dxjg5mk8zqtz33zg59cahrj29s24lp');
    expect(p.firstChangeAddress!.address).toBe('bc1q6nxakdn5nce3zkk0uq685c3t90pmfuestfz6ta');
    expect(p.warnings.join(' ')).toMatch(/names the account's change chain/);
  });

  it('a wallet without a change branch says so (null)', () => {
    const xpub = (json('coldcard-generic-doc-account-123.json')['bip84'] as Record<string, string>)['xpub'];
    expect(walletPreviewJob({ text: `wpkh(${xpub}/*)`, chain: 'main' }).firstChangeAddress).toBeNull();
  });
});
