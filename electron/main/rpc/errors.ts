// What a Bitcoin Core JSON-RPC reply means, as pure functions of the recorded HTTP status, content
// type and body, so every mapping is unit-testable from real captures. Core answers JSON-RPC 1.0
// (legacy) errors with HTTP 404/500 and JSON-RPC 2.0 errors with HTTP 200; both carry the same
// `{"error":{"code","message"}}` object, so the body decides, never the status alone — except 401
// and 403, whose bodies are empty and must not be parsed.
//
// Messages never contain request bodies or credentials; at most 80 characters of what the server
// sent, and only when it is not JSON-RPC. Every text taken from the reply (Core's message, a snippet
// of the body, a foreign id) passes the context's redactor before it is cut or quoted, so a node or
// proxy that echoes the Authorization header cannot put the credentials into an error (#27).
import { AppError } from '../../../shared/errors';
import { redactGeneric, type Redactor } from '../../../shared/redact';
import { hostLabel } from '../net/http';

/** Core's RPC error codes this module gives their own meaning (src/rpc/protocol.h). */
export const CORE = {
  WALLET_NOT_FOUND: -18,
  WALLET_NOT_SPECIFIED: -19,
  IN_WARMUP: -28,
  METHOD_NOT_FOUND: -32601,
} as const;

export interface ReplyContext {
  /** The reply's Content-Type header, when known. */
  contentType?: string | string[] | undefined;
  /**
   * The `id` the request carried. A JSON-RPC reply with another id is rpc.bad_reply (an error
   * object with `"id":null` is accepted: Core sends it when it could not read the request).
   * undefined: not checked.
   */
  id?: string | number | null | undefined;
  /** Cuts the connection's secrets out of the texts quoted from the reply (default: the generic rules only). */
  redact?: Redactor | undefined;
}

export type RpcOutcome = { ok: true; value: unknown } | { ok: false; error: AppError };

const SNIPPET_CHARS = 80;

/**
 * The error a reply stands for, or null when it is a successful JSON-RPC reply.
 * `method` is the RPC method called; `url` the URL the request went to (its host and any
 * `/wallet/<name>` path are used in messages; credentials in it are ignored).
 */
export function rpcErrorFromReply(status: number, body: string, method: string, url: URL | string, ctx: ReplyContext = {}): AppError | null {
  const out = interpretReply(status, body, method, url, ctx);
  return out.ok ? null : out.error;
}

/** A single (non-batch) reply: its `result`, or the error it stands for. */
export function interpretReply(status: number, body: string, method: string, url: URL | string, ctx: ReplyContext = {}): RpcOutcome {
  const u = toUrl(url);
  const redact = ctx.redact ?? redactGeneric;
  const early = statusError(status, u);
  if (early) return fail(early);
  const parsed = parseBody(body);
  if (!parsed.ok) return fail(notJsonRpc(status, body, ctx.contentType, method, u, redact));
  if (Array.isArray(parsed.value)) {
    return fail(badReply(status, body, ctx.contentType, method, u, 'A batch reply came back for a single call. A proxy or another service may be answering at this URL.', redact));
  }
  return interpretEnvelope(parsed.value, { status, body, contentType: ctx.contentType, method, url: u, id: ctx.id, redact });
}

/** One call of a batch, as sent: its id and method. */
export interface BatchCallRef {
  id: string;
  method: string;
}

/**
 * A batch reply. Replies are matched by id, not position; an id without a reply gets an
 * rpc.bad_reply entry. When the reply as a whole is not a batch reply (401, an HTML page, a single
 * error object such as a parse error…), the result is that one error.
 */
export function interpretBatchReply(
  status: number,
  body: string,
  calls: readonly BatchCallRef[],
  url: URL | string,
  ctx: { contentType?: string | string[] | undefined; redact?: Redactor | undefined } = {},
): { ok: true; entries: Map<string, RpcOutcome> } | { ok: false; error: AppError } {
  const u = toUrl(url);
  const redact = ctx.redact ?? redactGeneric;
  const batchMethod = calls.length === 1 ? (calls[0]?.method ?? 'batch') : 'batch';
  const early = statusError(status, u);
  if (early) return { ok: false, error: early };
  const parsed = parseBody(body);
  if (!parsed.ok) return { ok: false, error: notJsonRpc(status, body, ctx.contentType, batchMethod, u, redact) };
  if (!Array.isArray(parsed.value)) {
    // A request-level error (e.g. -32700) comes back as one object; anything else is not a batch reply.
    const one = interpretEnvelope(parsed.value, { status, body, contentType: ctx.contentType, method: batchMethod, url: u, id: null, redact });
    return {
      ok: false,
      error: one.ok
        ? badReply(status, body, ctx.contentType, batchMethod, u, 'A single reply came back for a batch of calls. A proxy or another service may be answering at this URL.', redact)
        : one.error,
    };
  }
  const wanted = new Map(calls.map((c) => [c.id, c]));
  const entries = new Map<string, RpcOutcome>();
  for (const element of parsed.value) {
    if (!isObject(element)) continue;
    const id = element.id;
    if (typeof id !== 'string') continue;
    const call = wanted.get(id);
    if (!call || entries.has(id)) continue;
    entries.set(id, interpretEnvelope(element, { status, body: JSON.stringify(element), contentType: ctx.contentType, method: call.method, url: u, id, redact }));
  }
  for (const c of calls) {
    if (entries.has(c.id)) continue;
    entries.set(c.id, {
      ok: false,
      error: new AppError(
        'rpc.bad_reply',
        `The node's batch reply has no answer for the call of "${c.method}" (id ${c.id}). A proxy or another service may be answering at this URL.`,
        { method: c.method, host: hostLabel(u) },
      ),
    });
  }
  return { ok: true, entries };
}

