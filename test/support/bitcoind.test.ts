/**
 * The real-Core harness itself (test/support/bitcoind.ts): a private node per file with -rpcauth
 * credentials, the cookie path, its generation, and that no bitcoind is ever left behind — after a
 * clean stop, a failed start, a failing test body, or a test process that is killed outright.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startFollower } from '../../devnet/index';
import { bitcoindSource, describeWithBitcoind, generationOf, rpcauthArg, startBitcoind, withBitcoind } from './bitcoind';
import { TestRpc } from './rpc';

/** Pids of processes whose command line names this datadir (bitcoind and its guard shell). */
function pgrep(datadir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', '--', `-datadir=${datadir}`], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch (e) {
    if ((e as { status?: number }).status === 1) return []; // none
    throw e;
  }
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('parses generations and -rpcauth values as Core does', () => {
  expect(generationOf('/Satoshi:31.99.0/')).toBe('31.99');
  expect(generationOf('/Satoshi:30.99.0/')).toBe('30.99');
  expect(generationOf('/Satoshi:30.0.0(spyglass)/')).toBe('30.0');
  // share/rpcauth/rpcauth.py: user:salt$HMAC-SHA256(key = salt, message = password).
  expect(rpcauthArg('alice', 'secret', '00112233')).toBe('alice:00112233$84d16d5c400d7cb659fdf2e36a855ba119c531683e286fdc26b55afe19cc1863');
});

describeWithBitcoind('the bitcoind harness', (node) => {
  const binary = (): string => {
    const s = bitcoindSource();
    if (s.kind !== 'binary') throw new Error('needs a bitcoind binary');
    return s.path;
  };
  const ownNodes = bitcoindSource().kind === 'binary';

  it('a private regtest node on loopback with -rpcauth credentials, and its generation', async () => {
    const n = node();
    expect(n.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    const info = await n.rpc.call<{ version: number; subversion: string }>('getnetworkinfo');
    expect(info.subversion).toBe(n.subversion);
    expect(n.generation).toMatch(/^[0-9]+\.[0-9]+$/);
    expect(n.devnetMode).toBe(info.version >= 319900 ? '31.99' : '30');
    expect((await n.rpc.call<{ chain: string }>('getblockchaininfo')).chain).toBe('regtest');
    const wrong = await new TestRpc(n.url, n.user, 'wrong').raw('/', '{"method":"getblockcount"}');
    expect(wrong.status).toBe(401);
    if (n.started) {
      expect(pgrep(n.datadir!).length).toBeGreaterThan(0);
      expect(pgrep(n.datadir!)).toContain(n.pid);
    }
  });

  it.runIf(ownNodes)('cookie auth: the node’s own .cookie file, read by the suite and by the follower', async () => {
    let datadir = '';
    await withBitcoind(
      async (n) => {
        datadir = n.datadir!;
        expect(n.cookieFile).toBe(join(datadir, 'regtest', '.cookie'));
        expect(n.user).toBe('__cookie__');
        expect(await n.rpc.call<number>('getblockcount')).toBe(0);
        const follower = await startFollower({ url: n.url, cookieFile: n.cookieFile!, pollMs: 50, log: () => undefined });
        try {
          await follower.follower.waitFor((s) => s.synced, 30_000);
        } finally {
          await follower.close();
        }
      },
      { binary: binary(), auth: 'cookie' },
    );
    expect(pgrep(datadir)).toEqual([]);
    expect(existsSync(datadir)).toBe(false);
  });

  it.runIf(ownNodes)('stop(): the process ends and the datadir is removed; stopping twice is harmless', async () => {
    const n = await startBitcoind({ binary: binary() });
    expect(pgrep(n.datadir!)).toContain(n.pid);
    await n.stop();
    await n.stop();
    expect(pgrep(n.datadir!)).toEqual([]);
    expect(existsSync(n.datadir!)).toBe(false);
  });

  it.runIf(ownNodes)('a start that fails (RPC port taken) leaves no process and no datadir', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const err = await startBitcoind({ binary: binary(), port }).then(
        () => null,
        (e: Error & { datadir?: string }) => e,
      );
      expect(err?.message).toMatch(/exited \(code [1-9][0-9]*\) before RPC was up/);
      expect(err?.datadir).toBeTruthy();
      expect(pgrep(err!.datadir!)).toEqual([]);
      expect(existsSync(err!.datadir!)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it.runIf(ownNodes)('a start that times out is killed: no process, no datadir', async () => {
    const err = await startBitcoind({ binary: binary(), readyTimeoutMs: 1 }).then(
      () => null,
      (e: Error & { datadir?: string }) => e,
    );
    expect(err?.message).toMatch(/did not answer RPC/);
    expect(pgrep(err!.datadir!)).toEqual([]);
    expect(existsSync(err!.datadir!)).toBe(false);
  });

  it.runIf(ownNodes)('a failing test body still stops its node', async () => {
    let datadir = '';
    await expect(
      withBitcoind(
        async (n) => {
          datadir = n.datadir!;
          await n.rpc.call('createwallet', ['w']);
          throw new Error('the test failed');
        },
        { binary: binary() },
      ),
    ).rejects.toThrow('the test failed');
    expect(pgrep(datadir)).toEqual([]);
    expect(existsSync(datadir)).toBe(false);
  });

  it.runIf(ownNodes)('a test process killed with SIGKILL leaves no bitcoind: the guard ends it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bitcoind-orphan.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BITCOIND: binary(), BITCOIND_URL: '' },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await until('the child to start its node', () => out.includes('\n'), 60_000);
    const { pid, datadir } = JSON.parse(out) as { pid: number; datadir: string };
    try {
      expect(pgrep(datadir)).toContain(pid);
      child.kill('SIGKILL');
      // the guard asks it to stop, and kills it after 30 s: wait longer than that
      await until('bitcoind to end after its test process died', () => pgrep(datadir).length === 0, 60_000);
    } finally {
      rmSync(datadir, { recursive: true, force: true }); // nobody was left to remove it
    }
  });
}, { tag: 'bitcoind-harness' });
