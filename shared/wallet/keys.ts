/**
 * Extended keys as people paste them: BIP32 xpub/tpub and the SLIP-132 variants (ypub, zpub,
 * Ypub, Zpub, upub, vpub, Upub, Vpub) normalized to the network's standard version; private
 * extended keys and WIF keys found anywhere in a text (always refused); derivation paths and
 * fingerprints; and the checks that a (fingerprint, path, key) triple is consistent.
 */
import { HDKey } from '@scure/bip32';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { decodeBase58Check, encodeBase58Check } from '../bitcoin/address';
import { toHex } from '../bitcoin/hex';
import type { Network } from '../bitcoin/networks';
import { WalletImportError, type ScriptType } from './types';
import { chainName } from '../watchlist';

export const HARDENED = 0x80000000;

interface Version {
  prefix: string;
  net: 'main' | 'test';
  private: boolean;
  /** The script type SLIP-132 assigns (null: xpub/tpub, "P2PKH or P2SH"). */
  script: ScriptType | null;
}

/** BIP32 and SLIP-132 version bytes (satoshilabs/slips slip-0132.md). */
const VERSIONS = new Map<number, Version>([
  [0x0488b21e, { prefix: 'xpub', net: 'main', private: false, script: null }],
  [0x0488ade4, { prefix: 'xprv', net: 'main', private: true, script: null }],
  [0x049d7cb2, { prefix: 'ypub', net: 'main', private: false, script: 'p2sh-p2wpkh' }],
  [0x049d7878, { prefix: 'yprv', net: 'main', private: true, script: 'p2sh-p2wpkh' }],
  [0x04b24746, { prefix: 'zpub', net: 'main', private: false, script: 'p2wpkh' }],
  [0x04b2430c, { prefix: 'zprv', net: 'main', private: true, script: 'p2wpkh' }],
  [0x0295b43f, { prefix: 'Ypub', net: 'main', private: false, script: 'p2sh-p2wsh' }],
  [0x0295b005, { prefix: 'Yprv', net: 'main', private: true, script: 'p2sh-p2wsh' }],
  [0x02aa7ed3, { prefix: 'Zpub', net: 'main', private: false, script: 'p2wsh' }],
  [0x02aa7a99, { prefix: 'Zprv', net: 'main', private: true, script: 'p2wsh' }],
  [0x043587cf, { prefix: 'tpub', net: 'test', private: false, script: null }],
  [0x04358394, { prefix: 'tprv', net: 'test', private: true, script: null }],
  [0x044a5262, { prefix: 'upub', net: 'test', private: false, script: 'p2sh-p2wpkh' }],
  [0x044a4e28, { prefix: 'uprv', net: 'test', private: true, script: 'p2sh-p2wpkh' }],
  [0x045f1cf6, { prefix: 'vpub', net: 'test', private: false, script: 'p2wpkh' }],
  [0x045f18bc, { prefix: 'vprv', net: 'test', private: true, script: 'p2wpkh' }],
  [0x024289ef, { prefix: 'Upub', net: 'test', private: false, script: 'p2sh-p2wsh' }],
  [0x024285b5, { prefix: 'Uprv', net: 'test', private: true, script: 'p2sh-p2wsh' }],
  [0x02575483, { prefix: 'Vpub', net: 'test', private: false, script: 'p2wsh' }],
  [0x02575048, { prefix: 'Vprv', net: 'test', private: true, script: 'p2wsh' }],
]);

const STANDARD_PUBLIC = { main: 0x0488b21e, test: 0x043587cf } as const;

export interface ExtKey {
  /** The text as given. */
  text: string;
  prefix: string;
  net: 'main' | 'test';
  private: boolean;
  /** SLIP-132's script type for the version (null for xpub/tpub). */
  script: ScriptType | null;
  /** Y/Z/U/Vpub: a multisig cosigner's key. */
  multisig: boolean;
  depth: number;
  /** 8 hex digits. */
  parentFingerprint: string;
  childNumber: number;
  /** The key in the network's standard public version (xpub/tpub); '' for a private key. */
  normalized: string;
  /** Compressed public key (33 bytes); empty for a private key. */
  publicKey: Uint8Array;
}

