/**
 * `npm run psbt -- fill|combine|finalize|analyze|verify`: the PSBT roles, offline, as Bitcoin Core
 * plays them (walletprocesspsbt without signing for a watch-only wallet, combinepsbt,
 * finalizepsbt, analyzepsbt) plus an offline signature check. Single PSBTs from the command line
 * or a file, or --batch FILE: one JSON or PSBT line in, one JSON line out each, in order.
 */
import {
  analysisJson,
  analyzePsbtBase64,
  combinePsbtsBase64,
  CORE_LATEST,
  decodeBase64Core,
  fillPsbtBase64,
  finalizePsbtBase64,
  parseCoreVersion,
  parsePsbt,
  verifyPsbtSignatures,
  type CoreVersion,
  type SignatureCheck,
} from '../shared/bitcoin/psbt';
import { NETWORKS, type Network } from '../shared/bitcoin/networks';
import { jsonString, writeJson } from '../shared/json';
import { Fatal, lineSource, MIB, NETWORK_ALIASES, networkOf, out, readSource, runBatch, toBase64, UsageError, usageExit } from './psbt-io';

export const ROLE_COMMANDS: ReadonlySet<string> = new Set(['fill', 'combine', 'finalize', 'analyze', 'verify']);

export const ROLES_HELP = `       npm run psbt -- fill --network NET --batch <FILE|->
       npm run psbt -- combine <psbt> <psbt>...        | combine --batch <FILE|->
       npm run psbt -- finalize [--extract] [--no-strict] <psbt> | --batch <FILE|->
       npm run psbt -- analyze <psbt>                  | analyze --batch <FILE|->
       npm run psbt -- verify <psbt>                   | verify --batch <FILE|->

fill --network NET --batch <FILE>
  The updater: what Bitcoin Core's walletprocesspsbt(psbt, false, "DEFAULT", true, false) adds for
  a watch-only descriptor wallet, byte for byte. Each line is a JSON object
    {"psbt": "<base64>", "descriptors": [<listdescriptors entries: desc, range>],
     "prevtxs": {"<txid>": "<hex>", ...}}
  (optional: "network" for that line, "bip32derivs": false). A previous transaction must hash to
  the txid it is given for, else the line is refused. Each output line:
    {"psbt":"<base64>"}   or   {"error":"<why>"}

combine
  Core's combinepsbt. Arguments: the PSBTs (base64, hex or files). --batch: each line a JSON array
  of base64 PSBTs (or {"psbts": [...]}); out {"psbt":"<base64>"} or {"error":"<Core's text>"}.

finalize [--extract] [--no-strict]
  Core's finalizepsbt; the result as Core writes it: {"psbt":"…","complete":false} or, with
  --extract and every input final, {"hex":"<transaction>","complete":true}. Inputs whose
  partial signatures do not all verify are not finalized and are named in "refused" (Core would
  still finalize one whose bad signature the script does not use; --no-strict does as Core).
  Standard output stays Core's; each input left unfinalized is explained on standard error:
    input 0: not finalized: the input's nSequence does not meet the relative timelock older(10)
  (with --batch prefixed by the line's number among the non-blank lines, from 1: "psbt 3: input 0: …").

analyze
  Core's analyzepsbt result (inputs: has_utxo, is_final, next, missing; estimated_vsize,
  estimated_feerate, fee, next).

verify
  Checks every partial signature against its key and the sighash it claims (ECDSA, Schnorr):
    {"ok":true|false,"signatures":N,"problems":[{"input":0,"kind":"ecdsa","pubkey":"…",
     "sighash":1,"status":"invalid","reason":"…"}]}
  Single PSBT: exit code 1 when a signature is invalid or cannot be checked.`;


interface RoleOptions {
  command: string;
  batch?: string;
  inputs: string[];
  network: Network;
  coreVersion: CoreVersion;
  extract: boolean;
  strict: boolean;
  maxBytes: number;
}



export function parseRoleArgs(argv: string[]): RoleOptions {
  const [command, ...rest] = argv;
  const o: RoleOptions = { command: command!, inputs: [], network: NETWORKS.main, coreVersion: CORE_LATEST, extract: false, strict: true, maxBytes: 100 * MIB };
  const value = (i: number, flag: string): string => {
    const v = rest[i + 1];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--batch') o.batch = value(i++, a);
    else if (a === '--network' || a === '--chain') {
      o.network = networkOf(value(i++, a), a);
    } else if (a === '--core-version') {
      const v = value(i++, a);
      const cv = parseCoreVersion(v);
      if (cv === null) throw new UsageError(`--core-version: unknown Bitcoin Core '${v}' (30 or 31.99)`);
      o.coreVersion = cv;
    } else if (a === '--extract' && command === 'finalize') o.extract = true;
    else if (a === '--no-strict' && command === 'finalize') o.strict = false;
    else if (a === '--max-size') {
      const v = value(i++, a);
      if (!/^\d+$/.test(v) || Number(v) <= 0) throw new UsageError(`--max-size: '${v}' is not a positive byte count`);
      o.maxBytes = Number(v);
    } else if (a.startsWith('--')) throw new UsageError(`unknown option '${a}' for ${command}`);
    else o.inputs.push(a);
  }
  if (o.batch !== undefined && o.inputs.length) throw new UsageError('--batch takes its input from FILE, not from the command line');
  if (command === 'fill' && o.batch === undefined) throw new UsageError('fill reads JSON lines: fill --network NET --batch FILE');
  if (o.batch === undefined) {
    if (command === 'combine' ? o.inputs.length === 0 : o.inputs.length !== 1) {
      throw new UsageError(command === 'combine' ? 'combine needs the PSBTs to combine' : `${command} takes one PSBT`);
    }
  }
  return o;
}

