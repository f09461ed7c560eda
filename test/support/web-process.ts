// `npm run web` as users run it: the built bundle (out/main/web.js) in its own Node process, loaded by
// Node's native ESM loader — not vitest's, which loads CommonJS modules such as keytar differently.
// Tests talk to it over its loopback bridge (the token it prints) or open its page in Chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IpcResult } from '../../shared/errors';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const WEB_BUNDLE = join(ROOT, 'out/main/web.js');

export interface WebProcess {
  /** The page URL with the bridge token, as printed. */
  pageUrl: string;
  origin: string;
  token: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  call<T>(channel: string, payload?: unknown): Promise<IpcResult<T>>;
  /** SIGTERM, then wait for exit (the app closes its database and servers). */
  stop(): Promise<number | null>;
}

export interface WebProcessOptions {
  /** Passed as `--data-dir`; left out, the process finds its folder itself (SPYGLASS_DATA_DIR, the default). */
  dataDir?: string;
  /** More arguments: `--demo` opens on the demo devnet (without it a first run shows Connect / Try the demo). */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** A command to run the bundle under (e.g. a private D-Bus session), before `node`. */
  wrap?: string[];
}

/**
 * How long a start may take before it counts as hung: a guard, not a measure — Node loading the bundle
 * and its native modules on a machine whose cores are all busy has taken over 30 s.
 */
const START_LIMIT_MS = 180_000;

export function webBundleMissing(): string | null {
  return existsSync(WEB_BUNDLE) ? null : 'the app is not built: run `npm run build` first (npm test does)';
}

export function startWebProcess(opts: WebProcessOptions): Promise<WebProcess> {
  const dataDir = opts.dataDir !== undefined ? ['--data-dir', opts.dataDir] : [];
  const argv = [...(opts.wrap ?? []), process.execPath, WEB_BUNDLE, ...dataDir, '--port', '0', ...(opts.args ?? [])];
  // Its own process group: a wrapper (dbus-run-session) does not pass SIGTERM on to the app it runs, so
  // stopping signals the whole group — no web.js is left running after the test.
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      child.kill(signal);
    }
  };
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup('SIGKILL');
      reject(new Error(`npm run web printed no URL within ${START_LIMIT_MS / 1000} s. stderr: ${err}`));
    }, START_LIMIT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run web exited with ${code} before it served. stderr: ${err}`));
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/\?bridgeToken=([0-9a-f]+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const [pageUrl, origin, token] = [m[0], m[1]!, m[2]!];
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      resolve({
        pageUrl,
        origin,
        token,
        child,
        stderr: () => err,
        async call<T>(channel: string, payload: unknown = {}) {
          const res = await fetch(`${origin}/ipc/${channel}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(payload) });
          return (await res.json()) as IpcResult<T>;
        },
        async stop() {
          if (child.exitCode === null) killGroup('SIGTERM');
          const code = await exited;
          // what the wrapper started may still be going: the group again, once the wrapper is gone
          killGroup('SIGTERM');
          return code;
        },
      });
    });
  });
}
