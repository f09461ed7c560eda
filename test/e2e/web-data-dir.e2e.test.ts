// `npm run web` as a newcomer runs it: the built bundle (out/main/web.js) in its own process. Its data
// folder follows `npm start`'s rule (SPYGLASS_DATA_DIR, or --data-dir DIR), so two servers with two
// folders keep two sets of profiles; a first run opens on the Welcome screen (Connect your node / Try
// the demo) in Chromium, and only `--demo` opens the demo by itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionState, ProfileView } from '../../shared/ipc/contract';
import { ROOT, startWebProcess, WEB_BUNDLE, webBundleMissing, type WebProcess } from '../support/web-process';
import { e2eSkipReason, launchChromium } from './harness';

const skip = webBundleMissing() ?? e2eSkipReason();
/**
 * Each case starts one or two Node processes (and Chromium): a guard against a hang, generous because
 * a start on a machine with every core busy has taken over a minute. Nothing here measures time.
 */
const CASE_LIMIT_MS = 300_000;

describe.skipIf(skip !== null)(`npm run web: its data folder, first run and --demo${skip ? ` — skipped: ${skip}` : ''}`, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-web-dir-'));
  /** A HOME and config folder of its own: the default data folder lands here, never in the real one. */
  const home = join(tmp, 'home');
  const xdg = join(home, '.config');
  const defaultDir = join(xdg, 'Spyglass-web');
  const running: WebProcess[] = [];
  let browser: Browser;

  const envWith = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: xdg, ...vars };
    if (vars['SPYGLASS_DATA_DIR'] === undefined) delete env['SPYGLASS_DATA_DIR'];
    delete env['INIT_CWD'];
    return env;
  };
  const start = async (opts: { dataDir?: string; args?: string[]; env?: Record<string, string> }): Promise<WebProcess> => {
    const w = await startWebProcess({ ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}), args: opts.args ?? [], env: envWith(opts.env) });
    running.push(w);
    return w;
  };
  const stop = async (w: WebProcess): Promise<void> => {
    running.splice(running.indexOf(w), 1);
    expect(await w.stop()).toBe(0);
  };
  const ok = async <T,>(w: WebProcess, channel: string, payload?: unknown): Promise<T> => {
    const r = await w.call<T>(channel, payload);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`);
    return r.value;
  };
  const profiles = async (w: WebProcess): Promise<ProfileView[]> => (await ok<{ profiles: ProfileView[] }>(w, 'profiles:list')).profiles;
  /** A profile that needs no keychain (cookie auth): saving it writes only the data folder's SQLite file. */
  const saveProfile = (w: WebProcess, name: string): Promise<ProfileView> =>
    ok<ProfileView>(w, 'profiles:save', { profile: { name, nodeUrl: 'http://127.0.0.1:18443/', auth: 'cookie', rpcUser: '', cookiePath: join(tmp, 'no-node', '.cookie'), wallet: '', indexUrl: '' }, remember: 'session' });

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    browser = await launchChromium(join(tmp, 'chromium'));
  }, CASE_LIMIT_MS);
  afterEach(async () => {
    for (const w of running.splice(0)) await w.stop();
  }, CASE_LIMIT_MS);
  afterAll(async () => {
    await browser?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('SPYGLASS_DATA_DIR: the SQLite file and the log land there, not in the default folder', async () => {
    const dir = join(tmp, 'env-dir');
    const w = await start({ env: { SPYGLASS_DATA_DIR: dir } });
    expect(existsSync(join(dir, 'spyglass.sqlite'))).toBe(true);
    expect(existsSync(join(dir, 'logs', 'main.log'))).toBe(true);
    expect(existsSync(defaultDir)).toBe(false);
    await saveProfile(w, 'Kept in env-dir');
    await stop(w);
    // the same folder again: the same profiles
    const again = await start({ env: { SPYGLASS_DATA_DIR: dir } });
    expect((await profiles(again)).map((p) => p.name)).toEqual(['Kept in env-dir']);
  }, CASE_LIMIT_MS);

  it('--data-dir DIR wins over SPYGLASS_DATA_DIR', async () => {
    const arg = join(tmp, 'arg-dir');
    const env = join(tmp, 'not-this-one');
    await start({ dataDir: arg, env: { SPYGLASS_DATA_DIR: env } });
    expect(existsSync(join(arg, 'spyglass.sqlite'))).toBe(true);
    expect(existsSync(env)).toBe(false);
  }, CASE_LIMIT_MS);

  it('two servers with two folders, side by side: two separate sets of profiles', async () => {
    const a = await start({ env: { SPYGLASS_DATA_DIR: join(tmp, 'two-a') } });
    const b = await start({ dataDir: join(tmp, 'two-b') });
    await saveProfile(a, 'Only in A');
    await saveProfile(b, 'Only in B');
    expect((await profiles(a)).map((p) => p.name)).toEqual(['Only in A']);
    expect((await profiles(b)).map((p) => p.name)).toEqual(['Only in B']);
  }, CASE_LIMIT_MS);

  it('neither: Spyglass-web in the config folder (XDG_CONFIG_HOME)', async () => {
    await start({});
    expect(existsSync(join(defaultDir, 'spyglass.sqlite'))).toBe(true);
  }, CASE_LIMIT_MS);

  it('a bad command line stops at once with what is wrong, before anything is written', () => {
    for (const [args, message] of [
      [['--data-dir'], '--data-dir needs a folder: --data-dir DIR'],
      [['--demoo'], 'unknown option "--demoo"'],
    ] as const) {
      const r = spawnSync(process.execPath, [WEB_BUNDLE, ...args], { cwd: ROOT, env: envWith({ XDG_CONFIG_HOME: join(tmp, 'bad-args') }), encoding: 'utf8', timeout: CASE_LIMIT_MS / 2 });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`spyglass web: ${message}`);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(tmp, 'bad-args'))).toBe(false);
  }, CASE_LIMIT_MS);

  async function openPage(w: WebProcess): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(w.pageUrl);
    return page;
  }

  it('first run (no profile): no demo started; the page shows Welcome with Connect your node and Try the demo', async () => {
    const w = await start({ dataDir: join(tmp, 'first-run') });
    expect(await ok<ConnectionState>(w, 'connection:status')).toEqual({ state: 'none' });
    const page = await openPage(w);
    try {
      await page.getByTestId('welcome').waitFor({ timeout: 120_000 });
      expect((await page.getByTestId('welcome-demo').textContent())?.trim()).toBe('Try the demo');
      expect(await page.getByTestId('welcome-demo').isEnabled()).toBe(true);
      expect((await page.getByTestId('welcome-connect').textContent())?.trim()).toBe('Connect your node');
      // still nothing started or saved behind the page's back
      expect(await profiles(w)).toEqual([]);
      expect(await ok<ConnectionState>(w, 'connection:status')).toEqual({ state: 'none' });
    } finally {
      await page.close();
    }
  }, CASE_LIMIT_MS);

  it('--demo: connected to the built-in demo devnet at once, its page on the dashboard', async () => {
    const w = await start({ dataDir: join(tmp, 'demo'), args: ['--demo'] });
    // startDemo finished before the URL was printed
    const state = await ok<ConnectionState>(w, 'connection:status');
    expect(state.state).toBe('connected');
    const [demo] = await profiles(w);
    expect(demo).toMatchObject({ isDemo: true, name: 'Demo (built-in regtest devnet)' });
    const page = await openPage(w);
    try {
      await page.waitForSelector('[data-testid="topbar-state"][data-state="connected"]', { timeout: 120_000 });
      expect(await page.getByTestId('welcome').count()).toBe(0);
    } finally {
      await page.close();
    }
  }, CASE_LIMIT_MS);
});
