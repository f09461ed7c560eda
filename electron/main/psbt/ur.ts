/**
 * PSBTs as BC-UR (Blockchain Commons UR, BCR-2020-005/006): `ur:crypto-psbt`, the CBOR byte string of the PSBT,
 * split into fountain-coded parts for animated QR codes, and the scanning session that puts the parts back
 * together. The UR work is @ngraveio/bc-ur's (Node: it uses Buffer) — CBOR, fragments, fountain mixing, checksums,
 * decoding — except the last step of writing a part, bytewords, done here twice as fast (see minimalBytewords);
 * this module adds the choice between one static part and fragments, checks, and clear errors for what a camera
 * may read mid-scan.
 */
import { crc32 } from 'node:zlib';
import { UR, URDecoder } from '@ngraveio/bc-ur';
import * as bytewordsModule from '@ngraveio/bc-ur/dist/bytewords.js';
import * as fountainDecoderModule from '@ngraveio/bc-ur/dist/fountainDecoder.js';
import * as fountainEncoderModule from '@ngraveio/bc-ur/dist/fountainEncoder.js';
import { FountainEncoderPart } from '@ngraveio/bc-ur/dist/fountainEncoder.js';

/**
 * The default export of one of the library's CommonJS modules (`exports.default = …`): a bundler (the app's build,
 * vitest) hands over that value, Node's own ESM loader (tsx: the bench, the CLI) the whole exports object.
 */
function cjsDefault<T>(m: { default: T }): T {
  const d = m.default as T & { default?: T };
  return d.default ?? d;
}
const Bytewords = cjsDefault(bytewordsModule);
const FountainDecoder = cjsDefault(fountainDecoderModule);
const FountainEncoder = cjsDefault(fountainEncoderModule);

/** UR types of a PSBT: `crypto-psbt` (BCR-2020-006, what signers show and read today) and `psbt` (its newer name). */
export type PsbtUrType = 'crypto-psbt' | 'psbt';
const PSBT_UR_TYPES: readonly string[] = ['crypto-psbt', 'psbt'];

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

/** The UR parts of a PSBT (binary, starting with "psbt" 0xff). */
export function encodePsbtUr(psbt: Uint8Array, options: PsbtUrOptions = {}): PsbtUr {
  if (!isPsbt(psbt)) throw new TypeError('Not a PSBT: the bytes do not start with "psbt" 0xff');
  const type = options.type ?? 'crypto-psbt';
  if (!PSBT_UR_TYPES.includes(type)) throw new RangeError(`UR type must be crypto-psbt or psbt, got ${String(type)}`);
  const maxFragment = checkLength('maxFragmentLength', options.maxFragmentLength ?? DEFAULT_FRAGMENT_LENGTH, MIN_FRAGMENT_LENGTH, MAX_FRAGMENT_LENGTH);
  const singleMax = checkLength('singlePartMaxLength', options.singlePartMaxLength ?? maxFragment, 0, MAX_FRAGMENT_LENGTH);
  const extra = checkLength('fountainParts', options.fountainParts ?? 0, 0, 1_000_000);

  const ur = new UR(UR.fromBuffer(Buffer.from(psbt.buffer, psbt.byteOffset, psbt.byteLength)).cbor, type);
  const messageLength = ur.cbor.length;
  const prefix = `UR:${type.toUpperCase()}/`;
  // One fragment is the single-part form too (as the library writes it).
  if (messageLength <= singleMax || messageLength <= maxFragment) {
    return { kind: 'single', parts: [prefix + minimalBytewords(ur.cbor)], seqLen: 1, fragmentLength: messageLength, messageLength, type };
  }
  // The library's fountain encoder: fragments, the pure parts in order, then mixed ones; each part's CBOR.
  const encoder = new FountainEncoder(ur.cbor, maxFragment);
  const seqLen = encoder.seqLength();
  const parts: string[] = new Array<string>(seqLen + extra);
  for (let i = 0; i < parts.length; i++) {
    const part = encoder.nextPart();
    parts[i] = `${prefix}${part.seqNum}-${seqLen}/${minimalBytewords(part.cbor())}`;
  }
  return { kind: 'multi', parts, seqLen, fragmentLength: encoder.fragments[0]!.length, messageLength, type };
}

export type UrScanErrorCode = 'not-ur' | 'malformed' | 'wrong-type' | 'other-message' | 'corrupt' | 'not-psbt';

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

export interface UrScanProgress {
  /** 'accepted': a new part; 'duplicate': one already read (harmless); 'complete': the PSBT is whole. */
  status: 'accepted' | 'duplicate' | 'complete';
  /** Fragments recovered / fragments expected, 0..1 (1 once complete). */
  progress: number;
  received: number;
  expected: number;
}

interface Header {
  type: string;
  seqLen: number;
  messageLength: number;
  checksum: number;
  fragmentLength: number;
}

/** Text of an error thrown by the library (its asserts and errors), for the message of a refused part. */
const reason = (e: unknown): string => (e instanceof Error && e.message ? e.message : String(e));

/**
 * One scan of an animated (or static) PSBT QR: feed every decoded QR text to receive(), in any order, with
 * duplicates and in any letter case, until `complete`; then result() is the PSBT. A part of another UR type,
 * of another message (say a second PSBT shown mid-scan) or garbage throws a UrScanError and changes nothing;
 * reset() starts over.
 */
