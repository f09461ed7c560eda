/**
 * `npm run psbt -- fill|combine|finalize|analyze|verify` as a real child process: --batch over the
 * spend file's fill vectors and the real-node file (one line out per line in, byte for byte as
 * Core), the recorded combine / finalize / analyze requests, single PSBTs from the command line,
 * the verify exit code, and usage errors.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreFileGroup, fillVectors } from '../fixtures';
import { decodeBase64Core, encodeBase64, parsePsbt, serializePsbt } from '../../shared/bitcoin/psbt';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

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

interface NodeLine {
  group: string;
  name: string;
  params?: unknown[];
  result?: unknown;
  psbt?: string;
  descriptors?: unknown[];
  prevtxs?: Record<string, string>;
  bip32derivs?: boolean;
  expected?: string;
}
const NODE: NodeLine[] = readFileSync(join(ROOT, 'test', 'bitcoin', 'fixtures', 'psbt-roles-node.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as NodeLine);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-psbt-roles-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, lines: string[]): string => {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
};

describe('fill --batch', () => {
  it('every fill vector (spend file and real node), one line out each, as Core wrote it', async () => {
    const spend = fillVectors().map((v) => ({ line: JSON.stringify({ psbt: v.psbt, descriptors: v.descriptors, prevtxs: v.prevtxs }), expected: v.expected }));
    const node = NODE.filter((l) => l.group === 'fill-vector').map((v) => ({
      line: JSON.stringify({ psbt: v.psbt, descriptors: v.descriptors, prevtxs: v.prevtxs, ...(v.bip32derivs === false ? { bip32derivs: false } : {}) }),
      expected: v.expected!,
    }));
    const all = [...spend, ...node];
    const r = await cli(['fill', '--network', 'regtest', '--batch', file('fill.jsonl', all.map((x) => x.line))]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(all.map((x) => `{"psbt":"${x.expected}"}`));
  });

  it('bad lines are answered, not fatal', async () => {
    const v = fillVectors()[2]!;
    const txid = Object.keys(v.prevtxs)[0]!;
    const lines = ['not json', JSON.stringify({ psbt: v.psbt, descriptors: v.descriptors, prevtxs: { ['00'.repeat(32)]: v.prevtxs[txid] } }), JSON.stringify({ psbt: 'cHNidP8=', descriptors: [], prevtxs: {} })];
    const r = await cli(['fill', '--network', 'regtest', '--batch', '-'], lines.join('\n'));
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      '{"error":"expected a JSON object with psbt, descriptors and prevtxs"}',
      `{"error":"previous transaction ${'00'.repeat(32)}: its txid is ${txid}; unverifiable UTXO data is never put in a PSBT"}`,
      '{"error":"TX decode failed Separator is missing at the end of the global map: iostream error"}',
    ]);
  });
});

describe('combine, finalize, analyze --batch: the recordings', () => {
  const spend = 'bitcoin-core-spend.jsonl' as const;
  const params = (body: string): unknown[] => (JSON.parse(body) as { params: unknown[] }).params;

  it('combine', async () => {
    const recs = [...coreFileGroup(spend, 'combinepsbt').map((r) => ({ p: params(r.request.body), body: r.response.body as { result: string | null; error: { message: string } | null } }))];
    const r = await cli(['combine', '--batch', file('combine.jsonl', recs.map((x) => JSON.stringify(x.p[0])))]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(recs.map((x) => (x.body.error ? JSON.stringify({ error: x.body.error.message }) : `{"psbt":"${x.body.result}"}`)));
  });

  it('finalize with and without --extract', async () => {
    const recs = NODE.filter((l) => l.group === 'finalizepsbt');
    for (const extract of [false, true]) {
      const mine = recs.filter((l) => (l.params![1] ?? true) === extract);
      const r = await cli(['finalize', ...(extract ? ['--extract'] : []), '--batch', file('fin.jsonl', mine.map((l) => l.params![0] as string))]);
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown)).toEqual(mine.map((l) => l.result));
    }
  });

  it('analyze: Core’s fields, amounts written with 8 decimals', async () => {
    const recs = [...coreFileGroup(spend, 'analyzepsbt').map((r) => ({ p: params(r.request.body)[0] as string, result: (r.response.body as { result: unknown }).result })), ...NODE.filter((l) => l.group === 'analyzepsbt').map((l) => ({ p: l.params![0] as string, result: l.result }))];
    const r = await cli(['analyze', '--batch', file('an.jsonl', recs.map((x) => x.p))]);
    expect(r.code).toBe(0);
    const out = r.stdout.split('\n').filter(Boolean);
    expect(out.map((l) => JSON.parse(l) as unknown)).toEqual(recs.map((x) => x.result));
    expect(out.find((l) => l.includes('"fee"'))).toMatch(/"estimated_feerate":\d+\.\d{8},"fee":\d+\.\d{8},/);
  });
});

describe('single PSBTs', () => {
  const combined = NODE.find((l) => l.group === 'combinepsbt' && l.name === 'multisig kinds: sA + sB')!.result as string;
  const signed = NODE.filter((l) => l.group === 'walletprocesspsbt' && l.name.startsWith('multisig kinds: signed by s')).map((l) => (l.result as { psbt: string }).psbt);

  it('combine A B; finalize --extract; analyze', async () => {
    const c = await cli(['combine', signed[0]!, signed[1]!]);
    expect(c).toEqual({ code: 0, stdout: combined + '\n', stderr: '' });
    const f = await cli(['finalize', '--extract', combined]);
    const fin = NODE.find((l) => l.group === 'finalizepsbt' && l.name === 'multisig kinds: sA + sB, extract')!.result;
    expect(JSON.parse(f.stdout)).toEqual(fin);
    const a = await cli(['analyze', 'abc']);
    expect(a).toEqual({ code: 2, stdout: '', stderr: 'error: TX decode failed invalid base64\n' });
  });

  it('verify: exit 0 when every signature verifies, 1 naming the bad one', async () => {
    const good = await cli(['verify', combined]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, problems: [] });
    const p = parsePsbt(decodeBase64Core(combined)!);
    if (!p.ok) throw new Error(p.message);
    const [id, e] = [...p.psbt.inputs[1]!.partialSigs][0]!;
    const sig = Uint8Array.from(e.sig);
    sig[sig.length - 2]! ^= 1; // the last byte of s: still DER, no longer the signature
    p.psbt.inputs[1]!.partialSigs.set(id, { pubkey: e.pubkey, sig });
    const bad = await cli(['verify', encodeBase64(serializePsbt(p.psbt))]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, problems: [{ input: 1, kind: 'ecdsa', status: 'invalid', reason: 'the signature does not verify (sighash 0x01)' }] });
  });

  it('finalize: stdout is Core\'s answer, each unfinalized input\'s reason goes to stderr', async () => {
    // the miniscript finalize recordings (test/fixtures/miniscript/finalize-core-31.99.jsonl)
    const rec = readFileSync(join(ROOT, 'test', 'fixtures', 'miniscript', 'finalize-core-31.99.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { note: string; signed: string; finalized: { psbt: string; complete: boolean } });
    const early = rec.find((c) => c.note === 'recovery without the relative timelock in nSequence')!;
    const done = rec.find((c) => c.note === 'primary: A signs')!;
    const one = await cli(['finalize', early.signed]);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(JSON.stringify(early.finalized) + '\n');
    // B signed; the recovery path's lock is not met and A (the other path) has not signed
    expect(one.stderr).toMatch(/^input 0: not finalized: the input's nSequence does not meet the relative timelock older\(10\); no signature yet by key [0-9a-f]{66}\n$/);
    const ok = await cli(['finalize', done.signed]);
    expect(ok).toEqual({ code: 0, stdout: JSON.stringify(done.finalized) + '\n', stderr: '' });
    // --batch: the reasons name the line (blank lines not counted), stdout unchanged
    const incomplete = rec.filter((c) => !c.finalized.complete);
    const lines = [done.signed, '', ...incomplete.map((c) => c.signed)];
    const b = await cli(['finalize', '--batch', file('fin-reasons.txt', lines)]);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe([done, ...incomplete].map((c) => JSON.stringify(c.finalized) + '\n').join(''));
    const errs = b.stderr.split('\n').filter(Boolean);
    expect(errs).toHaveLength(incomplete.length);
    errs.forEach((e, i) => expect(e).toMatch(new RegExp(`^psbt ${i + 2}: input 0: not finalized: .+`)));
    expect(errs[0]).toBe(`psbt 2: ${one.stderr.trimEnd()}`);
    // a hash challenge whose preimage the PSBT lacks (finalize-hash-core-31.99.jsonl)
    const hash = readFileSync(join(ROOT, 'test', 'fixtures', 'miniscript', 'finalize-hash-core-31.99.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { policy: string; note: string; signed: string; finalized: { psbt: string; complete: boolean } })
      .find((c) => c.policy === 'A and the sha256 preimage' && c.note === 'A signs, no preimage')!;
    const h = await cli(['finalize', hash.signed]);
    expect(h.stdout).toBe(JSON.stringify(hash.finalized) + '\n');
    expect(h.stderr).toMatch(/^input 0: not finalized: no preimage of sha256\([0-9a-f]{64}\)\n$/);
  });

  it('usage errors', async () => {
    expect((await cli(['fill', '--network', 'regtest'])).stderr).toMatch(/^error: fill reads JSON lines: fill --network NET --batch FILE\n/);
    expect((await cli(['finalize', 'a', 'b'])).code).toBe(2);
    expect((await cli(['combine', '--extract', 'a'])).stderr).toMatch(/unknown option '--extract' for combine/);
  });
});