/** Decodes a 78-byte extended key of any known version; null if `text` is not one. */
export function decodeExtKey(text: string): ExtKey | null {
  if (text.length < 100 || text.length > 115) return null;
  const data = decodeBase58Check(text, 78);
  if (!data || data.length !== 78) return null;
  const version = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0;
  const v = VERSIONS.get(version);
  if (!v) return null;
  const depth = data[4]!;
  const parentFingerprint = toHex(data.subarray(5, 9));
  const childNumber = ((data[9]! << 24) | (data[10]! << 16) | (data[11]! << 8) | data[12]!) >>> 0;
  const multisig = v.script === 'p2sh-p2wsh' || v.script === 'p2wsh';
  const base = { text, prefix: v.prefix, net: v.net, private: v.private, script: v.script, multisig, depth, parentFingerprint, childNumber };
  if (v.private) return { ...base, normalized: '', publicKey: new Uint8Array(0) };
  const std = data.slice();
  const sv = STANDARD_PUBLIC[v.net];
  std[0] = sv >>> 24;
  std[1] = (sv >>> 16) & 0xff;
  std[2] = (sv >>> 8) & 0xff;
  std[3] = sv & 0xff;
  const normalized = encodeBase58Check(std);
  let hd: HDKey;
  try {
    hd = HDKey.fromExtendedKey(normalized, { public: sv, private: v.net === 'main' ? 0x0488ade4 : 0x04358394 });
  } catch {
    return null;
  }
  return { ...base, normalized, publicKey: hd.publicKey! };
}

/** Extended key prefixes a network's keys have. */
export function netOf(network: Network): 'main' | 'test' {
  return network.chain === 'main' ? 'main' : 'test';
}

const NET_WORDS = { main: 'mainnet', test: 'testnet, signet or regtest' } as const;

/** Refuses a key of the other network (xpub on regtest, tpub on mainnet…). */
export function checkKeyNetwork(k: ExtKey, network: Network, field: string): void {
  const want = netOf(network);
  if (k.net !== want) {
    throw new WalletImportError(
      'network',
      field,
      `This key (${k.prefix}…) is for ${NET_WORDS[k.net]}, but the wallet is for ${chainName(network)}.`,
    );
  }
}

export interface Secret {
  kind: 'extended private key' | 'WIF private key';
  prefix: string;
  /** Offset in the text. */
  at: number;
}

const B58_RUN = /[1-9A-HJ-NP-Za-km-z]+/g;

/** Private keys anywhere in a text: extended private keys of any version, WIF keys of any network. */
export function findSecrets(text: string): Secret[] {
  const out: Secret[] = [];
  for (const m of text.matchAll(B58_RUN)) {
    const run = m[0];
    // Only what can be a private key is decoded (a file of thousands of xpubs stays fast): every
    // private extended key version above reads "?prv…" at 78 bytes, and a WIF starts with 5, 9
    // (uncompressed), K, L or c (compressed).
    if (run.length >= 100 && run.length <= 115) {
      if (run.slice(1, 4) !== 'prv') continue;
      const k = decodeExtKey(run);
      if (k?.private) out.push({ kind: 'extended private key', prefix: k.prefix, at: m.index });
    } else if (run.length >= 50 && run.length <= 53) {
      if (!'59KLc'.includes(run[0]!)) continue;
      const d = decodeBase58Check(run, 34);
      if (d && (d[0] === 0x80 || d[0] === 0xef) && (d.length === 33 || (d.length === 34 && d[33] === 1))) {
        out.push({ kind: 'WIF private key', prefix: run.slice(0, 1), at: m.index });
      }
    }
  }
  return out;
}

/** Throws 'private-key' if the text holds any private key. */
export function refuseSecrets(text: string, field: string): void {
  const s = findSecrets(text)[0];
  if (!s) return;
  const what = s.kind === 'extended private key' ? `an extended private key (${s.prefix}…)` : 'a private key (WIF)';
  throw new WalletImportError(
    'private-key',
    field,
    `This contains ${what}. Spyglass only watches: it never takes private keys. Never type or paste a private key or seed into a computer that is online; keep it offline, and import the public key (xpub) or the public descriptor instead.`,
  );
}

