// Smoke test of the real app in Electron, with Playwright's _electron driver, started the way
// `npm start` starts it (the Electron binary on the project folder; scripts/start.mjs installs the
// binary). It runs where an Electron binary exists (GitHub Actions: .ci/run and the desktop jobs
// install it) and says why it skips otherwise: here the binary cannot be downloaded, so the Chromium
// e2e suite covers the renderer through the loopback bridge instead.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SCREENSHOTS } from './harness';

// Read node_modules/electron/path.txt ourselves: require('electron') would try to download the binary.
function electronBinary(): string | null {
  if (process.env.ELECTRON_EXEC_PATH) return existsSync(process.env.ELECTRON_EXEC_PATH) ? process.env.ELECTRON_EXEC_PATH : null;
  const pkg = join(ROOT, 'node_modules/electron');
  try {
    const p = join(pkg, 'dist', readFileSync(join(pkg, 'path.txt'), 'utf8').trim());
    return existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
const mainBuilt = existsSync(join(ROOT, 'out/main/index.js'));
const reason = !binary
  ? 'no Electron binary on this machine (npm run electron:install could not download it; with internet access it runs)'
  : !mainBuilt
    ? 'the app is not built (npm run build)'
    : null;
if (reason) console.warn(`[electron-smoke] skipped: ${reason}`);

const REGTEST_ADDRESS = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';

describe.skipIf(reason !== null)(`Electron app smoke${reason ? ` — skipped: ${reason}` : ''}`, () => {
  it('starts like npm start, opens a sandboxed window on the demo balances, with the menu, native addons and a bitcoin: link', async () => {
    const { _electron } = await import('playwright-core');
    const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-electron-'));
    const launch = () =>
      _electron.launch({
        executablePath: binary!,
        // The project folder, as npm start passes it (package.json "main" is out/main/index.js), and a
        // link as the OS passes one. Linux CI runners forbid the user namespaces Chromium's sandbox needs.
        args: [ROOT, ...(process.platform === 'linux' ? ['--no-sandbox'] : []), `bitcoin:${REGTEST_ADDRESS}?amount=0.25&label=Smoke`],
        env: { ...process.env, SPYGLASS_DATA_DIR: dataDir },
      });
    let app = await launch();
    try {
      const win = await app.firstWindow();
      // The link given on the command line opens the payment request.
      await win.waitForSelector('[data-testid="pay-request"]', { timeout: 60_000 });
      expect(await win.getByTestId('pay-amount-value').getAttribute('data-sats')).toBe('25000000');
      // The demo (no node configured): its balances, from the SQLite snapshot a refresh writes.
      await win.getByTestId('nav-balances').click();
      await win.getByTestId('balances-refresh').first().click();
      await win.waitForSelector('[data-testid="balances-row"]', { timeout: 60_000 });
      await win.screenshot({ path: join(SCREENSHOTS, '00-electron-demo-balances.png') });
      const exposed = await win.evaluate('({ api: typeof window.api, require: typeof window.require, process: typeof window.process })');
      expect(exposed).toEqual({ api: 'object', require: 'undefined', process: 'undefined' });
      const main = await app.evaluate(({ app: a, Menu }) => ({
        napi: Number(process.versions.napi),
        node: process.versions.node,
        userData: a.getPath('userData'),
        menu: Menu.getApplicationMenu()?.items.map((i) => i.label) ?? [],
      }));
      // Node 24 inside Electron 45, with the Node-API level better-sqlite3 and keytar are built for.
      expect(main.node.split('.')[0]).toBe('24');
      expect(main.napi).toBeGreaterThanOrEqual(10);
      expect(main.userData).toBe(dataDir);
      expect(main.menu).toEqual(expect.arrayContaining(['Edit', 'View', 'Go']));
      expect(existsSync(join(dataDir, 'spyglass.sqlite'))).toBe(true);
    } finally {
      await app.close();
    }
    // Size and place are remembered.
    const state = JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8')) as { width: number; height: number };
    expect(state.width).toBeGreaterThan(0);
    app = await launch();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
