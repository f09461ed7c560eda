/**
 * The size cap of every parser entry: what a person can paste, drop or open, checked before any
 * parsing — in main (the IPC contract's schemas and the pure parsers themselves) and in the
 * renderer (before a file is read or a text is parsed on a keystroke). One number per input,
 * here, so the renderer, the contract, the parser and the fuzzer (test/fuzz) agree.
 *
 * Sizes count characters (UTF-16 code units, what `string.length` says, and a File's bytes for a
 * file not yet read): every format below is ASCII, so a character is a byte. A cap is the largest
 * real input of that kind with ample room — never so large that parsing a capped input stalls the
 * app (`npm run fuzz` checks that no input under its cap takes more than 1 s).
 */
import { AppError } from './errors';

export type InputKind = 'walletFile' | 'descriptor' | 'addressList' | 'labels' | 'bip21' | 'psbt' | 'rawTx';

export interface InputLimit {
  /** Largest accepted input, in characters (bytes for a file). */
  chars: number;
  /** What it is, plural, in a sentence: "wallet files are limited to 1 MB". */
  what: string;
}

const KB = 1024;
const MB = 1024 * 1024;

export const LIMITS: Record<InputKind, InputLimit> = {
  // A wallet file (Caravan, Specter, Coldcard, BSMS, Sparrow, Core's listdescriptors JSON) of a
  // 15-of-15 multisig is under 10 kB; Core's listdescriptors of a default wallet (8 descriptors with
  // their private-key-free xpubs) about 3 kB. 1 MB leaves a hundred times that.
  walletFile: { chars: 1 * MB, what: 'wallet files' },
  // One descriptor (pasted, a line of a file, or one Core wrote): the widest Core accepts is a
  // multi_a() of 999 keys, each [fingerprint/path]xpub…/<0;1>/* ≈ 150 characters: ~150 kB.
  descriptor: { chars: 256 * KB, what: 'descriptors' },
  // "Add addresses": 100,000 addresses (MAX_ADDRESSES) with a label each are ~8 MB of text.
  addressList: { chars: 10 * MB, what: 'address lists' },
  // A BIP329 export: ~150 characters a record, so 20 MB is ~130,000 labels — every address,
  // transaction and output label of a busy wallet. The import is one SQLite transaction.
  labels: { chars: 20 * MB, what: 'label files' },
  // A payment request comes from a link or a QR code, and a QR code holds at most 4,296 characters.
  bip21: { chars: 4296, what: 'payment requests' },
  // The largest real PSBT the app handles (../shared/fixtures/perf: 1,000 P2WPKH inputs, each
  // with its 250-output previous transaction) is 10.6 MB of base64 and 16 MB as hex; 20 MB holds
  // it in either encoding.
  psbt: { chars: 20 * MB, what: 'PSBTs' },
  // A transaction is at most 4,000,000 weight units, so at most 4,000,000 bytes (a block's
  // weight limit): 8,000,000 hex characters.
  rawTx: { chars: 8_000_000, what: 'raw transactions' },
};

/** "1 MB", "256 kB", "4,296 characters", "7.6 MB": a size in words. */
export function sizeText(chars: number): string {
  if (chars >= MB) return `${trim(chars / MB)} MB`;
  if (chars >= 10 * KB) return `${trim(chars / KB)} kB`;
  return `${chars.toLocaleString('en-US')} characters`;
}

function trim(n: number): string {
  return n >= 100 || Number.isInteger(n) ? String(Math.round(n)) : n.toFixed(1).replace(/\.0$/, '');
}

/** Why `size` characters (or a file of `size` bytes) of this kind are refused; null when they fit. */
export function sizeProblem(kind: InputKind, size: number, noun = 'This text'): string | null {
  const limit = LIMITS[kind];
  if (size <= limit.chars) return null;
  const cap = sizeText(limit.chars);
  const is = sizeText(size) === cap ? `more than ${cap}` : sizeText(size);
  return `${noun} is ${is}; ${limit.what} are limited to ${cap}.`;
}

/** The error of an input over its cap: 'input.invalid' with detail { field, reason: 'too-large', limit }. */
export class InputTooLargeError extends AppError {
  constructor(
    readonly kind: InputKind,
    readonly size: number,
    readonly field: string,
    noun = 'This text',
  ) {
    super('input.invalid', sizeProblem(kind, size, noun) ?? '', { field, reason: 'too-large', limit: LIMITS[kind].chars });
    this.name = 'InputTooLargeError';
  }
}

/** Throws InputTooLargeError when `text` is over the cap of its kind. */
export function assertSize(kind: InputKind, text: string, field: string, noun?: string): void {
  if (text.length > LIMITS[kind].chars) throw new InputTooLargeError(kind, text.length, field, noun);
}

// Animated-QR (BC-UR) parts: bounded by the PSBT cap above.

/** The psbt channels and drafts:import accept at most this many characters of PSBT text (base64 or hex): 20 MiB. */
export const MAX_PSBT_TEXT_CHARS = LIMITS.psbt.chars;

/**
 * The largest PSBT the app takes in, in bytes: 15 MiB = 15,728,640. A PSBT reaches review, import and
 * signing as text of at most MAX_PSBT_TEXT_CHARS; base64 (4 characters per 3 bytes) is the densest form
 * the app reads, so no PSBT above 3/4 of 20 MiB can be handed to it in any way.
 */
export const MAX_PSBT_BYTES = (MAX_PSBT_TEXT_CHARS / 4) * 3;

/**
 * The most characters a QR code can hold: 4,296 (version 40, level L, alphanumeric mode — the densest
 * mode, which uppercase UR text uses; byte mode holds 2,953). A longer "frame" came from no camera.
 */
export const MAX_QR_TEXT_CHARS = 4296;

/**
 * The shortest fragment a multi-part UR may carry: 10 bytes, BC-UR's minimum fragment length (the
 * reference encoders' `minFragmentLength`; a message shorter than that is one fragment, a single part).
 */
export const UR_MIN_FRAGMENT_LENGTH = 10;

/**
 * The largest UR message that can hold a PSBT the app accepts: MAX_PSBT_BYTES plus the 5-byte header of
 * a CBOR byte string that long (0x5a and a 32-bit length) — 15,728,645 bytes.
 */
export const UR_MAX_MESSAGE_LENGTH = MAX_PSBT_BYTES + 5;

/**
 * The most parts (fragments, `seqLen`) an animated PSBT QR can need: 1,572,865 = ⌈15,728,645 / 10⌉,
 * the largest message split into the shortest fragments. A part announcing more is refused from its
 * name alone, before its body is read; nothing is ever allocated per announced part beyond this.
 */
export const UR_MAX_SEQ_LEN = Math.ceil(UR_MAX_MESSAGE_LENGTH / UR_MIN_FRAGMENT_LENGTH);

/**
 * The largest part number (`seqNum`) of a part: 2^32 − 1. Parts after the first seqLen are fountain
 * (mixed) parts and a signer's animation keeps counting them for as long as it runs, so their number has
 * no bound tied to the message; BC-UR seeds the choice of a mixed part's fragments with the number as 4
 * bytes, so a larger one names no part. What a mixed part costs does not grow with its number: the
 * fragments it mixes are at most seqLen (bounded above), chosen in time linear in seqLen.
 */
export const UR_MAX_SEQ_NUM = 0xffff_ffff;
