// The Bitcoin Core JSON-RPC client of the main process (no Electron import). One keep-alive agent
// per client; every failure is an AppError (transport: net.* / cancelled from ../net/http; replies:
// rpc.* from ./errors). Requests are JSON-RPC 2.0 with string ids; replies are matched by id and
// returned as JSON.parse gives them (amount conversion is the caller's business, see shared/amounts).
//
// Credentials: basic auth from user/password, or from the cookie file. The cookie is read when the
// first request needs it, kept for the client's lifetime, and read again once after a 401, because
// bitcoind writes a new cookie each time it starts. Neither the password nor the Authorization
// header ever reaches an error message or detail: the replies' texts pass the client's redactor
// (shared/redact.ts: every credential this client sent, in every form) before they become an error,
// and every error leaving call() or batch() passes it once more — a node or a proxy that echoes the
// request's headers in its errors is quoted without them (#27).
import http from 'node:http';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { AppError } from '../../../shared/errors';
import { makeRedactor, redactError, type Redactor, type Secrets } from '../../../shared/redact';
import { httpRequest, isLoopbackHost, MAX_NODE_REPLY_BYTES, sleep, type HttpResponse } from '../net/http';
import { interpretBatchReply, interpretReply } from './errors';
import { WALLET_METHODS } from './wallet-methods';

export type RpcAuth = { user: string; password: string } | { cookieFile: string };

export interface RpcCredentials {
  user: string;
  password: string;
}

export interface RpcClientOptions {
  /** Node URL: scheme, host and port (a path prefix is kept for reverse proxies; user info is ignored). */
  url: string;
  auth: RpcAuth;
  /**
   * Wallet addressed by default (`/wallet/<name>`); null/undefined: node-level path `/`, and a wallet
   * RPC (wallet-methods.ts) is refused here, unsent — never answered by whatever wallet the node has loaded.
   */
  wallet?: string | null;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /** Calls per HTTP request in `batch` (default 500). */
  batchChunkSize?: number;
  /**
   * Retries of a -28 (warm-up) reply: `attempts` retries after the first try, waiting
   * `baseDelayMs`, then doubling, each wait capped at 8 s. Default 5 retries from 500 ms
   * (0.5 + 1 + 2 + 4 + 8 s).
   */
  warmup?: { attempts: number; baseDelayMs: number };
  /** Extra CA certificates (PEM) for an https:// node behind a TLS proxy. */
  ca?: string;
  /** Reads a cookie file (injected by the credentials module; default: reads `user:password` from the file). */
  readCookie?: (path: string) => Promise<RpcCredentials>;
  /** Largest reply read (default MAX_NODE_REPLY_BYTES, 256 MiB); a larger one is refused unread. */
  maxReplyBytes?: number;
}

export interface CallOptions {
  /**
   * Address the client's wallet (default: true when a wallet is set), or the wallet of this name
   * (a wallet being created or rescanned before the profile uses it).
   */
  wallet?: boolean | string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * What another thread of this process needs to build a client with this client's connection and
 * semantics (handoff()): plain data, structured-cloned in-process to a worker (the refresh's
 * getaddressinfo batches, refresh/address-infos.ts). It carries the credentials, so it is never
 * written, logged or put in an error.
 */
export type RpcHandoff = Omit<RpcClientOptions, 'readCookie'>;

export type BatchEntry<T> = { ok: true; value: T } | { ok: false; error: AppError };

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_CHUNK = 500;
const DEFAULT_WARMUP = { attempts: 5, baseDelayMs: 500 };
const MAX_WARMUP_DELAY_MS = 8_000;
/** Idle keep-alive sockets are closed before a server would (Core: 30 s, typical proxies: 5 s+). */
const IDLE_SOCKET_MS = 4_000;
/** Parallel connections to the node (Core's default rpcthreads is 4 or more). */
const MAX_SOCKETS = 4;

/** Reads a Bitcoin Core `.cookie` file (`__cookie__:<hex>`). Never puts the file's contents in an error. */
export async function readCookieFile(path: string): Promise<RpcCredentials> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'ENOENT'
        ? 'it does not exist: is the node running, and is this its data directory (and network subfolder)?'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied: the node may run as another user; give this user read access to the cookie.'
          : `${code}.`;
    throw new AppError('cookie.unreadable', `Cannot read the node's cookie file ${path}: ${why}`, { path, errno: code });
  }
  const line = text.replace(/\r?\n$/, '');
  const colon = line.indexOf(':');
  if (colon <= 0 || /[\r\n]/.test(line)) {
    throw new AppError('cookie.unreadable', `The file ${path} is not a Bitcoin Core cookie file (expected one line user:password).`, { path });
  }
  return { user: line.slice(0, colon), password: line.slice(colon + 1) };
}

