// Schema 30: the node wallet's state a snapshot's node-unspent digests were read at.
//
// `wallet_state` is getwalletinfo's `txcount` and `lastprocessedblock` hash ("<txcount>:<hash>"),
// read before `listunspent`. While the wallet reports the same state, its set of confirmed unspent
// outputs cannot have changed (a spend of a wallet coin is itself a wallet transaction, a new block
// moves lastprocessedblock), so the refresh engine reuses the digests instead of asking for the
// whole wallet's UTXO list again. NULL: not known (older snapshots, or a node without the fields).
import type { Database } from '../db';

export default function updateToSchemaVersion30(db: Database): void {
  db.exec(`ALTER TABLE snapshots ADD COLUMN wallet_state TEXT NULL;`);
}
