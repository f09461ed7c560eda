/**
 * PSBTs as BC-UR (Blockchain Commons UR, BCR-2020-005/006): `ur:crypto-psbt`, the CBOR byte string of the PSBT,
 * split into fountain-coded parts for animated QR codes, and the scanning session that puts the parts back
 * together. Writing parts is @ngraveio/bc-ur's work (Node: it uses Buffer) — CBOR, fragments, fountain mixing,
 * checksums — except the last step, bytewords, done here twice as fast (see minimalBytewords); this module adds the
 * choice between one static part and fragments. Reading them is not the library's: a scanned text is untrusted,
 * so every part is checked first (ur-part.ts, bounded by shared/limits.ts) and then put back together by a
 * fountain decoder whose work per part is bounded (fountain.ts); the app runs the scan in a worker thread
 * (scan-runner.ts).
 */
import { crc32 } from 'node:zlib';
import { UR } from '@ngraveio/bc-ur';
import * as bytewordsModule from '@ngraveio/bc-ur/dist/bytewords.js';
import * as fountainEncoderModule from '@ngraveio/bc-ur/dist/fountainEncoder.js';
import { FountainDecoder } from './fountain';
import { checkSameMessage, headerOf, parseUrPart, PSBT_UR_TYPES, UrScanError, type PsbtUrType, type UrHeader, type UrPart } from './ur-part';

/**
 * The default export of one of the library's CommonJS modules (`exports.default = …`): a bundler (the app's build,
 * vitest) hands over that value, Node's own ESM loader (tsx: the bench, the CLI) the whole exports object.
 */
function cjsDefault<T>(m: { default: T }): T {
  const d = m.default as T & { default?: T };
  return d.default ?? d;
}
const Bytewords = cjsDefault(bytewordsModule);
const FountainEncoder = cjsDefault(fountainEncoderModule);

const PSBT_MAGIC = [0x70, 0x73, 0x62, 0x74, 0xff]; // "psbt" 0xff

/** Fragment lengths an animated QR can use: the library's minimum, and what still fits a version 40-L symbol. */
export const MIN_FRAGMENT_LENGTH = 10;
export const MAX_FRAGMENT_LENGTH = 2000;
export const DEFAULT_FRAGMENT_LENGTH = 250;

export interface PsbtUrOptions {
  /** Most message bytes (the PSBT's CBOR) per fragment; default 250. A frame's QR grows with it (250 → version 13 at level L). */
  maxFragmentLength?: number;
  /**
   * The "fits one QR of a sensible size" rule: a message (the PSBT's CBOR) of at most this many bytes becomes one
   * single-part UR (`ur:crypto-psbt/<body>`, shown as a static QR) instead of fragments. Default and minimum in
   * effect: maxFragmentLength (a message that fits one fragment is a single part, as the library writes it), so a
   * static QR is never bigger than one animated frame unless asked for (at most 2000 bytes: version 40-L).
   */
  singlePartMaxLength?: number;
  /** Mixed (fountain) parts to add after the pure ones, which help a scanner that missed frames; default 0. */
  fountainParts?: number;
  type?: PsbtUrType;
}

export interface PsbtUr {
  /** 'single': one part without sequence numbers, a static QR; 'multi': parts `ur:type/n-seqLen/…` to animate. */
  kind: 'single' | 'multi';
  /**
   * The parts, uppercase (UR is case-insensitive; uppercase lets a QR code use alphanumeric mode). For 'multi': the
   * `seqLen` pure parts (each carries one fragment, in order), then the `fountainParts` mixed ones.
   */
  parts: string[];
  seqLen: number;
  /** Bytes per fragment (every fragment is padded to it) and of the whole message (the PSBT's CBOR). */
  fragmentLength: number;
  messageLength: number;
  type: PsbtUrType;
}

/**
 * Bytewords "minimal" (BCR-2020-012), uppercase: byte b → the first and last letters of the library's word b, and
 * the body ends with the CRC-32 of the bytes. The library's UREncoder builds each part through hex strings and a
 * JavaScript CRC; this table and zlib's CRC-32 give the same text (test/main/ur.test.ts compares them, mixed parts
 * included): the 4,001 parts of a 1 MB PSBT take 40 ms of CPU instead of 81 (the rest is the library's fountain
 * encoder and CBOR).
 */
const MINIMAL = new Uint8Array(512);
for (let b = 0; b < 256; b++) {
  const word = Bytewords.encode(b.toString(16).padStart(2, '0'), Bytewords.STYLES.MINIMAL).toUpperCase(); // 2 letters + the CRC's 8
  MINIMAL[2 * b] = word.charCodeAt(0);
  MINIMAL[2 * b + 1] = word.charCodeAt(1);
}

