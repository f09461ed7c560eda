/**
 * Assembling a multisig from its cosigners' keys (shared/wallet/multisig-assemble.ts, issue #30): the
 * BIP48 paths, every way a cosigner comes in (a device's key, a pasted [fingerprint/path]xpub, Coldcard's
 * multisig key and generic exports from test/fixtures/exports, a BSMS key record), the refusals (a key
 * twice, two networks, no origin, Core's threshold and key-count rules in Core's words), and the
 * descriptor the import preview reads — its addresses computed here independently with
 * @scure/btc-signer from the BIP32 children (BIP67-sorted keys), not by Spyglass's descriptor code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as btc from '@scure/btc-signer';
import type { HDKey } from '@scure/bip32';
import { MAINNET, REGTEST, TESTNET } from '../../shared/bitcoin/networks';
import { importWallet, WalletAddresses } from '../../shared/wallet/index';
import { addCosigner, assembleMultisig, bip48Path, cosignerFromDevice, multisigRegistration, readCosigner, type Cosigner } from '../../shared/wallet/multisig-assemble';
import { expectImportError, fingerprint, master } from './helpers';

const EXPORTS = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'exports');
const REGTEST_NET = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const PATH = "m/48'/1'/0'/2'";

const masters = ['cosigner one', 'cosigner two', 'cosigner three'].map((l) => master(l));
const account = (m: HDKey, path = PATH) => m.derive(path);
/** `[fp/48h/1h/0h/2h]tpub…`, as a coordinator or a device's screen writes it. */
const expr = (m: HDKey, path = PATH) => `[${fingerprint(m)}/${path.slice(2)}]${account(m, path).publicExtendedKey}`;
const cosigners = (): Cosigner[] => masters.map((m, i) => readCosigner(expr(m), 'p2wsh', `key ${i}`));

/** The address at chain/index of a sortedmulti(m) over these accounts, made here with @scure/btc-signer. */
function independentAddress(m: number, accounts: HDKey[], chain: number, index: number, nested: boolean): string {
  const pubs = accounts.map((a) => a.deriveChild(chain).deriveChild(index).publicKey!);
  pubs.sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  const wsh = btc.p2wsh(btc.p2ms(m, pubs), REGTEST_NET);
  return (nested ? btc.p2sh(wsh, REGTEST_NET) : wsh).address!;
}

describe('BIP48 cosigner paths', () => {
  it("m/48'/coin'/account'/2' for P2WSH, /1' for P2SH-P2WSH; coin 0 on mainnet, 1 elsewhere", () => {
    expect(bip48Path('p2wsh', MAINNET, 0)).toBe('m/48h/0h/0h/2h');
    expect(bip48Path('p2sh-p2wsh', MAINNET, 3)).toBe('m/48h/0h/3h/1h');
    expect(bip48Path('p2wsh', REGTEST, 1)).toBe('m/48h/1h/1h/2h');
    expect(bip48Path('p2sh-p2wsh', TESTNET, 0)).toBe('m/48h/1h/0h/1h');
    expectImportError(() => bip48Path('p2wsh', REGTEST, -1), 'derivation', 'account');
    expectImportError(() => bip48Path('p2wsh', REGTEST, 2 ** 31), 'derivation', 'account');
  });
});

