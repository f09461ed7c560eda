// The Balances totals kept with each snapshot (schema 110, store/overview-totals.ts) and the first page
// of a large wallet read without every row (store/overview-first.ts), on real SQLite files:
// - written with the snapshot: exactly the sums of what the node and the index said (amounts past
//   2^53 in all, pending coins known and not: unknown is never summed as 0), also after rows were
//   carried forward and after an incremental refresh moved some;
// - two wallets of one profile never mix (the same address in both, hidden in one only);
// - a file written at schema 100 (no stored totals) migrates, and its first overview sums and stores
//   them, the same as a new write would have;
// - the first page equals the page main's full copy (OverviewModel) gives for the same query: rows,
//   counts, totals and version.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from '@scure/base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BalanceQuery } from '../../shared/ipc/contract';
import { closeDatabase, openDatabase, openDatabaseAtVersion, type Database } from '../../electron/main/store/db';
import { getUserVersion } from '../../electron/main/store/migrations';
import { OverviewQuery } from '../../electron/main/store/overview';
import { firstAddresses } from '../../electron/main/store/overview-first';
import { hiddenAddresses } from '../../electron/main/store/overview-rows';
import { hiddenSums, minus, NO_SUMS, rangeSums, storedSums, sumInSlices, totalsOf, wireTotals, type Sums } from '../../electron/main/store/overview-totals';
import { WatchRepository, type NewSnapshot, type ReceivedRecord, type UtxoRecord } from '../../electron/main/store/watch';
import { newProfile, tip } from '../support/watch-data';

const typeOf = (): string => 'p2wpkh';
const MAX = 2_100_000_000_000_000n;

function address(seed: string): string {
  return bech32.encode('bcrt', [0, ...bech32.toWords(createHash('sha256').update(seed).digest().subarray(0, 20))]);
}
const txid = (seed: string): string => createHash('sha256').update(seed).digest('hex');

/**
 * A snapshot of `n` addresses of wallet `wallet`: node rows with received entries (pending coins
 * known, none, or unknown), user rows (no received entry: pending unknown), a few failed lookups,
 * 0–3 UTXOs each (equal balances, some huge: their sum is past 2^53), every `coinEvery`-th row holding
 * coins. `shared`: addresses also in the snapshot (with its own amounts), first.
 */
function snapshotOf(wallet: string, n: number, opts: { shared?: string[]; coinEvery?: number; previousId?: number | null } = {}): NewSnapshot {
  const received: ReceivedRecord[] = [];
  const rows: NewSnapshot['addresses'] = [];
  const all = [...(opts.shared ?? []), ...Array.from({ length: n - (opts.shared?.length ?? 0) }, (_, i) => address(`${wallet}-${i}`))];
  all.forEach((a, i) => {
    const user = i % 7 === 3;
    if (!user) {
      const pending = i % 11 === 0 ? null : i % 4 === 0 ? [{ txid: txid(`${wallet}-p-${i}`), vout: 1, amountSats: BigInt(1000 + i), safe: i % 8 === 0 }] : [];
      received.push({ address: a, amountSats: i % 400 === 1 ? MAX - 7n : BigInt((i % 50) * 10_000), confirmations: i % 9, txids: [], nodeLabel: '', nodeUnspent: i % 13 === 0 ? null : { hash: `h${i}`, sats: 0n, count: 0, pending } });
    }
    const utxos: UtxoRecord[] = [];
    if (i % (opts.coinEvery ?? 1) === 0) {
      for (let k = 0; k < i % 4; k++) utxos.push({ txid: txid(`${wallet}-${i}-${k}`), vout: k, amountSats: i % 400 === 1 && k === 0 ? MAX - BigInt(i) : BigInt(((i * 7 + k) % 30) * 1000), height: (i + k) % 10 === 0 ? null : 100 + (i % 400) });
    }
    const source = user ? ('user' as const) : ('node' as const);
    rows.push(i % 97 === 5 ? { address: a, source, state: 'failed', errorCode: 'index.http' } : { address: a, source, state: 'fetched', utxos });
  });
  return { takenAt: '2026-11-28T00:00:00.000Z', node: tip(600), index: tip(590), previousId: opts.previousId ?? null, received, addresses: rows };
}

