/**
 * Fuzz target: one scanned QR text through the animated-QR scanner (electron/main/psbt/ur.ts), as the
 * camera hands it to `scan:frame` — the check of the part (ur-part.ts), the fountain decoder, the final
 * CBOR/PSBT decode. Every input must be read or refused with a UrScanError; anything else thrown is a bug.
 *
 * Seeds: real PSBTs from Bitcoin Core's recordings as animated QRs (pure and fountain parts, several
 * fragment lengths, both UR types, upper and lower case) and single-part QRs, plus the frames of issue #27.
 * Mutations: the part number and count edited (small, at the limits, huge, zero, many digits), the part's
 * CBOR header rewritten with a correct checksum (so it reaches the header checks and the decoder: any
 * seqNum/seqLen/messageLen/checksum, mixed part numbers, fragments cut or grown, headers consistent up to
 * the largest animated QR), truncations, bytewords edits (a letter, a word, a letter pair swapped, inserted
 * or dropped), the type, case and whitespace, and splices of two parts.
 */
import { encodePsbtUr, PsbtUrScanner, UrScanError } from '../../../electron/main/psbt/ur';
import { decodeMinimalBytewords } from '../../../electron/main/psbt/ur-part';
import { MAX_QR_TEXT_CHARS, UR_MAX_MESSAGE_LENGTH, UR_MAX_SEQ_LEN, UR_MAX_SEQ_NUM } from '../../../shared/limits';
import { craftPart, ISSUE_FRAMES, recordedPsbts } from '../../support/ur-parts';

type Rng = () => number;
const int = (rng: Rng, n: number): number => Math.floor(rng() * n);
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, xs.length)]!;

const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];
const WORDS = ['ae', 'ad', 'ao', 'lp', 'cy', 'cf', 'cs', 'hd', 'zm', 'zo', 'yl', 'tk', 'gr', 'qd'];

/** A number a header or a name might carry: ordinary, at the limits, or far beyond. */
function number(rng: Rng, around: number): number {
  switch (int(rng, 10)) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return UR_MAX_SEQ_LEN + int(rng, 3) - 1;
    case 3:
      return UR_MAX_SEQ_NUM - int(rng, 2);
    case 4:
      return UR_MAX_MESSAGE_LENGTH + int(rng, 3) - 1;
    case 5:
      return int(rng, 2 ** 32);
    case 6:
      return Math.max(0, around + int(rng, 7) - 3);
    case 7:
      return around * (2 + int(rng, 1000));
    default:
      return int(rng, 1 + around * 2);
  }
}

interface Header {
  type: string;
  seqNum: number;
  seqLen: number;
  messageLength: number;
  checksum: number;
  fragment: Uint8Array;
}

/** The header of a well-formed multi-part text, or null. */
function headerOf(text: string): Header | null {
  const m = /^ur:([a-z0-9-]+)\/(\d+)-(\d+)\/([a-z]+)$/.exec(text.trim().toLowerCase());
  if (!m) return null;
  try {
    const b = decodeMinimalBytewords(m[4]!);
    // [seqNum, seqLen, messageLen, checksum, fragment], read loosely: the mutation only needs the fields back.
    let at = 1;
    const uint = (): number => {
      const info = b[at]! & 0x1f;
      const size = info < 24 ? 0 : info === 24 ? 1 : info === 25 ? 2 : 4;
      let v = info < 24 ? info : 0;
      for (let k = 1; k <= size; k++) v = v * 256 + b[at + k]!;
      at += 1 + size;
      return v;
    };
    const seqNum = uint();
    const seqLen = uint();
    const messageLength = uint();
    const checksum = uint();
    uint();
    return { type: m[1]!, seqNum, seqLen, messageLength, checksum, fragment: b.subarray(at) };
  } catch {
    return null;
  }
}

function recraft(h: Header): string {
  return craftPart({ ...h, seqNum: Math.min(h.seqNum, 2 ** 32 - 1), seqLen: Math.min(h.seqLen, 2 ** 32 - 1), messageLength: Math.min(h.messageLength, 2 ** 32 - 1), checksum: h.checksum >>> 0 });
}

