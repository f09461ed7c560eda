// Which columns of a grid table fit the width it has. A table lists its columns (each with the
// narrowest it may be and its CSS grid track) and, in order, what to give up when they do not all
// fit: shorten a column to its compact form, or leave a column out. The essential columns are the
// ones no step names — they stay, whatever the width (the table then scrolls sideways within itself,
// never the page). Pure: the tables (WalletTxTable, BalancesView) feed it VirtualTable's width.

export interface FitColumn {
  key: string;
  /** Narrowest width in px (what the sum is checked against). */
  min: number;
  /** Its grid-template-columns track ("150px", "minmax(120px, 1.6fr)"). */
  track: string;
  /** A shorter form (an address shown with fewer characters), used once a 'compact' step names it. */
  compact?: { min: number; track: string };
}

export type FitStep = { drop: string } | { compact: string };

export interface FittedColumns {
  /** The columns shown, in order. */
  keys: string[];
  /** The columns shown in their compact form. */
  compact: string[];
  /** grid-template-columns of the columns shown. */
  template: string;
  /** Their narrowest total, in px. */
  minWidth: number;
  has(key: string): boolean;
  isCompact(key: string): boolean;
}

/** The columns that fit `width` px (all of them when it is unknown: Infinity), giving up `steps` in order. */
export function fitColumns(columns: readonly FitColumn[], steps: readonly FitStep[], width: number): FittedColumns {
  const shown = new Set(columns.map((c) => c.key));
  const compact = new Set<string>();
  const widthOf = (c: FitColumn): number => (compact.has(c.key) && c.compact ? c.compact.min : c.min);
  const total = (): number => columns.reduce((sum, c) => (shown.has(c.key) ? sum + widthOf(c) : sum), 0);
  for (const step of steps) {
    if (total() <= width) break;
    if ('drop' in step) shown.delete(step.drop);
    else compact.add(step.compact);
  }
  const visible = columns.filter((c) => shown.has(c.key));
  return {
    keys: visible.map((c) => c.key),
    compact: visible.filter((c) => compact.has(c.key) && c.compact).map((c) => c.key),
    template: visible.map((c) => (compact.has(c.key) && c.compact ? c.compact.track : c.track)).join(' '),
    minWidth: total(),
    has: (key) => shown.has(key),
    isCompact: (key) => compact.has(key) && shown.has(key),
  };
}
