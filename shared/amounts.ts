/**
 * Amounts. Inside Spyglass an amount is a bigint of satoshis; at the edges it is a decimal
 * string with exactly 8 decimals. Floats are never used for money.
 */
import { RawJson } from './json';

export const COIN = 100_000_000n;
export const MAX_MONEY = 21_000_000n * COIN;

export function moneyRange(sats: bigint): boolean {
  return sats >= 0n && sats <= MAX_MONEY;
}

/** Satoshis → `"1.00000000"` (Core's ValueFromAmount text; negative values keep their sign). */
export function formatBtc(sats: bigint): string {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  return `${neg ? '-' : ''}${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
}

/** Satoshis as a JSON number token with exactly 8 decimals, for replies written like Core's. */
export function btcJson(sats: bigint): RawJson {
  return new RawJson(formatBtc(sats));
}

const UPPER_BOUND = 999_999_999_999_999_999n; // 10^18 - 1

/**
 * Core's ParseFixedPoint (util/strencodings.cpp): a JSON-number-like text to a fixed-point
 * integer with `decimals` decimals, or null when it is not exactly representable.
 * Accepts `-`, `0` or digits without leading zero, `.digits`, `e[+-]digits`.
 */
export function parseFixedPoint(val: string, decimals: number): bigint | null {
  let mantissa = 0n;
  let exponent = 0n;
  let tzeros = 0;
  let mantissaSign = false;
  let exponentSign = false;
  let ptr = 0;
  const end = val.length;
  let pointOfs = 0;
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  const digit = (c: string): boolean => {
    if (c === '0') {
      tzeros++;
      return true;
    }
    for (let k = 0; k <= tzeros; k++) {
      if (mantissa > UPPER_BOUND / 10n) return false;
      mantissa *= 10n;
    }
    mantissa += BigInt(c.charCodeAt(0) - 48);
    tzeros = 0;
    return true;
  };

  if (val[ptr] === '-') {
    mantissaSign = true;
    ptr++;
  }
  if (ptr < end) {
    if (val[ptr] === '0') {
      ptr++;
    } else if (val[ptr]! >= '1' && val[ptr]! <= '9') {
      while (ptr < end && isDigit(val[ptr])) {
        if (!digit(val[ptr]!)) return null;
        ptr++;
      }
    } else return null;
  } else return null;
  if (val[ptr] === '.') {
    ptr++;
    if (isDigit(val[ptr])) {
      while (ptr < end && isDigit(val[ptr])) {
        if (!digit(val[ptr]!)) return null;
        ptr++;
        pointOfs++;
      }
    } else return null;
  }
  if (val[ptr] === 'e' || val[ptr] === 'E') {
    ptr++;
    if (val[ptr] === '+') ptr++;
    else if (val[ptr] === '-') {
      exponentSign = true;
      ptr++;
    }
    if (isDigit(val[ptr])) {
      while (ptr < end && isDigit(val[ptr])) {
        if (exponent > UPPER_BOUND / 10n) return null;
        exponent = exponent * 10n + BigInt(val.charCodeAt(ptr) - 48);
        ptr++;
      }
    } else return null;
  }
  if (ptr !== end) return null;

  if (exponentSign) exponent = -exponent;
  exponent = exponent - BigInt(pointOfs) + BigInt(tzeros);
  if (mantissaSign) mantissa = -mantissa;
  exponent += BigInt(decimals);
  if (exponent < 0n) return null;
  if (exponent >= 18n) return null;
  for (let k = 0n; k < exponent; k++) {
    if (mantissa > UPPER_BOUND / 10n || mantissa < -(UPPER_BOUND / 10n)) return null;
    mantissa *= 10n;
  }
  if (mantissa > UPPER_BOUND || mantissa < -UPPER_BOUND) return null;
  return mantissa;
}

/** Parses a user/edge BTC string (`"0.5"`, `"1.00000000"`) to satoshis; throws a clear error. */
export function parseBtc(text: string): bigint {
  const trimmed = text.trim();
  if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(trimmed)) {
    throw new RangeError(`"${text}" is not a BTC amount (use digits with up to 8 decimals, e.g. 0.015)`);
  }
  const sats = parseFixedPoint(trimmed, 8);
  if (sats === null) throw new RangeError(`"${text}" has more than 8 decimals or is too large`);
  return sats;
}
