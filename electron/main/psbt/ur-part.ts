/**
 * One scanned QR text checked as a PSBT UR part before any decoder sees it, in time linear in its length
 * (at most MAX_QR_TEXT_CHARS): the form `ur:<type>/<seqNum>-<seqLen>/<bytewords>` (or `ur:<type>/<bytewords>`
 * for a single part), the type, the numbers against shared/limits.ts (from the name alone, before the body
 * is read), the bytewords (letters, length, CRC-32), and the part's CBOR header — [seqNum, seqLen,
 * messageLen, checksum, fragment] — against its name and itself (the fragment length must be the one that
 * splits messageLen into seqLen fragments). checkSameMessage() then compares it with the parts before.
 * Every refusal is a UrScanError whose code and words say what was wrong.
 */
import { crc32 } from 'node:zlib';
import * as bytewordsModule from '@ngraveio/bc-ur/dist/bytewords.js';
import { MAX_QR_TEXT_CHARS, UR_MAX_MESSAGE_LENGTH, UR_MAX_SEQ_LEN, UR_MAX_SEQ_NUM, UR_MIN_FRAGMENT_LENGTH } from '../../../shared/limits';
import type { UrScanErrorCode } from '../../../shared/ipc/send';

export type { UrScanErrorCode };

/** Why a scanned QR code was refused. The session is unchanged by a refused part. */
export class UrScanError extends Error {
  constructor(
    readonly code: UrScanErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'UrScanError';
  }
}

/** UR types of a PSBT: `crypto-psbt` (BCR-2020-006, what signers show and read today) and `psbt` (its newer name). */
export type PsbtUrType = 'crypto-psbt' | 'psbt';
export const PSBT_UR_TYPES: readonly string[] = ['crypto-psbt', 'psbt'];

/** A whole message in one part (`ur:crypto-psbt/<bytewords>`): the CBOR of the PSBT. */
export interface UrSinglePart {
  kind: 'single';
  type: PsbtUrType;
  message: Uint8Array;
}

/** One part of an animated QR, its header checked. */
export interface UrMultiPart {
  kind: 'multi';
  type: PsbtUrType;
  seqNum: number;
  seqLen: number;
  messageLength: number;
  checksum: number;
  fragment: Uint8Array;
}

export type UrPart = UrSinglePart | UrMultiPart;

function cjsDefault<T>(m: { default: T }): T {
  const d = m.default as T & { default?: T };
  return d.default ?? d;
}
const Bytewords = cjsDefault(bytewordsModule);

/** Bytewords minimal: the byte of each two-letter code (first and last letters of its word), −1 for none. */
const BYTE_OF = new Int16Array(26 * 26).fill(-1);
for (let b = 0; b < 256; b++) {
  const word = Bytewords.encode(b.toString(16).padStart(2, '0'), Bytewords.STYLES.MINIMAL);
  BYTE_OF[(word.charCodeAt(0) - 97) * 26 + word.charCodeAt(1) - 97] = b;
}

const FORM = /^ur:([a-z0-9-]+)\/(?:(\d+)-(\d+)\/)?([a-z]*)$/;
const fmt = (n: number): string => n.toLocaleString('en-US');

/** Bytewords minimal text → bytes, its CRC-32 checked and taken off. */
export function decodeMinimalBytewords(body: string): Uint8Array {
  if (body.length % 2 !== 0) throw new UrScanError('corrupt', `This UR part is damaged: its body has an odd number of letters (${fmt(body.length)})`);
  const n = body.length / 2;
  if (n < 5) throw new UrScanError('corrupt', 'This UR part is damaged: its body is too short to hold anything and its checksum');
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = BYTE_OF[(body.charCodeAt(2 * i) - 97) * 26 + body.charCodeAt(2 * i + 1) - 97]!;
    if (b < 0) throw new UrScanError('corrupt', `This UR part is damaged: "${body.slice(2 * i, 2 * i + 2)}" (letters ${fmt(2 * i + 1)}–${fmt(2 * i + 2)}) is no byteword`);
    bytes[i] = b;
  }
  const data = bytes.subarray(0, n - 4);
  const sent = ((bytes[n - 4]! << 24) | (bytes[n - 3]! << 16) | (bytes[n - 2]! << 8) | bytes[n - 1]!) >>> 0;
  if ((crc32(data) >>> 0) !== sent) throw new UrScanError('corrupt', 'This UR part is damaged: its checksum does not match its bytes (a misread frame)');
  return data;
}

