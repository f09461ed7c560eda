// What the Balances screen keeps in this window's storage (the unit, the sort; read before anything
// loads, so the first render already uses them), and the two schedulers the store paces work with.
import { SORT_KEYS, type SortKey, type SortState } from './balance-table';
import type { Unit } from '../lib/format';

const UNIT_KEY = 'spyglass.unit';
const SORT_KEY = 'spyglass.balances.sort';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

export function readUnit(): Unit {
  return storage()?.getItem(UNIT_KEY) === 'sats' ? 'sats' : 'btc';
}

export function readSort(): SortState {
  try {
    const raw = JSON.parse(storage()?.getItem(SORT_KEY) ?? 'null') as Partial<SortState> | null;
    if (raw && SORT_KEYS.includes(raw.key as SortKey) && (raw.dir === 'asc' || raw.dir === 'desc')) return { key: raw.key as SortKey, dir: raw.dir };
  } catch {
    // a broken value falls back to the default
  }
  return { key: 'balance', dir: 'desc' };
}

function write(key: string, value: string): void {
  try {
    storage()?.setItem(key, value);
  } catch {
    // storage full or refused: the choice lasts for this session
  }
}

/** Runs `fn` when the page is idle (soon after the next frames), or after a short delay where there is no idle callback. */
export function idle(fn: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: 1000 });
  else setTimeout(fn, 50);
}

/** Runs `fn` on the next animation frame (coalescing calls), or at once where there are no frames. */
export function nextFrame(fn: () => void): () => void {
  if (typeof requestAnimationFrame === 'function') {
    const id = requestAnimationFrame(fn);
    return () => cancelAnimationFrame(id);
  }
  fn();
  return () => {};
}

export function saveUnit(u: Unit): void {
  write(UNIT_KEY, u);
}

export function saveSort(s: SortState): void {
  write(SORT_KEY, JSON.stringify(s));
}
