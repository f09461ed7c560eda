/**
 * `npm run psbt -- derive --network NET --batch FILE` as a real child process: every descriptor of
 * the Core recordings (test/fixtures/miniscript/core-*.jsonl) in, one line out each — the very
 * addresses or error text Core's deriveaddresses gave — plus bad lines and usage errors.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'miniscript');
const tmp = mkdtempSync(join(tmpdir(), 'spyglass-derive-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/psbt.ts', ...args], { cwd: ROOT });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.end(stdin);
  });
}

interface Recorded {
  core: string;
  checked: string;
  range: [number, number] | null;
  addresses?: unknown;
  error?: string;
}

describe('psbt derive --batch', () => {
  for (const file of readdirSync(FIXTURES).filter((f) => /^core-.*\.jsonl$/.test(f))) {
    it(`answers every recorded deriveaddresses of ${file} as Core`, async () => {
      const rec = readFileSync(join(FIXTURES, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Recorded);
      const input = join(tmp, `in-${file}`);
      // a blank line in the middle prints nothing
      const lines = rec.map((r) => JSON.stringify(r.range ? { descriptor: r.checked, range: r.range } : { descriptor: r.checked }));
      lines.splice(3, 0, '');
      writeFileSync(input, lines.join('\n') + '\n');
      const coreVersion = rec[0]!.core.startsWith('30.') ? '30' : '31.99';
      const run = await cli(['derive', '--network', 'regtest', '--core-version', coreVersion, '--batch', input]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const got = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
      expect(got).toEqual(rec.map((r) => (r.addresses ? { addresses: r.addresses } : { error: r.error })));
    }, 60_000);
  }

  it('answers bad lines with an error line and keeps going (stdin)', async () => {
    const run = await cli(['derive', '--network', 'regtest', '--batch', '-'], 'not json\n[1]\n{"descriptor":5}\n{"descriptor":"wsh(pk(02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5))"}\n');
    expect(run.code).toBe(0);
    const got = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { error: string });
    expect(got.length).toBe(4);
    expect(got[0]!.error).toMatch(/^line is not JSON/);
    expect(got[1]).toEqual({ error: 'line is not a JSON object' });
    expect(got[2]).toEqual({ error: 'descriptor: expected a string' });
    expect(got[3]).toEqual({ error: 'Missing checksum' });
  }, 60_000);

  it('refuses bad usage and unreadable files with exit code 2', async () => {
    const noBatch = await cli(['derive', '--network', 'regtest']);
    expect(noBatch.code).toBe(2);
    expect(noBatch.stderr).toMatch(/derive --network NET --batch FILE/);
    const badNet = await cli(['derive', '--network', 'moon', '--batch', '-']);
    expect(badNet.code).toBe(2);
    expect(badNet.stderr).toMatch(/unknown network 'moon'/);
    const missing = await cli(['derive', '--network', 'regtest', '--batch', join(tmp, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/cannot read/);
  }, 60_000);
});