function minimalBytewords(bytes: Uint8Array): string {
  const out = Buffer.allocUnsafe(2 * (bytes.length + 4));
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = MINIMAL[2 * bytes[i]!]!;
    out[2 * i + 1] = MINIMAL[2 * bytes[i]! + 1]!;
  }
  const crc = crc32(bytes);
  for (let k = 0, o = 2 * bytes.length; k < 4; k++, o += 2) {
    const b = (crc >>> (24 - 8 * k)) & 0xff;
    out[o] = MINIMAL[2 * b]!;
    out[o + 1] = MINIMAL[2 * b + 1]!;
  }
  return out.toString('latin1');
}

function isPsbt(bytes: Uint8Array): boolean {
  return bytes.length > PSBT_MAGIC.length && PSBT_MAGIC.every((b, i) => bytes[i] === b);
}

function checkLength(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer ${min}..${max}, got ${value}`);
  return value;
}

/**
 * A PSBT's UR parts, any one made on demand: part(k) is the k-th part (0-based) of the endless sequence the
 * library's fountain encoder writes — the seqLen pure parts (the fragments in order), then mixed ones — made
 * directly (a mixed part depends only on its sequence number and the fragments), so showing part 3,000 does not
 * make the 2,999 before it. The fragments are made once, here.
 */
export interface PsbtUrSequence {
  kind: 'single' | 'multi';
  seqLen: number;
  fragmentLength: number;
  messageLength: number;
  type: PsbtUrType;
  /** Part k (0-based), uppercase; a 'single' sequence has only part 0. */
  part(k: number): string;
}

/** The UR sequence of a PSBT (binary, starting with "psbt" 0xff): its kind and sizes at once, its parts on demand. */
export function psbtUrSequence(psbt: Uint8Array, options: Omit<PsbtUrOptions, 'fountainParts'> = {}): PsbtUrSequence {
  if (!isPsbt(psbt)) throw new TypeError('Not a PSBT: the bytes do not start with "psbt" 0xff');
  const type = options.type ?? 'crypto-psbt';
  if (!PSBT_UR_TYPES.includes(type)) throw new RangeError(`UR type must be crypto-psbt or psbt, got ${String(type)}`);
  const maxFragment = checkLength('maxFragmentLength', options.maxFragmentLength ?? DEFAULT_FRAGMENT_LENGTH, MIN_FRAGMENT_LENGTH, MAX_FRAGMENT_LENGTH);
  const singleMax = checkLength('singlePartMaxLength', options.singlePartMaxLength ?? maxFragment, 0, MAX_FRAGMENT_LENGTH);

  const ur = new UR(UR.fromBuffer(Buffer.from(psbt.buffer, psbt.byteOffset, psbt.byteLength)).cbor, type);
  const messageLength = ur.cbor.length;
  const prefix = `UR:${type.toUpperCase()}/`;
  // One fragment is the single-part form too (as the library writes it).
  if (messageLength <= singleMax || messageLength <= maxFragment) {
    const only = prefix + minimalBytewords(ur.cbor);
    return {
      kind: 'single',
      seqLen: 1,
      fragmentLength: messageLength,
      messageLength,
      type,
      part: (k) => {
        if (k !== 0) throw new RangeError(`A single-part UR has only part 0, not ${k}`);
        return only;
      },
    };
  }
  // The library's fountain encoder: its fragments, and nextPart() after its sequence number is set to the one before
  // (nextPart is seqNum + 1 → chooseFragments(seqNum) → the XOR of those fragments; nothing else carries over).
  const encoder = new FountainEncoder(ur.cbor, maxFragment);
  const seqLen = encoder.seqLength();
  return {
    kind: 'multi',
    seqLen,
    fragmentLength: encoder.fragments[0]!.length,
    messageLength,
    type,
    part: (k) => {
      if (!Number.isInteger(k) || k < 0 || k >= 0xffffffff) throw new RangeError(`No UR part ${k}`);
      (encoder as unknown as { seqNum: number }).seqNum = k; // private in the typings, a plain field in the code
      const part = encoder.nextPart();
      return `${prefix}${part.seqNum}-${seqLen}/${minimalBytewords(part.cbor())}`;
    },
  };
}

/** The UR parts of a PSBT (binary, starting with "psbt" 0xff), all at once. */
export function encodePsbtUr(psbt: Uint8Array, options: PsbtUrOptions = {}): PsbtUr {
  const extra = checkLength('fountainParts', options.fountainParts ?? 0, 0, 1_000_000);
  const seq = psbtUrSequence(psbt, options);
  const parts = new Array<string>(seq.kind === 'single' ? 1 : seq.seqLen + extra);
  for (let i = 0; i < parts.length; i++) parts[i] = seq.part(i);
  return { kind: seq.kind, parts, seqLen: seq.seqLen, fragmentLength: seq.fragmentLength, messageLength: seq.messageLength, type: seq.type };
}

export { UrScanError, type PsbtUrType, type UrScanErrorCode } from './ur-part';

export interface UrScanProgress {
  /** 'accepted': a new part; 'duplicate': one already read (harmless); 'complete': the PSBT is whole. */
  status: 'accepted' | 'duplicate' | 'complete';
  /** Fragments recovered / fragments expected, 0..1 (1 once complete). */
  progress: number;
  received: number;
  expected: number;
}

/**
 * The PSBT in a whole UR message: the message is the CBOR byte string of the PSBT (a definite length that
 * covers the message exactly).
 */
export function psbtOfUrMessage(message: Uint8Array): Uint8Array {
  const first = message[0];
  if (first === undefined) throw new UrScanError('corrupt', 'The UR message is empty');
  if (first >> 5 !== 2) throw new UrScanError('not-psbt', 'The UR message is not a PSBT (a CBOR byte string starting with "psbt" 0xff)');
  const info = first & 0x1f;
  const size = info < 24 ? 0 : info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : -1;
  if (size < 0) throw new UrScanError('corrupt', `The UR message is not valid CBOR: a byte string with additional info ${info}`);
  if (message.length < 1 + size) throw new UrScanError('corrupt', 'The UR message is not valid CBOR: it ends inside its length');
  let length = info < 24 ? info : 0;
  for (let k = 1; k <= size; k++) length = length * 256 + message[k]!;
  if (1 + size + length !== message.length) throw new UrScanError('corrupt', `The UR message is not valid CBOR: a byte string of ${length} bytes in ${message.length - 1 - size}`);
  const value = message.subarray(1 + size);
  if (!isPsbt(value)) throw new UrScanError('not-psbt', 'The UR message is not a PSBT (a CBOR byte string starting with "psbt" 0xff)');
  return Uint8Array.from(value);
}

/**
 * One scan of an animated (or static) PSBT QR: feed every decoded QR text to receive() — or every part
 * parseUrPart() checked to receivePart() — in any order, with duplicates and in any letter case, until
 * `complete`; then result() is the PSBT. A part of another UR type, of another message (say a second PSBT
 * shown mid-scan) or garbage throws a UrScanError and changes nothing; reset() starts over. The fountain
 * decoder (fountain.ts) sees only parts that passed every check.
 */
export class PsbtUrScanner {
  #decoder: FountainDecoder | null = null;
  #header: UrHeader | null = null;
  #seen = new Set<number>();
  #result: Uint8Array | null = null;
  #type: PsbtUrType | null = null;
  #decoded = 0;

  get complete(): boolean {
    return this.#result !== null;
  }

  get type(): PsbtUrType | null {
    return this.#type;
  }

  /** Fragments expected: 0 before the first part, 1 for a single-part UR. */
  get expected(): number {
    return this.#header?.seqLen ?? (this.#result ? 1 : 0);
  }

  get progress(): number {
    return this.#result ? 1 : (this.#decoder?.progress ?? 0);
  }

  /** Fragments recovered so far (all of them once complete). */
  get received(): number {
    return this.#result ? this.expected : (this.#decoder?.received ?? 0);
  }

  /** Parts handed to the fountain decoder since the scan began (a refused part never is). */
  get partsDecoded(): number {
    return this.#decoded;
  }

  reset(): void {
    this.#decoder = null;
    this.#header = null;
    this.#seen.clear();
    this.#result = null;
    this.#type = null;
    this.#decoded = 0;
  }

  /** The PSBT, once complete. */
  result(): Uint8Array {
    if (!this.#result) throw new Error(`The PSBT is not complete yet: ${Math.floor(this.progress * 100)} % of its parts read`);
    return this.#result;
  }

  #report(status: UrScanProgress['status']): UrScanProgress {
    const expected = this.expected;
    return { status, progress: this.progress, received: this.received, expected };
  }

  receive(text: string): UrScanProgress {
    if (this.#result) return this.#report('complete');
    return this.receivePart(parseUrPart(text));
  }

  receivePart(part: UrPart): UrScanProgress {
    if (this.#result) return this.#report('complete');
    checkSameMessage(this.#header, part);
    if (part.kind === 'single') {
      this.#result = psbtOfUrMessage(part.message);
      this.#type = part.type;
      return this.#report('complete');
    }
    if (this.#seen.has(part.seqNum)) return this.#report('duplicate');
    this.#header ??= headerOf(part);
    this.#decoder ??= new FountainDecoder(this.#header);
    this.#seen.add(part.seqNum);
    this.#type = part.type;
    this.#decoded++;
    this.#decoder.receive(part.seqNum, part.fragment);
    const failure = this.#decoder.failure;
    if (failure) {
      this.reset();
      throw new UrScanError('corrupt', `The parts do not add up to the message they announce (${failure}): start over`);
    }
    const message = this.#decoder.result;
    if (message) {
      try {
        this.#result = psbtOfUrMessage(message);
      } catch (e) {
        this.reset();
        throw e;
      }
      this.#decoder = null;
      return this.#report('complete');
    }
    return this.#report('accepted');
  }
}

/** All parts at once (any order, duplicates allowed): the PSBT, or a UrScanError / an error saying how much is missing. */
export function decodePsbtUr(parts: Iterable<string>): Uint8Array {
  const scanner = new PsbtUrScanner();
  for (const p of parts) if (scanner.receive(p).status === 'complete') break;
  return scanner.result();
}
