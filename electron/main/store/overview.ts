// The balances overview (`watch:overview`) read straight into its wire columns: one aggregate query
// over the snapshot's indexed tables (primary keys and the covering snapshot_utxos_address index),
// prepared once per connection and read in raw mode (arrays, no per-row objects from SQLite), with
// the totals summed in the same pass as plain numbers (exact below 2^53; see exactSum). 10,000 rows /
// 20,000 UTXOs: ~60 ms here instead of ~440 ms through WatchRepository.balances (bigint amounts, then
// a second mapping to one object per row).
//
// The same rows and values as WatchRepository.balances seen through the service's row view
// (test/main/overview.test.ts compares the two); the schema is migrations/0020-watch.ts.
import type BetterSqlite3 from 'better-sqlite3';
import type { BalanceColumns, BalanceTotals, Sats } from '../../../shared/ipc/contract';
import type { Database } from './db';
import { OverviewModel } from './overview-model';
import { BALANCE_ROWS_FROM, PENDING_COLUMNS_SQL } from './watch';

export interface OverviewRows {
  balances: BalanceColumns;
  /** Of the rows that are not hidden. */
  totals: BalanceTotals;
}

type RawRow = [
  address: string,
  source: 'node' | 'user',
  state: 'fetched' | 'carried' | 'failed',
  fetchedAt: string | null,
  errorCode: string | null,
  hidden: number | null,
  received: number | null,
  receivedConfirmations: number | null,
  receivedTxCount: number | null,
  nodeLabel: string | null,
  label: string | null,
  balance: number | null,
  utxoCount: number | null,
  maxHeight: number | null,
  pendingTrusted: number | null,
  pendingUntrusted: number | null,
  pendingCount: number | null,
];

const BALANCES_SQL = `
  SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
         r.amount_sats, r.confirmations, json_array_length(r.txids), r.node_label,
         l.label, u.bal, u.cnt, u.maxh, ${PENDING_COLUMNS_SQL}
  ${BALANCE_ROWS_FROM}`;

/**
 * The same rows for the addresses from @lo to @hi (both included) only: BALANCE_ROWS_FROM with both the
 * rows and the UTXO sums bounded, so that reading a snapshot in slices costs one pass over it in all
 * (the primary key of snapshot_fetched and the snapshot_utxos_address index serve the ranges).
 */
const BALANCES_RANGE_SQL = `
  SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
         r.amount_sats, r.confirmations, json_array_length(r.txids), r.node_label,
         l.label, u.bal, u.cnt, u.maxh, ${PENDING_COLUMNS_SQL}
  FROM snapshot_fetched f
    LEFT JOIN addresses a ON a.profile_id = @p AND a.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND a.address = f.address
    LEFT JOIN snapshot_received r ON r.snapshot_id = f.snapshot_id AND r.address = f.address
    LEFT JOIN labels l ON l.profile_id = @p AND l.node_wallet = (SELECT node_wallet FROM snapshots WHERE id = @s) AND l.type = 'addr' AND l.ref = f.address
    LEFT JOIN (SELECT address, SUM(amount_sats) AS bal, COUNT(*) AS cnt, MAX(height) AS maxh
                 FROM snapshot_utxos WHERE snapshot_id = @s AND address BETWEEN @lo AND @hi GROUP BY address) u ON u.address = f.address
   WHERE f.snapshot_id = @s AND f.address BETWEEN @lo AND @hi
   ORDER BY f.address`;

/** Rows read per slice of a sliced read (each slice one query, then a turn of the event loop). */
export const OVERVIEW_SLICE = 1000;

