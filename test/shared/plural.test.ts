import { describe, expect, it } from 'vitest';
import { countOf } from '../../shared/plural';

describe('countOf', () => {
  it('says 1 in the singular and every other count in the plural', () => {
    expect(countOf(1, 'block')).toBe('1 block');
    expect(countOf(0, 'block')).toBe('0 blocks');
    expect(countOf(12, 'new block')).toBe('12 new blocks');
    expect(countOf(2, 'address', 'addresses')).toBe('2 addresses');
  });
});
