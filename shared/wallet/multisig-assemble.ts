/**
 * Assembling a multisig from its cosigners' keys (issue #30, "Watch a wallet"): each cosigner is a
 * connected device's key (getxpub at the BIP48 path), a pasted key expression `[fingerprint/path]xpub`,
 * or one device's exported cosigner file (Coldcard's ccxp-XFP.json multisig key export, Coldcard's
 * generic JSON export with its bip48_1/bip48_2 sections, a BIP129 BSMS key record). The result is one
 * multipath descriptor, `wsh(sortedmulti(m,…/<0;1>/*))` or `sh(wsh(sortedmulti(m,…/<0;1>/*)))` with its
 * checksum, which goes to the import preview like any pasted descriptor: the import itself is unchanged.
 *
 * Refused: a key twice (the same extended key, or two keys claiming one origin), keys of two networks
 * (xpub next to tpub) or of another network than the node's, a key without its origin (a device signs
 * only for a key whose fingerprint and path it can match), and what Bitcoin Core's descriptor parser
 * refuses (src/script/descriptor.cpp ParseScript: a threshold below 1 or above the number of keys, more
 * than MAX_PUBKEYS_PER_MULTISIG = 20 keys) — in Core's words, because the descriptor is checked by
 * Spyglass's port of that parser before it leaves here.
 */
import { parseDescriptor } from '../bitcoin/descriptor';
import { addChecksum } from '../bitcoin/descriptor-checksum';
import type { Network } from '../bitcoin/networks';
import { bsmsKind } from './bsms';
import { looksLikeColdcardGeneric, looksLikeColdcardMultisigKey } from './formats/coldcard-generic';
import { checkKeyNetwork, decodeExtKey, formatPath, HARDENED, parseFingerprint, parsePath, refuseSecrets, resolveOrigin, type ExtKey } from './keys';
import { parseKeyField } from './xpub';
import { SCRIPT_TYPE_NAMES, WalletImportError } from './types';

/** The multisig script types an assembled wallet can be. */
export type AssembleType = 'p2wsh' | 'p2sh-p2wsh';
export const ASSEMBLE_TYPES: readonly AssembleType[] = ['p2wsh', 'p2sh-p2wsh'];

/** One cosigner: its master fingerprint, the path to its key, the key (xpub/tpub), and where it came from. */
export interface Cosigner {
  fingerprint: string;
  /** 'm/48h/1h/0h/2h' style. */
  path: string;
  /** In the network's standard version (xpub, or tpub off mainnet). */
  xpub: string;
  /** 'main' (xpub) or 'test' (tpub: testnet, signet, regtest). */
  net: 'main' | 'test';
  /** Where it came from, in words ("trezor_t (1a2b3c4d)", "pasted key", "Coldcard export"). */
  source: string;
}

/** Bitcoin Core's MAX_PUBKEYS_PER_MULTISIG (src/script/script.h): the most keys multi()/sortedmulti() holds. */
export const MAX_MULTISIG_KEYS = 20;
/** Coldcard (MAX_SIGNERS) and Trezor (the pubkeys field of its MultisigRedeemScriptType) sign at most 15 keys. */
export const DEVICE_MULTISIG_KEYS = 15;

const NET_WORDS = { main: 'an xpub (mainnet)', test: 'a tpub (testnet, signet or regtest)' } as const;

/** BIP48's script step: 2' native SegWit (P2WSH), 1' nested (P2SH-P2WSH). */
const BIP48_SCRIPT: Record<AssembleType, number> = { p2wsh: 2, 'p2sh-p2wsh': 1 };

/** The standard BIP48 cosigner path for a script type and account: m/48'/coin'/account'/2' (or /1'). */
export function bip48Path(type: AssembleType, network: Network, account: number): string {
  if (!Number.isInteger(account) || account < 0 || account >= HARDENED) throw new WalletImportError('derivation', 'account', 'The account is a whole number from 0 to 2147483647.');
  const coin = network.chain === 'main' ? 0 : 1;
  return `m/48h/${coin}h/${account}h/${BIP48_SCRIPT[type]}h`;
}

