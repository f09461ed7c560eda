/**
 * `npm run psbt -- decode …` and `npm run psbt -- convert …`: Bitcoin Core's `decodepsbt` and PSBT
 * version conversion (0 ↔ 2), offline, for scripts and air-gapped machines. The library is
 * shared/bitcoin/psbt (the one the app and the devnet use), so `--json` prints the very text a
 * node of the chosen generation (`--core-version`, default current Core) answers.
 *
 * Exit codes: 0 done (in --batch mode: the file was read, whatever its lines held);
 * 2 invalid PSBT, unreadable file, PSBT over the size cap, or bad usage.
 */
import {
  convertPsbtBytes,
  CORE_LATEST,
  decodeBase64Core,
  decodePsbt,
  decodePsbtJson,
  encodeBase64,
  parseCoreVersion,
  parsePsbt,
  unsignedTxOf,
  type CoreVersion,
  type PsbtVersion,
} from '../shared/bitcoin/psbt';
import { NETWORKS, type Network } from '../shared/bitcoin/networks';
import { hexReversed, serializeTx, sha256d } from '../shared/bitcoin/tx';
import { jsonString } from '../shared/json';
import { Fatal, MIB, UsageError, lineSource, networkOf, out, readSource, runBatch, toBase64, usageExit, type PsbtSource } from './psbt-io';
import { summarize, type UnsignedTxFacts } from './psbt-summary';
import { ROLE_COMMANDS, ROLES_HELP, runRoleCommand } from './psbt-roles';
import { DERIVE_HELP, runDeriveCommand } from './psbt-derive';

const DEFAULT_MAX_BYTES = 100 * MIB;

export const HELP = `usage: npm run psbt -- decode <file|base64|hex|-> [--json] [--network NET] [--core-version V] [--max-size BYTES]
       npm run psbt -- decode --batch <FILE|-> [--network NET] [--core-version V] [--max-size BYTES]
       npm run psbt -- convert --to 0|2 <file|base64|hex|-> [--max-size BYTES]
       npm run psbt -- convert --to 0|2 --batch <FILE|-> [--max-size BYTES]
${ROLES_HELP.split('\n\n')[0]}
       npm run psbt -- derive --network NET --batch <FILE|->
       npm run psbt -- --help

decode <input>
  Decodes one PSBT (version 0 or 2) offline, exactly like Bitcoin Core's \`decodepsbt\`.
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
  --core-version V which Bitcoin Core to answer as: 31.99 (default: current Core, the v32 line,
                   PSBT version 2 supported) or 30 (Core v30: version 2 is "Unsupported version
                   number", and its older error texts).
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

convert --to 0|2 <input>
  Writes the PSBT as version 0 (BIP174: with the unsigned transaction) or version 2 (BIP370: the
  transaction's parts in the maps), byte for byte as current Core writes it; every other field,
  proprietary and unknown ones included, is kept. Prints the PSBT as base64. To version 0 as
  BIP370 and HWI do: the inputs' required locktimes become the transaction's nLockTime (BIP370's
  determination) and tx-modifiable flags are dropped, each said in a "note:" line on stderr; only
  inputs requiring conflicting locktimes (one a time, another a height) refuse, saying why.
  PSBTs are read as current Core reads them.

convert --to 0|2 --batch <FILE>
  One PSBT per line in (base64 or hex), one JSON line out each, as decode --batch:
    {"psbt":"<base64>"}
    {"psbt":"<base64>","notes":["<what version 0 holds in another form>"]}
    {"error":"<why>"}

${ROLES_HELP.split('\n\n').slice(1).join('\n\n')}

${DERIVE_HELP}

In scripts use \`npm run -s psbt -- …\` (or \`npx tsx cli/psbt.ts …\`): without -s, npm prints its
own banner on stdout before the output.`;


interface Options {
  command: 'decode' | 'convert' | 'help';
  batch: boolean;
  input?: string;
  json: boolean;
  network: Network;
  coreVersion: CoreVersion;
  /** convert: the target version. */
  to?: PsbtVersion;
  maxBytes: number;
}


export function parseArgs(argv: string[]): Options {
  const o: Options = { command: 'decode', batch: false, json: false, network: NETWORKS.main, coreVersion: CORE_LATEST, maxBytes: DEFAULT_MAX_BYTES };
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') return { ...o, command: 'help' };
  const [cmd, ...rest] = argv;
  if (cmd !== 'decode' && cmd !== 'convert') throw new UsageError(`unknown command '${cmd}' (expected: decode, convert, fill, combine, finalize, analyze, verify)`);
  o.command = cmd;
  const positional: string[] = [];
  let batch: string | undefined;
  let coreVersionGiven = false;
  let networkGiven = false;
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
      o.network = networkOf(value(i++, a), a);
      networkGiven = true;
    } else if (a === '--core-version') {
      const v = value(i++, a);
      const cv = parseCoreVersion(v);
      if (cv === null) throw new UsageError(`--core-version: unknown Bitcoin Core '${v}' (30 or 31.99)`);
      o.coreVersion = cv;
      coreVersionGiven = true;
    } else if (a === '--to') {
      const v = value(i++, a);
      if (v !== '0' && v !== '2') throw new UsageError(`--to: the PSBT version can only be 2 or 0 (not '${v}')`);
      o.to = Number(v) as PsbtVersion;
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
  if (cmd === 'convert') {
    if (o.to === undefined) throw new UsageError('convert needs --to 0 or --to 2');
    if (o.json) throw new UsageError('convert prints a PSBT; --json does not apply');
    if (coreVersionGiven) throw new UsageError('convert reads PSBTs as current Core does; --core-version does not apply');
    if (networkGiven) throw new UsageError('a PSBT has no network; --network does not apply to convert');
  } else if (o.to !== undefined) throw new UsageError('--to applies to convert only');
  if (batch !== undefined) {
    if (positional.length > 0) throw new UsageError('--batch takes its PSBTs from FILE, not from the command line');
    if (o.json) throw new UsageError('--batch always prints JSON; --json does not apply');
    return { ...o, batch: true, input: batch };
  }
  if (positional.length !== 1) throw new UsageError(positional.length === 0 ? `${cmd} needs a PSBT, a file or -` : `${cmd} takes one PSBT`);
  return { ...o, input: positional[0]! };
}

