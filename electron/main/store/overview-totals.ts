// The Balances totals (footer: received, balance, pending, UTXOs, addresses), in bigint sats.
//
// - totalsOf: the totals of some rows of the overview's columns — the one loop both the overview
//   (store/overview.ts) and the paged model (store/overview-model.ts, a filter's rows) use.
// - The same sums in SQL, over a snapshot's rows as the overview reads them (BALANCE_ROWS_FROM: every
//   row of snapshot_fetched, its received entry, its UTXOs' sum and its pending coins), kept with the
//   snapshot in snapshot_totals (migrations/0110-snapshot-totals.ts): written with the snapshot
//   (snapshot-write.ts), moved by an incremental refresh (incremental.ts), and made on the first read
//   of a snapshot written before schema 110 (store/overview.ts). They are of EVERY row, hidden ones
//   included: a hide changes no stored row, and the rows not hidden are every row less the hidden
//   ones (hiddenSums: a handful of rows, found through the partial index of hidden addresses).
//
// A row whose pending coins are not known (no node data, a row from before schema 98) adds nothing to
// the pending sums and counts in `pendingUnknown`: unknown is never summed as 0.
import type { BalanceColumns, BalanceTotals } from '../../../shared/ipc/contract';
import type { Database } from './db';
import { hiddenAddresses, sliceBound, TOP, turn } from './overview-rows';
import { PENDING_COLUMNS_SQL } from './watch-rows';

/** The totals as sums: amounts in bigint sats. */
export interface Sums {
  addresses: number;
  received: bigint;
  balance: bigint;
  pendingTrusted: bigint;
  pendingUntrusted: bigint;
  /** Rows whose pending coins are not known (not in the pending sums). */
  pendingUnknown: number;
  utxos: number;
}

export const NO_SUMS: Sums = { addresses: 0, received: 0n, balance: 0n, pendingTrusted: 0n, pendingUntrusted: 0n, pendingUnknown: 0, utxos: 0 };

/** The wire form (decimal strings); `trusted` as getbalances names it: confirmed coins and our own unconfirmed change. */
export function wireTotals(s: Sums): BalanceTotals {
  return {
    receivedSats: s.received.toString(),
    balanceSats: s.balance.toString(),
    pendingTrustedSats: s.pendingTrusted.toString(),
    pendingUntrustedSats: s.pendingUntrusted.toString(),
    trustedSats: (s.balance + s.pendingTrusted).toString(),
    pendingUnknown: s.pendingUnknown,
    utxoCount: s.utxos,
    addresses: s.addresses,
  };
}

export function plus(a: Sums, b: Sums): Sums {
  return {
    addresses: a.addresses + b.addresses,
    received: a.received + b.received,
    balance: a.balance + b.balance,
    pendingTrusted: a.pendingTrusted + b.pendingTrusted,
    pendingUntrusted: a.pendingUntrusted + b.pendingUntrusted,
    pendingUnknown: a.pendingUnknown + b.pendingUnknown,
    utxos: a.utxos + b.utxos,
  };
}

export function minus(a: Sums, b: Sums): Sums {
  return {
    addresses: a.addresses - b.addresses,
    received: a.received - b.received,
    balance: a.balance - b.balance,
    pendingTrusted: a.pendingTrusted - b.pendingTrusted,
    pendingUntrusted: a.pendingUntrusted - b.pendingUntrusted,
    pendingUnknown: a.pendingUnknown - b.pendingUnknown,
    utxos: a.utxos - b.utxos,
  };
}

/** The sums of rows `rows` (indexes into `c`), bigint sats. */
export function sumsOf(c: BalanceColumns, rows: ArrayLike<number>): Sums {
  let received = 0n;
  let balance = 0n;
  let pendingTrusted = 0n;
  let pendingUntrusted = 0n;
  let pendingUnknown = 0;
  let utxos = 0;
  for (let j = 0; j < rows.length; j++) {
    const i = rows[j]!;
    const rec = c.receivedSats[i];
    if (rec !== null && rec !== undefined) received += BigInt(rec);
    balance += BigInt(c.balanceSats[i]!);
    const pt = c.pendingTrustedSats[i];
    const pu = c.pendingUntrustedSats[i];
    if (pt === null || pu === null || pt === undefined || pu === undefined) pendingUnknown++;
    else {
      pendingTrusted += BigInt(pt);
      pendingUntrusted += BigInt(pu);
    }
    utxos += c.utxoCount[i]!;
  }
  return { addresses: rows.length, received, balance, pendingTrusted, pendingUntrusted, pendingUnknown, utxos };
}

/** The totals of rows `rows` (indexes into `c`): what the table's footer shows for them. */
export function totalsOf(c: BalanceColumns, rows: ArrayLike<number>): BalanceTotals {
  return wireTotals(sumsOf(c, rows));
}

// ——— in SQL ———

type SumsRow = [addresses: bigint, received: bigint | null, balance: bigint | null, pendingTrusted: bigint | null, pendingUntrusted: bigint | null, pendingUnknown: bigint | null, utxos: bigint | null];

/**
 * The sums of the rows of snapshot @s from address @lo to @hi (both included), as the overview reads
 * them (a row's pending columns are PENDING_COLUMNS_SQL; `unknown` when they are not known): the
 * primary key of snapshot_fetched and the covering snapshot_utxos_address index serve the range.
 */
