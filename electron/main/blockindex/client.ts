// Client of a bitaps-style block index (interface B, shared/spec/index-api.md): the three read-only
// endpoints, the {data, time} envelope, error statuses (§7) and the public service's rate limit (§8).
// Electron-free. Every failure is an AppError with a stable code and a message a person can act on.
//
// Request pipeline of one call: FIFO concurrency slot (held for the whole call, retries included) →
// wait out a server-announced pause (429 Ratelimit-Reset) → a token from the client's own limiter
// (before every attempt, retries included) → GET → map the status → validate the shape. Idempotent
// GETs are retried on 429, 502, 503, 504, connection resets and timeouts with exponential backoff
// and full jitter (429: after Ratelimit-Reset).
//
// The index has no credentials of its own, but a proxy in front of it may have, and may quote them
// in its errors: every text taken from a reply is redacted before it is cut (validate.ts excerpt), and
// every error a call throws passes the generic redactor once more (shared/redact.ts, #27).
import http from 'node:http';
import https from 'node:https';
import { AppError } from '../../../shared/errors';
import { redactError, redactGeneric } from '../../../shared/redact';
import { decodeBase58Check } from '../../../shared/bitcoin/address';
import { hostLabel, httpRequest, isLoopbackHost, MAX_INDEX_REPLY_BYTES, sleep, type HttpResponse } from '../net/http';
import type { IndexBlock, IndexTransaction, IndexUtxo } from './types';
import {
  badReply,
  excerpt,
  htmlText,
  parseBlockReply,
  parseErrorBody,
  parseTransactionReply,
  parseUtxoReply,
} from './validate';

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

export interface CallOptions {
  signal?: AbortSignal;
}

export interface IndexClientStats {
  /** HTTP requests sent (every attempt counts). */
  requests: number;
  /** Attempts after the first of a call. */
  retries: number;
  /** 429 replies received. */
  rateLimited: number;
  /** Time calls spent waiting for the client's limiter or a server-announced 429 pause. */
  throttledMs: number;
}

const DEFAULT_REMOTE_LIMIT = { requests: 15, perMs: 5000 };
const MAX_BACKOFF_MS = 10_000;
/** Spec §8: wait this long after a 429 without Ratelimit-Reset. */
const RATE_LIMIT_FALLBACK_MS = 5000;
const HEX64 = /^[0-9a-fA-F]{64}$/;

type Kind = 'block' | 'transaction' | 'address';

interface Endpoint {
  kind: Kind;
  /** What was asked for, for messages ("height 5", "hash 00ab…", "address bcrt1…"). */
  what: string;
  /** Path below the base URL, segments encoded. */
  path: string;
  /** For messages: "GET /v1/blockchain/block/5". */
  label: string;
}

/** The outcome of one attempt that did not produce a reply to validate. */
interface Failure {
  error: AppError;
  retry: boolean;
  /** Server-requested wait before the next attempt (429). */
  waitMs?: number;
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

export class IndexClient {
  readonly stats: IndexClientStats = { requests: 0, retries: 0, rateLimited: 0, throttledMs: 0 };
  readonly settings: Readonly<IndexClientSettings>;
  private readonly base: URL;
  /** Path of the base URL without trailing slashes ('' for the root). */
  private readonly basePath: string;
  private readonly timeoutMs: number;
  private readonly maxReplyBytes: number;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly utxoPageSize: number;
  private readonly agent: http.Agent | https.Agent;
  private readonly slots: Slots;
  private readonly limiter: Limiter | null;
  /** One controller per running or queued call; close() aborts them all (no listeners pile up on a shared signal). */
  private readonly calls = new Set<AbortController>();
  private closed = false;
  /** performance.now() before which no request is sent (a 429's Ratelimit-Reset). */
  private pausedUntil = 0;