export class PsbtUrScanner {
  #decoder: InstanceType<typeof FountainDecoder> = new FountainDecoder();
  #header: Header | null = null;
  #seen = new Set<number>();
  #result: Uint8Array | null = null;
  #type: PsbtUrType | null = null;

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
    return this.#result ? 1 : this.#header ? this.#decoder.getProgress() : 0;
  }

  reset(): void {
    this.#decoder = new FountainDecoder();
    this.#header = null;
    this.#seen.clear();
    this.#result = null;
    this.#type = null;
  }

  /** The PSBT, once complete. */
  result(): Uint8Array {
    if (!this.#result) throw new Error(`The PSBT is not complete yet: ${Math.floor(this.progress * 100)} % of its parts read`);
    return this.#result;
  }

  #report(status: UrScanProgress['status']): UrScanProgress {
    const expected = this.expected;
    return { status, progress: this.progress, received: this.#result ? expected : this.#decoder.getReceivedPartIndexes().length, expected };
  }

  receive(text: string): UrScanProgress {
    if (this.#result) return this.#report('complete');
    const lower = text.trim().toLowerCase();
    if (!lower.startsWith('ur:')) throw new UrScanError('not-ur', 'This QR code is not a UR code (it does not start with "ur:")');
    let type: string;
    let components: string[];
    try {
      [type, components] = URDecoder.parse(lower);
    } catch (e) {
      throw new UrScanError('malformed', `This UR code is malformed (${reason(e) || 'bad type or path'})`);
    }
    if (!PSBT_UR_TYPES.includes(type)) throw new UrScanError('wrong-type', `This UR code holds "${type}", not a PSBT (crypto-psbt)`);
    if (this.#header && this.#header.type !== type) {
      throw new UrScanError('other-message', `This UR code (${type}) belongs to another message than the ${this.#header.type} being scanned`);
    }

    if (components.length === 1) {
      if (this.#header) throw new UrScanError('other-message', 'This is a whole single-part PSBT, not one of the parts being scanned: start over to read it');
      let cbor: Buffer;
      try {
        cbor = URDecoder.decode(lower).cbor;
      } catch (e) {
        throw new UrScanError('corrupt', `This UR code is damaged: ${reason(e)}`);
      }
      this.#finish(cbor, type as PsbtUrType);
      return this.#report('complete');
    }
    if (components.length !== 2) throw new UrScanError('malformed', 'This UR code is malformed (a part has the form ur:type/n-total/body)');

    let seqNum: number;
    let seqLen: number;
    let part: FountainEncoderPart;
    try {
      [seqNum, seqLen] = URDecoder.parseSequenceComponent(components[0]!) as [number, number];
    } catch {
      seqNum = seqLen = NaN;
    }
    if (!/^\d+-\d+$/.test(components[0]!) || !Number.isSafeInteger(seqNum) || !Number.isSafeInteger(seqLen)) {
      throw new UrScanError('malformed', `This UR code's sequence "${components[0]}" is not of the form n-total`);
    }
    try {
      part = FountainEncoderPart.fromCBOR(Bytewords.decode(components[1]!, Bytewords.STYLES.MINIMAL));
    } catch (e) {
      throw new UrScanError('corrupt', `This UR part is damaged: ${reason(e) || 'its body does not decode'}`);
    }
    if (part.seqNum !== seqNum || part.seqLength !== seqLen) throw new UrScanError('corrupt', `This UR part is damaged: its body says part ${part.seqNum}-${part.seqLength}, its name ${seqNum}-${seqLen}`);

    const header: Header = { type, seqLen, messageLength: part.messageLength, checksum: part.checksum, fragmentLength: part.fragment.length };
    const h = this.#header;
    if (h && (h.seqLen !== header.seqLen || h.messageLength !== header.messageLength || h.checksum !== header.checksum || h.fragmentLength !== header.fragmentLength)) {
      throw new UrScanError('other-message', `This part belongs to another PSBT (${header.seqLen} parts, ${header.messageLength} bytes) than the one being scanned (${h.seqLen} parts, ${h.messageLength} bytes): start over to read the new one`);
    }
    if (this.#seen.has(seqNum)) return this.#report('duplicate');
    this.#header = header;
    this.#seen.add(seqNum);
    this.#type = type as PsbtUrType;
    this.#decoder.receivePart(part);
    if (this.#decoder.isFailure()) {
      const error = this.#decoder.resultError();
      this.reset();
      throw new UrScanError('corrupt', `The parts do not add up to the message they announce (${error}): start over`);
    }
    if (this.#decoder.isSuccess()) {
      try {
        this.#finish(this.#decoder.resultMessage(), type as PsbtUrType);
      } catch (e) {
        this.reset();
        throw e;
      }
      return this.#report('complete');
    }
    return this.#report('accepted');
  }

  /** The message is the CBOR byte string of the PSBT. */
  #finish(cbor: Buffer, type: PsbtUrType): void {
    let value: unknown;
    try {
      value = new UR(cbor, type).decodeCBOR();
    } catch (e) {
      throw new UrScanError('corrupt', `The UR message is not valid CBOR: ${reason(e)}`);
    }
    if (!(value instanceof Uint8Array) || !isPsbt(value)) {
      throw new UrScanError('not-psbt', 'The UR message is not a PSBT (a CBOR byte string starting with "psbt" 0xff)');
    }
    this.#result = Uint8Array.from(value);
    this.#type = type;
  }
}

/** All parts at once (any order, duplicates allowed): the PSBT, or a UrScanError / an error saying how much is missing. */
export function decodePsbtUr(parts: Iterable<string>): Uint8Array {
  const scanner = new PsbtUrScanner();
  for (const p of parts) if (scanner.receive(p).status === 'complete') break;
  return scanner.result();
}
