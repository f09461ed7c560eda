// The `wallets` table (migration 0070): each profile's watch-only wallets by their node name, with the
// public descriptors (never a private key: the import refuses them) and the next receive index.
import type { WalletDescription } from '../../../shared/wallet/types';
import type { Database } from './db';

export interface StoredWallet {
  profileId: string;
  nodeWallet: string;
  description: WalletDescription;
  receiveNext: number;
  createdAt: string;
}

interface Row {
  profile_id: string;
  node_wallet: string;
  description: string;
  receive_next: number;
  created_at: string;
}

const toWallet = (r: Row): StoredWallet => ({ profileId: r.profile_id, nodeWallet: r.node_wallet, description: JSON.parse(r.description) as WalletDescription, receiveNext: r.receive_next, createdAt: r.created_at });

export class WalletRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  get(profileId: string, nodeWallet: string): StoredWallet | null {
    const r = this.#db.prepare<[string, string], Row>('SELECT * FROM wallets WHERE profile_id = ? AND node_wallet = ?').get(profileId, nodeWallet);
    return r ? toWallet(r) : null;
  }

  list(profileId: string): StoredWallet[] {
    return this.#db.prepare<[string], Row>('SELECT * FROM wallets WHERE profile_id = ? ORDER BY created_at').all(profileId).map(toWallet);
  }

  /** Stores (or replaces) a wallet's description; the receive index is kept when it was known. */
  save(profileId: string, nodeWallet: string, description: WalletDescription, at: Date = new Date()): StoredWallet {
    this.#db
      .prepare(
        `INSERT INTO wallets (profile_id, node_wallet, description, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (profile_id, node_wallet) DO UPDATE SET description = excluded.description`,
      )
      .run(profileId, nodeWallet, JSON.stringify(description), at.toISOString());
    return this.get(profileId, nodeWallet)!;
  }

  /** Raises the next receive index to at least `next` (never lowers it: an address handed out stays handed out). */
  bumpReceive(profileId: string, nodeWallet: string, next: number): void {
    this.#db.prepare('UPDATE wallets SET receive_next = max(receive_next, ?) WHERE profile_id = ? AND node_wallet = ?').run(next, profileId, nodeWallet);
  }
}
