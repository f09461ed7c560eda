// Send's SQLite tables besides the drafts (schema 50): frozen coins, the node facts compose works
// from (kept so it works offline), the next offline change index, and verified previous transactions.
import type { Database } from '../store/db';
import type { NodeFacts } from './facts';

export class SendStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  frozen(profileId: string, wallet: string): Set<string> {
    const rows = this.#db.prepare<[string, string], { outpoint: string }>('SELECT outpoint FROM coin_flags WHERE profile_id = ? AND node_wallet = ? AND frozen = 1').all(profileId, wallet);
    return new Set(rows.map((r) => r.outpoint));
  }

  setFrozen(profileId: string, wallet: string, outpoint: string, frozen: boolean, at = new Date().toISOString()): void {
    if (frozen) {
      this.#db
        .prepare('INSERT INTO coin_flags (profile_id, node_wallet, outpoint, frozen, updated_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT (profile_id, node_wallet, outpoint) DO UPDATE SET frozen = 1, updated_at = excluded.updated_at')
        .run(profileId, wallet, outpoint, at);
    } else {
      this.#db.prepare('DELETE FROM coin_flags WHERE profile_id = ? AND node_wallet = ? AND outpoint = ?').run(profileId, wallet, outpoint);
    }
  }

  facts(profileId: string, wallet: string): { facts: NodeFacts; fetchedAt: string; changeNext: number } | null {
    const r = this.#db
      .prepare<[string, string], { facts: string; fetched_at: string; change_next: number }>('SELECT facts, fetched_at, change_next FROM send_cache WHERE profile_id = ? AND node_wallet = ?')
      .get(profileId, wallet);
    return r ? { facts: JSON.parse(r.facts) as NodeFacts, fetchedAt: r.fetched_at, changeNext: r.change_next } : null;
  }

  saveFacts(profileId: string, wallet: string, facts: NodeFacts, at = new Date().toISOString()): void {
    this.#db
      .prepare(
        `INSERT INTO send_cache (profile_id, node_wallet, chain, facts, fetched_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (profile_id, node_wallet) DO UPDATE SET chain = excluded.chain, facts = excluded.facts, fetched_at = excluded.fetched_at`,
      )
      .run(profileId, wallet, facts.chain, JSON.stringify(facts), at);
  }

  /** Raises the next offline change index to at least `next`. */
  bumpChange(profileId: string, wallet: string, next: number): void {
    this.#db.prepare('UPDATE send_cache SET change_next = max(change_next, ?) WHERE profile_id = ? AND node_wallet = ?').run(next, profileId, wallet);
  }

  prevTxs(profileId: string, txids: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    const stmt = this.#db.prepare<[string, string], { hex: string }>('SELECT hex FROM prev_txs WHERE profile_id = ? AND txid = ?');
    for (const t of txids) {
      const r = stmt.get(profileId, t);
      if (r) out.set(t, r.hex);
    }
    return out;
  }

  /** Stores previous transactions already checked against their txids. */
  savePrevTxs(profileId: string, txs: ReadonlyArray<{ txid: string; hex: string; source: 'node' | 'index' }>, at = new Date().toISOString()): void {
    const stmt = this.#db.prepare('INSERT OR REPLACE INTO prev_txs (profile_id, txid, hex, source, fetched_at) VALUES (?, ?, ?, ?, ?)');
    this.#db.transaction(() => {
      for (const t of txs) stmt.run(profileId, t.txid, t.hex, t.source, at);
    })();
  }
}
