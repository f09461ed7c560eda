// Watch-only balances of the active profile: the latest snapshot from main, the table's sort /
// filter / unit state, and the refresh with its progress. Main pushes `refresh:progress` while a
// refresh runs and `watch:changed` after each snapshot (or failure); the overview is then reloaded.
//
// Speed at 10,000+ rows: rows are prepared once per overview (bigint amounts, a lowercased search
// key), kept in shallow refs (no deep proxies), sorted once per sort change, and a filter keystroke
// is then one linear pass with String.includes over the sorted rows.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { AddAddressesResult, BalanceColumns, BalanceRowView, RefreshProgress, RefreshSummaryView, WatchOverview } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import * as api from '../api/spyglass';
import { addressType, type Unit } from '../lib/format';

export type SortKey = 'label' | 'address' | 'type' | 'received' | 'balance' | 'utxos' | 'confirmations' | 'activity';
export type SortDir = 'asc' | 'desc';
export interface SortState {
  key: SortKey;
  dir: SortDir;
}

/**
 * A balances row as the table uses it: the wire row plus derived values. Those are computed on
 * first use and kept (an overview has 10,000+ rows; parsing every amount and lowercasing every label
 * before the first screenful is painted would cost more than the rendering): amounts are parsed
 * for the rows shown and for totals, the search key on the first filter keystroke (or when the
 * page is idle, warmSearchKeys), the sort label when sorting by label.
 */
export class BalanceRow implements BalanceRowView {
  #received: bigint | null | undefined = undefined;
  #balance: bigint | undefined = undefined;
  #search: string | undefined = undefined;
  #sortLabel: string | undefined = undefined;
  readonly label: string | null;
  readonly nodeLabel: string | null;

  constructor(
    readonly address: string,
    readonly type: string,
    readonly source: BalanceRowView['source'],
    readonly hidden: boolean,
    nodeLabel: string | null,
    label: string | null,
    readonly receivedSats: string | null,
    readonly receivedConfirmations: number | null,
    readonly receivedTxCount: number | null,
    readonly balanceSats: string,
    readonly utxoCount: number,
    readonly minConfirmations: number | null,
    readonly lastActivityHeight: number | null,
    readonly fetchState: BalanceRowView['fetchState'],
    readonly fetchedAt: string | null,
    readonly errorCode: string | null,
  ) {
    // An empty label is no label.
    this.label = label === '' ? null : label;
    this.nodeLabel = nodeLabel === '' ? null : nodeLabel;
  }