/** The AppError for a JSON-RPC error object `{code, message}` as Core wrote it. */
export function rpcErrorFromCore(code: number, message: string, method: string, url: URL | string): AppError {
  const u = toUrl(url);
  const host = hostLabel(u);
  switch (code) {
    case CORE.METHOD_NOT_FOUND:
      return new AppError('rpc.method_not_found', `The node does not know the method "${method}". It may be too old or the method may be disabled.`, {
        method,
        coreCode: code,
        host,
      });
    case CORE.WALLET_NOT_FOUND: {
      const wallet = walletOf(u);
      return new AppError(
        'rpc.wallet_not_found',
        `${sentence(message)} Load it with \`bitcoin-cli loadwallet ${wallet ?? '<name>'}\` or pick one of the loaded wallets.`,
        { coreCode: code, method, wallet, host },
      );
    }
    case CORE.WALLET_NOT_SPECIFIED:
      return new AppError('rpc.wallet_not_specified', `${sentence(message)} Several wallets are loaded: choose one in the profile.`, {
        coreCode: code,
        method,
        host,
      });
    case CORE.IN_WARMUP:
      return new AppError('rpc.warming_up', `The node is still starting up (Bitcoin Core: "${message}"). Try again in a moment.`, {
        coreCode: code,
        method,
        coreMessage: message,
        host,
      });
    default:
      return new AppError('rpc.error', `Bitcoin Core error ${code}: ${message}`, { coreCode: code, method, coreMessage: message, host });
  }
}

// ---------------------------------------------------------------------------------------------

interface EnvelopeContext {
  status: number;
  body: string;
  contentType: string | string[] | undefined;
  method: string;
  url: URL;
  id: string | number | null | undefined;
  redact: Redactor;
}

function interpretEnvelope(v: unknown, c: EnvelopeContext): RpcOutcome {
  if (!isObject(v)) return fail(notJsonRpc(c.status, c.body, c.contentType, c.method, c.url, c.redact, true));
  const err = v.error;
  if (err !== undefined && err !== null) {
    if (!isObject(err) || typeof err.code !== 'number' || !Number.isInteger(err.code) || typeof err.message !== 'string') {
      return fail(notJsonRpc(c.status, c.body, c.contentType, c.method, c.url, c.redact, true));
    }
    if (c.id !== undefined && v.id !== null && v.id !== c.id) return fail(idMismatch(v.id, c));
    return fail(rpcErrorFromCore(err.code, c.redact(err.message), c.method, c.url));
  }
  if (!('result' in v)) return fail(notJsonRpc(c.status, c.body, c.contentType, c.method, c.url, c.redact, true));
  if (c.id !== undefined && v.id !== c.id) return fail(idMismatch(v.id, c));
  return { ok: true, value: v.result };
}

/** 401 and 403: Core's bodies are empty (libevent); never parse them. */
function statusError(status: number, url: URL): AppError | null {
  if (status === 401) {
    return new AppError(
      'rpc.unauthorized',
      'The node rejected the RPC user name or password (HTTP 401). Check rpcuser/rpcpassword or rpcauth in bitcoin.conf — or, with cookie auth, that the cookie file belongs to the running node.',
      { status, host: hostLabel(url) },
    );
  }
  if (status === 403) {
    return new AppError('rpc.forbidden', 'The node refused this computer (HTTP 403): its address is not allowed by rpcallowip in bitcoin.conf.', {
      status,
      host: hostLabel(url),
    });
  }
  return null;
}

