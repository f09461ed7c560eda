/** Caravan, Specter, BSMS 1.0, Coldcard, Sparrow and Core JSON: what each import gives and every refusal. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAINNET, REGTEST, SIGNET } from '../../shared/bitcoin/networks';
import { importWallet } from '../../shared/wallet/index';
import { FIXTURES_DIR } from '../fixtures';
import { expectImportError, master } from './helpers';
import { COSIGNERS, FILES, NODE } from './vectors';

const C = COSIGNERS;
const caravan = (): Record<string, unknown> & { extendedPublicKeys: Record<string, unknown>[]; quorum: Record<string, unknown> } => JSON.parse(FILES.caravan);
const edit = (f: (o: ReturnType<typeof caravan>) => void): string => {
  const o = caravan();
  f(o);
  return JSON.stringify(o);
};

describe('Caravan wallet configuration', () => {
  it('2-of-3 P2SH-P2WSH: name, labels, origins, sorted multisig at /0/* and /1/*', () => {
    const w = importWallet(FILES.caravan, REGTEST);
    expect(w).toMatchObject({ name: 'Caravan vault', format: 'caravan', scriptType: 'p2sh-p2wsh', threshold: 2, sorted: true, network: 'regtest', warnings: [] });
    expect(w.keys).toEqual(C.map((c, i) => ({ xpub: c.p2shP2wsh, fingerprint: c.fingerprint, path: 'm/48h/1h/0h/1h', label: `Signer ${i + 1}` })));
    expect([w.external, w.internal]).toEqual([NODE['caravan']!.external, NODE['caravan']!.internal]);
  });

  it("'Unknown' paths, missing xfps, Sparrow's P2SH_P2WSH spelling, testnet files on signet, a later start index", () => {
    const w = importWallet(
      edit((o) => {
        o['addressType'] = 'P2SH_P2WSH';
        o['network'] = 'testnet';
        o['startingAddressIndex'] = 7;
        o.extendedPublicKeys[1]!['bip32Path'] = 'Unknown';
        delete o.extendedPublicKeys[2]!['xfp'];
      }),
      SIGNET,
    );
    expect(w.keys[1]).toMatchObject({ fingerprint: C[1]!.fingerprint, path: null });
    expect(w.keys[2]).toMatchObject({ fingerprint: null, path: 'm/48h/1h/0h/1h' });
    expect(w.external).toMatch(/^sh\(wsh\(sortedmulti\(2,\[a74008ce\/48h\/1h\/0h\/1h\]tpub[^,]+,tpub[^,]+,tpub/);
    expect(w.warnings.join('\n')).toMatch(/file says testnet.*signet/);
    expect(w.warnings.join('\n')).toMatch(/started this wallet at address 7/);
    expect(w.warnings.join('\n')).toMatch(/key 2 .* has no master fingerprint|key 2 .* has no derivation path/);
  });

  it('refuses m > n, m < 1, a key count other than totalSigners, another network, unknown types, duplicates, bad fields', () => {
    expectImportError(() => importWallet(edit((o) => (o.quorum['requiredSigners'] = 4)), REGTEST), 'threshold', 'quorum.requiredSigners', '4 of 3: a multisig cannot need more signatures than it has keys.');
    expectImportError(() => importWallet(edit((o) => (o.quorum['requiredSigners'] = 0)), REGTEST), 'threshold', 'quorum.requiredSigners', /at least 1 signature/);
    expectImportError(() => importWallet(edit((o) => (o.quorum['totalSigners'] = 4)), REGTEST), 'threshold', 'quorum.totalSigners', 'The wallet says it has 4 keys, but 3 are listed.');
    expectImportError(() => importWallet(edit((o) => (o['network'] = 'mainnet')), REGTEST), 'network', 'network', 'This wallet is for mainnet, but the node runs regtest.');
    expectImportError(() => importWallet(FILES.caravan, MAINNET), 'network', 'network', /is for regtest, but the node runs mainnet/);
    expectImportError(() => importWallet(edit((o) => delete o['network']), MAINNET), 'network', 'extendedPublicKeys[0]', /tpub….*mainnet/);
    expectImportError(() => importWallet(edit((o) => (o['addressType'] = 'P2TR')), REGTEST), 'script-type', 'addressType', /Unknown address type 'P2TR'/);
    expectImportError(() => importWallet(edit((o) => (o.extendedPublicKeys[2]!['xpub'] = C[0]!.p2shP2wsh)), REGTEST), 'duplicate-key', 'extendedPublicKeys[2]', /key 3 is the same key as key 1/);
    expectImportError(() => importWallet(edit((o) => delete o.extendedPublicKeys[0]!['xpub']), REGTEST), 'invalid', 'extendedPublicKeys[0].xpub', 'extendedPublicKeys[0].xpub is missing.');
    expectImportError(() => importWallet(edit((o) => (o.extendedPublicKeys[0]!['bip32Path'] = "m/48'/1'/0'")), REGTEST), 'derivation', 'extendedPublicKeys[0]', /3 steps, but the key tpub… is 4 steps/);
    expectImportError(() => importWallet(edit((o) => (o.extendedPublicKeys[0]!['xfp'] = 'xyz')), REGTEST), 'invalid', 'extendedPublicKeys[0].xfp', /8 hexadecimal digits/);
    expectImportError(() => importWallet(edit((o) => (o.quorum['totalSigners'] = '3')), REGTEST), 'invalid', 'quorum.totalSigners', /whole number/);
    expectImportError(() => importWallet(FILES.caravan.replace('"quorum"', '"quorum" x'), REGTEST, { format: 'caravan' }), 'invalid', 'file', /not valid JSON/);
    const m = master('caravan private');
    expectImportError(() => importWallet(edit((o) => (o.extendedPublicKeys[0]!['xpub'] = m.privateExtendedKey)), REGTEST), 'private-key', 'file', /tprv/);
  });

  it("a masked path (Unchained's m/0/0/0/0 for unknown) is dropped with a warning", () => {
    const w = importWallet(edit((o) => (o.extendedPublicKeys[0]!['bip32Path'] = 'm/0/0/0/0')), REGTEST);
    expect(w.keys[0]!.path).toBeNull();
    expect(w.warnings.join(' ')).toMatch(/m\/0\/0\/0\/0 is a placeholder/);
  });
});

describe('Specter wallet export', () => {
  it('legacy P2SH 2-of-3: block height as birthday, device labels, change /1/* without a warning', () => {
    const w = importWallet(FILES.specter, REGTEST);
    expect(w).toMatchObject({ name: 'Specter legacy', format: 'specter', scriptType: 'p2sh', birthday: { kind: 'height', height: 150 }, warnings: [] });
    expect(w.keys.map((k) => k.label)).toEqual(['CC', 'T', 'S']);
    expect(w.internal).toBe(NODE['specter']!.internal);
  });

  it('older files: recv_descriptor/change_descriptor and name; refusals', () => {
    const o = JSON.parse(FILES.specter) as Record<string, unknown>;
    const recv = o['descriptor'] as string;
    const older = JSON.stringify({ name: 'old', recv_descriptor: recv, change_descriptor: recv.replace(/\/0\/\*/g, '/1/*'), blockheight: 0 });
    const w = importWallet(older, REGTEST);
    expect(w.name).toBe('old');
    expect(w.birthday).toBeUndefined();
    expect(w.internal).toBe(NODE['specter']!.internal);
    const wrong = JSON.stringify({ name: 'x', recv_descriptor: recv, change_descriptor: recv.replace(/\/0\/\*/g, '/1/*').replace('sortedmulti(2', 'sortedmulti(1') });
    expectImportError(() => importWallet(wrong, REGTEST), 'derivation', 'change_descriptor', /not the receive and change halves/);
    expectImportError(() => importWallet(JSON.stringify({ ...o, blockheight: -5 }), REGTEST), 'invalid', 'blockheight', /block height/);
    expectImportError(() => importWallet(JSON.stringify({ label: 'x' }), REGTEST, { format: 'specter' }), 'invalid', 'descriptor', 'The Specter file has no descriptor.');
  });
});

