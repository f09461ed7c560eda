// The built main bundles (out/main, what Electron and `npm run web` load) under Node's own ESM loader,
// not vitest's: a CommonJS package can expose fewer named exports there (keytar exposed getPassword
// but not setPassword or deletePassword, and "remember in keychain" failed in the shipped app only).
// - every static import of every bundle links in a real Node process (web.js with its chunks), and
//   index.js imports nothing else but 'electron' and Node's own modules;
// - the packages the bundles import dynamically are exactly the reviewed list, and each gives what
//   the app calls on it. The whole keychain flow runs in e2e/keychain-built.e2e.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkerRunner } from '../../electron/main/psbt/runner';
import { WorkerImportRunner } from '../../electron/main/watch/import-runner';
import { WatchRepository } from '../../electron/main/store/watch';
import { newProfile } from '../support/watch-data';
import { openDatabase } from '../../electron/main/store/db';
import { encodeBase64 } from '../../shared/bitcoin/psbt';
import { scanWorkerScriptBeside, WorkerScanRunner } from '../../electron/main/psbt/scan-runner';
import { encodePsbtUr } from '../../electron/main/psbt/ur';
import { parseUrPart } from '../../electron/main/psbt/ur-part';
import { recordedPsbts } from '../support/ur-parts';
import { multisigPsbts } from '../support/multisig-psbts';
import { describe, expect, it } from 'vitest';
import { ROOT, webBundleMissing } from '../support/web-process';

const skip = webBundleMissing();
const OUT = join(ROOT, 'out/main');
const bundles = skip ? [] : (readdirSync(OUT, { recursive: true }) as string[]).filter((f) => f.endsWith('.js')).map((f) => join(OUT, f));