function cosignerOf(ext: ExtKey, fingerprint: string | undefined, path: number[] | undefined, field: string, source: string): Cosigner {
  if (ext.private) throw new WalletImportError('private-key', field, 'This is a private key: Spyglass only watches, and takes only public keys.');
  const origin = resolveOrigin(ext, fingerprint ?? null, path ?? null, field);
  if (origin.fingerprint === null || origin.path === null) {
    throw new WalletImportError(
      'derivation',
      field,
      `This key has no origin: give it as [fingerprint/path]${ext.prefix}… (like [1a2b3c4d/48h/0h/0h/2h]xpub…). A device signs only for a key whose master fingerprint and path it can match.`,
    );
  }
  return { fingerprint: origin.fingerprint, path: formatPath(origin.path), xpub: ext.normalized, net: ext.net, source };
}

/** A device's key (signer:xpub): checked like any other (its depth and child number against the path). */
export function cosignerFromDevice(d: { fingerprint: string; path: string; xpub: string; source: string }): Cosigner {
  const field = `device ${d.fingerprint}`;
  const ext = decodeExtKey(d.xpub);
  if (!ext) throw new WalletImportError('invalid', field, 'The device did not give an extended public key.');
  return cosignerOf(ext, parseFingerprint(d.fingerprint, field), parsePath(d.path, field), field, d.source);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (o: Json, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string).trim() : undefined);

/** Coldcard's ccxp-XFP.json: the p2wsh / p2sh_p2wsh keys (older firmware wrote p2wsh_p2sh) with their _deriv paths. */
function fromColdcardKey(o: Json, type: AssembleType, field: string): Cosigner {
  const names = type === 'p2wsh' ? ['p2wsh'] : ['p2sh_p2wsh', 'p2wsh_p2sh'];
  const name = names.find((n) => str(o, n));
  if (!name) throw new WalletImportError('script-type', field, `This Coldcard export has no ${SCRIPT_TYPE_NAMES[type]} key.`);
  const ext = decodeExtKey(str(o, name)!);
  if (!ext) throw new WalletImportError('invalid', `${field}.${name}`, `The ${name} key of this Coldcard export is not an extended public key.`);
  const deriv = str(o, `${name}_deriv`);
  return cosignerOf(ext, parseFingerprint(str(o, 'xfp') ?? '', `${field}.xfp`), deriv ? parsePath(deriv, `${field}.${name}_deriv`) : undefined, field, `Coldcard ${str(o, 'xfp')!.toUpperCase()} (file)`);
}

/** Coldcard's generic JSON export: the bip48_2 (P2WSH) or bip48_1 (P2SH-P2WSH) section; the master xfp is the origin. */
function fromColdcardGeneric(o: Json, type: AssembleType, field: string): Cosigner {
  const name = type === 'p2wsh' ? 'bip48_2' : 'bip48_1';
  const s = o[name];
  if (!isObject(s)) throw new WalletImportError('script-type', field, `This Coldcard export has no ${name} section (the ${SCRIPT_TYPE_NAMES[type]} cosigner key).`);
  const ext = decodeExtKey(str(s, 'xpub') ?? '');
  if (!ext) throw new WalletImportError('invalid', `${field}.${name}.xpub`, `The ${name} key of this Coldcard export is not an extended public key.`);
  const deriv = str(s, 'deriv');
  return cosignerOf(ext, parseFingerprint(str(o, 'xfp') ?? '', `${field}.xfp`), deriv ? parsePath(deriv, `${field}.${name}.deriv`) : undefined, field, `Coldcard ${str(o, 'xfp')!.toUpperCase()} (file)`);
}

