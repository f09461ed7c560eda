// E2E of the whole credential flow through what users run: `npm run web`'s built bundle
// (out/main/web.js) in its own Node process — Node's native ESM loader, which is what broke keytar
// while vitest's loader hid it — with the real gnome-keyring of scripts/with-keyring.sh, driven in
// Chromium and over its bridge: save with "remember in keychain" → restart the process → connected
// without typing the password → change it (a wrong one: the 401 message) → forget it → delete the
// profile → the keychain entry is gone. Then a locked keychain and no keychain at all, each in a
// private D-Bus session so the other test files' keyring is untouched.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { keytarBackend } from '../../electron/main/credentials';
import { accountOf } from '../../electron/main/services';
import type { KeychainStatus, ProfileView } from '../../shared/ipc/contract';
import { startWebProcess, webBundleMissing, type WebProcess } from '../support/web-process';
import { e2eSkipReason, launchChromium } from './harness';

const skip = e2eSkipReason() ?? webBundleMissing() ?? (process.env.SPYGLASS_TEST_KEYRING ? null : 'no test keyring: run under scripts/with-keyring.sh (npm test does)');
if (skip) console.warn(`[keychain-built] skipped: ${skip}`);

const PASSWORD = `kc-${Math.random().toString(36).slice(2)}`;
const keychain = keytarBackend();

