/**
 * Argument readers for RPC handlers, with Core's exact failures:
 * UniValue type errors (-3 `JSON value of type X is not of expected type Y`), getInt<T>
 * (-1 `JSON integer out of range`), AmountFromValue (-3) and ParseHashV (-8).
 */
import { parseFixedPoint, moneyRange } from '../../shared/amounts';
import { UTYPE_NAME, U_NULL, type UType, type UValue } from '../../shared/json';
import { RpcError, RPC } from './types';

type Of<T extends UType> = Extract<UValue, { t: T }>;

/** UniValue::checkType / get_str / get_obj ...: the value, or -3. `undefined` counts as null. */
export function expectType<T extends UType>(v: UValue | undefined, t: T): Of<T> {
  const u = v ?? U_NULL;
  if (u.t !== t) {
    throw new RpcError(RPC.TYPE_ERROR, `JSON value of type ${UTYPE_NAME[u.t]} is not of expected type ${UTYPE_NAME[t]}`);
  }
  return u as Of<T>;
}

export const getStr = (v: UValue | undefined): string => expectType(v, 'str').v;
export const getBool = (v: UValue | undefined): boolean => expectType(v, 'bool').v;

const INT_RANGES = {
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
} as const;

export type IntKind = keyof typeof INT_RANGES;

/**
 * UniValue::getInt<T>: the number text must be a whole integer literal (no fraction, no exponent,
 * no sign for unsigned kinds) inside T, else -1 `JSON integer out of range`; a non-number is -3.
 */
export function getIntBig(v: UValue | undefined, kind: IntKind): bigint {
  const text = expectType(v, 'num').v;
  const re = kind.startsWith('uint') ? /^[0-9]+$/ : /^-?[0-9]+$/;
  if (!re.test(text)) throw new RpcError(RPC.MISC_ERROR, 'JSON integer out of range');
  const n = BigInt(text);
  const [lo, hi] = INT_RANGES[kind];
  if (n < lo || n > hi) throw new RpcError(RPC.MISC_ERROR, 'JSON integer out of range');
  return n;
}

/** getInt<int> / getInt<int64_t> / getInt<uint32_t> as a JS number (int64 beyond 2^53 loses precision). */
export function getInt(v: UValue | undefined, kind: IntKind = 'int'): number {
  return Number(getIntBig(v, kind));
}

/** An optional integer argument: `def` when omitted/null. */
export function optInt(v: UValue | undefined, def: number, kind: IntKind = 'int'): number {
  return v === undefined || v.t === 'null' ? def : getInt(v, kind);
}

/** AmountFromValue(value, decimals=8) → satoshis, from the exact JSON number text. */
export function amountFromValue(v: UValue | undefined, decimals = 8): bigint {
  const u = v ?? U_NULL;
  if (u.t !== 'num' && u.t !== 'str') throw new RpcError(RPC.TYPE_ERROR, 'Amount is not a number or string');
  const sats = parseFixedPoint(u.v, decimals);
  if (sats === null) throw new RpcError(RPC.TYPE_ERROR, 'Invalid amount');
  if (!moneyRange(sats)) throw new RpcError(RPC.TYPE_ERROR, 'Amount out of range');
  return sats;
}

const utf8 = new TextEncoder();

/** ParseHashV(v, name): 64 hex digits (returned lowercase, display order), else -8 (or -3 if not a string). */
export function parseHashV(v: UValue | undefined, name: string): string {
  const s = getStr(v);
  if (/^[0-9a-fA-F]{64}$/.test(s)) return s.toLowerCase();
  const len = utf8.encode(s).length;
  if (len !== 64) throw new RpcError(RPC.INVALID_PARAMETER, `${name} must be of length 64 (not ${len}, for '${s}')`);
  throw new RpcError(RPC.INVALID_PARAMETER, `${name} must be hexadecimal string (not '${s}')`);
}

/** ParseHexV(v, name): non-empty even-length hex string, else -8 `<name> must be hexadecimal string (not '<s>')`. */
export function parseHexV(v: UValue | undefined, name: string): string {
  const s = v !== undefined && v.t === 'str' ? v.v : '';
  if (s.length === 0 || s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) {
    throw new RpcError(RPC.INVALID_PARAMETER, `${name} must be hexadecimal string (not '${s}')`);
  }
  return s;
}
