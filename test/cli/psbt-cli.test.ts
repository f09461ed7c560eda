/**
 * `npm run psbt` as a real child process, over every decodepsbt record of the Core v30 fixtures
 * (with `--core-version 30`): one `--batch` run carries all of them (base64 as recorded, and again
 * as hex), then single decodes check --json (argument, binary file, base64 file, hex), the
 * summary, and exit code 2. The newer generation (the default) and `convert`: psbt-cli-v2.test.ts.
 *
 * Results are compared with the recordings the way test/bitcoin/decodepsbt.test.ts does
 * (parsed values in key order; every fractional number token with exactly 8 decimals: the
 * recording's re-serialized text lost trailing zeros) and byte for byte with the text the
 * devnet's decodepsbt answers (decodePsbtJson).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { badAmountTokens } from '../support/amount-tokens';
import { decodePsbtJsonV30 } from '../../shared/bitcoin/psbt';
import { REGTEST } from '../../shared/bitcoin/networks';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface RpcBody {
  result: unknown;
  error: { code: number; message: string } | null;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node --import tsx cli/psbt.ts …` from the repo root. */
function cli(args: string[], stdin?: string | Buffer): Promise<Run> {
  return cliAs(args[0] === 'decode' ? [...args, '--core-version', '30'] : args, stdin);
}

/** The same, without adding `--core-version 30` to decode. */
function cliAs(args: string[], stdin?: string | Buffer): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/psbt.ts', ...args], { cwd: ROOT });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.end(stdin ?? '');
  });
}