/** BIP129 key record: BSMS 1.0 / TOKEN / [fingerprint/path]xpub / description / signature. */
function fromBsmsKeyRecord(text: string, field: string): Cosigner {
  const lines = text.trim().split(/\r?\n/).map((l) => l.trim());
  const k = parseKeyField(lines[2] ?? '', `${field} line 3`);
  const description = lines[3] ? ` “${lines[3].slice(0, 40)}”` : '';
  return cosignerOf(k.ext, k.fingerprint, k.path, field, `BSMS key record${description}`);
}

/**
 * One cosigner from pasted text or a file's content: `[fingerprint/path]xpub` (a SLIP-132 Zpub/Vpub…
 * is read as its xpub/tpub; a trailing /<0;1>/* or /0/* is ignored: the assembler adds the branches),
 * Coldcard's multisig key export or generic export, or a BSMS key record.
 */
export function readCosigner(text: string, type: AssembleType, field = 'key'): Cosigner {
  const t = text.replace(/^\uFEFF/, '').trim();
  if (!t) throw new WalletImportError('empty', field, 'Paste a key like [1a2b3c4d/48h/0h/0h/2h]xpub…, or open a cosigner file.');
  refuseSecrets(t, field);
  if (t.startsWith('{')) {
    let o: unknown;
    try {
      o = JSON.parse(t);
    } catch {
      throw new WalletImportError('invalid', field, 'This file starts like JSON but is not valid JSON.');
    }
    if (looksLikeColdcardMultisigKey(o)) return fromColdcardKey(o as Json, type, field);
    if (looksLikeColdcardGeneric(o)) return fromColdcardGeneric(o as Json, type, field);
    throw new WalletImportError('unrecognized', field, 'This JSON file is not a cosigner key Spyglass reads (Coldcard’s multisig key export or generic export).');
  }
  if (bsmsKind(t) === 'key-record') return fromBsmsKeyRecord(t, field);
  const one = t.split(/\s+/);
  if (one.length !== 1) throw new WalletImportError('unrecognized', field, 'Give one key: [fingerprint/path]xpub…, with nothing else on the line.');
  const bare = one[0]!.replace(/(\/(<0;1>|0|1))?\/\*$/, '');
  const k = parseKeyField(bare, field);
  return cosignerOf(k.ext, k.fingerprint, k.path, field, 'pasted key');
}

const ord = (i: number): string => `Cosigner ${i + 1}`;

/** Refuses a cosigner list that could not be one wallet on `network`: a key twice, or keys of two networks. */
export function checkCosigners(cosigners: readonly Cosigner[], network: Network): void {
  const first = cosigners[0];
  cosigners.forEach((c, i) => {
    const field = `cosigners[${i}]`;
    if (first && c.net !== first.net) {
      throw new WalletImportError('network', field, `${ord(i)}’s key is ${NET_WORDS[c.net]}, but cosigner 1’s is ${NET_WORDS[first.net]}: the keys of one wallet belong to one network.`);
    }
    const ext = decodeExtKey(c.xpub);
    if (!ext) throw new WalletImportError('invalid', field, `${ord(i)}’s key is not an extended public key.`);
    checkKeyNetwork(ext, network, field);
    for (let j = 0; j < i; j++) {
      const o = cosigners[j]!;
      if (o.xpub === c.xpub) throw new WalletImportError('duplicate-key', field, `${ord(i)} (${c.source}) is the same key as ${ord(j).toLowerCase()} (${o.source}): each cosigner must have its own key.`);
      if (o.fingerprint === c.fingerprint && o.path === c.path) {
        throw new WalletImportError('duplicate-key', field, `${ord(i)} and ${ord(j).toLowerCase()} both claim [${c.fingerprint}/${c.path.slice(2)}] but are different keys: one of them is wrong.`);
      }
    }
  });
}

/** Adds a cosigner to the list, refusing it at once if the list could then not be one wallet. */
export function addCosigner(cosigners: readonly Cosigner[], c: Cosigner, network: Network): Cosigner[] {
  const next = [...cosigners, c];
  checkCosigners(next, network);
  return next;
}

