/**
 * Issue #32 part 4: the backup files of Liana and Nunchuk. Liana's wallet backup JSON
 * (shared/wallet/formats/liana.ts; real files from wizardsardine/liana in test/fixtures/exports, also run
 * by export-corpus.test.ts) is read as Liana reads it; its descriptor goes through the descriptor import,
 * so Bitcoin Core's refusals come in Core's words. Nunchuk's wallet export is a BIP129 BSMS 1.0 record
 * (libnunchuk src/utils/bsms.hpp GetDescriptorRecord), read by the BSMS import.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deriveAddresses, parseDescriptor } from '../../shared/bitcoin/descriptor';
import { MAINNET, REGTEST, SIGNET, TESTNET } from '../../shared/bitcoin/networks';
import { detectImport, exportDescriptors, importWallet, WalletAddresses, WalletImportError } from '../../shared/wallet/index';
import { expectImportError, fingerprint, master } from './helpers';

const DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'exports');
const text = (file: string): string => readFileSync(join(DIR, file), 'utf8');
const liana = JSON.parse(text('liana-backup-regtest.json')) as { accounts: Array<Record<string, unknown>>; network: string; name: string };
const withAccounts = (accounts: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ ...liana, ...extra, accounts });

describe("Liana's wallet backup (liana-gui/src/backup.rs)", () => {
  it('is recognized: accounts with a descriptor and one of Liana’s network names', () => {
    expect(detectImport(text('liana-backup-regtest.json'))).toMatchObject({ format: 'liana', wallet: true, description: 'a Liana wallet backup (JSON)' });
    expect(detectImport(text('liana-backup-signet-minimal.json')).format).toBe('liana');
    expect(detectImport('{"network":"signet","accounts":[]}').format).toBe('liana');
    // another network name, or accounts without descriptors: not Liana's
    expect(detectImport('{"network":"mainnet","accounts":[]}').format).toBe('unknown');
    expect(detectImport('{"network":"signet","accounts":[{"xpub":"x"}]}').format).toBe('unknown');
  });

  it("its miniscript descriptor is one Bitcoin Core reads, and Spyglass watches it: Core's addresses, its name, key alias and birthday", () => {
    const d = liana.accounts[0]!['descriptor'] as string;
    // Spyglass's port of Core's parser reads it: checksum, multipath <0;1> and <2;3>, the timelock
    expect(parseDescriptor(d, REGTEST, { requireChecksum: true }).expandMultipath()).toHaveLength(2);
    // Bitcoin Core 31.99 (-regtest, getdescriptorinfo then deriveaddresses "<desc>" "[0,0]", run by hand
    // for this test) reads it and gives these first receive and change addresses; so does the port
    const core = [['bcrt1qsyhfagcf3u4s5xcymdxymt75k5c2upq4y7qudms7twtfk2ydyr3qemjup3'], ['bcrt1qhfdxra2uczvgde8g2s2snt6k3h6quz4flk32vxz0krf9vqs6q9eqzm7q0l']];
    expect(deriveAddresses(d, REGTEST, [0, 0])).toEqual(core);
    // the wallet: receive <0;1>'s first branch with <2;3>'s, change the second of each (one signer key, used twice)
    const w = importWallet(text('liana-backup-regtest.json'), REGTEST);
    const addr = WalletAddresses.of(w);
    expect([[addr.address('receive', 0)], [addr.address('change', 0)]]).toEqual(core);
    expect({ policy: w.policy, scriptType: w.scriptType, keys: w.keys.length, label: w.keys[0]!.label, birthday: w.birthday, name: w.name, warnings: w.warnings }).toEqual({
      policy: true,
      scriptType: 'p2wsh',
      keys: 1,
      label: 'a',
      birthday: { kind: 'time', time: 1748013169 },
      name: liana.accounts[0]!['name'] ?? liana.name,
      warnings: [],
    });
    expect(w.external).toMatch(/\/0\/\*\),and_v\(v:pkh\(.*\/2\/\*\),older\(52596\)\)\)\)#/);
    // exported, the wallet is the backup's own multipath descriptor again (what Liana restores)
    expect(exportDescriptors(w).multipath).toBe(parseDescriptor(d, REGTEST).toString());
  });

  it('refused as Liana refuses it: another network than the node’s, no wallet or several', () => {
    expectImportError(() => importWallet(text('liana-backup-regtest.json'), SIGNET), 'network', 'network', 'This Liana backup is of a wallet on regtest, but your node is on signet.');
    expectImportError(() => importWallet(text('liana-backup-signet-minimal.json'), TESTNET), 'network', 'network', /wallet on signet, but your node is on testnet3/);
    expectImportError(() => importWallet(withAccounts([]), REGTEST), 'invalid', 'accounts', /has none .*Backup: Zero or several wallets/);
    expectImportError(() => importWallet(withAccounts([liana.accounts[0], liana.accounts[0]]), REGTEST), 'invalid', 'accounts', /this one has 2/);
  });

  it("what Bitcoin Core refuses, in Core's words: a wrong checksum, a threshold above the keys", () => {
    const d = liana.accounts[0]!['descriptor'] as string;
    const bad = d.replace(/#(\w+)$/, '#xxxxxxxx');
    expectImportError(() => importWallet(withAccounts([{ ...liana.accounts[0], descriptor: bad }]), REGTEST), 'checksum', 'accounts[0].descriptor', `Provided checksum 'xxxxxxxx' does not match computed checksum '${d.split('#')[1]}'`);
    const [a, b] = [master('liana a'), master('liana b')].map((m) => `[${fingerprint(m)}/48h/1h/0h/2h]${m.derive("m/48'/1'/0'/2'").publicExtendedKey}/<0;1>/*`);
    expectImportError(() => importWallet(withAccounts([{ descriptor: `wsh(multi(3,${a},${b}))` }]), REGTEST), 'threshold', 'accounts[0].descriptor', 'Multisig threshold cannot be larger than the number of keys; threshold is 3 but only 2 keys specified');
  });

  it('a backup whose descriptor Spyglass watches: its name, key aliases and birthday carry over (a backup written here in Liana’s format)', () => {
    const ms = [master('liana a'), master('liana b')];
    const keys = ms.map((m) => `[${fingerprint(m)}/48h/1h/0h/2h]${m.derive("m/48'/1'/0'/2'").publicExtendedKey}/<0;1>/*`);
    const file = withAccounts([{ name: 'Family', descriptor: `wsh(sortedmulti(1,${keys.join(',')}))`, timestamp: 1748013169, keys: { [fingerprint(ms[0]!)]: { key: fingerprint(ms[0]!), alias: 'Alice' } } }]);
    const w = importWallet(file, REGTEST);
    expect({ format: w.format, name: w.name, givenName: w.givenName, birthday: w.birthday, threshold: w.threshold }).toEqual({ format: 'liana', name: 'Family', givenName: 'Family', birthday: { kind: 'time', time: 1748013169 }, threshold: 1 });
    expect(w.keys.map((k) => k.label ?? null)).toEqual(w.keys.map((k) => (k.fingerprint === fingerprint(ms[0]!) ? 'Alice' : null)));
    expect(WalletAddresses.of(w).address('receive', 0)).toMatch(/^bcrt1q/);
  });
});

describe("Nunchuk's wallet export (a BSMS 1.0 record)", () => {
  it('is read by the BSMS import: its /** keys, its path restrictions and its first address', () => {
    expect(detectImport(text('nunchuk-payment-wallet.bsms')).format).toBe('bsms');
    // the addresses: export-corpus.test.ts (Core 31.99's deriveaddresses, and the record's own line 4)
    const w = importWallet(text('nunchuk-payment-wallet.bsms'), MAINNET);
    expect({ threshold: w.threshold, n: w.keys.length, first: WalletAddresses.of(w).address('receive', 0) }).toEqual({ threshold: 2, n: 4, first: text('nunchuk-payment-wallet.bsms').trim().split('\n')[3] });
    // a record whose stated address is not its descriptor's is refused (libnunchuk's ParseDescriptorRecord refuses it too)
    const wrong = text('nunchuk-payment-wallet.bsms').replace('bc1qft5swsj3nnm48qcpwvsqmht899gf6zk28tvvq6pdkjekaq3rltaqkztttq', 'bc1qljlk4g2vsgj0n09392fqmklesz02r9x8eezhekau6udtuhdqejfqlllyq9');
    expect(() => importWallet(wrong, MAINNET)).toThrow(WalletImportError);
  });
});