const errorLine = (message: string): string => `{"error":${jsonString(message)}}\n`;

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function fillLine(o: RoleOptions, text: string): string {
  const req = parseLine(text) as Record<string, unknown> | undefined;
  if (!req || typeof req !== 'object' || Array.isArray(req)) return errorLine('expected a JSON object with psbt, descriptors and prevtxs');
  if (typeof req.psbt !== 'string') return errorLine('psbt: expected a base64 string');
  let network = o.network;
  if (req.network !== undefined) {
    if (typeof req.network !== 'string' || !NETWORK_ALIASES[req.network.toLowerCase()]) return errorLine(`network: unknown network ${JSON.stringify(req.network)}`);
    network = NETWORKS[NETWORK_ALIASES[req.network.toLowerCase()]!];
  }
  const r = fillPsbtBase64({
    psbt: req.psbt,
    descriptors: req.descriptors as never,
    prevtxs: (req.prevtxs ?? {}) as never,
    network,
    coreVersion: o.coreVersion,
    bip32Derivs: req.bip32derivs !== false,
  });
  return r.ok ? `{"psbt":"${r.psbt}"}\n` : errorLine(r.error);
}

function combineLine(o: RoleOptions, text: string): string {
  const v = parseLine(text);
  const list = Array.isArray(v) ? v : v && typeof v === 'object' ? (v as { psbts?: unknown }).psbts : undefined;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) return errorLine('expected a JSON array of base64 PSBTs');
  const r = combinePsbtsBase64(list as string[], { coreVersion: o.coreVersion });
  return r.ok ? `{"psbt":"${r.psbt}"}\n` : errorLine(r.error);
}

/** A line's PSBT: base64 or hex text, or {"psbt": "<base64>"}. */
function linePsbt(o: RoleOptions, text: string): { base64: string } | { error: string } {
  if (text.startsWith('{')) {
    const v = parseLine(text) as { psbt?: unknown } | undefined;
    return typeof v?.psbt === 'string' ? { base64: v.psbt } : { error: 'expected {"psbt": "<base64>"}' };
  }
  const src = lineSource(text, o.maxBytes);
  return src.kind === 'error' ? { error: src.message } : { base64: toBase64(src) };
}

const refusedJson = (list: SignatureCheck[]): string => (list.length ? `,"refused":${writeJson(list)}` : '');

/** Core's finalizepsbt answer for stdout; each unfinalized input's reason goes to stderr (`prefix` names the batch PSBT). */
function finalizeOne(o: RoleOptions, base64: string, prefix = ''): string {
  const r = finalizePsbtBase64(base64, { extract: o.extract, strict: o.strict, coreVersion: o.coreVersion });
  if (!r.ok) return errorLine(r.error);
  for (const x of r.incomplete) process.stderr.write(`${prefix}input ${x.input}: ${x.reason}\n`);
  for (const x of r.refused) process.stderr.write(`${prefix}input ${x.input}: not finalized: the ${x.kind} signature by ${x.pubkey} is refused: ${x.reason ?? x.status}\n`);
  return writeJson(r.result).slice(0, -1) + refusedJson(r.refused) + '}\n';
}

function analyzeOne(o: RoleOptions, base64: string): string {
  const r = analyzePsbtBase64(base64, { coreVersion: o.coreVersion });
  return r.ok ? analysisJson(r.analysis) + '\n' : errorLine(r.error);
}

function verifyOne(o: RoleOptions, base64: string): { line: string; ok: boolean } {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { line: errorLine('TX decode failed invalid base64'), ok: false };
  const p = parsePsbt(bytes, { coreVersion: o.coreVersion });
  if (!p.ok) return { line: errorLine(p.message), ok: false };
  const rep = verifyPsbtSignatures(p.psbt);
  return { line: writeJson({ ok: rep.ok, signatures: rep.checks.length, problems: rep.problems }) + '\n', ok: rep.ok };
}

function roleLine(o: RoleOptions, text: string, n: number): string {
  if (o.command === 'fill') return fillLine(o, text);
  if (o.command === 'combine') return combineLine(o, text);
  const src = linePsbt(o, text);
  if ('error' in src) return errorLine(src.error);
  if (o.command === 'finalize') return finalizeOne(o, src.base64, `psbt ${n}: `);
  if (o.command === 'analyze') return analyzeOne(o, src.base64);
  return verifyOne(o, src.base64).line;
}

/** Runs a role command; returns the exit code (2: bad usage or unreadable input). */
export async function runRoleCommand(argv: string[]): Promise<number> {
  let o: RoleOptions;
  try {
    o = parseRoleArgs(argv);
  } catch (e) {
    return usageExit(e);
  }
  try {
    if (o.batch !== undefined) {
      let n = 0;
      await runBatch(o.batch, o.maxBytes * 4, { line: (text) => roleLine(o, text, ++n), tooLong: (m) => (n++, errorLine(m)) });
      return 0;
    }
    const sources = await Promise.all(o.inputs.map(async (a) => toBase64(await readSource(a, o.maxBytes))));
    if (o.command === 'combine') {
      const r = combinePsbtsBase64(sources, { coreVersion: o.coreVersion });
      if (!r.ok) throw new Fatal(r.error);
      await out(r.psbt + '\n');
      return 0;
    }
    if (o.command === 'verify') {
      const r = verifyOne(o, sources[0]!);
      await out(r.line);
      return r.ok ? 0 : 1;
    }
    const line = o.command === 'finalize' ? finalizeOne(o, sources[0]!) : analyzeOne(o, sources[0]!);
    if (line.startsWith('{"error":')) throw new Fatal((JSON.parse(line) as { error: string }).error);
    await out(line);
    return 0;
  } catch (e) {
    if (e instanceof Fatal) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

