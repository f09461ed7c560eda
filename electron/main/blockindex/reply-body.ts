// The body of a block index reply before its record is checked (shared/spec/index-api.md §1, §7): JSON
// or not, the {data, time} envelope, the bitaps error body, and the pieces of every 'index.bad_reply'
// message — an excerpt of the body (redacted before it is cut) and how a JSON value looks.
import { AppError } from '../../../shared/errors';
import { redactGeneric } from '../../../shared/redact';
import type { WireErrorBody } from './types';

/** A JSON object as parsed. */
export type Obj = Record<string, unknown>;

/** The error for a reply that is not what the spec describes. `endpoint` is e.g. "GET /v1/blockchain/block/5". */
export function badReply(endpoint: string, what: string): AppError {
  return new AppError('index.bad_reply', `The index's reply to ${endpoint} is not what a bitaps-style index sends: ${what}.`, { endpoint });
}

/**
 * A short, single-line, printable excerpt of a reply body for messages (never the whole body). It is
 * redacted (shared/redact.ts: credentials a proxy may echo) before it is cut, so a cut never leaves
 * the start of a secret behind.
 */
export function excerpt(text: string, max = 100): string {
  // eslint-disable-next-line no-control-regex
  const flat = redactGeneric(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** How a JSON value looks, for "… is X, not Y" messages. */
export function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return `the string "${excerpt(v, 24)}"`;
    case 'number':
      return `the number ${String(v)}`;
    case 'boolean':
      return `the boolean ${String(v)}`;
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

/** Parses a body as JSON; a body that is not JSON is a bad reply that quotes its beginning. */
export function parseJson(body: string, endpoint: string): unknown {
  if (body.trim() === '') throw badReply(endpoint, 'the body is empty');
  try {
    return JSON.parse(body) as unknown;
  } catch (e) {
    const cut = e instanceof SyntaxError && /end of (JSON|data) input|Unterminated|Unexpected end/i.test(e.message);
    if (/^\s*</.test(body)) throw badReply(endpoint, `it is an HTML page, not JSON (${excerpt(htmlText(body))})`);
    throw badReply(endpoint, `${cut ? 'its JSON is cut off' : 'it is not valid JSON'} ("${excerpt(body, 60)}")`);
  }
}

/** The visible text of an HTML page (its title if it has one), for messages. */
export function htmlText(body: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
  if (title && title.trim()) return title.trim();
  return body.replace(/<[^>]*>/g, ' ');
}

/** The `data` of a `{data, time}` envelope. */
export function envelopeData(body: unknown, endpoint: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badReply(endpoint, `the body is ${describe(body)}, not a {"data", "time"} object`);
  }
  const o = body as Obj;
  if (!Object.hasOwn(o, 'data')) {
    const err = errorBodyOf(o);
    throw badReply(endpoint, err ? `data is missing (the body is an error: error_code ${err.error_code}, "${excerpt(err.message, 60)}")` : 'data is missing');
  }
  if (Object.hasOwn(o, 'time') && (typeof o.time !== 'number' || !Number.isFinite(o.time))) {
    throw badReply(endpoint, `time is ${describe(o.time)}, not a number`);
  }
  return o.data;
}

/** The bitaps error body `{error_code, message, details}` if `body` is one (lenient on `details`), else null. */
export function errorBodyOf(body: unknown): WireErrorBody | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const o = body as Obj;
  if (typeof o.error_code !== 'number' || !Number.isInteger(o.error_code) || typeof o.message !== 'string') return null;
  return { error_code: o.error_code, message: o.message, details: typeof o.details === 'string' ? o.details : '' };
}

/** Parses an error reply's body (400/404/500); null when it is not a bitaps error body. Never throws. */
export function parseErrorBody(body: string): WireErrorBody | null {
  try {
    return errorBodyOf(JSON.parse(body) as unknown);
  } catch {
    return null;
  }
}
