// The balances overview's query (electron/main/store/overview.ts) against the repository's own
// balances() on real SQLite files: the same rows with the same values, and the totals of the rows
// that are not hidden.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BalanceRowView } from '../../shared/ipc/contract';
import { balanceColumns, emptyBalanceColumns } from '../../shared/ipc/balance-columns';
import { closeDatabase, openDatabase, type Database } from '../../electron/main/store/db';
import { OverviewQuery } from '../../electron/main/store/overview';
import { A, B, C, newProfile, tip, tx, U, utxo } from '../support/watch-data';
import { WatchRepository, type BalanceRow, type NewSnapshot } from '../../electron/main/store/watch';

let dir: string;
let db: Database;
let repo: WatchRepository;
let profileId: string;

const typeOf = (address: string): string => `type-of-${address.slice(0, 4)}`;

/** The view the service built from WatchRepository.balances before the overview query existed. */
function reference(r: BalanceRow): BalanceRowView {
  return {
    address: r.address,
    type: typeOf(r.address),
    source: r.source,
    hidden: r.hidden,
    nodeLabel: r.nodeLabel,
    label: r.label,
    receivedSats: r.receivedSats === null ? null : r.receivedSats.toString(),
    receivedConfirmations: r.receivedConfirmations,
    receivedTxCount: r.receivedTxCount,
    balanceSats: r.balanceSats.toString(),
    pendingTrustedSats: r.pendingTrustedSats === null ? null : r.pendingTrustedSats.toString(),
    pendingUntrustedSats: r.pendingUntrustedSats === null ? null : r.pendingUntrustedSats.toString(),
    pendingCount: r.pendingCount,
    utxoCount: r.utxoCount,
    minConfirmations: r.minConfirmations,
    lastActivityHeight: r.lastActivityHeight,
    fetchState: r.fetchState,
    fetchedAt: r.fetchedAt,
    errorCode: r.errorCode,
  };
}

