// The watch-only repository (schema 20) on real SQLite files in a temp folder: migration from schema 10,
// watched set, address info, labels, snapshots (carry-forward, balances, diff, history, prune), the
// index transaction cache, and a writer process killed with SIGKILL in the middle of a large snapshot.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { closeDatabase, openDatabase, openDatabaseAtVersion } from '../../electron/main/store/db';
import type { Database } from '../../electron/main/store/db';
import { getUserVersion, latestSchemaVersion } from '../../electron/main/store/migrations/index';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { decodeRecord, encodeRecord, WatchRepository, type NewSnapshot, type SnapshotAddress } from '../../electron/main/store/watch';
import type { IndexTransaction } from '../../electron/main/blockindex/types';
import { bigAddress, bigTxid, PREVIOUS_ADDRESSES } from './fixtures/write-snapshot-data';
import { A, appError, B, C, newProfile, tip, tx, U, utxo } from '../support/watch-data';

const here = dirname(fileURLToPath(import.meta.url));
const WATCH_TABLES = ['address_info', 'addresses', 'index_txs', 'labels', 'snapshot_fetched', 'snapshot_received', 'snapshot_utxos', 'snapshots'];

let dir: string;
let file: string;
let db: Database;
let repo: WatchRepository;
let profileId: string;


/** A first snapshot: A (node, 2 UTXOs), B (node, none), U (user, 1 UTXO). */
function firstSnapshot(over: Partial<NewSnapshot> = {}): NewSnapshot {
  return {
    takenAt: '2026-01-02T00:00:00.000Z',
    node: tip(100),
    index: tip(100),
    previousId: null,
    received: [
      {
        address: A,
        amountSats: 150_000_000n,
        confirmations: 5,
        txids: [tx('1'), tx('2')],
        nodeLabel: 'rent',
        // Pending: our own change (safe) and a payment from others, both unconfirmed.
        nodeUnspent: { hash: 'h1', sats: 150_000_000n, count: 2, pending: [{ txid: tx('8'), vout: 1, amountSats: 30_000n, safe: true }, { txid: tx('9'), vout: 0, amountSats: 10_000_000n, safe: false }] },
      },
      { address: B, amountSats: 0n, confirmations: 0, txids: [], nodeLabel: '', nodeUnspent: null },
    ],
    addresses: [
      { address: A, source: 'node', state: 'fetched', utxos: [utxo(tx('1'), 0, 100_000_000n, 96), utxo(tx('2'), 1, 50_000_000n, 99)] },
      { address: B, source: 'node', state: 'fetched', utxos: [] },
      { address: U, source: 'user', state: 'fetched', utxos: [utxo(tx('3'), 0, 7n, 90)] },
    ],
    infos: [{ address: A, info: { address: A, ismine: true, labels: ['rent'] } }],
    ...over,
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-watch-'));
  file = join(dir, 'spyglass.sqlite');
  db = openDatabase(file);
  repo = new WatchRepository(db);
  profileId = newProfile(db);
});

afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