/** A CBOR head (major type, argument) at `at`; arguments above 2^32 − 1 are refused (no field of a part is that big). */
function cborHead(b: Uint8Array, at: number, what: string): { major: number; value: number; next: number } {
  if (at >= b.length) throw new UrScanError('corrupt', `This UR part is damaged: it ends before its ${what}`);
  const major = b[at]! >> 5;
  const info = b[at]! & 0x1f;
  if (info < 24) return { major, value: info, next: at + 1 };
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : 0;
  if (size === 0) throw new UrScanError('corrupt', `This UR part is damaged: its ${what} is not a number it can hold (CBOR additional info ${info})`);
  if (at + 1 + size > b.length) throw new UrScanError('corrupt', `This UR part is damaged: it ends inside its ${what}`);
  let value = 0;
  for (let k = 1; k <= size; k++) value = value * 256 + b[at + k]!;
  return { major, value, next: at + 1 + size };
}

function cborUint(b: Uint8Array, at: number, what: string): { value: number; next: number } {
  const h = cborHead(b, at, what);
  if (h.major !== 0) throw new UrScanError('corrupt', `This UR part is damaged: its ${what} is not an unsigned number`);
  return h;
}

/** The CBOR of a part: [seqNum, seqLen, messageLen, checksum, fragment], nothing after it. */
function partHeader(b: Uint8Array): Omit<UrMultiPart, 'kind' | 'type'> {
  const arr = cborHead(b, 0, 'header');
  if (arr.major !== 4 || arr.value !== 5) throw new UrScanError('corrupt', 'This UR part is damaged: its body is not the five fields of a part');
  const seqNum = cborUint(b, arr.next, 'part number');
  const seqLen = cborUint(b, seqNum.next, 'part count');
  const messageLength = cborUint(b, seqLen.next, 'message length');
  const checksum = cborUint(b, messageLength.next, 'message checksum');
  const frag = cborHead(b, checksum.next, 'fragment');
  if (frag.major !== 2) throw new UrScanError('corrupt', 'This UR part is damaged: its fragment is not a byte string');
  if (frag.next + frag.value !== b.length) throw new UrScanError('corrupt', `This UR part is damaged: its fragment says ${fmt(frag.value)} bytes, the part holds ${fmt(b.length - frag.next)}`);
  return { seqNum: seqNum.value, seqLen: seqLen.value, messageLength: messageLength.value, checksum: checksum.value, fragment: b.subarray(frag.next) };
}

function tooMany(seqLen: number): UrScanError {
  return new UrScanError(
    'too-large',
    `This animated QR announces ${fmt(seqLen)} parts; the largest PSBT Spyglass reads (15 MiB) needs at most ${fmt(UR_MAX_SEQ_LEN)}, so this is not a PSBT to scan`,
  );
}

