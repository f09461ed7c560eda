/**
 * What a pasted text (one line or a whole file) is: which wallet format, or addresses (for "Add
 * addresses"), or something to refuse (a private key, a recovery phrase). "Add addresses" routes
 * wallet formats to the wallet import and keeps address lines (with or without a label).
 */
import { decodeDestination } from '../bitcoin/address';
import { MAINNET, REGTEST, TESTNET } from '../bitcoin/networks';
import { bsmsKind } from './bsms';
import { looksLikeCaravan } from './caravan';
import { looksLikeColdcard } from './coldcard';
import { looksLikeCore, looksLikeSpecter } from './json-wallets';
import { decodeExtKey, findSecrets } from './keys';
import { FORMAT_NAMES, type ImportFormat } from './types';

export type DetectedFormat = ImportFormat | 'addresses' | 'private-key' | 'seed-words' | 'bsms-key-record' | 'bsms-encrypted' | 'unknown';

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

/**
 * Descriptor lines of a text: each line starting with a descriptor function begins one; other
 * lines continue the previous one (a wrapped descriptor). Null if the text is not descriptors.
 */
export function descriptorLines(text: string): { text: string; number: number }[] | null {
  const { lines } = meaningfulLines(text);
  if (lines.length === 0 || !DESCRIPTOR_START.test(lines[0]!.text)) return null;
  const out: { text: string; number: number }[] = [];
  for (const l of lines) {
    if (DESCRIPTOR_START.test(l.text)) out.push({ ...l });
    else if (/^[^\s]+$/.test(l.text)) out[out.length - 1]!.text += l.text;
    else return null;
  }
  return out;
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
    unknown: 'nothing Spyglass recognizes',
  };
  return { format, wallet: format in FORMAT_NAMES, description: words[format]! };
}

export function detectImport(text: string): Detection {
  const t = text.replace(/^\uFEFF/, '').trim();
  if (!t) return detection('unknown');
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
    return detection('unknown');
  }
  const bsms = bsmsKind(t);
  if (bsms === 'descriptor-record') return detection('bsms');
  if (bsms === 'key-record') return detection('bsms-key-record');
  if (bsms === 'encrypted' && t.length >= 200) return detection('bsms-encrypted');
  if (looksLikeColdcard(t)) return detection('coldcard');
  const { lines, comments } = meaningfulLines(t);
  if (descriptorLines(t)) return detection(comments > 0 ? 'sparrow' : 'descriptor');
  const first = lines[0]!.text.split(/[\s,;]+/)[0]!;
  if (lines.length === 1) {
    const key = first.replace(/^\[[^\]]*\]/, '');
    if (decodeExtKey(key) || /^[xyzYZtuvUV]pub[1-9A-HJ-NP-Za-km-z]{90,}$/.test(key)) return detection('xpub');
  }
  if (isAddressToken(first) || /(^|[,;\t])"?address"?([,;\t]|$)/i.test(lines[0]!.text)) return detection('addresses');
  return detection('unknown');
}
