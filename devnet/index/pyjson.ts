/**
 * Python-compatible number handling and `json.dumps` output for the index imitation:
 * exact rational → double division, `round(x, n)`, float `repr`, and JSON text with
 * separators ", " / ": " and ASCII-only strings.
 */

/** A value Python holds as a float (printed `2.0`, not `2`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

export type PyJson =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | readonly PyJson[]
  | { readonly [key: string]: PyJson | undefined };

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** a / b for non-negative BigInts, correctly rounded to the nearest double (ties to even), like Python's int / int. */
export function divToNumber(a: bigint, b: bigint): number {
  if (b <= 0n || a < 0n) throw new RangeError('divToNumber expects a >= 0, b > 0');
  if (a === 0n) return 0;
  // Scale so the integer quotient has at least 55 significant bits.
  const k = 64 - (bitLength(a) - bitLength(b));
  const num = k >= 0 ? a << BigInt(k) : a;
  const den = k >= 0 ? b : b << BigInt(-k);
  const q = num / den;
  const sticky = num % den !== 0n;
  const excess = bitLength(q) - 53;
  let mant = q >> BigInt(excess);
  const dropped = q & ((1n << BigInt(excess)) - 1n);
  const half = 1n << BigInt(excess - 1);
  if (dropped > half || (dropped === half && (sticky || (mant & 1n) === 1n))) mant += 1n;
  return Number(mant) * 2 ** (excess - k);
}

/** Exact value of a finite double as numerator / denominator (denominator a power of two). */
function exactRational(x: number): [bigint, bigint] {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0);
  const lo = dv.getUint32(4);
  const neg = hi >>> 31 === 1;
  const expBits = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = expBits - 1075;
  }
  if (neg) mant = -mant;
  return e >= 0 ? [mant << BigInt(e), 1n] : [mant, 1n << BigInt(-e)];
}

/** Python `round(x, ndigits)` for ndigits >= 0: exact value rounded half-to-even, then nearest double. */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x)) return x;
  const [n, d] = exactRational(x);
  const scale = 10n ** BigInt(ndigits);
  const neg = n < 0n;
  const num = (neg ? -n : n) * scale;
  let q = num / d;
  const r = num % d;
  if (r * 2n > d || (r * 2n === d && (q & 1n) === 1n)) q += 1n;
  const v = divToNumber(q, scale);
  return neg ? -v : v;
}

/** Python `repr(float)`: shortest round-trip digits, exponent form when exp < -4 or exp >= 16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa = '0', expText = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const es = exp < 0 ? '-' : '+';
    return `${sign}${m}e${es}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/** Python json string escaping with ensure_ascii=True. */
export function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      case 0x08: out += '\\b'; break;
      case 0x0c: out += '\\f'; break;
      default:
        if (c < 0x20 || c > 0x7e) out += '\\u' + c.toString(16).padStart(4, '0');
        else out += s[i];
    }
  }
  return out + '"';
}

/** `json.dumps(value)` as Python writes it. Keys whose value is `undefined` are left out. */
export function pyDumps(value: PyJson): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
  if (typeof value === 'string') return pyJsonString(value);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (Array.isArray(value)) return '[' + (value as readonly PyJson[]).map(pyDumps).join(', ') + ']';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, PyJson | undefined>)) {
    if (v === undefined) continue;
    parts.push(`${pyJsonString(k)}: ${pyDumps(v)}`);
  }
  return '{' + parts.join(', ') + '}';
}
