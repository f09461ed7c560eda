// Secrets are cut out at the border (#27). A node, or a proxy in front of it, may quote the request it
// got — its Authorization header, the URL with user:password@ in it — inside an error; an index's
// proxy may do the same with its own credentials. Every text that comes from a node or an index passes
// ONE redactor before it becomes an error message (electron/main/rpc/, electron/main/blockindex/), so
// what is logged, stored in SQLite or sent to the renderer never holds them; the log and the stored
// last errors pass the same redactor again with no secrets known (its generic rules only).
//
// Known secrets (the connection's): the password; user:password; its base64 (padded, unpadded,
// base64url); the Authorization value; the cookie file's `__cookie__:<hex>`; URL user info — each also
// URL-encoded and JSON-escaped, as an echo may quote them (a secret under 8 characters only where it
// stands as a word: see SHORT_SECRET). Generic rules (anyone's credentials):
// `Basic <base64 of user:password>`, `Bearer|Token <token>`, an `Authorization: …` value,
// `scheme://user:pass@`, `__cookie__:<hex>`, `password=…`-style settings, and a bare base64 token that
// decodes to `user:password`. Pure: no I/O.
import { base64, base64nopad, base64url, base64urlnopad } from '@scure/base';
import { AppError } from './errors';

/** What stands in for a secret. */
export const REDACTED = '[redacted]';

/** The secrets of one connection. Every field is optional; empty strings are ignored. */
export interface Secrets {
  /** The RPC user (not secret alone: with it, `user:<anything>` is taken for credentials). */
  user?: string | undefined;
  password?: string | undefined;
  /** The whole Authorization header value sent (e.g. `Basic …`). */
  authorization?: string | undefined;
  /** The cookie file's contents (`__cookie__:<hex>`), as read. */
  cookie?: string | undefined;
  /** URLs whose user info (user:password@) is secret. */
  urls?: readonly string[] | undefined;
}

/** A text in, the same text with every secret replaced by {@link REDACTED}. */
export type Redactor = (text: string) => string;

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The forms in which a secret text may be quoted back. */
function quotedForms(s: string): string[] {
  const json = JSON.stringify(s).slice(1, -1);
  let userinfo = s;
  try {
    const u = new URL('http://h');
    u.password = s;
    userinfo = u.password;
  } catch {
    // keep the raw form
  }
  return [s, encodeURIComponent(s), json, userinfo];
}

/** The base64 spellings of `user:password` (the Authorization header's token). */
function base64Forms(pair: string): string[] {
  const bytes = utf8.encode(pair);
  return [base64.encode(bytes), base64nopad.encode(bytes), base64url.encode(bytes), base64urlnopad.encode(bytes)];
}

/**
 * A secret shorter than this is cut only where it stands as a word of its own: cut inside words, a
 * password like "p" or "test" would take letters out of every message. Its longer forms (user:password,
 * base64, an Authorization token) are cut anywhere.
 */
export const SHORT_SECRET = 8;

