/**
 * Runs the `spyglass` command as shipped: a child process running the built bundle (`node
 * out/main/cli.js`, cli/spyglass.ts built by `npm run build` beside the worker threads it starts —
 * the npm script runs the same source through tsx, which costs ~1.5 s of start-up per command) from
 * the repo root, in the test's own keyring session (scripts/with-keyring.sh), on the data folder given.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json<T = unknown>(): T;
}

export const CLI_BUNDLE = join(ROOT, 'out/main/cli.js');

export function spyglass(dataDir: string, args: readonly string[], opts: { stdin?: string; env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
  if (!existsSync(CLI_BUNDLE)) return Promise.reject(new Error('the app is not built: run `npm run build` first (npm test does)'));
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    delete env['SPYGLASS_DATA_DIR'];
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete env[k];
    const child = spawn(process.execPath, [CLI_BUNDLE, ...args, '--data-dir', dataDir], { cwd: ROOT, env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.stdin.end(opts.stdin ?? '');
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code,
        stdout,
        stderr,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(`spyglass ${args.join(' ')}: exit ${code}, not JSON on stdout:\n${stdout}\nstderr:\n${stderr}`);
          }
        },
      });
    });
  });
}

/** The reason a refused or bad command printed: stderr's last line, which is its only `spyglass:` line. */
export function reason(r: CliRun): string {
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('spyglass: '));
  if (lines.length !== 1) throw new Error(`expected one reason line, got ${lines.length}:\n${r.stderr}`);
  return lines[0]!;
}

/** Asserts the exit code, with the output in the message when it differs. */
export function expectCode(r: CliRun, code: number, what: string): CliRun {
  if (r.code !== code) throw new Error(`${what}: exit ${r.code}, expected ${code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}
