// What an index reply's HTTP status means (spec §7, §8): a body to validate, or a Failure — an AppError
// with a message a person can act on, and whether the call may be retried (429 after its
// Ratelimit-Reset, 502/503/504). Also the endpoint descriptions those messages quote.
import http from 'node:http';
import { AppError } from '../../../shared/errors';
import type { HttpResponse } from '../net/http';
import { excerpt, htmlText, parseErrorBody } from './reply-body';

/** Spec §8: wait this long after a 429 without Ratelimit-Reset. */
const RATE_LIMIT_FALLBACK_MS = 5000;

export type Kind = 'block' | 'transaction' | 'address';

export interface Endpoint {
  kind: Kind;
  /** What was asked for, for messages ("height 5", "hash 00ab…", "address bcrt1…"). */
  what: string;
  /** Path below the base URL, segments encoded. */
  path: string;
  /** For messages: "GET /v1/blockchain/block/5". */
  label: string;
}

/** The outcome of one attempt that did not produce a reply to validate. */
export interface Failure {
  error: AppError;
  retry: boolean;
  /** Server-requested wait before the next attempt (429). */
  waitMs?: number;
}

/** The endpoint `rel` below /v1/blockchain/ (`query` appended as is). */
export function endpoint(kind: Kind, what: string, rel: string, query = ''): Endpoint {
  const path = `/v1/blockchain/${rel}${query}`;
  return { kind, what, path, label: `GET ${path}` };
}

/**
 * Sorts one reply: 200 gives its body; any other status a Failure. `where` names the index in
 * messages; a 429 asking for a longer wait than `maxRetryAfterMs` is not retried.
 */
export function classifyReply(ep: Endpoint, res: HttpResponse, attempt: number, where: string, maxRetryAfterMs: number): { body: string } | Failure {
  const { status, body } = res;
  if (status === 200) return { body }; // parsed once, by the caller's validator
  const err = parseErrorBody(body);
  const serverSays = err ? `error_code ${err.error_code}: ${excerpt(err.message, 120)}` : null;
  const detail = { status, endpoint: ep.label, ...(err ? { errorCode: err.error_code, serverMessage: excerpt(err.message, 200) } : {}) };
  if (status === 429) {
    // Without Ratelimit-Reset/Retry-After: 5 s (spec §8), doubling per attempt, never beyond maxRetryAfterMs.
    const waitMs = retryAfterMs(res.headers) ?? Math.min(maxRetryAfterMs, RATE_LIMIT_FALLBACK_MS * 2 ** attempt);
    const error = new AppError(
      'index.rate_limited',
      `The index is rate-limiting us (HTTP 429); try again in ${Math.max(1, Math.ceil(waitMs / 1000))} s or raise its limit.`,
      { status, endpoint: ep.label },
      waitMs,
    );
    if (waitMs > maxRetryAfterMs) return { error, retry: false };
    return { error, retry: true, waitMs: waitMs + Math.random() * Math.min(250, waitMs * 0.1 + 1) };
  }
  // A bitaps-style index has no authentication (spec §1): a login or a refusal comes from something
  // in front of it (a proxy, a firewall) or from another service at that URL.
  if (status === 401) {
    return {
      error: new AppError('index.unauthorized', `The index at ${where} asks for a login (HTTP 401). A bitaps-style index needs none and Spyglass sends none: the URL may lead to a proxy that wants one, or to another service. Check the index URL.`, detail),
      retry: false,
    };
  }
  if (status === 403) {
    return {
      error: new AppError('index.forbidden', `The index at ${where} refused this computer (HTTP 403). A proxy or firewall in front of it may allow only some addresses: allow this computer there, or check the index URL.`, detail),
      retry: false,
    };
  }
  if (status === 404 && err) {
    return { error: new AppError('index.not_found', notFoundMessage(ep), detail), retry: false };
  }
  if (status === 400) {
    const reason = err ? excerpt(err.message, 120) : nonJsonSummary(body);
    return { error: new AppError('index.invalid', `The index rejected the ${ep.kind === 'block' ? 'block pointer' : ep.kind === 'transaction' ? 'transaction id' : 'address'} ${ep.what}: ${reason}.`, detail), retry: false };
  }
  if (status === 404) {
    return {
      error: new AppError('index.http', `The server at ${where} has no ${ep.path.replace(/\/[^/]*$/, '/…')} endpoint (HTTP 404: ${nonJsonSummary(body)}). Check the index URL: it should be the part before /v1/blockchain.`, detail),
      retry: false,
    };
  }
  const retry = status === 502 || status === 503 || status === 504;
  const what = serverSays ?? nonJsonSummary(body);
  const error = new AppError('index.http', `The index at ${where} answered HTTP ${status}${reasonPhrase(status)} to ${ep.label} (${what}).${retry ? ' It or a proxy in front of it may be overloaded or restarting.' : ''}`, detail);
  return { error, retry };
}

function notFoundMessage(ep: Endpoint): string {
  switch (ep.kind) {
    case 'block':
      return ep.what === 'last' ? 'The index has no blocks yet.' : `The index has no block ${ep.what}. Its chain may be shorter (still syncing?) or it serves another network.`;
    case 'transaction':
      return `The index has no transaction ${ep.what}. It may not be broadcast yet, or the index serves another network.`;
    case 'address':
      return `The index has no address ${ep.what}.`;
  }
}

/** A short account of a non-JSON (or non-bitaps) error body. */
function nonJsonSummary(body: string): string {
  if (body.trim() === '') return 'empty body';
  if (/^\s*</.test(body)) return `an HTML page, probably from a proxy: "${excerpt(htmlText(body), 80)}"`;
  return `"${excerpt(body, 80)}"`;
}

function reasonPhrase(status: number): string {
  const text = http.STATUS_CODES[status];
  return text ? ` (${text})` : '';
}

/**
 * Milliseconds to wait from `Ratelimit-Reset` (seconds until the window resets; a value that looks
 * like a UNIX time is read as one) or `Retry-After` (seconds or an HTTP date). undefined when absent.
 */
export function retryAfterMs(headers: http.IncomingHttpHeaders, nowMs = Date.now()): number | undefined {
  const one = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h)?.trim();
  const reset = one(headers['ratelimit-reset']);
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset)) {
    const n = Number(reset);
    return n > 1e9 ? Math.max(0, n * 1000 - nowMs) : n * 1000;
  }
  const after = one(headers['retry-after']);
  if (after !== undefined) {
    if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  return undefined;
}
