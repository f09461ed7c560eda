// The only code that touches `window.api`. In Electron the preload exposes it; in a browser the
// bridge client stands in with the same interface. Everything else in the renderer calls the typed
// helpers in ./spyglass.ts, which unwrap the IpcResult envelope.
import type { Channel, Reply, Request, SpyglassApi } from '../../../shared/ipc/contract';
import type { ErrorCode, IpcError, IpcResult } from '../../../shared/errors';
import { createBridgeApi } from './bridge';

let current: SpyglassApi | null = null;

export function getApi(): SpyglassApi {
  if (current !== null) return current;
  current = typeof window !== 'undefined' && window.api !== undefined ? window.api : createBridgeApi();
  return current;
}

/** Replaces the api (unit tests hand in a fake preload; `null` goes back to detection). */
export function setApi(api: SpyglassApi | null): void {
  current = api;
}

/** A failed IPC call: the IpcError that crossed the boundary, as an Error to throw. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly detail: IpcError['detail'];

  constructor(error: IpcError) {
    super(error.message);
    this.name = 'ApiError';
    this.code = error.code;
    this.detail = error.detail;
  }

  toIpc(): IpcError {
    return this.detail === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, detail: this.detail };
  }
}

/** Any thrown value as an IpcError a person can read (a bug in the renderer becomes `internal`). */
export function asIpcError(e: unknown): IpcError {
  if (e instanceof ApiError) return e.toIpc();
  return { code: 'internal', message: `Something went wrong in the Spyglass window: ${e instanceof Error ? e.message : String(e)}` };
}

/** Invokes a channel and returns its value, or throws an ApiError carrying the IpcError. */
export function call<C extends Channel>(channel: C, request: Request<C>): Promise<Reply<C>> {
  let invoked: Promise<IpcResult<Reply<C>>>;
  try {
    invoked = getApi().invoke(channel, request);
  } catch (e) {
    invoked = Promise.reject(e);
  }
  return unwrap(invoked);
}

/** The value of an invoke's result, or an ApiError carrying its IpcError. */
export async function unwrap<T>(invoked: Promise<IpcResult<T>>): Promise<T> {
  let result;
  try {
    result = await invoked;
  } catch (e) {
    // The preload rejects only when IPC itself broke (main gone, channel refused).
    throw new ApiError({ code: 'internal', message: `Spyglass did not answer: ${e instanceof Error ? e.message : String(e)}` });
  }
  if (result.ok) return result.value;
  throw new ApiError(result.error);
}
