// A BIP 329 label record and its identity (type + ref), shared by reading, writing and merging
// label files (shared/bip329.ts).

export const LABEL_TYPES = ['tx', 'addr', 'pubkey', 'input', 'output', 'xpub'] as const;
export type LabelType = (typeof LABEL_TYPES)[number];

interface LabelFields {
  ref: string;
  label?: string;
  /** Abbreviated output descriptor of the wallet the label belongs to, e.g. `wpkh([d34db33f/84'/0'/0'])`. */
  origin?: string;
}

/** One BIP 329 record. `spendable` exists on outputs only. */
export type LabelRecord =
  | (LabelFields & { type: Exclude<LabelType, 'output'>; spendable?: never })
  | (LabelFields & { type: 'output'; spendable?: boolean });

/** The identity of a record: one label per type + ref. */
export function labelKey(r: { type: LabelType; ref: string }): string {
  return `${r.type}\u0000${r.ref}`;
}

/** Copies the values `later` gives onto `earlier` (later wins). */
export function overlay(earlier: LabelRecord, later: LabelRecord): LabelRecord {
  const r = { ...earlier };
  if (later.label !== undefined) r.label = later.label;
  if (later.origin !== undefined) r.origin = later.origin;
  if (r.type === 'output' && later.type === 'output' && later.spendable !== undefined) r.spendable = later.spendable;
  return r;
}
