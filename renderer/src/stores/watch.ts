// Watch-only balances of the active profile: the latest snapshot from main, the table's sort /
// filter / unit state, and the refresh with its progress. Main pushes `refresh:progress` while a
// refresh runs and `watch:changed` after each snapshot (or failure); the overview is then reloaded.
//
// Speed at 10,000+ rows: rows are prepared once per overview (bigint amounts, a lowercased search
// key), kept in shallow refs (no deep proxies), sorted once per sort change, and a filter keystroke
// is then one linear pass with String.includes over the sorted rows.
//
// A large wallet (more than OVERVIEW_FULL_ROWS addresses) is paged instead: main sorts and filters
// its rows, the overview brings the first page and the totals, and the table asks for the pages of
// the rows it shows (balance-pages.ts; `paged` is then set and `rows` stays empty).
//
// The store's parts by responsibility: the row model (balance-row.ts), the table's sort, filter and
// totals (balance-table.ts), a large wallet's pages (balance-pages.ts), what the window keeps
// (watch-prefs.ts), the row actions (watch-actions.ts).
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { BalancePage, BalanceQuery, RefreshProgress, RefreshSummaryView, WatchOverview } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import * as api from '../api/spyglass';
import type { Unit } from '../lib/format';
import { prepareColumns, warmSearchKeys, type BalanceRow } from './balance-row';
import { DEFAULT_DIR, filterRows, filterTerms, sortRows, totalsOf, type SortDir, type SortKey, type SortState, type Totals } from './balance-table';
import { addPage, missingPages, PAGE_ROWS, pagedRows, sameQuery, totalsFrom, viewOf, type PagedView } from './balance-pages';
import { useRowActions } from './watch-actions';
import { idle, nextFrame, readSort, readUnit, saveSort, saveUnit } from './watch-prefs';

// The store's module is where the screens and tests import these from.
export { BalanceRow, TYPE_SEARCH_WORDS, prepareColumns, prepareRow, typeSearchText, warmSearchKeys } from './balance-row';
export { DEFAULT_DIR, SORT_KEYS, filterRows, filterTerms, sortRows, totalsOf, type SortDir, type SortKey, type SortState, type Totals } from './balance-table';

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

