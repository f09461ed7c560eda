// The balances overview (`watch:overview`) read straight into its wire columns: one aggregate query
// over the snapshot's indexed tables (primary keys and the covering snapshot_utxos_address index),
// prepared once per connection and read in raw mode (arrays, no per-row objects from SQLite), with
// the totals summed in bigint sats (store/overview-totals.ts totalsOf). 10,000 rows /
// 20,000 UTXOs: ~60 ms here instead of ~440 ms through WatchRepository.balances (bigint amounts, then
// a second mapping to one object per row).
//
// The same rows and values as WatchRepository.balances seen through the service's row view
// (test/main/overview.test.ts compares the two); the schema is migrations/0020-watch.ts.
import type BetterSqlite3 from 'better-sqlite3';
import type { BalanceColumns, BalancePage, BalanceQuery, BalanceTotals } from '../../../shared/ipc/contract';
import type { Database } from './db';
import { firstAddresses, rowsOf, servesFirst } from './overview-first';
import { OverviewModel } from './overview-model';
import { BALANCES_RANGE_SQL, BALANCES_SQL, emptyColumns, fill, hiddenAddresses, turn, type RawRow } from './overview-rows';
import { hiddenSums, minus, rangeSums, storedSums, storeSums, sumInSlices, totalsOf, wireTotals, type Sums } from './overview-totals';

export interface OverviewRows {
  balances: BalanceColumns;
  /** Of the rows that are not hidden. */
  totals: BalanceTotals;
}

/** Rows read per slice of a sliced read (each slice one query, then a turn of the event loop). */
export const OVERVIEW_SLICE = 1000;

