/**
 * scripts/fetch-hwi.sh, the release workflow's way to bundle HWI's binary, run for real here against a
 * release laid out as HWI lays out its own (contrib/build_bin.sh: `hwi` and `hwi-qt` at the top of
 * hwi-<version>-<os>-<arch>.tar.gz; contrib/make_shasums.sh: sums of the archives and of
 * `<archive>/hwi`; `gpg --clearsign SHA256SUMS.txt`) and served from a folder (file: URLs: no network
 * here). The release key is a throwaway key made by this test, since HWI's real key cannot sign here;
 * the workflow pins the real one, which the last test checks. Refused: another key, a sums file changed
 * after signing, an archive or a binary that does not match its signed sum, a platform the sums do not list.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/fetch-hwi.sh');
const hasTools = ['gpg', 'tar', 'curl', 'bash'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0) && process.platform !== 'win32';
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe.skipIf(!hasTools)('scripts/fetch-hwi.sh (gpg, tar and curl on a release served from a folder)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-fetch-hwi-'));
  const version = '3.2.0';
  const release = join(dir, 'release');
  const gnupg = join(dir, 'signer-gnupg');
  let fingerprint = '';
  let other = '';
  const hwi = Buffer.from('#!/bin/sh\necho "{\\"error\\": \\"test hwi\\"}"\n');

  const gpg = (args: string[], input?: string): string => {
    const r = spawnSync('gpg', ['--batch', '--homedir', gnupg, ...args], { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
    if (r.status !== 0) throw new Error(`gpg ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const makeKey = (name: string): string => {
    gpg(['--passphrase', '', '--quick-gen-key', `${name} <${name.toLowerCase().replace(/\W/g, '')}@example.invalid>`, 'ed25519', 'sign', 'never']);
    const fpr = gpg(['--with-colons', '--fingerprint', name]).split('\n').find((l) => l.startsWith('fpr:'))!.split(':')[9]!;
    writeFileSync(join(dir, `${fpr}.asc`), gpg(['--armor', '--export', fpr]));
    return fpr;
  };
  /** Lays out the release: the archive (hwi + hwi-qt at its top), its sums and the binary's, clear-signed by `by`. */
  const publish = (opts: { by?: string; binary?: Buffer; sumsEdit?: (s: string) => string } = {}): void => {
    rmSync(release, { recursive: true, force: true });
    const stage = join(dir, 'stage');
    rmSync(stage, { recursive: true, force: true });
    mkdirSync(stage, { recursive: true });
    mkdirSync(release, { recursive: true });
    writeFileSync(join(stage, 'hwi'), opts.binary ?? hwi);
    writeFileSync(join(stage, 'hwi-qt'), 'qt');
    chmodSync(join(stage, 'hwi'), 0o755);
    const archive = `hwi-${version}-linux-x86_64.tar.gz`;
    const t = spawnSync('tar', ['-czf', join(release, archive), '-C', stage, 'hwi', 'hwi-qt']);
    if (t.status !== 0) throw new Error(`tar: ${t.stderr}`);
    const sums = [`${sha(readFileSync(join(release, archive)))}  ${archive}`, `${sha(hwi)}  ${archive}/hwi`, `${sha('qt')}  ${archive}/hwi-qt`].join('\n') + '\n';
    const signed = gpg(['--local-user', opts.by ?? fingerprint, '--clearsign', '--output', '-'], sums);
    writeFileSync(join(release, 'SHA256SUMS.txt.asc'), opts.sumsEdit ? opts.sumsEdit(signed) : signed);
  };
  const run = (env: Record<string, string> = {}) => {
    const dest = join(dir, 'dest');
    rmSync(dest, { recursive: true, force: true });
    const r = spawnSync('bash', [SCRIPT, dest], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        HWI_VERSION: version,
        HWI_ASSET: 'linux-x86_64.tar.gz',
        HWI_RELEASE_URL: pathToFileURL(release).href,
        HWI_KEY_URL: pathToFileURL(join(dir, `${fingerprint}.asc`)).href,
        HWI_KEY_FINGERPRINT: fingerprint,
        ...env,
      },
    });
    return { status: r.status, out: r.stdout, err: r.stderr, file: join(dest, 'hwi') };
  };

  beforeAll(() => {
    mkdirSync(gnupg, { mode: 0o700 });
    fingerprint = makeKey('HWI Test Release');
    other = makeKey('Someone Else');
  }, 60_000);
  afterAll(() => {
    spawnSync('gpgconf', ['--homedir', gnupg, '--kill', 'all']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('signed by the pinned key, hashes matching: the binary is put in DEST_DIR, executable', () => {
    publish();
    const r = run();
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(r.file)).toEqual(hwi);
    expect(statSync(r.file).mode & 0o111).toBe(0o111);
    expect(existsSync(join(dir, 'dest', 'hwi-qt'))).toBe(false);
    expect(r.out).toContain(`signed by ${fingerprint}`);
  });

  it('sums signed by another key, or a key file that is not the pinned fingerprint: refused', () => {
    publish({ by: other });
    expect(run()).toMatchObject({ status: 1, err: expect.stringMatching(/not validly signed by/) });
    publish();
    // the key file of someone else, offered under the pinned fingerprint
    copyFileSync(join(dir, `${other}.asc`), join(dir, 'swapped.asc'));
    expect(run({ HWI_KEY_URL: pathToFileURL(join(dir, 'swapped.asc')).href })).toMatchObject({ status: 1, err: expect.stringMatching(new RegExp(`is not ${fingerprint}`)) });
    expect(run({ HWI_KEY_FINGERPRINT: other })).toMatchObject({ status: 1, err: expect.stringMatching(new RegExp(`is not ${other}`)) });
  });

  it('a sums file changed after it was signed: refused', () => {
    publish({ sumsEdit: (s) => s.replace(/^[0-9a-f]{64}(?= {2}hwi-3\.2\.0-linux-x86_64\.tar\.gz\n)/m, 'f'.repeat(64)) });
    expect(run()).toMatchObject({ status: 1, err: expect.stringMatching(/not validly signed/) });
  });

  it('an archive or a binary that does not match its signed sum, or a platform not listed: refused, nothing installed', () => {
    publish();
    writeFileSync(join(release, 'hwi-3.2.0-linux-x86_64.tar.gz'), 'not the archive');
    const a = run();
    expect(a).toMatchObject({ status: 1, err: expect.stringMatching(/hwi-3\.2\.0-linux-x86_64\.tar\.gz hashes to [0-9a-f]{64}, but the signed SHA256SUMS\.txt says/) });
    expect(existsSync(a.file)).toBe(false);
    // an archive that matches its own line but carries another binary than the signed one
    publish({ binary: Buffer.from('#!/bin/sh\necho evil\n') });
    const b = run();
    expect(b).toMatchObject({ status: 1, err: expect.stringMatching(/hwi in hwi-3\.2\.0-linux-x86_64\.tar\.gz hashes to .*but the signed SHA256SUMS\.txt says/) });
    expect(existsSync(b.file)).toBe(false);
    publish();
    expect(run({ HWI_ASSET: 'mac-arm64.tar.gz' })).toMatchObject({ status: 1, err: expect.stringMatching(/no single line for hwi-3\.2\.0-mac-arm64\.tar\.gz/) });
    expect(run({ HWI_ASSET: 'linux; rm -rf ~.tar.gz' })).toMatchObject({ status: 1, err: expect.stringMatching(/HWI_ASSET must look like/) });
  });
});