  get received(): bigint | null {
    if (this.#received === undefined) this.#received = this.receivedSats === null ? null : BigInt(this.receivedSats);
    return this.#received;
  }

  get balance(): bigint {
    if (this.#balance === undefined) this.#balance = BigInt(this.balanceSats);
    return this.#balance;
  }

  /** Confirmations shown: the youngest UTXO's, else the node's for the last receive. */
  get confirmations(): number | null {
    return this.minConfirmations ?? this.receivedConfirmations;
  }

  /** Lowercased "label \0 node label \0 address \0 type names": what the filter matches. */
  get search(): string {
    if (this.#search === undefined) this.#search = `${this.label ?? ''}\u0000${this.nodeLabel ?? ''}\u0000${this.address}\u0000${typeSearchText(this.type)}`.toLowerCase();
    return this.#search;
  }

  /** Lowercased label used for sorting (the local one, else the node's); '' when none. */
  get sortLabel(): string {
    if (this.#sortLabel === undefined) this.#sortLabel = (this.label ?? this.nodeLabel ?? '').toLowerCase();
    return this.#sortLabel;
  }

  /** The wire row (for a changed copy: prepareRow({ ...row.view(), label })). */
  view(): BalanceRowView {
    return {
      address: this.address,
      type: this.type,
      source: this.source,
      hidden: this.hidden,
      nodeLabel: this.nodeLabel,
      label: this.label,
      receivedSats: this.receivedSats,
      receivedConfirmations: this.receivedConfirmations,
      receivedTxCount: this.receivedTxCount,
      balanceSats: this.balanceSats,
      utxoCount: this.utxoCount,
      minConfirmations: this.minConfirmations,
      lastActivityHeight: this.lastActivityHeight,
      fetchState: this.fetchState,
      fetchedAt: this.fetchedAt,
      errorCode: this.errorCode,
    };
  }
}

export const SORT_KEYS: readonly SortKey[] = ['label', 'address', 'type', 'received', 'balance', 'utxos', 'confirmations', 'activity'];
/** Numbers sort largest first on the first click; text A→Z. */
export const DEFAULT_DIR: Record<SortKey, SortDir> = {
  label: 'asc',
  address: 'asc',
  type: 'asc',
  received: 'desc',
  balance: 'desc',
  utxos: 'desc',
  confirmations: 'asc',
  activity: 'desc',
};

export function prepareRow(v: BalanceRowView): BalanceRow {
  return new BalanceRow(
    v.address, v.type, v.source, v.hidden, v.nodeLabel, v.label, v.receivedSats, v.receivedConfirmations, v.receivedTxCount,
    v.balanceSats, v.utxoCount, v.minConfirmations, v.lastActivityHeight, v.fetchState, v.fetchedAt, v.errorCode,
  );
}

/** The rows of an overview's columns, as prepareRow makes them (no intermediate row objects). */
export function prepareColumns(c: BalanceColumns): BalanceRow[] {
  const n = c.address.length;
  const out = new Array<BalanceRow>(n);
  for (let i = 0; i < n; i++) {
    out[i] = new BalanceRow(
      c.address[i]!, c.type[i]!, c.source[i]!, c.hidden[i]!, c.nodeLabel[i] ?? null, c.label[i] ?? null, c.receivedSats[i] ?? null,
      c.receivedConfirmations[i] ?? null, c.receivedTxCount[i] ?? null, c.balanceSats[i]!, c.utxoCount[i]!, c.minConfirmations[i] ?? null,
      c.lastActivityHeight[i] ?? null, c.fetchState[i]!, c.fetchedAt[i] ?? null, c.errorCode[i] ?? null,
    );
  }
  return out;
}

/**
 * What the filter finds an address type by: the name in the Type column and the words wallets use
 * for it (Sparrow, Electrum: "native segwit", "taproot", "legacy"), e.g. "p2wpkh native segwit".
 */
export const TYPE_SEARCH_WORDS: Record<string, string> = {
  p2pkh: 'legacy',
  p2sh: 'script hash',
  p2wpkh: 'native segwit v0',
  p2wsh: 'native segwit v0 script',
  p2tr: 'taproot segwit v1',
};

export function typeSearchText(type: string): string {
  const words = TYPE_SEARCH_WORDS[type];
  return words ? `${addressType(type)} ${words}` : addressType(type);
}

/** Computes the search keys of `rows` ahead of the first filter keystroke. */
export function warmSearchKeys(rows: readonly BalanceRow[]): void {
  for (const r of rows) void r.search;
}

/** Compares two amounts in satoshis given as canonical decimal text (no sign, no leading zeros) without parsing them. */
function cmpSats(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function cmp<T extends string | number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two possibly-missing values; missing ones go last in both directions. */
function cmpMissingLast<T extends string | number | bigint>(a: T | null, b: T | null, sign: number): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  return sign * cmp(a, b);
}

function compareBy(key: SortKey, a: BalanceRow, b: BalanceRow, sign: number): number {
  switch (key) {
    case 'label':
      return cmpMissingLast(a.sortLabel === '' ? null : a.sortLabel, b.sortLabel === '' ? null : b.sortLabel, sign);
    case 'address':
      return sign * cmp(a.address, b.address);
    case 'type':
      return sign * cmp(a.type, b.type);
    case 'received':
      if (a.receivedSats === null) return b.receivedSats === null ? 0 : 1;
      if (b.receivedSats === null) return -1;
      return sign * cmpSats(a.receivedSats, b.receivedSats);
    case 'balance':
      return sign * cmpSats(a.balanceSats, b.balanceSats);
    case 'utxos':
      return sign * cmp(a.utxoCount, b.utxoCount);
    case 'confirmations':
      return cmpMissingLast(a.confirmations, b.confirmations, sign);
    case 'activity':
      return cmpMissingLast(a.lastActivityHeight, b.lastActivityHeight, sign);
  }
}

/** A sorted copy; ties (and missing values) in address order, so the order is total and stable. */
export function sortRows(rows: readonly BalanceRow[], sort: SortState): BalanceRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return rows.slice().sort((a, b) => compareBy(sort.key, a, b, sign) || cmp(a.address, b.address));
}

/** Whitespace-separated terms, lowercased; a row must contain every one. */
export function filterTerms(text: string): string[] {
  return text.trim().toLowerCase().split(/\s+/).filter((t) => t !== '');
}

export function filterRows(rows: readonly BalanceRow[], text: string, showHidden: boolean): BalanceRow[] {
  const terms = filterTerms(text);
  if (terms.length === 0 && (showHidden || !rows.some((r) => r.hidden))) return rows as BalanceRow[];
  const out: BalanceRow[] = [];
  for (const r of rows) {
    if (!showHidden && r.hidden) continue;
    let ok = true;
    for (const t of terms) {
      if (!r.search.includes(t)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(r);
  }
  return out;
}

export interface Totals {
  rows: number;
  received: bigint;
  balance: bigint;
  utxos: number;
}

export function totalsOf(rows: readonly BalanceRow[]): Totals {
  // Summed as numbers (one bigint per total, not one per row): exact while the sum stays below
  // 2^53 — every term is non-negative, so then every partial sum is exact too. Balances always do
  // (≤ 21e14 sats); a total received past that (coins received over and over) is summed again as bigint.
  let received = 0;
  let balance = 0;
  let utxos = 0;
  for (const r of rows) {
    if (r.receivedSats !== null) received += Number(r.receivedSats);
    balance += Number(r.balanceSats);
    utxos += r.utxoCount;
  }
  const exact = (sum: number, of: (r: BalanceRow) => bigint | null): bigint =>
    Number.isSafeInteger(sum) ? BigInt(sum) : rows.reduce((a, r) => a + (of(r) ?? 0n), 0n);
  return { rows: rows.length, received: exact(received, (r) => r.received), balance: exact(balance, (r) => r.balance), utxos };
}

/** The refresh steps in words (progress bar, failure panel). */
export const PHASES: Record<RefreshProgress['phase'], string> = {
  received: 'Asking the node what each address received',
  addressinfo: 'Reading address details from the node',
  tips: 'Reading the node’s and the index’s tips',
  utxos: 'Looking up UTXOs in the index',
  write: 'Saving the snapshot',
};

/** The performance mark set when the page's first overview is handed to the table. */
export const FIRST_ROWS_MARK = 'spyglass:first-rows';

const UNIT_KEY = 'spyglass.unit';
const SORT_KEY = 'spyglass.balances.sort';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

function readUnit(): Unit {
  return storage()?.getItem(UNIT_KEY) === 'sats' ? 'sats' : 'btc';
}

function readSort(): SortState {
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
function idle(fn: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: 1000 });
  else setTimeout(fn, 50);
}

/** Runs `fn` on the next animation frame (coalescing calls), or at once where there are no frames. */
function nextFrame(fn: () => void): () => void {
  if (typeof requestAnimationFrame === 'function') {
    const id = requestAnimationFrame(fn);
    return () => cancelAnimationFrame(id);
  }
  fn();
  return () => {};
}

export const useWatchStore = defineStore('watch', () => {
  const overview = shallowRef<WatchOverview | null>(null);
  const rows = shallowRef<BalanceRow[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const loadError = ref<IpcError | null>(null);

  const sort = ref<SortState>(readSort());
  /** What is typed in the filter box; `filter` follows it within one frame. */
  const filterInput = ref('');
  const filter = ref('');
  const showHidden = ref(false);
  const unit = ref<Unit>(readUnit());

  const refreshing = ref(false);
  const cancelling = ref(false);
  const progress = ref<RefreshProgress | null>(null);
  /** The refresh call failed (e.g. not connected) — as opposed to a failure main recorded. */
  const refreshError = ref<IpcError | null>(null);
  const lastSummary = ref<RefreshSummaryView | null>(null);
  /** A calm one-line note (a cancelled refresh). */
  const notice = ref<string | null>(null);
  /** The last failed row action (label, hide, remove…), for a toast. */
  const actionError = ref<IpcError | null>(null);

  /** Where the table was, to come back to the same place from an address page. */
  const viewState = { scrollTop: 0, active: null as string | null };

  const snapshot = computed(() => overview.value?.snapshot ?? null);
  const offline = computed(() => overview.value?.offline === true);
  const lastFailure = computed(() => overview.value?.lastFailure ?? null);
  // Sorted copies are kept per sort for the current rows, so going back to a sort is instant.
  let sortCache: { rows: BalanceRow[]; byKey: Map<string, BalanceRow[]> } | null = null;
  const sorted = computed(() => {
    const all = rows.value;
    const { key, dir } = sort.value;
    if (sortCache === null || sortCache.rows !== all) sortCache = { rows: all, byKey: new Map() };
    const k = `${key}:${dir}`;
    let out = sortCache.byKey.get(k);
    if (out === undefined) {
      out = sortRows(all, { key, dir });
      sortCache.byKey.set(k, out);
    }
    return out;
  });
  // Typing on (the new text extends the old) can only narrow the result: filter the last result
  // instead of every row.
  let lastFilter: { base: BalanceRow[]; hidden: boolean; text: string; out: BalanceRow[] } | null = null;
  const visible = computed(() => {
    const base = sorted.value;
    const hidden = showHidden.value;
    const text = filter.value.toLowerCase();
    const last = lastFilter;
    const narrowing = last !== null && last.base === base && last.hidden === hidden && text.startsWith(last.text) && filterTerms(last.text).length > 0;
    const out = filterRows(narrowing ? last.out : base, text, hidden);
    lastFilter = { base, hidden, text, out };
    return out;
  });
  /** The rows as the last overview sent them (replaced by a label edit, hide or remove). */
  let overviewRows: BalanceRow[] | null = null;
  /** Of every row, hidden ones included: main's totals when they are those (no row hidden or changed since). */
  const allTotals = computed((): Totals => {
    const all = rows.value;
    const o = overview.value;
    if (o !== null && all === overviewRows && o.totals.addresses === all.length) {
      return { rows: all.length, received: BigInt(o.totals.receivedSats), balance: BigInt(o.totals.balanceSats), utxos: o.totals.utxoCount };
    }
    return totalsOf(all);
  });
  /** Of the rows shown (every row when none is filtered out or hidden: no second pass then). */
  const totals = computed(() => (visible.value.length === rows.value.length ? allTotals.value : totalsOf(visible.value)));
  const hiddenCount = computed(() => rows.value.reduce((n, r) => n + (r.hidden ? 1 : 0), 0));
  /** The refresh call's own error when main recorded none (or another one). */
  const callError = computed(() => {
    const e = refreshError.value;
    if (e === null) return null;
    const f = lastFailure.value;
    return f !== null && f.message === e.message ? null : e;
  });

  let ownRefresh = false;
  let refreshEndedAt = 0;

  let marked = false;
  function setOverview(o: WatchOverview): void {
    if (!marked) {
      // User Timing: when the page's first rows reached the table (read by `npm run bench -- refresh`
      // and visible in a DevTools performance recording); once per page, so the timeline stays small.
      marked = true;
      globalThis.performance?.mark?.(FIRST_ROWS_MARK, { detail: { rows: o.balances.address.length } });
    }
    overview.value = o;
    const list = prepareColumns(o.balances);
    overviewRows = list;
    rows.value = list;
    // The search keys are made when the page is idle after the rows are shown, not before.
    idle(() => {
      if (rows.value === list) warmSearchKeys(list);
    });
    if (!ownRefresh) {
      refreshing.value = o.refreshing;
      if (o.refreshing) followOtherRefresh();
      else progress.value = null;
    }
  }

  // A refresh this page did not start (the chain monitor's) may end without a change to show, so no
  // event says it ended: while one runs, the overview is read again every second until it has.
  let followTimer: ReturnType<typeof setTimeout> | null = null;
  function followOtherRefresh(): void {
    if (followTimer) return;
    followTimer = setTimeout(() => {
      followTimer = null;
      if (!ownRefresh) void load();
    }, 1000);
  }

  async function loadOnce(): Promise<boolean> {
    loading.value = true;
    try {
      setOverview(await api.watchOverview());
      loadError.value = null;
      loaded.value = true;
      return true;
    } catch (e) {
      loadError.value = api.asIpcError(e);
      return false;
    } finally {
      loading.value = false;
    }
  }

  let inflight: Promise<boolean> | null = null;
  let again = false;
  /**
   * Loads the overview; calls during a load make one more load after it (events come in bursts).
   * `join`: a load already under way will do (a screen showing up wants the current overview, not a
   * second one right after it).
   */
  function load(opts: { join?: boolean } = {}): Promise<boolean> {
    if (inflight !== null) {
      if (opts.join !== true) again = true;
      return inflight;
    }
    inflight = (async () => {
      let ok: boolean;
      do {
        again = false;
        ok = await loadOnce();
      } while (again);
      return ok;
    })().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  /** The load the app started with, until the first screen showing the balances has taken it. */
  let startLoad: Promise<boolean> | null = null;

  /** Loads the overview as the app starts (the first Balances screen then shows it instead of asking again). */
  function loadAtStart(): Promise<boolean> {
    startLoad = load();
    return startLoad;
  }

  /** The first screen is up: a later Balances screen asks for a current overview. */
  function startDone(): void {
    startLoad = null;
  }

  /** A screen showing the balances appeared: the overview the app started with, else a current one. */
  function shown(): Promise<boolean> {
    const p = startLoad;
    startLoad = null;
    return p ?? load({ join: true });
  }

  async function refresh(): Promise<RefreshSummaryView | null> {
    if (ownRefresh) return null;
    ownRefresh = true;
    refreshing.value = true;
    cancelling.value = false;
    progress.value = null;
    refreshError.value = null;
    notice.value = null;
    try {
      const summary = await api.watchRefresh();
      lastSummary.value = summary;
      return summary;
    } catch (e) {
      const err = api.asIpcError(e);
      if (err.code === 'cancelled') notice.value = 'Refresh cancelled. Nothing was written: the balances are those of the last snapshot.';
      else refreshError.value = err;
      lastSummary.value = null;
      return null;
    } finally {
      ownRefresh = false;
      refreshEndedAt = Date.now();
      refreshing.value = false;
      cancelling.value = false;
      progress.value = null;
      await load();
    }
  }

  async function cancel(): Promise<boolean> {
    cancelling.value = true;
    try {
      await api.watchCancel();
      return true;
    } catch (e) {
      cancelling.value = false;
      actionError.value = api.asIpcError(e);
      return false;
    }
  }

  function replaceRow(address: string, change: (r: BalanceRow) => BalanceRowView): void {
    rows.value = rows.value.map((r) => (r.address === address ? prepareRow(change(r)) : r));
  }

  async function run(action: () => Promise<unknown>): Promise<boolean> {
    actionError.value = null;
    try {
      await action();
      return true;
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return false;
    }
  }

  /** Sets (or, when empty, removes) the local label of an address. */
  function setLabel(address: string, text: string): Promise<boolean> {
    const label = text.trim();
    return run(async () => {
      await api.setLabel({ type: 'addr', ref: address, label });
      replaceRow(address, (r) => ({ ...r.view(), label: label === '' ? null : label }));
    });
  }

  function hide(address: string, hidden: boolean): Promise<boolean> {
    return run(async () => {
      const reply = await api.watchHide(address, hidden);
      replaceRow(address, (r) => ({ ...r.view(), hidden: reply.hidden }));
    });
  }

  function remove(address: string): Promise<boolean> {
    return run(async () => {
      const reply = await api.watchRemove(address);
      if (reply.removed) rows.value = rows.value.filter((r) => r.address !== address);
    });
  }

  /** Adds addresses; null when the call failed (see actionError). Nothing is added when any line is invalid. */
  async function add(text: string): Promise<AddAddressesResult | null> {
    actionError.value = null;
    try {
      const result = await api.watchAdd(text);
      if (result.errors.length === 0 && result.added > 0) await load();
      return result;
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return null;
    }
  }

  async function exportCsv(includeHidden: boolean): Promise<{ text: string; rows: number } | null> {
    actionError.value = null;
    try {
      return await api.exportCsv({ unit: unit.value, includeHidden });
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return null;
    }
  }

  function setSort(key: SortKey, dir?: SortDir): void {
    const next: SortState = { key, dir: dir ?? (sort.value.key === key ? (sort.value.dir === 'asc' ? 'desc' : 'asc') : DEFAULT_DIR[key]) };
    sort.value = next;
    write(SORT_KEY, JSON.stringify(next));
  }

  let cancelFrame: (() => void) | null = null;
  function setFilter(text: string): void {
    filterInput.value = text;
    cancelFrame?.();
    cancelFrame = nextFrame(() => {
      cancelFrame = null;
      filter.value = filterInput.value;
    });
  }

  /** Shows amounts in `u`; kept in this window's storage (read before anything loads) and, unless it came from there, in the settings. */
  function setUnit(u: Unit, opts: { persist?: boolean } = {}): void {
    unit.value = u;
    write(UNIT_KEY, u);
    if (opts.persist !== false) void api.setSettings({ app: { unit: u } }).catch(() => undefined);
  }

  function toggleUnit(): void {
    setUnit(unit.value === 'btc' ? 'sats' : 'btc');
  }

  api.onRefreshProgress((p) => {
    // A late event of a refresh that has just ended must not bring the bar back.
    if (!ownRefresh && Date.now() - refreshEndedAt < 1500) return;
    progress.value = p;
    refreshing.value = true;
    if (!ownRefresh) followOtherRefresh();
  });
  api.onWatchChanged(() => {
    void load();
  });
  // Another profile: nothing of the previous one may show while its own overview loads. The same one
  // back online: its overview differs.
  let shownProfile: string | null | undefined;
  api.onConnectionChanged((s) => {
    const pid = s.state === 'none' ? null : s.profileId;
    if (shownProfile !== undefined && pid !== shownProfile) clearProfileState();
    shownProfile = pid;
    if (loaded.value) void load();
  });

  function clearProfileState(): void {
    overview.value = null;
    rows.value = [];
    lastSummary.value = null;
    notice.value = null;
    refreshError.value = null;
    actionError.value = null;
    progress.value = null;
    filterInput.value = '';
    filter.value = '';
    viewState.scrollTop = 0;
    viewState.active = null;
  }

  return {
    overview, rows, loaded, loading, loadError,
    sort, filterInput, filter, showHidden, unit,
    refreshing, cancelling, progress, refreshError, lastSummary, notice, actionError, viewState,
    snapshot, offline, lastFailure, sorted, visible, totals, allTotals, hiddenCount, callError,
    load, loadAtStart, startDone, shown, refresh, cancel, setLabel, hide, remove, add, exportCsv, setSort, setFilter, setUnit, toggleUnit,
  };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useWatchStore, import.meta.hot));
