// The watched set of the watch-only repository — the addresses a profile watches (node or user,
// hidden or shown) — and the getaddressinfo replies stored for them. Functions taking the db
// (store/watch.ts delegates to them).
import type { Database } from './db';
import { checkAddress, invalid, requireProfile } from './watch-checks';
import type { AddressSource, InfoRecord, WatchedAddress } from './watch-types';

export function listAddresses(db: Database, profileId: string, opts: { includeHidden?: boolean; source?: AddressSource }): WatchedAddress[] {
  const rows = db
    .prepare<[string], { address: string; source: AddressSource; hidden: number; added_at: string }>(
      'SELECT address, source, hidden, added_at FROM addresses WHERE profile_id = ? ORDER BY added_at, address',
    )
    .all(profileId);
  return rows
    .filter((r) => (opts.includeHidden ?? true) || r.hidden === 0)
    .filter((r) => opts.source === undefined || r.source === opts.source)
    .map((r) => ({ address: r.address, source: r.source, hidden: r.hidden === 1, addedAt: r.added_at }));
}

export function getAddress(db: Database, profileId: string, address: string): WatchedAddress | null {
  const r = db
    .prepare<[string, string], { address: string; source: AddressSource; hidden: number; added_at: string }>(
      'SELECT address, source, hidden, added_at FROM addresses WHERE profile_id = ? AND address = ?',
    )
    .get(profileId, address);
  return r === undefined ? null : { address: r.address, source: r.source, hidden: r.hidden === 1, addedAt: r.added_at };
}

/**
 * Adds addresses in one transaction (all or none: one malformed entry throws before anything is
 * written). An address already watched stays as it is (a 'user' entry for a node address keeps
 * 'node'; a node entry for a user address upgrades it to 'node'). Checking that each address
 * belongs to the node's chain is the caller's job.
 */
export function addAddresses(db: Database, profileId: string, addresses: readonly string[], source: AddressSource, at: string): { added: string[]; existing: string[] } {
  const list = addresses.map(checkAddress);
  return db.transaction(() => {
    requireProfile(db, profileId);
    const insert = db.prepare(
      `INSERT INTO addresses (profile_id, address, source, hidden, added_at) VALUES (?, ?, ?, 0, ?)
       ON CONFLICT (profile_id, address) DO UPDATE SET source = 'node' WHERE excluded.source = 'node' AND source <> 'node'`,
    );
    const exists = db.prepare<[string, string], { x: number }>('SELECT 1 AS x FROM addresses WHERE profile_id = ? AND address = ?');
    const added: string[] = [];
    const existing: string[] = [];
    const seen = new Set<string>();
    for (const a of list) {
      if (seen.has(a)) continue;
      seen.add(a);
      if (exists.get(profileId, a) !== undefined) existing.push(a);
      else added.push(a);
      insert.run(profileId, a, source, at);
    }
    return { added, existing };
  })();
}

/** Hides or shows addresses (they stay tracked). Returns how many rows changed. */
export function setHidden(db: Database, profileId: string, addresses: readonly string[], hidden: boolean): number {
  return db.transaction(() => {
    const st = db.prepare('UPDATE addresses SET hidden = ? WHERE profile_id = ? AND address = ? AND hidden <> ?');
    let n = 0;
    for (const a of addresses) n += st.run(hidden ? 1 : 0, profileId, a, hidden ? 1 : 0).changes;
    return n;
  })();
}

/**
 * Removes user-added addresses (and their address info) in one transaction. A node address would
 * come back with the next refresh, so asking to remove one throws (nothing removed): hide it instead.
 * Labels and past snapshots are kept. Returns how many were removed.
 */
export function removeAddresses(db: Database, profileId: string, addresses: readonly string[]): number {
  return db.transaction(() => {
    const get = db.prepare<[string, string], { source: AddressSource }>('SELECT source FROM addresses WHERE profile_id = ? AND address = ?');
    for (const a of addresses) {
      if (get.get(profileId, a)?.source === 'node') {
        throw invalid(`${a} belongs to the node's wallet and would come back with the next refresh; hide it instead.`, 'address');
      }
    }
    const del = db.prepare('DELETE FROM addresses WHERE profile_id = ? AND address = ?');
    let n = 0;
    for (const a of addresses) n += del.run(profileId, a).changes;
    return n;
  })();
}

/** Stores getaddressinfo replies (the address must be watched). */
export function upsertInfos(db: Database, profileId: string, infos: ReadonlyArray<InfoRecord>, at: string): void {
  db.transaction(() => {
    const st = db.prepare(
      `INSERT INTO address_info (profile_id, address, info_json, fetched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (profile_id, address) DO UPDATE SET info_json = excluded.info_json, fetched_at = excluded.fetched_at`,
    );
    for (const r of infos) st.run(profileId, r.address, 'infoJson' in r ? r.infoJson : JSON.stringify(r.info), at);
  })();
}

export function getInfo(db: Database, profileId: string, address: string): { info: unknown; fetchedAt: string } | null {
  const r = db
    .prepare<[string, string], { info_json: string; fetched_at: string }>('SELECT info_json, fetched_at FROM address_info WHERE profile_id = ? AND address = ?')
    .get(profileId, address);
  return r === undefined ? null : { info: JSON.parse(r.info_json) as unknown, fetchedAt: r.fetched_at };
}

/** address → when its info was fetched. */
export function infoFetchedAt(db: Database, profileId: string): Map<string, string> {
  const rows = db.prepare<[string], { address: string; fetched_at: string }>('SELECT address, fetched_at FROM address_info WHERE profile_id = ?').all(profileId);
  return new Map(rows.map((r) => [r.address, r.fetched_at]));
}

/** The addresses among `addresses` with no info, or info fetched more than `maxAgeMs` before `nowMs`. */
export function staleInfo(db: Database, profileId: string, addresses: readonly string[], maxAgeMs: number, nowMs: number): string[] {
  const fetched = infoFetchedAt(db, profileId);
  const limit = nowMs - maxAgeMs;
  return addresses.filter((a) => {
    const at = fetched.get(a);
    if (at === undefined) return true;
    const t = Date.parse(at);
    return !Number.isFinite(t) || t < limit || t > nowMs; // a time in the future (clock moved back): refetch
  });
}