describe.skipIf(skip !== null)(`keychain in the built app (npm run web, Chromium)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let browser: Browser;
  let page: Page;
  let web: WebProcess | null = null;
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-kc-'));
  const dataDir = join(tmp, 'data');
  let id = '';

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: PASSWORD });
    browser = await launchChromium(join(tmp, 'chromium'));
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  });
  afterAll(async () => {
    await web?.stop();
    await browser?.close();
    await devnet?.close();
    if (id) await keychain.delete(accountOf(id)).catch(() => false);
    rmSync(tmp, { recursive: true, force: true });
  });

  const tid = (t: string) => page.getByTestId(t);
  async function profiles(): Promise<ProfileView[]> {
    const r = await web!.call<{ profiles: ProfileView[] }>('profiles:list');
    if (!r.ok) throw new Error(r.error.message);
    return r.value.profiles;
  }
  async function connected(): Promise<void> {
    await page.waitForSelector('[data-testid="dashboard-state"][data-state="connected"], [data-testid="topbar-state"][data-state="connected"]', { timeout: 60_000 });
  }

  it('the keychain answers in the built app', async () => {
    web = await startWebProcess({ dataDir });
    const status = await web.call<KeychainStatus>('keychain:status');
    expect(status).toEqual({ ok: true, value: { available: true, reason: null, backend: 'Secret Service (libsecret)' } });
  });

  it('save with "remember in keychain": connected, the password in the keychain', async () => {
    await page.goto(web!.pageUrl);
    await tid('welcome').waitFor();
    await page.goto(`${web!.origin}/#/connect`);
    await tid('form-name').fill('Keychain node');
    await tid('form-node-url').fill(devnet.rpcUrl);
    await tid('form-auth-password').check();
    await tid('form-rpc-user').fill('alice');
    await tid('form-password').fill(PASSWORD);
    await tid('form-wallet').fill('watch');
    await tid('form-index-url').fill(devnet.indexUrl);
    await tid('form-remember-keychain').check();
    await tid('form-save').click();
    await connected();
    const [p] = await profiles();
    id = p!.id;
    expect(p!.passwordStorage).toBe('keychain');
    expect(await keychain.get(accountOf(id))).toBe(PASSWORD);
  });

  it('after a restart of the process: connected without typing the password', async () => {
    expect(await web!.stop()).toBe(0);
    web = await startWebProcess({ dataDir });
    await page.goto(web.pageUrl);
    await connected();
    expect(await page.getByTestId('unlock-form').count()).toBe(0);
    const state = await web.call<{ state: string }>('connection:status');
    expect(state.ok && state.value.state).toBe('connected');
  });

  it('change to a wrong password: kept in the keychain, the node says 401 in words; back to the right one', async () => {
    const input = { name: 'Keychain node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl };
    const saved = await web!.call('profiles:save', { id, profile: input, password: 'not-the-password', remember: 'keychain' });
    expect(saved.ok).toBe(true);
    expect(await keychain.get(accountOf(id))).toBe('not-the-password');
    await page.waitForSelector('[data-testid="topbar-state"][data-state="failed"]', { timeout: 30_000 });
    const state = await web!.call<{ state: string; error: { code: string; message: string } }>('connection:status');
    expect(state.ok && state.value.state).toBe('failed');
    if (state.ok) {
      expect(state.value.error.code).toBe('rpc.unauthorized');
      expect(state.value.error.message).toContain('401');
    }
    expect((await web!.call('profiles:save', { id, profile: input, password: PASSWORD, remember: 'keychain' })).ok).toBe(true);
    await connected();
  });

  it('"only for this session" removes the keychain copy; keychain again puts it back', async () => {
    const input = { name: 'Keychain node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl };
    expect((await web!.call('profiles:save', { id, profile: input, password: PASSWORD, remember: 'session' })).ok).toBe(true);
    expect(await keychain.get(accountOf(id))).toBeNull();
    expect((await profiles())[0]!.passwordStorage).toBe('session');
    expect((await web!.call('profiles:save', { id, profile: input, password: PASSWORD, remember: 'keychain' })).ok).toBe(true);
    expect(await keychain.get(accountOf(id))).toBe(PASSWORD);
  });

  it('delete the profile in Settings: gone from the list and from the keychain', async () => {
    await page.goto(`${web!.origin}/#/settings`);
    await tid('profiles-table').waitFor();
    await tid('profile-delete').click();
    await tid('profile-delete-confirm').click();
    await tid('profiles-empty').waitFor();
    expect(await profiles()).toEqual([]);
    expect(await keychain.get(accountOf(id))).toBeNull();
    expect(web!.stderr()).toBe('');
  });

  /** A private D-Bus session whose keyring is made by `setup` (bash), then the built app in it. */
  async function inPrivateSession(setup: string, fn: (w: WebProcess) => Promise<void>): Promise<void> {
    const home = mkdtempSync(join(tmp, 'session-'));
    const script = join(home, 'session.sh');
    writeFileSync(script, `#!/bin/bash\nexport HOME=${home} XDG_RUNTIME_DIR=${home}/run XDG_DATA_HOME=${home}/data XDG_CONFIG_HOME=${home}/config\nmkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"\n${setup}\nexec "$@"\n`, { mode: 0o755 });
    const w = await startWebProcess({ dataDir: join(home, 'app'), wrap: ['dbus-run-session', '--', script], env: { ...process.env, DISPLAY: '' } });
    try {
      await fn(w);
    } finally {
      await w.stop();
    }
  }

  const profile = () => ({ name: 'Node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl });

  it('a locked keychain: the save says so, and nothing is saved half-way', async () => {
    const lock = [
      "printf 'pw' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1",
      'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null 2>&1',
    ].join('\n');
    await inPrivateSession(lock, async (w) => {
      const r = await w.call('profiles:save', { profile: profile(), password: PASSWORD, remember: 'keychain' });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('keychain.unavailable');
        expect(r.error.message).toBe('The password could not be saved: Secret Service (libsecret) is locked. Unlock your keychain and try again, or keep the password for this session only.');
      }
      expect(await w.call('profiles:list')).toEqual({ ok: true, value: { profiles: [], activeId: null } });
      // Session-only still works.
      expect((await w.call('profiles:save', { profile: profile(), password: PASSWORD, remember: 'session' })).ok).toBe(true);
    });
  });

  it('no keychain at all: keychain:status says why, a keychain save is refused with that reason', async () => {
    await inPrivateSession('unset DBUS_SESSION_BUS_ADDRESS', async (w) => {
      const status = await w.call<KeychainStatus>('keychain:status');
      expect(status.ok && status.value.available).toBe(false);
      const reason = status.ok ? status.value.reason : '';
      expect(reason).toMatch(/^The OS keychain could not be reached \(Secret Service \(libsecret\): .+\)\. Passwords can be kept for this session only\.$/);
      const r = await w.call('profiles:save', { profile: profile(), password: PASSWORD, remember: 'keychain' });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code: 'keychain.unavailable', message: reason });
    });
  });
});
