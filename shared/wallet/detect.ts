/**
 * What a pasted text (one line or a whole file) is: which wallet format, or addresses (for "Add
 * addresses"), or something to refuse (a private key, a recovery phrase). "Add addresses" routes
 * wallet formats to the wallet import and keeps address lines (with or without a label).
 */
import { decodeDestination } from '../bitcoin/address';
import { LIMITS } from '../limits';
import { MAINNET, REGTEST, TESTNET } from '../bitcoin/networks';
import { bsmsKind } from './bsms';
import { looksLikeCaravan } from './caravan';
import { looksLikeColdcard } from './coldcard';
import { looksLikeCore, looksLikeSpecter } from './json-wallets';
import { decodeExtKey, findSecrets } from './keys';
import { looksLikeColdcardGeneric, looksLikeColdcardMultisigKey } from './formats/coldcard-generic';
import { databaseKind } from './formats/database';
import { looksLikeElectrum, looksLikeEncryptedElectrum, looksLikeOldElectrum } from './formats/electrum';
import { looksLikeKeystoreJson } from './formats/keystore-json';
import { looksLikeLiana } from './formats/liana';
import { FORMAT_NAMES, type ImportFormat } from './types';

/** 'empty': nothing but blank lines and `#` comments (a file's header, or a `#` typed first). */
export type DetectedFormat =
  | ImportFormat
  | 'addresses'
  | 'private-key'
  | 'seed-words'
  | 'bsms-key-record'
  | 'bsms-encrypted'
  | 'electrum-encrypted'
  | 'electrum-old'
  | 'cosigner-key'
  | 'database'
  | 'empty'
  | 'unknown';

export interface Detection {
  format: DetectedFormat;
  /** True for the formats importWallet takes. */
  wallet: boolean;
  /** What it is, in words ("a Caravan wallet configuration (JSON)", "addresses"…). */
  description: string;
}

const DESCRIPTOR_START = /^(sh|wsh|pkh|wpkh|tr|multi|sortedmulti|pk|combo|addr|raw|rawtr|multi_a|sortedmulti_a)\(/;

/** The lines that matter: no blank lines; `#` comment lines dropped (and counted). */
export function meaningfulLines(text: string): { lines: { text: string; number: number }[]; comments: number } {
  const lines: { text: string; number: number }[] = [];
  let comments = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const t = raw.trim();
    if (!t) return;
    if (t.startsWith('#')) comments++;
    else lines.push({ text: t, number: i + 1 });
  });
  return { lines, comments };
}

/** A descriptor line's label, as Sparrow writes them ("Receive: wpkh(…)", "Change: …"). */
const LABEL = /^(receive|change|external|internal)\s*:\s*/i;

/**
 * Descriptor lines of a text: each line starting with a descriptor function (after an optional
 * Receive:/Change: label, which gives its role) begins one; other lines continue the previous
 * one (a wrapped descriptor). Null if the text is not descriptors.
 */
export function descriptorLines(text: string): { text: string; number: number; internal?: boolean }[] | null {
  const { lines } = meaningfulLines(text);
  const out: { text: string; number: number; internal?: boolean }[] = [];
  for (const l of lines) {
    const label = LABEL.exec(l.text);
    const body = label ? l.text.slice(label[0].length) : l.text;
    if (DESCRIPTOR_START.test(body)) {
      const role = label ? /^(change|internal)$/i.test(label[1]!) : undefined;
      out.push({ text: body, number: l.number, ...(role !== undefined ? { internal: role } : {}) });
    } else if (out.length > 0 && !label && /^[^\s]+$/.test(l.text)) out[out.length - 1]!.text += l.text;
    else return null;
  }
  return out.length ? out : null;
}

/** A BIP39/Electrum-like phrase: 12–24 lowercase words and nothing else. */
function looksLikeSeedWords(text: string): boolean {
  const words = text.trim().split(/\s+/);
  return words.length >= 12 && words.length <= 24 && words.length % 3 === 0 && words.every((w) => /^[a-z]{3,8}$/.test(w));
}

