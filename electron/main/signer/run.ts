// Running the external signer program (HWI, or any program speaking its command line; Bitcoin Core's
// doc/external-signer.md): spawn with an argument array and no shell, a deadline long enough for a person
// to press a button, a Cancel (AbortSignal), and a cap on what is read back. Nothing here chooses the
// arguments: args.ts builds them from checked values only.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** What one run of the program gave back, or why it gave nothing usable. */
export type RunOutcome =
  | { kind: 'exited'; code: number | null; stdout: string; stderr: string }
  | { kind: 'missing'; program: string }
  | { kind: 'not-executable'; program: string; reason: string }
  | { kind: 'timeout'; ms: number }
  | { kind: 'canceled' }
  | { kind: 'too-big'; maxBytes: number };

export interface RunRequest {
  program: string;
  args: readonly string[];
  timeoutMs: number;
  /** The most stdout bytes read: past it the program is stopped and its answer refused. */
  maxBytes: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Written to the program's standard input, then closed (HWI's --stdin); none: stdin is closed at once. */
  stdin?: string;
}

/** The most stderr kept for the log and the detail line. */
const STDERR_KEEP = 4096;

/** An absolute file that exists and may be executed, else why not. */
export function checkExecutable(file: string): string | null {
  try {
    if (!statSync(file).isFile()) return 'it is not a file';
    accessSync(file, constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'it may not be run (no execute permission)' : `it cannot be read (${code ?? 'error'})`;
  }
}

/** `name` looked up on PATH as a shell would (PATHEXT on Windows), else null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter((d) => d && isAbsolute(d));
  const exts = process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const d of dirs) {
    for (const ext of exts) {
      const f = join(d, name + ext);
      if (checkExecutable(f) === null) return f;
    }
  }
  return null;
}

/** Runs the program once; never throws for the program's own failures (see RunOutcome). */
export function runProgram(req: RunRequest): Promise<RunOutcome> {
  return new Promise((resolve) => {
    if (req.signal?.aborted) return resolve({ kind: 'canceled' });
    const child = spawn(req.program, [...req.args], { shell: false, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, env: req.env ?? process.env });
    child.stdin.on('error', () => undefined);
    child.stdin.end(req.stdin ?? '');
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let done = false;
    const finish = (o: RunOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      resolve(o);
    };
    const stop = (o: RunOutcome): void => {
      child.kill('SIGTERM');
      // a program that ignores SIGTERM is killed
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 2000).unref();
      finish(o);
    };
    const timer = setTimeout(() => stop({ kind: 'timeout', ms: req.timeoutMs }), req.timeoutMs);
    const onAbort = (): void => stop({ kind: 'canceled' });
    req.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > req.maxBytes) return stop({ kind: 'too-big', maxBytes: req.maxBytes });
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < STDERR_KEEP) err += b.toString('utf8').slice(0, STDERR_KEEP - err.length);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') finish({ kind: 'missing', program: req.program });
      else finish({ kind: 'not-executable', program: req.program, reason: e.code ?? e.message });
    });
    child.on('close', (code) => finish({ kind: 'exited', code, stdout: Buffer.concat(out).toString('utf8'), stderr: err }));
  });
}