/** The sums of a first snapshot (nothing carried) as the node and the index gave them, over `only` (every row by default). */
function expectedSums(s: NewSnapshot, only?: ReadonlySet<string>): Sums {
  const rec = new Map(s.received.map((r) => [r.address, r]));
  const sums = { ...NO_SUMS };
  for (const a of s.addresses) {
    if (only !== undefined && !only.has(a.address)) continue;
    sums.addresses++;
    const r = rec.get(a.address);
    if (r !== undefined) sums.received += r.amountSats;
    if (a.state === 'fetched') {
      for (const u of a.utxos) sums.balance += u.amountSats;
      sums.utxos += a.utxos.length;
    }
    const pending = r?.nodeUnspent?.pending ?? null;
    if (pending === null) sums.pendingUnknown++;
    else {
      for (const c of pending) {
        if (c.safe) sums.pendingTrusted += c.amountSats;
        else sums.pendingUntrusted += c.amountSats;
      }
    }
  }
  return sums;
}

const QUERIES: BalanceQuery[] = [
  { sort: 'balance', dir: 'desc', filter: '', showHidden: false },
  { sort: 'balance', dir: 'desc', filter: '', showHidden: true },
  { sort: 'address', dir: 'asc', filter: '', showHidden: false },
  { sort: 'address', dir: 'desc', filter: '', showHidden: true },
];

let dir: string;
let db: Database;
let repo: WatchRepository;
let profileId: string;
const scope = (wallet: string) => ({ profileId, wallet });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-overview-totals-'));
  db = openDatabase(join(dir, 'spyglass.sqlite'));
  repo = new WatchRepository(db);
  profileId = newProfile(db);
});

afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

describe('the totals stored with a snapshot', () => {
  it('are written with it: exactly what the node and the index said, past 2^53, unknown pending counted apart', () => {
    const s = snapshotOf('hot', 3_000);
    const id = repo.writeSnapshot(scope('hot'), s);
    const want = expectedSums(s);
    expect(want.balance).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(want.received).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(want.pendingUnknown).toBeGreaterThan(100);
    expect(want.pendingTrusted).toBeGreaterThan(0n);
    expect(want.pendingUntrusted).toBeGreaterThan(0n);
    expect(storedSums(db, id)).toEqual(want);
    // The same sums in SQL now, and as the overview's one totals function adds the rows up.
    expect(rangeSums(db, id)).toEqual(want);
    const rows = new OverviewQuery(db).balances(profileId, id, 590, typeOf, 'test');
    expect(rows.totals).toEqual(wireTotals(want));
    expect(totalsOf(rows.balances, rows.balances.address.map((_, i) => i))).toEqual(wireTotals(want));
  });

  it('rows carried forward, and an incremental refresh that moves amounts, pending coins and UTXOs', () => {
    const first = snapshotOf('hot', 1_200);
    const id0 = repo.writeSnapshot(scope('hot'), first);
    // The next refresh: most rows carried, a few fetched again with other UTXOs.
    const next = snapshotOf('hot', 1_200, { previousId: id0 });
    next.addresses = next.addresses.map((a, i) => (i % 5 === 0 || a.state === 'failed' ? a : { address: a.address, source: a.source, state: 'carried' }));
    const id = repo.writeSnapshot(scope('hot'), next);
    expect(storedSums(db, id)).toEqual(rangeSums(db, id));
    expect(storedSums(db, id)!.utxos).toBeGreaterThan(0);

    // In place: received amounts up, pending known → unknown and unknown → known, UTXOs replaced.
    const moved = next.received.slice(0, 40).map((r, k) => ({
      ...r,
      amountSats: r.amountSats > MAX / 2n ? r.amountSats - 12_345n : r.amountSats + 12_345n,
      nodeUnspent: k % 2 === 0 ? null : { hash: 'x', sats: 0n, count: 0, pending: [{ txid: txid(`moved-${k}`), vout: 0, amountSats: 777n, safe: k % 3 === 0 }] },
    }));
    const lookedUp = next.addresses.slice(100, 130).map((a, k) => ({ address: a.address, utxos: k % 3 === 0 ? [] : [{ txid: txid(`new-${k}`), vout: 0, amountSats: MAX - BigInt(k), height: 595 }] }));
    const before = storedSums(db, id)!;
    repo.applyIncrement(scope('hot'), { snapshotId: id, takenAt: '2026-11-28T01:00:00.000Z', node: tip(601), index: tip(591), walletState: null, blocks: 1, received: moved, lookedUp });
    const after = storedSums(db, id)!;
    expect(after).not.toEqual(before);
    expect(after).toEqual(rangeSums(db, id));
    const rows = new OverviewQuery(db).balances(profileId, id, 591, typeOf, 'test');
    expect(wireTotals(after)).toEqual(totalsOf(rows.balances, rows.balances.address.map((_, i) => i)));
  });

  it('two wallets of one profile never mix: the same address in both, hidden in one only', async () => {
    const both = [address('shared-0'), address('shared-1')];
    const hot = snapshotOf('hot', 800, { shared: both });
    const cold = snapshotOf('cold', 500, { shared: both, coinEvery: 3 });
    const hotId = repo.writeSnapshot(scope('hot'), hot);
    const coldId = repo.writeSnapshot(scope('cold'), cold);
    repo.setHidden(scope('cold'), [both[1]!], true);
    expect(storedSums(db, hotId)).toEqual(expectedSums(hot));
    expect(storedSums(db, coldId)).toEqual(expectedSums(cold));
    expect(hiddenSums(db, hotId)).toEqual(NO_SUMS);
    expect(hiddenAddresses(db, hotId)).toEqual(new Set());
    expect(hiddenSums(db, coldId)).toEqual(expectedSums(cold, new Set([both[1]!])));

    const q = new OverviewQuery(db);
    const query = QUERIES[0]!;
    const h = (await q.firstPage(profileId, hotId, 590, typeOf, 'test', query, 200))!;
    const c = (await q.firstPage(profileId, coldId, 590, typeOf, 'test', query, 200))!;
    expect(h.page.allTotals).toEqual(wireTotals(expectedSums(hot)));
    expect(h.shown).toEqual(wireTotals(expectedSums(hot)));
    expect(h.page.hiddenRows).toBe(0);
    expect(c.page.allTotals).toEqual(wireTotals(expectedSums(cold)));
    expect(c.shown).toEqual(wireTotals(minus(expectedSums(cold), expectedSums(cold, new Set([both[1]!])))));
    expect(c.page.hiddenRows).toBe(1);
    // Each page holds its own wallet's rows, the shared address with that wallet's amounts.
    const coldSet = new Set(cold.addresses.map((a) => a.address));
    expect(c.page.rows.address.every((a) => coldSet.has(a))).toBe(true);
    expect(c.page.rows.address).not.toContain(both[1]);
    const sharedBalance = (s: NewSnapshot): string => {
      const row = s.addresses.find((a) => a.address === both[0]);
      return row?.state === 'fetched' ? String(row.utxos.reduce((x, u) => x + u.amountSats, 0n)) : '0';
    };
    const hotModel = await q.model(profileId, hotId, 590, typeOf, 'test');
    expect(hotModel.cols.balanceSats[hotModel.cols.address.indexOf(both[0]!)]).toBe(sharedBalance(hot));
    expect(hotModel.shownTotals).toEqual(h.shown);
  });
});

