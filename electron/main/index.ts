// The Electron shell: the only file in main that imports 'electron'. It applies the security settings
// from security.ts, routes the preload's channels to the same dispatch the bridge uses, forwards events,
// and owns the window lifecycle. No logic of its own — that lives in the Electron-free services.
// Started as `Spyglass --cli …` it opens no window: it runs the command line (cli/spyglass.ts) and exits.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, screen, session, shell, type IpcMainInvokeEvent, type MenuItemConstructorOptions, type OpenDialogOptions, type WebContents } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHANNEL_NAMES, CHANNEL_PREFIX, EVENT_NAMES, EVENT_PREFIX } from '../../shared/ipc/names';
import { createApp, type SpyglassApp } from './app';
import { cliArgsOf } from './cli-argv';
import { dataDirOverride } from './data-dir';
import { startDemoDevnet } from './demo';
import { menuTemplate, type MenuSpec } from './menu';
import { bitcoinUriFromArgv } from './uri';
import { workerScriptBeside } from './psbt/runner';
import { importWorkerScriptBeside } from './watch/import-runner';
import { scanWorkerScriptBeside } from './psbt/scan-runner';
import { loadWindowState, MIN_WINDOW, saveWindowState } from './window-state';
import {
  allowNavigation,
  allowPermission,
  type PermissionDetails,
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

let spyglass: SpyglassApp | null = null;
let win: BrowserWindow | null = null;
/** A link the OS handed over before the services existed (macOS sends open-url before ready). */
let pendingUri: string | null = null;

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
  const stateFile = join(app.getPath('userData'), 'window-state.json');
  const state = loadWindowState(stateFile, screen.getAllDisplays().map((d) => d.workArea));
  win = new BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: MIN_WINDOW.width,
    minHeight: MIN_WINDOW.height,
    title: 'Spyglass',
    show: false,
    webPreferences: secureWebPreferences(join(here, '../preload/index.cjs'), { devTools: !app.isPackaged }),
  });
  const w = win;
  w.once('ready-to-show', () => {
    if (state.maximized) w.maximize();
    w.show();
  });
  // The size and place to reopen at: the normal (unmaximized) bounds, and whether it was maximized.
  w.on('close', () => {
    try {
      saveWindowState(stateFile, { ...w.getNormalBounds(), maximized: w.isMaximized() });
    } catch (e) {
      spyglass?.log.warn(`window state not saved: ${(e as Error).message}`);
    }
  });
  w.on('closed', () => {
    if (win === w) win = null;
  });
  if (devServerUrl) void w.loadURL(devServerUrl);
  else void w.loadFile(rendererFile);
}

/** Electron's menu items from menu.ts's data: Spyglass's own items become `app:menu` events. */
function toElectronMenu(items: MenuSpec[]): MenuItemConstructorOptions[] {
  return items.map(({ action, submenu, ...item }) => ({
    ...item,
    ...(submenu ? { submenu: toElectronMenu(submenu) } : {}),
    ...(action ? { click: () => spyglass?.services.emit('app:menu', { action }) } : {}),
  }));
}

/** A bitcoin: link: kept for the window, which is brought to the front. */
function openUri(uri: string): void {
  if (!spyglass) {
    pendingUri = uri;
    return;
  }
  if (!spyglass.uris.put(uri)) spyglass.log.warn('ignored a link that is not a bitcoin: URI');
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
}

/**
 * The OS's file dialog for the signer program (signer:pick-program, #30): only a path comes back, which
 * the signer service checks as a typed one before keeping it; it never chooses an argument.
 */
async function pickSignerProgram(): Promise<string | null> {
  const options: OpenDialogOptions = {
    title: 'Choose the signer program (HWI)',
    buttonLabel: 'Use this program',
    properties: ['openFile', 'dontAddToRecent'],
    ...(process.platform === 'win32' ? { filters: [{ name: 'Programs', extensions: ['exe'] }, { name: 'All files', extensions: ['*'] }] } : {}),
  };
  const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return r.canceled || r.filePaths.length !== 1 ? null : (r.filePaths[0] ?? null);
}

function trusted(e: IpcMainInvokeEvent): boolean {
  const frame = e.senderFrame;
  return isTrustedSender({ frameUrl: frame?.url ?? null, isMainFrame: frame !== null && frame === e.sender.mainFrame }, origin);
}