export class OverviewQuery {
  readonly #db: Database;
  #balances: BetterSqlite3.Statement<[{ p: string; s: number }], RawRow> | null = null;
  #changes: BetterSqlite3.Statement<[], number> | null = null;
  #dataVersion: BetterSqlite3.Statement<[], number> | null = null;
  /** The last result, with what it was computed from (see balances). */
  #last: { key: string; rows: OverviewRows } | null = null;
  #addresses: BetterSqlite3.Statement<[number, string, number], string> | null = null;
  #count: BetterSqlite3.Statement<[number], number> | null = null;
  #countUpTo: BetterSqlite3.Statement<[number, number], number> | null = null;
  #range: BetterSqlite3.Statement<[{ p: string; s: number; lo: string; hi: string }], RawRow> | null = null;
  /** The last model (see model), or the read making it; `ready` once it is made. */
  #model: { key: string; model: Promise<OverviewModel>; ready: boolean } | null = null;
  /** Sums of snapshots written before schema 110 being made (#sums), by snapshot. */
  readonly #summing = new Map<number, Promise<Sums>>();

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * The balances rows of snapshot `snapshotId` of `profileId` (the caller has checked that it is one
   * of the profile's snapshots), by address; `indexTip`: the snapshot's index height, for the
   * confirmations; `typeOf`: the address type name, `typesKey` naming how it decides (the network).
   *
   * The last result is kept while it is certain to be unchanged: same arguments, and not one row of
   * the database written since — on this connection (SQLite's total_changes(), which every INSERT,
   * UPDATE and DELETE moves, committed or not) nor on another one (PRAGMA data_version). So asking
   * again (every Balances visit, a reloaded window, the events that reload it) costs two tiny
   * queries, and any write — a refresh, a label, hiding an address — makes the next call read again.
   * The result is shared between callers: it must not be modified.
   */
  balances(profileId: string, snapshotId: number, indexTip: number | null, typeOf: (address: string) => string, typesKey: string): OverviewRows {
    const key = this.#key(profileId, snapshotId, indexTip, typesKey);
    if (this.#last?.key === key) return this.#last.rows;
    const rows = this.#read(profileId, snapshotId, indexTip, typeOf);
    this.#last = { key, rows };
    return rows;
  }

  /** How many rows snapshot `snapshotId` has (as its stored totals count them, else its primary key's count). */
  rowCount(snapshotId: number): number {
    const stored = storedSums(this.#db, snapshotId);
    if (stored !== null) return stored.addresses;
    this.#count ??= this.#db.prepare<[number], number>('SELECT COUNT(*) FROM snapshot_fetched WHERE snapshot_id = ?').pluck(true);
    return this.#count.get(snapshotId) ?? 0;
  }

  /**
   * Whether snapshot `snapshotId` has more than `limit` rows: its stored totals' count, else a count
   * that stops past `limit` (a whole count of a large snapshot not yet in SQLite's cache holds the
   * main process for a few hundred ms).
   */
  hasMoreRows(snapshotId: number, limit: number): boolean {
    const stored = storedSums(this.#db, snapshotId);
    if (stored !== null) return stored.addresses > limit;
    this.#countUpTo ??= this.#db.prepare<[number, number], number>('SELECT COUNT(*) FROM (SELECT 1 FROM snapshot_fetched WHERE snapshot_id = ? LIMIT ?)').pluck(true);
    return (this.#countUpTo.get(snapshotId, limit + 1) ?? 0) > limit;
  }

  /** What the data of these arguments is now: a result computed under the same key is still right. */
  #key(profileId: string, snapshotId: number, indexTip: number | null, typesKey: string): string {
    return JSON.stringify([profileId, snapshotId, indexTip, typesKey, this.#dataKey()]);
  }

  /** Where the database is: it moves with every write, on this connection or another one. */
  #dataKey(): string {
    this.#changes ??= this.#db.prepare<[], number>('SELECT total_changes()').pluck(true);
    this.#dataVersion ??= this.#db.prepare<[], number>('PRAGMA data_version').pluck(true);
    return `${this.#changes.get()}:${this.#dataVersion.get()}`;
  }

  /**
   * The same rows as balances, held for paging (store/overview-model.ts), read in slices of
   * OVERVIEW_SLICE addresses with a turn of the event loop between them, so that the main process keeps
   * answering while 100,000 rows are read. Kept, like balances' result, while no row of the database
   * has been written; one read is shared by every caller that asks during it. A write between two
   * slices makes the read start again (the slices would be of two versions), at most three times; then
   * the rest is read in one go.
   */
  model(profileId: string, snapshotId: number, indexTip: number | null, typeOf: (address: string) => string, typesKey: string): Promise<OverviewModel> {
    const key = this.#key(profileId, snapshotId, indexTip, typesKey);
    if (this.#model?.key === key) return this.#model.model;
    const entry: { key: string; model: Promise<OverviewModel>; ready: boolean } = {
      key,
      ready: false,
      model: this.#readModel(profileId, snapshotId, indexTip, typeOf, typesKey, key).then(
        (m) => {
          entry.ready = true;
          return m;
        },
        (e: unknown) => {
          if (this.#model === entry) this.#model = null;
          throw e;
        },
      ),
    };
    this.#model = entry;
    return entry.model;
  }

  /**
   * The first `count` rows of `query` with the counts and totals of the page, without reading every
   * row (store/overview-first.ts: by address, or by balance largest first, with no filter): the totals
   * stored with the snapshot (store/overview-totals.ts; summed in slices and stored on the first read
   * of a snapshot written before schema 110) less the hidden rows'. Null when model answers instead:
   * another order or a filter, a model of this data already made, or data written meanwhile. The
   * page's version is the one the model of the same data gives its pages. `shown`: the totals of the
   * rows not hidden (the overview's `totals`).
   */
  async firstPage(
    profileId: string,
    snapshotId: number,
    indexTip: number | null,
    typeOf: (address: string) => string,
    typesKey: string,
    query: BalanceQuery,
    count: number,
  ): Promise<{ page: BalancePage; shown: BalanceTotals } | null> {
    // First (it may write the sums of an old snapshot): the model read after it finds them too.
    const all = await this.#sums(snapshotId);
    const key = this.#key(profileId, snapshotId, indexTip, typesKey);
    if ((this.#model?.key === key && this.#model.ready) || !servesFirst(query)) return null;
    const same = (): boolean => this.#key(profileId, snapshotId, indexTip, typesKey) === key;
    const n = all.addresses;
    const hidden = hiddenAddresses(this.#db, snapshotId);
    const addresses = await firstAddresses(this.#db, snapshotId, query, count, hidden, same);
    const rows = addresses === null || !same() ? null : rowsOf(this.#db, profileId, snapshotId, addresses, indexTip, typeOf);
    if (rows === null) return null;
    const hiddenRows = hiddenSums(this.#db, snapshotId, hidden);
    const shown = wireTotals(minus(all, hiddenRows));
    const allTotals = wireTotals(all);
    return {
      page: {
        version: versionOf(profileId, snapshotId, key),
        query,
        from: 0,
        rows,
        count: query.showHidden ? n : n - hiddenRows.addresses,
        totals: query.showHidden ? allTotals : shown,
        allRows: n,
        hiddenRows: hiddenRows.addresses,
        allTotals,
      },
      shown,
    };
  }

  /**
   * The sums of every row of snapshot `snapshotId`: stored with it, or — a snapshot written before
   * schema 110 — summed in slices (a turn of the event loop between two) and stored. A write during
   * the slices makes the sum start again, at most three times; then it is made in one query.
   */
  #sums(snapshotId: number): Promise<Sums> {
    const stored = storedSums(this.#db, snapshotId);
    if (stored !== null) return Promise.resolve(stored);
    let p = this.#summing.get(snapshotId);
    if (p === undefined) {
      p = this.#sumAndStore(snapshotId).finally(() => this.#summing.delete(snapshotId));
      this.#summing.set(snapshotId, p);
    }
    return p;
  }

  async #sumAndStore(snapshotId: number): Promise<Sums> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = this.#dataKey();
      const s = await sumInSlices(this.#db, snapshotId, () => this.#dataKey() === before);
      if (s !== null) {
        storeSums(this.#db, snapshotId, s);
        return s;
      }
    }
    const s = rangeSums(this.#db, snapshotId);
    storeSums(this.#db, snapshotId, s);
    return s;
  }

  async #readModel(profileId: string, snapshotId: number, indexTip: number | null, typeOf: (address: string) => string, typesKey: string, key: string): Promise<OverviewModel> {
    // The snapshot's addresses a slice at a time (keyset: the primary key from the last one read on).
    this.#addresses ??= this.#db.prepare<[number, string, number], string>('SELECT address FROM snapshot_fetched WHERE snapshot_id = ? AND address > ? ORDER BY address LIMIT ?').pluck(true);
    this.#range ??= this.#db.prepare<[{ p: string; s: number; lo: string; hi: string }], RawRow>(BALANCES_RANGE_SQL).raw(true);
    for (let attempt = 0; ; attempt++) {
      const c = emptyColumns(this.rowCount(snapshotId));
      let written = 0;
      let moved = false;
      for (let after = ''; ; ) {
        const slice = this.#addresses.all(snapshotId, after, OVERVIEW_SLICE);
        if (slice.length === 0) break;
        const raw = this.#range.all({ p: profileId, s: snapshotId, lo: slice[0]!, hi: slice[slice.length - 1]! });
        fill(c, written, raw, indexTip, typeOf);
        written += raw.length;
        after = slice[slice.length - 1]!;
        if (slice.length < OVERVIEW_SLICE) break;
        await turn();
        if (attempt < 3 && this.#key(profileId, snapshotId, indexTip, typesKey) !== key) {
          moved = true;
          break;
        }
      }
      if (moved) continue;
      // Rows added or removed while it was read (after the last retry): the columns as read.
      if (written !== c.address.length) for (const col of Object.values(c) as unknown[][]) col.length = written;
      // Written to meanwhile (after the last retry): the model is of what was read; the next call reads again.
      const now = this.#key(profileId, snapshotId, indexTip, typesKey);
      if (this.#model?.key === key && now !== key) this.#model = null;
      // The stored totals are of the rows read when nothing was written during the read.
      return new OverviewModel(versionOf(profileId, snapshotId, key), c, (now === key ? storedSums(this.#db, snapshotId) : null) ?? undefined);
    }
  }

  #read(profileId: string, snapshotId: number, indexTip: number | null, typeOf: (address: string) => string): OverviewRows {
    if (this.#balances === null) this.#balances = this.#db.prepare<[{ p: string; s: number }], RawRow>(BALANCES_SQL).raw(true);
    const raw = this.#balances.all({ p: profileId, s: snapshotId });
    const c = emptyColumns(raw.length);
    fill(c, 0, raw, indexTip, typeOf);
    const shown: number[] = [];
    for (let i = 0; i < raw.length; i++) if (!c.hidden[i]) shown.push(i);
    return { balances: c, totals: totalsOf(c, shown) };
  }
}

/** The version the pages of one version of the data carry: profile, snapshot and a short name of the key. */
function versionOf(profileId: string, snapshotId: number, key: string): string {
  return `${profileId}:${snapshotId}:${hashKey(key)}`;
}

/** A short, stable name of a key (FNV-1a), for the version pages carry. */
function hashKey(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
