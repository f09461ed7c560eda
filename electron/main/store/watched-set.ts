// The watched set of the watch-only repository — the addresses a wallet watches (node or user,
// hidden or shown) — and the getaddressinfo replies stored for them. Functions taking the db
// (store/watch.ts delegates to them).
import type { Database } from './db';
import { checkAddress, invalid, requireProfile, walletKey } from './watch-checks';
import type { AddressSource, InfoRecord, WalletScope, WatchedAddress } from './watch-types';

export function listAddresses(db: Database, scope: WalletScope, opts: { includeHidden?: boolean; source?: AddressSource }): WatchedAddress[] {
  const k = walletKey(db, scope);
  const rows = db
    .prepare<[string, string], { address: string; source: AddressSource; hidden: number; added_at: string }>(
      'SELECT address, source, hidden, added_at FROM addresses WHERE profile_id = ? AND node_wallet = ? ORDER BY added_at, address',
    )
    .all(k.profileId, k.wallet);
  return rows
    .filter((r) => (opts.includeHidden ?? true) || r.hidden === 0)
    .filter((r) => opts.source === undefined || r.source === opts.source)
    .map((r) => ({ address: r.address, source: r.source, hidden: r.hidden === 1, addedAt: r.added_at }));
}

/**
 * The addresses of one source, in listAddresses' order, as plain strings (hidden ones included):
 * one column read in raw mode, for the refresh's 100,000-address sets (listAddresses' objects cost
 * seconds there).
 */
export function addressList(db: Database, scope: WalletScope, source: AddressSource): string[] {
  const k = walletKey(db, scope);
  return db
    .prepare<[string, string, AddressSource], string>('SELECT address FROM addresses WHERE profile_id = ? AND node_wallet = ? AND source = ? ORDER BY added_at, address')
    .pluck(true)
    .all(k.profileId, k.wallet, source);
}

export function getAddress(db: Database, scope: WalletScope, address: string): WatchedAddress | null {
  const k = walletKey(db, scope);
  const r = db
    .prepare<[string, string, string], { address: string; source: AddressSource; hidden: number; added_at: string }>(
      'SELECT address, source, hidden, added_at FROM addresses WHERE profile_id = ? AND node_wallet = ? AND address = ?',
    )
    .get(k.profileId, k.wallet, address);
  return r === undefined ? null : { address: r.address, source: r.source, hidden: r.hidden === 1, addedAt: r.added_at };
}

/**
 * Adds addresses in one transaction (all or none: one malformed entry throws before anything is
 * written). An address already watched stays as it is (a 'user' entry for a node address keeps
 * 'node'; a node entry for a user address upgrades it to 'node'). Checking that each address
 * belongs to the node's chain is the caller's job.
 */
export function addAddresses(db: Database, scope: WalletScope, addresses: readonly string[], source: AddressSource, at: string): { added: string[]; existing: string[] } {
  const list = addresses.map(checkAddress);
  return db.transaction(() => {
    const k = walletKey(db, scope);
    requireProfile(db, k.profileId);
    // One statement per address: the insert's change count tells added from already watched.
    const insert = db.prepare('INSERT INTO addresses (profile_id, node_wallet, address, source, hidden, added_at) VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (profile_id, node_wallet, address) DO NOTHING');
    const upgrade = source === 'node' ? db.prepare("UPDATE addresses SET source = 'node' WHERE profile_id = ? AND node_wallet = ? AND address = ? AND source <> 'node'") : null;
    const added: string[] = [];
    const existing: string[] = [];
    const seen = new Set<string>();
    for (const a of list) {
      if (seen.has(a)) continue;
      seen.add(a);
      if (insert.run(k.profileId, k.wallet, a, source, at).changes === 1) {
        added.push(a);
      } else {
        existing.push(a);
        upgrade?.run(k.profileId, k.wallet, a);
      }
    }
    return { added, existing };
  })();
}

