/** Importing an extended public key, and one or more output descriptors: results and every refusal. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAINNET, REGTEST } from '../../shared/bitcoin/networks';
import { importDescriptors, importExtendedKey, importWallet } from '../../shared/wallet/index';
import { FIXTURES_DIR } from '../fixtures';
import { expectImportError, fingerprint, master, testWif } from './helpers';
import { COSIGNERS, KEY_INPUTS, SINGLE } from './vectors';

const spend = readFileSync(join(FIXTURES_DIR, 'core', 'bitcoin-core-spend.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { group: string; name: string; request: { body: string }; response: { body: { result: unknown; error: { message: string } | null } } });
const recorded = (name: string) => spend.find((r) => r.group === 'getdescriptorinfo' && r.name === name)!;
const WPKH = (JSON.parse(recorded('wpkh xpub ranged, no checksum').request.body) as { params: [string] }).params[0];
const WPKH_INFO = recorded('wpkh xpub ranged, no checksum').response.body.result as { descriptor: string };
const C = COSIGNERS;
const key = (i: number, branch = '0/*') => `[${C[i]!.fingerprint}/48h/1h/0h/2h]${C[i]!.p2wsh}/${branch}`;
const wsh = (m: number, keys: string[]) => `wsh(sortedmulti(${m},${keys.join(',')}))`;

describe('an extended public key', () => {
  it('zpub/vpub: native SegWit from the prefix, normalized to tpub, with the form fields as origin', () => {
    const w = importExtendedKey({ xpub: KEY_INPUTS.vpub.xpub, fingerprint: SINGLE.fingerprint.toUpperCase(), path: "m/84'/1'/0'" }, REGTEST);
    expect(w).toMatchObject({ scriptType: 'p2wpkh', scriptTypeSource: 'prefix', threshold: 1, format: 'xpub', network: 'regtest', warnings: [] });
    expect(w.keys).toEqual([{ xpub: SINGLE.bip84, fingerprint: SINGLE.fingerprint, path: 'm/84h/1h/0h' }]);
    expect(w.external).toBe(`wpkh([${SINGLE.fingerprint}/84h/1h/0h]${SINGLE.bip84}/0/*)#` + w.external.split('#')[1]);
  });

  it('tpub: the script type comes from a BIP44/49/84/86 path, else P2PKH is assumed with a warning; overridable', () => {
    expect(importExtendedKey({ xpub: SINGLE.bip86, path: "m/86'/1'/0'", fingerprint: SINGLE.fingerprint }, REGTEST)).toMatchObject({ scriptType: 'p2tr', scriptTypeSource: 'path' });
    const assumed = importExtendedKey({ xpub: SINGLE.bip84 }, REGTEST);
    expect(assumed).toMatchObject({ scriptType: 'p2pkh', scriptTypeSource: 'assumed' });
    expect(assumed.warnings.join(' ')).toMatch(/does not say which addresses.*choose the script type/);
    expect(assumed.warnings.join(' ')).toMatch(/no master fingerprint/);
    expect(importExtendedKey({ xpub: SINGLE.bip84, scriptType: 'p2wpkh' }, REGTEST)).toMatchObject({ scriptType: 'p2wpkh', scriptTypeSource: 'given' });
  });

  it("takes a key expression '[fp/path]key' and a label after the key on a pasted line", () => {
    const w = importWallet(`[${SINGLE.fingerprint}/84h/1h/0h]${SINGLE.bip84}  Ledger account 1`, REGTEST, { scriptType: 'p2wpkh' });
    expect(w.name).toBe('Ledger account 1');
    expect(w.keys[0]).toMatchObject({ fingerprint: SINGLE.fingerprint, path: 'm/84h/1h/0h' });
  });

  it('fills in the origin a depth-0 or depth-1 key implies, and checks a given one', () => {
    const m = master('depth one', true);
    const child = m.deriveChild(0x80000000 + 84);
    const w = importExtendedKey({ xpub: child.publicExtendedKey, scriptType: 'p2wpkh' }, MAINNET);
    expect(w.keys[0]).toMatchObject({ fingerprint: fingerprint(m), path: 'm/84h' });
    const root = importExtendedKey({ xpub: m.publicExtendedKey, scriptType: 'p2wpkh' }, MAINNET);
    expect(root.keys[0]).toMatchObject({ fingerprint: fingerprint(m), path: 'm' });
    expectImportError(() => importExtendedKey({ xpub: child.publicExtendedKey, fingerprint: 'deadbeef' }, MAINNET), 'derivation', 'fingerprint', /not the one the key xpub… records for its master key/);
    expectImportError(() => importExtendedKey({ xpub: m.publicExtendedKey, fingerprint: 'deadbeef' }, MAINNET), 'derivation', 'fingerprint', /not this master key's/);
  });

  it('refuses a path that does not fit the key (depth, child number), malformed fields, and conflicts with the key expression', () => {
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84, path: "m/84'/1'" }, REGTEST), 'derivation', 'path', 'The derivation path m/84h/1h has 2 steps, but the key tpub… is 3 steps below its master key.');
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84, path: "m/84'/1'/1'" }, REGTEST), 'derivation', 'path', 'The derivation path m/84h/1h/1h ends in 1h, but the key tpub… was derived as child 0h.');
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84, path: 'm/84x/1' }, REGTEST), 'derivation', 'path', /step '84x' is not a number/);
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84, fingerprint: 'a7400' }, REGTEST), 'invalid', 'fingerprint', /8 hexadecimal digits/);
    expectImportError(() => importExtendedKey({ xpub: `[${SINGLE.fingerprint}/84h/1h/0h]${SINGLE.bip84}`, fingerprint: '00000000' }, REGTEST), 'derivation', 'fingerprint', /differs from the key's origin/);
    expectImportError(() => importExtendedKey({ xpub: `[${SINGLE.fingerprint}/84h/1h/0h]${SINGLE.bip84}`, path: "m/49'/1'/0'" }, REGTEST), 'derivation', 'path', /differs from the key's origin/);
  });

  it('refuses private keys, keys of another network, typos, multisig keys alone, and unknown or multisig script types', () => {
    const m = master('private');
    expectImportError(() => importExtendedKey({ xpub: m.privateExtendedKey }, REGTEST), 'private-key', 'xpub', /extended private key \(tprv…\).*never takes private keys/);
    expectImportError(() => importWallet(testWif('wif'), REGTEST), 'private-key', 'file', /a private key \(WIF\)/);
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84 }, MAINNET), 'network', 'xpub', 'This key (tpub…) is for testnet, signet or regtest, but the wallet is for mainnet.');
    expectImportError(() => importExtendedKey({ xpub: master('main', true).publicExtendedKey }, REGTEST), 'network', 'xpub', /is for mainnet, but the wallet is for regtest/);
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84.slice(0, -1) + 'x' }, REGTEST), 'invalid', 'xpub', /not a valid extended public key/);
    expectImportError(() => importExtendedKey({ xpub: 'hello' }, REGTEST), 'invalid', 'xpub', /not an extended public key/);
    const vpubMulti = 'Vpub5nJ4haLTPSx6exZbZXPWoCRyDDSwuFpdyscN9NNHiBVboxRCvXGqvqMxuGQDvjak8vYJnGgNQexpVQyuZdYKu5nGJTze7VPZpvGcDJ9d4FR';
    expectImportError(() => importExtendedKey({ xpub: vpubMulti }, REGTEST), 'script-type', 'xpub', /one cosigner's key of a Native SegWit multisig \(P2WSH\) wallet/);
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84, scriptType: 'p2wsh' }, REGTEST), 'script-type', 'scriptType', /needs all cosigners' keys/);
    expectImportError(() => importExtendedKey({ xpub: SINGLE.bip84, scriptType: 'p2pk' as never }, REGTEST), 'script-type', 'scriptType', /Unknown script type 'p2pk'/);
  });
});

describe('output descriptors', () => {
  it("one descriptor without checksum: Core's normalized form with checksum, change derived /0/* → /1/* (warned)", () => {
    const w = importDescriptors([{ text: WPKH, field: 'descriptor' }], REGTEST);
    expect(w.external).toBe(WPKH_INFO.descriptor);
    expect(w.internal).toBe(WPKH_INFO.descriptor.split('#')[0]!.replace('/0/*', '/1/*') + '#' + w.internal!.split('#')[1]);
    expect(w.warnings).toEqual(['No change descriptor was given: change addresses are derived with /1/* in place of /0/*, as most wallets do.']);
  });

  it("multipath <0;1> gives the same pair as getdescriptorinfo's multipath_expansion", () => {
    const r = recorded('multipath <0;1>');
    const text = (JSON.parse(r.request.body) as { params: [string] }).params[0];
    const exp = (r.response.body.result as { multipath_expansion: string[] }).multipath_expansion;
    const w = importWallet(text, REGTEST);
    expect([w.external, w.internal]).toEqual(exp);
    expect(w.warnings).toEqual([]);
  });

  it('a receive/change pair in either order, with apostrophes and SLIP-132 keys, and a descriptor without branch', () => {
    const vpub = 'Vpub5nJ4haLTPSx6exZbZXPWoCRyDDSwuFpdyscN9NNHiBVboxRCvXGqvqMxuGQDvjak8vYJnGgNQexpVQyuZdYKu5nGJTze7VPZpvGcDJ9d4FR';
    const change = wsh(2, [key(0, '1/*'), key(1, '1/*'), key(2, '1/*')]).replace(C[0]!.p2wsh, vpub).replace(/h\//g, "'/");
    const receive = wsh(2, [key(0), key(1), key(2)]);
    const w = importWallet(`${change}\n${receive}`, REGTEST);
    expect(w.external.split('#')[0]).toBe(receive);
    expect(w.internal!.split('#')[0]).toBe(wsh(2, [key(0, '1/*'), key(1, '1/*'), key(2, '1/*')]));
    expect(w.keys.map((k) => k.xpub)).toEqual(C.map((c) => c.p2wsh));
    const flat = importWallet(`wpkh(${C[0]!.p2wsh}/*)`, REGTEST);
    expect(flat.internal).toBeNull();
    expect(flat.warnings.join(' ')).toMatch(/no receive\/change branch/);
  });

  it("refuses a wrong checksum with Core's words (expected vs got), and malformed checksums", () => {
    const bad = (JSON.parse(spend.find((r) => r.name === 'bad checksum')!.request.body) as { params: [string] }).params[0];
    const core = spend.find((r) => r.name === 'bad checksum')!.response.body.error!.message;
    expectImportError(() => importWallet(bad, REGTEST), 'checksum', 'descriptor', core);
    expectImportError(() => importWallet(WPKH + '#abc', REGTEST), 'checksum', 'descriptor', 'Expected 8 character checksum, not 3 characters');
    expectImportError(() => importWallet(WPKH + '#aaaaaaaa#bbbbbbbb', REGTEST), 'checksum', 'descriptor', "Multiple '#' symbols");
    expectImportError(() => importWallet(`${WPKH}\n${WPKH.replace('/0/*', '/1/*')}#qqqqqqqq`, REGTEST), 'checksum', 'line 2', /Provided checksum 'qqqqqqqq' does not match computed checksum/);
  });

  it("refuses private keys (xprv, WIF) anywhere in a descriptor, and keys of another network", () => {
    const m = master('desc private');
    expectImportError(() => importWallet(`wpkh(${m.privateExtendedKey}/0/*)`, REGTEST), 'private-key', 'file', /tprv/);
    expectImportError(() => importDescriptors([{ text: `wsh(multi(1,${testWif('w')},${key(0)}))`, field: 'descriptor' }], REGTEST), 'private-key', 'descriptor', /WIF/);
    expectImportError(() => importWallet(`wpkh(${master('m', true).publicExtendedKey}/0/*)`, REGTEST), 'network', 'descriptor', /xpub….*mainnet/);
  });

  it("refuses m > n and m < 1 (Core's messages), duplicate keys, and more keys than the script holds", () => {
    expectImportError(() => importWallet(wsh(4, [key(0), key(1), key(2)]), REGTEST), 'threshold', 'descriptor', 'Multisig threshold cannot be larger than the number of keys; threshold is 4 but only 3 keys specified');
    expectImportError(() => importWallet(wsh(0, [key(0), key(1)]), REGTEST), 'threshold', 'descriptor', 'Multisig threshold cannot be 0, must be at least 1');
    expectImportError(() => importWallet(wsh(2, [key(0), key(1), key(0)]), REGTEST), 'duplicate-key', 'descriptor', 'key 3 is the same key as key 1: each cosigner must have its own key.');
    const sixteen = Array.from({ length: 16 }, (_, i) => master(`k${i}`).derive("m/45'").publicExtendedKey + '/0/*');
    expectImportError(() => importWallet(`sh(sortedmulti(2,${sixteen.join(',')}))`, REGTEST), 'threshold', 'descriptor', /P2SH script is too large/);
  });

  it('refuses shapes that are not a watchable wallet, and inconsistent derivations', () => {
    expectImportError(() => importWallet(`pk(${key(0)})`, REGTEST), 'script-type', 'descriptor', /pk\(…\) is not a wallet Spyglass can watch/);
    expectImportError(() => importWallet(`sh(pkh(${key(0)}))`, REGTEST), 'script-type', 'descriptor', /sh\(…\) is not a wallet/);
    expectImportError(() => importWallet(`combo(${key(0)})`, REGTEST), 'invalid', 'descriptor', 'combo() descriptors are not supported');
    expectImportError(() => importWallet(wsh(2, [key(0), key(1, '1/*'), key(2)]), REGTEST), 'derivation', 'descriptor', /different branches \(\/0\/\*, \/1\/\*\)/);
    expectImportError(() => importWallet(`${wsh(2, [key(0), key(1)])}\n${wsh(2, [key(0, '1/*'), key(2, '1/*')])}`, REGTEST), 'derivation', 'line 2', /not the receive and change halves of one wallet/);
    expectImportError(() => importWallet(`${wsh(2, [key(0), key(1)])}\n${wsh(2, [key(0, '1/*'), key(1, '1/*')])}\n${wsh(1, [key(0), key(1)])}`, REGTEST), 'derivation', 'line 3', /more than one wallet \(3 different ones\)/);
    expectImportError(() => importWallet(`wpkh(${key(0, '<0;1;2>/*')})`, REGTEST), 'derivation', 'descriptor', /3 branches/);
    expectImportError(() => importWallet(`wpkh(${key(0, '*h')})`, REGTEST), 'derivation', 'descriptor', /hardened step after the extended public key/);
    expectImportError(() => importWallet(`wpkh([${C[0]!.fingerprint}/48h/1h/0h]${C[0]!.p2wsh}/0/*)`, REGTEST), 'derivation', 'descriptor', /m\/48h\/1h\/0h has 3 steps, but the key tpub… is 4 steps/);
    expectImportError(() => importWallet(`wsh(multi(1,${key(0)},[${C[1]!.fingerprint}/48h/1h/0h/2h]${C[0]!.p2shP2wsh}/0/*))`, REGTEST), 'derivation', 'descriptor', /ends in 2h, but the key tpub… was derived as child 1h/);
    expectImportError(() => importWallet(`wsh(multi(1,${key(0)},[${C[0]!.fingerprint}/48h/1h/0h/2h]${C[1]!.p2wsh}/0/*))`, REGTEST), 'derivation', 'descriptor', /key 2 and key 1 both claim \[a74008ce\/48h\/1h\/0h\/2h\]/);
  });

  it('refuses a descriptor without wildcard, a fixed key in a ranged one, and garbage (Core\'s message)', () => {
    expectImportError(() => importWallet(`wpkh(${C[0]!.p2wsh}/0/5)`, REGTEST), 'not-ranged', 'descriptor', /single address, not a wallet/);
    expectImportError(() => importWallet(`wsh(multi(1,${key(0)},02b1a651995c411ea36ee728ab261d26091c1d5c8e100d4be789dd03658899e1c5))`, REGTEST), 'not-ranged', 'descriptor', /Key 2 is a fixed public key/);
    const garbage = spend.find((r) => r.name === 'garbage')!;
    expectImportError(() => importDescriptors([{ text: 'wpkh(nonsense)', field: 'descriptor' }], REGTEST), 'invalid', 'descriptor', garbage.response.body.error!.message);
    expectImportError(() => importDescriptors([], REGTEST), 'invalid', 'descriptor', /No descriptor/);
  });
});