function isAddressToken(token: string): boolean {
  const t = token.replace(/^bitcoin:/i, '').split('?')[0]!;
  return [MAINNET, TESTNET, REGTEST].some((n) => decodeDestination(t, n).ok);
}

function detection(format: DetectedFormat): Detection {
  const words: Record<string, string> = {
    ...FORMAT_NAMES,
    addresses: 'addresses',
    'private-key': 'a private key',
    'seed-words': 'a recovery phrase',
    'bsms-key-record': "a BSMS key record (one signer's key)",
    'bsms-encrypted': 'an encrypted BSMS record',
    'electrum-encrypted': 'an encrypted Electrum wallet file',
    'electrum-old': 'an Electrum wallet file of an old version (before 2.7)',
    'cosigner-key': "one cosigner's key for a multisig setup",
    database: "a program's own database file, not an export",
    empty: 'nothing yet (only blank lines and # comments)',
    unknown: 'nothing Spyglass recognizes',
  };
  return { format, wallet: format in FORMAT_NAMES, description: words[format]! };
}

/**
 * Whether "Add addresses" should send this text to the wallet import: a wallet format, and within
 * the wallet-file cap (a longer text is an address list, and is not run through detection on
 * every keystroke).
 */
export function isWalletText(text: string): boolean {
  return text.length <= LIMITS.walletFile.chars && detectImport(text).wallet;
}

export function detectImport(text: string): Detection {
  if (databaseKind(text)) return detection('database');
  const t = text.replace(/^\uFEFF/, '').trim();
  if (!t) return detection('empty');
  if (looksLikeEncryptedElectrum(t)) return detection('electrum-encrypted');
  if (looksLikeOldElectrum(t)) return detection('electrum-old');
  // an Electrum file is named as such even when it holds a seed (its import refuses it, saying so)
  if (t.startsWith('{') && /"wallet_type"/.test(t)) {
    try {
      if (looksLikeElectrum(JSON.parse(t))) return detection('electrum');
    } catch {
      // not JSON: the checks below say what it is
    }
  }
  if (findSecrets(t).length) return detection('private-key');
  if (looksLikeSeedWords(t)) return detection('seed-words');
  if (t.startsWith('{') || t.startsWith('[{')) {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      return detection('unknown');
    }
    if (looksLikeCaravan(v)) return detection('caravan');
    if (looksLikeCore(v)) return detection('core');
    if (looksLikeSpecter(v)) return detection('specter');
    if (looksLikeElectrum(v)) return detection('electrum');
    if (looksLikeColdcardGeneric(v)) return detection('coldcard-generic');
    if (looksLikeColdcardMultisigKey(v)) return detection('cosigner-key');
    if (looksLikeKeystoreJson(v)) return detection('keystore-json');
    if (looksLikeLiana(v)) return detection('liana');
    return detection('unknown');
  }
  const bsms = bsmsKind(t);
  if (bsms === 'descriptor-record') return detection('bsms');
  if (bsms === 'key-record') return detection('bsms-key-record');
  if (bsms === 'encrypted' && t.length >= 200) return detection('bsms-encrypted');
  if (looksLikeColdcard(t)) return detection('coldcard');
  const { lines, comments } = meaningfulLines(t);
  if (lines.length === 0) return detection('empty');
  if (descriptorLines(t)) return detection(comments > 0 ? 'sparrow' : 'descriptor');
  const first = lines[0]!.text.split(/[\s,;]+/)[0]!;
  if (lines.length === 1) {
    const key = first.replace(/^\[[^\]]*\]/, '');
    if (decodeExtKey(key) || /^[xyzYZtuvUV]pub[1-9A-HJ-NP-Za-km-z]{90,}$/.test(key)) return detection('xpub');
  }
  if (isAddressToken(first) || /(^|[,;\t])"?address"?([,;\t]|$)/i.test(lines[0]!.text)) return detection('addresses');
  return detection('unknown');
}