/** Every literal text to cut for these secrets: `anywhere`, and `words` (short ones: only as a word), each longest first. */
function literalsOf(s: Secrets): { anywhere: string[]; words: string[] } {
  const anywhere = new Set<string>();
  const words = new Set<string>();
  const add = (v: string | undefined): void => {
    if (v === undefined || v === '') return;
    (v.length < SHORT_SECRET ? words : anywhere).add(v);
  };
  const pairs: string[] = [];
  if (s.password) {
    for (const f of quotedForms(s.password)) add(f);
    if (s.user) pairs.push(`${s.user}:${s.password}`);
  }
  const cookie = s.cookie?.replace(/\r?\n$/, '');
  if (cookie) {
    pairs.push(cookie);
    const colon = cookie.indexOf(':');
    if (colon > 0) for (const f of quotedForms(cookie.slice(colon + 1))) add(f);
  }
  for (const url of s.urls ?? []) {
    try {
      const u = new URL(url);
      if (u.password) {
        add(u.password);
        add(safeDecode(u.password));
        pairs.push(`${safeDecode(u.username)}:${safeDecode(u.password)}`);
      } else if (u.username) {
        add(u.username);
        add(safeDecode(u.username));
      }
    } catch {
      // not a URL: nothing of it is known to be secret
    }
  }
  for (const pair of pairs) {
    for (const f of quotedForms(pair)) add(f);
    for (const f of base64Forms(pair)) add(f);
  }
  if (s.authorization) {
    // `Basic <token>`: the token is cut and the scheme stays, as the generic rule leaves it.
    const token = /^\S+\s+(\S.*)$/.exec(s.authorization)?.[1];
    add(token ?? s.authorization);
  }
  const longestFirst = (set: Set<string>): string[] => [...set].sort((a, b) => b.length - a.length);
  return { anywhere: longestFirst(anywhere), words: longestFirst(words) };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Lenient base64/base64url decoding (padding and a cut-off tail ignored); null on a foreign character. */
function decodeLenient(token: string): Uint8Array | null {
  const t = token.replace(/=+$/, '');
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of t) {
    const v = ch === '+' || ch === '-' ? 62 : ch === '/' || ch === '_' ? 63 : B64.indexOf(ch);
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

/** Whether a base64 token decodes to printable `user:password` text (what an Authorization header carries). */
function isEncodedCredential(token: string): boolean {
  const bytes = decodeLenient(token);
  if (bytes === null || bytes.length < 3) return false;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return false;
  const colon = text.indexOf(':');
  return colon > 0 && colon < text.length - 1;
}

const SCHEMES = 'Basic|Bearer|Digest|Token|Negotiate';
/** `Authorization: <value>` (also `Proxy-Authorization`, `authorization=` and quoted). */
const AUTH_HEADER = new RegExp(`\\b((?:proxy-)?authorization)(["']?\\s*[:=]\\s*["']?)(?:(${SCHEMES})\\s+)?[^\\s"',;|]+`, 'gi');
/** `Basic <token>` and friends, outside a header line. */
const AUTH_SCHEME = new RegExp(`\\b(${SCHEMES})(\\s+)([A-Za-z0-9+/_.~-]+=*)`, 'gi');
/** `scheme://user:pass@` (and `scheme://token@`; up to the authority's last `@`, as URL parsers read it). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>]*@/gi;
const COOKIE = /\b__cookie__:[0-9A-Za-z]+/g;
const SETTING = /\b(rpcpassword|rpcauth|password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?token)(["']?\s*[=:]\s*["']?)[^\s"',;&|]+/gi;
const BARE_TOKEN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{8,}={0,2}(?![A-Za-z0-9+/_=-])/g;

/** The generic rules: credentials of any connection, known or not. */
function redactGenericRules(text: string): string {
  return text
    .replace(AUTH_HEADER, (_m, name: string, sep: string, scheme: string | undefined) => `${name}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`)
    .replace(AUTH_SCHEME, (m, scheme: string, space: string, token: string) => {
      // "Basic authentication" is a phrase, not a credential: Basic carries base64 of user:password.
      if (scheme.toLowerCase() === 'basic' && !isEncodedCredential(token) && token.length < 20) return m;
      if (scheme.toLowerCase() !== 'basic' && token.length < 8) return m;
      return `${scheme}${space}${REDACTED}`;
    })
    .replace(URL_USERINFO, (_m, scheme: string) => `${scheme}${REDACTED}@`)
    .replace(COOKIE, `__cookie__:${REDACTED}`)
    .replace(SETTING, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`)
    .replace(BARE_TOKEN, (m) => (isEncodedCredential(m) ? REDACTED : m));
}

/**
 * The redactor for a connection's secrets: the known secrets in every form above, then the generic
 * rules. `makeRedactor()` with no secrets applies the generic rules only ({@link redactGeneric}).
 */
export function makeRedactor(secrets: Secrets = {}): Redactor {
  const { anywhere, words } = literalsOf(secrets);
  const parts = [
    ...(anywhere.length > 0 ? [anywhere.map(escapeRegExp).join('|')] : []),
    ...(words.length > 0 ? [`(?<![A-Za-z0-9])(?:${words.map(escapeRegExp).join('|')})(?![A-Za-z0-9])`] : []),
  ];
  const literal = parts.length > 0 ? new RegExp(parts.join('|'), 'g') : null;
  // With the user known, `user:<anything>` is a credential pair even when the password is another one.
  const user = secrets.user ? new RegExp(`(?<![A-Za-z0-9_.-])${escapeRegExp(secrets.user)}:[^\\s"',;@|]+`, 'g') : null;
  return (text: string): string => {
    if (text === '') return text;
    let out = literal ? text.replace(literal, REDACTED) : text;
    if (user) out = out.replace(user, `${secrets.user}:${REDACTED}`);
    return redactGenericRules(out);
  };
}

/** The generic rules alone: for the log and for texts whose connection is not known. */
export const redactGeneric: Redactor = makeRedactor();

/**
 * The error with its message and every text of its detail redacted; code and retry hint kept. An error
 * with nothing to cut is returned as it is (its class and stack too).
 */
export function redactError(e: AppError, redact: Redactor): AppError {
  const message = redact(e.message);
  let changed = message !== e.message;
  let detail = e.detail;
  if (detail !== undefined) {
    detail = Object.fromEntries(
      Object.entries(detail).map(([k, v]) => {
        const r = typeof v === 'string' ? redact(v) : v;
        if (r !== v) changed = true;
        return [k, r];
      }),
    );
  }
  return changed ? new AppError(e.code, message, detail, e.retryAfterMs) : e;
}
