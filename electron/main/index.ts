// The Electron shell: the only file in main that imports 'electron'. It applies the security settings
// from security.ts, routes the preload's channels to the same dispatch the bridge uses, forwards events,
// and owns the window lifecycle. No logic of its own — that lives in the Electron-free services.
import { app, BrowserWindow, ipcMain, session, shell, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHANNEL_NAMES, CHANNEL_PREFIX, EVENT_NAMES, EVENT_PREFIX } from '../../shared/ipc/names';
import { createApp, type SpyglassApp } from './app';
import { startDemoDevnet } from './demo';
import {
  allowNavigation,
  allowPermission,
  HARDENING_SWITCHES,
  isTrustedSender,
  secureWebPreferences,
  securityHeaders,
  windowOpenPolicy,
  type AppOrigin,
} from './security';

const here = fileURLToPath(new URL('.', import.meta.url));
const devServerUrl = process.env.ELECTRON_RENDERER_URL;
const rendererFile = join(here, '../renderer/index.html');
const origin: AppOrigin = { rendererUrl: devServerUrl ?? new URL(`file://${rendererFile}`).href };

app.enableSandbox();
for (const [name, value] of HARDENING_SWITCHES) app.commandLine.appendSwitch(name, value);

let spyglass: SpyglassApp | null = null;
let win: BrowserWindow | null = null;

function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (e, url) => {
    if (!allowNavigation(url, origin)) e.preventDefault();
  });
  contents.on('will-redirect', (e, url) => {
    if (!allowNavigation(url, origin)) e.preventDefault();
  });
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => windowOpenPolicy());
}

function createWindow(): void {
  win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 820,
    minHeight: 560,
    title: 'Spyglass',
    show: false,
    webPreferences: secureWebPreferences(join(here, '../preload/index.cjs'), { devTools: !app.isPackaged }),
  });
  win.once('ready-to-show', () => win?.show());
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererFile);
}

function trusted(e: IpcMainInvokeEvent): boolean {
  const frame = e.senderFrame;
  return isTrustedSender({ frameUrl: frame?.url ?? null, isMainFrame: frame !== null && frame === e.sender.mainFrame }, origin);
}

app.on('web-contents-created', (_e, contents) => lockDown(contents));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });

  void app.whenReady().then(async () => {
    const ses = session.defaultSession;
    ses.setPermissionRequestHandler((_wc, permission, callback) => callback(allowPermission(permission)));
    ses.setPermissionCheckHandler((_wc, permission) => allowPermission(permission));
    // No remote content: the renderer may load only its own files (or the dev server).
    ses.webRequest.onBeforeRequest((details, callback) => {
      const ok = details.url.startsWith('devtools://') || details.url.startsWith('data:') || allowNavigation(details.url, origin) || details.url.startsWith(new URL('.', origin.rendererUrl).href);
      callback({ cancel: !ok });
    });
    ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: { ...details.responseHeaders, ...securityHeaders() } }));

    spyglass = createApp({
      dataDir: app.getPath('userData'),
      info: { version: app.getVersion(), platform: process.platform, bridge: false },
      startDemo: startDemoDevnet,
      // `npm start` (unpackaged) opens on the demo when no node is configured; the installed app asks.
      autoDemo: !app.isPackaged || process.env.SPYGLASS_DEMO === '1',
    });
    const s = spyglass;
    for (const channel of CHANNEL_NAMES) {
      ipcMain.handle(CHANNEL_PREFIX + channel, (e, payload: unknown) => {
        if (!trusted(e)) {
          s.log.warn(`ipc ${channel} refused: untrusted sender`);
          return { ok: false, error: { code: 'input.invalid', message: 'IPC from an untrusted frame was refused.' } };
        }
        return s.dispatch(channel, payload);
      });
    }
    for (const event of EVENT_NAMES) s.services.on(event, (payload) => win?.webContents.send(EVENT_PREFIX + event, payload));
    createWindow();
    void s.services.start();

    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let closing = false;
  app.on('will-quit', (e) => {
    if (closing || !spyglass) return;
    closing = true;
    e.preventDefault();
    void spyglass.close().finally(() => app.quit());
  });
}

// Links in the app are never opened in-app; this export lets a future "open in block explorer" go
// through the OS browser explicitly.
export const openExternal = (url: string): Promise<void> => shell.openExternal(url);