describe('a file written before schema 110', () => {
  it('migrates; its first overview sums the totals in slices, stores them, and they are the new write’s', async () => {
    const file = join(dir, 'old.sqlite');
    const s = snapshotOf('watch', 2_500);
    const old = openDatabaseAtVersion(file, 100);
    const pid = newProfile(old);
    // What Spyglass at schema 100 wrote (snapshot-write.ts then): the snapshot's rows, no totals row.
    old.transaction(() => {
      const id = Number(old.prepare(`INSERT INTO snapshots (profile_id, node_wallet, taken_at, node_height, node_hash, index_height, index_hash, status) VALUES (?, 'watch', ?, 600, ?, 590, ?, 'ok')`).run(pid, s.takenAt, tip(600).hash, tip(590).hash).lastInsertRowid);
      const addr = old.prepare(`INSERT INTO addresses (profile_id, node_wallet, address, source, hidden, added_at) VALUES (?, 'watch', ?, ?, ?, ?)`);
      const rec = old.prepare(`INSERT INTO snapshot_received (snapshot_id, address, amount_sats, confirmations, txids, node_label, node_unspent_hash, node_unspent_sats, node_unspent_count, node_pending) VALUES (?, ?, ?, ?, '[]', '', ?, ?, ?, ?)`);
      const fetched = old.prepare(`INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at, fetched_index_height, error_code) VALUES (?, ?, ?, ?, ?, 590, ?)`);
      const ins = old.prepare('INSERT INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, ?, ?, ?)');
      s.addresses.forEach((a, i) => {
        addr.run(pid, a.address, a.source, i % 9 === 0 ? 1 : 0, s.takenAt);
        fetched.run(id, a.address, a.source, a.state, s.takenAt, a.state === 'failed' ? a.errorCode : null);
        if (a.state === 'fetched') for (const u of a.utxos) ins.run(id, a.address, u.txid, u.vout, u.amountSats, u.height);
      });
      for (const r of s.received) {
        const pending = r.nodeUnspent?.pending;
        rec.run(id, r.address, r.amountSats, r.confirmations, r.nodeUnspent?.hash ?? null, r.nodeUnspent?.sats ?? null, r.nodeUnspent?.count ?? null, pending ? JSON.stringify(pending.map((c) => [c.txid, c.vout, c.amountSats.toString(), c.safe])) : null);
      }
    })();
    closeDatabase(old);

    const migrated = openDatabase(file);
    try {
      expect(getUserVersion(migrated)).toBeGreaterThanOrEqual(110);
      const id = migrated.prepare<[], number>('SELECT id FROM snapshots').pluck(true).get()!;
      expect(storedSums(migrated, id)).toBeNull();
      const want = expectedSums(s);
      const hiddenSet = new Set(s.addresses.filter((_, i) => i % 9 === 0).map((a) => a.address));
      // Summed in slices (small ones here: many slices) to the same sums as in one query.
      expect(await sumInSlices(migrated, id, () => true, 37)).toEqual(want);
      expect(await sumInSlices(migrated, id, () => true, 2)).toEqual(want);
      expect(await sumInSlices(migrated, id, () => false, 37)).toBeNull(); // written meanwhile: not of one version

      const q = new OverviewQuery(migrated);
      const first = (await q.firstPage(pid, id, 590, typeOf, 'test', QUERIES[0]!, 200))!;
      expect(storedSums(migrated, id)).toEqual(want);
      expect(first.page.allTotals).toEqual(wireTotals(want));
      expect(first.shown).toEqual(wireTotals(minus(want, expectedSums(s, hiddenSet))));
      expect(first.shown).toEqual(q.balances(pid, id, 590, typeOf, 'test').totals);
      // The same as writing that snapshot now.
      const again = new WatchRepository(migrated).writeSnapshot({ profileId: pid, wallet: 'watch' }, { ...s, previousId: null });
      expect(storedSums(migrated, again)).toEqual(storedSums(migrated, id));
    } finally {
      closeDatabase(migrated);
    }
  });
});