export class RpcClient {
  /** http:// to a host that is not loopback: credentials and data travel in clear (the UI warns). */
  readonly plainHttpRemote: boolean;
  private readonly base: URL;
  private readonly auth: RpcAuth;
  private readonly wallet: string | null;
  private readonly timeoutMs: number;
  private readonly maxReplyBytes: number;
  private readonly chunkSize: number;
  private readonly warmup: { attempts: number; baseDelayMs: number };
  private readonly ca: string | undefined;
  private readonly readCookie: (path: string) => Promise<RpcCredentials>;
  private readonly agent: http.Agent;
  /** The cookie credentials in use (a promise so that concurrent requests read the file once). */
  private cookie: Promise<RpcCredentials> | null = null;
  /** Every set of credentials this client has sent or may send (a cookie read again adds one). */
  private readonly secrets: Secrets[] = [];
  private redactor: Redactor | null = null;
  /** The options as given, but for readCookie (handoff()). */
  private readonly given: RpcHandoff;
  private seq = 0;
  private closed = false;

  constructor(options: RpcClientOptions) {
    const { readCookie: _readCookie, ...given } = options;
    this.given = given;
    let base: URL;
    try {
      base = new URL(options.url);
    } catch {
      throw new AppError('input.invalid', 'The node URL is not a valid URL. Use e.g. http://127.0.0.1:8332.', { field: 'url' });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new AppError('input.invalid', `The node URL must start with http:// or https:// (got ${base.protocol}).`, { field: 'url' });
    }
    // User info in the URL is not used, but it is secret all the same.
    this.secrets.push({ urls: [options.url] });
    base.username = '';
    base.password = '';
    base.search = '';
    base.hash = '';
    this.base = base;
    this.auth = options.auth;
    if ('password' in options.auth) this.remember(options.auth);
    this.wallet = options.wallet ?? null;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.chunkSize = Math.max(1, Math.floor(options.batchChunkSize ?? DEFAULT_CHUNK));
    this.warmup = options.warmup ?? DEFAULT_WARMUP;
    this.ca = options.ca;
    this.readCookie = options.readCookie ?? readCookieFile;
    this.maxReplyBytes = options.maxReplyBytes ?? MAX_NODE_REPLY_BYTES;
    this.plainHttpRemote = base.protocol === 'http:' && !isLoopbackHost(base.hostname);
    const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS };
    this.agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** Calls one method; resolves with its `result`, rejects with an AppError. A -28 reply is retried with backoff first. */
  async call<T = unknown>(method: string, params: unknown[] | Record<string, unknown> = [], opts: CallOptions = {}): Promise<T> {
    try {
      const url = this.urlFor(opts.wallet, [method]);
      const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
      for (let attempt = 0; ; attempt++) {
        const id = this.nextId();
        const body = encode(method, { jsonrpc: '2.0', id, method, params });
        const res = await this.post(url, body, timeoutMs, opts.signal);
        const out = interpretReply(res.status, res.body, method, url, { contentType: res.headers['content-type'], id, redact: this.redact() });
        if (out.ok) return out.value as T;
        if (out.error.code === 'rpc.warming_up' && attempt < this.warmup.attempts) {
          await sleep(this.warmupDelay(attempt), opts.signal);
          continue;
        }
        throw out.error;
      }
    } catch (e) {
      throw this.redacted(e);
    }
  }