describe('reading one cosigner', () => {
  const m = masters[0]!;
  const want = { fingerprint: fingerprint(m), path: 'm/48h/1h/0h/2h', xpub: account(m).publicExtendedKey, net: 'test' };

  it("[fingerprint/path]xpub with ' or h, with or without a trailing /<0;1>/* or /0/*", () => {
    for (const t of [expr(m), expr(m).replace(/'/g, 'h'), `${expr(m)}/<0;1>/*`, `${expr(m)}/0/*`, `  ${expr(m)}\n`]) {
      expect(readCosigner(t, 'p2wsh')).toEqual({ ...want, source: 'pasted key' });
    }
  });

  it('a device’s key (getxpub) is checked like a pasted one', () => {
    expect(cosignerFromDevice({ fingerprint: want.fingerprint, path: 'm/48h/1h/0h/2h', xpub: want.xpub, source: 'trezor_t' })).toEqual({ ...want, source: 'trezor_t' });
    // a key that is not at the path the device was asked for
    expectImportError(() => cosignerFromDevice({ fingerprint: want.fingerprint, path: 'm/48h/1h/0h/1h', xpub: want.xpub, source: 'x' }), 'derivation', `device ${want.fingerprint}`, /ends in 1h, but the key tpub… was derived as child 2h/);
  });

  it("Coldcard's multisig key export (ccxp-XFP.json): the P2WSH or the P2SH-P2WSH key with its path; the Vpub/Upub read as its tpub", () => {
    const file = readFileSync(join(EXPORTS, 'coldcard-multisig-key-0F056943.json'), 'utf8');
    const o = JSON.parse(file) as Record<string, string>;
    const wsh = readCosigner(file, 'p2wsh');
    expect(wsh).toEqual({ fingerprint: '0f056943', path: 'm/48h/1h/0h/2h', xpub: o['p2wsh_desc']!.match(/\](tpub\w+)/)![1], net: 'test', source: 'Coldcard 0F056943 (file)' });
    const nested = readCosigner(file, 'p2sh-p2wsh');
    expect(nested).toMatchObject({ fingerprint: '0f056943', path: 'm/48h/1h/0h/1h', xpub: o['p2sh_p2wsh_desc']!.match(/\](tpub\w+)/)![1] });
  });

  it("Coldcard's generic export: its bip48_2 (P2WSH) or bip48_1 (P2SH-P2WSH) section under the master fingerprint", () => {
    const file = readFileSync(join(EXPORTS, 'coldcard-generic-export.json'), 'utf8');
    const o = JSON.parse(file) as Record<string, { xpub: string }>;
    expect(readCosigner(file, 'p2wsh')).toMatchObject({ fingerprint: '0f056943', path: 'm/48h/1h/0h/2h', xpub: o['bip48_2']!.xpub });
    expect(readCosigner(file, 'p2sh-p2wsh')).toMatchObject({ fingerprint: '0f056943', path: 'm/48h/1h/0h/1h', xpub: o['bip48_1']!.xpub });
  });

  it('a BIP129 BSMS key record (BSMS 1.0 / TOKEN / key / description / signature)', () => {
    const record = `BSMS 1.0\n00\n${expr(m)}\nCosigner one's Jade\nH1mG1zZ9cSxBpNlCFXv4zmdoMgyxZ0y+NzIcPV0Xw3ZzLFZzdpVvDx0g2NQUvi+iK2yKrYmVKNDx6QGeqnjGBk8=\n`;
    expect(readCosigner(record, 'p2wsh')).toEqual({ ...want, source: "BSMS key record “Cosigner one's Jade”" });
  });

  it('refused: no origin, a private key, something else, an origin its key contradicts', () => {
    expectImportError(() => readCosigner(account(m).publicExtendedKey, 'p2wsh'), 'derivation', 'key', /no origin: give it as \[fingerprint\/path\]tpub…/);
    expectImportError(() => readCosigner(`[${want.fingerprint}/48h/1h/0h/2h]${account(m).privateExtendedKey}`, 'p2wsh'), 'private-key', 'key');
    expectImportError(() => readCosigner('hello world', 'p2wsh'), 'unrecognized', 'key');
    expectImportError(() => readCosigner('', 'p2wsh'), 'empty', 'key');
    expectImportError(() => readCosigner('{"name": "not a key"}', 'p2wsh'), 'unrecognized', 'key');
    expectImportError(() => readCosigner(`[${want.fingerprint}/48h/1h/0h]${account(m).publicExtendedKey}`, 'p2wsh'), 'derivation', 'key', /has 3 steps, but the key tpub… is 4 steps below its master key/);
  });
});