describe('the first page without every row (OverviewQuery.firstPage)', () => {
  it('is the page main’s full copy gives: rows, counts, totals and version, by balance and by address', async () => {
    const s = snapshotOf('hot', 3_000);
    const id = repo.writeSnapshot(scope('hot'), s);
    repo.setHidden(scope('hot'), s.addresses.filter((_, i) => i % 29 === 1).map((a) => a.address), true);
    const q = new OverviewQuery(db);
    for (const count of [200, 1000]) {
      for (const query of QUERIES) {
        const first = await q.firstPage(profileId, id, 590, typeOf, 'test', query, count);
        const model = await new OverviewQuery(db).model(profileId, id, 590, typeOf, 'test');
        await model.prepare(query);
        expect(first, `${query.sort} ${query.dir} hidden:${query.showHidden}`).not.toBeNull();
        expect(first!.page).toEqual(model.page(query, 0, count));
        expect(first!.shown).toEqual(model.shownTotals);
        // In many small slices of the balance search: the same addresses.
        const hidden = hiddenAddresses(db, id);
        expect(await firstAddresses(db, id, query, count, hidden, () => true, 53)).toEqual(first!.page.rows.address);
      }
    }
    // Another order, or a filter: the model answers (null here).
    expect(await q.firstPage(profileId, id, 590, typeOf, 'test', { sort: 'label', dir: 'asc', filter: '', showHidden: false }, 200)).toBeNull();
    expect(await q.firstPage(profileId, id, 590, typeOf, 'test', { sort: 'balance', dir: 'desc', filter: 'x', showHidden: false }, 200)).toBeNull();
    expect(await q.firstPage(profileId, id, 590, typeOf, 'test', { sort: 'balance', dir: 'asc', filter: '', showHidden: false }, 200)).toBeNull();
    // Once that model is made, it answers.
    await q.model(profileId, id, 590, typeOf, 'test');
    expect(await q.firstPage(profileId, id, 590, typeOf, 'test', QUERIES[0]!, 200)).toBeNull();
  });

  it('fewer rows hold coins than the page: the rest are the rows with none, in address order', async () => {
    const s = snapshotOf('cold', 1_500, { coinEvery: 19 });
    const id = repo.writeSnapshot(scope('cold'), s);
    repo.setHidden(scope('cold'), s.addresses.filter((_, i) => i % 10 === 0).map((a) => a.address), true);
    const model = await new OverviewQuery(db).model(profileId, id, 590, typeOf, 'test');
    for (const query of QUERIES.slice(0, 2)) {
      const first = (await new OverviewQuery(db).firstPage(profileId, id, 590, typeOf, 'test', query, 300))!;
      await model.prepare(query);
      const want = model.page(query, 0, 300);
      expect(want.rows.balanceSats.filter((b) => b !== '0').length).toBeLessThan(150);
      expect(first.page).toEqual(want);
      expect(await firstAddresses(db, id, query, 300, hiddenAddresses(db, id), () => true, 41)).toEqual(want.rows.address);
    }
  });
});
