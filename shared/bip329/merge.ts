// Merging an imported label file into the labels Spyglass already has, under the rule the user
// picks (replace, keep existing, fill in blanks). Pure: it says what would change.
import { labelKey, overlay, type LabelRecord, type LabelType } from './record';

export type MergeRule = 'replace' | 'keep-existing' | 'fill-empty';

/** What the import screen says about each rule (title for the choice, text under it). */
export const MERGE_RULES: Record<MergeRule, { title: string; description: string }> = {
  replace: {
    title: 'Use the file’s labels',
    description:
      'Where the file and Spyglass both have a label (or spendable flag) for the same item, the file’s replaces yours. Items the file does not mention keep theirs. An empty label in the file never erases one.',
  },
  'keep-existing': {
    title: 'Keep my labels',
    description:
      'Items that already have a label or spendable flag in Spyglass stay exactly as they are. The file only adds labels for items Spyglass has nothing for.',
  },
  'fill-empty': {
    title: 'Only fill in blanks',
    description:
      'The file fills in only what is missing in Spyglass: an item without a label gets the file’s label, an output without a spendable flag gets the file’s. Nothing you have set is overwritten.',
  },
};

export type LabelField = 'label' | 'origin' | 'spendable';

export interface LabelConflict {
  type: LabelType;
  ref: string;
  field: LabelField;
  existing: string | boolean;
  imported: string | boolean;
  /** Whose value the rule keeps. */
  kept: 'existing' | 'imported';
}

export interface MergeResult {
  /** Items Spyglass has no record for: insert these. (An existing but empty record that gets values is in `updated`.) */
  added: LabelRecord[];
  /** Items whose stored values change: write `after` over `before`. */
  updated: { before: LabelRecord; after: LabelRecord }[];
  /** Imported records that change nothing (same values, nothing to add, or kept by the rule). */
  unchanged: LabelRecord[];
  /**
   * Every value both sides have and disagree on, with the side the rule kept. Not a separate
   * category: each conflict's item is also in `updated` (file kept) or `unchanged` (yours kept).
   */
  conflicts: LabelConflict[];
}

function fieldValue(r: LabelRecord, f: LabelField): string | boolean | undefined {
  if (f === 'spendable') return r.type === 'output' ? r.spendable : undefined;
  const v = r[f];
  return v === '' ? undefined : v; // an empty label or origin is no value
}

function hasContent(r: LabelRecord): boolean {
  return (['label', 'origin', 'spendable'] as const).some((f) => fieldValue(r, f) !== undefined);
}

function withField(r: LabelRecord, f: LabelField, v: string | boolean): LabelRecord {
  if (f === 'spendable') return r.type === 'output' ? { ...r, spendable: v as boolean } : r;
  return { ...r, [f]: v as string } as LabelRecord;
}

/** The import's values minus empty labels/origins (which never erase anything). */
function stripEmpty(r: LabelRecord): LabelRecord {
  const out = { type: r.type, ref: r.ref } as LabelRecord;
  for (const f of ['label', 'origin', 'spendable'] as const) {
    const v = fieldValue(r, f);
    if (v !== undefined) Object.assign(out, { [f]: v });
  }
  return out;
}

/**
 * Merges imported records into the existing ones under `rule` (see {@link MERGE_RULES} for the
 * wording shown to the user). Pure: returns what would change, for the import screen to show and
 * for the store to apply in one transaction. Records are matched by type + ref (normalize refs the
 * way parseBip329 in shared/bip329.ts does); repeated refs within `imported` or `existing` fold, the later wins.
 * An absent or empty imported value never changes anything.
 */
export function mergeLabels(existing: readonly LabelRecord[], imported: readonly LabelRecord[], rule: MergeRule): MergeResult {
  const have = new Map<string, LabelRecord>();
  for (const r of existing) {
    const k = labelKey(r);
    const prev = have.get(k);
    have.set(k, prev ? overlay(prev, r) : r);
  }
  const incoming = new Map<string, LabelRecord>();
  for (const r of imported) {
    const k = labelKey(r);
    const prev = incoming.get(k);
    incoming.set(k, prev ? overlay(prev, r) : r);
  }

  const result: MergeResult = { added: [], updated: [], unchanged: [], conflicts: [] };
  for (const [k, imp] of incoming) {
    const cur = have.get(k);
    if (!cur || !hasContent(cur)) {
      const add = stripEmpty(imp);
      if (!hasContent(add)) result.unchanged.push(imp);
      else if (cur) result.updated.push({ before: cur, after: { ...cur, ...add } as LabelRecord });
      else result.added.push(add);
      continue;
    }
    let after = cur;
    for (const f of ['label', 'origin', 'spendable'] as const) {
      const iv = fieldValue(imp, f);
      if (iv === undefined) continue;
      const cv = fieldValue(cur, f);
      if (cv === iv) continue;
      if (cv === undefined) {
        if (rule !== 'keep-existing') after = withField(after, f, iv);
        continue;
      }
      const kept = rule === 'replace' ? 'imported' : 'existing';
      result.conflicts.push({ type: cur.type, ref: cur.ref, field: f, existing: cv, imported: iv, kept });
      if (kept === 'imported') after = withField(after, f, iv);
    }
    if (after === cur) result.unchanged.push(imp);
    else result.updated.push({ before: cur, after });
  }
  return result;
}
