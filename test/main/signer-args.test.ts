/**
 * The command lines Spyglass gives the signer program (electron/main/signer/args.ts): fixed options,
 * values checked to the one form HWI takes, nothing a PSBT, file or link wrote becoming an option, and
 * a PSBT too long for a command line sent on standard input (HWI's --stdin, as Bitcoin Core does).
 */
import { describe, expect, it } from 'vitest';
import { checkAddressDescriptor, displayAddressArgs, enumerateArgs, getDescriptorsArgs, getXpubArgs, PSBT_ARGV_MAX, signTxArgs } from '../../electron/main/signer/args';
import { descriptorsOf, fingerprintOf } from '../support/hwi-devices';

const fp = fingerprintOf('A');

describe('signer program arguments', () => {
  it('each command: the exact argv', () => {
    expect(enumerateArgs()).toEqual({ args: ['enumerate'] });
    expect(getDescriptorsArgs(fp.toUpperCase(), 'regtest', 3)).toEqual({ args: ['--fingerprint', fp, '--chain', 'regtest', 'getdescriptors', '--account', '3'] });
    expect(signTxArgs(fp, 'main', 'cHNidP8BAA==')).toEqual({ args: ['--fingerprint', fp, '--chain', 'main', 'signtx', 'cHNidP8BAA=='] });
    // hwilib/_cli.py getxpub: the path is its one positional argument; ' is sent as h
    expect(getXpubArgs(fp, 'regtest', "m/48'/1'/0'/2'")).toEqual({ args: ['--fingerprint', fp, '--chain', 'regtest', 'getxpub', 'm/48h/1h/0h/2h'] });
    expect(getXpubArgs(fp, 'main', 'm')).toEqual({ args: ['--fingerprint', fp, '--chain', 'main', 'getxpub', 'm'] });
    const wpkh = descriptorsOf({ name: 'A' }, 'regtest', 0).receive[2]!.replace(/#.*$/, '').replace('/0/*', '/0/7');
    const d = displayAddressArgs(fp, 'regtest', wpkh);
    expect(d.args.slice(0, 6)).toEqual(['--fingerprint', fp, '--chain', 'regtest', 'displayaddress', '--desc']);
    expect(d.args[6]).toMatch(new RegExp(`^wpkh\\(\\[${fp}/84h/1h/0h\\]tpub[^)]+/0/7\\)#[a-z0-9]{8}$`));
  });

  it('a long PSBT goes on standard input, the command line keeps only the options', () => {
    const long = 'cHNidP8' + 'A'.repeat(PSBT_ARGV_MAX);
    expect(signTxArgs(fp, 'regtest', long)).toEqual({ args: ['--stdin', '--fingerprint', fp, '--chain', 'regtest'], stdin: `signtx ${long}\n\n` });
  });

  it('refuses anything else: option-like or malformed values never reach the program', () => {
    for (const bad of ['--chain=main', '-f', '0000000', '0000000g', `${fp} --debug`, '']) expect(() => signTxArgs(bad, 'regtest', 'cHNidP8BAA==')).toThrow(/8 hex digits/);
    expect(() => signTxArgs(fp, 'mainnet' as never, 'cHNidP8BAA==')).toThrow(/chains main, test, regtest, signet, testnet4/);
    for (const psbt of ['--help', 'cHNidP8 --debug', '70736274ff01', 'cHNidP8BAA==\n--x']) expect(() => signTxArgs(fp, 'regtest', psbt)).toThrow(/base64 PSBT/);
    for (const account of [-1, 1.5, 2 ** 31, Number.NaN]) expect(() => getDescriptorsArgs(fp, 'regtest', account)).toThrow(/whole number/);
    for (const path of ['--expert', 'm/48h --debug', '48h/0h', 'm/2147483648', 'm/1/2/3/4/5/6/7/8/9/10/11', 'm/1x', '']) expect(() => getXpubArgs(fp, 'regtest', path)).toThrow(/A key path is m\//);
    const ranged = descriptorsOf({ name: 'A' }, 'regtest', 0).receive[2]!;
    expect(() => checkAddressDescriptor(ranged, 'regtest')).toThrow(/one address/);
    expect(() => checkAddressDescriptor('--desc=x', 'regtest')).toThrow(/Not a descriptor/);
    expect(() => checkAddressDescriptor('wpkh(02c97dc3f4420402e01a113984311bf4a1b8de376cac0bdcfaf1b3ac81f13433c7)', 'regtest')).toThrow(/no key origin/);
    expect(() => checkAddressDescriptor('addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)', 'regtest')).toThrow(/single-key addresses/);
  });
});
