/** The format detector ("Add addresses" routing), importWallet's own refusals, and the exports. */
import { describe, expect, it } from 'vitest';
import { MAINNET, REGTEST } from '../../shared/bitcoin/networks';
import { detectImport, exportBsms, exportDescriptors, importWallet, MAX_IMPORT_CHARS, WalletAddresses } from '../../shared/wallet/index';
import { expectImportError, master, testWif } from './helpers';
import { FILES, KEY_INPUTS, NODE } from './vectors';

const BSMS = [
  'BSMS 1.0',
  "wsh(sortedmulti(2,[1cf0bf7e/48'/0'/0'/2']xpub6FL8FhxNNUVnG64YurPd16AfGyvFLhh7S2uSsDqR3Qfcm6o9jtcMYwh6DvmcBF9qozxNQmTCVvWtxLpKTnhVLN3Pgnu2D3pAoXYFgVyd8Yz/**,[4fc1dd4a/48'/0'/0'/2']xpub6EebMbEps7ZcV3FYEnddRsvrFWDrt2tiPmCeM7pPXQEmphvq9ZfJ1LWFUDjf3vxCeBuPrfyGrMazWUsYsetrnHatQZVLJH7LsgCjtMqdzgj/**))",
  '/0/*,/1/*',
  'bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej',
].join('\n');

describe('detectImport', () => {
  const cases: [string, string, string][] = [
    ['caravan', FILES.caravan, 'a Caravan wallet configuration (JSON)'],
    ['specter', FILES.specter, 'a Specter wallet export (JSON)'],
    ['coldcard', FILES.coldcard, 'a Coldcard multisig setup file'],
    ['sparrow', FILES.sparrow, "Sparrow's exported descriptor text"],
    ['descriptor', NODE['caravan']!.external, 'output descriptors'],
    ['descriptor', `${NODE['tr86']!.external}\n${NODE['tr86']!.internal}`, 'output descriptors'],
    ['bsms', BSMS, 'a BSMS 1.0 descriptor record'],
    ['xpub', KEY_INPUTS.vpub.xpub, 'an extended public key'],
    ['xpub', `${KEY_INPUTS.upub.xpub}  my phone`, 'an extended public key'],
    ['xpub', KEY_INPUTS.vpub.xpub.slice(0, -2) + 'zz', 'an extended public key'],
    ['core', '[{"desc":"wpkh(tpubX/0/*)","timestamp":"now"}]', "Bitcoin Core's listdescriptors output (JSON)"],
  ];
  for (const [format, text, description] of cases) {
    it(`${format}: ${text.slice(0, 40).replace(/\n/g, ' ')}…`, () => {
      expect(detectImport(text)).toEqual({ format, wallet: true, description });
    });
  }

  it('address lines (with or without label), bitcoin: URIs and CSV files are addresses, not wallets', () => {
    for (const t of ['bcrt1qxkzy87q9j58txedtpud7zg74y6ak4n3adqnk2nsgkeq5qptg44cqtr6z04', 'bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej Savings account', '3GzMtFXahiu4TpGNGFc4bHMvAcvz5vVQrT,cold\n1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA,hot', 'bitcoin:bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej?amount=1', 'Label,Address\nx,bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej']) {
      expect(detectImport(t)).toEqual({ format: 'addresses', wallet: false, description: 'addresses' });
    }
  });

  it('private keys, recovery phrases, BSMS key and encrypted records, and anything else', () => {
    expect(detectImport(`wpkh(${master('d').privateExtendedKey}/0/*)`).format).toBe('private-key');
    expect(detectImport(`some text ${testWif('d')}`).format).toBe('private-key');
    expect(detectImport('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about').format).toBe('seed-words');
    expect(detectImport(['BSMS 1.0', '00', "[1cf0bf7e/48'/0'/0'/2']xpub6FL8FhxNNUVnG64YurPd16AfGyvFLhh7S2uSsDqR3Qfcm6o9jtcMYwh6DvmcBF9qozxNQmTCVvWtxLpKTnhVLN3Pgnu2D3pAoXYFgVyd8Yz", 'Signer 1 key'].join('\n')).format).toBe('bsms-key-record');
    expect(detectImport('ab'.repeat(150)).format).toBe('bsms-encrypted');
    // a txid is not an encrypted BSMS record
    expect(detectImport('85b96e491c65f664c391333368653f5182feb1088c6cdb2df748977e6728071a').format).toBe('unknown');
    for (const t of ['', '   ']) expect(detectImport(t)).toMatchObject({ format: 'empty', wallet: false });
    for (const t of ['hello world', '{"a":1}', '{not json', 'Name: x\nFoo: bar']) expect(detectImport(t)).toMatchObject({ format: 'unknown', wallet: false });
  });
});

