// The main window's size and position, remembered across starts in <userData>/window-state.json.
// Electron-free: the shell passes the displays' work areas, so a position on a monitor that is gone
// (or a file someone edited) never opens the window off-screen.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  /** Absent: let the OS centre the window. */
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_WINDOW: WindowState = { width: 1200, height: 800, maximized: false };
export const MIN_WINDOW = { width: 820, height: 560 } as const;
/** How much of the window's top edge (its title bar) must lie on a display to keep the position. */
const VISIBLE_TITLE = { width: 120, height: 32 } as const;

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e6 ? v : null);

function overlap(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x), height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y) };
}

/** A saved state made safe for the displays there are now. */
export function fitWindowState(saved: unknown, workAreas: readonly Rect[]): WindowState {
  const s = (typeof saved === 'object' && saved !== null ? saved : {}) as Record<string, unknown>;
  const largest = workAreas.reduce<Rect | null>((m, a) => (m === null || a.width * a.height > m.width * m.height ? a : m), null);
  const maxW = largest ? Math.max(MIN_WINDOW.width, largest.width) : Infinity;
  const maxH = largest ? Math.max(MIN_WINDOW.height, largest.height) : Infinity;
  const width = Math.min(maxW, Math.max(MIN_WINDOW.width, int(s['width']) ?? DEFAULT_WINDOW.width));
  const height = Math.min(maxH, Math.max(MIN_WINDOW.height, int(s['height']) ?? DEFAULT_WINDOW.height));
  const state: WindowState = { width, height, maximized: s['maximized'] === true };
  const x = int(s['x']);
  const y = int(s['y']);
  if (x !== null && y !== null) {
    const title: Rect = { x, y, width, height: VISIBLE_TITLE.height };
    const shown = workAreas.some((a) => {
      const o = overlap(title, a);
      return o.width >= Math.min(VISIBLE_TITLE.width, width) && o.height >= VISIBLE_TITLE.height;
    });
    if (shown) Object.assign(state, { x, y });
  }
  return state;
}

export function loadWindowState(file: string, workAreas: readonly Rect[]): WindowState {
  let saved: unknown = null;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // absent or unreadable: the defaults
  }
  return fitWindowState(saved, workAreas);
}

export function saveWindowState(file: string, state: WindowState): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
