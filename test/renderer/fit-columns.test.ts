// fitColumns: which columns of a table fit its width — the steps given up in order, the essential
// columns never.
import { describe, expect, it } from 'vitest';
import { fitColumns, type FitColumn, type FitStep } from '../../renderer/src/lib/fit-columns';

const COLUMNS: FitColumn[] = [
  { key: 'label', min: 100, track: 'minmax(100px, 1fr)' },
  { key: 'address', min: 300, track: '300px', compact: { min: 200, track: '200px' } },
  { key: 'extra', min: 80, track: '80px' },
  { key: 'amount', min: 120, track: 'minmax(120px, 1fr)' },
  { key: 'status', min: 90, track: '90px' },
];
const STEPS: FitStep[] = [{ drop: 'extra' }, { compact: 'address' }];

describe('fitColumns', () => {
  it('everything when the width is unknown or enough', () => {
    for (const w of [Number.POSITIVE_INFINITY, 690, 2000]) {
      const f = fitColumns(COLUMNS, STEPS, w);
      expect(f.keys).toEqual(['label', 'address', 'extra', 'amount', 'status']);
      expect(f.compact).toEqual([]);
      expect(f.minWidth).toBe(690);
      expect(f.template).toBe('minmax(100px, 1fr) 300px 80px minmax(120px, 1fr) 90px');
    }
  });

  it('gives up the steps in order, only as many as needed', () => {
    const one = fitColumns(COLUMNS, STEPS, 689);
    expect(one.keys).toEqual(['label', 'address', 'amount', 'status']);
    expect(one.has('extra')).toBe(false);
    expect(one.isCompact('address')).toBe(false);
    expect(one.minWidth).toBe(610);
    const two = fitColumns(COLUMNS, STEPS, 609);
    expect(two.keys).toEqual(['label', 'address', 'amount', 'status']);
    expect(two.compact).toEqual(['address']);
    expect(two.template).toBe('minmax(100px, 1fr) 200px minmax(120px, 1fr) 90px');
    expect(two.minWidth).toBe(510);
  });

  it('never gives up a column no step names, however narrow: the table then scrolls within itself', () => {
    const f = fitColumns(COLUMNS, STEPS, 100);
    expect(f.keys).toEqual(['label', 'address', 'amount', 'status']);
    expect(f.minWidth).toBe(510);
  });

  it('the narrowest total always fits the width it was chosen for, when the steps allow', () => {
    for (let w = 510; w <= 700; w += 7) expect(fitColumns(COLUMNS, STEPS, w).minWidth).toBeLessThanOrEqual(w);
  });
});