const RANGE_SUMS_SQL = `
  SELECT COUNT(*), SUM(rec), SUM(bal), SUM(pending_trusted), SUM(pending_untrusted), SUM(unknown), SUM(cnt) FROM (
    SELECT r.amount_sats AS rec, u.bal, u.cnt, ${PENDING_COLUMNS_SQL}, (r.node_unspent_sats IS NULL OR r.node_pending IS NULL) AS unknown
      FROM snapshot_fetched f
      LEFT JOIN snapshot_received r ON r.snapshot_id = f.snapshot_id AND r.address = f.address
      LEFT JOIN (SELECT address, SUM(amount_sats) AS bal, COUNT(*) AS cnt
                   FROM snapshot_utxos WHERE snapshot_id = @s AND address BETWEEN @lo AND @hi GROUP BY address) u ON u.address = f.address
     WHERE f.snapshot_id = @s AND f.address BETWEEN @lo AND @hi)`;

function toSums(r: SumsRow): Sums {
  return {
    addresses: Number(r[0]),
    received: r[1] ?? 0n,
    balance: r[2] ?? 0n,
    pendingTrusted: r[3] ?? 0n,
    pendingUntrusted: r[4] ?? 0n,
    pendingUnknown: Number(r[5] ?? 0n),
    utxos: Number(r[6] ?? 0n),
  };
}

/** RANGE_SUMS_SQL prepared: `.get({ s, lo, hi })`. */
const rangeQuery = (db: Database) => db.prepare<[{ s: number; lo: string; hi: string }], SumsRow>(RANGE_SUMS_SQL).safeIntegers(true).raw(true);

/** The sums of snapshot `id`'s rows from address `lo` to `hi` (both included; all of them by default). */
export function rangeSums(db: Database, id: number, lo = '', hi = TOP): Sums {
  return toSums(rangeQuery(db).get({ s: id, lo, hi })!);
}

/** The sums of the rows of snapshot `id` for `addresses` (each counted once; one not in the snapshot adds nothing). */
export function addressSums(db: Database, id: number, addresses: Iterable<string>): Sums {
  const q = rangeQuery(db);
  let s = NO_SUMS;
  for (const a of new Set(addresses)) s = plus(s, toSums(q.get({ s: id, lo: a, hi: a })!));
  return s;
}

/**
 * The sums of the rows of snapshot `id` its wallet has hidden (the snapshot's own profile and wallet
 * only): `hidden` when the caller has read them already (hiddenAddresses).
 */
export function hiddenSums(db: Database, id: number, hidden: ReadonlySet<string> = hiddenAddresses(db, id)): Sums {
  return addressSums(db, id, hidden);
}

type StoredRow = [addresses: bigint, received: bigint, balance: bigint, pendingTrusted: bigint, pendingUntrusted: bigint, pendingUnknown: bigint, utxos: bigint];

/** The stored sums of every row of snapshot `id` (schema 110), or null when none are stored (a snapshot written before). */
export function storedSums(db: Database, id: number): Sums | null {
  const r = db
    .prepare<[number], StoredRow>(
      'SELECT addresses, received_sats, balance_sats, pending_trusted_sats, pending_untrusted_sats, pending_unknown, utxo_count FROM snapshot_totals WHERE snapshot_id = ?',
    )
    .safeIntegers(true)
    .raw(true)
    .get(id);
  return r === undefined ? null : toSums(r);
}

/** Stores `s` as the sums of every row of snapshot `id` (replacing what was stored). Nothing when the snapshot is gone. */
export function storeSums(db: Database, id: number, s: Sums): void {
  db.prepare(
    `INSERT OR REPLACE INTO snapshot_totals (snapshot_id, addresses, received_sats, balance_sats, pending_trusted_sats, pending_untrusted_sats, pending_unknown, utxo_count)
     SELECT id, ?, ?, ?, ?, ?, ?, ? FROM snapshots WHERE id = ?`,
  ).run(s.addresses, s.received, s.balance, s.pendingTrusted, s.pendingUntrusted, s.pendingUnknown, s.utxos, id);
}

/** Addresses per slice of a sliced sum (one range query each, then a turn of the event loop). */
const SUM_SLICE = 2_500;

/**
 * The sums of every row of snapshot `id`, in slices of SUM_SLICE addresses with a turn of the event
 * loop between them (the main process keeps answering: one query over 100,000 rows takes a few hundred
 * ms). `same()`: false once the data was written to (checked after each turn); then null — the
 * slices would be of two versions. `slice`: addresses per slice (at least 2; tests make it small).
 */
export async function sumInSlices(db: Database, id: number, same: () => boolean, slice = SUM_SLICE): Promise<Sums | null> {
  const bound = sliceBound(db);
  const range = rangeQuery(db);
  const first = db.prepare<[number], string>('SELECT MIN(address) FROM snapshot_fetched WHERE snapshot_id = ?').pluck(true);
  let s = NO_SUMS;
  for (let lo = first.get(id) ?? null; lo !== null; ) {
    // The slice: lo and the `slice - 1` addresses after it (or every one left).
    const hi = bound.get(id, lo, slice - 2) ?? TOP;
    s = plus(s, toSums(range.get({ s: id, lo, hi })!));
    if (hi === TOP) break;
    lo = bound.get(id, hi, 0) ?? null;
    if (lo === null) break;
    await turn();
    if (!same()) return null;
  }
  return s;
}
