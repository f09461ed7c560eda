// A large wallet's balances, sorted, filtered and paged in main (electron/main/store/overview-model.ts,
// read in slices by OverviewQuery.model) on a real SQLite file of 24,000 rows: every page of every
// sort order, with and without hidden rows and filters, equals the same rows sorted and filtered by
// the renderer's own functions (renderer/src/stores/balance-table.ts, what the table did with every
// row before); the totals equal the overview's totals of today (OverviewQuery.balances) and the
// renderer's totalsOf; another wallet's snapshot never shows the first wallet's rows.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SORT_KEYS } from '../../shared/balance-query';
import type { BalancePage, BalanceQuery, BalanceTotals } from '../../shared/ipc/contract';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { OVERVIEW_SLICE, OverviewQuery } from '../../electron/main/store/overview';
import { OverviewModel } from '../../electron/main/store/overview-model';
import { WatchRepository, type NewSnapshot } from '../../electron/main/store/watch';
import { prepareColumns, type BalanceRow } from '../../renderer/src/stores/balance-row';
import { filterRows, sortRows, totalsOf, type Totals } from '../../renderer/src/stores/balance-table';
import { newProfile, tip } from '../support/watch-data';

const N = 24_000;
const typeOf = (address: string): string => (address.startsWith('bcrt1p') ? 'p2tr' : address.startsWith('bcrt1q') ? 'p2wpkh' : 'p2pkh');

let dir: string;
let db: Database;
let repo: WatchRepository;
let profileId: string;
let snapshotId: number;
let addresses: string[];
let hiddenCount = 0;

function address(i: number, version: 0 | 1): string {
  const program = createHash('sha256').update(`overview-page-${i}`).digest().subarray(0, version === 0 ? 20 : 32);
  return bech32.encode('bcrt', [version, ...bech32.toWords(program)], 200);
}
const txid = (i: number): string => createHash('sha256').update(`overview-page-tx-${i}`).digest('hex');

/**
 * 24,000 addresses: taproot and segwit, node and user ones (no received entry), many equal balances
 * (ties), labels local and the node's (upper case, empty, shared words), pending coins known and not,
 * UTXOs unconfirmed (no height) and none, about one in nine hidden.
 */
function snapshotOf(n: number, wallet: string): NewSnapshot {
  const received: NewSnapshot['received'] = [];
  const rows: NewSnapshot['addresses'] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    const a = address(i + (wallet === 'watch' ? 0 : 1_000_000), i % 5 === 0 ? 1 : 0);
    addresses.push(a);
    const user = i % 7 === 3;
    if (!user) {
      const pending = i % 11 === 0 ? null : i % 4 === 0 ? [{ txid: txid(t++), vout: 0, amountSats: BigInt(1000 + (i % 13)), safe: i % 8 === 0 }] : [];
      received.push({
        address: a,
        amountSats: BigInt((i % 50) * 10_000),
        confirmations: i % 9,
        txids: [],
        nodeLabel: i % 6 === 0 ? `Node ${['Rent', 'savings', 'ÉCOLE', ''][i % 4]} ${i % 100}` : '',
        nodeUnspent: pending === null ? null : { hash: `h${i}`, sats: 0n, count: 0, pending },
      });
    }
    const utxos = [];
    for (let k = 0; k < i % 4; k++) utxos.push({ txid: txid(t++), vout: k, amountSats: BigInt(((i * 7 + k) % 30) * 1000), height: (i + k) % 10 === 0 ? null : 100 + ((i * 3) % 400) });
    const source = user ? ('user' as const) : ('node' as const);
    rows.push(i % 97 === 0 ? { address: a, source, state: 'failed', errorCode: 'index.http' } : { address: a, source, state: 'fetched', utxos });
  }
  return { takenAt: '2026-11-28T00:00:00.000Z', node: tip(600), index: tip(590), previousId: null, received, addresses: rows };
}

const asTotals = (t: BalanceTotals): Totals => ({
  rows: t.addresses,
  received: BigInt(t.receivedSats),
  balance: BigInt(t.balanceSats),
  trusted: BigInt(t.trustedSats),
  pendingTrusted: BigInt(t.pendingTrustedSats),
  untrustedPending: BigInt(t.pendingUntrustedSats),
  pendingUnknown: t.pendingUnknown,
  utxos: t.utxoCount,
});

