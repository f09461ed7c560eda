// The wallet as the unit of data (#26), against real SQLite files: schema 90 moves a file written
// before it to the wallets its rows came from and loses nothing; two wallets of one profile never see
// each other's watched set, labels, snapshots or history; a profile that named no wallet hands its
// rows to the wallet the connection finds; a refresh holding a WalletKey is not moved by a switch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, openDatabaseAtVersion, updateToVersion } from '../../electron/main/store/db';
import { latestSchemaVersion } from '../../electron/main/store/migrations';
import type { Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WalletRepository } from '../../electron/main/store/wallets';
import { WatchRepository, type NewSnapshot, type WalletKey } from '../../electron/main/store/watch';
import { DraftStore } from '../../electron/main/send/drafts-store';
import { H, writeV80Draft, writeV80Rows } from '../support/v80-data';

let dir: string;
const open: Database[] = [];
const track = (db: Database): Database => (open.push(db), db);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-wallet-scope-'));
});
afterEach(() => {
  for (const db of open.splice(0)) closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

const ADDR_A = 'bcrt1qaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ADDR_B = 'bcrt1qbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const profileInput = (name: string, wallet: string) => ({ name, nodeUrl: 'http://127.0.0.1:1', auth: 'password' as const, rpcUser: 'u', cookiePath: '', wallet, indexUrl: '' });

/** A snapshot of one node address holding one UTXO of `sats`. */
function snapshot(address: string, sats: bigint, txc: string, at = '2026-11-20T10:00:00.000Z'): NewSnapshot {
  return {
    takenAt: at,
    node: { height: 101, hash: H('1') },
    index: { height: 101, hash: H('1') },
    previousId: null,
    received: [{ address, amountSats: sats, confirmations: 1, txids: [H(txc)], nodeLabel: '', nodeUnspent: null }],
    addresses: [{ address, source: 'node', state: 'fetched', utxos: [{ txid: H(txc), vout: 0, amountSats: sats, height: 101 }] }],
  };
}

describe('schema 90: a file from before the wallet scope', () => {
  it('moves every snapshot, label, address and its info to the wallet its profile named, and keeps drafts listed under it', () => {
    const file = join(dir, 'spyglass.sqlite');
    const v80 = openDatabaseAtVersion(file, 80);
    const profiles = new ProfileRepository(v80);
    const vault = profiles.create(profileInput('Vault', ' vault '), { passwordStorage: 'none' }).id;
    const unnamed = profiles.create(profileInput('Unnamed', ''), { passwordStorage: 'none' }).id;
    writeV80Rows(v80, vault, ADDR_A, 100_000_000, 'a');
    writeV80Rows(v80, unnamed, ADDR_B, 200_000_000, 'b');
    writeV80Draft(v80, vault, 'vault', 'd1', ADDR_B);
    const count = (db: Database, t: string): number => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    const before = Object.fromEntries(['addresses', 'address_info', 'labels', 'snapshots', 'snapshot_utxos', 'drafts'].map((t) => [t, count(v80, t)]));
    closeDatabase(v80);

    const db = track(openDatabase(file));
    for (const [t, n] of Object.entries(before)) expect(count(db, t), t).toBe(n);
    const watch = new WatchRepository(db);
    const key: WalletKey = { profileId: vault, wallet: 'vault' };
    // Under its wallet (the name trimmed, as the profile's wallet calls use it).
    expect(watch.listAddresses(key).map((a) => a.address)).toEqual([ADDR_A]);
    expect(watch.getInfo(key, ADDR_A)?.info).toEqual({ ismine: true });
    expect(watch.getLabel(key, 'addr', ADDR_A)?.label).toBe('rent');
    expect(watch.latestSnapshot(key)?.balanceSats).toBe(100_000_000n);
    expect(watch.latestSnapshot(key)?.wallet).toBe('vault');
    // The profile id alone reads the wallet the profile names.
    expect(watch.history(vault).map((p) => p.balanceSats)).toEqual([100_000_000n]);
    expect(new DraftStore(db).list(vault).map((d) => d.id)).toEqual(['d1']);
    // The unnamed profile's rows wait under the empty name.
    expect(watch.latestSnapshot({ profileId: unnamed, wallet: '' })?.balanceSats).toBe(200_000_000n);
    expect(watch.latestSnapshot(unnamed)?.balanceSats).toBe(200_000_000n);
  });

  it('a profile that named no wallet hands its rows to the wallet the connection names, once, and never merges two wallets', () => {
    const file = join(dir, 'spyglass.sqlite');
    const v80 = openDatabaseAtVersion(file, 80);
    const pid = new ProfileRepository(v80).create(profileInput('Unnamed', ''), { passwordStorage: 'none' }).id;
    writeV80Rows(v80, pid, ADDR_B, 200_000_000, 'b');
    updateToVersion(v80, latestSchemaVersion()); // schema 90 moved the rows; the code of today writes on
    const db = track(v80);
    const profiles = new ProfileRepository(db);
    const watch = new WatchRepository(db);

    expect(profiles.nameWallet(pid, 'hot').wallet).toBe('hot');
    const hot: WalletKey = { profileId: pid, wallet: 'hot' };
    expect(watch.latestSnapshot(hot)?.balanceSats).toBe(200_000_000n);
    expect(watch.getInfo(hot, ADDR_B)?.info).toEqual({ ismine: true });
    expect(watch.getLabel(hot, 'addr', ADDR_B)?.label).toBe('rent');
    expect(watch.latestSnapshot({ profileId: pid, wallet: '' })).toBeNull();
    // Naming again does nothing: the profile names a wallet already.
    expect(profiles.nameWallet(pid, 'other').wallet).toBe('hot');

    // Rows under the empty name (written while a profile names none) do not move onto a wallet that
    // already has data of its own: they stay, not deleted.
    const other = profiles.create(profileInput('Other', ''), { passwordStorage: 'none' }).id;
    watch.writeSnapshot({ profileId: other, wallet: '' }, snapshot(ADDR_A, 5n, 'c'));
    watch.writeSnapshot({ profileId: other, wallet: 'w' }, snapshot(ADDR_B, 7n, 'e'));
    profiles.nameWallet(other, 'w');
    expect(watch.latestSnapshot({ profileId: other, wallet: 'w' })?.balanceSats).toBe(7n);
    expect(watch.latestSnapshot({ profileId: other, wallet: '' })?.balanceSats).toBe(5n);
  });
});

describe('two wallets of one profile', () => {
  let db: Database;
  let watch: WatchRepository;
  let profiles: ProfileRepository;
  let pid: string;
  const A = (): WalletKey => ({ profileId: pid, wallet: 'alice' });
  const B = (): WalletKey => ({ profileId: pid, wallet: 'bob' });
  const useWallet = (wallet: string): void => void profiles.update(pid, profileInput('Node', wallet));

  beforeEach(() => {
    db = track(openDatabase(join(dir, 'spyglass.sqlite')));
    watch = new WatchRepository(db);
    profiles = new ProfileRepository(db);
    pid = profiles.create(profileInput('Node', 'alice'), { passwordStorage: 'none' }).id;
    watch.writeSnapshot(A(), snapshot(ADDR_A, 100_000_000n, 'a'));
    watch.writeSnapshot(B(), snapshot(ADDR_B, 200_000_000n, 'b'));
    watch.setLabel(A(), { type: 'addr', ref: ADDR_A, label: 'alice rent' });
    watch.setLabel(B(), { type: 'tx', ref: H('b'), label: 'bob salary' });
  });

  it('each reads only its own watched set, labels, snapshots, balances, UTXOs and history', () => {
    expect(watch.listAddresses(A()).map((a) => a.address)).toEqual([ADDR_A]);
    expect(watch.listAddresses(B()).map((a) => a.address)).toEqual([ADDR_B]);
    expect(watch.listLabels(A()).map((l) => l.label)).toEqual(['alice rent']);
    expect(watch.listLabels(B()).map((l) => l.label)).toEqual(['bob salary']);
    expect(watch.history(A()).map((h) => h.balanceSats)).toEqual([100_000_000n]);
    expect(watch.history(B()).map((h) => h.balanceSats)).toEqual([200_000_000n]);
    const snapA = watch.latestSnapshot(A())!;
    expect(watch.balances(A(), snapA.id).map((r) => [r.address, r.label, r.balanceSats])).toEqual([[ADDR_A, 'alice rent', 100_000_000n]]);
    expect(watch.utxos(B(), null).map((u) => u.address)).toEqual([ADDR_B]);
    // A snapshot of one wallet is not one of the other's.
    expect(() => watch.balances(B(), snapA.id)).toThrow(/no snapshot .* of this wallet/);
    expect(() => watch.writeSnapshot(B(), { ...snapshot(ADDR_B, 1n, 'f'), previousId: snapA.id, addresses: [{ address: ADDR_B, source: 'node', state: 'carried' }] })).toThrow(
      /not a good snapshot of this wallet/,
    );
  });

  it('the profile id reads the wallet the profile names: a switch changes every read at once', () => {
    expect(watch.latestSnapshot(pid)?.balanceSats).toBe(100_000_000n);
    expect(watch.listAddresses(pid).map((a) => a.address)).toEqual([ADDR_A]);
    useWallet('bob');
    expect(watch.latestSnapshot(pid)?.balanceSats).toBe(200_000_000n);
    expect(watch.listAddresses(pid).map((a) => a.address)).toEqual([ADDR_B]);
    expect(watch.listLabels(pid).map((l) => l.label)).toEqual(['bob salary']);
    expect(watch.history(pid)).toHaveLength(1);
  });

  it('a writer holding a WalletKey keeps writing to its wallet after a switch', () => {
    const key = A();
    useWallet('bob');
    const prev = watch.latestSnapshot(key)!;
    watch.writeSnapshot(key, { ...snapshot(ADDR_A, 150_000_000n, 'c', '2026-11-21T10:00:00.000Z'), previousId: prev.id });
    expect(watch.history(key).map((h) => h.balanceSats)).toEqual([100_000_000n, 150_000_000n]);
    expect(watch.history(pid).map((h) => h.balanceSats)).toEqual([200_000_000n]);
    watch.prune(key, 1);
    expect(watch.history(key)).toHaveLength(1);
    expect(watch.history(B())).toHaveLength(1);
  });

  it('the switcher lists both wallets with their cached balances; deleting the profile deletes both', () => {
    const wallets = new WalletRepository(db);
    expect(wallets.known(pid)).toEqual([
      { nodeWallet: 'alice', snapshotAt: '2026-11-20T10:00:00.000Z', balanceSats: 100_000_000n },
      { nodeWallet: 'bob', snapshotAt: '2026-11-20T10:00:00.000Z', balanceSats: 200_000_000n },
    ]);
    profiles.delete(pid);
    for (const t of ['addresses', 'labels', 'snapshots']) expect((db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n, t).toBe(0);
  });
});