describe('schema 20', () => {
  it('a file at schema 10 with a profile migrates to the latest schema and keeps it', () => {
    const old = join(dir, 'old.sqlite');
    const v10 = openDatabaseAtVersion(old, 10);
    const id = newProfile(v10, 'Kept');
    expect(getUserVersion(v10)).toBe(10);
    closeDatabase(v10);

    const d = openDatabase(old);
    try {
      expect(getUserVersion(d)).toBe(latestSchemaVersion());
      expect(new ProfileRepository(d).get(id)?.name).toBe('Kept');
      const strict = d.prepare<[], { name: string; strict: number }>(`SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name IN (${WATCH_TABLES.map((t) => `'${t}'`).join(',')})`).all();
      expect(strict.map((t) => t.name).sort()).toEqual(WATCH_TABLES);
      for (const t of strict) expect(t.strict, t.name).toBe(1);
      // The new tables work with the migrated profile.
      const r = new WatchRepository(d);
      r.addAddresses(id, [A]);
      expect(r.listAddresses(id).map((a) => a.address)).toEqual([A]);
    } finally {
      closeDatabase(d);
    }
  });

  it('a file at schema 20 with a snapshot migrates to 30: the snapshot is kept, its wallet state unknown (null) until the next check', () => {
    const old = join(dir, 'v20.sqlite');
    const v20 = openDatabaseAtVersion(old, 20);
    const id = newProfile(v20, 'Kept');
    const tip = { height: 7, hash: '11'.repeat(32) };
    const snapId = Number(
      v20
        .prepare(
          `INSERT INTO snapshots (profile_id, taken_at, node_height, node_hash, index_height, index_hash, status, address_count, received_sats, balance_sats, utxo_count)
           VALUES (?, '2026-01-01T00:00:00.000Z', 7, ?, 7, ?, 'ok', 0, 0, 0, 0)`,
        )
        .run(id, tip.hash, tip.hash).lastInsertRowid,
    );
    closeDatabase(v20);

    const d = openDatabase(old);
    try {
      expect(getUserVersion(d)).toBe(latestSchemaVersion()); // and on, to the newest
      const r = new WatchRepository(d);
      expect(r.latestSnapshot(id)).toMatchObject({ id: snapId, node: tip, status: 'ok', walletState: null });
      r.touchSnapshot(id, snapId, { takenAt: '2026-01-02T00:00:00.000Z', node: tip, index: tip, received: [], walletState: 'watch:3:' + tip.hash });
      expect(r.latestSnapshot(id)).toMatchObject({ id: snapId, takenAt: '2026-01-02T00:00:00.000Z', walletState: 'watch:3:' + tip.hash });
    } finally {
      closeDatabase(d);
    }
  });

  it('the screens’ queries use indexes', () => {
    const plan = (sql: string): string =>
      db
        .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((r) => r.detail)
        .join(' | ');
    expect(plan("SELECT * FROM snapshots WHERE profile_id = 'p' AND node_wallet = 'w' AND status IN ('ok', 'partial') ORDER BY id DESC LIMIT 1")).toMatch(/^SEARCH snapshots USING (COVERING )?INDEX snapshots_wallet(_status)? \(profile_id=\? AND node_wallet=\?[^|]*$/);
    expect(plan("SELECT * FROM snapshot_utxos WHERE snapshot_id = 1 AND address = 'x'")).toMatch(/USING COVERING INDEX snapshot_utxos_address/);
    expect(plan('SELECT address, SUM(amount_sats), COUNT(*), MAX(height) FROM snapshot_utxos WHERE snapshot_id = 1 GROUP BY address')).toBe(
      'SEARCH snapshot_utxos USING COVERING INDEX snapshot_utxos_address (snapshot_id=?)',
    );
    expect(plan('SELECT * FROM snapshot_utxos WHERE snapshot_id = 1 AND txid = 1 AND vout = 0')).toMatch(/PRIMARY KEY/);
  });

  it('amounts are INTEGER satoshis: STRICT refuses a REAL', () => {
    const id = repo.writeSnapshot(profileId, firstSnapshot());
    expect(() => db.prepare("INSERT INTO snapshot_utxos VALUES (?, 'x', ?, 0, 1.5, 1)").run(id, tx('9'))).toThrow(/cannot store REAL value in INTEGER column/);
    expect(() => db.prepare("INSERT INTO labels VALUES (?, '', 'nope', 'r', 'l', NULL, NULL, 't')").run(profileId)).toThrow(/CHECK constraint/);
  });

  it('a snapshot keeps the wallet state its node-unspent digests go with; a bad one is refused and nothing is written', () => {
    const id = repo.writeSnapshot(profileId, firstSnapshot({ walletState: `watch:12:${'ab'.repeat(32)}` }));
    expect(repo.getSnapshot(id)?.walletState).toBe(`watch:12:${'ab'.repeat(32)}`);
    expect(repo.writeSnapshot(profileId, firstSnapshot({ previousId: id })) && repo.latestSnapshot(profileId)?.walletState).toBeNull();
    const before = repo.listSnapshots(profileId).length;
    expect(() => repo.writeSnapshot(profileId, firstSnapshot({ walletState: 'x'.repeat(201) }))).toThrow(AppError);
    expect(repo.listSnapshots(profileId)).toHaveLength(before);
  });

  it('deleting a profile deletes everything it owns', () => {
    repo.writeSnapshot(profileId, firstSnapshot());
    repo.setLabel(profileId, { type: 'addr', ref: A, label: 'x' });
    repo.recordFailure(profileId, { takenAt: '2026-01-03T00:00:00.000Z', step: 'utxos', code: 'index.http', message: 'down' });
    new ProfileRepository(db).delete(profileId);
    for (const t of WATCH_TABLES.filter((t) => t !== 'index_txs')) {
      expect(db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${t}`).get()!.n, t).toBe(0);
    }
  });
});

describe('watched set', () => {
  it('adds many in one transaction, reports those already watched, hides and removes', () => {
    expect(repo.addAddresses(profileId, [A, B, A], 'user', '2026-01-01T00:00:00.000Z')).toEqual({ added: [A, B], existing: [] });
    expect(repo.addAddresses(profileId, [B, C])).toEqual({ added: [C], existing: [B] });
    expect(repo.listAddresses(profileId).map((a) => a.address)).toEqual([A, B, C]);
    expect(repo.setHidden(profileId, [B], true)).toBe(1);
    expect(repo.setHidden(profileId, [B], true)).toBe(0);
    expect(repo.listAddresses(profileId, { includeHidden: false }).map((a) => a.address)).toEqual([A, C]);
    expect(repo.getAddress(profileId, B)).toMatchObject({ hidden: true, source: 'user' });
    expect(repo.removeAddresses(profileId, [A, 'bcrt1qnotwatchednotwatched'])).toBe(1);
    expect(repo.listAddresses(profileId).map((a) => a.address)).toEqual([B, C]);
  });

  it('a malformed entry adds nothing', () => {
    const err = appError(() => repo.addAddresses(profileId, [A, 'not an address', B]));
    expect(err.code).toBe('input.invalid');
    expect(repo.listAddresses(profileId)).toEqual([]);
  });

  it('node addresses upgrade user entries and cannot be removed (hide them instead)', () => {
    repo.addAddresses(profileId, [A]);
    repo.addAddresses(profileId, [A, B], 'node');
    expect(repo.listAddresses(profileId).map((a) => [a.address, a.source])).toEqual([
      [A, 'node'],
      [B, 'node'],
    ]);
    repo.addAddresses(profileId, [B], 'user');
    expect(repo.getAddress(profileId, B)?.source).toBe('node');
    repo.addAddresses(profileId, [C]);
    const err = appError(() => repo.removeAddresses(profileId, [C, B]));
    expect(err.message).toMatch(/hide it instead/);
    expect(repo.listAddresses(profileId)).toHaveLength(3); // nothing removed, C included
  });

  it('an unknown profile is refused', () => {
    expect(appError(() => repo.addAddresses('nope', [A])).code).toBe('profile.not_found');
  });
});

describe('address info', () => {
  it('upserts the reply as received and tells which are stale', () => {
    repo.addAddresses(profileId, [A, B, C]);
    const t = Date.parse('2026-01-10T00:00:00.000Z');
    repo.upsertInfos(profileId, [{ address: A, info: { address: A, ismine: true, timestamp: 1767225600 } }], new Date(t - 1000).toISOString());
    repo.upsertInfos(profileId, [{ address: B, info: { address: B } }], new Date(t - 25 * 3600_000).toISOString());
    expect(repo.getInfo(profileId, A)).toEqual({ info: { address: A, ismine: true, timestamp: 1767225600 }, fetchedAt: new Date(t - 1000).toISOString() });
    expect(repo.staleInfo(profileId, [A, B, C], 24 * 3600_000, t)).toEqual([B, C]);
    repo.upsertInfos(profileId, [{ address: B, info: { address: B, v: 2 } }], new Date(t).toISOString());
    expect(repo.staleInfo(profileId, [A, B, C], 24 * 3600_000, t)).toEqual([C]);
    expect(repo.getInfo(profileId, B)?.info).toEqual({ address: B, v: 2 });
    // Info belongs to a watched address: removing the address removes it.
    repo.removeAddresses(profileId, [B]);
    expect(repo.getInfo(profileId, B)).toBeNull();
    expect(() => repo.upsertInfos(profileId, [{ address: 'bcrt1qnotwatchednotwatched', info: {} }])).toThrow(/FOREIGN KEY/);
  });
});

describe('labels', () => {
  it('creates, replaces, lists and deletes labels per (type, ref)', () => {
    const outpoint = `${tx('1')}:0`;
    expect(repo.setLabel(profileId, { type: 'addr', ref: A, label: 'rent' }, '2026-01-01T00:00:00.000Z')).toEqual({
      type: 'addr',
      ref: A,
      label: 'rent',
      spendable: null,
      origin: null,
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    repo.setLabel(profileId, { type: 'output', ref: outpoint, label: 'cold coin', spendable: false });
    repo.setLabel(profileId, { type: 'xpub', ref: 'tpubD6NzVbkrYhZ4', label: 'vault', origin: "wsh([d34db33f/48'/1'/0'/2'])" });
    repo.setLabel(profileId, { type: 'addr', ref: A, label: 'rent (flat)' });
    expect(repo.getLabel(profileId, 'addr', A)?.label).toBe('rent (flat)');
    expect(repo.getLabel(profileId, 'output', outpoint)?.spendable).toBe(false);
    expect(repo.listLabels(profileId).map((l) => `${l.type}:${l.label}`)).toEqual(['addr:rent (flat)', 'output:cold coin', 'xpub:vault']);
    expect(repo.listLabels(profileId, 'xpub')[0]?.origin).toBe("wsh([d34db33f/48'/1'/0'/2'])");
    // An empty label with nothing else deletes the record.
    expect(repo.setLabel(profileId, { type: 'addr', ref: A, label: '' })).toBeNull();
    expect(repo.getLabel(profileId, 'addr', A)).toBeNull();
    expect(repo.deleteLabel(profileId, 'output', outpoint)).toBe(true);
    expect(repo.deleteLabel(profileId, 'output', outpoint)).toBe(false);
  });

  it('setLabels applies all or nothing', () => {
    repo.setLabel(profileId, { type: 'tx', ref: tx('1'), label: 'before' });
    const err = appError(() =>
      repo.setLabels(profileId, [
        { type: 'tx', ref: tx('1'), label: 'after' },
        { type: 'bogus' as 'tx', ref: 'x', label: 'y' },
      ]),
    );
    expect(err.code).toBe('input.invalid');
    expect(repo.getLabel(profileId, 'tx', tx('1'))?.label).toBe('before');
    expect(repo.setLabels(profileId, [{ type: 'tx', ref: tx('1'), label: 'after' }, { type: 'input', ref: `${tx('2')}:3`, label: 'in' }])).toBe(2);
    expect(repo.getLabel(profileId, 'tx', tx('1'))?.label).toBe('after');
  });
});

describe('snapshots', () => {
  it('writes a snapshot with received totals, UTXOs, infos and totals; balances join everything', () => {
    repo.setLabel(profileId, { type: 'addr', ref: A, label: 'my rent' });
    repo.addAddresses(profileId, [U, A]); // A was added by the user first: the node's listing makes it a node address
    const id = repo.writeSnapshot(profileId, firstSnapshot());
    const snap = repo.latestSnapshot(profileId)!;
    expect(snap).toMatchObject({ id, status: 'ok', node: tip(100), index: tip(100), addressCount: 3, receivedSats: 150_000_000n, balanceSats: 150_000_007n, utxoCount: 3 });
    expect(repo.listAddresses(profileId).map((a) => [a.address, a.source]).sort()).toEqual([
      [A, 'node'],
      [B, 'node'],
      [U, 'user'],
    ]);
    expect(repo.getInfo(profileId, A)?.info).toEqual({ address: A, ismine: true, labels: ['rent'] });
    const rows = repo.balances(profileId, id);
    expect(rows.map((r) => r.address)).toEqual([A, B, U]);
    expect(rows[0]).toEqual({
      address: A,
      source: 'node',
      hidden: false,
      nodeLabel: 'rent',
      label: 'my rent',
      receivedSats: 150_000_000n,
      receivedConfirmations: 5,
      receivedTxCount: 2,
      balanceSats: 150_000_000n,
      utxoCount: 2,
      minConfirmations: 2, // youngest UTXO at 99, tip 100
      lastActivityHeight: 99,
      nodeUnspentSats: 150_000_000n,
      nodeUnspentCount: 2,
      pendingTrustedSats: 30_000n,
      pendingUntrustedSats: 10_000_000n,
      pendingCount: 2,
      fetchState: 'fetched',
      fetchedAt: '2026-01-02T00:00:00.000Z',
      errorCode: null,
    });
    // B: the node was not asked for its coins, U: a user address (the index lists confirmed outputs only): pending not known.
    expect(rows[1]).toMatchObject({ address: B, balanceSats: 0n, utxoCount: 0, minConfirmations: null, receivedSats: 0n, pendingTrustedSats: null, pendingUntrustedSats: null });
    expect(rows[2]).toMatchObject({ address: U, source: 'user', nodeLabel: null, receivedSats: null, balanceSats: 7n, minConfirmations: 11, pendingTrustedSats: null, pendingCount: null });
    expect(repo.received(id).get(A)?.nodeUnspent?.pending).toEqual([
      { txid: tx('8'), vout: 1, amountSats: 30_000n, safe: true },
      { txid: tx('9'), vout: 0, amountSats: 10_000_000n, safe: false },
    ]);
    expect(repo.utxos(profileId, A).map((u) => [u.txid, u.vout, u.amountSats, u.confirmations])).toEqual([
      [tx('1'), 0, 100_000_000n, 5],
      [tx('2'), 1, 50_000_000n, 2],
    ]);
    expect(repo.received(id).get(A)?.txids).toEqual([tx('1'), tx('2')]);
    // Per address with UTXOs, their sum and count (what the engine compares with the node's count).
    expect(repo.utxoTotals(id)).toEqual(new Map([[A, { sats: 150_000_000n, count: 2 }], [U, { sats: 7n, count: 1 }]]));
  });

  it('carries unchanged addresses forward, marks failed lookups, and diffs two snapshots', () => {
    const first = repo.writeSnapshot(profileId, firstSnapshot());
    // A: one UTXO spent, a new one received; B: unchanged (carried); U: lookup failed (keeps its UTXO).
    const second = repo.writeSnapshot(profileId, {
      takenAt: '2026-01-03T00:00:00.000Z',
      node: tip(101, 'b'),
      index: tip(101, 'b'),
      previousId: first,
      received: [
        { address: A, amountSats: 170_000_000n, confirmations: 1, txids: [tx('1'), tx('2'), tx('4')], nodeLabel: 'rent', nodeUnspent: null },
        { address: B, amountSats: 0n, confirmations: 0, txids: [], nodeLabel: '', nodeUnspent: null },
      ],
      addresses: [
        { address: A, source: 'node', state: 'fetched', utxos: [utxo(tx('2'), 1, 50_000_000n, 99), utxo(tx('4'), 0, 20_000_000n, 101)] },
        { address: B, source: 'node', state: 'carried' },
        { address: U, source: 'user', state: 'failed', errorCode: 'index.invalid' },
      ],
    });
    const snap = repo.getSnapshot(second)!;
    expect(snap).toMatchObject({ status: 'partial', balanceSats: 70_000_007n, utxoCount: 3, receivedSats: 170_000_000n });
    expect(repo.latestSnapshot(profileId)?.id).toBe(second);
    expect(repo.previousSnapshot(profileId)?.id).toBe(first);
    expect(repo.previousSnapshot(profileId, first)).toBeNull();
    const states = repo.fetchStates(second);
    expect(states.get(B)).toMatchObject({ state: 'carried', fetchedAt: '2026-01-02T00:00:00.000Z', fetchedIndexHeight: 100 });
    expect(states.get(U)).toMatchObject({ state: 'failed', errorCode: 'index.invalid', fetchedAt: '2026-01-02T00:00:00.000Z' });
    expect(states.get(A)).toMatchObject({ state: 'fetched', fetchedAt: '2026-01-03T00:00:00.000Z', fetchedIndexHeight: 101 });
    expect(repo.utxos(profileId, U).map((u) => [u.txid, u.confirmations])).toEqual([[tx('3'), 12]]);

    const d = repo.diff(first, second);
    expect(d.newUtxos.map((u) => [u.address, u.txid, u.vout, u.amountSats, u.confirmations])).toEqual([[A, tx('4'), 0, 20_000_000n, 1]]);
    expect(d.spentUtxos.map((u) => [u.address, u.txid, u.vout, u.amountSats])).toEqual([[A, tx('1'), 0, 100_000_000n]]);
    expect(d.newTxids).toEqual([tx('4')]);
    expect(repo.diffSummary(first, second)).toEqual({ newUtxos: 1, newSats: 20_000_000n, spentUtxos: 1, spentSats: 100_000_000n, newTxids: 1 });
    expect(repo.diffSummary(null, first)).toEqual({ newUtxos: 3, newSats: 150_000_007n, spentUtxos: 0, spentSats: 0n, newTxids: 3 });

    expect(repo.history(profileId).map((h) => [h.snapshotId, h.balanceSats, h.receivedSats, h.utxoCount, h.status])).toEqual([
      [first, 150_000_007n, 150_000_000n, 3, 'ok'],
      [second, 70_000_007n, 170_000_000n, 3, 'partial'],
    ]);
  });

  it('touchSnapshot records a check with nothing changed in place: time, tips, confirmations; no UTXO row written', () => {
    const first = repo.writeSnapshot(profileId, firstSnapshot());
    const utxoRows = (): number => db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM snapshot_utxos').get()!.n;
    const rows = utxoRows();
    const balances = repo.balances(profileId, first);
    const received = firstSnapshot().received.map((r) => (r.address === A ? { ...r, confirmations: 7, nodeLabel: 'rent 2026' } : r));
    repo.touchSnapshot(profileId, first, { takenAt: '2026-01-02T00:20:00.000Z', node: tip(102, 'b'), index: tip(102, 'b'), received });
    expect(utxoRows()).toBe(rows);
    expect(repo.listSnapshots(profileId)).toHaveLength(1);
    expect(repo.history(profileId)).toEqual([expect.objectContaining({ snapshotId: first, takenAt: '2026-01-02T00:20:00.000Z', nodeHeight: 102, indexHeight: 102, balanceSats: 150_000_007n })]);
    expect(repo.latestSnapshot(profileId)).toMatchObject({ id: first, takenAt: '2026-01-02T00:20:00.000Z', node: tip(102, 'b'), index: tip(102, 'b'), utxoCount: 3 });
    expect(repo.received(first).get(A)).toMatchObject({ confirmations: 7, nodeLabel: 'rent 2026', nodeUnspent: { hash: 'h1' } });
    // Confirmations of the UTXOs follow the new index tip; everything else is as it was.
    const after = repo.balances(profileId, first);
    expect(after.find((r) => r.address === A)).toMatchObject({ receivedConfirmations: 7, nodeLabel: 'rent 2026', minConfirmations: 4, balanceSats: 150_000_000n });
    expect(after.map(({ address, balanceSats, utxoCount, fetchState, fetchedAt }) => ({ address, balanceSats, utxoCount, fetchState, fetchedAt }))).toEqual(
      balances.map(({ address, balanceSats, utxoCount, fetchState, fetchedAt }) => ({ address, balanceSats, utxoCount, fetchState, fetchedAt })),
    );
    // Only the last refresh can be updated in place: not after a failure, nor an older snapshot; nor an unknown address.
    const stranger = { ...received[0]!, address: C };
    expect(appError(() => repo.touchSnapshot(profileId, first, { takenAt: '2026-01-02T00:30:00.000Z', node: tip(102, 'b'), index: tip(102, 'b'), received: [stranger] })).code).toBe('input.invalid');
    expect(repo.latestSnapshot(profileId)?.takenAt).toBe('2026-01-02T00:20:00.000Z'); // rolled back
    // Addresses looked up again with the same UTXOs: their fetch time and index height become the check's.
    repo.touchSnapshot(profileId, first, { takenAt: '2026-01-02T00:25:00.000Z', node: tip(103, 'c'), index: tip(103, 'c'), received, refetched: [A] });
    expect(repo.fetchStates(first).get(A)).toMatchObject({ state: 'fetched', fetchedAt: '2026-01-02T00:25:00.000Z', fetchedIndexHeight: 103 });
    expect(repo.fetchStates(first).get(B)?.fetchedAt).toBe(balances.find((r) => r.address === B)!.fetchedAt);
    expect(appError(() => repo.touchSnapshot(profileId, first, { takenAt: '2026-01-02T00:30:00.000Z', node: tip(103, 'c'), index: tip(103, 'c'), received, refetched: [C] })).message).toMatch(/not an address of snapshot/);
    expect(repo.latestSnapshot(profileId)?.takenAt).toBe('2026-01-02T00:25:00.000Z'); // rolled back
    expect(utxoRows()).toBe(rows);
    repo.recordFailure(profileId, { takenAt: '2026-01-02T00:40:00.000Z', step: 'received', code: 'net.refused', message: 'down' });
    expect(appError(() => repo.touchSnapshot(profileId, first, { takenAt: '2026-01-02T00:50:00.000Z', node: tip(102, 'b'), index: tip(102, 'b'), received })).message).toMatch(/not the last refresh/);
  });

  it('a failure is recorded beside the snapshots and the latest good one stays the latest', () => {
    const first = repo.writeSnapshot(profileId, firstSnapshot());
    const failed = repo.recordFailure(profileId, { takenAt: '2026-01-03T00:00:00.000Z', step: 'utxos', code: 'index.http', message: 'HTTP 500', node: tip(101, 'c'), index: null });
    expect(repo.latestSnapshot(profileId)?.id).toBe(first);
    expect(repo.lastAttempt(profileId)).toMatchObject({ id: failed, status: 'failed', failedStep: 'utxos', errorCode: 'index.http', errorMessage: 'HTTP 500', node: tip(101, 'c'), index: null, balanceSats: null });
    expect(repo.history(profileId)).toHaveLength(1);
    // A failed row cannot be the base of a carry-forward.
    expect(appError(() => repo.writeSnapshot(profileId, firstSnapshot({ previousId: failed }))).message).toMatch(/not a good snapshot/);
    expect(repo.balances(profileId, first)).toHaveLength(3);
    expect(appError(() => repo.balances(newProfile(db, 'Other'), first)).code).toBe('input.invalid');
  });

  it('refuses inconsistent input before writing anything', () => {
    const before = repo.listSnapshots(profileId).length;
    const bad: Array<Partial<NewSnapshot>> = [
      { node: { height: -1, hash: 'a'.repeat(64) } },
      { addresses: [...firstSnapshot().addresses, firstSnapshot().addresses[0]!] },
      { addresses: firstSnapshot().addresses.filter((a) => a.address !== B) }, // B received but not an address of the snapshot
      { addresses: [{ address: A, source: 'node', state: 'fetched', utxos: [utxo('xyz', 0, 1n, 1)] }, ...firstSnapshot().addresses.slice(1)] },
      { addresses: [{ address: A, source: 'node', state: 'fetched', utxos: [utxo(tx('1'), 0, -1n, 1)] }, ...firstSnapshot().addresses.slice(1)] },
      { addresses: [{ address: A, source: 'node', state: 'carried' }, ...firstSnapshot().addresses.slice(1)] }, // nothing to carry from
    ];
    for (const over of bad) expect(appError(() => repo.writeSnapshot(profileId, firstSnapshot(over))).code).toBe('input.invalid');
    expect(repo.listSnapshots(profileId)).toHaveLength(before);
    expect(repo.listAddresses(profileId)).toEqual([]);
  });

  it('prunes to the newest N good snapshots (their rows go with them)', () => {
    let prev = repo.writeSnapshot(profileId, firstSnapshot());
    const ids = [prev];
    for (let i = 0; i < 5; i++) {
      repo.recordFailure(profileId, { takenAt: '2026-01-03T00:00:00.000Z', step: 'received', code: 'net.refused', message: 'down' });
      prev = repo.writeSnapshot(profileId, {
        ...firstSnapshot(),
        previousId: prev,
        addresses: firstSnapshot().addresses.map((a): SnapshotAddress => ({ address: a.address, source: a.source, state: 'carried' })),
      });
      ids.push(prev);
    }
    expect(repo.utxos(profileId, null, prev)).toHaveLength(3); // carried through five snapshots
    expect(repo.prune(profileId, 3)).toBe(3 + 3); // three good and the three failures before the oldest kept
    expect(repo.history(profileId).map((h) => h.snapshotId)).toEqual(ids.slice(3));
    const orphans = db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM snapshot_utxos WHERE snapshot_id < ?').get(ids[3]!)!.n;
    expect(orphans).toBe(0);
    expect(repo.prune(profileId, 3)).toBe(0);
    expect(repo.diff(ids[4]!, ids[5]!)).toMatchObject({ newUtxos: [], spentUtxos: [], newTxids: [] });
  });
});

describe('index transaction cache', () => {
  it('keeps records per chain with exact bigint amounts', () => {
    const record = {
      txId: tx('7'),
      amount: 2_100_000_000_000_000n,
      fee: 141n,
      vOut: [{ index: 0, value: 12_345_678_901n, spent: [] }],
      blockHash: null,
      label: { $sats: 'not digits' },
    } as unknown as IndexTransaction;
    expect(decodeRecord<IndexTransaction>(encodeRecord(record))).toEqual(record);
    repo.putIndexTx('g'.repeat(64), record, '2026-01-01T00:00:00.000Z');
    expect(repo.getIndexTx('g'.repeat(64), tx('7'))).toEqual({ tx: record, fetchedAt: '2026-01-01T00:00:00.000Z' });
    expect(repo.getIndexTx('h'.repeat(64), tx('7'))).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------

interface ChildRun {
  /** The write finished (the child printed DONE) before the kill, or the child was not killed. */
  done: boolean;
  /** ms the write took (when done). */
  ms: number | null;
  signal: NodeJS.Signals | null;
}

const FIXTURE = join(here, 'fixtures', 'write-snapshot.ts');
const BIG = 300_000;

/** Runs the writer child; `killAfterMs` after it says WRITING, SIGKILLs it (null: let it finish). */
function runWriter(dbFile: string, profile: string, previousId: number, killAfterMs: number | null): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', FIXTURE, dbFile, profile, String(previousId), String(BIG)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let writerPid: number | null = null;
    let killedSignal: NodeJS.Signals | null = null;
    const safety = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /WRITING (\d+)\n/.exec(out);
      if (m && writerPid === null) {
        writerPid = Number(m[1]);
        if (killAfterMs !== null) {
          // tsx runs the script in a child of its own: kill the process that writes (it told us its pid).
          setTimeout(() => {
            if (/DONE/.test(out)) return;
            try {
              process.kill(writerPid!, 'SIGKILL');
              killedSignal = 'SIGKILL';
            } catch {
              // already gone
            }
          }, killAfterMs);
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(safety);
      const m = /DONE (\d+) (\d+)/.exec(out);
      if (m === null && killedSignal === null) return reject(new Error(`writer exited with ${code}: ${err.slice(-2000)}`));
      resolve({ done: m !== null, ms: m ? Number(m[2]) : null, signal: killedSignal });
    });
  });
}

describe('kill mid-write', () => {
  it('a writer killed with SIGKILL during a 300k-UTXO snapshot leaves the previous snapshot intact and no partial rows', async () => {
    // The previous snapshot: PREVIOUS_ADDRESSES user addresses with 2 UTXOs each.
    const addrs = Array.from({ length: PREVIOUS_ADDRESSES }, (_, i) => bigAddress(i));
    repo.addAddresses(profileId, addrs);
    const previousId = repo.writeSnapshot(profileId, {
      takenAt: '2026-01-01T00:00:00.000Z',
      node: tip(150),
      index: tip(150),
      previousId: null,
      received: [],
      addresses: addrs.map((address, i) => ({
        address,
        source: 'user' as const,
        state: 'fetched' as const,
        utxos: [utxo(bigTxid(i), 0, BigInt(10_000 + i), 100), utxo(bigTxid(i), 1, 5_000n, 100)],
      })),
    });
    const expected = { snapshot: repo.latestSnapshot(profileId), balances: repo.balances(profileId, previousId), addresses: repo.listAddresses(profileId).length };
    closeDatabase(db);

    // Every run starts from a copy of this file.
    const pristine = join(dir, 'pristine.sqlite');
    {
      const src = openDatabase(file);
      await src.backup(pristine);
      closeDatabase(src);
    }
    const copy = (name: string): string => {
      const f = join(dir, name);
      copyFileSync(pristine, f);
      return f;
    };

    // How long does the write take here? (A copy written to the end.)
    const probe = copy('probe.sqlite');
    const full = await runWriter(probe, profileId, previousId, null);
    expect(full.done).toBe(true);
    const writeMs = full.ms!;
    {
      const p = openDatabase(probe);
      const r = new WatchRepository(p);
      const latest = r.latestSnapshot(profileId)!;
      expect(latest.id).not.toBe(previousId);
      expect(latest.utxoCount).toBe(BIG + 2 * PREVIOUS_ADDRESSES); // fetched + carried forward
      closeDatabase(p);
    }

    let killedMidWrite = 0;
    for (const [i, fraction] of [0.02, 0.15, 0.3, 0.45, 0.65].entries()) {
      const target = copy(`run-${i}.sqlite`);
      const run = await runWriter(target, profileId, previousId, Math.round(writeMs * fraction));
      const d = openDatabase(target);
      try {
        expect(d.pragma('integrity_check', { simple: true })).toBe('ok');
        const r = new WatchRepository(d);
        // The kill may come after the commit (the child still has to print DONE and close the file):
        // then the new snapshot must be complete. Otherwise nothing of it may be there.
        if (r.latestSnapshot(profileId)?.id !== previousId) {
          expect(r.latestSnapshot(profileId)?.utxoCount).toBe(BIG + 2 * PREVIOUS_ADDRESSES);
          expect(d.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM snapshot_utxos').get()!.n).toBe(BIG + 4 * PREVIOUS_ADDRESSES);
          continue;
        }
        killedMidWrite++;
        expect(run.done).toBe(false);
        expect(run.signal).toBe('SIGKILL');
        expect(r.latestSnapshot(profileId)).toEqual(expected.snapshot);
        expect(r.listSnapshots(profileId).map((s) => s.id)).toEqual([previousId]);
        expect(r.balances(profileId, previousId)).toEqual(expected.balances);
        expect(r.listAddresses(profileId)).toHaveLength(expected.addresses);
        for (const t of ['snapshot_utxos', 'snapshot_fetched', 'snapshot_received']) {
          expect(d.prepare<[number], { n: number }>(`SELECT COUNT(*) AS n FROM ${t} WHERE snapshot_id <> ?`).get(previousId)!.n, t).toBe(0);
        }
        expect(d.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM snapshot_utxos').get()!.n).toBe(2 * PREVIOUS_ADDRESSES);
      } finally {
        closeDatabase(d);
      }
    }
    expect(killedMidWrite).toBeGreaterThanOrEqual(3);
    db = openDatabase(file); // for afterEach
  }, 240_000);
});