/** Gives the event loop a turn (a ping, an IPC call) between two slices of work. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class OverviewQuery {
  readonly #db: Database;
  #balances: BetterSqlite3.Statement<[{ p: string; s: number }], RawRow> | null = null;
  #changes: BetterSqlite3.Statement<[], number> | null = null;
  #dataVersion: BetterSqlite3.Statement<[], number> | null = null;
  /** The last result, with what it was computed from (see balances). */
  #last: { key: string; rows: OverviewRows } | null = null;
  #addresses: BetterSqlite3.Statement<[number, string, number], string> | null = null;
  #count: BetterSqlite3.Statement<[number], number> | null = null;
  #range: BetterSqlite3.Statement<[{ p: string; s: number; lo: string; hi: string }], RawRow> | null = null;
  /** The last model (see model), or the read making it. */
  #model: { key: string; model: Promise<OverviewModel> } | null = null;

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

  /** How many rows snapshot `snapshotId` has (its primary key's count). */
  rowCount(snapshotId: number): number {
    this.#count ??= this.#db.prepare<[number], number>('SELECT COUNT(*) FROM snapshot_fetched WHERE snapshot_id = ?').pluck(true);
    return this.#count.get(snapshotId) ?? 0;
  }

  /** What the data of these arguments is now: a result computed under the same key is still right. */
  #key(profileId: string, snapshotId: number, indexTip: number | null, typesKey: string): string {
    this.#changes ??= this.#db.prepare<[], number>('SELECT total_changes()').pluck(true);
    this.#dataVersion ??= this.#db.prepare<[], number>('PRAGMA data_version').pluck(true);
    return JSON.stringify([profileId, snapshotId, indexTip, typesKey, this.#changes.get(), this.#dataVersion.get()]);
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
    const entry = {
      key,
      model: this.#readModel(profileId, snapshotId, indexTip, typeOf, typesKey, key).catch((e: unknown) => {
        if (this.#model === entry) this.#model = null;
        throw e;
      }),
    };
    this.#model = entry;
    return entry.model;
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
      return new OverviewModel(`${profileId}:${snapshotId}:${hashKey(key)}`, c);
    }
  }

  #read(profileId: string, snapshotId: number, indexTip: number | null, typeOf: (address: string) => string): OverviewRows {
    if (this.#balances === null) this.#balances = this.#db.prepare<[{ p: string; s: number }], RawRow>(BALANCES_SQL).raw(true);
    const raw = this.#balances.all({ p: profileId, s: snapshotId });
    const n = raw.length;
    const c: BalanceColumns = {
      address: new Array(n),
      type: new Array(n),
      source: new Array(n),
      hidden: new Array(n),
      nodeLabel: new Array(n),
      label: new Array(n),
      receivedSats: new Array(n),
      receivedConfirmations: new Array(n),
      receivedTxCount: new Array(n),
      balanceSats: new Array(n),
      pendingTrustedSats: new Array(n),
      pendingUntrustedSats: new Array(n),
      pendingCount: new Array(n),
      utxoCount: new Array(n),
      minConfirmations: new Array(n),
      lastActivityHeight: new Array(n),
      fetchState: new Array(n),
      fetchedAt: new Array(n),
      errorCode: new Array(n),
    };
    let received = 0;
    let balance = 0;
    let pendingTrusted = 0;
    let pendingUntrusted = 0;
    let pendingUnknown = 0;
    let utxos = 0;
    let shown = 0;
    for (let i = 0; i < n; i++) {
      const r = raw[i]!;
      const hidden = r[5] === 1;
      const rec = r[6];
      const bal = r[11] ?? 0;
      const cnt = r[12] ?? 0;
      const maxh = r[13];
      const pt = r[14];
      const pu = r[15];
      if (!hidden) {
        if (rec !== null) received += rec;
        balance += bal;
        if (pt === null || pu === null) pendingUnknown++;
        else {
          pendingTrusted += pt;
          pendingUntrusted += pu;
        }
        utxos += cnt;
        shown++;
      }
      c.address[i] = r[0];
      c.type[i] = typeOf(r[0]);
      c.source[i] = r[1];
      c.hidden[i] = hidden;
      c.nodeLabel[i] = r[9];
      c.label[i] = r[10];
      c.receivedSats[i] = rec === null ? null : String(rec);
      c.receivedConfirmations[i] = r[7];
      c.receivedTxCount[i] = r[8];
      c.balanceSats[i] = String(bal);
      c.pendingTrustedSats[i] = pt === null ? null : String(pt);
      c.pendingUntrustedSats[i] = pu === null ? null : String(pu);
      c.pendingCount[i] = r[16];
      c.utxoCount[i] = cnt;
      c.minConfirmations[i] = indexTip === null || maxh === null ? null : Math.max(0, indexTip - maxh + 1);
      c.lastActivityHeight[i] = maxh;
      c.fetchState[i] = r[2];
      c.fetchedAt[i] = r[3];
      c.errorCode[i] = r[4];
    }
    const balanceSats = exactSum(balance, c, 'balanceSats');
    const pendingTrustedSats = exactSum(pendingTrusted, c, 'pendingTrustedSats');
    return {
      balances: c,
      totals: {
        receivedSats: exactSum(received, c, 'receivedSats'),
        balanceSats,
        pendingTrustedSats,
        pendingUntrustedSats: exactSum(pendingUntrusted, c, 'pendingUntrustedSats'),
        // getbalances' trusted: confirmed coins and our own unconfirmed change.
        trustedSats: (BigInt(balanceSats) + BigInt(pendingTrustedSats)).toString(),
        pendingUnknown,
        utxoCount: utxos,
        addresses: shown,
      },
    };
  }
}

