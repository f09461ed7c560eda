// The desktop shell's Electron-free parts: bitcoin: links from the OS (argv, the inbox the window
// takes from), the application menu's data, and the remembered window size and place (a real file).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { menuTemplate, type MenuSpec } from '../../electron/main/menu';
import { bitcoinUriFromArgv, UriInbox } from '../../electron/main/uri';
import { DEFAULT_WINDOW, fitWindowState, loadWindowState, MIN_WINDOW, saveWindowState } from '../../electron/main/window-state';
import { createApp } from '../../electron/main/app';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-shell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bitcoin: links', () => {
  it('finds the link among command-line arguments (Windows and Linux pass it as one)', () => {
    expect(bitcoinUriFromArgv(['/opt/Spyglass/spyglass', '--no-sandbox', 'bitcoin:bcrt1qxyz?amount=1'])).toBe('bitcoin:bcrt1qxyz?amount=1');
    expect(bitcoinUriFromArgv(['C:\\Spyglass.exe', 'BITCOIN:BC1QXYZ'])).toBe('BITCOIN:BC1QXYZ');
    expect(bitcoinUriFromArgv(['/usr/bin/spyglass', '.', '--flag'])).toBeNull();
    expect(bitcoinUriFromArgv(['x', `bitcoin:${'a'.repeat(5000)}`])).toBeNull();
  });

  it('the inbox keeps the latest link until the window takes it, once, and says one is waiting', () => {
    let told = 0;
    const inbox = new UriInbox(() => told++);
    expect(inbox.take()).toEqual({ uri: null });
    expect(inbox.put('https://example.com/')).toBe(false);
    expect(told).toBe(0);
    expect(inbox.put(' bitcoin:a ')).toBe(true);
    expect(inbox.put('bitcoin:b')).toBe(true);
    expect(told).toBe(2);
    expect(inbox.take()).toEqual({ uri: 'bitcoin:b' });
    expect(inbox.take()).toEqual({ uri: null });
  });

  it('uri:take through the IPC dispatch, and the uri:opened event', async () => {
    const app = createApp({ dataDir: join(dir, 'app'), info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null });
    try {
      const events: unknown[] = [];
      app.services.on('uri:opened', (p) => events.push(p));
      app.uris.put('bitcoin:bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef?amount=0.5');
      expect(events).toEqual([{}]);
      expect(await app.dispatch('uri:take', {})).toEqual({ ok: true, value: { uri: 'bitcoin:bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef?amount=0.5' } });
      expect(await app.dispatch('uri:take', {})).toEqual({ ok: true, value: { uri: null } });
      const refused = await app.dispatch('uri:take', { uri: 'x' });
      expect(refused.ok).toBe(false);
    } finally {
      await app.close();
    }
  });
});

function flatten(items: MenuSpec[]): MenuSpec[] {
  return items.flatMap((i) => [i, ...flatten(i.submenu ?? [])]);
}

describe('application menu', () => {
  for (const platform of ['darwin', 'win32', 'linux'] as const) {
    it(`${platform}: usual roles, Spyglass's commands, no shortcut used twice`, () => {
      const items = flatten(menuTemplate({ platform, appName: 'Spyglass', devTools: false }));
      const roles = new Set(items.map((i) => i.role).filter(Boolean));
      for (const r of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit', 'minimize', 'togglefullscreen', 'zoomIn', 'zoomOut', 'resetZoom', 'about']) expect(roles.has(r as never), r).toBe(true);
      expect(roles.has('toggleDevTools')).toBe(false);
      const accelerators = items.map((i) => i.accelerator).filter(Boolean);
      expect(new Set(accelerators).size).toBe(accelerators.length);
      const actions = new Set(items.map((i) => i.action).filter(Boolean));
      expect([...actions].sort()).toEqual(['go:balances', 'go:dashboard', 'go:history', 'go:labels', 'go:psbt', 'go:reconcile', 'go:settings', 'refresh']);
      expect(items.some((i) => i.accelerator === 'CmdOrCtrl+,' && i.action === 'go:settings')).toBe(true);
      const top = menuTemplate({ platform, appName: 'Spyglass', devTools: false }).map((m) => m.label ?? m.role);
      expect(top).toEqual(platform === 'darwin' ? ['Spyglass', 'File', 'Edit', 'View', 'Go', 'window', 'help'] : ['File', 'Edit', 'View', 'Go', 'window', 'help']);
    });
  }

  it('developer tools only when asked (unpackaged)', () => {
    const items = flatten(menuTemplate({ platform: 'linux', appName: 'Spyglass', devTools: true }));
    expect(items.some((i) => i.role === 'toggleDevTools')).toBe(true);
  });
});

describe('window size and place', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1040 }];
  const twoScreens = [...screen, { x: 1920, y: 0, width: 1280, height: 1024 }];

  it('defaults when nothing was saved, or garbage was', () => {
    expect(fitWindowState(null, screen)).toEqual(DEFAULT_WINDOW);
    expect(fitWindowState({ width: 'wide', x: 1.5, y: null, maximized: 'yes' }, screen)).toEqual(DEFAULT_WINDOW);
  });

  it('keeps a place on a display, drops one whose monitor is gone', () => {
    expect(fitWindowState({ x: 2000, y: 100, width: 1000, height: 700, maximized: true }, twoScreens)).toEqual({ x: 2000, y: 100, width: 1000, height: 700, maximized: true });
    expect(fitWindowState({ x: 2000, y: 100, width: 1000, height: 700, maximized: false }, screen)).toEqual({ width: 1000, height: 700, maximized: false });
    // The title bar above the top of the screen cannot be grabbed: centred instead.
    expect(fitWindowState({ x: 100, y: -200, width: 1000, height: 700 }, screen)).toEqual({ width: 1000, height: 700, maximized: false });
  });

  it('never smaller than the minimum, never larger than the largest display', () => {
    expect(fitWindowState({ width: 100, height: 100 }, screen)).toMatchObject({ width: MIN_WINDOW.width, height: MIN_WINDOW.height });
    expect(fitWindowState({ width: 5000, height: 4000 }, screen)).toMatchObject({ width: 1920, height: 1040 });
  });

  it('saves and reads back through a real file; an unreadable one gives the defaults', () => {
    const file = join(dir, 'window-state.json');
    saveWindowState(file, { x: 40, y: 30, width: 1300, height: 900, maximized: false });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ x: 40, y: 30, width: 1300, height: 900, maximized: false });
    expect(loadWindowState(file, screen)).toEqual({ x: 40, y: 30, width: 1300, height: 900, maximized: false });
    writeFileSync(file, '{ not json');
    expect(loadWindowState(file, screen)).toEqual(DEFAULT_WINDOW);
    expect(loadWindowState(join(dir, 'absent.json'), screen)).toEqual(DEFAULT_WINDOW);
  });
});
