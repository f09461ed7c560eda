/**
 * The input and output of `npm run psbt`: a PSBT given as an argument, a file (binary, base64 or
 * hex) or standard input, with the size cap; stdout that stops quietly when its reader goes away;
 * and the one-PSBT-per-line batch runner that `decode --batch` and `convert --batch` share.
 */
import { createReadStream, openSync, readSync, closeSync, fstatSync, type Stats } from 'node:fs';
import { once } from 'node:events';
import { NETWORKS, type Network } from '../shared/bitcoin/networks';

export const MIB = 1024 * 1024;

/** Fatal: exit 2 with this message on stderr. */
export class Fatal extends Error {}

/** What goes to the library: base64 text (verbatim, Core's path) or raw bytes. */
export type PsbtSource = { kind: 'base64'; text: string } | { kind: 'bytes'; bytes: Uint8Array };
export type SourceOrError = PsbtSource | { kind: 'error'; message: string };

const HEX_MAGIC = /^70736274ff/i;
const HEX_RE = /^[0-9a-fA-F]*$/;

/** A PSBT written as text: hex when it starts with the magic in hex, base64 otherwise. */
export function fromText(text: string): SourceOrError {
  if (HEX_MAGIC.test(text)) {
    if (text.length % 2 !== 0 || !HEX_RE.test(text)) return { kind: 'error', message: 'TX decode failed invalid hex' };
    return { kind: 'bytes', bytes: Buffer.from(text, 'hex') };
  }
  return { kind: 'base64', text };
}

/** Size of the PSBT a text stands for, without decoding it. */
export function decodedSize(text: string): number {
  return HEX_MAGIC.test(text) ? Math.floor(text.length / 2) : Math.floor((text.length * 3) / 4);
}

export function tooLarge(size: number, max: number): string {
  return `PSBT too large: ${size} bytes, the limit is ${max} bytes (--max-size)`;
}

export function toBase64(src: PsbtSource): string {
  return src.kind === 'base64' ? src.text : Buffer.from(src.bytes.buffer, src.bytes.byteOffset, src.bytes.length).toString('base64');
}

/** True when `arg` should be read as a file rather than taken as a PSBT string. */
export function looksLikePath(arg: string): boolean {
  // Base64 and hex never contain . \ or ~, and no PSBT text starts with '/'.
  return arg === '-' || /^(\/|\.\.?\/|~)/.test(arg) || /[.\\~]/.test(arg);
}

export function fileExists(path: string): boolean {
  try {
    const fd = openSync(path, 'r');
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

/** "no such file or directory (ENOENT)" rather than Node's "ENOENT: no such file or directory, open '…'". */
export function errText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (!err || typeof err.message !== 'string') return String(e);
  if (!err.code) return err.message;
  const text = err.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
  return `${text} (${err.code})`;
}

/** Reads a whole file (or stdin for "-"), refusing anything that cannot hold a PSBT under the cap. */
export async function readInputFile(path: string, maxBytes: number): Promise<Buffer> {
  // A hex text file of a PSBT at the cap is twice the cap, plus some whitespace.
  const maxFile = maxBytes * 2 + MIB;
  if (path === '-') {
    const parts: Buffer[] = [];
    let n = 0;
    for await (const chunk of process.stdin) {
      const b = chunk as Buffer;
      n += b.length;
      if (n > maxFile) throw new Fatal(`standard input: ${tooLarge(n, maxBytes)}`);
      parts.push(b);
    }
    return Buffer.concat(parts);
  }
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new Fatal(`cannot read ${path}: ${errText(e)}`);
  }
  try {
    let st: Stats;
    try {
      st = fstatSync(fd);
    } catch (e) {
      throw new Fatal(`cannot read ${path}: ${errText(e)}`);
    }
    if (st.isDirectory()) throw new Fatal(`cannot read ${path}: it is a directory`);
    if (st.size > maxFile) throw new Fatal(`${path}: ${tooLarge(st.size, maxBytes)}`);
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      let n: number;
      try {
        n = readSync(fd, buf, got, st.size - got, got);
      } catch (e) {
        throw new Fatal(`cannot read ${path}: ${errText(e)}`);
      }
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** A file's content as a PSBT: binary when it starts with the magic or holds non-text bytes. */
export function fromFile(file: Buffer, label: string, maxBytes: number): SourceOrError {
  // A text file saved with a UTF-8 byte order mark is still text.
  const buf = file.length >= 3 && file[0] === 0xef && file[1] === 0xbb && file[2] === 0xbf ? file.subarray(3) : file;
  const binary = (buf.length >= 5 && buf[0] === 0x70 && buf[1] === 0x73 && buf[2] === 0x62 && buf[3] === 0x74 && buf[4] === 0xff) ||
    buf.some((c) => c === 0 || c >= 0x7f || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x0b));
  if (binary) {
    if (buf.length > maxBytes) throw new Fatal(`${label}: ${tooLarge(buf.length, maxBytes)}`);
    return { kind: 'bytes', bytes: buf };
  }
  const text = buf.toString('latin1').replace(/\s+/g, '');
  const size = decodedSize(text);
  if (size > maxBytes) throw new Fatal(`${label}: ${tooLarge(size, maxBytes)}`);
  return fromText(text);
}


/** A PSBT named on the command line: a file (or "-") when it looks like one, else the PSBT itself. */
export async function readSource(arg: string, maxBytes: number): Promise<PsbtSource> {
  let src: SourceOrError;
  if (arg !== '' && (looksLikePath(arg) || fileExists(arg))) {
    const label = arg === '-' ? 'standard input' : arg;
    src = fromFile(await readInputFile(arg, maxBytes), label, maxBytes);
  } else {
    const text = arg.trim();
    const size = decodedSize(text);
    if (size > maxBytes) throw new Fatal(tooLarge(size, maxBytes));
    src = fromText(text);
  }
  if (src.kind === 'error') throw new Fatal(src.message);
  return src;
}

/** One batch line's source, or why it has none (too large, bad hex). */
export function lineSource(text: string, maxBytes: number): SourceOrError {
  const size = decodedSize(text);
  if (size > maxBytes) return { kind: 'error', message: tooLarge(size, maxBytes) };
  return fromText(text);
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

let stdoutClosed = false;
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  // `… | head`: the reader went away; stop quietly.
  if (e.code === 'EPIPE') {
    stdoutClosed = true;
    process.exit(0);
  }
  throw e;
});

