/**
 * `npm run psbt -- decode …`: Bitcoin Core's `decodepsbt`, offline, for scripts and air-gapped
 * machines. The decoder is shared/bitcoin/psbt (the one the app and the devnet use), so `--json`
 * prints the very text the devnet's `decodepsbt` answers, which is Core v30's result.
 *
 * Exit codes: 0 decoded (in --batch mode: the file was read, whatever its lines held);
 * 2 invalid PSBT, unreadable file, PSBT over the size cap, or bad usage.
 */
import { createReadStream, openSync, readSync, closeSync, fstatSync, type Stats } from 'node:fs';
import { once } from 'node:events';
import { decodePsbt, decodePsbtJson } from '../shared/bitcoin/psbt';
import { NETWORKS, type Network } from '../shared/bitcoin/networks';
import { jsonString } from '../shared/json';

const MIB = 1024 * 1024;
const DEFAULT_MAX_BYTES = 100 * MIB;

export const HELP = `usage: npm run psbt -- decode <file|base64|hex|-> [--json] [--network NET] [--max-size BYTES]
       npm run psbt -- decode --batch <FILE|-> [--network NET] [--max-size BYTES]
       npm run psbt -- --help

decode <input>
  Decodes one PSBT offline, exactly like Bitcoin Core v30's \`decodepsbt\`.
  <input> is read as a file when a file of that name exists, when it looks like a path (starts
  with / ./ ../ or ~, or contains . or \\), or when it is "-" (standard input). A file may hold
  a binary PSBT (starting with the magic bytes "psbt" 0xff) or base64 / hex text (whitespace
  and line breaks are ignored). Otherwise <input> is the PSBT itself: hex when it starts with
  70736274ff (the magic bytes in hex), base64 in every other case — base64 is handed to the
  decoder verbatim, so errors are Core's own (e.g. "TX decode failed invalid base64").

  --json           print Core's decodepsbt result as compact JSON (Core's key order, amounts
                   with 8 decimals), byte for byte what the node answers. Without --json a
                   readable summary is printed: inputs, outputs, fee, fee rate, warnings.
  --network NET    main (default), test, testnet4, signet or regtest: how addresses and
                   extended keys are written.
  --max-size N     refuse PSBTs larger than N bytes (default ${DEFAULT_MAX_BYTES}, 100 MiB).

  Invalid input: exit code 2, nothing on stdout, the reason on stderr, e.g.
    error: TX decode failed Invalid PSBT magic bytes: iostream error

decode --batch <FILE>
  Reads one PSBT per line (base64 or hex, as above; surrounding whitespace and CR ignored) and
  prints one line per non-empty input line, in order — blank lines are skipped and print
  nothing, so output line k answers the k-th non-empty input line:
    {"result": <decodepsbt result, compact JSON>, "error": null}
    {"result": null, "error": {"code": -22, "message": "TX decode failed …"}}
  A line that fails to decode is data, not a failure: the exit code is 0 unless FILE cannot be
  read (exit 2). FILE "-" reads standard input.

In scripts use \`npm run -s psbt -- …\` (or \`npx tsx cli/psbt.ts …\`): without -s, npm prints its
own banner on stdout before the output.`;

class UsageError extends Error {}
/** Fatal: exit 2 with this message on stderr. */
class Fatal extends Error {}

interface Options {
  mode: 'single' | 'batch' | 'help';
  input?: string;
  json: boolean;
  network: Network;
  maxBytes: number;
}

