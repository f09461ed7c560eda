// Local labels of the watch-only repository (BIP329 types: addr, tx, output, input, pubkey, xpub):
// set one or many, read, list, delete. Functions taking the db (store/watch.ts delegates to them).
import type { Database } from './db';
import { checkLabel, requireProfile } from './watch-checks';
import { toLabel, type LabelRowDb } from './watch-rows';
import type { Label, LabelInput, LabelType } from './watch-types';

/** Creates or replaces the label of (type, ref). An empty label with no spendable/origin deletes it (returns null). */
export function setLabel(db: Database, profileId: string, input: LabelInput, at: string): Label | null {
  const l = checkLabel(input);
  return db.transaction(() => {
    requireProfile(db, profileId);
    if (l.label === '' && l.spendable === null && l.origin === null) {
      deleteLabel(db, profileId, l.type, l.ref);
      return null;
    }
    db
      .prepare(
        `INSERT INTO labels (profile_id, type, ref, label, spendable, origin, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (profile_id, type, ref) DO UPDATE SET label = excluded.label, spendable = excluded.spendable, origin = excluded.origin, updated_at = excluded.updated_at`,
      )
      .run(profileId, l.type, l.ref, l.label, l.spendable === null ? null : l.spendable ? 1 : 0, l.origin, at);
    return getLabel(db, profileId, l.type, l.ref);
  })();
}

/** Sets many labels in one transaction (all or none: an invalid entry throws before anything changes). */
export function setLabels(db: Database, profileId: string, inputs: readonly LabelInput[], at: string): number {
  inputs.forEach(checkLabel);
  return db.transaction(() => {
    let n = 0;
    for (const i of inputs) {
      setLabel(db, profileId, i, at);
      n++;
    }
    return n;
  })();
}

export function getLabel(db: Database, profileId: string, type: LabelType, ref: string): Label | null {
  const r = db
    .prepare<[string, string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND type = ? AND ref = ?')
    .get(profileId, type, ref);
  return r === undefined ? null : toLabel(r);
}

export function listLabels(db: Database, profileId: string, type?: LabelType): Label[] {
  const rows =
    type === undefined
      ? db.prepare<[string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? ORDER BY type, ref').all(profileId)
      : db
          .prepare<[string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND type = ? ORDER BY ref')
          .all(profileId, type);
  return rows.map(toLabel);
}

export function deleteLabel(db: Database, profileId: string, type: LabelType, ref: string): boolean {
  return db.prepare('DELETE FROM labels WHERE profile_id = ? AND type = ? AND ref = ?').run(profileId, type, ref).changes > 0;
}
