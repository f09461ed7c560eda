// The calls the first screen waits for, sent before the app is even evaluated and in parallel with
// mounting it: public/early.js sends them while the page is parsed, and when it could not (or a test
// starts the app without it) boot.ts — the first module main.ts imports — does. The typed helpers in
// ./spyglass.ts take each reply once instead of asking again; whatever the first screen did not
// take is dropped once it is up (dropEarlyCalls), so no later call ever gets an old reply.
import type { Channel, Reply, Request } from '../../../shared/ipc/contract';
import type { IpcResult } from '../../../shared/errors';
import { bridgeResult } from './bridge';
import { call, unwrap } from './client';
import { readSort } from '../stores/watch-prefs';

export type EarlyChannel = 'connection:status' | 'profiles:list' | 'keychain:status' | 'watch:overview' | 'wallet:history';

const early = new Map<EarlyChannel, Promise<unknown>>();

/** Whether the app opens on the balances for this address hash (the router's start routes that can lead there). */
export function mayOpenOnBalances(hash: string): boolean {
  const path = hash.replace(/^#/, '').split('?')[0] ?? '';
  return path === '' || path === '/' || path === '/balances';
}

/** Whether the app opens on the wallet's transactions (Transactions asks for them at once; a large reply). */
export function opensOnTransactions(hash: string): boolean {
  return (hash.replace(/^#/, '').split('?')[0] ?? '') === '/transactions';
}

/** A bridge reply as public/early.js read it: the status, and the parsed body (undefined when it was not JSON). */
export interface PageReply {
  status: number;
  statusText: string;
  json: unknown;
}

/** What public/early.js leaves on the window: the preload's invoke results, or the bridge's replies. */
export type PageEarlyCalls =
  | { kind: 'ipc'; calls: Partial<Record<Channel, Promise<IpcResult<unknown>>>> }
  | { kind: 'http'; calls: Partial<Record<Channel, Promise<PageReply>>> };

declare global {
  interface Window {
    __spyglassEarly?: PageEarlyCalls;
  }
}

function keep<C extends EarlyChannel>(channel: C, p: Promise<Reply<C>>): void {
  p.catch(() => {}); // the helper that takes it sees the rejection; until then it is not unhandled
  early.set(channel, p);
}

/** The reply of a call public/early.js sent, through the same checks as any call; null when it sent none. */
function fromPage<C extends EarlyChannel>(page: PageEarlyCalls | undefined, channel: C): Promise<Reply<C>> | null {
  const sent = page?.calls[channel];
  if (page === undefined || sent === undefined) return null;
  if (page.kind === 'ipc') return unwrap(sent as Promise<IpcResult<Reply<C>>>);
  const response = (sent as Promise<PageReply>).then((r) => ({
    status: r.status,
    statusText: r.statusText,
    json: () => (r.json === undefined ? Promise.reject(new Error('not JSON')) : Promise.resolve(r.json)),
  }));
  return unwrap(bridgeResult<Reply<C>>(response));
}

/**
 * Sends the first screen's calls (or takes over those public/early.js sent): the connection state
 * and the profiles (the router's first navigation waits for both), and the balances overview when
 * the app may open on it (the largest reply by far, so it goes last).
 */
export function startEarlyCalls(hash: string, page: PageEarlyCalls | undefined = typeof window === 'undefined' ? undefined : window.__spyglassEarly): void {
  if (typeof window !== 'undefined') delete window.__spyglassEarly;
  const channels: EarlyChannel[] = ['connection:status', 'profiles:list', 'keychain:status'];
  if (mayOpenOnBalances(hash)) channels.push('watch:overview');
  if (opensOnTransactions(hash)) channels.push('wallet:history');
  for (const c of channels) keep(c, fromPage(page, c) ?? call(c, earlyRequest(c)));
}

/**
 * What an early call asks: nothing, but the overview, whose first page (a large wallet's) comes in the
 * order the window kept (as public/early.js asks it; the store asks again when its order differs).
 */
function earlyRequest<C extends EarlyChannel>(channel: C): Request<C> {
  if (channel !== 'watch:overview') return {} as Request<C>;
  const sort = readSort();
  return { page: { query: { sort: sort.key, dir: sort.dir, filter: '', showHidden: false } } } as Request<C>;
}

/** Whether the early call of `channel` is there to be taken. */
export function hasEarly(channel: EarlyChannel): boolean {
  return early.has(channel);
}

/** The early call of `channel`, at most once; null when there is none. */
export function takeEarly<C extends EarlyChannel>(channel: C): Promise<Reply<C>> | null {
  const p = early.get(channel);
  if (p === undefined) return null;
  early.delete(channel);
  return p as Promise<Reply<C>>;
}

/** Forgets the early calls nobody took: from now on every call asks main afresh. */
export function dropEarlyCalls(): void {
  early.clear();
}