describe('BSMS 1.0 descriptor records', () => {
  const V2 = [
    'BSMS 1.0',
    "wsh(sortedmulti(2,[b7868815/48'/0'/0'/2']xpub6FA5rfxJc94K1kNtxRby1hoHwi7YDyTWwx1KUR3FwskaF6HzCbZMz3zQwGnCqdiFeMTPV3YneTGS2YQPiuNYsSvtggWWMQpEJD4jXU7ZzEh/**,[eedff89a/48'/0'/0'/2']xpub6EhJvMneoLWAf8cuyLBLQiKiwh89RAmqXEqYeFuaCEHdHwxSRfzLrUxKXEBap7nZSHAYP7Jfq6gZmucotNzpMQ9Sb1nTqerqW8hrtmx6Y6o/**))",
    '/0/*,/1/*',
    'bc1qhs4u273g4azq7kqqpe6vh5wfhasfmrq7nheyzsnq77humd7rwtkqagvakf',
  ];
  const V3 = [
    'BSMS 1.0',
    "sh(wsh(multi(2,[793cc70b/48'/0'/0'/1']xpub6ErVmcYYHmavsMgxEcTZyzN5sqth1ZyRpFNJC26ij1wYGC2SBKYrgt9yariSbn7HLRoZUvhUhmPfsRTPrdhhGFscpPZzmch6UTdmRP1aZUj/**,[b3118e52/48'/0'/0'/1']xpub6Du5Jn6eYZE96ccmAc1ZTFPzdnzrvqfG4mpamDun2qZYKywoiQJMCbS3kWWMr6U3XW6s125RLsaPABWgv2yA749ieaMe67FxkTjMsbcxCch/**,[842bd2ed/48'/0'/0'/1']xpub6Ex81KopPkEt9hJiWHabYy8LNsSR4A7sUQoFBk9dR8XxHrr4p9HrYWN3NCf5uwfopHnQkCG7FYnZMztKbtRtbh6tzZC4xtHPbmVVxRSN7ic/**)))",
    '/0/*,/1/*',
    '3GzMtFXahiu4TpGNGFc4bHMvAcvz5vVQrT',
  ];

  it("BIP129's test vectors (templates, sorted and unsorted): first address verified, receive /0/*, change /1/*", () => {
    const w2 = importWallet(V2.join('\n'), MAINNET);
    expect(w2).toMatchObject({ format: 'bsms', scriptType: 'p2wsh', threshold: 2, sorted: true });
    expect(w2.internal).toMatch(/\/1\/\*,.*\/1\/\*\)\)#/);
    const w3 = importWallet(V3.join('\r\n') + '\r\n', MAINNET);
    expect(w3).toMatchObject({ scriptType: 'p2sh-p2wsh', threshold: 2, sorted: false });
    expect(w3.keys.map((k) => k.fingerprint)).toEqual(['793cc70b', 'b3118e52', '842bd2ed']);
  });

  it('a plain multipath descriptor with restrictions (as Sparrow writes), and "No path restrictions"', () => {
    const multipath = V2[1]!.replace(/\/\*\*/g, '/<0;1>/*');
    expect(importWallet([V2[0], multipath, V2[2], V2[3]].join('\n'), MAINNET).internal).toBe(importWallet(V2.join('\n'), MAINNET).internal);
    expect(importWallet([V2[0], multipath, 'No path restrictions', V2[3]].join('\n'), MAINNET).scriptType).toBe('p2wsh');
  });

  it('refuses a wrong first address, an address of another network, and malformed records', () => {
    expectImportError(() => importWallet([...V2.slice(0, 3), V3[3]].join('\n'), MAINNET), 'address-mismatch', 'line 4', /first address 3GzMt.* is not the descriptor's \(bc1qhs4u/);
    expectImportError(() => importWallet([...V2.slice(0, 3), 'tb1qhs4u273g4azq7kqqpe6vh5wfhasfmrq7nheyzsnq77humd7rwtkqagvakf'].join('\n'), MAINNET), 'invalid', 'line 4', /first address/);
    const tpubRecord = ['BSMS 1.0', `wsh(sortedmulti(2,${C.map((c) => `[${c.fingerprint}/48h/1h/0h/2h]${c.p2wsh}/**`).join(',')}))`, '/0/*,/1/*', 'bc1qhs4u273g4azq7kqqpe6vh5wfhasfmrq7nheyzsnq77humd7rwtkqagvakf'];
    expectImportError(() => importWallet(tpubRecord.join('\n'), REGTEST), 'network', 'line 4', /is a mainnet address, but the wallet is for regtest/);
    expectImportError(() => importWallet(['BSMS 2.0', ...V2.slice(1)].join('\n'), MAINNET), 'invalid', 'line 1', /'BSMS 2.0' is not a version/);
    // BIP129: a template with "No path restrictions" is the standard /0/*,/1/* (issue #33; Sparrow's Bip129Test agrees)
    expect(importWallet([V2[0], V2[1], 'No path restrictions', V2[3]].join('\n'), MAINNET).external).toBe(importWallet(V2.join('\n'), MAINNET).external);
    expectImportError(() => importWallet([V2[0], V2[1], "/0/*,/1/*,/2/*"].join('\n') + '\n' + V2[3], MAINNET), 'derivation', 'line 3', /not one or two unhardened path restrictions/);
    expectImportError(() => importWallet(V2.slice(0, 3).join('\n'), MAINNET), 'invalid', 'line 4', /no first address \(line 4\)/);
    const v1 = ['BSMS 1.0', "wsh(sortedmulti(1,[59865f44/48'/0'/0'/2']026d15412460ba0d881c21837bb999233896085a9ed4e5445bd637c10e579768ba,[b7044ca6/48'/0'/0'/2']030baf0497ab406ff50cb48b4013abac8a0338758d2fd54cd934927afa57cc2062))#rzx9dffd", 'No path restrictions', 'bc1quqy523xu3l8che3s8vja8n33qtg0uyugr9l5z092s3wa50p8t7rqy6zumf'];
    expectImportError(() => importWallet(v1.join('\n'), MAINNET), 'not-ranged', 'line 2', /single address/);
  });

  it('refuses key records and encrypted records with their reason', () => {
    const keyRecord = ['BSMS 1.0', '00', "[1cf0bf7e/48'/0'/0'/2']xpub6FL8FhxNNUVnG64YurPd16AfGyvFLhh7S2uSsDqR3Qfcm6o9jtcMYwh6DvmcBF9qozxNQmTCVvWtxLpKTnhVLN3Pgnu2D3pAoXYFgVyd8Yz", 'Signer 1 key', 'IB7v+qi1b+Xrwm/3bF+Rjl8QbIJ/FMQ40kUsOOQo1SqUWn5QlFWbBD8BKPRetfo1L1N7DmYjVscZNsmMrqRJGWw='];
    expectImportError(() => importWallet(keyRecord.join('\n'), MAINNET), 'unrecognized', 'file', /BSMS key record/);
    const encrypted = '734ce791b466861945e1ef6f74c63faec590793de54831f0036b28d08714b71a273cad18a5e1eff37dba6d850749594c9a3fd32b2069e8c69983ea269c5044b6bcaea26d9dbc8ad5d28bb8abfa02e3bfc7632fcc5c2b76e9abb1982ff11295858cfe44a8b97110ae970f58fff3fb6477f38ca9609eec78eedb1d640eaba489fd5e41e787b8d0bde48f1fa99cca641cabbee0f513fb1040cb73df10a57c9a34e4efcb069cd4c75467442c15d878ed9f40e3dffb98294931a6da4f444ae46f739b7fe002ce19fcfe71b05b9783d797ba45d568febbc8a2b0850da67f349d8567342352e1712c3d2a7ea1b2721df5efdb844431f0e5dcfa4acacb194c20785c9bb6dde90d64352fc913e9073b3b416be713bcc7632c821bbfddafa6199d471c54fb899f347f5fc706787ccaa82332dc8b93aeb3de3497d8e5c75f0f5d718c74bc6f8194fe999948e517f1c98398d9cb907d200f1d045394704b074dfb10e587f54fd78e95ef4bcbe77bf1376b390c3f47c91c12b2ed14073ea56bceab41f924302e62183c456b06d96b3da30439cb4320c764a0d6d1b3dabc06fc';
    expectImportError(() => importWallet(encrypted, MAINNET), 'encrypted', 'file', /encrypted/);
  });
});

describe('Coldcard multisig setup file', () => {
  it('2-of-3 P2WSH with Vpub keys: normalized to tpub, fingerprints lowercased, name kept', () => {
    const w = importWallet(FILES.coldcard, REGTEST);
    expect(w).toMatchObject({ name: 'CC vault', format: 'coldcard', scriptType: 'p2wsh', threshold: 2, warnings: [] });
    expect(w.keys).toEqual(C.map((c) => ({ xpub: c.p2wsh, fingerprint: c.fingerprint, path: 'm/48h/1h/0h/2h' })));
  });

  it('per-key Derivation lines, no Policy (N of N), no Format (P2SH, warned), policy spellings, unknown lines ignored', () => {
    const text = ['Name: mixed', 'Version: 3', `Derivation: m/45'`, `${C[0]!.fingerprint}: ${C[0]!.p2sh}`, 'some note', `Derivation: m/45h`, `${C[1]!.fingerprint}: ${C[1]!.p2sh}  # cosigner B`].join('\n');
    const w = importWallet(text, REGTEST);
    expect(w).toMatchObject({ scriptType: 'p2sh', threshold: 2 });
    expect(w.keys.map((k) => k.path)).toEqual(['m/45h', 'm/45h']);
    expect(w.warnings).toEqual([
      "Line 2 ('Version:') was ignored: Coldcard files have Name, Policy, Derivation, Format and 'fingerprint: key' lines.",
      "Line 5 was ignored: it is not 'Label: value'.",
      'The file has no Format line: P2SH (legacy multisig) assumed, as Coldcard does.',
    ]);
    expect(importWallet(FILES.coldcard.replace('Policy: 2 of 3', 'Policy: 1/3'), REGTEST).threshold).toBe(1);
  });

  it('refuses a bad policy, m > n, a key count other than N, unknown formats, paths that do not fit, no keys', () => {
    expectImportError(() => importWallet(FILES.coldcard.replace('Policy: 2 of 3', 'Policy: 4 of 3'), REGTEST), 'threshold', 'line 4', '4 of 3: a multisig cannot need more signatures than it has keys.');
    expectImportError(() => importWallet(FILES.coldcard.replace('Policy: 2 of 3', 'Policy: 2 of 4'), REGTEST), 'threshold', 'line 4', 'The wallet says it has 4 keys, but 3 are listed.');
    expectImportError(() => importWallet(FILES.coldcard.replace('Policy: 2 of 3', 'Policy: two'), REGTEST), 'threshold', 'line 4', /not a policy like "2 of 3"/);
    expectImportError(() => importWallet(FILES.coldcard.replace('Format: P2WSH', 'Format: P2TR'), REGTEST), 'script-type', 'line 6', /Unknown format 'P2TR'/);
    expectImportError(() => importWallet(FILES.coldcard.replace("Derivation: m/48'/1'/0'/2'", "Derivation: m/48'/1'/0'/1'"), REGTEST), 'derivation', 'line 8', /ends in 1h, but the key Vpub… was derived as child 2h/);
    expectImportError(() => importWallet(FILES.coldcard.replace(/^[0-9A-F]{8}: .*$/gm, ''), REGTEST, { format: 'coldcard' }), 'invalid', 'file', /lists no keys/);
    expectImportError(() => importWallet(FILES.coldcard, MAINNET), 'network', 'line 8', /Vpub….*mainnet/);
  });
});

describe("Sparrow's descriptor text and Core's listdescriptors", () => {
  it("Sparrow's export (multipath + receive + change paragraphs) is one wallet; unsorted multi is kept", () => {
    const w = importWallet(FILES.sparrow, REGTEST);
    expect(w).toMatchObject({ format: 'sparrow', scriptType: 'p2wsh', sorted: false, warnings: [] });
    const full = [FILES.sparrow, '', '# Receive descriptor (Bitcoin Core):', w.external, '', '# Change descriptor (Bitcoin Core):', w.internal].join('\n');
    expect(importWallet(full, REGTEST).external).toBe(w.external);
  });

  it('listdescriptors of a watch-only wallet: one script type chosen, the earliest timestamp as birthday', () => {
    const rec = readFileSync(join(FIXTURES_DIR, 'core', 'bitcoin-core-spend.jsonl'), 'utf8').split('\n').find((l) => l.includes('"name":"watch-only wallet"'))!;
    const text = JSON.stringify((JSON.parse(rec) as { response: { body: { result: unknown } } }).response.body.result);
    const w = importWallet(text, REGTEST, { scriptType: 'p2wpkh' });
    expect(w).toMatchObject({ name: 'watch', format: 'core', scriptType: 'p2wpkh', birthday: { kind: 'time', time: 1296688602 }, warnings: [] });
    expect(w.external).toMatch(/^wpkh\(\[95b076d0\/84h\/1h\/0h\]tpub.*\/0\/\*\)#hht4pnev$/);
    expect(w.internal).toMatch(/#xrw5uxf5$/);
    expectImportError(() => importWallet(text, REGTEST), 'script-type', 'scriptType', /has 4 kinds of addresses.*choose the script type/);
    expectImportError(() => importWallet(text, REGTEST, { scriptType: 'p2wsh' }), 'script-type', 'scriptType', /no Native SegWit multisig \(P2WSH\) descriptor/);
  });
});