describe('importWallet refusals', () => {
  it('says what it tried for text that is no wallet, and sends addresses to "Add addresses"', () => {
    expectImportError(() => importWallet('hello world', REGTEST), 'unrecognized', 'file', /not a wallet Spyglass can read\. Tried: an extended public key, output descriptors, a Caravan wallet configuration \(JSON\), a Specter wallet export \(JSON\), a BSMS 1\.0 descriptor record, a Coldcard multisig setup file, Sparrow's exported descriptor text, Bitcoin Core's listdescriptors output \(JSON\), an Electrum wallet file, Coldcard's generic single-sig export \(JSON\), a Cobo\/Keystone single-sig key export \(JSON\), a Liana wallet backup \(JSON\)\./);
    expectImportError(() => importWallet('bcrt1qxkzy87q9j58txedtpud7zg74y6ak4n3adqnk2nsgkeq5qptg44cqtr6z04 change', REGTEST), 'unrecognized', 'file', /addresses, not a wallet: add them with "Add addresses"/);
    expectImportError(() => importWallet('hello', REGTEST, { format: 'descriptor' }), 'unrecognized', 'file', /not output descriptors: no line starts with a descriptor/);
  });

  it('refuses recovery phrases, private keys anywhere, and oversized input', () => {
    expectImportError(() => importWallet('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', REGTEST), 'private-key', 'file', /recovery phrase/);
    expectImportError(() => importWallet(FILES.coldcard + `\n# backup: ${testWif('cc')}\n`, REGTEST), 'private-key', 'file', /WIF/);
    expectImportError(() => importWallet('x'.repeat(MAX_IMPORT_CHARS + 1), REGTEST), 'too-large', 'file', 'This text is more than 1 MB; wallet files are limited to 1 MB.');
  });

  it('reads files saved with a byte order mark', () => {
    expect(detectImport('\uFEFF' + FILES.caravan).format).toBe('caravan');
    expect(importWallet('\uFEFF' + FILES.caravan, REGTEST).name).toBe('Caravan vault');
  });

  it('names: the input\'s, the one given, or a default', () => {
    expect(importWallet(FILES.caravan, REGTEST, { name: '  Family vault ' }).name).toBe('Family vault');
    expect(importWallet(NODE['caravan']!.external, REGTEST).name).toBe('2-of-3 multisig');
    expect(importWallet(NODE['vpub']!.external, REGTEST).name).toBe('p2wpkh wallet');
  });
});

describe('exports', () => {
  it('descriptors: receive, change, their multipath form (re-importable to the same wallet) and a text file', () => {
    const w = importWallet(FILES.coldcard, REGTEST);
    const e = exportDescriptors(w);
    expect([e.external, e.internal]).toEqual([w.external, w.internal]);
    expect(e.multipath).toMatch(/^wsh\(sortedmulti\(2,\[a74008ce\/48h\/1h\/0h\/2h\]tpub\w+\/<0;1>\/\*,/);
    const again = importWallet(e.multipath!, REGTEST);
    expect([again.external, again.internal]).toEqual([w.external, w.internal]);
    expect(e.text.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([e.multipath, w.external, w.internal]);
    expect(importWallet(e.text, REGTEST).external).toBe(w.external);
    // getdescriptorinfo of the multipath exports on the node of vectors.ts: these checksums, and
    // multipath_expansion equal to [external, internal]
    const core = { coldcard: 'aqschpex', caravan: '2aftl9gc', specter: 'cezmams7', sparrow: 'xh27rz53' };
    for (const [name, checksum] of Object.entries(core)) {
      const x = exportDescriptors(importWallet(FILES[name as keyof typeof FILES], REGTEST));
      expect(x.multipath!.split('#')[1]).toBe(checksum);
    }
    const flat = importWallet(`wpkh(${master('flat').publicExtendedKey}/*)`, REGTEST);
    expect(exportDescriptors(flat)).toMatchObject({ internal: null, multipath: null });
  });

  it("BSMS: BIP129's vector comes back as it was (h for '), and every test wallet round-trips", () => {
    const w = importWallet(BSMS, MAINNET);
    expect(exportBsms(w)).toBe(BSMS.replace(/'/g, 'h') + '\n');
    for (const name of ['caravan', 'coldcard', 'specter', 'sparrow', 'tr86']) {
      const v = NODE[name]!;
      const wallet = importWallet(`${v.external}\n${v.internal}`, REGTEST);
      const record = exportBsms(wallet);
      expect(record.split('\n')[3]).toBe(WalletAddresses.of(wallet).address('receive', 0));
      const back = importWallet(record, REGTEST);
      expect([back.external, back.internal]).toEqual([v.external, v.internal]);
    }
  });
});