/**
 * `sum` as text when it is exact (below 2^53: every term is non-negative, so then every partial sum
 * was exact too); else the column summed again as bigint over the rows that are not hidden.
 */
function exactSum(sum: number, c: BalanceColumns, column: 'receivedSats' | 'balanceSats' | 'pendingTrustedSats' | 'pendingUntrustedSats'): Sats {
  if (Number.isSafeInteger(sum)) return String(sum);
  let total = 0n;
  for (let i = 0; i < c.address.length; i++) if (!c.hidden[i]) total += BigInt(c[column][i] ?? '0');
  return total.toString();
}

function emptyColumns(n: number): BalanceColumns {
  const a = <T>(): T[] => new Array<T>(n);
  return {
    address: a(), type: a(), source: a(), hidden: a(), nodeLabel: a(), label: a(), receivedSats: a(), receivedConfirmations: a(),
    receivedTxCount: a(), balanceSats: a(), pendingTrustedSats: a(), pendingUntrustedSats: a(), pendingCount: a(), utxoCount: a(),
    minConfirmations: a(), lastActivityHeight: a(), fetchState: a(), fetchedAt: a(), errorCode: a(),
  };
}

/** Rows `raw` into the columns from row `at` on, as balances' read makes them. */
function fill(c: BalanceColumns, at: number, raw: RawRow[], indexTip: number | null, typeOf: (address: string) => string): void {
  for (let k = 0; k < raw.length; k++) {
    const r = raw[k]!;
    const i = at + k;
    const rec = r[6];
    const maxh = r[13];
    const pt = r[14];
    const pu = r[15];
    c.address[i] = r[0];
    c.type[i] = typeOf(r[0]);
    c.source[i] = r[1];
    c.hidden[i] = r[5] === 1;
    c.nodeLabel[i] = r[9];
    c.label[i] = r[10];
    c.receivedSats[i] = rec === null ? null : String(rec);
    c.receivedConfirmations[i] = r[7];
    c.receivedTxCount[i] = r[8];
    c.balanceSats[i] = String(r[11] ?? 0);
    c.pendingTrustedSats[i] = pt === null ? null : String(pt);
    c.pendingUntrustedSats[i] = pu === null ? null : String(pu);
    c.pendingCount[i] = r[16];
    c.utxoCount[i] = r[12] ?? 0;
    c.minConfirmations[i] = indexTip === null || maxh === null ? null : Math.max(0, indexTip - maxh + 1);
    c.lastActivityHeight[i] = maxh;
    c.fetchState[i] = r[2];
    c.fetchedAt[i] = r[3];
    c.errorCode[i] = r[4];
  }
}

/** A short, stable name of a key (FNV-1a), for the version pages carry. */
function hashKey(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