describe('the release workflow bundles HWI through fetch-hwi.sh with the real pins', () => {
  interface Step {
    name?: string;
    run?: string;
    shell?: string;
    env?: Record<string, string>;
  }
  const wf = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
    env: Record<string, string>;
    jobs: { installers: { strategy: { matrix: { include: Array<{ os: string; hwi: string }> } }; steps: Step[] } };
  };
  const job = wf.jobs.installers;

  it('pins HWI 3.x, the maintainer key (Ava Chow, bitcoin-core/guix.sigs at a fixed commit) by fingerprint', () => {
    expect(wf.env['HWI_VERSION']).toMatch(/^3\.\d+\.\d+$/);
    // the fingerprint of builder-keys/achow101.gpg, the key HWI's 3.2.0 tag is signed with
    expect(wf.env['HWI_KEY_FINGERPRINT']).toBe('152812300785C96444D3334D17565732E08E5E41');
    expect(wf.env['HWI_KEY_URL']).toMatch(/^https:\/\/raw\.githubusercontent\.com\/bitcoin-core\/guix\.sigs\/[0-9a-f]{40}\/builder-keys\/achow101\.gpg$/);
  });

  it('each OS fetches its own HWI archive into build/hwi before electron-builder runs, which ships it as resources/hwi', () => {
    expect(job.strategy.matrix.include.map((i) => [i.os.split('-')[0], i.hwi])).toEqual([
      ['ubuntu', 'linux-x86_64.tar.gz'],
      ['macos', 'mac-arm64.tar.gz'],
      ['windows', 'windows-x86_64.zip'],
    ]);
    const fetchAt = job.steps.findIndex((s) => s.run?.includes('scripts/fetch-hwi.sh build/hwi'));
    const distAt = job.steps.findIndex((s) => s.run === 'npm run dist -- --publish never');
    expect(fetchAt).toBeGreaterThan(-1);
    expect(fetchAt).toBeLessThan(distAt);
    expect(job.steps[fetchAt]!.shell).toBe('bash');
    // Windows checks out with CRLF unless told otherwise; Git Bash's bash stops at a CR
    expect(spawnSync('git', ['check-attr', 'eol', 'scripts/fetch-hwi.sh'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()).toBe('scripts/fetch-hwi.sh: eol: lf');
    expect(job.steps[fetchAt]!.env?.['HWI_ASSET']).toBe('${{ matrix.hwi }}');
    const builder = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as { extraResources: Array<{ from: string; to: string; filter: string[] }> };
    expect(builder.extraResources).toEqual([{ from: 'build/hwi', to: 'hwi', filter: ['hwi', 'hwi.exe'] }]);
  });
});