/** `Spyglass --cli …` (./cli-argv.ts): the command line, no window, no single-instance lock; exits with its code. */
async function runCli(args: string[]): Promise<void> {
  app.dock?.hide();
  let code = 1;
  try {
    const { main } = await import('../../cli/spyglass');
    code = await main(args);
  } catch (e) {
    process.stderr.write(`spyglass: ${(e as Error)?.message ?? String(e)}\n`);
  }
  // a pipe is written asynchronously on macOS: everything printed is flushed before the process ends
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((done) => s.write('', () => done()))));
  app.exit(code);
}

function startWindowApp(): void {
  // A separate data folder (tests, a second profile set): `--data-dir DIR` or SPYGLASS_DATA_DIR, read as
  // `npm run web` reads them (./data-dir.ts). Before the single-instance lock, which is kept per data folder.
  try {
    const dataDir = dataDirOverride(process.argv, process.env);
    if (dataDir) app.setPath('userData', dataDir.dir);
  } catch (e) {
    process.stderr.write(`Spyglass: ${(e as Error).message}\n`);
    process.exit(2);
  }

  app.enableSandbox();
  for (const [name, value] of HARDENING_SWITCHES) app.commandLine.appendSwitch(name, value);
  pendingUri = bitcoinUriFromArgv(process.argv);

  app.on('web-contents-created', (_e, contents) => lockDown(contents));

  if (!app.requestSingleInstanceLock()) {
    app.quit();
  } else {
    // A second start (Windows, Linux: how a clicked bitcoin: link arrives) focuses this window instead.
    app.on('second-instance', (_e, argv) => {
      const uri = bitcoinUriFromArgv(argv);
      if (uri) openUri(uri);
      else if (win) {
        if (win.isMinimized()) win.restore();
        win.focus();
      }
    });
    // macOS delivers links as open-url, possibly before ready.
    app.on('open-url', (e, url) => {
      e.preventDefault();
      openUri(url);
    });
    // The installed app answers bitcoin: links (electron-builder registers the scheme on macOS and Linux;
    // Windows needs this call). Not in development, where it would register the bare Electron binary.
    if (app.isPackaged) app.setAsDefaultProtocolClient('bitcoin');

    void app.whenReady().then(async () => {
      const ses = session.defaultSession;
      ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(allowPermission(permission, details as PermissionDetails, origin)));
      ses.setPermissionCheckHandler((_wc, permission, requestingOrigin, details) => allowPermission(permission, { ...(details as PermissionDetails), requestingOrigin }, origin));
      // No remote content: the renderer may load only its own files (or the dev server).
      ses.webRequest.onBeforeRequest((details, callback) => {
        const ok = details.url.startsWith('devtools://') || details.url.startsWith('data:') || allowNavigation(details.url, origin) || details.url.startsWith(new URL('.', origin.rendererUrl).href);
        callback({ cancel: !ok });
      });
      ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: { ...details.responseHeaders, ...securityHeaders(devServerUrl ? process.env.SPYGLASS_DEV_STYLE_NONCE : undefined) } }));

      spyglass = createApp({
        dataDir: app.getPath('userData'),
        info: { version: app.getVersion(), platform: process.platform, bridge: false },
        startDemo: startDemoDevnet,
        psbtWorker: workerScriptBeside(import.meta.url),
        importWorker: importWorkerScriptBeside(import.meta.url),
        scanWorker: scanWorkerScriptBeside(import.meta.url),
        // `npm start` (unpackaged) opens on the demo when no node is configured; the installed app asks.
        autoDemo: !app.isPackaged || process.env.SPYGLASS_DEMO === '1',
        // a bundled HWI is looked for in process.resourcesPath (signer/program.ts)
        signer: { pickProgram: pickSignerProgram },
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
      // Payment notices as OS notifications (the window also shows them as toasts); a click brings the window up.
      s.services.on('notify', (n) => {
        if (!Notification.isSupported()) return;
        const shown = new Notification({ title: n.title, body: n.body });
        shown.on('click', () => {
          if (win?.isMinimized()) win.restore();
          win?.focus();
        });
        shown.show();
      });
      Menu.setApplicationMenu(Menu.buildFromTemplate(toElectronMenu(menuTemplate({ platform: process.platform, appName: app.name, devTools: !app.isPackaged }))));
      if (pendingUri) {
        s.uris.put(pendingUri);
        pendingUri = null;
      }
      createWindow();
      void s.services.start().then(() => s.monitor.start());

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
}

const cliArgs = cliArgsOf(process.argv, process.defaultApp === true);
if (cliArgs !== null) void runCli(cliArgs);
else startWindowApp();

// Links in the app are never opened in-app; this export lets a future "open in block explorer" go
// through the OS browser explicitly.
export const openExternal = (url: string): Promise<void> => shell.openExternal(url);
