// Local labels of the watch-only repository (BIP329 types: addr, tx, output, input, pubkey, xpub):
// set one or many, read, list, delete. Functions taking the db (store/watch.ts delegates to them).
import type { Database } from './db';
import { checkLabel, requireProfile, walletKey } from './watch-checks';
import { toLabel, type LabelRowDb } from './watch-rows';
import type { Label, LabelInput, LabelType, WalletScope } from './watch-types';

/** Creates or replaces the label of (type, ref). An empty label with no spendable/origin deletes it (returns null). */
export function setLabel(db: Database, scope: WalletScope, input: LabelInput, at: string): Label | null {
  const l = checkLabel(input);
  return db.transaction(() => {
    const k = walletKey(db, scope);
    requireProfile(db, k.profileId);
    if (l.label === '' && l.spendable === null && l.origin === null) {
      deleteLabel(db, k, l.type, l.ref);
      return null;
    }
    db
      .prepare(
        `INSERT INTO labels (profile_id, node_wallet, type, ref, label, spendable, origin, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (profile_id, node_wallet, type, ref) DO UPDATE SET label = excluded.label, spendable = excluded.spendable, origin = excluded.origin, updated_at = excluded.updated_at`,
      )
      .run(k.profileId, k.wallet, l.type, l.ref, l.label, l.spendable === null ? null : l.spendable ? 1 : 0, l.origin, at);
    return getLabel(db, k, l.type, l.ref);
  })();
}

/**
 * Sets many labels in one transaction (all or none: an invalid entry throws before anything changes),
 * with one upsert and one delete statement prepared once and reused for every row — no savepoint or
 * read-back per row, so 100,000 labels are one pass (setLabel per row took 30 s for that).
 * An empty label with no spendable/origin deletes the label, as setLabel does. Returns how many entries were applied.
 */
export function setLabels(db: Database, scope: WalletScope, inputs: readonly LabelInput[], at: string): number {
  const checked = inputs.map(checkLabel);
  return db.transaction(() => {
    const k = walletKey(db, scope);
    requireProfile(db, k.profileId);
    const upsert = db.prepare(
      `INSERT INTO labels (profile_id, node_wallet, type, ref, label, spendable, origin, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (profile_id, node_wallet, type, ref) DO UPDATE SET label = excluded.label, spendable = excluded.spendable, origin = excluded.origin, updated_at = excluded.updated_at`,
    );
    const del = db.prepare('DELETE FROM labels WHERE profile_id = ? AND node_wallet = ? AND type = ? AND ref = ?');
    for (const l of checked) {
      if (l.label === '' && l.spendable === null && l.origin === null) del.run(k.profileId, k.wallet, l.type, l.ref);
      else upsert.run(k.profileId, k.wallet, l.type, l.ref, l.label, l.spendable === null ? null : l.spendable ? 1 : 0, l.origin, at);
    }
    return checked.length;
  })();
}

export function getLabel(db: Database, scope: WalletScope, type: LabelType, ref: string): Label | null {
  const k = walletKey(db, scope);
  const r = db
    .prepare<[string, string, string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND node_wallet = ? AND type = ? AND ref = ?')
    .get(k.profileId, k.wallet, type, ref);
  return r === undefined ? null : toLabel(r);
}

export function listLabels(db: Database, scope: WalletScope, type?: LabelType): Label[] {
  const k = walletKey(db, scope);
  const rows =
    type === undefined
      ? db.prepare<[string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND node_wallet = ? ORDER BY type, ref').all(k.profileId, k.wallet)
      : db
          .prepare<[string, string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND node_wallet = ? AND type = ? ORDER BY ref')
          .all(k.profileId, k.wallet, type);
  return rows.map(toLabel);
}

export function deleteLabel(db: Database, scope: WalletScope, type: LabelType, ref: string): boolean {
  const k = walletKey(db, scope);
  return db.prepare('DELETE FROM labels WHERE profile_id = ? AND node_wallet = ? AND type = ? AND ref = ?').run(k.profileId, k.wallet, type, ref).changes > 0;
}