/** Parses 'm/48'/0'/0'/2'' (also h/H, with or without 'm'); null for 'm' alone is []. */
export function parsePath(text: string, field: string): number[] {
  let s = text.trim();
  if (s === 'm' || s === 'M' || s === '') return [];
  if (s.startsWith('m/') || s.startsWith('M/')) s = s.slice(2);
  else if (s.startsWith('/')) s = s.slice(1);
  const out: number[] = [];
  for (const step of s.split('/')) {
    const m = /^([0-9]+)(['hH]?)$/.exec(step);
    if (!m || Number(m[1]) > 0x7fffffff) {
      throw new WalletImportError('derivation', field, `'${text}' is not a derivation path (like m/84h/0h/0h): step '${step}' is not a number below 2^31.`);
    }
    out.push(m[2] ? (Number(m[1]) | HARDENED) >>> 0 : Number(m[1]));
  }
  return out;
}

/** 'm/48h/0h/0h/2h' (Core's normalized marker). */
export function formatPath(path: readonly number[]): string {
  return 'm' + path.map((s) => '/' + (s >= HARDENED ? `${s - HARDENED}h` : `${s}`)).join('');
}

/** 8 hex digits, lowercased; throws on anything else. */
export function parseFingerprint(text: string, field: string): string {
  const s = text.trim().toLowerCase();
  if (!/^[0-9a-f]{8}$/.test(s)) throw new WalletImportError('invalid', field, `'${text}' is not a master key fingerprint (8 hexadecimal digits).`);
  return s;
}

function fingerprintOf(pubkey: Uint8Array): string {
  return toHex(ripemd160(sha256(pubkey)).subarray(0, 4));
}

export interface ResolvedOrigin {
  fingerprint: string | null;
  path: number[] | null;
}

/**
 * Checks a key's stated origin against what the key itself records (its depth, its child number
 * and, at depth 0 or 1, the master fingerprint), and fills in what the key implies when the input
 * did not say. Throws 'derivation' on a contradiction.
 */
export function resolveOrigin(k: ExtKey, fingerprint: string | null, path: number[] | null, field: string): ResolvedOrigin {
  if (path) {
    if (path.length !== k.depth) {
      throw new WalletImportError(
        'derivation',
        field,
        `The derivation path ${formatPath(path)} has ${path.length} step${path.length === 1 ? '' : 's'}, but the key ${k.prefix}… is ${k.depth} step${k.depth === 1 ? '' : 's'} below its master key.`,
      );
    }
    if (k.depth > 0 && path[path.length - 1] !== k.childNumber) {
      throw new WalletImportError(
        'derivation',
        field,
        `The derivation path ${formatPath(path)} ends in ${formatPath([path[path.length - 1]!]).slice(2)}, but the key ${k.prefix}… was derived as child ${formatPath([k.childNumber]).slice(2)}.`,
      );
    }
  }
  if (k.depth === 0) {
    const own = fingerprintOf(k.publicKey);
    if (fingerprint && fingerprint !== own) {
      throw new WalletImportError('derivation', field, `The fingerprint ${fingerprint} is not this master key's (${own}).`);
    }
    return { fingerprint: own, path: [] };
  }
  if (k.depth === 1) {
    if (fingerprint && fingerprint !== k.parentFingerprint) {
      throw new WalletImportError(
        'derivation',
        field,
        `The fingerprint ${fingerprint} is not the one the key ${k.prefix}… records for its master key (${k.parentFingerprint}).`,
      );
    }
    return { fingerprint: k.parentFingerprint, path: path ?? [k.childNumber] };
  }
  return { fingerprint, path };
}

/** The script type a BIP44/49/84/86/48/45 path implies, or null. */
export function scriptTypeOfPath(path: readonly number[]): ScriptType | null {
  const purpose = path[0];
  if (purpose === undefined || purpose < HARDENED) return null;
  switch (purpose - HARDENED) {
    case 44:
      return 'p2pkh';
    case 49:
      return 'p2sh-p2wpkh';
    case 84:
      return 'p2wpkh';
    case 86:
      return 'p2tr';
    case 45:
      return 'p2sh';
    case 48: {
      const t = path[3];
      if (t === (1 | HARDENED) >>> 0) return 'p2sh-p2wsh';
      if (t === (2 | HARDENED) >>> 0) return 'p2wsh';
      return null;
    }
    default:
      return null;
  }
}
