// The watch store with a large wallet's paged overview: main's side is the real OverviewModel
// (electron/main/store/overview-model.ts, pure: the rows as columns, no database) behind the fake
// preload; the store must show, page by page, exactly the rows its own sortRows / filterRows would
// show of every row, with their totals, and never rows of two versions or of another wallet.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { BalancePage, BalanceQuery, BalanceRowView, WatchOverview } from '../../shared/ipc/contract';
import { balanceColumns } from '../../shared/ipc/balance-columns';
import { setApi } from '../../renderer/src/api/client';
import { OverviewModel } from '../../electron/main/store/overview-model';
import { isLoading, PAGE_ROWS } from '../../renderer/src/stores/balance-pages';
import { filterRows, prepareRow, sortRows, totalsOf, useWatchStore, type BalanceRow } from '../../renderer/src/stores/watch';
import { fakeApi, type FakeApi } from './fake-api';

const N = 12_000;
const BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
let api: FakeApi;

function rows(n: number, prefix: string): BalanceRowView[] {
  const out: BalanceRowView[] = [];
  for (let i = 0; i < n; i++) {
    let tail = '';
    for (let k = 0, x = i * 2654435761; k < 30; k++, x = Math.imul(x ^ (x >>> 13), 1597334677) >>> 0) tail += BECH[x % 32];
    out.push({
      address: `bcrt1q${prefix}${i.toString(32).padStart(4, 'q')}${tail}`,
      type: i % 3 === 0 ? 'p2tr' : 'p2wpkh',
      source: i % 10 === 0 ? 'user' : 'node',
      hidden: i % 17 === 0,
      nodeLabel: i % 5 === 0 ? `Payer ${i % 40}` : null,
      label: i % 7 === 0 ? `Savings ${i % 30}` : null,
      receivedSats: i % 10 === 0 ? null : String((i % 90) * 1000),
      receivedConfirmations: i % 10 === 0 ? null : i % 12,
      receivedTxCount: 1,
      balanceSats: String((i % 45) * 1000),
      pendingTrustedSats: i % 11 === 0 ? null : String(i % 4 === 0 ? 500 : 0),
      pendingUntrustedSats: i % 11 === 0 ? null : '0',
      pendingCount: 0,
      utxoCount: i % 4,
      minConfirmations: i % 4 === 0 ? null : 1 + (i % 50),
      lastActivityHeight: i % 4 === 0 ? null : 100 + (i % 50),
      fetchState: 'fetched',
      fetchedAt: null,
      errorCode: null,
    });
  }
  return out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** Main's side: the model of `views`, answering both channels as the service does. */
function serve(views: BalanceRowView[], version: string): OverviewModel {
  const model = new OverviewModel(version, balanceColumns(views));
  api.handle('watch:overview', (req) => {
    const q = (req as { page?: { query?: BalanceQuery; count?: number } }).page;
    const page = model.page(q?.query ?? { sort: 'balance', dir: 'desc', filter: '', showHidden: false }, 0, q?.count ?? PAGE_ROWS);
    const o: WatchOverview = {
      snapshot: { id: 1, takenAt: '2026-11-28T00:00:00.000Z', nodeHeight: 1, nodeHash: null, indexHeight: 1, indexHash: null, status: 'ok', addressCount: model.n, receivedSats: '0', balanceSats: '0', utxoCount: 0 },
      offline: false,
      refreshing: false,
      lastFailure: null,
      balances: balanceColumns([]),
      page,
      totals: model.shownTotals,
    };
    return { ok: true, value: o };
  });
  api.handle('watch:overview-page', (req) => {
    const r = req as BalanceQuery & { from: number; count: number };
    return { ok: true, value: model.page({ sort: r.sort, dir: r.dir, filter: r.filter, showHidden: r.showHidden }, r.from, r.count) };
  });
  return model;
}

/** What the table showed when it had every row. */
function expected(all: BalanceRow[], q: BalanceQuery): BalanceRow[] {
  return filterRows(sortRows(all, { key: q.sort, dir: q.dir }), q.filter, q.showHidden);
}

const shown = (watch: ReturnType<typeof useWatchStore>, from: number, to: number): string[] => {
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push(watch.visible[i]!.address);
  return out;
};

beforeEach(() => {
  api = fakeApi();
  setApi(api);
  setActivePinia(createPinia());
  vi.stubGlobal('requestAnimationFrame', undefined);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('watch store, a large wallet (paged)', () => {
  it('shows the first page, counts and totals at once; the rest as pages the table asks for', async () => {
    const views = rows(N, '');
    serve(views, 'v1');
    const all = views.map(prepareRow);
    const watch = useWatchStore();
    await watch.load();
    const q: BalanceQuery = { sort: watch.sort.key, dir: watch.sort.dir, filter: '', showHidden: false };
    const want = expected(all, q);
    expect(watch.paged).not.toBeNull();
    expect(watch.rows).toEqual([]);
    expect(watch.visible.length).toBe(want.length);
    expect(watch.rowCount).toBe(N);
    expect(watch.hiddenCount).toBe(all.filter((r) => r.hidden).length);
    expect(watch.totals).toEqual(totalsOf(want));
    expect(watch.allTotals).toEqual(totalsOf(all));
    expect(shown(watch, 0, PAGE_ROWS)).toEqual(want.slice(0, PAGE_ROWS).map((r) => r.address));
    expect(isLoading(watch.visible[5000]!)).toBe(true);
    // The table scrolled to rows 5000…5030: their page comes, the first stays.
    watch.want(5000, 5030);
    await vi.waitFor(() => expect(isLoading(watch.visible[5000]!)).toBe(false), { timeout: 30_000 });
    expect(shown(watch, 5000, 5030)).toEqual(want.slice(5000, 5030).map((r) => r.address));
    expect(shown(watch, 0, 10)).toEqual(want.slice(0, 10).map((r) => r.address));
    const asked = api.calls.filter((c) => c.channel === 'watch:overview-page');
    expect(asked.map((c) => (c.request as { from: number }).from)).toEqual([5000 - (5000 % PAGE_ROWS)]);
  });

  it('a sort, a filter and the hidden rows are main’s to apply: the same rows and totals as the table’s own', async () => {
    const views = rows(N, '');
    serve(views, 'v1');
    const all = views.map(prepareRow);
    const watch = useWatchStore();
    await watch.load();
    watch.want(0, 40);
    for (const [key, dir] of [['label', 'asc'], ['confirmations', 'desc'], ['received', 'asc'], ['address', 'desc']] as const) {
      watch.setSort(key, dir);
      const want = expected(all, { sort: key, dir, filter: '', showHidden: false });
      await vi.waitFor(() => expect(watch.paged?.query.sort).toBe(key), { timeout: 30_000 });
      expect(shown(watch, 0, 40)).toEqual(want.slice(0, 40).map((r) => r.address));
    }
    watch.setFilter('savings 1');
    const filtered = expected(all, { sort: 'address', dir: 'desc', filter: 'savings 1', showHidden: false });
    await vi.waitFor(() => expect(watch.paged?.query.filter).toBe('savings 1'), { timeout: 30_000 });
    expect(watch.visible.length).toBe(filtered.length);
    expect(watch.totals).toEqual(totalsOf(filtered));
    expect(shown(watch, 0, Math.min(40, filtered.length))).toEqual(filtered.slice(0, 40).map((r) => r.address));
    watch.showHidden = true;
    const withHidden = expected(all, { sort: 'address', dir: 'desc', filter: 'savings 1', showHidden: true });
    await vi.waitFor(() => expect(watch.paged?.query.showHidden).toBe(true), { timeout: 30_000 });
    expect(withHidden.length).toBeGreaterThan(filtered.length);
    expect(watch.visible.length).toBe(withHidden.length);
    expect(watch.totals).toEqual(totalsOf(withHidden));
  });

  it('a page of other data (a label set, a refresh) makes the store ask for the overview again', async () => {
    const views = rows(N, '');
    serve(views, 'v1');
    const watch = useWatchStore();
    await watch.load();
    const first = watch.visible[0]!.address;
    // Main's data changes: the next page says so by its version.
    const changed = views.map((v) => (v.address === first ? { ...v, label: 'Renamed' } : v));
    serve(changed, 'v2');
    const overviews = api.calls.filter((c) => c.channel === 'watch:overview').length;
    watch.want(3000, 3020);
    await vi.waitFor(() => expect(watch.paged?.version).toBe('v2'), { timeout: 30_000 });
    expect(api.calls.filter((c) => c.channel === 'watch:overview').length).toBe(overviews + 1);
    expect(watch.visible[0]!.label).toBe('Renamed');
    await vi.waitFor(() => expect(isLoading(watch.visible[3000]!)).toBe(false), { timeout: 30_000 });
  });

  it('a label set inline shows at once and the pages are asked again', async () => {
    const views = rows(N, '');
    serve(views, 'v1');
    api.handle('labels:set', { label: null } as never);
    const watch = useWatchStore();
    await watch.load();
    const target = watch.visible[3]!.address;
    serve(views.map((v) => (v.address === target ? { ...v, label: 'Inline' } : v)), 'v2');
    expect(await watch.setLabel(target, 'Inline')).toBe(true);
    expect(watch.visible[3]!.label).toBe('Inline');
    await vi.waitFor(() => expect(watch.paged?.version).toBe('v2'), { timeout: 30_000 });
    expect(watch.visible.find((r) => r.address === target)?.label).toBe('Inline');
  });

  it('another wallet: no row of the first one shows, and a late page of it is dropped', async () => {
    serve(rows(N, 'aa'), 'w1');
    const watch = useWatchStore();
    api.emit('connection:changed', { state: 'connecting', profileId: 'p1' } as never);
    await watch.load();
    let give: () => void = () => {};
    const late = new Promise<void>((r) => (give = r));
    const old = api.calls.length;
    const firstModel = new OverviewModel('w1', balanceColumns(rows(N, 'aa')));
    api.handle('watch:overview-page', async (req) => {
      await late;
      const r = req as BalanceQuery & { from: number; count: number };
      return { ok: true, value: firstModel.page(r, r.from, r.count) as BalancePage };
    });
    watch.want(6000, 6020);
    expect(api.calls.length).toBe(old + 1);
    // The switch: the rows go at once; the second wallet's overview comes; then the first's late page.
    api.emit('connection:changed', { state: 'connecting', profileId: 'p2' } as never);
    expect(watch.paged).toBeNull();
    expect(watch.visible.length).toBe(0);
    serve(rows(N, 'bb'), 'w2');
    await watch.load();
    give();
    await new Promise((r) => setTimeout(r, 10));
    expect(watch.paged?.version).toBe('w2');
    for (let i = 0; i < watch.visible.length; i++) {
      const r = watch.visible[i]!;
      if (!isLoading(r)) expect(r.address.startsWith('bcrt1qbb')).toBe(true);
    }
  });
});
