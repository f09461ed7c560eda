/**
 * Real Bitcoin Core for tests: a private `bitcoind -regtest` per test file, or a node the user runs.
 *
 * Which node (bitcoindSource):
 * - BITCOIND_URL (+ BITCOIND_USER, BITCOIND_PASSWORD): an already running regtest node, used as is;
 * - BITCOIND: the path of a `bitcoind` binary, started by the suite;
 * - else `bitcoind` on PATH, started by the suite;
 * - else none: the real-Core files skip with one line saying how to enable them, and FAIL when CI=true.
 *
 * A started node gets a temporary datadir, a free loopback RPC port, `-rpcauth` credentials (the cookie
 * file is written too; `auth: 'cookie'` uses it instead), `-fallbackfee=0.0002`, `-listen=0`; start waits
 * until RPC answers, and stop() ends it with the `stop` RPC (SIGKILL if it does not exit) and removes the
 * datadir — on a failed start too. The process runs under a small shell guard that ends it when the test
 * process goes away (its stdin closes), so a crashed or killed test worker leaves no bitcoind behind.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { TestRpc } from './rpc';

/** The generations the devnet can answer as (its `coreVersion`). */
export type DevnetCoreVersion = '30' | '31.99';

export type BitcoindSource =
  | { kind: 'url'; url: string; user: string; password: string }
  | { kind: 'binary'; path: string; from: 'BITCOIND' | 'PATH' }
  | { kind: 'none' };

export interface BitcoindNode {
  url: string;
  user: string;
  password: string;
  rpc: TestRpc;
  /** getnetworkinfo `version` (e.g. 319900) and `subversion` (e.g. `/Satoshi:31.99.0/`). */
  version: number;
  subversion: string;
  /** `31.99`, `30.99`, `30.0`…: the version in the subversion, without its last part. */
  generation: string;
  /** The devnet mode that answers as this node: 31.99 from version 31.99 on, else 30. */
  devnetMode: DevnetCoreVersion;
  /** False for a BITCOIND_URL node (not ours: never stopped, chain and wallets may be in use). */
  started: boolean;
  /** The node's datadir (a temporary one we remove for a started node). */
  datadir: string | null;
  /** `<datadir>/regtest/.cookie` of a started node. */
  cookieFile: string | null;
  pid: number | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** bitcoind binary (default: bitcoindSource()'s). */
  binary?: string;
  /** 'rpcauth' (default): user/password through -rpcauth; 'cookie': only the cookie file Core writes. */
  auth?: 'rpcauth' | 'cookie';
  /** More bitcoind arguments, e.g. ['-keypool=100']. */
  args?: string[];
  /** Give up waiting for RPC after this long (default 60 s). */
  readyTimeoutMs?: number;
  /** RPC port (default: a free one). */
  port?: number;
  /**
   * Start on this existing datadir (a node started again after a stop), which stop() then leaves in
   * place for its owner to remove. Default: a new temporary one, removed at stop().
   */
  datadir?: string;
  /** The -rpcauth password (default: a random one); a restart passes the first start's. */
  password?: string;
}

const ENABLE_HINT =
  'set BITCOIND=/path/to/bitcoind (or put bitcoind on PATH, or BITCOIND_URL=http://127.0.0.1:18443 with BITCOIND_USER/BITCOIND_PASSWORD for a running regtest node); `npm run test:core` runs them against both builds in ../shared/core';

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

export function bitcoindSource(env: NodeJS.ProcessEnv = process.env): BitcoindSource {
  if (env.BITCOIND_URL) {
    return { kind: 'url', url: env.BITCOIND_URL.replace(/\/$/, ''), user: env.BITCOIND_USER ?? '', password: env.BITCOIND_PASSWORD ?? '' };
  }
  if (env.BITCOIND) return { kind: 'binary', path: env.BITCOIND, from: 'BITCOIND' };
  const found = onPath('bitcoind');
  return found ? { kind: 'binary', path: found, from: 'PATH' } : { kind: 'none' };
}

/** `/Satoshi:31.99.0/` → 31.99; the devnet mode for a getnetworkinfo version. */
export function generationOf(subversion: string): string {
  const m = /^\/Satoshi:([0-9]+\.[0-9]+)(?:\.[0-9]+)*[/(]/.exec(subversion);
  return m ? m[1]! : subversion;
}
export const devnetModeOf = (version: number): DevnetCoreVersion => (version >= 319900 ? '31.99' : '30');

/** Whether nothing listens on 127.0.0.1:port now. */
async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The lowest port the kernel hands out to listen(0) and outgoing connections (Linux; else the IANA range's). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 49152;
  } catch {
    return 49152;
  }
}

// Where in the block this process starts: another test run on the machine at the same time (its workers
// have the same VITEST_POOL_ID) most likely starts elsewhere.
let nextPort = process.pid % 500;
/**
 * A port for a node's RPC server. Not from listen(0): between closing such a probe and bitcoind binding
 * the port (and while a node is down before a restart on it), any listen(0) on the machine — the other
 * file's follower, index server or app — could be handed the same port, and bitcoind would exit with
 * "Unable to bind". Instead each vitest worker takes ports in turn from its own block of 500 below the
 * kernel's ephemeral range, skipping one in use.
 */
async function nodePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? 1) || 1;
  const base = 20_000 + ((worker - 1) % 20) * 500;
  if (base + 500 > ephemeralLow()) throw new Error(`the ports ${base}–${base + 499} reach the kernel's ephemeral range (from ${ephemeralLow()})`);
  for (let i = 0; i < 500; i++) {
    const port = base + (nextPort++ % 500);
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port in ${base}–${base + 499}`);
}

/** The -rpcauth value for user/password (share/rpcauth/rpcauth.py: HMAC-SHA256 keyed by the salt). */
export function rpcauthArg(user: string, password: string, salt = randomBytes(16).toString('hex')): string {
  return `${user}:${salt}$${createHmac('sha256', salt).update(password).digest('hex')}`;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the command in the background, prints `pid N`, and ends it when stdin closes (the test process
 * closed it, or died). Prints `exit CODE` when the command ends.
 */
const GUARD = [
  // Background jobs of a non-interactive shell read /dev/null: keep the real stdin as fd 3 for the watcher.
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'pid=$!',
  'echo "pid $pid"',
  '{ while read -r _ <&3; do :; done; kill -TERM "$pid" 2>/dev/null; n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done; kill -KILL "$pid" 2>/dev/null; } &',
  'exec 3<&-',
  'wait "$pid"; code=$?',
  'echo "exit $code"',
].join('\n');

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * One call with a time limit: the result, or not ok while the node is not up yet (refused, no reply in
 * time, -28 warming up). Other RPC errors throw.
 */
async function probe(rpc: TestRpc, method: string, timeoutMs: number): Promise<{ ok: true; result: unknown } | { ok: false }> {
  let reply;
  try {
    reply = await rpc.raw('/', JSON.stringify({ jsonrpc: '1.0', id: 'harness', method, params: [] }), { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return { ok: false };
  }
  if (!reply.contentType.includes('json')) throw new Error(`${method}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
  const body = JSON.parse(reply.text) as { result: unknown; error: { code: number; message: string } | null };
  if (body.error?.code === -28) return { ok: false };
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return { ok: true, result: body.result };
}