/** Runs ES module code in a fresh Node process (native loader); its stdout, or throws with stderr. */
function nodeEsm(code: string): string {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** The functions the app calls on each package it imports dynamically (electron/main/credentials.ts). */
const DYNAMIC_USE: Record<string, string[]> = { keytar: ['getPassword', 'setPassword', 'deletePassword'] };

describe.skipIf(skip !== null)(`built main bundles under Node's ESM loader${skip ? ` — skipped: ${skip}` : ''}`, () => {
  it('web.js and its chunks link: every named import exists', () => {
    expect(nodeEsm(`await import(${JSON.stringify(join(OUT, 'web.js'))}); console.log('linked');`).trim()).toBe('linked');
  });

  it('the built PSBT worker (psbt-worker.js, as index.js and web.js start it) runs a job on a real database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-built-worker-'));
    const dbFile = join(dir, 'spyglass.sqlite');
    openDatabase(dbFile).close();
    const runner = new WorkerRunner({ file: new URL('./psbt-worker.js', pathToFileURL(join(OUT, 'index.js'))) }, dbFile, { info() {}, warn() {}, error() {} } as never);
    try {
      const taproot = readFileSync(join(ROOT, '../shared/fixtures/perf/taproot-1000-inputs.psbt.txt'), 'utf8').trim();
      const v2 = await runner.run('convert', { text: taproot, encoding: 'auto', to: 2 });
      expect(v2.version).toBe(2);
      const reply = await runner.run('review', { text: v2.base64, encoding: 'auto', profileId: null, nodeChain: 'regtest', nodeCoreVersion: null, nodeTip: null, reportHeight: null, offline: true, now: 1_800_000_000 });
      expect(reply.version).toBe(2);
      expect(reply.review.summary.inputCount).toBe(1000);
      expect(reply.review.inputs).toHaveLength(200); // the first page (REVIEW_PAGE); the rest by psbt:review-page
      await expect(runner.run('convert', { text: 'garbage', encoding: 'auto', to: 0 })).rejects.toMatchObject({ code: 'input.invalid' });
    } finally {
      await runner.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the built import worker (import-worker.js, as index.js and web.js start it) writes labels on a real database, and refuses a bad line writing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-built-import-'));
    const dbFile = join(dir, 'spyglass.sqlite');
    const db = openDatabase(dbFile);
    const profileId = newProfile(db);
    const runner = new WorkerImportRunner({ file: new URL('./import-worker.js', pathToFileURL(join(OUT, 'index.js'))) }, dbFile, { info() {}, warn() {}, error() {} } as never);
    try {
      const A = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
      const done = await runner.run('labels', { profileId, chain: 'regtest', text: JSON.stringify({ type: 'addr', ref: A, label: 'rent' }), rule: 'replace', apply: true });
      expect(done.written).toBe(1);
      expect(new WatchRepository(db).getLabel(profileId, 'addr', A)?.label).toBe('rent');
      const bad = await runner.run('add-addresses', { profileId, chain: 'regtest', text: `${A}\nnot-an-address` });
      expect(bad.errors.map((e) => e.line)).toEqual([2]);
      expect(new WatchRepository(db).listAddresses(profileId)).toEqual([]);
    } finally {
      await runner.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the built scan worker (scan-worker.js, as index.js and web.js start it) reads a real animated QR, fountain parts and frames lost', async () => {
    const psbt = recordedPsbts().find((p) => p.length > 1500)!;
    const { parts, seqLen } = encodePsbtUr(psbt, { maxFragmentLength: 100, fountainParts: 60 });
    const scans = new WorkerScanRunner(scanWorkerScriptBeside(pathToFileURL(join(OUT, 'index.js')).href), { info() {}, warn() {}, error() {} } as never);
    try {
      let last = null as Awaited<ReturnType<typeof scans.scan>> | null;
      for (const [i, p] of parts.entries()) {
        if (i < seqLen && i % 4 === 1) continue;
        last = await scans.scan('built', parseUrPart(p));
        if (last.done) break;
      }
      expect(last?.done).toBe(true);
      expect(Buffer.from(last!.psbt!, 'base64').equals(Buffer.from(psbt))).toBe(true);
    } finally {
      await scans.close();
    }
  });

  it('the built worker finalizes a 120-input 2-of-3: libsecp256k1 (tiny-secp256k1, a package beside the bundle) checks its 240 signatures in the worker thread', async () => {
    const [a, b] = multisigPsbts(120);
    const psbts = [encodeBase64(a), encodeBase64(b)];
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-built-finalize-'));
    const dbFile = join(dir, 'spyglass.sqlite');
    openDatabase(dbFile).close();
    const runner = new WorkerRunner({ file: new URL('./psbt-worker.js', pathToFileURL(join(OUT, 'index.js'))) }, dbFile, { info() {}, warn() {}, error() {} } as never);
    try {
      const c = await runner.run('send-combine', { psbts });
      const f = await runner.run('send-finalize', { psbt: c.combined });
      expect(f.complete).toBe(true);
      expect(f.refused).toEqual([]);
      // One signature made wrong: the built worker refuses to finalize that input.
      const bad = multisigPsbts(120, { corruptInput: 7 });
      const c2 = await runner.run('send-combine', { psbts: bad.map((p) => encodeBase64(p)) });
      const f2 = await runner.run('send-finalize', { psbt: c2.combined });
      expect(f2.complete).toBe(false);
    } finally {
      await runner.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("index.js imports only its chunks, 'electron' and Node's own modules (the packages are in the chunks, linked above)", () => {
    const src = readFileSync(join(OUT, 'index.js'), 'utf8');
    const specifiers = [...src.matchAll(/^import\s[^'"]*?from\s+"([^"]+)";/gm)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(2);
    for (const s of specifiers) expect(s === 'electron' || s.startsWith('node:') || s.startsWith('./chunks/'), s).toBe(true);
  });

  it('the packages imported dynamically are the reviewed ones, and Node gives what the app calls on them', () => {
    const dynamic = new Set<string>();
    for (const f of bundles) for (const m of readFileSync(f, 'utf8').matchAll(/\bimport\(\s*"([^"./][^"]*)"\s*\)/g)) dynamic.add(m[1]!);
    expect([...dynamic].sort()).toEqual(Object.keys(DYNAMIC_USE).sort());
    for (const [pkg, fns] of Object.entries(DYNAMIC_USE)) {
      const shape = JSON.parse(nodeEsm(`const m = await import(${JSON.stringify(pkg)}); console.log(JSON.stringify({ named: Object.keys(m), onDefault: Object.keys(m.default ?? {}) }));`)) as { named: string[]; onDefault: string[] };
      // What credentials.ts relies on: the whole module.exports on `default` …
      for (const fn of fns) expect(shape.onDefault, `${pkg}.default.${fn}`).toContain(fn);
      // … because the named exports are not all there (if this changes, keytarFromModule still works).
      expect(fns.every((fn) => shape.named.includes(fn))).toBe(false);
    }
  });
});