  constructor(options: IndexClientOptions) {
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
    this.base = url;
    this.basePath = url.pathname.replace(/\/+$/, '');
    const loopback = isLoopbackHost(url.hostname);
    this.timeoutMs = positive(options.timeoutMs, 20_000, 'timeoutMs');
    this.maxReplyBytes = positiveInt(options.maxReplyBytes, MAX_INDEX_REPLY_BYTES, 'maxReplyBytes');
    this.retries = nonNegativeInt(options.retries, 3, 'retries');
    this.baseDelayMs = nonNegative(options.baseDelayMs, 500, 'baseDelayMs');
    this.maxRetryAfterMs = nonNegative(options.maxRetryAfterMs, 60_000, 'maxRetryAfterMs');
    this.utxoPageSize = positiveInt(options.utxoPageSize, 5000, 'utxoPageSize');
    const concurrency = positiveInt(options.concurrency, loopback ? 16 : 4, 'concurrency');
    const rate = options.rateLimit === undefined ? (loopback ? null : DEFAULT_REMOTE_LIMIT) : options.rateLimit;
    if (rate !== null) {
      positiveInt(rate.requests, 1, 'rateLimit.requests');
      positive(rate.perMs, 1, 'rateLimit.perMs');
    }
    this.settings = Object.freeze({
      url: `${url.origin}${this.basePath}`,
      timeoutMs: this.timeoutMs,
      rateLimit: rate ? { requests: rate.requests, perMs: rate.perMs } : null,
      concurrency,
      retries: this.retries,
      baseDelayMs: this.baseDelayMs,
      maxRetryAfterMs: this.maxRetryAfterMs,
      utxoPageSize: this.utxoPageSize,
    });
    this.slots = new Slots(concurrency);
    this.limiter = rate ? new Limiter(rate.requests, rate.perMs) : null;
    const agentOptions = { keepAlive: true, maxSockets: concurrency };
    this.agent = url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** A block by height, 64-hex hash, or 'last' (the tip). */
  async block(pointer: number | string, opts: CallOptions = {}): Promise<IndexBlock> {
    const p = blockPointer(pointer);
    const ep = this.endpoint('block', p.what, `block/${encodeURIComponent(p.segment)}`);
    const block = await this.call(ep, opts, parseBlockReply);
    if (p.height !== undefined && block.height !== p.height) {
      throw badReply(ep.label, `it holds the block at height ${block.height}, not ${p.height}`);
    }
    if (p.hash !== undefined && block.hash !== p.hash) {
      throw badReply(ep.label, `it holds block ${block.hash}, not ${p.hash}`);
    }
    return block;
  }

  /** A transaction by txid (64 hex). The index looks transactions up by txid, not wtxid (spec §3). */
  async transaction(hash: string, opts: CallOptions = {}): Promise<IndexTransaction> {
    const txid = hexHash(hash, 'transaction id');
    const ep = this.endpoint('transaction', txid, `transaction/${txid}`);
    const tx = await this.call(ep, opts, parseTransactionReply);
    if (tx.txId !== txid) throw badReply(ep.label, `it holds transaction ${tx.txId}, not ${txid}`);
    return tx;
  }

  /**
   * Confirmed unspent outputs of one address (spec §6), all pages. Outputs spent by a mempool tx
   * are not listed, and the server drops them AFTER paging: a page can come back short while later
   * pages still have entries. So a page is followed by the next one when it is full, and also when
   * it holds at least {@link SHORT_PAGE_PROBE} entries (one more request, for an address that has
   * that many outputs anyway, and usually answered empty). A shorter page ends the list: a later
   * page could then exist only if more than `utxoPageSize − SHORT_PAGE_PROBE` outputs of this page
   * were being spent in the mempool at once, and a refresh after those spends confirm sees the rest.
   * Only outputs paying the address's own script: asked without `type`, the server adds to a P2PKH
   * address the outputs paying its key directly (P2PK). Those are not payments to the address —
   * Core's wallet never counts them for it, nor do Electrum-protocol wallets (by script hash) — and
   * would leave the balance above what the node says was received. So a P2PKH address is asked
   * with `type=P2PKH`, and a "PUBKEY" entry from a server that ignores the parameter is dropped.
   */
  async addressUtxo(address: string, opts: CallOptions = {}): Promise<IndexUtxo[]> {
    if (typeof address !== 'string' || !/^[A-Za-z0-9]{14,100}$/.test(address)) {
      throw new AppError('input.invalid', `"${excerpt(String(address), 40)}" is not an address (expected 14–100 letters and digits).`, { field: 'address' });
    }
    const all: IndexUtxo[] = [];
    const seen = new Set<string>();
    const typeParam = isP2pkhAddress(address) ? '&type=P2PKH' : '';
    for (let page = 1; ; page++) {
      const query = `?limit=${this.utxoPageSize}&page=${page}${typeParam}`;
      const ep = this.endpoint('address', address, `address/utxo/${encodeURIComponent(address)}`, query);
      const list = await this.call(ep, opts, parseUtxoReply);
      let fresh = 0;
      for (const u of list) {
        const k = `${u.txId}:${u.vOut}`;
        if (seen.has(k)) continue;
        seen.add(k);
        fresh++;
        if (u.type !== 'PUBKEY') all.push(u);
      }
      // A page with nothing new: the server (or a proxy) ignores `page`; asking on would never end.
      if (list.length < Math.min(this.utxoPageSize, SHORT_PAGE_PROBE) || fresh === 0) return all;
    }
  }

  /** Height and hash of the index's tip (`block/last`, spec §2). */
  async tip(opts: CallOptions = {}): Promise<{ height: number; hash: string }> {
    const b = await this.block('last', opts);
    return { height: b.height, hash: b.hash };
  }

  /** Hash of the block at `height` (e.g. to find where the index and the node agree). */
  async blockHash(height: number, opts: CallOptions = {}): Promise<string> {
    return (await this.block(height, opts)).hash;
  }

  /** Hash of block 0: tells which chain the index serves. */
  async genesisHash(opts: CallOptions = {}): Promise<string> {
    return (await this.block(0, opts)).hash;
  }

  /** Cancels queued and running calls (they reject with 'cancelled') and closes idle connections. */
  close(): void {
    this.closed = true;
    for (const c of this.calls) c.abort();
    this.calls.clear();
    this.limiter?.close();
    this.agent.destroy();
  }

  // ---------- pipeline ----------

  private endpoint(kind: Kind, what: string, rel: string, query = ''): Endpoint {
    const path = `/v1/blockchain/${rel}${query}`;
    return { kind, what, path, label: `GET ${path}` };
  }

  private async call<T>(ep: Endpoint, opts: CallOptions, parse: (body: string, label: string) => T): Promise<T> {
    const own = new AbortController();
    const onAbort = (): void => own.abort();
    if (this.closed || opts.signal?.aborted) own.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.calls.add(own);
    const { signal } = own;
    try {
      await this.slots.acquire(signal);
      try {
        for (let attempt = 0; ; attempt++) {
          if (attempt > 0) this.stats.retries++;
          const outcome = await this.attempt(ep, signal, attempt);
          if ('body' in outcome) return parse(outcome.body, ep.label);
          const { error, retry, waitMs } = outcome;
          if (!retry || attempt >= this.retries) throw error;
          if (waitMs !== undefined) {
            // A 429 pauses every call of this client, not only this one.
            this.pausedUntil = Math.max(this.pausedUntil, performance.now() + waitMs);
          } else {
            await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, this.baseDelayMs * 2 ** attempt), signal);
          }
        }
      } finally {
        this.slots.release();
      }
    } catch (e) {
      if (e instanceof AppError && e.code === 'cancelled') throw this.cancelled();
      throw e instanceof AppError ? redactError(e, redactGeneric) : e;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      this.calls.delete(own);
    }
  }

