// CredentialStore against the real OS keychain (gnome-keyring over a private D-Bus session when run
// under scripts/with-keyring.sh), and readCookie against real files.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import keytar from 'keytar';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { CredentialStore, keychainName, keytarBackend, keytarFromModule, MAX_COOKIE_BYTES, PROBE_ACCOUNT, readCookie } from '../../electron/main/credentials';
import type { SecretBackend } from '../../electron/main/credentials';

const KEYRING = process.env.SPYGLASS_TEST_KEYRING === '1';
// One keychain service per run, so nothing here can meet a real Spyglass entry or another run's.
const SERVICE = `Spyglass-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const used = new Set<string>();

function account(): string {
  const a = `profile-${randomBytes(6).toString('base64url')}`;
  used.add(a);
  return a;
}

function secret(): string {
  return `pw-${randomBytes(16).toString('hex')}`;
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe.skipIf(!KEYRING)(
  KEYRING ? 'CredentialStore with the real OS keychain (keytar)' : 'CredentialStore with the real OS keychain (skipped: run under scripts/with-keyring.sh — SPYGLASS_TEST_KEYRING not set)',
  () => {
    afterEach(async () => {
      for (const a of used) await keytar.deletePassword(SERVICE, a);
      used.clear();
    });

    it('the keychain answers and is named for the platform', async () => {
      const store = new CredentialStore(keytarBackend(SERVICE));
      expect(await store.status()).toEqual({ available: true, reason: null, backend: keychainName() });
      if (process.platform === 'linux') expect(keychainName()).toBe('Secret Service (libsecret)');
      expect(await keytar.getPassword(SERVICE, PROBE_ACCOUNT)).toBeNull(); // the probe stores nothing
    });

    it('save to the keychain → get returns it → a new store with a new backend reads it back', async () => {
      const a = account();
      const pw = secret();
      const store = new CredentialStore(keytarBackend(SERVICE));
      expect(await store.save(a, pw, 'keychain')).toBe('keychain');
      expect(await store.get(a)).toBe(pw);
      expect(await keytar.getPassword(SERVICE, a)).toBe(pw);

      const later = new CredentialStore(keytarBackend(SERVICE));
      expect(await later.get(a)).toBe(pw);
      // Another service name is another keychain entry.
      expect(await new CredentialStore(keytarBackend(`${SERVICE}-other`)).get(a)).toBeNull();
    });

    it('session-only stays out of the keychain and is gone for a new store', async () => {
      const a = account();
      const pw = secret();
      const store = new CredentialStore(keytarBackend(SERVICE));
      expect(await store.save(a, pw, 'session')).toBe('session');
      expect(await store.get(a)).toBe(pw);
      expect(await keytar.getPassword(SERVICE, a)).toBeNull();
      expect(await new CredentialStore(keytarBackend(SERVICE)).get(a)).toBeNull();
    });

    it('switching keychain → session removes the keychain copy; session → keychain drops the memory copy', async () => {
      const a = account();
      const first = secret();
      const second = secret();
      const third = secret();
      const store = new CredentialStore(keytarBackend(SERVICE));
      await store.save(a, first, 'keychain');
      await store.save(a, second, 'session');
      expect(await keytar.getPassword(SERVICE, a)).toBeNull();
      expect(await store.get(a)).toBe(second);

      await store.save(a, third, 'keychain');
      expect(await keytar.getPassword(SERVICE, a)).toBe(third);
      expect(await store.get(a)).toBe(third);
      // The memory copy is gone: what the keychain holds is what get returns.
      await keytar.setPassword(SERVICE, a, first);
      expect(await store.get(a)).toBe(first);
    });

    it('forget removes both copies', async () => {
      const a = account();
      const b = account();
      const store = new CredentialStore(keytarBackend(SERVICE));
      await store.save(a, secret(), 'keychain');
      await store.save(b, secret(), 'session');
      await store.forget(a);
      await store.forget(b);
      expect(await store.get(a)).toBeNull();
      expect(await store.get(b)).toBeNull();
      expect(await keytar.getPassword(SERVICE, a)).toBeNull();
      expect(await new CredentialStore(keytarBackend(SERVICE)).get(a)).toBeNull();
      await store.forget(account()); // forgetting what was never saved is fine
    });

    it('refuses an empty account or password', async () => {
      const store = new CredentialStore(keytarBackend(SERVICE));
      expect((await rejection(store.save('', secret(), 'keychain'))).code).toBe('input.invalid');
      expect((await rejection(store.save(account(), '', 'keychain'))).detail).toEqual({ field: 'password' });
    });
  },
);

// A keychain that cannot be reached. These fakes stand in for machines the tests cannot be: one with
// no Secret Service at all (every call rejects, as keytar does without D-Bus) and one whose Secret
// Service is locked and never answers. No real keychain is used in this block.
class RecordingBackend implements SecretBackend {
  readonly name = 'Secret Service (libsecret)';
  readonly calls: string[] = [];
  constructor(private readonly behaviour: 'reject' | 'hang') {}
  #fail(op: string): Promise<never> {
    this.calls.push(op);
    if (this.behaviour === 'hang') return new Promise<never>(() => {});
    return Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY'));
  }
  get(): Promise<string | null> {
    return this.#fail('get');
  }
  set(): Promise<void> {
    return this.#fail('set');
  }
  delete(): Promise<boolean> {
    return this.#fail('delete');
  }
}

describe('CredentialStore without a reachable keychain', () => {
  it('status says why, save(keychain) refuses without touching any file, save(session) works', async () => {
    const backend = new RecordingBackend('reject');
    const store = new CredentialStore(backend);
    const status = await store.status();
    expect(status.available).toBe(false);
    expect(status.backend).toBe('Secret Service (libsecret)');
    expect(status.reason).toBe(
      'The OS keychain could not be reached (Secret Service (libsecret): Cannot autolaunch D-Bus without X11 $DISPLAY). Passwords can be kept for this session only.',
    );

    const a = account();
    const pw = secret();
    const e = await rejection(store.save(a, pw, 'keychain'));
    expect(e.code).toBe('keychain.unavailable');
    expect(e.message).toBe(status.reason);
    expect(e.message).not.toContain(pw);
    expect(await store.get(a)).toBeNull(); // no fallback copy anywhere

    expect(await store.save(a, pw, 'session')).toBe('session');
    expect(await store.get(a)).toBe(pw);
    await store.forget(a);
    expect(await store.get(a)).toBeNull();
    // The probe ran once; nothing else was sent to a keychain known to be unreachable.
    expect(backend.calls).toEqual(['get']);
  });

  it('a keychain that never answers is reported unavailable after the probe timeout', async () => {
    const store = new CredentialStore(new RecordingBackend('hang'), { probeTimeoutMs: 150 });
    // The backend never answers: that status() answers at all is the probe timeout at work (a
    // clock bound here would only measure how busy the machine is).
    const status = await store.status();
    expect(status.available).toBe(false);
    expect(status.reason).toBe(
      'The OS keychain could not be reached (Secret Service (libsecret): no answer within 150 ms; it may be locked or not running). Passwords can be kept for this session only.',
    );
    expect((await rejection(store.save(account(), secret(), 'keychain'))).code).toBe('keychain.unavailable');
    expect(await store.save(account(), secret(), 'session')).toBe('session');
  });

  it('the status is probed once and cached; recheck probes again', async () => {
    const backend = new RecordingBackend('reject');
    const store = new CredentialStore(backend);
    await Promise.all([store.status(), store.status(), store.status()]);
    expect(backend.calls).toEqual(['get']);
    await store.recheck();
    expect(backend.calls).toEqual(['get', 'get']);
  });

  it('no backend at all (a build without keytar)', async () => {
    const store = new CredentialStore(null);
    expect(await store.status()).toEqual({
      available: false,
      reason: 'No OS keychain is available to Spyglass here. Passwords can be kept for this session only.',
      backend: 'none',
    });
    expect((await rejection(store.save(account(), secret(), 'keychain'))).code).toBe('keychain.unavailable');
    const a = account();
    expect(await store.save(a, 'pw', 'session')).toBe('session');
    expect(await store.get(a)).toBe('pw');
  });
});

describe('readCookie', () => {
  let dir: string;
  const hex = randomBytes(32).toString('hex');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'spyglass-cookie-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function cookieFile(name: string, content: string | Buffer): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }

  async function problem(path: string): Promise<AppError> {
    const e = await rejection(readCookie(path));
    expect(e.code).toBe('cookie.unreadable');
    expect(e.message.startsWith(`Cannot read the node's cookie file ${path}: `)).toBe(true);
    expect(e.detail?.['field']).toBe('cookiePath');
    return e;
  }

  it("reads Core's __cookie__:<hex>", async () => {
    expect(await readCookie(cookieFile('.cookie', `__cookie__:${hex}`))).toEqual({ user: '__cookie__', password: hex });
    expect(await readCookie(cookieFile('nl.cookie', `__cookie__:${hex}\n`))).toEqual({ user: '__cookie__', password: hex });
  });

  it('a missing file', async () => {
    const path = join(dir, 'regtest', '.cookie');
    const e = await problem(path);
    expect(e.detail?.['problem']).toBe('missing');
    expect(e.message).toBe(
      `Cannot read the node's cookie file ${path}: the file does not exist. Bitcoin Core writes it when it starts and deletes it when it stops: check that the node is running and that the path points into its data folder (for a test network, the chain's subfolder, e.g. regtest/.cookie).`,
    );
  });

  it.skipIf(process.platform === 'win32')('a file this user may not read', async () => {
    const sub = join(dir, 'private');
    mkdirSync(sub);
    chmodSync(sub, 0o755);
    const path = cookieFile('private/.cookie', `__cookie__:${hex}`);
    chmodSync(path, 0o600);
    if (process.getuid?.() !== 0) {
      chmodSync(path, 0o000);
      const e = await problem(path);
      expect(e.detail?.['problem']).toBe('denied');
      expect(e.message).toContain('permission denied');
      return;
    }
    // root reads everything: run readCookie as `nobody` in a child process instead.
    chmodSync(dir, 0o755);
    const script = `import(${JSON.stringify(resolve('electron/main/credentials.ts'))}).then((m) => m.readCookie(process.argv[1])).then(
      (v) => console.log(JSON.stringify({ ok: v })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message, detail: e.detail })))`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script, path], { uid: 65534, gid: 65534, encoding: 'utf8', cwd: process.cwd() });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { code: string; message: string; detail: Record<string, unknown> };
    expect(out.code).toBe('cookie.unreadable');
    expect(out.detail).toEqual({ field: 'cookiePath', problem: 'denied' });
    expect(out.message.startsWith(`Cannot read the node's cookie file ${path}: permission denied. `)).toBe(true);
    expect(out.message).not.toContain(hex);
  });

  it('a folder instead of a file', async () => {
    mkdirSync(join(dir, 'datadir'));
    expect((await problem(join(dir, 'datadir'))).detail?.['problem']).toBe('not_file');
  });

  it('an empty file', async () => {
    const e = await problem(cookieFile('empty', ''));
    expect(e.detail?.['problem']).toBe('empty');
    expect(e.message).toContain('the file is empty');
    expect((await problem(cookieFile('blank', '\n'))).detail?.['problem']).toBe('empty');
  });

  it('malformed content, without echoing it', async () => {
    for (const [name, content] of [
      ['no-colon', hex],
      ['no-user', `:${hex}`],
      ['no-password', '__cookie__:'],
      ['two-lines', `__cookie__:${hex}\nrpcuser=${hex}`],
      ['config', `rpcpassword = ${hex}`],
    ] as const) {
      const e = await problem(cookieFile(name, content));
      expect(e.detail?.['problem'], name).toBe('malformed');
      expect(e.message, name).not.toContain(hex);
    }
  });

  it('a file far too large to be a cookie', async () => {
    const e = await problem(cookieFile('blk00000.dat', Buffer.alloc(MAX_COOKIE_BYTES + 1, 0x61)));
    expect(e.detail?.['problem']).toBe('too_large');
  });

  it('an empty path', async () => {
    const e = await rejection(readCookie(''));
    expect(e.code).toBe('cookie.unreadable');
    expect(e.detail).toEqual({ field: 'cookiePath', problem: 'missing' });
  });
});

describe('keytarFromModule: what import("keytar") gives, under each loader', () => {
  const fns = { getPassword: async () => null, setPassword: async () => {}, deletePassword: async () => true };
  it("Node's ESM loader: module.exports on default, only getPassword named — default is taken", () => {
    const k = keytarFromModule({ default: fns, getPassword: fns.getPassword, 'module.exports': fns });
    expect(k).toBe(fns);
  });
  it("vitest's loader: every function named", () => {
    expect(typeof keytarFromModule({ ...fns }).setPassword).toBe('function');
  });
  it('a module without them is refused, naming what is missing', () => {
    expect(() => keytarFromModule({ getPassword: fns.getPassword })).toThrow('the keytar module has no setPassword, deletePassword');
    expect(() => keytarFromModule(null)).toThrow('the keytar module has no getPassword, setPassword, deletePassword');
  });
});
