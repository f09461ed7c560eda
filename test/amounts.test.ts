import { describe, expect, it } from 'vitest';
import { formatBtc, parseBtc, parseFixedPoint } from '../shared/amounts';

describe('amounts', () => {
  it('formats satoshis with exactly 8 decimals', () => {
    expect(formatBtc(100000000n)).toBe('1.00000000');
    expect(formatBtc(10000n)).toBe('0.00010000');
    expect(formatBtc(-10000n)).toBe('-0.00010000');
    expect(formatBtc(0n)).toBe('0.00000000');
    expect(formatBtc(2100000000000000n)).toBe('21000000.00000000');
  });

  it('parses like Core ParseFixedPoint', () => {
    expect(parseFixedPoint('1e-8', 8)).toBe(1n);
    expect(parseFixedPoint('1e-3', 8)).toBe(100000n);
    expect(parseFixedPoint('0.12345678000', 8)).toBe(12345678n);
    expect(parseFixedPoint('0.123456789', 8)).toBeNull();
    for (const bad of ['+1', '.5', '5.', '01', '', '-', '1e', '1x', '1e-9']) {
      expect(parseFixedPoint(bad, 8), bad).toBeNull();
    }
    expect(parseFixedPoint('-1', 8)).toBe(-100000000n);
    expect(parseFixedPoint('21000000', 8)).toBe(2100000000000000n);
  });

  it('parses user BTC strings to bigint sats and rejects floats-in-disguise', () => {
    expect(parseBtc('0.015')).toBe(1500000n);
    expect(() => parseBtc('1.123456789')).toThrow(/8 decimals/);
    expect(() => parseBtc('abc')).toThrow(/not a BTC amount/);
  });
});
