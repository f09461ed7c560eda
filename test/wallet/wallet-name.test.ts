/**
 * The default name of an imported wallet (#26): the name the file carries (Caravan's and Coldcard's
 * name, Specter's label, an extended key's words after it), else "Wallet N" with N the first number
 * the node and the profile do not use — never a fragment of the key ("vpub 7hB5m4DY") — always a
 * name the node can hold and the IPC contract accepts, and never one already in use.
 */
import { describe, expect, it } from 'vitest';
import { REGTEST } from '../../shared/bitcoin/networks';
import { channels } from '../../shared/ipc/contract';
import { cleanWalletName, fileBaseName, importWallet, suggestWalletName, walletNameProblem, WALLET_NAME_MAX } from '../../shared/wallet/index';
import { FILES, KEY_INPUTS, NODE } from './vectors';

/** What `wallet:import` itself accepts as a wallet name (the contract's zod schema). */
function contractAccepts(walletName: string): boolean {
  return channels['wallet:import'].request.safeParse({ text: 'x', walletName, rescan: { from: 'now' } }).success;
}

describe('the name an import carries (givenName)', () => {
  it('files that name the wallet: Caravan, Coldcard, Specter; an extended key with words after it', () => {
    expect(importWallet(FILES.caravan, REGTEST).givenName).toBe('Caravan vault');
    expect(importWallet(FILES.coldcard, REGTEST).givenName).toBe('CC vault');
    expect(importWallet(FILES.specter, REGTEST).givenName).toBe('Specter legacy');
    expect(importWallet(`${KEY_INPUTS.upub.xpub}  my phone`, REGTEST).givenName).toBe('my phone');
  });

  it('inputs without a name give none (the description still gets a name to show)', () => {
    const key = importWallet(KEY_INPUTS.vpub.xpub, REGTEST);
    expect(key.givenName).toBeUndefined();
    expect(key.name).toMatch(/^vpub …/); // the preview's title, not the wallet's name
    const sparrow = importWallet(FILES.sparrow, REGTEST);
    expect(sparrow.givenName).toBeUndefined();
    expect(sparrow.name).toBe('2-of-3 multisig');
    const unnamed = JSON.parse(FILES.caravan) as Record<string, unknown>;
    delete unnamed['name'];
    const caravan = importWallet(JSON.stringify(unnamed), REGTEST);
    expect(caravan.givenName).toBeUndefined();
    expect(caravan.name).toBe('2-of-3 multisig');
    const coldcard = importWallet(FILES.coldcard.replace('Name: CC vault\n', ''), REGTEST);
    expect(coldcard.givenName).toBeUndefined();
    expect(coldcard.name).toBe('2-of-3 multisig');
    expect(importWallet(NODE['vpub']!.external, REGTEST).givenName).toBeUndefined();
  });

  it("the import form's name wins over the file's", () => {
    const w = importWallet(FILES.caravan, REGTEST, { name: ' Family vault ' });
    expect(w).toMatchObject({ name: 'Family vault', givenName: 'Family vault' });
  });
});