const NETWORK_ALIASES: Record<string, Network['chain']> = {
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

export function parseArgs(argv: string[]): Options {
  const o: Options = { mode: 'single', json: false, network: NETWORKS.main, maxBytes: DEFAULT_MAX_BYTES };
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    return { ...o, mode: 'help' };
  }
  const [cmd, ...rest] = argv;
  if (cmd !== 'decode') throw new UsageError(`unknown command '${cmd}' (expected: decode)`);
  const positional: string[] = [];
  let batch: string | undefined;
  const value = (i: number, flag: string): string => {
    const v = rest[i + 1];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--json') o.json = true;
    else if (a === '--batch') batch = value(i++, a);
    else if (a === '--network' || a === '--chain') {
      const v = value(i++, a);
      const chain = NETWORK_ALIASES[v.toLowerCase()];
      if (!chain) throw new UsageError(`${a}: unknown network '${v}' (main, test, testnet4, signet, regtest)`);
      o.network = NETWORKS[chain];
    } else if (a === '--max-size') {
      const v = value(i++, a);
      const n = Number(v);
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--max-size: '${v}' is not a positive byte count`);
      o.maxBytes = n;
    } else if (a === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    } else if (a.startsWith('--')) throw new UsageError(`unknown option '${a}'`);
    else positional.push(a);
  }
  if (batch !== undefined) {
    if (positional.length > 0) throw new UsageError('--batch takes its PSBTs from FILE, not from the command line');
    if (o.json) throw new UsageError('--batch always prints JSON; --json does not apply');
    return { ...o, mode: 'batch', input: batch };
  }
  if (positional.length !== 1) throw new UsageError(positional.length === 0 ? 'decode needs a PSBT, a file or -' : 'decode takes one PSBT');
  return { ...o, input: positional[0]! };
}

// ---------------------------------------------------------------------------------------------
// Input: text (base64 or hex) or bytes
// ---------------------------------------------------------------------------------------------

/** What goes to the decoder: base64 text (verbatim, Core's path) or raw bytes. */
type PsbtSource = { kind: 'base64'; text: string } | { kind: 'bytes'; bytes: Uint8Array };
type Decoded = { ok: true; json: string } | { ok: false; code: number; message: string };

const HEX_MAGIC = /^70736274ff/i;
const HEX_RE = /^[0-9a-fA-F]*$/;

/** A PSBT written as text: hex when it starts with the magic in hex, base64 otherwise. */
function fromText(text: string): PsbtSource | { kind: 'error'; message: string } {
  if (HEX_MAGIC.test(text)) {
    if (text.length % 2 !== 0 || !HEX_RE.test(text)) return { kind: 'error', message: 'TX decode failed invalid hex' };
    return { kind: 'bytes', bytes: Buffer.from(text, 'hex') };
  }
  return { kind: 'base64', text };
}

/** Size of the PSBT a text stands for, without decoding it. */
function decodedSize(text: string): number {
  return HEX_MAGIC.test(text) ? Math.floor(text.length / 2) : Math.floor((text.length * 3) / 4);
}

function tooLarge(size: number, max: number): string {
  return `PSBT too large: ${size} bytes, the limit is ${max} bytes (--max-size)`;
}

function toBase64(src: PsbtSource): string {
  return src.kind === 'base64' ? src.text : Buffer.from(src.bytes.buffer, src.bytes.byteOffset, src.bytes.length).toString('base64');
}

function decodeJson(src: PsbtSource, network: Network): Decoded {
  return decodePsbtJson(toBase64(src), network);
}

/** True when `arg` should be read as a file rather than taken as a PSBT string. */
function looksLikePath(arg: string): boolean {
  // Base64 and hex never contain . \ or ~, and no PSBT text starts with '/'.
  return arg === '-' || /^(\/|\.\.?\/|~)/.test(arg) || /[.\\~]/.test(arg);
}

function fileExists(path: string): boolean {
  try {
    const fd = openSync(path, 'r');
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

/** "no such file or directory (ENOENT)" rather than Node's "ENOENT: no such file or directory, open '…'". */
function errText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (!err || typeof err.message !== 'string') return String(e);
  if (!err.code) return err.message;
  const text = err.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
  return `${text} (${err.code})`;
}

/** Reads a whole file (or stdin for "-"), refusing anything that cannot hold a PSBT under the cap. */
async function readInputFile(path: string, maxBytes: number): Promise<Buffer> {
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
function fromFile(file: Buffer, label: string, maxBytes: number): PsbtSource | { kind: 'error'; message: string } {
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

async function out(text: string): Promise<void> {
  if (stdoutClosed) return;
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

// ---------------------------------------------------------------------------------------------
// Single decode
// ---------------------------------------------------------------------------------------------

async function decodeOne(o: Options): Promise<void> {
  const arg = o.input!;
  let src: PsbtSource | { kind: 'error'; message: string };
  if (arg !== '' && (looksLikePath(arg) || fileExists(arg))) {
    const label = arg === '-' ? 'standard input' : arg;
    src = fromFile(await readInputFile(arg, o.maxBytes), label, o.maxBytes);
  } else {
    const text = arg.trim();
    const size = decodedSize(text);
    if (size > o.maxBytes) throw new Fatal(tooLarge(size, o.maxBytes));
    src = fromText(text);
  }
  if (src.kind === 'error') throw new Fatal(src.message);
  if (o.json) {
    const r = decodeJson(src, o.network);
    if (!r.ok) throw new Fatal(r.message);
    await out(r.json + '\n');
    return;
  }
  const r = decodePsbt(toBase64(src), o.network);
  if (!r.ok) throw new Fatal(r.message);
  await out(summarize(r.result, o.network));
}

// ---------------------------------------------------------------------------------------------
// Batch
// ---------------------------------------------------------------------------------------------

function batchLine(text: string, o: Options): string {
  let r: Decoded;
  const size = decodedSize(text);
  if (size > o.maxBytes) {
    r = { ok: false, code: -22, message: tooLarge(size, o.maxBytes) };
  } else {
    const src = fromText(text);
    r = src.kind === 'error' ? { ok: false, code: -22, message: src.message } : decodeJson(src, o.network);
  }
  return r.ok
    ? `{"result": ${r.json}, "error": null}\n`
    : `{"result": null, "error": {"code": ${r.code}, "message": ${jsonString(r.message)}}}\n`;
}

async function decodeBatch(o: Options): Promise<void> {
  const path = o.input!;
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
  const maxLine = o.maxBytes * 2 + 4096;
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
  const line = (buf: Buffer): void => {
    const text = buf.toString('latin1').trim();
    if (text === '') return;
    const s = batchLine(text, o);
    outBuf.push(s);
    outLen += s.length;
  };
  const finishLine = (tail: Buffer): void => {
    if (overlong) {
      const s = `{"result": null, "error": {"code": -22, "message": ${jsonString(tooLarge(Math.floor((pendingLen + tail.length) / 2), o.maxBytes))}}}\n`;
      outBuf.push(s);
      outLen += s.length;
    } else if (pending.length === 0) line(tail);
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

// ---------------------------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** An amount of the result (a RawJson token with 8 decimals, or a number) in satoshis. */
function sats(x: unknown): bigint | undefined {
  let t: string;
  if (typeof x === 'number') t = x.toFixed(8);
  else if (isObj(x) && typeof (x as { text?: unknown }).text === 'string') t = (x as { text: string }).text;
  else return undefined;
  const m = /^(-?)(\d+)\.(\d{8})$/.exec(t);
  if (!m) return undefined;
  const v = BigInt(m[2]!) * 100_000_000n + BigInt(m[3]!);
  return m[1] ? -v : v;
}

function btc(s: bigint): string {
  const neg = s < 0n;
  const a = neg ? -s : s;
  return `${neg ? '-' : ''}${a / 100_000_000n}.${(a % 100_000_000n).toString().padStart(8, '0')} BTC`;
}

function satStr(s: bigint): string {
  return `${s.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')} sat`;
}

function compactSizeLen(n: number): number {
  return n < 253 ? 1 : n <= 0xffff ? 3 : 5;
}

function pushLen(n: number): number {
  return n < 76 ? 1 + n : n < 256 ? 2 + n : 3 + n;
}

/** m of an m-of-n multisig script, from Core's script JSON ({asm, hex, type}). */
function multisig(script: unknown): { m: number; n: number } | undefined {
  if (!isObj(script) || script.type !== 'multisig') return undefined;
  const t = String(script.asm).split(' ');
  const m = Number(t[0]);
  const n = Number(t[t.length - 2]);
  return Number.isInteger(m) && Number.isInteger(n) ? { m, n } : undefined;
}

const scriptLen = (s: unknown): number => (isObj(s) ? String(s.hex ?? '').length / 2 : 0);

/** Size an input will add once signed: scriptSig bytes and witness bytes (upper estimates). */
function inputFinalSize(inp: Obj, spk: Obj | undefined): { scriptSig: number; witness: number } | undefined {
  const spkType = spk ? str(spk.type) : undefined;
  const fss = isObj(inp.final_scriptSig) ? String(inp.final_scriptSig.hex).length / 2 : undefined;
  const fsw = Array.isArray(inp.final_scriptwitness) ? (inp.final_scriptwitness as string[]) : undefined;
  if (fss !== undefined || fsw !== undefined) {
    let w = 0;
    if (fsw) {
      w = compactSizeLen(fsw.length);
      for (const e of fsw) w += compactSizeLen(e.length / 2) + e.length / 2;
    }
    return { scriptSig: fss ?? 0, witness: w };
  }
  const SIG = 73; // push + DER signature + sighash byte, at most
  const PK = 34; // push + compressed key
  const rs = inp.redeem_script;
  const ws = inp.witness_script;
  const wshWitness = (): number | undefined => {
    const ms = multisig(ws);
    if (!ms) return undefined;
    const l = scriptLen(ws);
    return 1 + 1 + ms.m * SIG + compactSizeLen(l) + l; // count, OP_0 dummy, sigs, script
  };
  switch (spkType) {
    case 'pubkeyhash':
      return { scriptSig: SIG + PK, witness: 0 };
    case 'pubkey':
      return { scriptSig: SIG, witness: 0 };
    case 'multisig': {
      const ms = multisig(spk);
      return ms ? { scriptSig: 1 + ms.m * SIG, witness: 0 } : undefined;
    }
    case 'witness_v0_keyhash':
      return { scriptSig: 0, witness: 1 + SIG + PK };
    case 'witness_v0_scripthash': {
      const w = wshWitness();
      return w === undefined ? undefined : { scriptSig: 0, witness: w };
    }
    case 'witness_v1_taproot':
      // Key path: one 64-byte Schnorr signature (65 with an explicit sighash).
      return { scriptSig: 0, witness: 1 + 1 + (inp.sighash !== undefined ? 65 : 64) };
    case 'scripthash': {
      const rsType = isObj(rs) ? rs.type : undefined;
      const rsPush = pushLen(scriptLen(rs));
      if (rsType === 'witness_v0_keyhash') return { scriptSig: rsPush, witness: 1 + SIG + PK };
      if (rsType === 'witness_v0_scripthash') {
        const w = wshWitness();
        return w === undefined ? undefined : { scriptSig: rsPush, witness: w };
      }
      const ms = multisig(rs);
      if (ms) return { scriptSig: 1 + ms.m * SIG + rsPush, witness: 0 };
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Core's GetDustThreshold at the default dust relay fee (3 sat/vB). */
function dustThreshold(spkHex: string): bigint {
  const spk = Buffer.from(spkHex, 'hex');
  if (spk[0] === 0x6a || spk.length > 10_000) return 0n; // unspendable
  let size = 8 + compactSizeLen(spk.length) + spk.length;
  const v = spk[0];
  const isWitness = spk.length >= 4 && spk.length <= 42 && (v === 0 || (v !== undefined && v >= 0x51 && v <= 0x60)) && spk[1] === spk.length - 2;
  size += isWitness ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt(size * 3);
}

const SEQUENCE_FINAL = 0xffffffff;

export function summarize(r: Obj, network: Network): string {
  const lines: string[] = [];
  const warn: string[] = [];
  const tx = isObj(r.tx) ? r.tx : {};
  const vin = arr(tx.vin).filter(isObj);
  const vout = arr(tx.vout).filter(isObj);
  const inputs = arr(r.inputs).filter(isObj);
  const outputs = arr(r.outputs).filter(isObj);
  const locktime = Number(tx.locktime ?? 0);
  const rbf = vin.some((v) => Number(v.sequence) < SEQUENCE_FINAL - 1);

  lines.push(`PSBT version ${String(r.psbt_version)}, network ${network.chain}`);
  lines.push(`unsigned transaction ${String(tx.txid)}`);
  lines.push(
    `  version ${String(tx.version)}, locktime ${locktime === 0 ? '0 (none)' : locktime < 500_000_000 ? `${locktime} (block height)` : `${locktime} (${new Date(locktime * 1000).toISOString()})`}, ` +
      `RBF ${rbf ? 'signalled' : 'not signalled'}, ${vin.length} input${vin.length === 1 ? '' : 's'}, ${vout.length} output${vout.length === 1 ? '' : 's'}`,
  );

  // Inputs
  let totalIn = 0n;
  let allAmounts = true;
  let allSized = true;
  let allFinal = inputs.length > 0;
  let baseExtra = 0; // scriptSig bytes added to the unsigned transaction
  const witnessSizes: number[] = []; // per input, 0 = no witness
  lines.push('', `inputs (${vin.length})`);
  for (let i = 0; i < vin.length; i++) {
    const v = vin[i]!;
    const inp = inputs[i] ?? {};
    const n = Number(v.vout);
    lines.push(`  #${i} ${String(v.txid)}:${n}`);
    const wu = isObj(inp.witness_utxo) ? inp.witness_utxo : undefined;
    const nwu = isObj(inp.non_witness_utxo) ? inp.non_witness_utxo : undefined;
    const prevOut = nwu ? arr(nwu.vout).filter(isObj)[n] : undefined;
    const amountW = wu ? sats(wu.amount) : undefined;
    const amountN = prevOut ? sats(prevOut.value) : undefined;
    const amount = amountN ?? amountW;
    const spk = (prevOut && isObj(prevOut.scriptPubKey) ? prevOut.scriptPubKey : undefined) ?? (wu && isObj(wu.scriptPubKey) ? wu.scriptPubKey : undefined);
    const spkType = spk ? str(spk.type) : undefined;
    const address = spk ? str(spk.address) : undefined;
    if (amount !== undefined) totalIn += amount;
    else allAmounts = false;
    lines.push(`     amount    ${amount !== undefined ? btc(amount) : 'unknown'}`);
    lines.push(`     address   ${address ?? (spkType ? `(no address: ${spkType})` : 'unknown')}${address && spkType ? ` (${spkType})` : ''}`);
    const utxo = [wu ? 'witness_utxo' : '', nwu ? 'non_witness_utxo' : ''].filter(Boolean).join(' + ');
    lines.push(`     utxo data ${utxo || 'none'}`);
    if (!wu && !nwu) warn.push(`input #${i}: no UTXO data (neither witness_utxo nor non_witness_utxo): its amount and the fee are unknown`);
    if (amountW !== undefined && amountN !== undefined && amountW !== amountN) {
      warn.push(`input #${i}: witness_utxo amount ${btc(amountW)} differs from the non_witness_utxo output ${btc(amountN)} (segwit fee attack?)`);
    }
    const sighash = str(inp.sighash);
    lines.push(`     sighash   ${sighash ?? 'DEFAULT (not set)'}`);
    if (sighash && sighash !== 'ALL' && sighash !== 'DEFAULT') warn.push(`input #${i}: sighash ${sighash} (not ALL/DEFAULT): the signature does not commit to the whole transaction`);

    const finalized = inp.final_scriptSig !== undefined || inp.final_scriptwitness !== undefined;
    if (!finalized) allFinal = false;
    const partial = isObj(inp.partial_signatures) ? Object.keys(inp.partial_signatures).length : 0;
    const tapKey = inp.taproot_key_path_sig !== undefined ? 1 : 0;
    const tapScript = arr(inp.taproot_script_path_sigs).length;
    const musig = arr(inp.musig2_partial_sigs).length;
    const present = partial + tapKey + tapScript;
    const ms = multisig(inp.witness_script) ?? multisig(inp.redeem_script);
    const single = ['pubkeyhash', 'pubkey', 'witness_v0_keyhash', 'witness_v1_taproot'].includes(spkType ?? '') ||
      (spkType === 'scripthash' && isObj(inp.redeem_script) && inp.redeem_script.type === 'witness_v0_keyhash');
    const required = ms ? `${ms.m} (${ms.m}-of-${ms.n} multisig)` : single ? '1' : 'unknown';
    if (finalized) lines.push(`     signed    finalized (${[inp.final_scriptSig ? 'final_scriptSig' : '', inp.final_scriptwitness ? 'final_scriptwitness' : ''].filter(Boolean).join(' + ')})`);
    else {
      const kinds = [
        partial ? `${partial} partial` : '',
        tapKey ? 'taproot key path' : '',
        tapScript ? `${tapScript} taproot script path` : '',
        musig ? `${musig} musig2 partial` : '',
      ].filter(Boolean);
      lines.push(`     signed    ${present} signature${present === 1 ? '' : 's'} of ${required} required${kinds.length ? ` (${kinds.join(', ')})` : ''}; not finalized`);
    }

    const size = inputFinalSize(inp, spk);
    if (!size) allSized = false;
    else {
      baseExtra += compactSizeLen(size.scriptSig) - 1 + size.scriptSig;
      witnessSizes.push(size.witness);
    }
    if (inp.unknown !== undefined || inp.proprietary !== undefined) {
      warn.push(`input #${i}: carries ${[inp.unknown ? 'unknown' : '', inp.proprietary ? 'proprietary' : ''].filter(Boolean).join(' and ')} fields`);
    }
  }

  lines.push(`  total ${allAmounts ? btc(totalIn) : 'unknown'}`);

  // Outputs
  let totalOut = 0n;
  lines.push('', `outputs (${vout.length})`);
  for (let i = 0; i < vout.length; i++) {
    const v = vout[i]!;
    const value = sats(v.value) ?? 0n;
    totalOut += value;
    const spk = isObj(v.scriptPubKey) ? v.scriptPubKey : {};
    const type = str(spk.type) ?? '?';
    let dest = str(spk.address);
    if (!dest) {
      if (type === 'nulldata') {
        const hex = String(spk.hex ?? '');
        const payload = Buffer.from(hex.replace(/^6a(4c..|4d....|4e........|[0-4][0-9a-f])?/i, ''), 'hex');
        const printable = payload.length > 0 && [...payload].every((c) => c >= 0x20 && c < 0x7f);
        dest = `OP_RETURN ${printable ? JSON.stringify(payload.toString('latin1')) : payload.toString('hex') || '(empty)'}`;
      } else dest = `(no address: ${type})`;
    }
    lines.push(`  #${i} ${dest}  ${btc(value)}`);
    const dust = dustThreshold(String(spk.hex ?? ''));
    if (type !== 'nulldata' && value < dust) warn.push(`output #${i}: ${satStr(value)} is dust (below ${satStr(dust)} for ${type})`);
    const o = outputs[i] ?? {};
    if (o.unknown !== undefined || o.proprietary !== undefined) {
      warn.push(`output #${i}: carries ${[o.unknown ? 'unknown' : '', o.proprietary ? 'proprietary' : ''].filter(Boolean).join(' and ')} fields`);
    }
  }
  lines.push(`  total ${btc(totalOut)}`);

  // Fee
  lines.push('');
  const fee = sats(r.fee);
  if (fee === undefined) {
    lines.push(`fee       unknown${allAmounts ? '' : ' (UTXO data missing for some inputs)'}`);
  } else {
    lines.push(`fee       ${btc(fee)} (${satStr(fee)})`);
    if (fee < 0n) warn.push('the fee is negative: the inputs are worth less than the outputs (the transaction cannot be valid)');
    const base = Number(tx.size ?? 0) + baseExtra;
    if (allSized && base > 0) {
      // With any witness: marker and flag, and an empty stack (one byte) for each input without one.
      const anyWitness = witnessSizes.some((w) => w > 0);
      const weight = base * 4 + (anyWitness ? 2 + witnessSizes.reduce((a, w) => a + (w > 0 ? w : 1), 0) : 0);
      const vsize = Math.ceil(weight / 4);
      const rate = Number(fee) / vsize;
      lines.push(`fee rate  ${allFinal ? '' : '~'}${rate.toFixed(2)} sat/vB (${allFinal ? 'final' : 'estimated final'} size ${vsize} vB)`);
      if (rate > 1000) warn.push(`the fee rate ${rate.toFixed(1)} sat/vB is very high`);
    } else {
      lines.push('fee rate  unknown (cannot estimate the signed size of every input)');
    }
    if (totalOut > 0n && fee * 100n > totalOut * 5n) {
      warn.push(`the fee is ${(Number(fee * 10000n / totalOut) / 100).toFixed(2)}% of the amount sent (more than 5%)`);
    }
  }

  const globalUnknown = isObj(r.unknown) ? Object.keys(r.unknown).length : 0;
  const globalProp = arr(r.proprietary).length;
  if (globalUnknown || globalProp) {
    warn.push(`the global map carries ${[globalUnknown ? `${globalUnknown} unknown` : '', globalProp ? `${globalProp} proprietary` : ''].filter(Boolean).join(' and ')} field(s)`);
  }
  const xpubs = arr(r.global_xpubs).length;
  if (xpubs) lines.push(`global xpubs ${xpubs}`);

  lines.push('', warn.length ? `warnings (${warn.length})` : 'warnings: none');
  for (const w of warn) lines.push(`  - ${w}`);
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<number> {
  let o: Options;
  try {
    o = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n(npm run psbt -- --help for usage)\n`);
      return 2;
    }
    throw e;
  }
  if (o.mode === 'help') {
    await out(HELP + '\n');
    return 0;
  }
  try {
    if (o.mode === 'batch') await decodeBatch(o);
    else await decodeOne(o);
    return 0;
  } catch (e) {
    if (e instanceof Fatal) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`error: internal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
