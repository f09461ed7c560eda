// Schema 98 (#26 item 5, "one number for pending"): each node row of a snapshot keeps the node
// wallet's unconfirmed coins at its address (listunspent minconf 0, `confirmations` 0), so Balances
// shows what is pending per address — our own unconfirmed change (listunspent `safe`: Core's
// trusted) apart from payments from others (untrusted_pending) — and the address page lists them.
// `node_pending` is a JSON array of [txid, vout, "sats", safe] (amounts as decimal strings, never
// floats); NULL when not known: the spend check off, or a row written before this schema (its
// pending amounts read "unknown" until the next refresh, never 0).
import type { Database } from '../db';

export default function updateToSchemaVersion98(db: Database): void {
  db.exec('ALTER TABLE snapshot_received ADD COLUMN node_pending TEXT NULL;');
}
