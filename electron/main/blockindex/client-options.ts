// The index client's options: what a caller may set, the defaults (a remote host gets the public
// service's rate limit and a small concurrency, a loopback host none and a larger one), and the checks
// that turn a bad URL or number into an input.invalid error before anything is sent.
import { AppError } from '../../../shared/errors';
import { isLoopbackHost, MAX_INDEX_REPLY_BYTES } from '../net/http';
import { excerpt } from './reply-body';

export interface IndexClientOptions {
  /** Base URL of the index, before `/v1/blockchain` (e.g. `https://api.bitaps.com/btc`). */
  url: string;
  /** Per attempt (default 20 s). */
  timeoutMs?: number;
  /**
   * Client-side limit: at most `requests` requests per any `perMs` window (default 15 per 5000 ms
   * for remote hosts as the public service allows, none for loopback hosts). null = no limit.
   */
  rateLimit?: { requests: number; perMs: number } | null;
  /** Requests in flight at once; further calls wait in a FIFO queue (default 4 remote, 16 loopback). */
  concurrency?: number;
  /** Retries of one call on 429/502/503/504/reset/timeout (default 3). */
  retries?: number;
  /** Base of the exponential backoff (default 500 ms; capped at 10 s per wait). */
  baseDelayMs?: number;
  /** Longest wait for a 429's Ratelimit-Reset before giving up with index.rate_limited (default 60 s). */
  maxRetryAfterMs?: number;
  /** Entries per page of `/address/utxo` (default 5000, the real server's default maximum). */
  utxoPageSize?: number;
  /** Largest reply read (default MAX_INDEX_REPLY_BYTES, 64 MiB); a larger one is refused unread. */
  maxReplyBytes?: number;
}

/** The options in effect after defaults (for logs and diagnostics). */
export interface IndexClientSettings {
  url: string;
  timeoutMs: number;
  rateLimit: { requests: number; perMs: number } | null;
  concurrency: number;
  retries: number;
  baseDelayMs: number;
  maxRetryAfterMs: number;
  utxoPageSize: number;
}

const DEFAULT_REMOTE_LIMIT = { requests: 15, perMs: 5000 };

/** The checked options: the base URL, its path without trailing slashes, and the settings in effect. */
export interface ResolvedIndexOptions {
  base: URL;
  /** Path of the base URL without trailing slashes ('' for the root). */
  basePath: string;
  settings: Readonly<IndexClientSettings>;
  maxReplyBytes: number;
}

/** Checks `options` and fills in the defaults; throws input.invalid naming the bad field. */
export function resolveIndexOptions(options: IndexClientOptions): ResolvedIndexOptions {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new AppError('input.invalid', `The index URL "${excerpt(options.url, 80)}" is not a valid URL.`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('input.invalid', `The index URL must start with http:// or https:// (got ${url.protocol}).`, { field: 'url' });
  }
  if (url.username || url.password) {
    throw new AppError('input.invalid', 'The index URL must not contain a user name or password; the index API has no authentication.', { field: 'url' });
  }
  if (url.search || url.hash) {
    throw new AppError('input.invalid', 'The index URL must not have a query (?…) or fragment (#…); give the base URL before /v1/blockchain.', { field: 'url' });
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  const loopback = isLoopbackHost(url.hostname);
  const timeoutMs = positive(options.timeoutMs, 20_000, 'timeoutMs');
  const maxReplyBytes = positiveInt(options.maxReplyBytes, MAX_INDEX_REPLY_BYTES, 'maxReplyBytes');
  const retries = nonNegativeInt(options.retries, 3, 'retries');
  const baseDelayMs = nonNegative(options.baseDelayMs, 500, 'baseDelayMs');
  const maxRetryAfterMs = nonNegative(options.maxRetryAfterMs, 60_000, 'maxRetryAfterMs');
  const utxoPageSize = positiveInt(options.utxoPageSize, 5000, 'utxoPageSize');
  const concurrency = positiveInt(options.concurrency, loopback ? 16 : 4, 'concurrency');
  const rate = options.rateLimit === undefined ? (loopback ? null : DEFAULT_REMOTE_LIMIT) : options.rateLimit;
  if (rate !== null) {
    positiveInt(rate.requests, 1, 'rateLimit.requests');
    positive(rate.perMs, 1, 'rateLimit.perMs');
  }
  const settings = Object.freeze({
    url: `${url.origin}${basePath}`,
    timeoutMs,
    rateLimit: rate ? { requests: rate.requests, perMs: rate.perMs } : null,
    concurrency,
    retries,
    baseDelayMs,
    maxRetryAfterMs,
    utxoPageSize,
  });
  return { base: url, basePath, settings, maxReplyBytes };
}

function positive(v: number | undefined, dflt: number, name: string): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new AppError('input.invalid', `IndexClient option ${name} must be a positive number.`, { field: name });
  return v;
}

function positiveInt(v: number | undefined, dflt: number, name: string): number {
  const n = positive(v, dflt, name);
  if (!Number.isInteger(n)) throw new AppError('input.invalid', `IndexClient option ${name} must be a whole number.`, { field: name });
  return n;
}

function nonNegative(v: number | undefined, dflt: number, name: string): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new AppError('input.invalid', `IndexClient option ${name} must be zero or more.`, { field: name });
  return v;
}

function nonNegativeInt(v: number | undefined, dflt: number, name: string): number {
  const n = nonNegative(v, dflt, name);
  if (!Number.isInteger(n)) throw new AppError('input.invalid', `IndexClient option ${name} must be a whole number.`, { field: name });
  return n;
}
