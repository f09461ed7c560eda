import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { BalanceRowView, RefreshSummaryView, WatchOverview } from '../../shared/ipc/contract';
import { balanceColumns, balanceRows } from '../../shared/ipc/balance-columns';
import { setApi } from '../../renderer/src/api/client';
import { DEFAULT_DIR, FIRST_ROWS_MARK, SORT_KEYS, filterRows, prepareColumns, prepareRow, sortRows, totalsOf, typeSearchText, useWatchStore, type BalanceRow, type SortKey } from '../../renderer/src/stores/watch';
import { fakeApi, type FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = fakeApi();
  setApi(api);
  setActivePinia(createPinia());
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['Cold', 'storage', 'Savings', 'exchange', 'Donations', 'rent', 'Payroll', 'ALICE', 'bob', 'Ünïcode', 'café', 'multisig'];
const TYPES = ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'];
const BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function row(over: Partial<BalanceRowView> = {}): BalanceRowView {
  return {
    address: 'bcrt1qexample',
    type: 'p2wpkh',
    source: 'node',
    hidden: false,
    nodeLabel: null,
    label: null,
    receivedSats: '0',
    receivedConfirmations: null,
    receivedTxCount: 0,
    balanceSats: '0',
    pendingTrustedSats: '0',
    pendingUntrustedSats: '0',
    pendingCount: 0,
    utxoCount: 0,
    minConfirmations: null,
    lastActivityHeight: null,
    fetchState: 'fetched',
    fetchedAt: '2025-01-01T00:00:00.000Z',
    errorCode: null,
    ...over,
  };
}

function generate(n: number, seed = 7): BalanceRowView[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const rows: BalanceRowView[] = [];
  for (let i = 0; i < n; i++) {
    let tail = '';
    for (let k = 0; k < 38; k++) tail += BECH[Math.floor(r() * BECH.length)];
    const user = r() < 0.1;
    const funded = r() < 0.6;
    const utxos = funded ? 1 + Math.floor(r() * 5) : 0;
    // Up to 21 million BTC in sats, including values above 2^53 would be impossible; keep exact integers.
    const balance = funded ? BigInt(Math.floor(r() * 2_100_000_000_000)) : 0n;
    rows.push(
      row({
        address: `bcrt1q${tail}`,
        type: pick(TYPES),
        source: user ? 'user' : 'node',
        hidden: r() < 0.05,
        label: r() < 0.5 ? `${pick(WORDS)} ${pick(WORDS)} ${i}` : null,
        nodeLabel: r() < 0.3 ? `${pick(WORDS)} node` : r() < 0.1 ? '' : null,
        receivedSats: user ? null : (balance + BigInt(Math.floor(r() * 1e8))).toString(),
        receivedConfirmations: user ? null : Math.floor(r() * 500),
        balanceSats: balance.toString(),
        // Pending coins: not known for user addresses; our own change and payments from others on some.
        pendingTrustedSats: user ? null : r() < 0.1 ? String(Math.floor(r() * 1e7)) : '0',
        pendingUntrustedSats: user ? null : r() < 0.1 ? String(Math.floor(r() * 1e7)) : '0',
        pendingCount: user ? null : 0,
        utxoCount: utxos,
        minConfirmations: funded ? Math.floor(r() * 300) : null,
        lastActivityHeight: funded || r() < 0.5 ? 100 + Math.floor(r() * 900) : null,
      }),
    );
  }
  return rows;
}

function overview(rows: BalanceRowView[], over: Partial<WatchOverview> = {}): WatchOverview {
  let received = 0n;
  let balance = 0n;
  let utxos = 0;
  let pt = 0n;
  let pu = 0n;
  let unknown = 0;
  for (const r of rows) {
    received += BigInt(r.receivedSats ?? '0');
    balance += BigInt(r.balanceSats);
    utxos += r.utxoCount;
    if (r.pendingTrustedSats === null || r.pendingUntrustedSats === null) unknown++;
    else {
      pt += BigInt(r.pendingTrustedSats);
      pu += BigInt(r.pendingUntrustedSats);
    }
  }
  return {
    snapshot: {
      id: 3,
      takenAt: '2025-01-02T10:00:00.000Z',
      nodeHeight: 900,
      nodeHash: '00'.repeat(32),
      indexHeight: 900,
      indexHash: '00'.repeat(32),
      status: 'ok',
      addressCount: rows.length,
      receivedSats: received.toString(),
      balanceSats: balance.toString(),
      utxoCount: utxos,
    },
    offline: false,
    refreshing: false,
    lastFailure: null,
    balances: balanceColumns(rows),
    page: null,
    totals: {
      receivedSats: received.toString(),
      balanceSats: balance.toString(),
      pendingTrustedSats: pt.toString(),
      pendingUntrustedSats: pu.toString(),
      trustedSats: (balance + pt).toString(),
      pendingUnknown: unknown,
      utxoCount: utxos,
      addresses: rows.length,
    },
    ...over,
  };
}

/** The filter as the spec states it, written the slow obvious way. */
function naiveMatch(r: BalanceRowView, text: string): boolean {
  const terms = text.toLowerCase().split(/\s+/).filter(Boolean);
  const fields = [r.label ?? '', r.nodeLabel ?? '', r.address, typeSearchText(r.type)].map((f) => f.toLowerCase());
  return terms.every((t) => fields.some((f) => f.includes(t)));
}

const flush = () => new Promise((res) => setTimeout(res, 0));

describe('balances rows at 10,000', () => {
  const views = generate(10_000);
  const rows = views.map(prepareRow);

  it('prepares amounts as bigint and a lowercased search key', () => {
    const r = prepareRow(row({ address: 'bcrt1qABC', label: 'Cold Storage', nodeLabel: 'Node Thing', balanceSats: '2100000000000000', receivedSats: null }));
    expect(r.balance).toBe(2_100_000_000_000_000n);
    expect(r.received).toBeNull();
    expect(r.search).toBe(`cold storage\u0000node thing\u0000bcrt1qabc\u0000${typeSearchText(r.type).toLowerCase()}`);
    expect(r.sortLabel).toBe('cold storage');
    // An empty label is no label.
    expect(prepareRow(row({ label: '', nodeLabel: '' })).label).toBeNull();
  });

  it('rows from the wire columns equal the rows prepared one by one', () => {
    const cols = balanceColumns(views);
    expect(cols.address).toHaveLength(views.length);
    expect(balanceRows(cols)).toEqual(views);
    expect(prepareColumns(cols)).toEqual(rows);
  });

  it.each(['cold', 'STORAGE', 'node', 'bcrt1q', views[1234]!.address.slice(10, 20), 'ünï', 'CAFÉ', 'savings 12', 'rent bob', 'taproot', 'P2SH', 'segwit cold', 'zzzz-nothing', '  '])('filter %j gives exactly the rows that match', (text) => {
    const got = filterRows(rows, text, true).map((r) => r.address);
    const want = views.filter((v) => naiveMatch(v, text)).map((v) => v.address);
    expect(got).toEqual(want);
  });

  it('the filter finds an address type by its column name or a wallet word for it', () => {
    const r = ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'].map((type, i) => prepareRow(row({ address: `bcrt1qaddr${i}`, type })));
    const types = (text: string) => filterRows(r, text, true).map((x) => x.type);
    expect(types('P2WPKH')).toEqual(['p2wpkh']);
    expect(types('p2tr')).toEqual(['p2tr']);
    expect(types('taproot')).toEqual(['p2tr']);
    expect(types('legacy')).toEqual(['p2pkh']);
    expect(types('native segwit')).toEqual(['p2wpkh', 'p2wsh']);
    expect(types('p2sh')).toEqual(['p2sh']);
  });

  it('the filter does not match across fields', () => {
    const r = [prepareRow(row({ address: 'bcrt1qxyz', label: 'abc', nodeLabel: 'def' }))];
    expect(filterRows(r, 'cdef', true)).toHaveLength(0);
    expect(filterRows(r, 'abcbcrt', true)).toHaveLength(0);
    expect(filterRows(r, 'abc def', true)).toHaveLength(1);
  });

  it('hidden rows are left out unless asked for', () => {
    const shown = filterRows(rows, '', false);
    expect(shown.every((r) => !r.hidden)).toBe(true);
    expect(shown.length).toBe(views.filter((v) => !v.hidden).length);
    expect(filterRows(rows, '', true)).toHaveLength(10_000);
    const q = 'cold';
    expect(filterRows(rows, q, false).map((r) => r.address)).toEqual(views.filter((v) => !v.hidden && naiveMatch(v, q)).map((v) => v.address));
  });

  function value(r: BalanceRow, key: SortKey): string | number | bigint | null {
    switch (key) {
      case 'label':
        return r.sortLabel === '' ? null : r.sortLabel;
      case 'address':
        return r.address;
      case 'type':
        return r.type;
      case 'received':
        return r.received;
      case 'balance':
        return r.balance;
      case 'utxos':
        return r.utxoCount;
      case 'confirmations':
        return r.confirmations;
      case 'activity':
        return r.lastActivityHeight;
    }
  }

  for (const key of SORT_KEYS) {
    for (const dir of ['asc', 'desc'] as const) {
      it(`sorts by ${key} ${dir}: ordered, missing values last, ties by address, nothing lost`, () => {
        const sorted = sortRows(rows, { key, dir });
        expect(sorted).toHaveLength(rows.length);
        expect(new Set(sorted.map((r) => r.address)).size).toBe(rows.length);
        for (let i = 1; i < sorted.length; i++) {
          const a = value(sorted[i - 1]!, key);
          const b = value(sorted[i]!, key);
          if (a === null) {
            expect(b, `row ${i}: a value after the missing ones`).toBeNull();
          } else if (b !== null) {
            if (a === b) expect(sorted[i - 1]!.address < sorted[i]!.address).toBe(true);
            else expect(dir === 'asc' ? a < b : a > b, `row ${i}: ${String(a)} then ${String(b)}`).toBe(true);
          }
          if (a === null && b === null) expect(sorted[i - 1]!.address < sorted[i]!.address).toBe(true);
        }
        // The input is not reordered.
        expect(rows[0]!.address).toBe(views[0]!.address);
      });
    }
  }

  it('totals are exact bigint sums of the rows given', () => {
    const shown = filterRows(rows, 'cold', false);
    const t = totalsOf(shown);
    let received = 0n;
    let balance = 0n;
    let utxos = 0;
    let pendingTrusted = 0n;
    let untrustedPending = 0n;
    let pendingUnknown = 0;
    for (const r of shown) {
      received += r.received ?? 0n;
      balance += r.balance;
      utxos += r.utxoCount;
      if (r.pendingTrustedSats === null || r.pendingUntrustedSats === null) pendingUnknown++;
      else {
        pendingTrusted += BigInt(r.pendingTrustedSats);
        untrustedPending += BigInt(r.pendingUntrustedSats);
      }
    }
    expect(pendingTrusted + untrustedPending).toBeGreaterThan(0n); // the generated rows do have pending coins
    expect(pendingUnknown).toBeGreaterThan(0);
    expect(t).toEqual({ rows: shown.length, received, balance, trusted: balance + pendingTrusted, pendingTrusted, untrustedPending, pendingUnknown, utxos });
    // Past 2^53 sats a float sum would round; bigint does not.
    const big = [row({ address: 'a', balanceSats: '9007199254740993' }), row({ address: 'b', balanceSats: '1' })].map(prepareRow);
    expect(totalsOf(big).balance).toBe(9_007_199_254_740_994n);
  });

  it('the store: sort once, filter keystrokes over the sorted rows, totals of what is shown', async () => {
    api.handle('watch:overview', overview(views));
    const watch = useWatchStore();
    expect(await watch.load()).toBe(true);
    expect(watch.rows).toHaveLength(10_000);
    expect(watch.sort).toEqual({ key: 'balance', dir: 'desc' });
    const notHidden = views.filter((v) => !v.hidden);
    expect(watch.visible).toHaveLength(notHidden.length);
    expect(watch.visible[0]!.balance >= watch.visible[1]!.balance).toBe(true);

    watch.setFilter('Savings'); // no animation frames in Node: applied at once
    expect(watch.filter).toBe('Savings');
    const want = notHidden.filter((v) => naiveMatch(v, 'Savings'));
    expect(watch.visible.map((r) => r.address).sort()).toEqual(want.map((v) => v.address).sort());
    expect(watch.totals.balance).toBe(want.reduce((s, v) => s + BigInt(v.balanceSats), 0n));

    watch.setSort('label');
    expect(watch.sort).toEqual({ key: 'label', dir: DEFAULT_DIR.label });
    watch.setSort('label');
    expect(watch.sort.dir).toBe('desc');
    watch.setSort('utxos');
    expect(watch.sort).toEqual({ key: 'utxos', dir: 'desc' });
    for (let i = 1; i < watch.visible.length; i++) expect(watch.visible[i - 1]!.utxoCount >= watch.visible[i]!.utxoCount).toBe(true);

    watch.showHidden = true;
    expect(watch.visible).toHaveLength(views.filter((v) => naiveMatch(v, 'Savings')).length);
    expect(watch.hiddenCount).toBe(views.filter((v) => v.hidden).length);
  });
});

describe('useWatchStore actions and events', () => {
  const summary: RefreshSummaryView = {
    snapshotId: 4,
    addresses: 2,
    infosFetched: 0,
    utxoLookups: 1,
    carriedForward: 1,
    diff: { newUtxos: 1, newSats: '5000', spentUtxos: 0, spentSats: '0', newTxids: 1 },
    ms: 120,
  };

  it('a refresh shows its progress from events, then reloads the overview', async () => {
    const rows = [row({ address: 'bcrt1qa', balanceSats: '100', utxoCount: 1 })];
    api.handle('watch:overview', overview(rows));
    let finish: (v: RefreshSummaryView) => void = () => {};
    api.handle('watch:refresh', () => new Promise((res) => (finish = (v) => res({ ok: true, value: v }))));
    const watch = useWatchStore();
    await watch.load();
    const before = api.calls.filter((c) => c.channel === 'watch:overview').length;

    const running = watch.refresh();
    expect(watch.refreshing).toBe(true);
    expect(watch.progress).toBeNull();
    api.emit('refresh:progress', { phase: 'received', done: 0, total: 1 });
    expect(watch.progress).toEqual({ phase: 'received', done: 0, total: 1 });
    api.emit('refresh:progress', { phase: 'utxos', done: 3, total: 10 });
    expect(watch.progress).toEqual({ phase: 'utxos', done: 3, total: 10 });
    // A second click while running does not start another.
    expect(await watch.refresh()).toBeNull();
    expect(api.calls.filter((c) => c.channel === 'watch:refresh')).toHaveLength(1);

    api.handle('watch:overview', overview([row({ address: 'bcrt1qa', balanceSats: '5100', utxoCount: 2 })]));
    finish(summary);
    expect(await running).toEqual(summary);
    expect(watch.refreshing).toBe(false);
    expect(watch.progress).toBeNull();
    expect(watch.lastSummary).toEqual(summary);
    expect(api.calls.filter((c) => c.channel === 'watch:overview').length).toBeGreaterThan(before);
    expect(watch.rows[0]!.balance).toBe(5100n);
    // A late progress event of the finished refresh does not bring the bar back.
    api.emit('refresh:progress', { phase: 'write', done: 1, total: 1 });
    expect(watch.refreshing).toBe(false);
  });

  it('another profile: nothing of the previous one shows while its overview loads', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qfirst', balanceSats: '100', utxoCount: 1 })]));
    const watch = useWatchStore();
    api.emit('connection:changed', { state: 'connecting', profileId: 'p1' });
    await watch.load();
    watch.setFilter('first');
    expect(watch.rows.map((r) => r.address)).toEqual(['bcrt1qfirst']);
    // The second profile's overview is on its way: until it comes, the first's rows are gone.
    let give: () => void = () => {};
    api.handle('watch:overview', () => new Promise((res) => (give = () => res({ ok: true, value: overview([row({ address: 'bcrt1qsecond' })]) }))));
    api.emit('connection:changed', { state: 'connecting', profileId: 'p2' });
    expect(watch.rows).toEqual([]);
    expect(watch.overview).toBeNull();
    expect(watch.filterInput).toBe('');
    give();
    await vi.waitFor(() => expect(watch.rows.map((r) => r.address)).toEqual(['bcrt1qsecond']), { timeout: 30_000 });
    // The same profile again (back online): the rows stay while it reloads.
    api.emit('connection:changed', { state: 'connecting', profileId: 'p2' });
    expect(watch.rows.map((r) => r.address)).toEqual(['bcrt1qsecond']);
  });

  it('a failed refresh keeps the previous rows and shows the recorded failure', async () => {
    const rows = [row({ address: 'bcrt1qa', balanceSats: '100', utxoCount: 1 })];
    api.handle('watch:overview', overview(rows));
    const watch = useWatchStore();
    await watch.load();
    const failure = { at: '2025-01-02T11:00:00.000Z', step: 'utxos' as const, code: 'index.http', message: 'The index answered HTTP 500.' };
    api.fail('watch:refresh', { code: 'index.http', message: 'The index answered HTTP 500.' });
    api.handle('watch:overview', overview(rows, { lastFailure: failure }));
    expect(await watch.refresh()).toBeNull();
    expect(watch.lastFailure).toEqual(failure);
    expect(watch.rows[0]!.balance).toBe(100n);
    expect(watch.snapshot?.id).toBe(3);
    // Main recorded it: the call's own error is not shown a second time.
    expect(watch.refreshError?.code).toBe('index.http');
    expect(watch.callError).toBeNull();
  });

  it('a refresh refused before it starts (not connected) is shown as the call error', async () => {
    api.handle('watch:overview', overview([], { offline: true }));
    api.fail('watch:refresh', { code: 'net.refused', message: 'The node refused the connection.' });
    const watch = useWatchStore();
    await watch.load();
    expect(watch.offline).toBe(true);
    await watch.refresh();
    expect(watch.callError).toEqual({ code: 'net.refused', message: 'The node refused the connection.' });
  });

  it('cancel: asks main, and the cancelled refresh is a calm note, not an error', async () => {
    api.handle('watch:overview', overview([]));
    let reject: () => void = () => {};
    api.handle('watch:refresh', () => new Promise((res) => (reject = () => res({ ok: false, error: { code: 'cancelled', message: 'Cancelled.' } }))));
    api.handle('watch:cancel', () => {
      reject();
      return { ok: true, value: { cancelled: true } };
    });
    const watch = useWatchStore();
    const running = watch.refresh();
    expect(await watch.cancel()).toBe(true);
    expect(await running).toBeNull();
    expect(watch.refreshError).toBeNull();
    expect(watch.notice).toMatch(/cancelled/i);
    expect(watch.refreshing).toBe(false);
    expect(watch.cancelling).toBe(false);
  });

  it('watch:changed reloads the overview; bursts are coalesced', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa' })]));
    const watch = useWatchStore();
    expect(api.listenerCount('watch:changed')).toBe(1);
    expect(api.listenerCount('refresh:progress')).toBe(1);
    await watch.load();
    const count = () => api.calls.filter((c) => c.channel === 'watch:overview').length;
    const before = count();
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa' }), row({ address: 'bcrt1qb' })]));
    api.emit('watch:changed', { snapshotId: 5, failed: false });
    api.emit('watch:changed', { snapshotId: 5, failed: false });
    api.emit('watch:changed', { snapshotId: 5, failed: false });
    await flush();
    await flush();
    expect(count() - before).toBeLessThanOrEqual(2);
    expect(count() - before).toBeGreaterThanOrEqual(1);
    expect(watch.rows).toHaveLength(2);
  });

  it('marks (User Timing) when the page\'s first overview reaches the store, once per page', async () => {
    performance.clearMarks(FIRST_ROWS_MARK);
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa' }), row({ address: 'bcrt1qb' })]));
    const watch = useWatchStore();
    expect(performance.getEntriesByName(FIRST_ROWS_MARK, 'mark')).toHaveLength(0);
    await watch.load();
    const marks = performance.getEntriesByName(FIRST_ROWS_MARK, 'mark') as PerformanceMark[];
    expect(marks).toHaveLength(1);
    expect(marks[0]!.detail).toEqual({ rows: 2 });
    // Later overviews (refreshes, events) add none: the timeline does not grow while the app runs.
    await watch.load();
    api.emit('watch:changed', { snapshotId: 5, failed: false });
    await flush();
    await flush();
    expect(performance.getEntriesByName(FIRST_ROWS_MARK, 'mark')).toHaveLength(1);
  });

  it('progress events from a refresh started elsewhere show the bar until the overview says it is over', async () => {
    api.handle('watch:overview', overview([], { refreshing: true }));
    const watch = useWatchStore();
    await watch.load();
    expect(watch.refreshing).toBe(true);
    api.emit('refresh:progress', { phase: 'addressinfo', done: 5, total: 9 });
    expect(watch.progress?.phase).toBe('addressinfo');
    api.handle('watch:overview', overview([]));
    api.emit('watch:changed', { snapshotId: 6, failed: false });
    await flush();
    expect(watch.refreshing).toBe(false);
    expect(watch.progress).toBeNull();
  });

  it('setLabel saves through labels:set and updates the row and its search key', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa', nodeLabel: 'from node' }), row({ address: 'bcrt1qb' })]));
    api.handle('labels:set', { removed: false });
    const watch = useWatchStore();
    await watch.load();
    expect(await watch.setLabel('bcrt1qa', '  Cold storage  ')).toBe(true);
    expect(api.calls.at(-1)).toEqual({ channel: 'labels:set', request: { type: 'addr', ref: 'bcrt1qa', label: 'Cold storage' } });
    expect(watch.rows.find((r) => r.address === 'bcrt1qa')?.label).toBe('Cold storage');
    watch.setFilter('cold');
    expect(watch.visible.map((r) => r.address)).toEqual(['bcrt1qa']);
    // Empty removes the local label; the node's stays.
    expect(await watch.setLabel('bcrt1qa', '')).toBe(true);
    const a = watch.rows.find((r) => r.address === 'bcrt1qa')!;
    expect(a.label).toBeNull();
    expect(a.nodeLabel).toBe('from node');
    expect(watch.visible).toHaveLength(0);
  });

  it('a failed label save leaves the row as it was and says why', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa', label: 'old' })]));
    api.fail('labels:set', { code: 'input.invalid', message: 'The label is longer than 255 characters' });
    const watch = useWatchStore();
    await watch.load();
    expect(await watch.setLabel('bcrt1qa', 'x'.repeat(300))).toBe(false);
    expect(watch.actionError?.code).toBe('input.invalid');
    expect(watch.rows[0]!.label).toBe('old');
  });

  it('hide and remove', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa' }), row({ address: 'bcrt1qu', source: 'user' })]));
    api.handle('watch:hide', (req) => ({ ok: true, value: { hidden: req.hidden } }));
    api.handle('watch:remove', { removed: true });
    const watch = useWatchStore();
    await watch.load();
    expect(await watch.hide('bcrt1qa', true)).toBe(true);
    expect(watch.visible.map((r) => r.address)).toEqual(['bcrt1qu']);
    expect(watch.hiddenCount).toBe(1);
    expect(await watch.remove('bcrt1qu')).toBe(true);
    expect(watch.rows.map((r) => r.address)).toEqual(['bcrt1qa']);
  });

  it('add: errors per line and nothing reloaded; a clean add reloads', async () => {
    api.handle('watch:overview', overview([]));
    const watch = useWatchStore();
    await watch.load();
    const count = () => api.calls.filter((c) => c.channel === 'watch:overview').length;
    api.handle('watch:add', { added: 0, existing: 0, errors: [{ line: 2, input: 'nope', message: 'Invalid or unsupported Base58-encoded address.' }], unserved: 0, unservedExamples: [] });
    const before = count();
    const bad = await watch.add('bcrt1qa\nnope');
    expect(bad?.errors).toHaveLength(1);
    expect(count()).toBe(before);
    api.handle('watch:add', { added: 1, existing: 0, errors: [], unserved: 0, unservedExamples: [] });
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa', source: 'user' })]));
    expect((await watch.add('bcrt1qa'))?.added).toBe(1);
    expect(count()).toBe(before + 1);
    expect(watch.rows).toHaveLength(1);
  });

  it('exportCsv asks in the unit shown', async () => {
    api.handle('watch:export-csv', { text: 'address,balance\r\n', rows: 0 });
    const watch = useWatchStore();
    watch.setUnit('sats');
    await watch.exportCsv(true);
    expect(api.calls.at(-1)).toEqual({ channel: 'watch:export-csv', request: { unit: 'sats', includeHidden: true } });
  });

  it('the unit and the sort persist in localStorage', () => {
    const mem = new Map<string, string>();
    vi.stubGlobal('localStorage', { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) });
    const a = useWatchStore();
    expect(a.unit).toBe('btc');
    a.toggleUnit();
    a.setSort('address');
    expect(mem.get('spyglass.unit')).toBe('sats');
    setActivePinia(createPinia());
    const b = useWatchStore();
    expect(b.unit).toBe('sats');
    expect(b.sort).toEqual({ key: 'address', dir: 'asc' });
    mem.set('spyglass.balances.sort', '{"key":"nonsense"}');
    setActivePinia(createPinia());
    expect(useWatchStore().sort).toEqual({ key: 'balance', dir: 'desc' });
  });

  it('the overview loaded as the app starts is the first Balances screen\'s; later screens ask again', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa' })]));
    const watch = useWatchStore();
    const count = () => api.calls.filter((c) => c.channel === 'watch:overview').length;
    const start = watch.loadAtStart();
    expect(await watch.shown()).toBe(true); // joins the start load
    await start;
    expect(count()).toBe(1);
    await watch.shown();
    expect(count()).toBe(2);
    // Not taken before the first screen was up: a later screen asks again.
    const again = watch.loadAtStart();
    await again;
    watch.startDone();
    await watch.shown();
    expect(count()).toBe(4);
  });

  it('a failed overview load keeps what was shown', async () => {
    api.handle('watch:overview', overview([row({ address: 'bcrt1qa' })]));
    const watch = useWatchStore();
    await watch.load();
    api.fail('watch:overview', { code: 'internal', message: 'The Spyglass bridge is not reachable: HTTP 502' });
    expect(await watch.load()).toBe(false);
    expect(watch.loadError?.code).toBe('internal');
    expect(watch.rows).toHaveLength(1);
    expect(watch.loaded).toBe(true);
  });
});

describe('incremental filtering', () => {
  it('typing on, deleting, and changing the text all give the same rows as filtering from scratch', async () => {
    const views = generate(3000, 11);
    api.handle('watch:overview', overview(views));
    const watch = useWatchStore();
    await watch.load();
    const sequence = ['c', 'co', 'col', 'cold', 'cold ', 'cold s', 'cold st', 'cold s', 'cold', 'old', 'bcrt1q', 'bcrt1qa', '', 'ALICE', 'alice 1', 'x'];
    for (const text of sequence) {
      watch.setFilter(text);
      const want = views.filter((v) => !v.hidden && naiveMatch(v, text)).map((v) => v.address).sort();
      expect(watch.visible.map((r) => r.address).sort(), `filter ${JSON.stringify(text)}`).toEqual(want);
    }
    watch.setFilter('cold');
    watch.showHidden = true;
    expect(watch.visible.length).toBe(views.filter((v) => naiveMatch(v, 'cold')).length);
    watch.setSort('address');
    expect(watch.visible.map((r) => r.address)).toEqual(views.filter((v) => naiveMatch(v, 'cold')).map((v) => v.address).sort());
  });
});
