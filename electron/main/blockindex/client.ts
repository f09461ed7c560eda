// Client of a bitaps-style block index (interface B, shared/spec/index-api.md): the three read-only
// endpoints, the {data, time} envelope, error statuses (§7) and the public service's rate limit (§8).
// Electron-free. Every failure is an AppError with a stable code and a message a person can act on.
//
// Request pipeline of one call: FIFO concurrency slot (held for the whole call, retries included) →
// wait out a server-announced pause (429 Ratelimit-Reset) → a token from the client's own limiter
// (before every attempt, retries included) → GET → map the status → validate the shape. Idempotent
// GETs are retried on 429, 502, 503, 504, connection resets and timeouts with exponential backoff
// and full jitter (429: after Ratelimit-Reset).
// The slot, the pause and the token are the client's budget (pacer.ts): its own, or — for a client
// built in another thread from handoff() — main's, lent over a MessagePort (lend()), one budget for both.
//
// The index has no credentials of its own, but a proxy in front of it may have, and may quote them
// in its errors: every text taken from a reply is redacted before it is cut (reply-body.ts excerpt), and
// every error a call throws passes the generic redactor once more (shared/redact.ts, #27).
import http from 'node:http';
import https from 'node:https';
import type { MessagePort } from 'node:worker_threads';
import { AppError } from '../../../shared/errors';
import { redactError, redactGeneric } from '../../../shared/redact';
import { hostLabel, httpRequest, sleep, type HttpResponse } from '../net/http';
import type { IndexBlock, IndexTransaction, IndexUtxo } from './types';
import { badReply } from './reply-body';
import { parseBlockReply, parseTransactionReply, parseUtxoReply } from './validate';
import { resolveIndexOptions, type IndexClientOptions, type IndexClientSettings } from './client-options';
import { classifyReply, endpoint, type Endpoint, type Failure } from './http-status';
import { blockPointer, checkAddress, hexHash, isP2pkhAddress } from './lookup-args';
import { LocalPacer, RemotePacer, serveBudget, type LentBudget, type Pacer } from './pacer';

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

const MAX_BACKOFF_MS = 10_000;
/** Entries from which a short `address/utxo` page is still followed by the next page (see addressUtxo). */
const SHORT_PAGE_PROBE = 100;

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
  /** The concurrency cap, rate limit and 429 pause: this client's own, or main's (pacer.ts). */
  private readonly pacer: Pacer;
  /** One controller per running or queued call; close() aborts them all (no listeners pile up on a shared signal). */
  private readonly calls = new Set<AbortController>();
  private closed = false;
  /** Budgets lent to clients in other threads, until their loan ends (lend()). */
  private readonly lent = new Set<LentBudget>();

  /**
   * `budget`: the port of another client's budget (lend()), for a client built in another thread from
   * that one's handoff(): its requests then count in that client's concurrency cap and rate limit.
   */
  constructor(options: IndexClientOptions, budget?: MessagePort) {
    const { base, basePath, settings, maxReplyBytes } = resolveIndexOptions(options);
    this.base = base;
    this.basePath = basePath;
    this.settings = settings;
    this.timeoutMs = settings.timeoutMs;
    this.maxReplyBytes = maxReplyBytes;
    this.retries = settings.retries;
    this.baseDelayMs = settings.baseDelayMs;
    this.maxRetryAfterMs = settings.maxRetryAfterMs;
    this.utxoPageSize = settings.utxoPageSize;
    const { concurrency, rateLimit: rate } = settings;
    // A lent budget closed by its lender (main's client closed) closes this client too.
    this.pacer = budget !== undefined ? new RemotePacer(budget, () => this.close()) : new LocalPacer(concurrency, rate);
    const agentOptions = { keepAlive: true, maxSockets: concurrency };
    this.agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** A block by height, 64-hex hash, or 'last' (the tip). */
  async block(pointer: number | string, opts: CallOptions = {}): Promise<IndexBlock> {
    const p = blockPointer(pointer);
    const ep = endpoint('block', p.what, `block/${encodeURIComponent(p.segment)}`);
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
    const ep = endpoint('transaction', txid, `transaction/${txid}`);
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
    checkAddress(address);
    const all: IndexUtxo[] = [];
    const seen = new Set<string>();
    const typeParam = isP2pkhAddress(address) ? '&type=P2PKH' : '';
    for (let page = 1; ; page++) {
      const query = `?limit=${this.utxoPageSize}&page=${page}${typeParam}`;
      const ep = endpoint('address', address, `address/utxo/${encodeURIComponent(address)}`, query);
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

  /**
   * The options to build the same client in another thread of this process (new IndexClient(handoff,
   * port of lend())): the same base URL, timeouts, retries, page size and reply limit. The index has
   * no credentials (a URL with any is refused), so this is plain data.
   */
  handoff(): IndexClientOptions {
    const s = this.settings;
    return {
      url: s.url,
      timeoutMs: s.timeoutMs,
      rateLimit: s.rateLimit ? { ...s.rateLimit } : null,
      concurrency: s.concurrency,
      retries: s.retries,
      baseDelayMs: s.baseDelayMs,
      maxRetryAfterMs: s.maxRetryAfterMs,
      utxoPageSize: s.utxoPageSize,
      maxReplyBytes: this.maxReplyBytes,
    };
  }

  /**
   * This client's budget (concurrency cap, rate limit, 429 pause) lent to a client in another thread:
   * hand `port` over (transferred) to `new IndexClient(handoff(), port)`, and close() the loan when
   * that client's work is over (what it still held comes back).
   */
  lend(): LentBudget {
    const lent = serveBudget(this.pacer);
    const loan: LentBudget = {
      port: lent.port,
      close: () => {
        if (this.lent.delete(loan)) lent.close();
      },
    };
    this.lent.add(loan);
    return loan;
  }

  /** Cancels queued and running calls (they reject with 'cancelled') and closes idle connections. */
  close(): void {
    this.closed = true;
    for (const c of this.calls) c.abort();
    this.calls.clear();
    for (const loan of [...this.lent]) loan.close(); // the clients on them close too
    this.pacer.close();
    this.agent.destroy();
  }

  // ---------- pipeline ----------

  private async call<T>(ep: Endpoint, opts: CallOptions, parse: (body: string, label: string) => T): Promise<T> {
    const own = new AbortController();
    const onAbort = (): void => own.abort();
    if (this.closed || opts.signal?.aborted) own.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.calls.add(own);
    const { signal } = own;
    try {
      const releaseSlot = await this.pacer.slot(signal);
      try {
        for (let attempt = 0; ; attempt++) {
          if (attempt > 0) this.stats.retries++;
          const outcome = await this.attempt(ep, signal, attempt);
          if ('body' in outcome) return parse(outcome.body, ep.label);
          const { error, retry, waitMs } = outcome;
          if (!retry || attempt >= this.retries) throw error;
          if (waitMs !== undefined) {
            // A 429 pauses every call of this client's budget, not only this one.
            this.pacer.pause(waitMs);
          } else {
            await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, this.baseDelayMs * 2 ** attempt), signal);
          }
        }
      } finally {
        releaseSlot();
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
    const finish = await this.pacer.token(signal);
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
      finish();
    }
    if (res.status === 429) this.stats.rateLimited++;
    return classifyReply(ep, res, attempt, hostLabel(this.base), this.maxRetryAfterMs);
  }

  private cancelled(): AppError {
    return this.closed
      ? new AppError('cancelled', 'The request to the index was cancelled: the index client was closed.')
      : new AppError('cancelled', 'The request to the index was cancelled.');
  }
}
