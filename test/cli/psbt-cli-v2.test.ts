/**
 * `npm run psbt` as a real child process with current Core's rules (the default generation):
 * `decode --batch` over every decodepsbt record of the three 31.99 recording files, the summary of
 * a version 2 PSBT, and `convert --to 0|2` (single and --batch) on the spend file's PSBTs, whose
 * version 0 and version 2 forms Core recorded. The v30 generation: psbt-cli.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreFileGroup, fillVectors, type CoreFile } from '../fixtures';
import { badAmountTokens } from '../support/amount-tokens';
import { b64, kv, u32 } from '../support/psbt-bytes';
import { convertPsbtBase64, decodePsbtJson } from '../../shared/bitcoin/psbt';
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

function cli(args: string[], stdin?: string): Promise<Run> {
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

const FILES: CoreFile[] = ['bitcoin-core-psbt-vectors.jsonl', 'bitcoin-core-spend.jsonl', 'bitcoin-core-v31.99-stateless.jsonl'];
const records = FILES.flatMap((file) =>
  coreFileGroup(file, 'decodepsbt').map((rec) => ({
    name: `${file}: ${rec.name}`,
    param: (JSON.parse(rec.request.body) as { params: unknown[] }).params[0],
    body: rec.response.body as RpcBody,
  })),
).filter((r): r is typeof r & { param: string } => typeof r.param === 'string' && r.param !== '');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-psbt-cli-v2-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('psbt decode --batch as current Core (the default)', () => {
  it('answers every decodepsbt line of the three 31.99 files like the node', async () => {
    expect(records.length).toBe(140 + 53 + 64);
    const file = join(dir, 'v2-batch.txt');
    writeFileSync(file, records.map((r) => r.param).join('\n') + '\n');
    const run = await cli(['decode', '--batch', file, '--network', 'regtest']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout.trimEnd().split('\n');
    expect(out.length).toBe(records.length);
    records.forEach((r, i) => {
      const line = out[i]!;
      if (r.body.error) {
        expect(line, r.name).toBe(`{"result": null, "error": ${JSON.stringify(r.body.error).replace('"code":', '"code": ').replace(',"message":', ', "message": ')}}`);
        return;
      }
      const m = /^\{"result": (.*), "error": null\}$/s.exec(line);
      expect(m, r.name).not.toBeNull();
      expect(JSON.stringify(JSON.parse(m![1]!)), r.name).toBe(JSON.stringify(r.body.result));
      expect(badAmountTokens(m![1]!)).toEqual([]);
      const lib = decodePsbtJson(r.param, REGTEST);
      expect(lib.ok && lib.json).toBe(m![1]);
    });
  });

  it('--core-version 30 answers the same lines as Core v30: version 2 is unsupported', async () => {
    const v2 = records.filter((r) => r.body.error === null && (r.body.result as { psbt_version: number }).psbt_version === 2).slice(0, 3);
    const run = await cli(['decode', '--batch', '-', '--core-version', '30'], v2.map((r) => r.param).join('\n'));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"result": null, "error": {"code": -22, "message": "TX decode failed Unsupported version number: iostream error"}}\n'.repeat(3));
  });
});

describe('psbt decode: the summary of a version 2 PSBT', () => {
  it('states the version and shows the same transaction as its version 0 form', async () => {
    const vault = fillVectors().find((f) => f.name === 'vault 2-of-3 inputs, change to the vault')!;
    const v0 = fillVectors().find((f) => f.name === 'vault 2-of-3 inputs, change to the vault, psbt v0')!;
    const [a, b] = await Promise.all([cli(['decode', vault.expected, '--network', 'regtest']), cli(['decode', v0.expected, '--network', 'regtest'])]);
    expect(a.code).toBe(0);
    expect(a.stdout.split('\n')[0]).toBe('PSBT version 2, network regtest');
    expect(b.stdout.split('\n')[0]).toBe('PSBT version 0, network regtest');
    // Everything else reads the same: the transaction, its inputs, outputs, fee and warnings.
    expect(a.stdout.split('\n').slice(1)).toEqual(b.stdout.split('\n').slice(1));
    expect(a.stdout).toMatch(/^unsigned transaction [0-9a-f]{64}$/m);
  });
});

describe('psbt decode: a version 2 PSBT whose inputs need both kinds of locktime', () => {
  it('the summary says no transaction can be built, and still lists the inputs', async () => {
    const g = kv('02', u32(2)) + kv('04', '02') + kv('05', '01') + kv('fb', u32(2));
    const input = (lock: string, txid: string): string => kv('0e', txid) + kv('0f', u32(0)) + lock + '00';
    const psbt = b64(
      '70736274ff' + g + '00' + input(kv('11', u32(600_000_000)), '11'.repeat(32)) + input(kv('12', u32(100)), '22'.repeat(32)) +
        kv('03', '1027000000000000') + kv('04', '0014' + '22'.repeat(20)) + '00',
    );
    const run = await cli(['decode', psbt, '--network', 'regtest']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('unsigned transaction: none can be built (the inputs require both a time-based and a height-based locktime');
    expect(run.stdout).toContain('version 2, locktime unknown, RBF not signalled, 2 inputs, 1 output');
    expect(run.stdout).toContain(`#1 ${'22'.repeat(32)}:0`);
  });
});

describe('psbt convert', () => {
  const vectors = fillVectors();
  const pairs = vectors
    .filter((f) => !f.name.endsWith(', psbt v0'))
    .map((f) => ({ v2: f, v0: vectors.find((g) => g.name === `${f.name}, psbt v0`)! }));

  it('--batch --to 0 and --to 2: one JSON line per PSBT, the forms Core wrote; errors as {"error"}', async () => {
    expect(pairs.length).toBe(6);
    const v2s = pairs.flatMap((p) => [p.v2.psbt, p.v2.expected]);
    const v0s = pairs.flatMap((p) => [p.v0.psbt, p.v0.expected]);
    // A v2 PSBT whose input requires a locktime (Core's test vector), a blank line, garbage, hex.
    const locked = coreFileGroup('bitcoin-core-psbt-vectors.jsonl', 'decodepsbt').find((r) => r.name === 'core vector valid 37')!;
    const lockedParam = (JSON.parse(locked.request.body) as { params: string[] }).params[0]!;
    const lines = [...v2s, '', lockedParam, 'not a psbt', Buffer.from(v2s[0]!, 'base64').toString('hex')];
    const [to0, to2] = await Promise.all([
      cli(['convert', '--to', '0', '--batch', '-'], lines.join('\n')),
      cli(['convert', '--to', '2', '--batch', '-'], v0s.join('\r\n')),
    ]);
    expect(to0.code).toBe(0);
    expect(to0.stderr).toBe('');
    const out0 = to0.stdout.trimEnd().split('\n');
    expect(out0.slice(0, v0s.length)).toEqual(v0s.map((p) => `{"psbt":"${p}"}`));
    // Its required locktime becomes the version 0 transaction's nLockTime (BIP370), said in the notes.
    const lockedV0 = convertPsbtBase64(lockedParam, 0) as { ok: true; base64: string; notes: string[] };
    expect(lockedV0.ok).toBe(true);
    expect(JSON.parse(out0[v0s.length]!)).toEqual({ psbt: lockedV0.base64, notes: lockedV0.notes });
    // Core's vector requires time 1657048460 and height 10000 on its one input: both allowed, the height chosen.
    expect(lockedV0.notes[0]).toMatch(/^The inputs' required locktimes became the transaction's nLockTime 10000: input #0 requires a block height locktime/);
    expect(out0[v0s.length + 1]).toBe('{"error":"TX decode failed invalid base64"}');
    expect(out0[v0s.length + 2]).toBe(`{"psbt":"${v0s[0]}"}`);
    expect(out0.length).toBe(v0s.length + 3);
    expect(to2.code).toBe(0);
    expect(to2.stdout.trimEnd().split('\n')).toEqual(v2s.map((p) => `{"psbt":"${p}"}`));
  });

  it('a single PSBT: base64 on stdout; errors and usage on stderr with exit 2', async () => {
    const p = pairs[0]!;
    const file = join(dir, 'one.psbt');
    writeFileSync(file, Buffer.from(p.v2.expected, 'base64'));
    const [one, fromFile, bad, noTo, badTo, withVersion] = await Promise.all([
      cli(['convert', '--to', '0', p.v2.expected]),
      cli(['convert', file, '--to', '0']),
      cli(['convert', '--to', '2', 'cHNidP8=']),
      cli(['convert', p.v2.expected]),
      cli(['convert', '--to', '1', p.v2.expected]),
      cli(['convert', '--to', '0', p.v2.expected, '--core-version', '30']),
    ]);
    expect(one).toEqual({ code: 0, stdout: p.v0.expected + '\n', stderr: '' });
    expect(fromFile).toEqual(one);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: 'error: TX decode failed Separator is missing at the end of the global map: iostream error\n' });
    expect(noTo).toEqual({ code: 2, stdout: '', stderr: 'error: convert needs --to 0 or --to 2\n(npm run psbt -- --help for usage)\n' });
    expect(badTo.stderr).toBe("error: --to: the PSBT version can only be 2 or 0 (not '1')\n(npm run psbt -- --help for usage)\n");
    expect(withVersion.stderr).toBe('error: convert reads PSBTs as current Core does; --core-version does not apply\n(npm run psbt -- --help for usage)\n');
  });
});
