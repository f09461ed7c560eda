/** A minimal JSON-RPC client for tests (raw bodies in, parsed replies out), usable against the devnet or a real bitcoind. */
export interface RawReply {
  status: number;
  contentType: string;
  text: string;
  headers: Headers;
}

export class TestRpc {
  private n = 0;
  constructor(
    readonly url: string,
    private readonly user: string,
    private readonly password: string,
  ) {}

  authHeader(): string {
    return `Basic ${Buffer.from(`${this.user}:${this.password}`).toString('base64')}`;
  }

  /** Sends `body` verbatim (as the recordings do) to `path`. */
  async raw(path: string, body: string, opts: { method?: string; auth?: string | null; signal?: AbortSignal } = {}): Promise<RawReply> {
    const headers: Record<string, string> = { 'Content-Type': 'text/plain' };
    const auth = opts.auth === undefined ? this.authHeader() : opts.auth;
    if (auth !== null) headers.Authorization = auth;
    const res = await fetch(this.url + path, {
      method: opts.method ?? 'POST',
      headers,
      body: ['GET', 'HEAD'].includes(opts.method ?? 'POST') ? undefined : body,
      signal: opts.signal,
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text(), headers: res.headers };
  }

  /** Calls a method and returns its result; throws an Error carrying `code` on an RPC error. */
  async call<T = unknown>(method: string, params: unknown[] | Record<string, unknown> = [], wallet?: string): Promise<T> {
    const path = wallet === undefined ? '/' : `/wallet/${encodeURIComponent(wallet)}`;
    const reply = await this.raw(path, JSON.stringify({ jsonrpc: '1.0', id: `t${++this.n}`, method, params }));
    if (!reply.contentType.includes('json')) throw new Error(`HTTP ${reply.status}: ${reply.text}`);
    const body = JSON.parse(reply.text) as { result: T; error: { code: number; message: string } | null };
    if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
    return body.result;
  }
}

/** Key order and JSON types of a value, recursively (arrays: shape of the first element). */
export function shapeOf(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length ? [shapeOf(v[0])] : [];
  if (typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shapeOf(x)]));
  }
  return typeof v;
}

/** Every number token written with exactly 8 decimals under one of `keys` (Core's amount format). */
export function amountTokens(text: string, keys: string[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    const re = new RegExp(`"${k}":(-?[0-9][0-9.eE+-]*)`, 'g');
    for (const m of text.matchAll(re)) out.push(m[1]!);
  }
  return out;
}
