// A profile that named no wallet kept its data under the empty wallet name (migration 0090). When the
// profile's wallet gets its name (store/profiles.ts nameWallet), that data moves to it — in the
// caller's transaction, and only when the named wallet has nothing of its own yet: two wallets' rows
// are never merged, and rows that cannot move stay under the empty name rather than being deleted.
import type { Database } from './db';

const TABLES = ['snapshots', 'labels', 'addresses'] as const;

export function adoptUnnamedWallet(db: Database, profileId: string, wallet: string): boolean {
  if (wallet === '') return false;
  const has = (table: (typeof TABLES)[number]): boolean =>
    db.prepare<[string, string], { x: number }>(`SELECT 1 AS x FROM ${table} WHERE profile_id = ? AND node_wallet = ? LIMIT 1`).get(profileId, wallet) !== undefined;
  if (TABLES.some(has)) return false;
  // address_info follows addresses (ON UPDATE CASCADE); snapshot rows hang off the snapshot id.
  for (const table of TABLES) db.prepare(`UPDATE ${table} SET node_wallet = ? WHERE profile_id = ? AND node_wallet = ''`).run(wallet, profileId);
  return true;
}
