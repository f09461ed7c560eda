// E2E rig: the real main-process services behind the loopback bridge (electron/main/web.ts), the built
// renderer (out/renderer, from `npm run build`), the devnet on loopback, and Debian's Chromium driven by
// playwright-core. Only the Electron runtime is missing (no binary can be downloaded here); the bridge
// carries the same IPC channels the preload does.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startWeb, type WebApp } from '../../electron/main/web';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const STATIC_DIR = join(ROOT, 'out/renderer');
/**
 * Where screenshots go: test-results/screenshots (ignored by git) on every run, so `npm test` leaves the
 * tree clean; the committed set the README shows (test/e2e/__screenshots__) only with `npm run screenshots`.
 */
export const SCREENSHOTS = process.env.SPYGLASS_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'test/e2e/__screenshots__') : join(ROOT, 'test-results/screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the e2e suite cannot run here, or null when it can. */
export function e2eSkipReason(): string | null {
  if (!existsSync(CHROMIUM)) return `Chromium not found at ${CHROMIUM} (apt install chromium, or set CHROMIUM_PATH)`;
  if (!existsSync(join(STATIC_DIR, 'index.html'))) return 'the renderer is not built: run `npm run build` first (npm test does)';
  return null;
}

/** Debian's Chromium, headless, with its profile in `profileDir` (kept off the network: no background fetches). */
export function launchChromium(profileDir: string, extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', ...extraArgs],
    env: { ...process.env, HOME: profileDir, XDG_CONFIG_HOME: join(profileDir, 'config'), XDG_CACHE_HOME: join(profileDir, 'cache') },
  });
}

export interface Rig {
  web: WebApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  dataDir: string;
  /** Every /ipc/* response body and pushed event the page received, for secret checks. */
  traffic(): Promise<string[]>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * `dataDir`: reuse a data folder (an app restart); it is then left in place on close. `fakeCamera`: a
 * Y4M video file Chromium's fake camera plays to getUserMedia (written before the page opens the camera).
 */
export async function startRig(opts: { autoDemo?: boolean; dataDir?: string; fakeCamera?: string } = {}): Promise<Rig> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'spyglass-e2e-'));
  const profileDir = mkdtempSync(join(tmpdir(), 'spyglass-chromium-'));
  const web = await startWeb({ dataDir, staticDir: STATIC_DIR, autoDemo: opts.autoDemo ?? false });
  await web.app.services.start();
  const camera = opts.fakeCamera ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${opts.fakeCamera}`] : [];
  const browser = await launchChromium(profileDir, camera);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  const ipcTraffic: string[] = [];
  page.on('response', (res) => {
    const url = res.url();
    if (url.includes('/ipc/')) void res.text().then((t) => ipcTraffic.push(t), () => {});
  });
  // SSE frames are not visible as responses; record them in the page.
  await page.addInitScript(`
    window.__events = [];
    const Orig = window.EventSource;
    window.EventSource = class extends Orig {
      constructor(url, init) {
        super(url, init);
        this.addEventListener('connection:changed', (e) => window.__events.push(e.data));
      }
    };
  `);
  page.on('pageerror', (e) => ipcTraffic.push(`pageerror: ${e.message}`));
  await page.goto(web.bridge.pageUrl);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    web,
    browser,
    context,
    page,
    dataDir,
    async traffic() {
      const events = (await page.evaluate('window.__events || []')) as string[];
      return [...ipcTraffic, ...events];
    },
    async screenshot(name) {
      const file = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await browser.close();
      await web.close();
      rmSync(profileDir, { recursive: true, force: true });
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The whole text of an element, exactly: a wallet name must not match the switcher's
 * "name…" shown while a switch is still under way.
 */
export function exactText(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}