export interface Assembled {
  /** The multipath descriptor with its checksum: what the import preview is given. */
  descriptor: string;
  /** A name for the wallet ("2-of-3 multisig"). */
  name: string;
  /** What the person should know that does not stop it (more keys than most devices sign). */
  warnings: string[];
}

/** The key expression of a cosigner in the descriptor: [fingerprint/path]xpub/<0;1>/*. */
const keyExpr = (c: Cosigner): string => `[${c.fingerprint}/${c.path.slice(2)}]${c.xpub}/<0;1>/*`;

/** Builds the wallet's descriptor: sortedmulti(m, every key /<0;1>/*) in wsh() or sh(wsh()), checked as Core checks it. */
export function assembleMultisig(input: { type: AssembleType; threshold: number; cosigners: readonly Cosigner[] }, network: Network): Assembled {
  if (!ASSEMBLE_TYPES.includes(input.type)) throw new WalletImportError('script-type', 'scriptType', 'A multisig is assembled as P2WSH (native SegWit) or P2SH-P2WSH (nested SegWit).');
  if (!Number.isInteger(input.threshold)) throw new WalletImportError('threshold', 'threshold', 'The number of signatures needed is a whole number.');
  checkCosigners(input.cosigners, network);
  // Core's first multisig check (its parser would stop earlier, at the empty key, on this text)
  if (input.cosigners.length === 0) throw new WalletImportError('threshold', 'threshold', `Cannot have 0 keys in multisig; must have between 1 and ${MAX_MULTISIG_KEYS} keys, inclusive`);
  const inner = `sortedmulti(${input.threshold},${input.cosigners.map(keyExpr).join(',')})`;
  const body = input.type === 'p2wsh' ? `wsh(${inner})` : `sh(wsh(${inner}))`;
  try {
    parseDescriptor(body, network);
  } catch (e) {
    // Core's own words (threshold 0, m > n, more than 20 keys)
    const message = (e as Error).message;
    throw new WalletImportError(/threshold|keys in multisig/.test(message) ? 'threshold' : 'invalid', 'threshold', message);
  }
  const n = input.cosigners.length;
  const warnings: string[] = [];
  if (n > DEVICE_MULTISIG_KEYS) warnings.push(`${n} keys: Bitcoin Core watches up to ${MAX_MULTISIG_KEYS}, but Coldcard and Trezor sign multisigs of at most ${DEVICE_MULTISIG_KEYS} keys. Check that every cosigner’s device can sign this one.`);
  return { descriptor: addChecksum(body), name: `${input.threshold}-of-${n} multisig`, warnings };
}

/**
 * What a device needs before it shows (or signs for) a multisig address, by its HWI type: Ledger,
 * BitBox02 and Jade must have the wallet's policy registered; a Coldcard must have the multisig file
 * imported; a Trezor (and KeepKey) shows it from the descriptor sent with the request.
 */
export function multisigRegistration(type: string): { needed: boolean; how: string } {
  switch (type.toLowerCase()) {
    case 'ledger':
      return { needed: true, how: 'Register the multisig on the Ledger first: in Ledger Live, or with Sparrow or Specter (it asks you to approve the policy on the device once).' };
    case 'bitbox02':
      return { needed: true, how: 'Register the multisig on the BitBox02 first: in the BitBoxApp, or with Sparrow or Specter (approve it on the device once).' };
    case 'jade':
      return { needed: true, how: 'Register the multisig on the Jade first: import the wallet’s descriptor or BSMS file (Receive → Export BSMS in Spyglass) with Sparrow, Specter or the Blockstream app, and approve it on the device.' };
    case 'coldcard':
      return { needed: true, how: 'Import the wallet on the Coldcard first: Settings → Multisig Wallets → Import from File, with the wallet’s descriptor or BSMS file (Receive → Export BSMS in Spyglass).' };
    case 'trezor':
    case 'keepkey':
      return { needed: false, how: 'Shows the address from the wallet’s descriptor: nothing to register.' };
    default:
      return { needed: true, how: 'This device may need the multisig registered first: see its maker’s instructions for multisig wallets.' };
  }
}