/** Hides or shows addresses (they stay tracked). Returns how many rows changed. */
export function setHidden(db: Database, scope: WalletScope, addresses: readonly string[], hidden: boolean): number {
  return db.transaction(() => {
    const k = walletKey(db, scope);
    const st = db.prepare('UPDATE addresses SET hidden = ? WHERE profile_id = ? AND node_wallet = ? AND address = ? AND hidden <> ?');
    let n = 0;
    for (const a of addresses) n += st.run(hidden ? 1 : 0, k.profileId, k.wallet, a, hidden ? 1 : 0).changes;
    return n;
  })();
}

/**
 * Removes user-added addresses (and their address info) in one transaction. A node address would
 * come back with the next refresh, so asking to remove one throws (nothing removed): hide it instead.
 * Labels and past snapshots are kept. Returns how many were removed.
 */
export function removeAddresses(db: Database, scope: WalletScope, addresses: readonly string[]): number {
  return db.transaction(() => {
    const k = walletKey(db, scope);
    const get = db.prepare<[string, string, string], { source: AddressSource }>('SELECT source FROM addresses WHERE profile_id = ? AND node_wallet = ? AND address = ?');
    for (const a of addresses) {
      if (get.get(k.profileId, k.wallet, a)?.source === 'node') {
        throw invalid(`${a} belongs to the node's wallet and would come back with the next refresh; hide it instead.`, 'address');
      }
    }
    const del = db.prepare('DELETE FROM addresses WHERE profile_id = ? AND node_wallet = ? AND address = ?');
    let n = 0;
    for (const a of addresses) n += del.run(k.profileId, k.wallet, a).changes;
    return n;
  })();
}

/** Stores getaddressinfo replies (the address must be watched). */
export function upsertInfos(db: Database, scope: WalletScope, infos: ReadonlyArray<InfoRecord>, at: string): void {
  db.transaction(() => {
    const k = walletKey(db, scope);
    const st = db.prepare(
      `INSERT INTO address_info (profile_id, node_wallet, address, info_json, fetched_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (profile_id, node_wallet, address) DO UPDATE SET info_json = excluded.info_json, fetched_at = excluded.fetched_at`,
    );
    for (const r of infos) st.run(k.profileId, k.wallet, r.address, 'infoJson' in r ? r.infoJson : JSON.stringify(r.info), at);
  })();
}

export function getInfo(db: Database, scope: WalletScope, address: string): { info: unknown; fetchedAt: string } | null {
  const k = walletKey(db, scope);
  const r = db
    .prepare<[string, string, string], { info_json: string; fetched_at: string }>('SELECT info_json, fetched_at FROM address_info WHERE profile_id = ? AND node_wallet = ? AND address = ?')
    .get(k.profileId, k.wallet, address);
  return r === undefined ? null : { info: JSON.parse(r.info_json) as unknown, fetchedAt: r.fetched_at };
}

/** address → when its info was fetched. */
export function infoFetchedAt(db: Database, scope: WalletScope): Map<string, string> {
  const k = walletKey(db, scope);
  const rows = db.prepare<[string, string], { address: string; fetched_at: string }>('SELECT address, fetched_at FROM address_info WHERE profile_id = ? AND node_wallet = ?').all(k.profileId, k.wallet);
  return new Map(rows.map((r) => [r.address, r.fetched_at]));
}

/** The addresses among `addresses` with no info, or info fetched more than `maxAgeMs` before `nowMs`. */
export function staleInfo(db: Database, scope: WalletScope, addresses: readonly string[], maxAgeMs: number, nowMs: number): string[] {
  const fetched = infoFetchedAt(db, scope);
  const limit = nowMs - maxAgeMs;
  return addresses.filter((a) => {
    const at = fetched.get(a);
    if (at === undefined) return true;
    const t = Date.parse(at);
    return !Number.isFinite(t) || t < limit || t > nowMs; // a time in the future (clock moved back): refetch
  });
}