  /** One GET: waits for its turn, sends, and classifies the reply. */
  private async attempt(ep: Endpoint, signal: AbortSignal, attempt: number): Promise<{ body: string } | Failure> {
    const started = performance.now();
    const pause = this.pausedUntil - started;
    if (pause > 0) await sleep(pause, signal);
    if (this.limiter) await this.limiter.take(signal);
    this.stats.throttledMs += Math.round(performance.now() - started);
    this.stats.requests++;
    let res: HttpResponse;
    try {
      res = await httpRequest(
        {
          method: 'GET',
          url: new URL(`${this.base.origin}${this.basePath}${ep.path}`),
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          timeoutMs: this.timeoutMs,
          signal,
          agent: this.agent,
          maxBytes: this.maxReplyBytes,
        },
        'the index',
      );
    } catch (e) {
      const error = e instanceof AppError ? e : new AppError('net.unreachable', `Cannot reach the index at ${hostLabel(this.base)}.`);
      return { error, retry: error.code === 'net.reset' || error.code === 'net.timeout' };
    } finally {
      this.limiter?.finish();
    }
    return this.classify(ep, res, attempt);
  }

  private classify(ep: Endpoint, res: HttpResponse, attempt: number): { body: string } | Failure {
    const { status, body } = res;
    if (status === 200) return { body }; // parsed once, by the caller's validator
    const where = hostLabel(this.base);
    const err = parseErrorBody(body);
    const serverSays = err ? `error_code ${err.error_code}: ${excerpt(err.message, 120)}` : null;
    const detail = { status, endpoint: ep.label, ...(err ? { errorCode: err.error_code, serverMessage: excerpt(err.message, 200) } : {}) };
    if (status === 429) {
      this.stats.rateLimited++;
      // Without Ratelimit-Reset/Retry-After: 5 s (spec §8), doubling per attempt, never beyond maxRetryAfterMs.
      const waitMs = retryAfterMs(res.headers) ?? Math.min(this.maxRetryAfterMs, RATE_LIMIT_FALLBACK_MS * 2 ** attempt);
      const error = new AppError(
        'index.rate_limited',
        `The index is rate-limiting us (HTTP 429); try again in ${Math.max(1, Math.ceil(waitMs / 1000))} s or raise its limit.`,
        { status, endpoint: ep.label },
        waitMs,
      );
      if (waitMs > this.maxRetryAfterMs) return { error, retry: false };
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

  private cancelled(): AppError {
    return this.closed
      ? new AppError('cancelled', 'The request to the index was cancelled: the index client was closed.')
      : new AppError('cancelled', 'The request to the index was cancelled.');
  }
}

// ---------- helpers ----------

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

function hexHash(hash: string, what: string): string {
  if (typeof hash !== 'string' || !HEX64.test(hash)) {
    throw new AppError('input.invalid', `"${excerpt(String(hash), 70)}" is not a ${what}: expected 64 hex characters.`, { field: what });
  }
  return hash.toLowerCase();
}

/** Block pointer: a height (number or decimal string), a 64-hex hash, or 'last'. */
function blockPointer(pointer: number | string): { segment: string; what: string; height?: number; hash?: string } {
  if (typeof pointer === 'number') {
    if (!Number.isSafeInteger(pointer) || pointer < 0) {
      throw new AppError('input.invalid', `${String(pointer)} is not a block height: expected a whole number ≥ 0.`, { field: 'block' });
    }
    return { segment: String(pointer), what: `at height ${pointer}`, height: pointer };
  }
  if (pointer === 'last') return { segment: 'last', what: 'last' };
  if (typeof pointer === 'string' && /^(0|[1-9][0-9]{0,10})$/.test(pointer)) {
    const height = Number(pointer);
    return { segment: pointer, what: `at height ${height}`, height };
  }
  if (typeof pointer === 'string' && HEX64.test(pointer)) {
    const hash = pointer.toLowerCase();
    return { segment: hash, what: `with hash ${hash}`, hash };
  }
  throw new AppError('input.invalid', `"${excerpt(String(pointer), 70)}" is not a block pointer: expected a height, a 64-hex block hash or 'last'.`, { field: 'block' });
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

function cancelledError(): AppError {
  return new AppError('cancelled', 'The request to the index was cancelled.');
}

interface Waiter {
  resolve: () => void;
  reject: (e: AppError) => void;
}

/** Waits in FIFO order; an aborted waiter leaves the queue. */
function enqueue(queue: Waiter[], signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelledError());
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      const i = queue.indexOf(waiter);
      if (i >= 0) queue.splice(i, 1);
      reject(cancelledError());
    };
    const waiter: Waiter = {
      resolve: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      reject,
    };
    queue.push(waiter);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Entries from which a short `address/utxo` page is still followed by the next page (see addressUtxo). */
const SHORT_PAGE_PROBE = 100;

/** A base58 P2PKH address (version byte 0x00 on mainnet, 0x6f on the test networks). */
function isP2pkhAddress(address: string): boolean {
  if (!/^[1mn]/.test(address)) return false; // no other kind of address starts so
  const payload = decodeBase58Check(address, 21);
  return payload !== null && payload.length === 21 && (payload[0] === 0x00 || payload[0] === 0x6f);
}

/** Concurrency cap: `limit` holders at once, the rest wait in FIFO order. */
class Slots {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly limit: number) {}

  acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit && this.queue.length === 0) {
      if (signal?.aborted) return Promise.reject(cancelledError());
      this.active++;
      return Promise.resolve();
    }
    return enqueue(this.queue, signal);
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next.resolve(); // the slot passes straight to the next in line
    else this.active--;
  }
}

