/**
 * JSON as Bitcoin Core's UniValue sees it, in pure TypeScript.
 *
 * Parsing keeps what `JSON.parse` throws away and Core relies on: the exact text of every number
 * (amounts are read from the token, never from a float), object keys in order *including
 * duplicates*, and the distinction between a missing and a `null` value.
 *
 * Writing emits compact JSON the way UniValue does, with {@link RawJson} for number tokens that
 * `JSON.stringify` cannot produce (amounts with exactly 8 decimals: `1.00000000`).
 */

export type UValue =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'num'; readonly v: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'arr'; readonly v: UValue[] }
  | { readonly t: 'obj'; readonly k: string[]; readonly v: UValue[] };

export type UType = UValue['t'];

/** Core's names for JSON types, as used in "JSON value of type X is not of expected type Y". */
export const UTYPE_NAME: Record<UType, string> = {
  null: 'null',
  bool: 'bool',
  num: 'number',
  str: 'string',
  arr: 'array',
  obj: 'object',
};

export const U_NULL: UValue = { t: 'null' };

export class JsonParseError extends Error {}

const MAX_DEPTH = 512;

/**
 * Parses one JSON text (any value at the top level, like UniValue::read). Throws
 * {@link JsonParseError} on anything that is not exactly one JSON value (trailing garbage too).
 */
export function parseJson(text: string): UValue {
  let i = 0;
  const n = text.length;

  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const fail = (msg: string): never => {
    throw new JsonParseError(`${msg} at offset ${i}`);
  };

  const parseString = (): string => {
    // text[i] === '"'
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('control character in string');
      if (c === 0x5c) {
        out += text.slice(start, i);
        i++;
        if (i >= n) fail('unterminated escape');
        const e = text[i];
        i++;
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const hex = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad unicode escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            fail('bad escape');
        }
        start = i;
        continue;
      }
      i++;
    }
  };

  const NUM_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

  const parseValue = (depth: number): UValue => {
    if (depth > MAX_DEPTH) fail('too deep');
    ws();
    if (i >= n) fail('unexpected end');
    const c = text[i];
    if (c === '{') {
      i++;
      const k: string[] = [];
      const v: UValue[] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'obj', k, v };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected key');
        k.push(parseString());
        ws();
        if (text[i] !== ':') fail('expected colon');
        i++;
        v.push(parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { t: 'obj', k, v };
        }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const v: UValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'arr', v };
      }
      for (;;) {
        v.push(parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { t: 'arr', v };
        }
        fail('expected , or ]');
      }
    }
    if (c === '"') return { t: 'str', v: parseString() };
    if (text.startsWith('true', i)) {
      i += 4;
      return { t: 'bool', v: true };
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return { t: 'bool', v: false };
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return U_NULL;
    }
    NUM_RE.lastIndex = i;
    const m = NUM_RE.exec(text);
    if (m && m[0].length > 0) {
      i += m[0].length;
      return { t: 'num', v: m[0] };
    }
    return fail('unexpected character');
  };

  const value = parseValue(0);
  ws();
  if (i !== n) fail('trailing characters');
  return value;
}

/** First value stored under `key` (UniValue::find_value), or undefined when absent. */
export function uGet(obj: UValue, key: string): UValue | undefined {
  if (obj.t !== 'obj') return undefined;
  const idx = obj.k.indexOf(key);
  return idx < 0 ? undefined : obj.v[idx];
}

/** Converts a parsed value to plain JS (numbers via Number()). For tests and loose consumers. */
export function toPlain(u: UValue): unknown {
  switch (u.t) {
    case 'null': return null;
    case 'bool': return u.v;
    case 'num': return Number(u.v);
    case 'str': return u.v;
    case 'arr': return u.v.map(toPlain);
    case 'obj': {
      const o: Record<string, unknown> = {};
      u.k.forEach((k, idx) => {
        if (!(k in o)) o[k] = toPlain(u.v[idx] as UValue);
      });
      return o;
    }
  }
}

/** Builds a UValue from plain JS (numbers written with their JS text). */
export function fromPlain(x: unknown): UValue {
  if (x === null || x === undefined) return U_NULL;
  if (typeof x === 'boolean') return { t: 'bool', v: x };
  if (typeof x === 'number') return { t: 'num', v: String(x) };
  if (typeof x === 'bigint') return { t: 'num', v: x.toString() };
  if (typeof x === 'string') return { t: 'str', v: x };
  if (x instanceof RawJson) return parseJson(x.text);
  if (Array.isArray(x)) return { t: 'arr', v: x.map(fromPlain) };
  if (typeof x === 'object') {
    const entries = Object.entries(x as Record<string, unknown>);
    return { t: 'obj', k: entries.map(([k]) => k), v: entries.map(([, v]) => fromPlain(v)) };
  }
  throw new TypeError(`cannot convert ${typeof x} to JSON`);
}

/** A JSON token written verbatim (e.g. `1.00000000`). The text must be valid JSON. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const ESCAPE_ALL = /["\\\u0000-\u001f\u007f]/g;

/** String escaping as UniValue writes it (control characters and DEL as \u00xx). */
export function jsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  return `"${s.replace(ESCAPE_ALL, (ch) => ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * Compact JSON writer. Plain objects keep insertion order; `undefined` members are skipped (so
 * optional fields can be written as `x: cond ? v : undefined`); bigint is written as an integer;
 * {@link RawJson} verbatim; a parsed {@link UValue} can be embedded with {@link UJson}.
 */
export function writeJson(x: unknown): string {
  const parts: string[] = [];
  write(x, parts);
  return parts.join('');
}

/** Wraps a parsed UValue so {@link writeJson} writes it back (keeping number text and duplicates). */
export class UJson {
  constructor(readonly value: UValue) {}
}

function writeU(u: UValue, out: string[]): void {
  switch (u.t) {
    case 'null': out.push('null'); return;
    case 'bool': out.push(u.v ? 'true' : 'false'); return;
    case 'num': out.push(u.v); return;
    case 'str': out.push(jsonString(u.v)); return;
    case 'arr':
      out.push('[');
      u.v.forEach((e, idx) => {
        if (idx) out.push(',');
        writeU(e, out);
      });
      out.push(']');
      return;
    case 'obj':
      out.push('{');
      u.k.forEach((k, idx) => {
        if (idx) out.push(',');
        out.push(jsonString(k), ':');
        writeU(u.v[idx] as UValue, out);
      });
      out.push('}');
  }
}

function write(x: unknown, out: string[]): void {
  if (x === null || x === undefined) {
    out.push('null');
  } else if (typeof x === 'string') {
    out.push(jsonString(x));
  } else if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new TypeError('non-finite number in JSON');
    out.push(JSON.stringify(x));
  } else if (typeof x === 'bigint') {
    out.push(x.toString());
  } else if (typeof x === 'boolean') {
    out.push(x ? 'true' : 'false');
  } else if (x instanceof RawJson) {
    out.push(x.text);
  } else if (x instanceof UJson) {
    writeU(x.value, out);
  } else if (Array.isArray(x)) {
    out.push('[');
    for (let idx = 0; idx < x.length; idx++) {
      if (idx) out.push(',');
      write(x[idx], out);
    }
    out.push(']');
  } else if (typeof x === 'object') {
    out.push('{');
    let first = true;
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(jsonString(k), ':');
      write(v, out);
    }
    out.push('}');
  } else {
    throw new TypeError(`cannot write ${typeof x} as JSON`);
  }
}