/** Every row of `query`, page by page (`size` rows a page), as the service asks: prepare (the sliced sort, the search keys), then pages. */
async function allPages(model: OverviewModel, query: BalanceQuery, size: number): Promise<{ addresses: string[]; first: BalancePage }> {
  await model.prepare(query);
  const first = model.page(query, 0, size);
  const out = [...first.rows.address];
  for (let from = size; from < first.count; from += size) {
    const p = model.page(query, from, size);
    expect(p.count).toBe(first.count);
    expect(p.version).toBe(first.version);
    out.push(...p.rows.address);
  }
  return { addresses: out, first };
}

function scope(wallet: string) {
  return { profileId, wallet };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-overview-page-'));
  db = openDatabase(join(dir, 'spyglass.sqlite'));
  repo = new WatchRepository(db);
  profileId = newProfile(db);
  addresses = [];
  const s = snapshotOf(N, 'watch');
  repo.addAddresses(scope('watch'), s.addresses.filter((r) => r.source === 'user').map((r) => r.address), 'user');
  snapshotId = repo.writeSnapshot(scope('watch'), s);
  for (let i = 0; i < N; i += 9) hiddenCount += repo.setHidden(scope('watch'), [addresses[i]!], true);
  for (let i = 1; i < N; i += 10) repo.setLabel(scope('watch'), { type: 'addr', ref: addresses[i]!, label: ['Savings', 'rent deposit', 'Zoë', 'savings B'][i % 4]! });
}, 120_000);

