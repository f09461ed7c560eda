// `npm start` (scripts/start.mjs) as far as it can run without an Electron binary, which cannot be
// downloaded on this machine: a stand-in executable takes Electron's place through ELECTRON_EXEC_PATH
// (the real binary is launched by the Playwright _electron test where one exists), and the download
// failure is provoked with a copy of the electron package pointed at a closed loopback port.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START = join(ROOT, 'scripts/start.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'spyglass-start-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runStart(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [START, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A copy of node_modules/electron with no binary, resolving its dependencies from ours. */
function electronPackageCopy(): string {
  const base = mkdtempSync(join(tmp, 'pkg-'));
  const pkg = join(base, 'electron');
  mkdirSync(pkg);
  for (const f of ['package.json', 'install.js', 'checksums.json', 'index.js', 'cli.js']) copyFileSync(join(ROOT, 'node_modules/electron', f), join(pkg, f));
  symlinkSync(join(ROOT, 'node_modules'), join(base, 'node_modules'));
  return pkg;
}

describe('npm start', () => {
  it('package.json runs scripts/start.mjs, and no script reaches electron-vite preview (it needs path.txt)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']).toBe('node scripts/start.mjs');
    expect(pkg.scripts['dev']).toBe('node scripts/start.mjs --dev');
    expect(Object.values(pkg.scripts).some((s) => s.includes('electron-vite preview'))).toBe(false);
  });

  // The stand-in is a script with a #! line, which Windows does not run.
  it.skipIf(process.platform === 'win32')('launches the Electron binary on the project folder with the arguments given, never as plain Node', async () => {
    const record = join(tmp, 'launched.json');
    const standIn = join(tmp, 'electron-stand-in');
    writeFileSync(
      standIn,
      `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null, exec: process.env.ELECTRON_EXEC_PATH }));\nprocess.exit(7);\n`,
    );
    chmodSync(standIn, 0o755);
    // The build is left out here: npm test has just built out/, which the e2e files are reading.
    const r = await runStart(['--some-flag'], { ELECTRON_EXEC_PATH: standIn, SPYGLASS_SKIP_BUILD: '1', ELECTRON_RUN_AS_NODE: '1' });
    expect(r.status, r.stderr).toBe(7); // the app's exit code is npm start's
    const launched = JSON.parse(readFileSync(record, 'utf8')) as { argv: string[]; cwd: string; runAsNode: string | null; exec: string };
    expect(launched.argv).toEqual([ROOT.replace(/\/$/, ''), '--some-flag']);
    expect(launched.cwd).toBe(ROOT.replace(/\/$/, ''));
    expect(launched.runAsNode).toBeNull();
    expect(launched.exec).toBe(standIn);
    expect(r.stderr).not.toContain('downloading');
  });

  it('--ensure-only prints the binary it would use', async () => {
    const standIn = join(tmp, 'electron-stand-in');
    const r = await runStart(['--ensure-only'], { ELECTRON_EXEC_PATH: standIn });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(standIn);
  });

  it('an ELECTRON_EXEC_PATH that does not exist: one clear message naming npm run web', async () => {
    const r = await runStart([], { ELECTRON_EXEC_PATH: join(tmp, 'missing-electron') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`ELECTRON_EXEC_PATH is set to ${join(tmp, 'missing-electron')}, which does not exist`);
    expect(r.stderr).toContain('npm run web');
  });

  it('the binary cannot be downloaded: stops with one message naming npm run web, no stack trace', async () => {
    const port = await closedPort();
    const pkg = electronPackageCopy();
    const r = await runStart([], {
      SPYGLASS_ELECTRON_PKG: pkg,
      ELECTRON_EXEC_PATH: '',
      ELECTRON_MIRROR: `http://127.0.0.1:${port}/`,
      electron_config_cache: join(tmp, 'electron-cache'),
    });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Spyglass: downloading Electron 45\.\d+\.\d+ for /);
    expect(lines[1]).toMatch(/^Spyglass cannot open its desktop window: the Electron 45\.\d+\.\d+ binary is not installed and could not be downloaded \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)\.$/);
    expect(r.stderr).toContain('run `npm run web`');
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
  });
});
