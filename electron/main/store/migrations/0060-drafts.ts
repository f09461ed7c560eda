// Schema 60: payment drafts (#15, #16). A draft is one unsigned transaction of a profile's node
// wallet: the filled PSBT (as built, in the node's PSBT version), the form it came from (recipients
// with their labels, fee rate, coins, change, RBF, locktime — to reopen it), a summary for lists, and
// as it comes back: the signed PSBTs imported (each once), their combination, the extracted
// transaction and, once broadcast, its txid. A fee bump is a new draft that names the one it replaces.
import type { Database } from '../db';

export default function updateToSchemaVersion60(db: Database): void {
  db.exec(`
    CREATE TABLE drafts (
      id            TEXT NOT NULL PRIMARY KEY,
      profile_id    TEXT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      node_wallet   TEXT NOT NULL,
      name          TEXT NOT NULL,
      status        TEXT NOT NULL CHECK (status IN ('unsigned', 'partial', 'signed', 'final', 'sent', 'confirmed', 'replaced')),
      unsigned_txid TEXT NOT NULL CHECK (length(unsigned_txid) = 64),
      psbt          TEXT NOT NULL,
      combined      TEXT NULL,
      final_tx      TEXT NULL,
      txid          TEXT NULL,
      form          TEXT NOT NULL,
      summary       TEXT NOT NULL,
      replaces      TEXT NULL REFERENCES drafts (id) ON DELETE SET NULL,
      created_at    TEXT NOT NULL,
      updated_at    TEXT NOT NULL,
      sent_at       TEXT NULL,
      UNIQUE (profile_id, unsigned_txid)
    ) STRICT;
    CREATE INDEX drafts_by_profile ON drafts (profile_id, updated_at);

    CREATE TABLE draft_imports (
      draft_id    TEXT NOT NULL REFERENCES drafts (id) ON DELETE CASCADE,
      digest      TEXT NOT NULL,
      psbt        TEXT NOT NULL,
      source      TEXT NOT NULL,
      imported_at TEXT NOT NULL,
      PRIMARY KEY (draft_id, digest)
    ) STRICT;
  `);
}