afterAll(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

describe('the paged overview (OverviewQuery.model, OverviewModel.page)', () => {
  let model: OverviewModel;
  let rows: BalanceRow[];
  let today: ReturnType<OverviewQuery['balances']>;

  beforeAll(async () => {
    const q = new OverviewQuery(db);
    model = await q.model(profileId, snapshotId, 590, typeOf, 'test');
    today = new OverviewQuery(db).balances(profileId, snapshotId, 590, typeOf, 'test');
    rows = prepareColumns(today.balances);
  }, 60_000);

  it('reads, in slices, the same rows as the overview of one query, and its totals', () => {
    expect(N).toBeGreaterThan(OVERVIEW_SLICE * 10);
    expect(model.n).toBe(N);
    expect(model.cols).toEqual(today.balances);
    expect(model.shownTotals).toEqual(today.totals);
    expect(hiddenCount).toBeGreaterThan(N / 20);
    expect(model.hiddenRows).toBe(hiddenCount);
    // The data has what the orders must handle: ties, missing values, labels of both kinds.
    expect(new Set(today.balances.balanceSats).size).toBeLessThan(N / 10);
    expect(today.balances.receivedSats.filter((x) => x === null).length).toBeGreaterThan(1000);
    expect(today.balances.label.filter((x) => x !== null).length).toBeGreaterThan(1000);
    expect(today.balances.nodeLabel.filter((x) => x !== null && x !== '').length).toBeGreaterThan(1000);
    expect(today.balances.pendingTrustedSats.filter((x) => x === null).length).toBeGreaterThan(1000);
  });

  it('every sort order, both directions, hidden rows left out and shown: the renderer’s order, page by page', async () => {
    // Without prepare (every order made in one go) the same rows as with it (runs merged in slices).
    const unprepared = new OverviewModel('plain', model.cols);
    for (const sort of SORT_KEYS) {
      for (const dir of ['asc', 'desc'] as const) {
        for (const showHidden of [false, true]) {
          const query: BalanceQuery = { sort, dir, filter: '', showHidden };
          const want = filterRows(sortRows(rows, { key: sort, dir }), '', showHidden);
          const got = await allPages(model, query, 997);
          expect(got.addresses, `${sort} ${dir} hidden:${showHidden}`).toEqual(want.map((r) => r.address));
          expect(Array.from(unprepared.select(query), (i) => model.cols.address[i])).toEqual(got.addresses);
          expect(got.first.count).toBe(want.length);
          expect(asTotals(got.first.totals)).toEqual(totalsOf(want));
        }
      }
    }
  });

  it('filters (labels, node labels, addresses, type words, several terms) as the renderer does, with their totals', async () => {
    const filters = ['savings', 'SAVINGS rent', 'école', 'zoë', 'node 4', 'native segwit', 'taproot', 'p2tr', addresses[123]!.slice(8, 16), 'nothing-matches-this', '  rent   '];
    for (const filter of filters) {
      for (const [sort, dir] of [['balance', 'desc'], ['label', 'asc'], ['confirmations', 'desc']] as const) {
        for (const showHidden of [false, true]) {
          const want = filterRows(sortRows(rows, { key: sort, dir }), filter, showHidden);
          const got = await allPages(model, { sort, dir, filter, showHidden }, 500);
          expect(got.addresses, `"${filter}" ${sort} ${dir} hidden:${showHidden}`).toEqual(want.map((r) => r.address));
          expect(asTotals(got.first.totals)).toEqual(totalsOf(want));
        }
      }
    }
    expect(model.page({ sort: 'balance', dir: 'desc', filter: 'savings', showHidden: false }, 0, 10).count).toBeGreaterThan(100);
  });

  it('the totals of every row and of the rows not hidden are today’s, and a page past the end is empty', () => {
    const p = model.page({ sort: 'balance', dir: 'desc', filter: '', showHidden: false }, N, 100);
    expect(p.rows.address).toEqual([]);
    expect(p.totals).toEqual(today.totals);
    expect(asTotals(p.allTotals)).toEqual(totalsOf(rows));
    expect(p.allRows).toBe(N);
    expect(p.count).toBe(N - model.hiddenRows);
  });

  it('is kept until a row is written; a label makes the next call read again, with another version', async () => {
    const q = new OverviewQuery(db);
    const a = await q.model(profileId, snapshotId, 590, typeOf, 'test');
    const [b, c] = await Promise.all([q.model(profileId, snapshotId, 590, typeOf, 'test'), q.model(profileId, snapshotId, 590, typeOf, 'test')]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    const target = addresses[5]!;
    repo.setLabel(scope('watch'), { type: 'addr', ref: target, label: 'Fresh label' });
    const d = await q.model(profileId, snapshotId, 590, typeOf, 'test');
    expect(d).not.toBe(a);
    expect(d.version).not.toBe(a.version);
    const found = d.page({ sort: 'label', dir: 'asc', filter: 'fresh label', showHidden: true }, 0, 10);
    expect(found.rows.address).toEqual([target]);
    repo.setLabel(scope('watch'), { type: 'addr', ref: target, label: '' });
  });

  it('a write between two slices makes the read start again, so that no model mixes two versions', async () => {
    const q = new OverviewQuery(db);
    const target = today.balances.address[1]!; // in the first slice
    const reading = q.model(profileId, snapshotId, 590, typeOf, 'test');
    // The read has done its first slice and waits for its turn: a label written now on a row of that
    // slice is in the result only when the read starts again.
    repo.setLabel(scope('watch'), { type: 'addr', ref: target, label: 'Written meanwhile' });
    const m = await reading;
    const i = m.cols.address.indexOf(target);
    expect(m.cols.label[i]).toBe('Written meanwhile');
    expect(m.cols.hidden.filter(Boolean).length).toBe(hiddenCount);
    repo.setLabel(scope('watch'), { type: 'addr', ref: target, label: '' });
  });

  it('another wallet of the profile: its own rows only, another version, none of the first wallet’s labels', async () => {
    const before = addresses.length;
    const s = snapshotOf(6_000, 'cold');
    const cold = addresses.slice(before);
    const id = repo.writeSnapshot(scope('cold'), s);
    repo.setLabel(scope('cold'), { type: 'addr', ref: cold[0]!, label: 'Cold only' });
    const q = new OverviewQuery(db);
    const first = await q.model(profileId, snapshotId, 590, typeOf, 'test');
    const other = await q.model(profileId, id, 590, typeOf, 'test');
    expect(other.version).not.toBe(first.version);
    expect(other.n).toBe(6_000);
    expect(new Set(other.cols.address)).toEqual(new Set(cold));
    expect(other.cols.address.some((a) => addresses.indexOf(a) < before)).toBe(false);
    // Labels and hidden marks are the wallet's own.
    expect(other.cols.label.filter((l) => l !== null)).toEqual(['Cold only']);
    expect(other.hiddenRows).toBe(0);
    expect(other.page({ sort: 'label', dir: 'asc', filter: 'savings', showHidden: true }, 0, 100).rows.address.every((a) => cold.includes(a))).toBe(true);
    // The first wallet's model is unchanged by the other one's label only in its content; it is read again.
    const again = await q.model(profileId, snapshotId, 590, typeOf, 'test');
    expect(again.cols).toEqual(today.balances);
  });
});
