/**
 * BSMS 1.0 descriptor records (BIP129, round 2, unencrypted):
 *
 *   BSMS 1.0
 *   wsh(sortedmulti(2,[fp/48'/0'/0'/2']xpub…/**,[fp/…]xpub…/**))     ← a descriptor or a template
 *   /0/*,/1/*                                                          ← or "No path restrictions"
 *   bc1q…                                                              ← the wallet's first address
 *
 * A template's /** is replaced by each path restriction (the first is receive, the second
 * change); a plain descriptor (also a multipath one, as Sparrow writes) is used as it is. The
 * first address must be the receive descriptor's address 0. Key records (round 1: a signer's
 * single key) and encrypted records (hex) are recognized and refused with their reason.
 */
import { decodeDestination, encodeDestination } from '../bitcoin/address';
import { MAINNET, TESTNET, REGTEST, type Network } from '../bitcoin/networks';
import { WalletAddresses } from './derive';
import { importDescriptors, type DescriptorInput } from './descriptors';
import { WalletImportError, type WalletDescription } from './types';
import { chainName } from '../watchlist';

export type BsmsKind = 'descriptor-record' | 'key-record' | 'encrypted' | null;

/** What kind of BSMS text this is (null: not BSMS). */
export function bsmsKind(text: string): BsmsKind {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64,}$/.test(t) && t.length % 2 === 0) return 'encrypted';
  const lines = t.split(/\r?\n/).map((l) => l.trim());
  if (!/^BSMS \S+$/.test(lines[0] ?? '')) return null;
  // a key record's second line is the TOKEN: hex ("00" when unencrypted)
  if (/^[0-9a-fA-F]+$/.test(lines[1] ?? '') && lines.length >= 3 && !/[()]/.test(lines[2] ?? '')) return 'key-record';
  return 'descriptor-record';
}

function line(lines: string[], i: number): string {
  const v = lines[i];
  if (v === undefined || v === '') throw new WalletImportError('invalid', `line ${i + 1}`, `A BSMS descriptor record has 4 lines; line ${i + 1} is missing.`);
  return v;
}

export function importBsms(text: string, network: Network, opts: { name?: string } = {}): WalletDescription {
  const kind = bsmsKind(text);
  if (kind === 'encrypted') {
    throw new WalletImportError('encrypted', 'file', 'This BSMS record is encrypted. Decrypt it with its token in the coordinator (or export it unencrypted) and import the plain record.');
  }
  if (kind === 'key-record') {
    throw new WalletImportError(
      'unrecognized',
      'file',
      "This is a BSMS key record: one signer's key for setting up a multisig, not the wallet. Import the descriptor record the coordinator made from all the keys.",
    );
  }
  const lines = text.trim().split(/\r?\n/).map((l) => l.trim());
  const version = line(lines, 0);
  if (version !== 'BSMS 1.0') throw new WalletImportError('invalid', 'line 1', `'${version}' is not a version Spyglass reads (BSMS 1.0).`);
  const descriptor = line(lines, 1);
  const restrictions = line(lines, 2);
  const address = line(lines, 3);
  const inputs: DescriptorInput[] = [];
  if (descriptor.includes('/**')) {
    if (/^no path restrictions$/i.test(restrictions)) {
      throw new WalletImportError('invalid', 'line 3', 'A descriptor template (/**) needs path restrictions like /0/*,/1/*.');
    }
    const paths = restrictions.split(',').map((p) => p.trim());
    if (paths.length > 2 || paths.some((p) => !/^(\/[0-9]+)*\/\*$/.test(p))) {
      throw new WalletImportError('derivation', 'line 3', `'${restrictions}' is not one or two unhardened path restrictions (like /0/*,/1/*).`);
    }
    paths.forEach((p, i) => inputs.push({ text: descriptor.split('/**').join(p), field: 'line 2', internal: i === 1 }));
  } else {
    inputs.push({ text: descriptor, field: 'line 2' });
  }
  const wallet = importDescriptors(inputs, network, { name: opts.name ?? '', format: 'bsms' });
  const dec = decodeDestination(address, network);
  if (!dec.ok) {
    const other = [MAINNET, TESTNET, REGTEST].find((n) => n.chain !== network.chain && decodeDestination(address, n).ok);
    if (other) {
      throw new WalletImportError('network', 'line 4', `The first address ${address} is a ${other.chain === 'test' ? 'testnet or signet' : chainName(other)} address, but the wallet is for ${chainName(network)}.`);
    }
    throw new WalletImportError('invalid', 'line 4', `Line 4 must be the wallet's first address: ${dec.error}`);
  }
  const first = WalletAddresses.of(wallet).address('receive', 0);
  if (first !== encodeDestination(dec.dest, network)) {
    throw new WalletImportError(
      'address-mismatch',
      'line 4',
      `The record's first address ${address} is not the descriptor's (${first}): the record was altered or made for other keys. Do not use it; check the setup with your cosigners.`,
    );
  }
  return wallet;
}