function expectSame(snapshotId: number): void {
  const want = repo.balances(profileId, snapshotId);
  const snap = repo.getSnapshot(snapshotId)!;
  const got = new OverviewQuery(db).balances(profileId, snapshotId, snap.index?.height ?? null, typeOf, 'test');
  expect(got.balances).toEqual(balanceColumns(want.map(reference)));
  const shown = want.filter((r) => !r.hidden);
  expect(got.totals).toEqual({
    receivedSats: shown.reduce((a, r) => a + (r.receivedSats ?? 0n), 0n).toString(),
    balanceSats: shown.reduce((a, r) => a + r.balanceSats, 0n).toString(),
    pendingTrustedSats: shown.reduce((a, r) => a + (r.pendingTrustedSats ?? 0n), 0n).toString(),
    pendingUntrustedSats: shown.reduce((a, r) => a + (r.pendingUntrustedSats ?? 0n), 0n).toString(),
    trustedSats: shown.reduce((a, r) => a + r.balanceSats + (r.pendingTrustedSats ?? 0n), 0n).toString(),
    pendingUnknown: shown.filter((r) => r.pendingTrustedSats === null).length,
    utxoCount: shown.reduce((a, r) => a + r.utxoCount, 0),
    addresses: shown.length,
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-overview-'));
  db = openDatabase(join(dir, 'spyglass.sqlite'));
  repo = new WatchRepository(db);
  profileId = newProfile(db);
});

afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

describe('OverviewQuery.balances', () => {
  it('equals the repository rows: node and user addresses, labels, hidden, carried and failed lookups, unconfirmed UTXOs', () => {
    const first: NewSnapshot = {
      takenAt: '2026-01-02T00:00:00.000Z',
      node: tip(100),
      index: tip(100),
      previousId: null,
      received: [
        { address: A, amountSats: 150_000_000n, confirmations: 5, txids: [tx('1'), tx('2')], nodeLabel: 'rent', nodeUnspent: { hash: 'h1', sats: 150_000_000n, count: 2, pending: [{ txid: tx('7'), vout: 2, amountSats: 20_000n, safe: true }, { txid: tx('8'), vout: 0, amountSats: 10_000_000n, safe: false }, { txid: tx('9'), vout: 1, amountSats: 5n, safe: false }] } },
        { address: B, amountSats: 0n, confirmations: 0, txids: [], nodeLabel: '', nodeUnspent: { hash: 'h0', sats: 0n, count: 0, pending: [] } },
        { address: C, amountSats: 2_100_000_000_000_000n, confirmations: 1, txids: [tx('4')], nodeLabel: 'all of it', nodeUnspent: null },
      ],
      addresses: [
        { address: A, source: 'node', state: 'fetched', utxos: [utxo(tx('1'), 0, 100_000_000n, 96), utxo(tx('2'), 1, 50_000_000n, 99)] },
        { address: B, source: 'node', state: 'fetched', utxos: [] },
        { address: C, source: 'node', state: 'fetched', utxos: [utxo(tx('4'), 0, 2_100_000_000_000_000n, null)] },
        { address: U, source: 'user', state: 'fetched', utxos: [utxo(tx('3'), 0, 7n, 90)] },
      ],
    };
    repo.addAddresses(profileId, [U], 'user');
    const id1 = repo.writeSnapshot(profileId, first);
    repo.setLabel(profileId, { type: 'addr', ref: A, label: 'Savings' });
    repo.setLabel(profileId, { type: 'tx', ref: tx('1'), label: 'not an address label' });
    expectSame(id1);

    repo.setHidden(profileId, [C], true);
    const id2 = repo.writeSnapshot(profileId, {
      ...first,
      takenAt: '2026-01-03T00:00:00.000Z',
      node: tip(110, 'b'),
      index: tip(108, 'b'),
      previousId: id1,
      addresses: [
        { address: A, source: 'node', state: 'carried' },
        { address: B, source: 'node', state: 'fetched', utxos: [utxo(tx('5'), 3, 42n, 108)] },
        { address: C, source: 'node', state: 'carried' },
        { address: U, source: 'user', state: 'failed', errorCode: 'index.http' },
      ],
    });
    expectSame(id2);
    expectSame(id1); // an older snapshot of the profile reads the same way
  });

  it('the last result is kept until anything is written, here or through another connection', () => {
    const id = repo.writeSnapshot(profileId, {
      takenAt: '2026-01-02T00:00:00.000Z',
      node: tip(100),
      index: tip(100),
      previousId: null,
      received: [{ address: A, amountSats: 5n, confirmations: 1, txids: [tx('1')], nodeLabel: '', nodeUnspent: null }],
      addresses: [
        { address: A, source: 'node', state: 'fetched', utxos: [utxo(tx('1'), 0, 5n, 100)] },
        { address: B, source: 'node', state: 'fetched', utxos: [] },
      ],
    });
    const q = new OverviewQuery(db);
    let typed = 0;
    const counting = (a: string): string => {
      typed++;
      return typeOf(a);
    };
    const first = q.balances(profileId, id, 100, counting, 'test');
    expect(typed).toBe(2);
    expect(q.balances(profileId, id, 100, counting, 'test')).toBe(first); // nothing changed: not read again
    expect(typed).toBe(2);
    // Other arguments: read again.
    expect(q.balances(profileId, id, 101, counting, 'test').balances.minConfirmations).toEqual([2, null]);
    expect(q.balances(profileId, id, 101, counting, 'other').balances.type).toEqual([typeOf(A), typeOf(B)]);
    // A write on this connection.
    repo.setLabel(profileId, { type: 'addr', ref: B, label: 'new' });
    expect(q.balances(profileId, id, 101, counting, 'other').balances.label).toEqual([null, 'new']);
    repo.setHidden(profileId, [A], true);
    const hidden = q.balances(profileId, id, 101, counting, 'other');
    expect(hidden.balances.hidden).toEqual([true, false]);
    expect(hidden.totals).toEqual({ receivedSats: '0', balanceSats: '0', pendingTrustedSats: '0', pendingUntrustedSats: '0', trustedSats: '0', pendingUnknown: 1, utxoCount: 0, addresses: 1 });
    // A write through another connection to the same file.
    const other = openDatabase(join(dir, 'spyglass.sqlite'));
    try {
      new WatchRepository(other).setLabel(profileId, { type: 'addr', ref: A, label: 'from elsewhere' });
    } finally {
      closeDatabase(other);
    }
    expect(q.balances(profileId, id, 101, counting, 'other').balances.label).toEqual(['from elsewhere', 'new']);
  });

  it('an empty snapshot has no rows and zero totals', () => {
    const id = repo.writeSnapshot(profileId, { takenAt: '2026-01-02T00:00:00.000Z', node: tip(1), index: tip(1), previousId: null, received: [], addresses: [] });
    expect(new OverviewQuery(db).balances(profileId, id, 1, typeOf, 'test')).toEqual({ balances: emptyBalanceColumns(), totals: { receivedSats: '0', balanceSats: '0', pendingTrustedSats: '0', pendingUntrustedSats: '0', trustedSats: '0', pendingUnknown: 0, utxoCount: 0, addresses: 0 } });
  });
});