/**
 * The client's own rate limit: a bucket of `capacity` tokens; each request takes one, and a token
 * comes back `perMs` after its request FINISHED. The server sees a request arrive before it
 * finishes, so consecutive requests on one token arrive at least `perMs` apart, and no window of
 * `perMs` (as the server measures it) holds more than `capacity` requests — unlike a refilling
 * bucket, which allows up to twice that across a window edge.
 */
class Limiter {
  /** Tokens held by requests in flight. */
  private inFlight = 0;
  /** performance.now() times at which used tokens come back, ascending. */
  private returning: number[] = [];
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly capacity: number,
    private readonly perMs: number,
  ) {}

  take(signal?: AbortSignal): Promise<void> {
    if (this.queue.length === 0 && this.available(performance.now()) > 0) {
      if (signal?.aborted) return Promise.reject(cancelledError());
      this.inFlight++;
      return Promise.resolve();
    }
    const p = enqueue(this.queue, signal);
    this.pump();
    return p;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The request holding a token has finished (any outcome). */
  finish(): void {
    this.inFlight--;
    this.returning.push(performance.now() + this.perMs);
    this.pump();
  }

  private available(now: number): number {
    while (this.returning.length > 0 && this.returning[0]! <= now) this.returning.shift();
    return this.capacity - this.inFlight - this.returning.length;
  }

  private pump(): void {
    const now = performance.now();
    let free = this.available(now);
    while (free > 0 && this.queue.length > 0) {
      this.inFlight++;
      free--;
      this.queue.shift()!.resolve();
    }
    if (this.queue.length === 0 || this.timer || this.returning.length === 0) return;
    // Timers can fire a little early against performance.now(); pump() re-checks and re-arms.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.max(1, Math.ceil(this.returning[0]! - now)));
  }
}
