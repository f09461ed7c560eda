// Typed failures that cross layers. Every failure the user can meet has a stable `code` (for tests and
// for the renderer to choose a remedy) and a `message` a person can act on. Nothing else crosses IPC:
// no stack, no cause chain, no secret.

export const ErrorCodes = [
  // node RPC (interface A)
  'rpc.unauthorized', // 401: wrong user/password or stale cookie
  'rpc.forbidden', // 403: rpcallowip does not include us
  'rpc.method_not_found', // -32601
  'rpc.wallet_not_found', // -18
  'rpc.wallet_not_specified', // -19 (several wallets loaded)
  'rpc.warming_up', // -28
  'rpc.error', // any other Core error: code + message exactly as Core wrote it
  'rpc.bad_reply', // not JSON-RPC (an HTML proxy page, truncated body, wrong id…)
  'rpc.http', // other HTTP status without a JSON-RPC body
  // block index (interface B)
  'index.unauthorized', // 401: a proxy in front of the index wants a login (the index itself has none)
  'index.forbidden', // 403: a proxy or firewall in front of the index refuses this computer
  'index.not_found', // 404
  'index.invalid', // 400: the server rejected the argument
  'index.rate_limited', // 429 after retries
  'index.bad_reply', // envelope or shape not as specified
  'index.http', // 5xx or another status
  'index.not_configured', // the profile has no index: the node wallet alone cannot answer this
  // transport, both interfaces
  'net.refused',
  'net.reset',
  'net.timeout',
  'net.dns',
  'net.tls',
  'net.unreachable',
  'cancelled',
  // app
  'chain.mismatch', // the index serves another chain than the node
  'chain.unsupported',
  'node.unsupported', // the node is too old for what was asked (descriptor wallets need Core 21.0)
  'keychain.unavailable',
  'credentials.missing',
  'cookie.unreadable',
  'input.invalid', // an IPC payload or a form field failed validation
  'profile.not_found',
  'demo.failed',
  'internal',
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];

/** The only error shape that crosses IPC or the bridge. */
export interface IpcError {
  code: ErrorCode;
  message: string;
  /** Extra facts a person may need (Core's own code, HTTP status, the field at fault). Never secrets. */
  detail?: Record<string, string | number | boolean | null>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: IpcError['detail'];
  /** For retry logic (429 Ratelimit-Reset, -28 warm-up); not sent over IPC. */
  readonly retryAfterMs: number | undefined;

  constructor(code: ErrorCode, message: string, detail?: IpcError['detail'], retryAfterMs?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.detail = detail;
    this.retryAfterMs = retryAfterMs;
  }

  toIpc(): IpcError {
    return this.detail === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, detail: this.detail };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Turns anything thrown into an IpcError; unknown errors become a generic message (their text may hold secrets). */
export function toIpcError(e: unknown): IpcError {
  if (e instanceof AppError) return e.toIpc();
  return { code: 'internal', message: 'Something went wrong inside Spyglass. The details were written to the log.' };
}

/** The reply envelope of every IPC channel (Signal's wrapResult). */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };
