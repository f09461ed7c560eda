// The arguments Spyglass passes to the signer program, built only from checked values (issue #30: a
// PSBT, a file or a link never chooses the program or an option). Each value is checked against the one
// form HWI 3.x's hwilib/_cli.py takes for it: a fingerprint is 8 hex digits, a chain one of its names, an
// account a whole number, a descriptor one Spyglass's own parser reads (one address, with its checksum),
// a PSBT base64 that starts as a PSBT does. None of them can start with '-' and so be read as an option.
import { AppError } from '../../../shared/errors';
import { getDescriptorChecksum, parseDescriptor } from '../../../shared/bitcoin/descriptor';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';

export const HWI_CHAINS = ['main', 'test', 'regtest', 'signet', 'testnet4'] as const;
export type HwiChain = (typeof HWI_CHAINS)[number];

/** Past this many characters the PSBT goes on standard input (HWI's --stdin, as Bitcoin Core sends it): argv has OS limits. */
export const PSBT_ARGV_MAX = 30_000;
export const MAX_DESCRIPTOR_CHARS = 4096;

const bad = (field: string, message: string): AppError => new AppError('input.invalid', message, { field });

export function checkFingerprint(fp: string): string {
  if (!/^[0-9a-fA-F]{8}$/.test(fp)) throw bad('fingerprint', `A device fingerprint is 8 hex digits (like 7d3c9a1f), not “${fp.slice(0, 20)}”.`);
  return fp.toLowerCase();
}

export function checkChain(chain: string): HwiChain {
  if (!(HWI_CHAINS as readonly string[]).includes(chain)) throw bad('chain', `The signer program knows the chains ${HWI_CHAINS.join(', ')}, not “${chain.slice(0, 20)}”.`);
  return chain as HwiChain;
}

export function checkAccount(account: number): number {
  if (!Number.isInteger(account) || account < 0 || account > 0x7fffffff) throw bad('account', 'The account is a whole number from 0 to 2147483647.');
  return account;
}

/**
 * A descriptor of one address for displayaddress: read by Spyglass's descriptor parser on the chain, not
 * ranged, of a kind HWI can show (pkh, sh(wpkh), wpkh, tr, and multisig in wsh or sh(wsh)), every key
 * with its origin; returned with its checksum.
 */
export function checkAddressDescriptor(text: string, chain: HwiChain): string {
  const t = text.trim();
  if (t.length === 0 || t.length > MAX_DESCRIPTOR_CHARS) throw bad('descriptor', `A descriptor to show on the device has 1 to ${MAX_DESCRIPTOR_CHARS} characters.`);
  const net: Network = NETWORKS[chain];
  let parsed;
  try {
    parsed = parseDescriptor(t, net);
  } catch (e) {
    throw bad('descriptor', `Not a descriptor Spyglass can read: ${(e as Error).message}`);
  }
  if (parsed.isRange()) throw bad('descriptor', 'A device shows one address: give the descriptor of that address (its index, not *).');
  const body = t.replace(/#.*$/, '');
  if (!/^(pkh|wpkh|tr|sh\(wpkh|wsh\((sorted)?multi|sh\(wsh\((sorted)?multi)\(/.test(body)) {
    throw bad('descriptor', 'A device can show single-key addresses (pkh, sh(wpkh), wpkh, tr) and multisig ones (wsh, sh(wsh)); not this one.');
  }
  if (!/\[[0-9a-fA-F]{8}/.test(body)) throw bad('descriptor', 'The descriptor names no key origin ([fingerprint/path]): the device cannot tell it holds the key.');
  return `${body}#${getDescriptorChecksum(body)}`;
}

/** A BIP32 path from the master as HWI's getxpub takes it: m/…, each step a number below 2^31, h for hardened; at most 10 steps. */
export function checkKeyPath(path: string): string {
  const p = path.trim().replace(/'/g, 'h');
  const steps = p === 'm' ? [] : p.startsWith('m/') ? p.slice(2).split('/') : null;
  if (!steps || steps.length > 10 || steps.some((s) => !/^\d{1,10}h?$/.test(s) || Number.parseInt(s, 10) >= 0x80000000)) {
    throw bad('path', `A key path is m/ and up to 10 steps, each a number below 2147483648 with h for hardened (like m/48h/0h/0h/2h), not “${path.slice(0, 40)}”.`);
  }
  return p;
}

export function checkPsbtBase64(psbt: string): string {
  if (!psbt.startsWith('cHNidP8') || !/^[A-Za-z0-9+/]+={0,2}$/.test(psbt)) throw bad('psbt', 'Only a base64 PSBT is sent to a signing device.');
  return psbt;
}

/** One command line: the program's argv after its name, and what goes on standard input (if anything). */
export interface Invocation {
  args: string[];
  stdin?: string;
}

const target = (fingerprint: string, chain: HwiChain): string[] => ['--fingerprint', checkFingerprint(fingerprint), '--chain', checkChain(chain)];

export const enumerateArgs = (): Invocation => ({ args: ['enumerate'] });

export const getDescriptorsArgs = (fingerprint: string, chain: HwiChain, account: number): Invocation => ({
  args: [...target(fingerprint, chain), 'getdescriptors', '--account', String(checkAccount(account))],
});

/** `getxpub PATH` (hwilib/_cli.py getxpub_handler: the path is its one positional argument). */
export const getXpubArgs = (fingerprint: string, chain: HwiChain, path: string): Invocation => ({
  args: [...target(fingerprint, chain), 'getxpub', checkKeyPath(path)],
});

export const displayAddressArgs = (fingerprint: string, chain: HwiChain, descriptor: string): Invocation => ({
  args: [...target(fingerprint, chain), 'displayaddress', '--desc', checkAddressDescriptor(descriptor, chain)],
});

export function signTxArgs(fingerprint: string, chain: HwiChain, psbt: string): Invocation {
  const p = checkPsbtBase64(psbt);
  if (p.length > PSBT_ARGV_MAX) return { args: ['--stdin', ...target(fingerprint, chain)], stdin: `signtx ${p}\n\n` };
  return { args: [...target(fingerprint, chain), 'signtx', p] };
}
