// The cache of index transaction records (table index_txs, by chain and txid), stored as JSON in
// which bigint amounts are {"$sats": "<digits>"}: encodeRecord/decodeRecord and the cache's reads
// and writes (functions taking the db; store/watch.ts delegates to them and re-exports the codec).
import type { IndexTransaction } from '../blockindex/types';
import type { Database } from './db';

/** Serializes a record whose amounts are bigints (they become {"$sats": "…"}). */
export function encodeRecord(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $sats: v.toString() } : v));
}

/** The inverse of encodeRecord. */
export function decodeRecord<T>(json: string): T {
  return JSON.parse(json, (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const s = (v as { $sats?: unknown }).$sats;
      if (keys.length === 1 && typeof s === 'string' && /^-?[0-9]+$/.test(s)) return BigInt(s);
    }
    return v;
  }) as T;
}

export function getIndexTx(db: Database, genesisHash: string, txid: string): { tx: IndexTransaction; fetchedAt: string } | null {
  const r = db
    .prepare<[string, string], { json: string; fetched_at: string }>('SELECT json, fetched_at FROM index_txs WHERE genesis_hash = ? AND txid = ?')
    .get(genesisHash, txid);
  return r === undefined ? null : { tx: decodeRecord<IndexTransaction>(r.json), fetchedAt: r.fetched_at };
}

export function putIndexTx(db: Database, genesisHash: string, tx: IndexTransaction, at: string): void {
  db
    .prepare(
      `INSERT INTO index_txs (genesis_hash, txid, json, fetched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (genesis_hash, txid) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at`,
    )
    .run(genesisHash, tx.txId, encodeRecord(tx), at);
}