/** `user:password` of a cookie file (`__cookie__:<hex>`). */
export function readCookie(file: string): { user: string; password: string } {
  const text = readFileSync(file, 'utf8').trim();
  const i = text.indexOf(':');
  return { user: text.slice(0, i), password: text.slice(i + 1) };
}

/** Is a process with this pid alive? */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a private regtest node (see the file comment). Rejects — leaving nothing behind — when it does not come up. */
export async function startBitcoind(opts: StartOptions = {}): Promise<BitcoindNode> {
  const source = bitcoindSource();
  const binary = opts.binary ?? (source.kind === 'binary' ? source.path : null);
  if (!binary) throw new Error(`no bitcoind binary: ${ENABLE_HINT}`);

  const datadir = opts.datadir ?? mkdtempSync(join(tmpdir(), 'spyglass-bitcoind-'));
  const port = opts.port ?? (await nodePort());
  const user = 'spyglass';
  const password = opts.password ?? randomBytes(16).toString('hex');
  const args = [
    '-regtest',
    `-datadir=${datadir}`,
    `-rpcport=${port}`,
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    '-listen=0',
    '-fallbackfee=0.0002',
    '-printtoconsole=0',
    ...(opts.auth === 'cookie' ? [] : [`-rpcauth=${rpcauthArg(user, password)}`]),
    ...(opts.args ?? []),
  ];
  const child: ChildProcessWithoutNullStreams = spawn('/bin/sh', ['-c', GUARD, 'bitcoind-guard', binary, ...args], { stdio: 'pipe' });
  let out = '';
  let err = '';
  let pid: number | null = null;
  let exitCode: number | null = null;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    const p = /^pid ([0-9]+)$/m.exec(out);
    if (p && pid === null) pid = Number(p[1]);
    const e = /^exit ([0-9]+)$/m.exec(out);
    if (e) exitCode = Number(e[1]);
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  // The shell could not be started (EAGAIN on a loaded machine, say): said by the ready loop, not thrown unhandled.
  let spawnError: Error | null = null;
  const guardDone = new Promise<void>((r) => {
    child.once('close', () => r());
    child.once('error', (e) => {
      spawnError = e;
      if (child.pid === undefined) r(); // never started: no 'close' to wait for
    });
  });
  // Last resort when this process exits without stop(): closing stdin makes the guard end bitcoind.
  const onExit = (): void => {
    if (pid !== null && alive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  process.once('exit', onExit);

  const url = `http://127.0.0.1:${port}`;
  let rpc: TestRpc | null = opts.auth === 'cookie' ? null : new TestRpc(url, user, password);
  const cookieFile = join(datadir, 'regtest', '.cookie');
  const currentRpc = (): TestRpc | null => {
    if (rpc) return rpc;
    if (!existsSync(cookieFile)) return null;
    const c = readCookie(cookieFile);
    rpc = new TestRpc(url, c.user, c.password);
    return rpc;
  };

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (exitCode === null && child.exitCode === null && pid !== null) {
      const p = pid;
      const signal = (sig: NodeJS.Signals): void => {
        try {
          process.kill(p, sig);
        } catch {
          // exited meanwhile
        }
      };
      let asked = false;
      try {
        const rpc = currentRpc();
        if (rpc) asked = (await probe(rpc, 'stop', 5_000)).ok;
      } catch {
        // not answering
      }
      if (!asked) signal('SIGTERM');
      for (let i = 0; i < 300 && exitCode === null && alive(p); i++) await sleep(100);
      if (alive(p)) signal('SIGKILL');
    }
    child.stdin.end();
    await guardDone;
    process.removeListener('exit', onExit);
    for (let i = 0; i < 20 && opts.datadir === undefined; i++) {
      try {
        rmSync(datadir, { recursive: true, force: true });
        break;
      } catch {
        await sleep(100);
      }
    }
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  try {
    for (;;) {
      if (spawnError) throw new Error(`bitcoind could not be started: ${(spawnError as Error).message}`);
      if (exitCode !== null || child.exitCode !== null) {
        throw new Error(`bitcoind exited (code ${exitCode ?? child.exitCode}) before RPC was up: ${(err.trim() || tail(join(datadir, 'regtest', 'debug.log'), 5)).slice(0, 2000)}`);
      }
      if (Date.now() > deadline) throw new Error(`bitcoind did not answer RPC on ${url} within ${opts.readyTimeoutMs ?? 60_000} ms`);
      const r = currentRpc();
      const info = r && pid !== null ? await probe(r, 'getnetworkinfo', 2_000) : { ok: false as const };
      if (r && info.ok) {
        const { version, subversion } = info.result as { version: number; subversion: string };
        const creds = opts.auth === 'cookie' ? readCookie(cookieFile) : { user, password };
        return {
          url,
          user: creds.user,
          password: creds.password,
          rpc: r,
          version,
          subversion,
          generation: generationOf(subversion),
          devnetMode: devnetModeOf(version),
          started: true,
          datadir,
          cookieFile: existsSync(cookieFile) ? cookieFile : null,
          pid,
          stop,
        };
      }
      await sleep(50);
    }
  } catch (e) {
    await stop();
    throw Object.assign(e instanceof Error ? e : new Error(String(e)), { datadir });
  }
}

/** Connects to the BITCOIND_URL node (never stopped by the suite); its datadir as getrpcinfo's log path tells. */
export async function connectBitcoind(url: string, user: string, password: string): Promise<BitcoindNode> {
  const rpc = new TestRpc(url, user, password);
  const info = await rpc.call<{ version: number; subversion: string }>('getnetworkinfo');
  const { logpath } = await rpc.call<{ logpath: string }>('getrpcinfo');
  const datadir = /^(.*)\/regtest\/debug\.log$/.exec(logpath)?.[1] ?? null;
  return {
    url,
    user,
    password,
    rpc,
    version: info.version,
    subversion: info.subversion,
    generation: generationOf(info.subversion),
    devnetMode: devnetModeOf(info.version),
    started: false,
    datadir,
    cookieFile: null,
    pid: null,
    stop: async () => undefined,
  };
}

/** Starts a node, runs `fn`, and stops the node whatever happens. */
export async function withBitcoind<T>(fn: (node: BitcoindNode) => Promise<T>, opts: StartOptions = {}): Promise<T> {
  const node = await startBitcoind(opts);
  try {
    return await fn(node);
  } finally {
    await node.stop();
  }
}

/**
 * A describe block against real Core: one node for the whole block (started in beforeAll, stopped in
 * afterAll), from bitcoindSource(). Without a node it skips with one line saying how to enable it —
 * or, with CI=true, fails.
 */
export function describeWithBitcoind(
  name: string,
  body: (node: () => BitcoindNode) => void,
  opts: StartOptions & { tag?: string } = {},
): void {
  const source = bitcoindSource();
  const tag = opts.tag ?? name;
  if (source.kind === 'none') {
    if (process.env.CI === 'true') {
      describe(name, () => {
        it('needs real Bitcoin Core (CI=true)', () => {
          throw new Error(`CI=true and no bitcoind: ${ENABLE_HINT}`);
        });
      });
    } else {
      describe.skip(name, () => {
        it(`skipped: no bitcoind — ${ENABLE_HINT}`, () => undefined);
      });
      console.info(`[${tag}] skipped: no bitcoind — ${ENABLE_HINT}`);
    }
    return;
  }
  let node: BitcoindNode | undefined;
  describe(name, () => {
    beforeAll(async () => {
      node = source.kind === 'url' ? await connectBitcoind(source.url, source.user, source.password) : await startBitcoind({ ...opts, binary: source.path });
      console.info(`[${tag}] ${node.started ? `started ${source.kind === 'binary' ? source.path : ''}` : `using ${node.url}`}: ${node.subversion}`);
    }, 120_000);
    afterAll(async () => {
      await node?.stop();
    }, 60_000);
    body(() => {
      if (!node) throw new Error('bitcoind did not start');
      return node;
    });
  });
}
