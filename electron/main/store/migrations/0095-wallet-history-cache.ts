// Schema 95: the last wallet history (`wallet:history`) the node gave, per profile AND node wallet, so
// the Transactions page shows it offline ("offline — as of …") instead of an error. One row a wallet,
// replaced by each successful read; `reply` is the WalletHistoryView as JSON (amounts are decimal
// strings of satoshis there, never floats). Nothing of another profile or wallet can match a key.
import type { Database } from '../db';

export default function updateToSchemaVersion95(db: Database): void {
  db.exec(`
    CREATE TABLE wallet_history_cache (
      profile_id  TEXT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet TEXT NOT NULL,
      fetched_at  TEXT NOT NULL,
      reply       TEXT NOT NULL,
      PRIMARY KEY (profile_id, node_wallet)
    ) STRICT;
  `);
}