function sourceBytes(src: PsbtSource): Uint8Array | null {
  return src.kind === 'bytes' ? src.bytes : decodeBase64Core(src.text);
}

/** A version 2 PSBT's transaction id, size and locktime for the summary (version 0: its `tx` has them). */
function unsignedFacts(src: PsbtSource, coreVersion: CoreVersion): UnsignedTxFacts | undefined {
  const bytes = sourceBytes(src);
  const r = bytes && parsePsbt(bytes, { coreVersion });
  if (!r || !r.ok || r.psbt.version < 2) return undefined;
  const tx = unsignedTxOf(r.psbt);
  if (!tx) return undefined;
  const raw = serializeTx(tx, { witness: false });
  return { txid: hexReversed(sha256d(raw)), size: raw.length, locktime: tx.locktime };
}

async function decodeOne(o: Options): Promise<void> {
  const src = await readSource(o.input!, o.maxBytes);
  const opts = { coreVersion: o.coreVersion };
  if (o.json) {
    const r = decodePsbtJson(toBase64(src), o.network, opts);
    if (!r.ok) throw new Fatal(r.message);
    await out(r.json + '\n');
    return;
  }
  const r = decodePsbt(toBase64(src), o.network, opts);
  if (!r.ok) throw new Fatal(r.message);
  await out(summarize(r.result, o.network, unsignedFacts(src, o.coreVersion)));
}

async function decodeBatch(o: Options): Promise<void> {
  const error = (code: number, message: string): string => `{"result": null, "error": {"code": ${code}, "message": ${jsonString(message)}}}\n`;
  await runBatch(o.input!, o.maxBytes, {
    line(text) {
      const src = lineSource(text, o.maxBytes);
      if (src.kind === 'error') return error(-22, src.message);
      const r = decodePsbtJson(toBase64(src), o.network, { coreVersion: o.coreVersion });
      return r.ok ? `{"result": ${r.json}, "error": null}\n` : error(r.code, r.message);
    },
    tooLong: (message) => error(-22, message),
  });
}

/** The PSBT converted, as base64, or why not. */
function convertSource(src: PsbtSource, to: PsbtVersion): { ok: true; base64: string; notes: string[] } | { ok: false; message: string } {
  const bytes = sourceBytes(src);
  if (!bytes) return { ok: false, message: 'TX decode failed invalid base64' };
  const r = convertPsbtBytes(bytes, to);
  return r.ok ? { ok: true, base64: encodeBase64(r.bytes), notes: r.notes } : r;
}

async function convertOne(o: Options): Promise<void> {
  const r = convertSource(await readSource(o.input!, o.maxBytes), o.to!);
  if (!r.ok) throw new Fatal(r.message);
  for (const note of r.notes) process.stderr.write(`note: ${note}\n`);
  await out(r.base64 + '\n');
}

async function convertBatch(o: Options): Promise<void> {
  const error = (message: string): string => `{"error":${jsonString(message)}}\n`;
  await runBatch(o.input!, o.maxBytes, {
    line(text) {
      const src = lineSource(text, o.maxBytes);
      if (src.kind === 'error') return error(src.message);
      const r = convertSource(src, o.to!);
      if (!r.ok) return error(r.message);
      return r.notes.length ? `{"psbt":"${r.base64}","notes":[${r.notes.map(jsonString).join(',')}]}\n` : `{"psbt":"${r.base64}"}\n`;
    },
    tooLong: error,
  });
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] !== undefined && ROLE_COMMANDS.has(argv[0]) && !argv.includes('--help') && !argv.includes('-h')) return runRoleCommand(argv);
  if (argv[0] === 'derive' && !argv.includes('--help') && !argv.includes('-h')) return runDeriveCommand(argv);
  let o: Options;
  try {
    o = parseArgs(argv);
  } catch (e) {
    return usageExit(e);
  }
  if (o.command === 'help') {
    await out(HELP + '\n');
    return 0;
  }
  try {
    if (o.command === 'convert') await (o.batch ? convertBatch(o) : convertOne(o));
    else await (o.batch ? decodeBatch(o) : decodeOne(o));
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
