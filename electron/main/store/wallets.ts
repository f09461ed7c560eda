// The `wallets` table (migration 0070): each profile's watch-only wallets by their node name, with the
// public descriptors (never a private key: the import refuses them) and the next receive index; and
// `wallet_rescans` (migration 0080): a rescan started and not yet answered (interrupted when left over).
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

/** A rescan started on the node and not yet answered (see migration 0080). */
export interface RescanRecord {
  profileId: string;
  nodeWallet: string;
  /** The block height the rescan starts at (what `rescanblockchain` is given to run it again). */
  startHeight: number;
  /** UNIX seconds: history since then is what the rescan looks for (0: the whole chain). */
  fromTime: number;
  kind: 'import' | 'rescan';
  startedAt: string;
}

interface RescanRow {
  profile_id: string;
  node_wallet: string;
  start_height: number;
  from_time: number;
  kind: 'import' | 'rescan';
  started_at: string;
}

const toRescan = (r: RescanRow): RescanRecord => ({ profileId: r.profile_id, nodeWallet: r.node_wallet, startHeight: r.start_height, fromTime: r.from_time, kind: r.kind, startedAt: r.started_at });

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

  /**
   * Every wallet the profile has data of (#26): the ones imported or attached here, and the ones it
   * took snapshots of or keeps drafts of, with the latest good snapshot of each (null before the first). The empty name
   * (a profile that named no wallet yet) is not a wallet to switch to and is left out.
   */
  known(profileId: string): Array<{ nodeWallet: string; snapshotAt: string | null; balanceSats: bigint | null }> {
    const rows = this.#db
      .prepare<{ p: string }, { node_wallet: string; taken_at: string | null; balance_sats: number | bigint | null }>(
        `WITH names AS (SELECT node_wallet FROM wallets WHERE profile_id = @p
                        UNION SELECT node_wallet FROM snapshots WHERE profile_id = @p
                        UNION SELECT node_wallet FROM drafts WHERE profile_id = @p),
              latest AS (SELECT node_wallet, MAX(id) AS id FROM snapshots WHERE profile_id = @p AND status IN ('ok', 'partial') GROUP BY node_wallet)
         SELECT n.node_wallet, s.taken_at, s.balance_sats
           FROM names n LEFT JOIN latest l ON l.node_wallet = n.node_wallet LEFT JOIN snapshots s ON s.id = l.id
          WHERE n.node_wallet <> ''
          ORDER BY n.node_wallet`,
      )
      .all({ p: profileId });
    return rows.map((r) => ({ nodeWallet: r.node_wallet, snapshotAt: r.taken_at, balanceSats: r.balance_sats === null ? null : BigInt(r.balance_sats) }));
  }

  /** Raises the next receive index to at least `next` (never lowers it: an address handed out stays handed out). */
  bumpReceive(profileId: string, nodeWallet: string, next: number): void {
    this.#db.prepare('UPDATE wallets SET receive_next = max(receive_next, ?) WHERE profile_id = ? AND node_wallet = ?').run(next, profileId, nodeWallet);
  }

  /** Records a rescan about to start (replacing an older record of the same wallet). */
  startRescan(profileId: string, nodeWallet: string, r: { startHeight: number; fromTime: number; kind: RescanRecord['kind'] }, at: Date = new Date()): RescanRecord {
    this.#db
      .prepare(
        `INSERT INTO wallet_rescans (profile_id, node_wallet, start_height, from_time, kind, started_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (profile_id, node_wallet) DO UPDATE SET start_height = excluded.start_height, from_time = excluded.from_time, kind = excluded.kind, started_at = excluded.started_at`,
      )
      .run(profileId, nodeWallet, r.startHeight, r.fromTime, r.kind, at.toISOString());
    return this.rescan(profileId, nodeWallet)!;
  }

  rescan(profileId: string, nodeWallet: string): RescanRecord | null {
    const r = this.#db.prepare<[string, string], RescanRow>('SELECT * FROM wallet_rescans WHERE profile_id = ? AND node_wallet = ?').get(profileId, nodeWallet);
    return r ? toRescan(r) : null;
  }

  /** The node answered: the rescan finished (or failed for a reason of its own, not a stop). */
  clearRescan(profileId: string, nodeWallet: string): void {
    this.#db.prepare('DELETE FROM wallet_rescans WHERE profile_id = ? AND node_wallet = ?').run(profileId, nodeWallet);
  }
}
