// The last wallet history the node gave (`wallet:history`), kept per profile AND node wallet (table
// `wallet_history_cache`, migration 0095) so the Transactions page shows it offline under "offline —
// as of …". The key is always both: a history of another profile or another wallet of the same
// profile never matches. A row that does not read back as a history (a damaged file) is no cache.
import type { WalletHistoryView } from '../../../shared/ipc/wallet';
import type { Database } from './db';

export interface CachedHistory {
  /** When the node gave it (ISO time). */
  fetchedAt: string;
  view: WalletHistoryView;
}

interface Row {
  fetched_at: string;
  reply: string;
}

const isSats = (v: unknown): boolean => typeof v === 'string' && /^-?\d+$/.test(v);

/** The stored JSON is a history of `nodeWallet`: rows with integer-string amounts, the three balances. */
function parse(text: string, nodeWallet: string): WalletHistoryView | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Partial<WalletHistoryView>;
  if (o.wallet !== nodeWallet || !Array.isArray(o.rows) || typeof o.balance !== 'object' || o.balance === null) return null;
  const b = o.balance;
  if (!isSats(b.confirmedSats) || !isSats(b.pendingSats) || !isSats(b.immatureSats)) return null;
  for (const r of o.rows as unknown[]) {
    const row = r as Partial<WalletHistoryView['rows'][number]> | null;
    if (!row || typeof row.txid !== 'string' || !isSats(row.amountSats) || !isSats(row.runningSats) || !(row.feeSats === null || isSats(row.feeSats))) return null;
  }
  return { wallet: o.wallet, rows: o.rows, balance: { confirmedSats: b.confirmedSats, pendingSats: b.pendingSats, immatureSats: b.immatureSats } };
}

export class WalletHistoryCache {
  readonly #get;
  readonly #put;
  readonly #drop;

  constructor(db: Database) {
    this.#get = db.prepare<[string, string], Row>('SELECT fetched_at, reply FROM wallet_history_cache WHERE profile_id = ? AND node_wallet = ?');
    this.#put = db.prepare<[string, string, string, string]>(
      `INSERT INTO wallet_history_cache (profile_id, node_wallet, fetched_at, reply) VALUES (?, ?, ?, ?)
       ON CONFLICT (profile_id, node_wallet) DO UPDATE SET fetched_at = excluded.fetched_at, reply = excluded.reply`,
    );
    this.#drop = db.prepare<[string, string]>('DELETE FROM wallet_history_cache WHERE profile_id = ? AND node_wallet = ?');
  }

  /** Keeps `view` (the node's answer just now) as the history of this profile's wallet `view.wallet`. */
  save(profileId: string, view: WalletHistoryView, fetchedAt: Date = new Date()): void {
    const { wallet, rows, balance } = view;
    this.#put.run(profileId, wallet, fetchedAt.toISOString(), JSON.stringify({ wallet, rows, balance }));
  }

  /** The last history of this profile's wallet `nodeWallet`, or null (never one of another key). */
  get(profileId: string, nodeWallet: string): CachedHistory | null {
    const row = this.#get.get(profileId, nodeWallet);
    if (!row) return null;
    const view = parse(row.reply, nodeWallet);
    return view ? { fetchedAt: row.fetched_at, view } : null;
  }

  forget(profileId: string, nodeWallet: string): void {
    this.#drop.run(profileId, nodeWallet);
  }
}