/** Checks one QR text as a PSBT UR part; throws a UrScanError saying what is wrong with it. */
export function parseUrPart(text: string): UrPart {
  if (text.length > MAX_QR_TEXT_CHARS) throw new UrScanError('too-large', `This text is ${fmt(text.length)} characters long; no QR code holds more than ${fmt(MAX_QR_TEXT_CHARS)}`);
  const lower = text.trim().toLowerCase();
  if (!lower.startsWith('ur:')) throw new UrScanError('not-ur', 'This QR code is not a UR code (it does not start with "ur:")');
  const m = FORM.exec(lower);
  if (!m) throw new UrScanError('malformed', 'This UR code is malformed (it has the form ur:type/body or ur:type/n-total/body, in letters, digits and dashes)');
  const [, type, seqNumText, seqLenText, body] = m as unknown as [string, string, string | undefined, string | undefined, string];
  if (!PSBT_UR_TYPES.includes(type)) throw new UrScanError('wrong-type', `This UR code holds "${type}", not a PSBT (crypto-psbt)`);
  if (seqNumText === undefined || seqLenText === undefined) {
    const message = decodeMinimalBytewords(body);
    if (message.length > UR_MAX_MESSAGE_LENGTH) throw new UrScanError('too-large', `This UR code holds ${fmt(message.length)} bytes, more than a PSBT Spyglass reads`);
    return { kind: 'single', type: type as PsbtUrType, message };
  }
  // The numbers of the name, before the body is read: digits only (no sign, no exponent), bounded.
  const seqNum = seqNumText.length > 10 ? Infinity : Number(seqNumText);
  const seqLen = seqLenText.length > 10 ? Infinity : Number(seqLenText);
  if (seqLen > UR_MAX_SEQ_LEN) throw tooMany(seqLen === Infinity ? Number(seqLenText.slice(0, 16)) : seqLen);
  if (seqLen < 1) throw new UrScanError('malformed', 'This UR part says it is one of 0 parts');
  if (seqNum < 1 || seqNum > UR_MAX_SEQ_NUM) throw new UrScanError('malformed', `This UR part's number ${seqNumText.length > 12 ? `${seqNumText.slice(0, 12)}…` : seqNumText} is not one of 1…${fmt(UR_MAX_SEQ_NUM)}`);
  const h = partHeader(decodeMinimalBytewords(body));
  if (h.seqNum !== seqNum || h.seqLen !== seqLen) throw new UrScanError('corrupt', `This UR part is damaged: its body says part ${h.seqNum}-${h.seqLen}, its name ${seqNum}-${seqLen}`);
  if (h.messageLength > UR_MAX_MESSAGE_LENGTH) throw new UrScanError('too-large', `This animated QR announces a message of ${fmt(h.messageLength)} bytes, more than the largest PSBT Spyglass reads (15 MiB)`);
  const fl = h.fragment.length;
  if (h.messageLength < 1 || fl < 1 || Math.ceil(h.messageLength / fl) !== seqLen || (seqLen > 1 && fl < UR_MIN_FRAGMENT_LENGTH)) {
    throw new UrScanError('corrupt', `This UR part is damaged: ${fmt(seqLen)} fragments of ${fmt(fl)} bytes cannot carry a message of ${fmt(h.messageLength)} bytes`);
  }
  return { kind: 'multi', type: type as PsbtUrType, ...h };
}

/** The header all parts of one message share. */
export interface UrHeader {
  type: PsbtUrType;
  seqLen: number;
  messageLength: number;
  checksum: number;
  fragmentLength: number;
}

export const headerOf = (p: UrMultiPart): UrHeader => ({ type: p.type, seqLen: p.seqLen, messageLength: p.messageLength, checksum: p.checksum, fragmentLength: p.fragment.length });

/** A part must belong to the message being scanned (same type, parts, length, checksum and fragment length). */
export function checkSameMessage(h: UrHeader | null, p: UrPart): void {
  if (!h) return;
  if (p.type !== h.type) throw new UrScanError('other-message', `This UR code (${p.type}) belongs to another message than the ${h.type} being scanned`);
  if (p.kind === 'single') throw new UrScanError('other-message', 'This is a whole single-part PSBT, not one of the parts being scanned: start over to read it');
  if (h.seqLen !== p.seqLen || h.messageLength !== p.messageLength || h.checksum !== p.checksum || h.fragmentLength !== p.fragment.length) {
    throw new UrScanError(
      'other-message',
      `This part belongs to another PSBT (${fmt(p.seqLen)} parts, ${fmt(p.messageLength)} bytes) than the one being scanned (${fmt(h.seqLen)} parts, ${fmt(h.messageLength)} bytes): start over to read the new one`,
    );
  }
}