function parseBody(body: string): { ok: true; value: unknown } | { ok: false } {
  if (body.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * A body that is not JSON-RPC. Non-2xx replies in plain words ("Work queue depth exceeded",
 * "502: Bad Gateway", an empty 404) are rpc.http with the status; HTML pages, broken JSON and any
 * 2xx reply that is not JSON-RPC are rpc.bad_reply.
 */
function notJsonRpc(status: number, body: string, contentType: string | string[] | undefined, method: string, url: URL, redact: Redactor, isJson = false): AppError {
  const type = mediaType(contentType);
  // libevent labels every non-JSON reply text/html, even empty or plain ones: look at the markup.
  const html = looksLikeHtml(body);
  const jsonish = isJson || type.includes('json') || /^\s*[[{]/.test(body);
  const success = status >= 200 && status < 300;
  if (!success && !html && !jsonish) return httpError(status, body, method, url, redact);
  const hint = jsonish
    ? isJson
      ? 'It is JSON but not a JSON-RPC reply. A proxy or another service may be answering at this URL.'
      : 'The JSON is cut off or malformed: the connection may have dropped, or a proxy or another service may be answering at this URL.'
    : 'A proxy or another service may be answering at this URL.';
  return badReply(status, body, contentType, method, url, hint, redact);
}

function badReply(status: number, body: string, contentType: string | string[] | undefined, method: string, url: URL, hint: string, redact: Redactor): AppError {
  const type = mediaType(contentType) || 'no content type';
  const text = snippet(body, looksLikeHtml(body), redact);
  const what = text === '' ? `HTTP ${status}, ${type}, empty body` : `HTTP ${status}, ${type}: "${text}"`;
  return new AppError('rpc.bad_reply', `The node's reply is not JSON-RPC (${what}). ${hint}`, {
    status,
    contentType: type,
    method,
    host: hostLabel(url),
  });
}

function idMismatch(got: unknown, c: EnvelopeContext): AppError {
  const shown = got === undefined ? 'no id' : `id ${clip(c.redact(JSON.stringify(got)), 40)}`;
  return new AppError(
    'rpc.bad_reply',
    `The node's reply belongs to another request (${shown} instead of ${JSON.stringify(c.id)}). A proxy or another service may be answering at this URL.`,
    { status: c.status, method: c.method, host: hostLabel(c.url) },
  );
}

function httpError(status: number, body: string, method: string, url: URL, redact: Redactor): AppError {
  const text = snippet(body, false, redact);
  const host = hostLabel(url);
  let hint: string;
  if (status === 503 && /work queue depth exceeded/i.test(body)) {
    hint = 'Too many requests are waiting at the node: try again shortly, or raise rpcworkqueue in bitcoin.conf.';
  } else if (status === 503) hint = 'The node is unavailable for now: try again shortly.';
  else if (status === 500) hint = 'The node failed while answering; its debug.log may say why.';
  else if (status === 502 || status === 504) hint = 'A proxy in front of the node could not get an answer from it: check that bitcoind is running behind the proxy.';
  else if (status === 404) hint = 'Nothing answers JSON-RPC at this path: the URL should be only scheme, host and port (e.g. http://127.0.0.1:8332).';
  else hint = 'Check that the URL points at the node\'s RPC port.';
  return new AppError('rpc.http', `The node at ${host} answered HTTP ${status}${text ? ` ("${text}")` : ''} instead of a JSON-RPC reply. ${hint}`, {
    status,
    method,
    host,
  });
}

function looksLikeHtml(body: string): boolean {
  return /^\s*<(!doctype|html|head|body|\?xml)/i.test(body) || /<\/?[a-z][a-z0-9]*(\s[^>]*)?>/i.test(body);
}

function mediaType(contentType: string | string[] | undefined): string {
  const ct = Array.isArray(contentType) ? contentType[0] : contentType;
  return (ct ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * At most 80 characters of the visible text of a body (tags, scripts and styles dropped for HTML),
 * redacted before it is cut: a cut could otherwise leave the start of a secret that no longer matches.
 */
export function snippet(body: string, html: boolean, redact: Redactor = redactGeneric): string {
  let text = body;
  if (html) {
    text = text
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/gi, ' ')
      .replace(/&lt;/gi, '<')
      .replace(/&gt;/gi, '>')
      .replace(/&quot;/gi, '"')
      .replace(/&#39;|&apos;/gi, "'")
      .replace(/&amp;/gi, '&');
  }
  // eslint-disable-next-line no-control-regex
  text = redact(text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim());
  return clip(text, SNIPPET_CHARS);
}

function clip(s: string, n: number): string {
  const chars = Array.from(s);
  return chars.length > n ? `${chars.slice(0, n).join('')}…` : s;
}

/** Core's message as a sentence, so a remedy can follow it. */
function sentence(message: string): string {
  const m = message.trim();
  return /[.!?]$/.test(m) ? m : `${m}.`;
}

/** The wallet name of a `/wallet/<name>` URL, or null. */
function walletOf(url: URL): string | null {
  const m = /\/wallet\/([^/]*)$/.exec(url.pathname);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

function toUrl(url: URL | string): URL {
  if (typeof url !== 'string') return url;
  try {
    return new URL(url);
  } catch {
    return new URL('http://invalid');
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(error: AppError): RpcOutcome {
  return { ok: false, error };
}
