// The import worker (electron/main/watch/import-worker.ts) on a real SQLite file: 100,000 BIP329 labels
// and 100,000 added addresses (with labels present) land exactly; a bad line anywhere comes back with
// its line number and nothing is written; the worker's replies equal the inline runner's; a wallet
// file's preview and its typed refusal cross the thread boundary intact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from '@scure/base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { WatchRepository } from '../../electron/main/store/watch';
import { InlineImportRunner, sourceImportWorkerScript, TEXT_SLICE, WorkerImportRunner } from '../../electron/main/watch/import-runner';
import { newProfile } from '../support/watch-data';

const N = 100_000;
const silent = { info() {}, warn() {}, error() {} };

/** The i-th of a family of distinct regtest P2WPKH addresses. */
function address(i: number, family = 1): string {
  const program = new Uint8Array(20);
  new DataView(program.buffer).setUint32(0, i);
  program[19] = family;
  return bech32.encode('bcrt', [0, ...bech32.toWords(program)]);
}

const labelLine = (i: number, family = 1): string => JSON.stringify({ type: 'addr', ref: address(i, family), label: `payer ${i} — ünïcode "quoted"` });

let dir: string;
let dbFile: string;
let db: Database;
let repo: WatchRepository;
let worker: WorkerImportRunner;
let inline: InlineImportRunner;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-import-worker-'));
  dbFile = join(dir, 'spyglass.sqlite');
  db = openDatabase(dbFile);
  repo = new WatchRepository(db);
  worker = new WorkerImportRunner(sourceImportWorkerScript(), dbFile, silent);
  inline = new InlineImportRunner(repo);
});

