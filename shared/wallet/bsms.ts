/**
 * BSMS 1.0 descriptor records (BIP129, round 2, unencrypted):
 *
 *   BSMS 1.0
 *   wsh(sortedmulti(2,[fp/48'/0'/0'/2']xpub…/**,[fp/…]xpub…/**))     ← a descriptor or a template
 *   /0/*,/1/*                                                          ← or "No path restrictions"
 *   bc1q…                                                              ← the wallet's first address
 *
 * A template's /** is replaced by each path restriction (the first is receive, the second
 * change); "No path restrictions" (or a blank line 3) with a template means the standard
 * /0/*,/1/*. A plain descriptor (also a multipath one, as Sparrow writes) is used as it is; one
 * whose keys are fixed at one child (…/0/0, BIP129 allows "a descriptor" without a template)
 * is that address of the account: the wallet is the account's /0/* and /1/* chains, and the
 * record's address must be that child's. The first address must be the wallet's (BIP129 "If
 * there are path restrictions, use the first address from the first path restriction").
 * Key records (round 1: a signer's single key) and encrypted records (hex) are recognized and
 * refused with their reason. Test vectors: bitcoin/bips bip-0129.mediawiki and sparrowwallet/
 * sparrow src/test/resources/…/io/bsms (Bip129Test.java).
 */
import { decodeDestination, encodeDestination } from '../bitcoin/address';
import { MAINNET, TESTNET, REGTEST, type Network } from '../bitcoin/networks';
import { WalletAddresses } from './derive';
import { descriptorChecksum } from '../bitcoin/descriptor-checksum';
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
  if (v === undefined || v === '') {
    if (i === 3) {
      throw new WalletImportError('invalid', 'line 4', "The record has no first address (line 4). BIP129 requires it: it is how every cosigner checks that they hold the same wallet. Ask the coordinator for the whole record.");
    }
    throw new WalletImportError('invalid', `line ${i + 1}`, `A BSMS descriptor record has 4 lines; line ${i + 1} is missing.`);
  }
  return v;
}

const FIXED_KEY = /([xtyzuvYZUV]pub[1-9A-HJ-NP-Za-km-z]{100,112})((?:\/[0-9]+)+)(?=[,)])/g;

/**
 * A descriptor whose keys are all fixed at the same child /c/i: the ranged account descriptor
 * (keys at /c/*) and the child. Null if the keys are not all fixed at one child; a 'derivation'
 * error if they are fixed somewhere that is not an address of a receive or change chain.
 */
function fixedChild(descriptor: string): { ranged: string; chain: number; index: number } | null {
  const [body = '', given] = descriptor.split('#');
  if (body.includes('*')) return null;
  const suffixes = [...body.matchAll(FIXED_KEY)].map((m) => m[2]!);
  if (suffixes.length === 0) return null;
  if (given !== undefined && descriptorChecksum(body) !== given) {
    throw new WalletImportError('checksum', 'line 2', `Provided checksum '${given}' does not match computed checksum '${descriptorChecksum(body)}'`);
  }
  if (new Set(suffixes).size > 1) {
    throw new WalletImportError('derivation', 'line 2', `The record's keys are fixed at different children (${[...new Set(suffixes)].join(', ')}); a wallet's keys share one.`);
  }
  const steps = suffixes[0]!.slice(1).split('/').map(Number);
  if (steps.length !== 2 || (steps[0] !== 0 && steps[0] !== 1)) {
    throw new WalletImportError(
      'derivation',
      'line 2',
      `The record's keys are fixed at ${suffixes[0]}, which is not an address on the receive (/0/i) or change (/1/i) chain: Spyglass watches a wallet's receive and change chains, and this record's address is on neither. Ask the coordinator for the record of the wallet (with /** or /0/*,/1/*).`,
    );
  }
  return { ranged: body.replace(FIXED_KEY, (_m, key: string) => `${key}/${steps[0]}/*`), chain: steps[0]!, index: steps[1]! };
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
  // a blank line 3 is read as "No path restrictions" (Sparrow's Bip129Test accepts it too)
  const restrictions = lines[2] ?? '';
  const unrestricted = restrictions === '' || /^no path restrictions$/i.test(restrictions);
  const address = line(lines, 3);
  const inputs: DescriptorInput[] = [];
  const fixed = descriptor.includes('/**') ? null : fixedChild(descriptor);
  if (fixed) {
    inputs.push({ text: fixed.ranged, field: 'line 2' });
  } else if (descriptor.includes('/**')) {
    const paths = unrestricted ? ['/0/*', '/1/*'] : restrictions.split(',').map((p) => p.trim());
    if (paths.length > 2 || paths.some((p) => !/^(\/[0-9]+)*\/\*$/.test(p))) {
      throw new WalletImportError('derivation', 'line 3', `'${restrictions}' is not one or two unhardened path restrictions (like /0/*,/1/*).`);
    }
    paths.forEach((p, i) => inputs.push({ text: descriptor.split('/**').join(p), field: 'line 2', internal: i === 1 }));
  } else {
    inputs.push({ text: descriptor, field: 'line 2' });
  }
  // a fixed child's record says its own change rule below: no generic "/1/* derived" warning
  const wallet = importDescriptors(inputs, network, { name: opts.name ?? '', format: 'bsms', ...(fixed ? { quietChange: true } : {}) });
  const dec = decodeDestination(address, network);
  if (!dec.ok) {
    const other = [MAINNET, TESTNET, REGTEST].find((n) => n.chain !== network.chain && decodeDestination(address, n).ok);
    if (other) {
      throw new WalletImportError('network', 'line 4', `The first address ${address} is a ${other.chain === 'test' ? 'testnet or signet' : chainName(other)} address, but the wallet is for ${chainName(network)}.`);
    }
    throw new WalletImportError('invalid', 'line 4', `Line 4 must be the wallet's first address: ${dec.error}`);
  }
  let first: string;
  if (fixed) {
    const branch = fixed.chain === 0 ? 'receive' : 'change';
    if (branch === 'change' && wallet.internal === null) {
      throw new WalletImportError('derivation', 'line 2', `The record's keys are fixed at /1/${fixed.index}, but their path is not a standard account's: Spyglass cannot tell the wallet's receive chain from it.`);
    }
    first = WalletAddresses.of(wallet).address(branch, fixed.index);
    wallet.warnings.push(`The record's keys are fixed at one address (/${fixed.chain}/${fixed.index}); its address matches, and Spyglass watches the wallet's receive (/0/*) and change (/1/*) chains.`);
  } else {
    first = WalletAddresses.of(wallet).address('receive', 0);
  }
  if (first !== encodeDestination(dec.dest, network)) {
    throw new WalletImportError(
      'address-mismatch',
      'line 4',
      `The record's first address ${address} is not the descriptor's (${first}): the record was altered or made for other keys. Do not use it; check the setup with your cosigners.`,
    );
  }
  return wallet;
}