export const useWatchStore = defineStore('watch', () => {
  const overview = shallowRef<WatchOverview | null>(null);
  const rows = shallowRef<BalanceRow[]>([]);
  /** A large wallet's rows as far as fetched (null: every row is in `rows`). */
  const paged = shallowRef<PagedView | null>(null);
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
  const visible = computed((): readonly BalanceRow[] => {
    const p = paged.value;
    if (p !== null) return pagedRows(p);
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
    if (paged.value !== null) return paged.value.allTotals;
    const all = rows.value;
    const o = overview.value;
    if (o !== null && all === overviewRows && o.totals.addresses === all.length) return totalsFrom(o.totals);
    return totalsOf(all);
  });
  /** Of the rows shown (every row when none is filtered out or hidden: no second pass then). */
  const totals = computed(() => {
    if (paged.value !== null) return paged.value.totals;
    return visible.value.length === rows.value.length ? allTotals.value : totalsOf(visible.value as BalanceRow[]);
  });
  const hiddenCount = computed(() => (paged.value !== null ? paged.value.hiddenRows : rows.value.reduce((n, r) => n + (r.hidden ? 1 : 0), 0)));
  /** Every row of the snapshot, hidden ones included. */
  const rowCount = computed(() => (paged.value !== null ? paged.value.allRows : rows.value.length));
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
      globalThis.performance?.mark?.(FIRST_ROWS_MARK, { detail: { rows: o.page?.rows.address.length ?? o.balances.address.length } });
    }
    overview.value = o;
    if (o.page) {
      overviewRows = null;
      rows.value = [];
      takePage(o.page);
      // Asked in another order (the page's early call, made before this store was): the table's own.
      requery();
    } else {
      paged.value = null;
      const list = prepareColumns(o.balances);
      overviewRows = list;
      rows.value = list;
      // The search keys are made when the page is idle after the rows are shown, not before.
      idle(() => {
        if (rows.value === list) warmSearchKeys(list);
      });
    }
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

  /** Bumped when the rows on screen are dropped (another wallet or profile): older answers are stale. */
  let epoch = 0;

  /** What the table shows now, as main sorts and filters a large wallet's rows. */
  function query(): BalanceQuery {
    return { sort: sort.value.key, dir: sort.value.dir, filter: filter.value, showHidden: showHidden.value };
  }

  /** The rows the table has in its DOM (VirtualTable's range): their pages are fetched. */
  let wanted = { first: 0, last: PAGE_ROWS };
  /** Pages asked and not answered yet, by query, version and page number. */
  const asking = new Set<string>();

  /** A page from main: a new query's or new data's first page replaces the view; else it fills it in. */
  function takePage(page: BalancePage): void {
    const p = paged.value;
    if (p !== null && p.version === page.version && sameQuery(p.query, page.query)) {
      addPage(p, page);
      paged.value = { ...p };
    } else {
      paged.value = viewOf(page);
    }
    want(wanted.first, wanted.last);
  }

  /** The table shows rows `first`…`last`: asks main for the pages of them not here yet (a large wallet only). */
  function want(first: number, last: number): void {
    wanted = { first, last };
    const p = paged.value;
    if (p === null) return;
    for (const n of missingPages(p, first, last)) void fetchPage(p.version, p.query, n * PAGE_ROWS, PAGE_ROWS);
  }

  async function fetchPage(version: string, q: BalanceQuery, from: number, count: number): Promise<void> {
    const key = `${version}\u0000${JSON.stringify(q)}\u0000${from}`;
    if (asking.has(key)) return;
    asking.add(key);
    const asked = epoch;
    try {
      const page = await api.watchOverviewPage({ ...q, from, count });
      if (asked !== epoch || !sameQuery(page.query, query())) return;
      // Other data than the view's (a refresh, a label, another wallet's snapshot): the overview again,
      // never rows of two versions side by side.
      if (paged.value !== null && page.version !== paged.value.version && sameQuery(paged.value.query, page.query)) {
        void load();
        return;
      }
      takePage(page);
    } catch (e) {
      if (asked === epoch) loadError.value = api.asIpcError(e);
    } finally {
      asking.delete(key);
    }
  }

  /** The sort, filter or hidden rows changed: a large wallet's rows in the new order, from where the table is. */
  function requery(): void {
    const p = paged.value;
    if (p === null) return;
    const q = query();
    if (sameQuery(p.query, q)) return;
    const from = Math.floor(wanted.first / PAGE_ROWS) * PAGE_ROWS;
    void fetchPage(p.version, q, from, Math.min(1000, Math.max(PAGE_ROWS, Math.ceil((wanted.last - from) / PAGE_ROWS) * PAGE_ROWS)));
  }

  watch([sort, filter, showHidden], requery);

  async function loadOnce(): Promise<boolean> {
    loading.value = true;
    const asked = epoch;
    try {
      const o = await api.watchOverview(query());
      // Asked before the wallet changed: the previous wallet's rows, never shown under the new name.
      if (asked !== epoch) return false;
      setOverview(o);
      loadError.value = null;
      loaded.value = true;
      return true;
    } catch (e) {
      if (asked === epoch) loadError.value = api.asIpcError(e);
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
        const asked = epoch;
        ok = await loadOnce();
        if (asked !== epoch) again = true;
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

  const { setLabel, hide, remove, add, exportCsv } = useRowActions({ rows, paged, unit, actionError, load });

  function setSort(key: SortKey, dir?: SortDir): void {
    const next: SortState = { key, dir: dir ?? (sort.value.key === key ? (sort.value.dir === 'asc' ? 'desc' : 'asc') : DEFAULT_DIR[key]) };
    sort.value = next;
    saveSort(next);
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
    saveUnit(u);
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
    // Connected again: a refresh that could not run for want of the node is no longer the news.
    if (s.state === 'connected') refreshError.value = null;
    if (loaded.value) void load();
  });

  function clearProfileState(): void {
    epoch++;
    overview.value = null;
    rows.value = [];
    paged.value = null;
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
    overview, rows, paged, rowCount, loaded, loading, loadError,
    sort, filterInput, filter, showHidden, unit,
    refreshing, cancelling, progress, refreshError, lastSummary, notice, actionError, viewState,
    snapshot, offline, lastFailure, sorted, visible, totals, allTotals, hiddenCount, callError,
    load, loadAtStart, startDone, shown, clearProfileState, refresh, cancel, setLabel, hide, remove, add, exportCsv, setSort, setFilter, want, setUnit, toggleUnit,
  };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useWatchStore, import.meta.hot));
