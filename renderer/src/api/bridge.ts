// The loopback bridge client: the same `SpyglassApi` as the Electron preload, over HTTP to the
// Spyglass process that served this page (`npm run web`, the browser e2e). Same origin, so every
// path is relative. The bridge token arrives once in the address (`?bridgeToken=…`), is kept in
// sessionStorage for reloads of this tab and is removed from the address bar at once.
import type { Channel, EventName, Events, Reply, Request, SpyglassApi } from '../../../shared/ipc/contract';
import type { IpcError, IpcResult } from '../../../shared/errors';

export const TOKEN_KEY = 'spyglass.bridgeToken';
const TOKEN_PARAM = 'bridgeToken';

/** What the bridge client needs from the page; injected so it can be tested without a browser. */
export interface BridgeEnv {
  location: Pick<Location, 'search' | 'pathname' | 'hash'>;
  history: Pick<History, 'replaceState' | 'state'>;
  sessionStorage: Pick<Storage, 'getItem' | 'setItem'>;
  fetch: typeof fetch;
  EventSource: new (url: string) => EventSourceLike;
}

export interface EventSourceLike {
  addEventListener(type: string, listener: (e: MessageEvent) => void): void;
  removeEventListener?(type: string, listener: (e: MessageEvent) => void): void;
  close(): void;
}

function browserEnv(): BridgeEnv {
  return {
    location: window.location,
    history: window.history,
    sessionStorage: window.sessionStorage,
    fetch: window.fetch.bind(window),
    EventSource: window.EventSource,
  };
}

/** Reads the token from the address (then strips it, keeping the hash) or from sessionStorage. */
export function takeBridgeToken(env: Pick<BridgeEnv, 'location' | 'history' | 'sessionStorage'>): string | null {
  const params = new URLSearchParams(env.location.search);
  const fromUrl = params.get(TOKEN_PARAM);
  if (fromUrl !== null && fromUrl !== '') {
    env.sessionStorage.setItem(TOKEN_KEY, fromUrl);
    params.delete(TOKEN_PARAM);
    const rest = params.toString();
    env.history.replaceState(env.history.state, '', `${env.location.pathname}${rest === '' ? '' : `?${rest}`}${env.location.hash}`);
    return fromUrl;
  }
  const stored = env.sessionStorage.getItem(TOKEN_KEY);
  return stored === null || stored === '' ? null : stored;
}

function unreachable(why: string): { ok: false; error: IpcError } {
  return { ok: false, error: { code: 'internal', message: `The Spyglass bridge is not reachable: ${why}` } };
}

function isIpcResult(v: unknown): v is IpcResult<unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as { ok?: unknown; error?: unknown };
  if (r.ok === true) return 'value' in r;
  if (r.ok === false) {
    const e = r.error as { code?: unknown; message?: unknown } | null | undefined;
    return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.message === 'string';
  }
  return false;
}

/**
 * The IpcResult of one bridge request (its fetch, as sent): the bridge's own reply, or an `internal`
 * error saying why there is none. Also takes the replies of the calls public/early.js sent.
 */
export async function bridgeResult<T>(response: Promise<Pick<Response, 'status' | 'statusText' | 'json'>>): Promise<IpcResult<T>> {
  let res: Pick<Response, 'status' | 'statusText' | 'json'>;
  try {
    res = await response;
  } catch (e) {
    return unreachable(`the request failed (${e instanceof Error ? e.message : String(e)}). Is Spyglass still running?`);
  }
  if (res.status === 401 || res.status === 403) return unreachable(`it refused this page's token (HTTP ${res.status}). Open the address Spyglass printed when it started.`);
  if (res.status !== 200) return unreachable(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return unreachable('the reply was not JSON');
  }
  if (!isIpcResult(body)) return unreachable('the reply was not a Spyglass result');
  return body as IpcResult<T>;
}

export function createBridgeApi(env: BridgeEnv = browserEnv()): SpyglassApi {
  const token = takeBridgeToken(env);
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const attached = new Set<EventName>();
  let source: EventSourceLike | null = null;

  function open(): EventSourceLike | null {
    if (source !== null) return source;
    if (token === null) return null;
    source = new env.EventSource(`/events?token=${encodeURIComponent(token)}`);
    return source;
  }

  function attach(event: EventName): void {
    const es = open();
    if (es === null || attached.has(event)) return;
    attached.add(event);
    es.addEventListener(event, (e: MessageEvent) => {
      let payload: unknown;
      try {
        payload = JSON.parse(String(e.data));
      } catch {
        return; // a malformed event is dropped; the next status call corrects the state
      }
      for (const l of [...(listeners.get(event) ?? [])]) (l as (p: unknown) => void)(payload);
    });
  }

  async function invoke<C extends Channel>(channel: C, request: Request<C>): Promise<IpcResult<Reply<C>>> {
    if (token === null) return unreachable('this page was opened without a bridge token. Open the address Spyglass printed when it started.');
    return bridgeResult<Reply<C>>(
      env.fetch(`/ipc/${channel}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(request),
      }),
    );
  }

  function on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void {
    let set = listeners.get(event);
    if (set === undefined) {
      set = new Set();
      listeners.set(event, set);
    }
    const l = listener as (payload: never) => void;
    set.add(l);
    attach(event);
    return () => {
      set.delete(l);
    };
  }

  function onEventsOpen(listener: () => void): () => void {
    const es = open();
    if (es === null) return () => {};
    const l = (): void => listener();
    es.addEventListener('open', l);
    return () => es.removeEventListener?.('open', l);
  }

  return { invoke, on, onEventsOpen };
}