describe('assembling the descriptor', () => {
  it('a 2-of-3 P2WSH: wsh(sortedmulti(2, each key /<0;1>/*)) with its checksum; the preview’s addresses are the ones computed independently', () => {
    const cs = cosigners();
    const a = assembleMultisig({ type: 'p2wsh', threshold: 2, cosigners: cs }, REGTEST);
    expect(a.descriptor).toMatch(/^wsh\(sortedmulti\(2,\[[0-9a-f]{8}\/48h\/1h\/0h\/2h\]tpub\w+\/<0;1>\/\*,.*\)\)#[a-z0-9]{8}$/);
    expect(a.name).toBe('2-of-3 multisig');
    expect(a.warnings).toEqual([]);
    const w = importWallet(a.descriptor, REGTEST);
    expect({ scriptType: w.scriptType, threshold: w.threshold, sorted: w.sorted }).toEqual({ scriptType: 'p2wsh', threshold: 2, sorted: true });
    expect(w.keys.map((k) => [k.fingerprint, k.path])).toEqual(masters.map((mm) => [fingerprint(mm), 'm/48h/1h/0h/2h']));
    const d = WalletAddresses.of(w);
    const accounts = masters.map((mm) => account(mm));
    for (const i of [0, 1, 7]) expect(d.address('receive', i)).toBe(independentAddress(2, accounts, 0, i, false));
    expect(d.address('change', 0)).toBe(independentAddress(2, accounts, 1, 0, false));
    // Bitcoin Core 31.99 (-regtest) deriveaddresses of this very descriptor (a.descriptor, multipath) over [0,1], recorded by hand
    expect([0, 1].map((i) => d.address('receive', i))).toEqual(['bcrt1qc5unqd6f2033rm0k8vaqxsckunh0svkhfvxxracj705027tyqryseu8z0f', 'bcrt1q6t5x47ch67n62qmjwawqglc7rvmg7jghypgzzh2ca2jn778gc8vqk2q0kk']);
    expect([0, 1].map((i) => d.address('change', i))).toEqual(['bcrt1q58rf5s8k0advf48euqtpc2xhgz6mg47h3jlk0sy3d8mntedtk9zqx937j0', 'bcrt1qqm9r93ch708phlwv9az33hlhurk0gveyfw2undu8fy47u8ulam2qk0u9rz']);
  });

  it('a 2-of-2 P2SH-P2WSH at the /1h BIP48 keys: sh(wsh(sortedmulti(…)))', () => {
    const path = "m/48'/1'/0'/1'";
    const cs = masters.slice(0, 2).map((mm) => readCosigner(expr(mm, path), 'p2sh-p2wsh'));
    const a = assembleMultisig({ type: 'p2sh-p2wsh', threshold: 2, cosigners: cs }, REGTEST);
    expect(a.descriptor).toMatch(/^sh\(wsh\(sortedmulti\(2,/);
    const w = importWallet(a.descriptor, REGTEST);
    expect(w.scriptType).toBe('p2sh-p2wsh');
    expect(WalletAddresses.of(w).address('receive', 0)).toBe(independentAddress(2, masters.slice(0, 2).map((mm) => account(mm, path)), 0, 0, true));
    // Bitcoin Core 31.99 (-regtest) deriveaddresses of a.descriptor [0,1], recorded by hand
    const d = WalletAddresses.of(w);
    expect([0, 1].map((i) => d.address('receive', i))).toEqual(['2MvJ5j9ktjGbhLBgPpkSEhm62Kv8yLR4MsX', '2N9JCEhj9MKfjx9BQd3nLZXThM9s9rbnYpK']);
    expect([0, 1].map((i) => d.address('change', i))).toEqual(['2NB3LAkTshiPZnYA9mfGHKn6VKgLh6tmXWP', '2N5bqBSzvk1Ud4dXHJPVZ6cRcdVrdqQKLWW']);
  });

  it('refused: the same key twice (the same cosigner added from a device and pasted), two keys claiming one origin', () => {
    const [one, two] = cosigners();
    const again = cosignerFromDevice({ fingerprint: one!.fingerprint, path: one!.path, xpub: one!.xpub, source: 'trezor_t (device)' });
    expectImportError(() => addCosigner([one!, two!], again, REGTEST), 'duplicate-key', 'cosigners[2]', 'Cosigner 3 (trezor_t (device)) is the same key as cosigner 1 (pasted key): each cosigner must have its own key.');
    const liar: Cosigner = { ...two!, fingerprint: one!.fingerprint };
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 1, cosigners: [one!, liar] }, REGTEST), 'duplicate-key', 'cosigners[1]', /both claim \[[0-9a-f]{8}\/48h\/1h\/0h\/2h\] but are different keys/);
  });

  it('refused: keys of two networks (an xpub next to tpubs), and keys of another network than the node’s', () => {
    const mainKey = master('mainnet cosigner', true);
    const x = readCosigner(`[${fingerprint(mainKey)}/48h/0h/0h/2h]${account(mainKey, "m/48'/0'/0'/2'").publicExtendedKey}`, 'p2wsh');
    expect(x.net).toBe('main');
    expectImportError(() => addCosigner(cosigners(), x, REGTEST), 'network', 'cosigners[3]', 'Cosigner 4’s key is an xpub (mainnet), but cosigner 1’s is a tpub (testnet, signet or regtest): the keys of one wallet belong to one network.');
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 2, cosigners: cosigners() }, MAINNET), 'network', 'cosigners[0]', /is for testnet, signet or regtest, but the wallet is for/);
  });

  it("Core's rules in Core's words: threshold 0, more signatures than keys, more than 20 keys; past 15 keys a warning about devices", () => {
    const cs = cosigners();
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 0, cosigners: cs }, REGTEST), 'threshold', 'threshold', 'Multisig threshold cannot be 0, must be at least 1');
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 4, cosigners: cs }, REGTEST), 'threshold', 'threshold', 'Multisig threshold cannot be larger than the number of keys; threshold is 4 but only 3 keys specified');
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 1, cosigners: [] }, REGTEST), 'threshold', 'threshold', 'Cannot have 0 keys in multisig; must have between 1 and 20 keys, inclusive');
    const many = Array.from({ length: 21 }, (_, i) => readCosigner(expr(master(`many ${i}`)), 'p2wsh'));
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 2, cosigners: many }, REGTEST), 'threshold', 'threshold', 'Cannot have 21 keys in multisig; must have between 1 and 20 keys, inclusive');
    const sixteen = assembleMultisig({ type: 'p2wsh', threshold: 2, cosigners: many.slice(0, 16) }, REGTEST);
    expect(sixteen.warnings).toEqual([expect.stringMatching(/^16 keys: Bitcoin Core watches up to 20, but Coldcard and Trezor sign multisigs of at most 15 keys/)]);
    expect(importWallet(sixteen.descriptor, REGTEST).keys).toHaveLength(16);
    expectImportError(() => assembleMultisig({ type: 'p2wsh', threshold: 1.5, cosigners: cs }, REGTEST), 'threshold', 'threshold');
  });
});

describe('which devices need a multisig registered (Receive → Verify on device)', () => {
  it('Ledger, BitBox02, Jade and Coldcard must know the policy first; Trezor and KeepKey show it from the descriptor', () => {
    for (const t of ['ledger', 'bitbox02', 'jade', 'coldcard', 'something-new']) expect(multisigRegistration(t).needed, t).toBe(true);
    for (const t of ['trezor', 'keepkey']) expect(multisigRegistration(t).needed, t).toBe(false);
    expect(multisigRegistration('coldcard').how).toMatch(/Import from File.*Export BSMS/);
    expect(multisigRegistration('ledger').how).toMatch(/Ledger Live/);
  });
});
