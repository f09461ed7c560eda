// The calls the first screen waits for, sent the moment the renderer's code starts to run: before
// Vue, the router and the views are even evaluated, and in parallel with mounting them (boot.ts is
// the first module main.ts imports). The typed helpers in ./spyglass.ts take each reply once instead
// of asking again; whatever the first screen did not take is dropped once it is up
// (dropEarlyCalls), so no later call ever gets an old reply.
import type { Reply, Request } from '../../../shared/ipc/contract';
import { call } from './client';

export type EarlyChannel = 'connection:status' | 'profiles:list' | 'keychain:status' | 'watch:overview';

const early = new Map<EarlyChannel, Promise<unknown>>();

/** Whether the app opens on the balances for this address hash (the router's start routes that can lead there). */
export function mayOpenOnBalances(hash: string): boolean {
  const path = hash.replace(/^#/, '').split('?')[0] ?? '';
  return path === '' || path === '/' || path === '/balances';
}

function send<C extends EarlyChannel>(channel: C): void {
  const p = call(channel, {} as Request<C>); // these channels take no arguments
  p.catch(() => {}); // the helper that takes it sees the rejection; until then it is not unhandled
  early.set(channel, p);
}

/**
 * Sends the first screen's calls: the connection state and the profiles (the router's first
 * navigation waits for both), and the balances overview when the app may open on it (its rows are
 * the largest reply by far, and nothing else waits for it on the server side, so it goes last).
 */
export function startEarlyCalls(hash: string): void {
  send('connection:status');
  send('profiles:list');
  send('keychain:status');
  if (mayOpenOnBalances(hash)) send('watch:overview');
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