export async function out(text: string): Promise<void> {
  if (stdoutClosed) return;
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

// ---------------------------------------------------------------------------------------------
// Batch: one PSBT a line in, one line out each
// ---------------------------------------------------------------------------------------------

export interface BatchHandlers {
  /** The output line (with its newline) for one non-empty input line (trimmed). */
  line(text: string): string;
  /** The output line for an input line longer than any PSBT under the cap (its size estimated). */
  tooLong(message: string): string;
}

/**
 * Reads FILE (or standard input for "-") line by line and writes one output line per non-empty
 * input line, in order; blank lines print nothing. Throws {@link Fatal} when FILE cannot be read.
 */
export async function runBatch(path: string, maxBytes: number, h: BatchHandlers): Promise<void> {
  const label = path === '-' ? 'standard input' : path;
  let stream: NodeJS.ReadableStream;
  if (path === '-') {
    stream = process.stdin;
  } else {
    // Open first so a missing file is reported before anything is printed.
    let fd: number;
    try {
      fd = openSync(path, 'r');
      if (fstatSync(fd).isDirectory()) {
        closeSync(fd);
        throw new Fatal(`cannot read ${path}: it is a directory`);
      }
    } catch (e) {
      if (e instanceof Fatal) throw e;
      throw new Fatal(`cannot read ${path}: ${errText(e)}`);
    }
    stream = createReadStream(path, { fd, highWaterMark: MIB });
  }
  // A line longer than this cannot be a PSBT under the cap (hex doubles it; whitespace slack).
  const maxLine = maxBytes * 2 + 4096;
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let overlong = false;
  let outBuf: string[] = [];
  let outLen = 0;

  const flush = async (): Promise<void> => {
    if (outBuf.length === 0) return;
    const s = outBuf.join('');
    outBuf = [];
    outLen = 0;
    await out(s);
  };
  const push = (s: string): void => {
    outBuf.push(s);
    outLen += s.length;
  };
  const line = (buf: Buffer): void => {
    const text = buf.toString('latin1').trim();
    if (text !== '') push(h.line(text));
  };
  const finishLine = (tail: Buffer): void => {
    if (overlong) push(h.tooLong(tooLarge(Math.floor((pendingLen + tail.length) / 2), maxBytes)));
    else if (pending.length === 0) line(tail);
    else line(Buffer.concat([...pending, tail]));
    pending = [];
    pendingLen = 0;
    overlong = false;
  };

  try {
    for await (const chunk of stream) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : (chunk as Buffer);
      let start = 0;
      for (;;) {
        const nl = b.indexOf(0x0a, start);
        if (nl < 0) break;
        finishLine(b.subarray(start, nl));
        start = nl + 1;
      }
      if (start < b.length) {
        const rest = b.subarray(start);
        if (overlong || pendingLen + rest.length > maxLine) {
          // Keep counting, stop keeping: the line is reported as too large when it ends.
          overlong = true;
          pending = [];
        } else pending.push(Buffer.from(rest));
        pendingLen += rest.length;
      }
      if (outLen >= 256 * 1024) await flush();
    }
  } catch (e) {
    await flush();
    throw new Fatal(`cannot read ${label}: ${errText(e)}`);
  }
  if (pendingLen > 0) finishLine(Buffer.alloc(0));
  await flush();
}

/** The network names the commands take (`--network`), as Core's `-chain=` and its aliases. */
export const NETWORK_ALIASES: Record<string, Network['chain']> = {
  main: 'main',
  mainnet: 'main',
  bitcoin: 'main',
  test: 'test',
  testnet: 'test',
  testnet3: 'test',
  testnet4: 'testnet4',
  signet: 'signet',
  regtest: 'regtest',
};

/** Bad usage of a command: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {}

/** The network a `--network`/`--chain` value names; a UsageError naming the flag when it names none. */
export function networkOf(name: string, flag: string): Network {
  const chain = NETWORK_ALIASES[name.toLowerCase()];
  if (!chain) throw new UsageError(`${flag}: unknown network '${name}' (main, test, testnet4, signet, regtest)`);
  return NETWORKS[chain];
}

/** A UsageError caught while reading the arguments: printed, exit code 2. Anything else is thrown on. */
export function usageExit(e: unknown): number {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`error: ${e.message}\n(npm run psbt -- --help for usage)\n`);
  return 2;
}