const MUTATIONS: ReadonlyArray<(s: string, rng: Rng) => string> = [
  // seqNum / seqLen in the name only
  (s, rng) => s.replace(/\/(\d+)-(\d+)\//, (_, a: string, b: string) => `/${number(rng, Number(a))}-${b}/`),
  (s, rng) => s.replace(/\/(\d+)-(\d+)\//, (_, a: string, b: string) => `/${a}-${number(rng, Number(b))}/`),
  (s, rng) => s.replace(/\/(\d+)-(\d+)\//, () => `/${'9'.repeat(1 + int(rng, 40))}-${'9'.repeat(1 + int(rng, 40))}/`),
  // the header rewritten, checksum right: it reaches the header checks and the decoder
  (s, rng) => {
    const h = headerOf(s);
    if (!h) return s;
    const field = int(rng, 6);
    if (field === 0) h.seqNum = number(rng, h.seqLen) || 1;
    else if (field === 1) h.seqLen = number(rng, h.seqLen);
    else if (field === 2) h.messageLength = number(rng, h.messageLength);
    else if (field === 3) h.checksum = int(rng, 2 ** 32);
    else if (field === 4) h.fragment = h.fragment.subarray(0, int(rng, h.fragment.length + 1));
    else h.fragment = Uint8Array.from([...h.fragment, ...h.fragment.subarray(0, 1 + int(rng, 8))]);
    return recraft(h);
  },
  // a mixed part of the same message (a number past seqLen), body consistent
  (s, rng) => {
    const h = headerOf(s);
    if (!h) return s;
    h.seqNum = h.seqLen + 1 + (rng() < 0.5 ? int(rng, 100) : int(rng, 2 ** 32 - h.seqLen - 1));
    return recraft(h);
  },
  // a consistent header of a huge animated QR (up to the largest the limits allow, or just past them)
  (s, rng) => {
    const h = headerOf(s);
    if (!h) return s;
    const fl = Math.max(10, h.fragment.length);
    h.seqLen = rng() < 0.5 ? UR_MAX_SEQ_LEN + int(rng, 2) : 1 + int(rng, UR_MAX_SEQ_LEN);
    h.messageLength = Math.min(h.seqLen * fl, UR_MAX_MESSAGE_LENGTH + int(rng, 2));
    h.fragment = new Uint8Array(fl).map(() => int(rng, 256));
    h.seqNum = rng() < 0.3 ? 1 + int(rng, h.seqLen) : h.seqLen + 1 + int(rng, 1000);
    return recraft(h);
  },
  // truncations
  (s, rng) => s.slice(0, int(rng, s.length)),
  (s, rng) => s.slice(int(rng, s.length)),
  // bytewords edits
  (s, rng) => {
    const i = s.lastIndexOf('/') + 1 + int(rng, Math.max(1, s.length - s.lastIndexOf('/') - 1));
    return s.slice(0, i) + pick(rng, LETTERS) + s.slice(i + 1);
  },
  (s, rng) => {
    const body = s.lastIndexOf('/') + 1;
    const i = body + 2 * int(rng, Math.max(1, (s.length - body) / 2));
    return s.slice(0, i) + pick(rng, WORDS) + s.slice(i + 2);
  },
  (s, rng) => {
    const i = int(rng, s.length);
    return rng() < 0.5 ? s.slice(0, i) + s.slice(i + 1 + int(rng, 4)) : s.slice(0, i) + pick(rng, WORDS) + s.slice(i);
  },
  // type, case, whitespace, separators
  (s, rng) => s.replace(/^ur:[a-z0-9-]+\//i, `ur:${pick(rng, ['psbt', 'crypto-psbt', 'bytes', 'crypto-psbt-', 'CRYPTO-PSBT', 'crypto_psbt', ''])}/`),
  (s) => s.toUpperCase(),
  (s, rng) => `${pick(rng, ['', ' ', '\n', '\t'])}${s}${pick(rng, ['', ' ', '\r\n'])}`,
  (s, rng) => s.replace(/\//g, () => pick(rng, ['/', '//', '', '-'])),
  // splices and repeats
  (s, rng) => {
    const i = int(rng, s.length);
    const t = pick(rng, seedList());
    return s.slice(0, i) + t.slice(int(rng, t.length));
  },
  (s, rng) => (s + s.slice(s.lastIndexOf('/') + 1).repeat(1 + int(rng, 3))).slice(0, MAX_QR_TEXT_CHARS + int(rng, 10)),
];

let seedCache: string[] | null = null;

function seedList(): string[] {
  if (seedCache) return seedCache;
  const out: string[] = [...ISSUE_FRAMES];
  const psbts = recordedPsbts();
  psbts.forEach((psbt, k) => {
    const frag = [10, 30, 60, 120, 250][k % 5]!;
    const ur = encodePsbtUr(psbt, { maxFragmentLength: frag, fountainParts: 4, type: k % 4 === 3 ? 'psbt' : 'crypto-psbt' });
    const parts = ur.parts.slice(0, 6).concat(ur.parts.slice(-4));
    for (const p of parts) out.push(k % 2 ? p.toLowerCase() : p);
    if (psbt.length < 1500) out.push(encodePsbtUr(psbt, { singlePartMaxLength: 2000, maxFragmentLength: 2000 }).parts[0]!);
  });
  seedCache = [...new Set(out)];
  return seedCache;
}

export default {
  name: 'ur-part',
  /** No QR code holds more than this many characters; longer inputs are refused at the IPC boundary. */
  capBytes: MAX_QR_TEXT_CHARS + 16,
  seeds(): string[] {
    return seedList();
  },
  mutate(input: string, rng: () => number): string {
    let s = input;
    const n = 1 + int(rng, 3);
    for (let k = 0; k < n; k++) s = pick(rng, MUTATIONS)(s, rng);
    return s;
  },
  /** A fresh scan reads the input twice (the second time as a duplicate, or refused the same way). */
  run(input: string): void {
    const scanner = new PsbtUrScanner();
    for (let k = 0; k < 2; k++) {
      try {
        scanner.receive(input);
      } catch (e) {
        if (k === 0 || !(e instanceof UrScanError)) throw e;
      }
      if (scanner.complete) scanner.result();
    }
  },
  typed(err: unknown): boolean {
    return err instanceof UrScanError;
  },
};