/** Splits a batch output line into its result text and error, checking the exact envelope. */
function envelope(line: string): { resultText: string | null; error: { code: number; message: string } | null } {
  const ok = /^\{"result": (.*), "error": null\}$/s.exec(line);
  if (ok) return { resultText: ok[1]!, error: null };
  const bad = /^\{"result": null, "error": (\{"code": -?\d+, "message": "(?:[^"\\]|\\.)*"\})\}$/.exec(line);
  if (!bad) throw new Error(`not a batch line: ${line.slice(0, 200)}`);
  return { resultText: null, error: JSON.parse(bad[1]!) as { code: number; message: string } };
}

const records = coreGroup('decodepsbt').map((rec) => ({
  name: rec.name,
  param: (JSON.parse(rec.request.body) as { params: unknown[] }).params[0],
  body: rec.response.body as RpcBody,
}));
/** Records the CLI can be given: a string parameter (the `number param` one is the RPC layer's type check). */
const stringRecords = records.filter((r): r is typeof r & { param: string } => typeof r.param === 'string');
/** One per line in --batch: the empty-string record is a blank line there (checked as a single decode instead). */
const lineRecords = stringRecords.filter((r) => r.param !== '');

function expectMatchesRecording(resultText: string, body: RpcBody): void {
  expect(body.error).toBeNull();
  expect(JSON.stringify(JSON.parse(resultText))).toBe(JSON.stringify(body.result));
  expect(badAmountTokens(resultText)).toEqual([]);
}

function devnetText(base64: string): string {
  const r = decodePsbtJsonV30(base64, REGTEST);
  if (!r.ok) throw new Error(r.message);
  return r.json;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-psbt-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('psbt decode --batch: every decodepsbt recording in one process', () => {
  it('has the recorded cases', () => {
    expect(records.length).toBe(66);
    expect(stringRecords.length).toBe(65);
    expect(lineRecords.length).toBe(64);
  });

  it('answers each line like Core (base64 as recorded, then as hex; blank lines skipped, CRLF accepted)', async () => {
    const valid = lineRecords.filter((r) => r.body.error === null);
    const lines: string[] = [];
    lineRecords.forEach((r, i) => {
      lines.push(r.param);
      if (i % 7 === 0) lines.push('', '   '); // blank lines print nothing
    });
    for (const r of valid) lines.push(Buffer.from(r.param, 'base64').toString('hex') + '\r');
    const file = join(dir, 'batch.txt');
    writeFileSync(file, lines.join('\n') + '\n');

    const run = await cli(['decode', '--batch', file, '--network', 'regtest']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const out = run.stdout.slice(0, -1).split('\n');
    expect(out.length).toBe(lineRecords.length + valid.length);

    lineRecords.forEach((r, i) => {
      const e = envelope(out[i]!);
      if (r.body.error) {
        expect(e.resultText, r.name).toBeNull();
        expect(e.error, r.name).toEqual(r.body.error);
      } else {
        expect(e.error, r.name).toBeNull();
        expectMatchesRecording(e.resultText!, r.body);
        expect(e.resultText, r.name).toBe(devnetText(r.param));
      }
    });
    valid.forEach((r, i) => {
      const e = envelope(out[lineRecords.length + i]!);
      expect(e.error, `${r.name} (hex)`).toBeNull();
      expect(e.resultText, `${r.name} (hex)`).toBe(devnetText(r.param));
    });
  });

  it('reads the PSBT lines from standard input with -', async () => {
    const picked = [lineRecords[0]!, lineRecords.find((r) => r.body.error)!];
    const run = await cli(['decode', '--batch', '-', '--network', 'regtest'], picked.map((r) => r.param).join('\n'));
    expect(run.code).toBe(0);
    const out = run.stdout.trimEnd().split('\n');
    expect(out.length).toBe(2);
    expect(envelope(out[0]!).resultText).toBe(devnetText(picked[0]!.param));
    expect(envelope(out[1]!).error).toEqual(picked[1]!.body.error);
  });

  it('exits 2 with nothing on stdout when the file cannot be read', async () => {
    const missing = join(dir, 'nope.txt');
    const run = await cli(['decode', '--batch', missing]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: cannot read ${missing}: no such file or directory (ENOENT)\n`);
  });
});

describe('psbt decode: single PSBTs', () => {
  const signed = stringRecords.find((r) => r.name === 'signed bech32 not finalized')!;
  const multisig = stringRecords.find((r) => r.name === 'funded multisig input')!;
  const noUtxo = stringRecords.find((r) => r.name === 'no utxo data (no fee)')!;

  it('--json with a base64 argument prints the devnet/Core text', async () => {
    const run = await cli(['decode', signed.param, '--json', '--network', 'regtest']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(devnetText(signed.param) + '\n');
    expectMatchesRecording(run.stdout.trimEnd(), signed.body);
  });

  it('--json from a binary .psbt file, a wrapped base64 text file (BOM, CRLF) and a hex argument', async () => {
    const bytes = Buffer.from(multisig.param, 'base64');
    const bin = join(dir, 'multisig.psbt');
    writeFileSync(bin, bytes);
    const txt = join(dir, 'multisig.b64');
    writeFileSync(txt, '\ufeff' + multisig.param.replace(/(.{64})/g, '$1\r\n') + '\r\n'); // UTF-8 BOM, CRLF lines
    const want = devnetText(multisig.param) + '\n';
    const runs = await Promise.all([
      cli(['decode', bin, '--json', '--network', 'regtest']),
      cli(['decode', txt, '--json', '--network', 'regtest']),
      cli(['decode', bytes.toString('hex'), '--json', '--network', 'regtest']),
    ]);
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(want);
    }
    expectMatchesRecording(want.trimEnd(), multisig.body);
  });

  it('summary: inputs, outputs, fee, fee rate, signatures and warnings', async () => {
    const [a, b] = await Promise.all([
      cli(['decode', multisig.param, '--network', 'regtest']),
      cli(['decode', noUtxo.param, '--network', 'regtest']),
    ]);
    expect(a.code).toBe(0);
    const res = multisig.body.result as {
      tx: { txid: string; vin: { txid: string; vout: number }[]; vout: { scriptPubKey: { address: string } }[] };
      fee: number;
    };
    expect(a.stdout).toContain(`unsigned transaction ${res.tx.txid}`);
    expect(a.stdout).toContain(`#0 ${res.tx.vin[0]!.txid}:${res.tx.vin[0]!.vout}`);
    expect(a.stdout).toContain('0 signatures of 2 (2-of-3 multisig) required; not finalized');
    expect(a.stdout).toContain('utxo data witness_utxo + non_witness_utxo');
    for (const o of res.tx.vout) expect(a.stdout).toContain(o.scriptPubKey.address);
    expect(a.stdout).toContain(`fee       ${res.fee.toFixed(8)} BTC`);
    expect(a.stdout).toMatch(/fee rate {2}~\d+\.\d\d sat\/vB \(estimated final size \d+ vB\)/);
    expect(a.stdout).toContain('warnings: none');

    expect(b.code).toBe(0);
    expect(b.stdout).toContain('fee       unknown (UTXO data missing for some inputs)');
    expect(b.stdout).toMatch(/input #0: no UTXO data .* the fee are unknown/);
  });

  it('invalid input: exit 2, Core\'s message on stderr, nothing on stdout', async () => {
    const cases: { args: string[]; stderr: string }[] = [];
    for (const name of ['base64 but not psbt', 'invalid base64', 'empty string', 'core vector invalid 2']) {
      const r = stringRecords.find((x) => x.name === name)!;
      cases.push({ args: ['decode', r.param], stderr: `error: ${r.body.error!.message}\n` });
    }
    cases.push({ args: ['decode', '70736274ff0'], stderr: 'error: TX decode failed invalid hex\n' });
    const missing = join(dir, 'missing.psbt');
    cases.push({ args: ['decode', missing], stderr: `error: cannot read ${missing}: no such file or directory (ENOENT)\n` });
    const big = join(dir, 'big.psbt');
    writeFileSync(big, Buffer.from(signed.param, 'base64'));
    const size = Buffer.from(signed.param, 'base64').length;
    cases.push({ args: ['decode', big, '--max-size', '100'], stderr: `error: ${big}: PSBT too large: ${size} bytes, the limit is 100 bytes (--max-size)\n` });
    cases.push({ args: ['decode', signed.param, '--json', '--frob'], stderr: "error: unknown option '--frob'\n(npm run psbt -- --help for usage)\n" });
    cases.push({ args: ['decode', signed.param, '--core-version', '29'], stderr: "error: --core-version: unknown Bitcoin Core '29' (30 or 31.99)\n(npm run psbt -- --help for usage)\n" });

    const runs = await Promise.all(cases.map((c) => cli(c.args)));
    runs.forEach((run, i) => {
      expect({ args: cases[i]!.args.slice(0, 2), code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        args: cases[i]!.args.slice(0, 2),
        code: 2,
        stdout: '',
        stderr: cases[i]!.stderr,
      });
    });
  });

  it('--help', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('decode --batch <FILE>');
    expect(run.stdout).toContain('blank lines are skipped');
    expect(run.stdout).toContain('--core-version V');
    expect(run.stdout).toContain('convert --to 0|2 --batch <FILE>');
  });

  it('--core-version: the same PSBT answered as Core v30 and as current Core (the default)', async () => {
    const dupKey = stringRecords.find((r) => r.name === 'core vector invalid 2')!;
    const [v30, latest, named] = await Promise.all([
      cliAs(['decode', dupKey.param, '--core-version', '30']),
      cliAs(['decode', dupKey.param]),
      cliAs(['decode', dupKey.param, '--core-version', '31.99']),
    ]);
    expect(v30).toEqual({ code: 2, stdout: '', stderr: 'error: TX decode failed Duplicate Key, input non-witness utxo already provided: iostream error\n' });
    expect(latest).toEqual({ code: 2, stdout: '', stderr: 'error: TX decode failed Duplicate Key, input key "00" already provided: iostream error\n' });
    expect(named).toEqual(latest);
  });
});
