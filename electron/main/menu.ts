// The application menu as data (Electron-free, so it is tested in Node): the usual roles with their
// platform shortcuts, plus Spyglass's own items, which index.ts turns into `app:menu` events for the
// window. Shaped like Electron's MenuItemConstructorOptions, with `action` in place of `click`.
import type { MenuAction } from '../../shared/ipc/contract';

export type MenuRole =
  | 'about' | 'services' | 'hide' | 'hideOthers' | 'unhide' | 'quit' | 'close'
  | 'undo' | 'redo' | 'cut' | 'copy' | 'paste' | 'pasteAndMatchStyle' | 'delete' | 'selectAll'
  | 'forceReload' | 'toggleDevTools' | 'resetZoom' | 'zoomIn' | 'zoomOut' | 'togglefullscreen'
  | 'minimize' | 'zoom' | 'front' | 'window' | 'help';

export interface MenuSpec {
  label?: string;
  role?: MenuRole;
  type?: 'separator';
  accelerator?: string;
  action?: MenuAction;
  submenu?: MenuSpec[];
}

const sep: MenuSpec = { type: 'separator' };

export function menuTemplate(opts: { platform: NodeJS.Platform; appName: string; devTools: boolean }): MenuSpec[] {
  const mac = opts.platform === 'darwin';
  const settings: MenuSpec = { label: mac ? 'Settings…' : 'Settings', accelerator: 'CmdOrCtrl+,', action: 'go:settings' };
  const menus: MenuSpec[] = [];
  if (mac) {
    menus.push({
      label: opts.appName,
      submenu: [{ role: 'about' }, sep, settings, sep, { role: 'services' }, sep, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, sep, { role: 'quit' }],
    });
  }
  menus.push({
    label: 'File',
    submenu: [{ label: 'Review PSBT…', accelerator: 'CmdOrCtrl+O', action: 'go:psbt' }, sep, ...(mac ? [] : [settings, sep]), mac ? { role: 'close' } : { role: 'quit' }],
  });
  menus.push({
    label: 'Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, sep, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, ...(mac ? [{ role: 'pasteAndMatchStyle' } as MenuSpec] : []), { role: 'delete' }, sep, { role: 'selectAll' }],
  });
  menus.push({
    label: 'View',
    submenu: [
      { label: 'Refresh Balances', accelerator: 'CmdOrCtrl+R', action: 'refresh' },
      sep,
      ...(opts.devTools ? [{ role: 'forceReload' } as MenuSpec, { role: 'toggleDevTools' } as MenuSpec, sep] : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      sep,
      { role: 'togglefullscreen' },
    ],
  });
  menus.push({
    label: 'Go',
    submenu: [
      { label: 'Dashboard', accelerator: 'CmdOrCtrl+0', action: 'go:dashboard' },
      { label: 'Balances', accelerator: 'CmdOrCtrl+1', action: 'go:balances' },
      { label: 'History', accelerator: 'CmdOrCtrl+2', action: 'go:history' },
      { label: 'Labels', accelerator: 'CmdOrCtrl+3', action: 'go:labels' },
      { label: 'Reconcile', accelerator: 'CmdOrCtrl+4', action: 'go:reconcile' },
      { label: 'Review PSBT', accelerator: 'CmdOrCtrl+5', action: 'go:psbt' },
    ],
  });
  menus.push({ role: 'window', submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, sep, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }] });
  menus.push({ role: 'help', submenu: mac ? [] : [{ role: 'about' }] });
  return menus;
}