  /**
   * Calls many methods in JSON-RPC batches of `batchChunkSize`, one chunk after another. The
   * result keeps the order of `calls`; each entry is its own success or error (replies are matched
   * by id; a call the node did not answer is an rpc.bad_reply entry). Entries answering -28 are
   * retried with backoff. Rejects only when a whole request fails (transport, 401/403, a reply
   * that is not a batch).
   */
  async batch<T = unknown>(
    calls: { method: string; params?: unknown[] | Record<string, unknown> }[],
    opts: { wallet?: boolean; signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Array<BatchEntry<T>>> {
    try {
      return await this.batchUnredacted<T>(calls, opts);
    } catch (e) {
      throw this.redacted(e);
    }
  }

  /**
   * The options to build the same client in another thread of this process (new RpcClient(handoff)
   * with the same readCookie): the same URL, credentials, wallet, timeouts, batch size, warm-up
   * retries, CA and reply limit. Handed over in-process only — it holds the password.
   */
  handoff(): RpcHandoff {
    return { ...this.given, ...(this.given.warmup ? { warmup: { ...this.given.warmup } } : {}), auth: { ...this.given.auth } };
  }

  /** Closes the keep-alive connections; later calls fail with 'cancelled'. */
  close(): void {
    this.closed = true;
    this.agent.destroy();
  }

  // -------------------------------------------------------------------------------------------

  /** batch() before its errors are redacted. */
  private async batchUnredacted<T>(
    calls: { method: string; params?: unknown[] | Record<string, unknown> }[],
    opts: { wallet?: boolean; signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Array<BatchEntry<T>>> {
    const url = this.urlFor(opts.wallet, calls.map((c) => c.method));
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const results: Array<BatchEntry<T> | undefined> = new Array<BatchEntry<T> | undefined>(calls.length).fill(undefined);
    for (let start = 0; start < calls.length; start += this.chunkSize) {
      let pending: number[] = [];
      for (let i = start; i < Math.min(calls.length, start + this.chunkSize); i++) pending.push(i);
      for (let attempt = 0; pending.length > 0; attempt++) {
        const sent = pending.map((index) => ({ index, id: this.nextId(), method: calls[index]!.method }));
        const body = encode(
          'batch',
          sent.map((s) => ({ jsonrpc: '2.0', id: s.id, method: s.method, params: calls[s.index]!.params ?? [] })),
        );
        const res = await this.post(url, body, timeoutMs, opts.signal);
        const redact = this.redact();
        const out = interpretBatchReply(res.status, res.body, sent, url, { contentType: res.headers['content-type'], redact });
        if (!out.ok) throw out.error;
        const warming: number[] = [];
        for (const s of sent) {
          const entry = out.entries.get(s.id)!;
          if (!entry.ok && entry.error.code === 'rpc.warming_up' && attempt < this.warmup.attempts) warming.push(s.index);
          else results[s.index] = entry.ok ? { ok: true, value: entry.value as T } : { ok: false, error: redactError(entry.error, redact) };
        }
        pending = warming;
        if (pending.length > 0) await sleep(this.warmupDelay(attempt), opts.signal);
      }
    }
    return results as Array<BatchEntry<T>>;
  }

  /** Adds credentials this client sends to what its redactor cuts. */
  private remember(creds: RpcCredentials): void {
    if (this.secrets.some((s) => s.user === creds.user && s.password === creds.password)) return;
    const authorization = `Basic ${Buffer.from(`${creds.user}:${creds.password}`, 'utf8').toString('base64')}`;
    this.secrets.push({ user: creds.user, password: creds.password, authorization, ...('cookieFile' in this.auth ? { cookie: `${creds.user}:${creds.password}` } : {}) });
    this.redactor = null;
  }

  /** The redactor for every credential this client has sent (shared/redact.ts). */
  private redact(): Redactor {
    if (this.redactor === null) {
      const each = this.secrets.map((s) => makeRedactor(s));
      this.redactor = (text) => each.reduce((t, r) => r(t), text);
    }
    return this.redactor;
  }

  /** What call() and batch() throw: an AppError with the secrets cut out (anything else is passed on for toIpcError to hide). */
  private redacted(e: unknown): unknown {
    return e instanceof AppError ? redactError(e, this.redact()) : e;
  }

  private nextId(): string {
    this.seq += 1;
    return `spyglass-${this.seq}`;
  }

  private warmupDelay(attempt: number): number {
    return Math.min(MAX_WARMUP_DELAY_MS, this.warmup.baseDelayMs * 2 ** attempt);
  }

  /**
   * `/` or `/wallet/<name>` under the base URL (a reverse proxy's path prefix is kept). A wallet RPC
   * without a wallet name is refused before anything is sent: at `/` Core would pick the only loaded wallet.
   */
  private urlFor(walletOpt: boolean | string | undefined, methods: readonly string[]): URL {
    const name = typeof walletOpt === 'string' ? walletOpt : walletOpt !== false ? this.wallet : null;
    if (name === null) {
      const walletCall = methods.find((m) => WALLET_METHODS.has(m));
      if (walletCall !== undefined) {
        throw new AppError(
          'rpc.wallet_not_specified',
          `Spyglass watches no wallet on this node, so it does not send ${walletCall} (a wallet call is always sent to one named wallet, never to whichever the node has loaded): choose a wallet on the Dashboard or in Watch a wallet, or name it in the profile.`,
          { method: walletCall, field: 'wallet' },
        );
      }
    }
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const u = new URL(this.base.href);
    u.pathname = name !== null ? `${prefix}/wallet/${encodeURIComponent(name)}` : `${prefix}/`;
    return u;
  }

  /** POSTs a body; with cookie auth a 401 makes the cookie be read again and the request sent once more. */
  private async post(url: URL, body: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<HttpResponse> {
    if (this.closed) throw new AppError('cancelled', 'The connection to the node was closed.');
    const first = await this.credentials(signal);
    const res = await this.send(url, body, first.creds, timeoutMs, signal);
    if (res.status !== 401 || first.cookie === null) return res;
    // bitcoind writes a new cookie when it restarts: read it again (unless another request already did).
    if (this.cookie === first.cookie) this.cookie = null;
    const second = await this.credentials(signal);
    return this.send(url, body, second.creds, timeoutMs, signal);
  }

  /**
   * One HTTP exchange. A reset on a kept-alive socket is tried once more on a fresh connection:
   * the node (or a proxy) may have closed the idle socket just as it was reused — after a restart
   * of bitcoind, typically — and then the request never reached it.
   */
  private async send(url: URL, body: string, creds: RpcCredentials, timeoutMs: number, signal: AbortSignal | undefined): Promise<HttpResponse> {
    const request = (): Promise<HttpResponse> =>
      httpRequest(
        {
          method: 'POST',
          url,
          headers: {
            'Content-Type': 'text/plain',
            Authorization: `Basic ${Buffer.from(`${creds.user}:${creds.password}`, 'utf8').toString('base64')}`,
          },
          body,
          timeoutMs,
          ...(signal ? { signal } : {}),
          agent: this.agent,
          maxBytes: this.maxReplyBytes,
          ...(this.ca !== undefined ? { ca: this.ca } : {}),
        },
        'the node',
      );
    const reusing = this.hasIdleSocket();
    try {
      return await request();
    } catch (e) {
      if (!reusing || !(e instanceof AppError) || e.code !== 'net.reset' || signal?.aborted || this.closed) throw e;
      return request();
    }
  }

  /** Whether the next request will go out on a kept-alive socket (this agent talks to one node only). */
  private hasIdleSocket(): boolean {
    return Object.values(this.agent.freeSockets).some((list) => (list?.length ?? 0) > 0);
  }

  /** The credentials for the next request, and the cached cookie read they came from (null: user/password). */
  private async credentials(signal: AbortSignal | undefined): Promise<{ creds: RpcCredentials; cookie: Promise<RpcCredentials> | null }> {
    if (signal?.aborted) throw new AppError('cancelled', 'The request to the node was cancelled.');
    if (!('cookieFile' in this.auth)) return { creds: { user: this.auth.user, password: this.auth.password }, cookie: null };
    const path = this.auth.cookieFile;
    let reading = this.cookie;
    if (reading === null) {
      const started: Promise<RpcCredentials> = this.readCookie(path).then(
        (creds) => {
          this.remember(creds);
          return creds;
        },
        (e: unknown) => {
          if (this.cookie === started) this.cookie = null; // a failed read is not kept
          if (e instanceof AppError) throw e;
          throw new AppError('cookie.unreadable', `Cannot read the node's cookie file ${path}.`, { path });
        },
      );
      this.cookie = started;
      reading = started;
    }
    return { creds: await reading, cookie: reading };
  }
}

function encode(method: string, payload: unknown): string {
  try {
    return JSON.stringify(payload);
  } catch (e) {
    throw new AppError('input.invalid', `The parameters of ${method} cannot be sent as JSON (${e instanceof Error ? e.message : String(e)}).`, {
      method,
    });
  }
}