afterAll(async () => {
  await worker.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

let pid: string;
beforeEach(() => {
  pid = newProfile(db, `p${Math.random()}`);
});

describe('labels (BIP329) in the import worker', () => {
  it(`${N.toLocaleString('en-US')} lines land exactly, in one transaction, read back by the main connection`, async () => {
    const text = Array.from({ length: N }, (_, i) => labelLine(i)).join('\n');
    const preview = await worker.run('labels', { profileId: pid, chain: 'regtest', text, rule: 'replace', apply: false });
    expect(preview).toMatchObject({ written: 0, preview: { records: N, added: N, updated: 0, errors: [] } });
    expect(preview.preview.changes).toHaveLength(500);
    expect(repo.listLabels(pid)).toHaveLength(0); // a preview writes nothing

    const done = await worker.run('labels', { profileId: pid, chain: 'regtest', text, rule: 'replace', apply: true });
    expect(done.written).toBe(N);
    const stored = new Map(repo.listLabels(pid).map((l) => [l.ref, l.label]));
    expect(stored.size).toBe(N);
    expect(Array.from({ length: N }, (_, i) => i).filter((i) => stored.get(address(i)) !== `payer ${i} — ünïcode "quoted"`)).toEqual([]);

    // Again with half of them changed under keep-existing: nothing changes; under replace: exactly those.
    const changed = Array.from({ length: N }, (_, i) => (i % 2 ? JSON.stringify({ type: 'addr', ref: address(i), label: `new ${i}` }) : labelLine(i))).join('\n');
    const kept = await worker.run('labels', { profileId: pid, chain: 'regtest', text: changed, rule: 'keep-existing', apply: true });
    expect(kept.preview).toMatchObject({ added: 0, updated: 0 });
    expect(repo.getLabel(pid, 'addr', address(1))?.label).toBe('payer 1 — ünïcode "quoted"');
    const replaced = await worker.run('labels', { profileId: pid, chain: 'regtest', text: changed, rule: 'replace', apply: true });
    expect(replaced.preview).toMatchObject({ added: 0, updated: N / 2, unchanged: N / 2 });
    expect(repo.getLabel(pid, 'addr', address(1))?.label).toBe('new 1');
    expect(repo.getLabel(pid, 'addr', address(2))?.label).toBe('payer 2 — ünïcode "quoted"');
  });

  it('a bad line deep in a big file: its line number, and not one label written', async () => {
    repo.setLabel(pid, { type: 'addr', ref: address(7), label: 'before' });
    const lines = Array.from({ length: 20_000 }, (_, i) => labelLine(i));
    lines[15_432] = '{"type":"addr","ref":'; // line 15,433: not JSON
    lines[17_000] = JSON.stringify({ type: 'addr', ref: address(1, 9).replace('bcrt', 'bc'), label: 'x' }); // another network
    const r = await worker.run('labels', { profileId: pid, chain: 'regtest', text: lines.join('\n'), rule: 'replace', apply: true });
    expect(r.written).toBe(0);
    expect(r.preview.errors.map((e) => e.line)).toEqual([15_433, 17_001]);
    expect(r.preview.errors[0]!.message.length).toBeGreaterThan(10);
    expect(repo.listLabels(pid)).toEqual([expect.objectContaining({ ref: address(7), label: 'before' })]);
  });

  it('a long text crosses to the worker in slices: a character of two UTF-16 units on a slice boundary stays whole', async () => {
    const lines: string[] = [];
    let length = 0;
    for (let i = 0; length < TEXT_SLICE - 300; i++) {
      lines.push(JSON.stringify({ type: 'addr', ref: address(i, 6), label: `n${i}` }));
      length += lines.at(-1)!.length + 1;
    }
    // The next line's emoji starts one UTF-16 unit before the slice boundary.
    const prefix = `{"type":"addr","ref":"${address(lines.length, 6)}","label":"`;
    const last = `${prefix}${'a'.repeat(TEXT_SLICE - 1 - length - prefix.length)}🎉 end"}`;
    const text = [...lines, last].join('\n');
    expect(text.indexOf('🎉')).toBe(TEXT_SLICE - 1);
    const r = await worker.run('labels', { profileId: pid, chain: 'regtest', text, rule: 'replace', apply: true });
    expect(r.preview.errors).toEqual([]);
    expect(r.written).toBe(lines.length + 1);
    expect(repo.getLabel(pid, 'addr', address(lines.length, 6))?.label).toMatch(/^a*🎉 end$/);
    expect(repo.getLabel(pid, 'addr', address(7, 6))?.label).toBe('n7');
  });

  it('the worker and the inline runner give the same reply and the same rows', async () => {
    const other = newProfile(db, `q${Math.random()}`);
    const text = Array.from({ length: 2_000 }, (_, i) => labelLine(i, 3)).join('\n');
    repo.setLabel(pid, { type: 'addr', ref: address(5, 3), label: 'mine' });
    repo.setLabel(other, { type: 'addr', ref: address(5, 3), label: 'mine' });
    const a = await worker.run('labels', { profileId: pid, chain: 'regtest', text, rule: 'fill-empty', apply: true });
    const b = await inline.run('labels', { profileId: other, chain: 'regtest', text, rule: 'fill-empty', apply: true });
    expect(a).toEqual(b);
    const rows = (p: string): unknown[] => repo.listLabels(p).map((l) => [l.type, l.ref, l.label]);
    expect(rows(pid)).toEqual(rows(other));
  });
});

describe('adding addresses in the import worker', () => {
  it(`${N.toLocaleString('en-US')} addresses with their labels, while labels are present, all land`, async () => {
    // Labels already present for a third of them (the slow case of issue #27).
    repo.setLabels(pid, Array.from({ length: N / 3 }, (_, i) => ({ type: 'addr' as const, ref: address(i * 3, 4), label: `old ${i}` })));
    repo.addAddresses(pid, [address(0, 4), address(3, 4)], 'user');
    const text = Array.from({ length: N }, (_, i) => `${address(i, 4)} shop ${i}`).join('\n');
    const r = await worker.run('add-addresses', { profileId: pid, chain: 'regtest', text });
    expect(r).toEqual({ added: N - 2, existing: 2, errors: [], unserved: 0, unservedExamples: [] });
    const watched = new Set(repo.listAddresses(pid).map((a) => a.address));
    expect(watched.size).toBe(N);
    expect(Array.from({ length: N }, (_, i) => i).filter((i) => !watched.has(address(i, 4)))).toEqual([]);
    const labels = new Map(repo.listLabels(pid).map((l) => [l.ref, l.label]));
    expect(labels.size).toBe(N);
    expect(Array.from({ length: N }, (_, i) => i).filter((i) => labels.get(address(i, 4)) !== `shop ${i}`)).toEqual([]);
  });

  it('a bad address on line 60,001: that line, and nothing added', async () => {
    const lines = Array.from({ length: 70_000 }, (_, i) => address(i, 5));
    lines[60_000] = address(60_000, 5).slice(0, -1) + (address(60_000, 5).endsWith('q') ? 'p' : 'q'); // checksum broken
    const r = await worker.run('add-addresses', { profileId: pid, chain: 'regtest', text: lines.join('\n') });
    expect(r.added).toBe(0);
    expect(r.errors.map((e) => e.line)).toEqual([60_001]);
    expect(repo.listAddresses(pid)).toEqual([]);
  });
});

describe('wallet files in the import worker', () => {
  const xpub = 'tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp';
  const desc = `wpkh(${xpub}/0/*)`;

  it('the preview equals the inline one; a wallet file that is not one is refused with its typed reason', async () => {
    const a = await worker.run('wallet-preview', { text: desc, chain: 'regtest' });
    const b = await inline.run('wallet-preview', { text: desc, chain: 'regtest' });
    expect(a).toEqual(b);
    expect(a.firstAddresses).toHaveLength(3);
    expect(a.firstAddresses[0]!.address).toMatch(/^bcrt1q/);
    await expect(worker.run('wallet-preview', { text: 'not a wallet at all', chain: 'regtest' })).rejects.toMatchObject({ code: 'input.invalid', detail: { reason: 'unrecognized' } });
    await expect(worker.run('wallet-preview', { text: desc, chain: 'main' })).rejects.toMatchObject({ code: 'input.invalid', detail: { reason: 'network' } });
  });
});