describe('suggestWalletName', () => {
  it("the file's name when it is free", () => {
    expect(suggestWalletName('Caravan vault', ['watch', 'Wallet 1'])).toBe('Caravan vault');
  });

  it("the file's name already in use (ignoring case): the next free number after it", () => {
    expect(suggestWalletName('Caravan vault', ['caravan VAULT'])).toBe('Caravan vault 2');
    expect(suggestWalletName('Caravan vault', ['Caravan vault', 'Caravan vault 2'])).toBe('Caravan vault 3');
  });

  it('no name in the file: "Wallet N", N the first number not in use', () => {
    expect(suggestWalletName(null, [])).toBe('Wallet 1');
    expect(suggestWalletName(undefined, ['watch', '', 'default'])).toBe('Wallet 1');
    expect(suggestWalletName('', ['Wallet 1', 'wallet 2', 'Wallet 4'])).toBe('Wallet 3');
    expect(suggestWalletName('   ', ['Wallet 1'])).toBe('Wallet 2');
  });

  it('a name with nothing usable (only symbols) is no name', () => {
    expect(suggestWalletName('✓✓✓', ['Wallet 1'])).toBe('Wallet 2');
    expect(suggestWalletName('...', [])).toBe('Wallet 1');
  });

  it("a file's name is made safe: accents, quotes, slashes, long names", () => {
    expect(cleanWalletName('Família')).toBe('Familia');
    expect(cleanWalletName("Joe's cold storage")).toBe('Joes cold storage');
    expect(cleanWalletName('Vault / 2-of-3: "main"')).toBe('Vault 2-of-3 main');
    expect(cleanWalletName('  .hidden.  ')).toBe('hidden');
    expect(cleanWalletName('a\tb\nc')).toBe('a b c');
    expect(cleanWalletName('CON')).toBe('CON wallet');
    const long = cleanWalletName(`${'x'.repeat(WALLET_NAME_MAX - 1)} yyyy`);
    expect(long).toBe('x'.repeat(WALLET_NAME_MAX - 1));
    // At the limit and taken: the number still fits.
    const full = 'v'.repeat(WALLET_NAME_MAX);
    expect(suggestWalletName(full, [full])).toBe(`${'v'.repeat(WALLET_NAME_MAX - 2)} 2`);
  });

  it('every suggestion is a name the node can hold, the contract accepts, and not one in use', () => {
    const taken = ['Caravan vault', 'Wallet 1', 'watch'];
    for (const given of [null, '', 'Caravan vault', 'Família', "Joe's", 'Vault / 2-of-3: "main"', '✓', 'CON', 'x'.repeat(200), ' . ', 'vpub …7hB5m4DY']) {
      const name = suggestWalletName(given, taken);
      expect(walletNameProblem(name, taken), `${JSON.stringify(given)} → ${name}`).toBeNull();
      expect(contractAccepts(name), `${JSON.stringify(given)} → ${name}`).toBe(true);
    }
  });
});

describe('walletNameProblem', () => {
  it('accepts ordinary names', () => {
    expect(walletNameProblem('Wallet 3')).toBeNull();
    expect(walletNameProblem('cold_storage-2024.v2')).toBeNull();
  });

  it('refuses each bad name with its reason', () => {
    expect(walletNameProblem('')).toMatch(/Give the wallet a name/);
    expect(walletNameProblem('  ')).toMatch(/Give the wallet a name/);
    expect(walletNameProblem(' Vault')).toMatch(/start or end with a space/);
    expect(walletNameProblem('x'.repeat(WALLET_NAME_MAX + 1))).toMatch(/at most 64 characters \(this one has 65\)/);
    expect(walletNameProblem('a/b')).toMatch(/not “\/”/);
    expect(walletNameProblem('Família')).toMatch(/not “í”/);
    expect(walletNameProblem('.vault')).toMatch(/dot/);
    expect(walletNameProblem('vault.')).toMatch(/dot/);
    expect(walletNameProblem('nul')).toMatch(/reserved file name on Windows/);
    expect(walletNameProblem('COM1.backup')).toMatch(/reserved/);
    expect(walletNameProblem('VAULT', ['vault'])).toMatch(/already has a wallet named “vault”/);
  });

  it('agrees with the contract on the characters', () => {
    for (const n of ['a/b', 'Família', 'tab\there', 'ok name']) expect(walletNameProblem(n) === null).toBe(contractAccepts(n));
  });
});

describe('fileBaseName', () => {
  it("a file's name without folder and extension", () => {
    expect(fileBaseName('My Vault.txt')).toBe('My Vault');
    expect(fileBaseName('C:\\Users\\me\\cold.storage.json')).toBe('cold.storage');
    expect(fileBaseName('/home/me/wallet')).toBe('wallet');
    expect(fileBaseName('.hidden')).toBe('.hidden');
  });
});
