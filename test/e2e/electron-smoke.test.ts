// Smoke test of the real Electron shell with Playwright's _electron driver. It runs where an Electron
// binary exists (npm ci without ELECTRON_SKIP_BINARY_DOWNLOAD on a machine with internet) and says
// why it skipped otherwise: here no Electron binary can be downloaded, so the Chromium e2e suite
// covers the renderer through the loopback bridge instead.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './harness';

// Read node_modules/electron/path.txt ourselves: require('electron') would try to download the binary.
function electronBinary(): string | null {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, process.platform === 'win32' ? 'electron.exe' : 'electron');
    return existsSync(p) ? p : null;
  }
  const pkg = join(ROOT, 'node_modules/electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const p = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(p) ? p : null;
}

const binary = electronBinary();
const mainBuilt = existsSync(join(ROOT, 'out/main/index.js'));
const reason = !binary
  ? 'no Electron binary on this machine (it cannot be downloaded here; install with internet access to run this test)'
  : !mainBuilt
    ? 'the app is not built (npm run build)'
    : null;
if (reason) console.warn(`[electron-smoke] skipped: ${reason}`);

describe.skipIf(reason !== null)(`Electron shell smoke${reason ? ` — skipped: ${reason}` : ''}`, () => {
  it('opens a sandboxed window on the demo and exposes only window.api', async () => {
    const { _electron } = await import('playwright-core');
    const userData = mkdtempSync(join(tmpdir(), 'spyglass-electron-'));
    const app = await _electron.launch({
      executablePath: binary!,
      args: [join(ROOT, 'out/main/index.js'), `--user-data-dir=${userData}`, '--no-sandbox'],
      env: { ...process.env, SPYGLASS_DEMO: '1' },
    });
    try {
      const win = await app.firstWindow();
      await win.waitForSelector('[data-testid="dashboard-state"][data-state="connected"]', { timeout: 60_000 });
      const exposed = await win.evaluate('({ api: typeof window.api, require: typeof window.require, process: typeof window.process })');
      expect(exposed).toEqual({ api: 'object', require: 'undefined', process: 'undefined' });
    } finally {
      await app.close();
      rmSync(userData, { recursive: true, force: true });
    }
  });
});
