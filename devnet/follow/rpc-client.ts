/**
 * A small JSON-RPC client for the index follower: Node http(s) with keep-alive, HTTP basic auth or
 * a Core cookie file (re-read after a 401, as when the node restarted), JSON-RPC 1.0 requests and
 * batches matched by id. Only standard Bitcoin Core RPCs are sent through it.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseJson, type UValue } from '../../shared/json';

export interface FollowRpcOptions {
  /** `http://host:port` (a path such as `/wallet/x` is kept; credentials in the URL are used). */
  url: string;
  user?: string;
  password?: string;
  /** Core's `.cookie` file (`__cookie__:<hex>`); takes precedence over user/password. */
  cookieFile?: string;
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
}

/** The node answered with a JSON-RPC error. */
export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcCallError';
  }
}

/** The request failed below JSON-RPC: connection, HTTP status without a JSON body, bad credentials. */
export class RpcTransportError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'RpcTransportError';
  }
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type BatchResult<T = unknown> = { ok: true; result: T } | { ok: false; code: number; message: string };

/** The bytes of a hex string the node sent (a raw block or transaction). */
export function hexBytes(hex: string): Uint8Array {
  const b = Buffer.from(hex, 'hex');
  if (b.length * 2 !== hex.length) throw new Error('the node sent malformed hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

interface RawReply {
  status: number;
  contentType: string;
  body: string;
}

export class FollowRpc {
  readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly timeoutMs: number;
  private auth: string | null;
  private nextId = 1;

  constructor(private readonly opts: FollowRpcOptions) {
    const url = new URL(opts.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--follow-node: unsupported URL scheme '${url.protocol}' (use http:// or https://)`);
    let user = opts.user;
    let password = opts.password;
    if (url.username && user === undefined) user = decodeURIComponent(url.username);
    if (url.password && password === undefined) password = decodeURIComponent(url.password);
    url.username = '';
    url.password = '';
    if (url.pathname === '') url.pathname = '/';
    this.url = url;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.agent = url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: 4 }) : new HttpAgent({ keepAlive: true, maxSockets: 4 });
    this.auth = opts.cookieFile ? this.readCookie() : user !== undefined ? basic(`${user}:${password ?? ''}`) : null;
  }

  /** The URL without credentials, for messages. */
  get displayUrl(): string {
    return this.url.toString().replace(/\/$/, '');
  }

  private readCookie(): string {
    const file = this.opts.cookieFile!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (e) {
      throw new RpcTransportError(`cannot read the cookie file ${file}: ${(e as Error).message}`);
    }
    if (!text.includes(':')) throw new RpcTransportError(`the cookie file ${file} does not hold user:password`);
    return basic(text);
  }

  /** One call; resolves to its result or rejects with {@link RpcCallError} / {@link RpcTransportError}. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const reply = await this.post(JSON.stringify({ jsonrpc: '1.0', id, method, params }));
    const body = parseBody(reply, method) as { result?: unknown; error?: { code: number; message: string } | null };
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new RpcTransportError(`${method}: unexpected reply`, reply.status);
    if (body.error) throw new RpcCallError(method, body.error.code, body.error.message);
    return body.result as T;
  }

  /**
   * One call whose reply is parsed keeping every number's text (amounts stay exact), e.g. gettxout.
   */
  async callExact(method: string, params: unknown[] = []): Promise<UValue> {
    const id = this.nextId++;
    const reply = await this.post(JSON.stringify({ jsonrpc: '1.0', id, method, params }));
    checkReply(reply, method);
    const body = parseJson(reply.body);
    if (body.t !== 'obj') throw new RpcTransportError(`${method}: unexpected reply`, reply.status);
    const err = body.v[body.k.indexOf('error')];
    if (err && err.t === 'obj') {
      const code = err.v[err.k.indexOf('code')];
      const message = err.v[err.k.indexOf('message')];
      throw new RpcCallError(method, code?.t === 'num' ? Number(code.v) : -1, message?.t === 'str' ? message.v : 'error');
    }
    return body.v[body.k.indexOf('result')] ?? { t: 'null' };
  }

  /** A JSON-RPC batch: one result per call, in order (errors per element). */
  async batch<T = unknown>(calls: readonly RpcCall[]): Promise<BatchResult<T>[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const reply = await this.post(JSON.stringify(calls.map((c, i) => ({ jsonrpc: '1.0', id: first + i, method: c.method, params: c.params }))));
    const body = parseBody(reply, calls[0]!.method);
    if (!Array.isArray(body)) {
      // A whole-batch failure (e.g. -28 while warming up) comes back as one error object.
      const err = (body as { error?: { code: number; message: string } } | null)?.error;
      if (err) throw new RpcCallError(calls[0]!.method, err.code, err.message);
      throw new RpcTransportError('batch: unexpected reply', reply.status);
    }
    const byId = new Map<number, { result?: unknown; error?: { code: number; message: string } | null }>();
    for (const el of body as { id: unknown }[]) {
      if (el && typeof el === 'object' && typeof el.id === 'number') byId.set(el.id, el as never);
    }
    return calls.map((c, i) => {
      const el = byId.get(first + i);
      if (!el) return { ok: false, code: -32603, message: `batch: no reply for ${c.method}` };
      if (el.error) return { ok: false, code: el.error.code, message: el.error.message };
      return { ok: true, result: el.result as T };
    });
  }

  /** Like {@link batch} but rejects on the first failed element. */
  async batchAll<T = unknown>(calls: readonly RpcCall[]): Promise<T[]> {
    const results = await this.batch<T>(calls);
    return results.map((r, i) => {
      if (!r.ok) throw new RpcCallError(calls[i]!.method, r.code, r.message);
      return r.result;
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private async post(body: string): Promise<RawReply> {
    let reply = await this.send(body);
    if (reply.status === 401 && this.opts.cookieFile) {
      // The node may have restarted with a new cookie.
      this.auth = this.readCookie();
      reply = await this.send(body);
    }
    if (reply.status === 401) {
      throw new RpcTransportError(
        this.opts.cookieFile ? `401 Unauthorized: the cookie in ${this.opts.cookieFile} was refused` : '401 Unauthorized: check --rpcuser and --rpcpassword (or use --rpccookiefile)',
        401,
      );
    }
    if (reply.status === 403) throw new RpcTransportError('403 Forbidden: the node refuses these methods for this user (-rpcwhitelist)', 403);
    return reply;
  }

  private send(body: string): Promise<RawReply> {
    const request = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(body)) };
      if (this.auth) headers.Authorization = this.auth;
      const req = request(this.url, { method: 'POST', agent: this.agent, headers }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (e) => reject(new RpcTransportError(`connection to ${this.displayUrl} failed: ${e.message}`)));
      });
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no reply within ${this.timeoutMs} ms`)));
      req.on('error', (e: NodeJS.ErrnoException) => reject(new RpcTransportError(`cannot reach ${this.displayUrl}: ${e.code ?? e.message}`)));
      req.end(body);
    });
  }
}

function basic(userPass: string): string {
  return `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;
}

function checkReply(reply: RawReply, method: string): void {
  if (!reply.contentType.includes('json')) {
    const text = reply.body.replace(/\s+/g, ' ').slice(0, 120);
    throw new RpcTransportError(`${method}: HTTP ${reply.status} without a JSON body${text ? ` (${text})` : ''}`, reply.status);
  }
}

function parseBody(reply: RawReply, method: string): unknown {
  checkReply(reply, method);
  try {
    return JSON.parse(reply.body) as unknown;
  } catch {
    throw new RpcTransportError(`${method}: HTTP ${reply.status} with a broken JSON body`, reply.status);
  }
}
