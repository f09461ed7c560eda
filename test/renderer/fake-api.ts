// A stand-in for the Electron preload: answers channels from a table and lets a test push events.
// Only the renderer's own logic is under test here; the real stack runs in the Chromium e2e.
import type { Channel, EventName, Events, ProfileView, Reply, Request, SpyglassApi, ConnectionReport } from '../../shared/ipc/contract';
import type { IpcError, IpcResult } from '../../shared/errors';

type Handler<C extends Channel> = (req: Request<C>) => IpcResult<Reply<C>> | Promise<IpcResult<Reply<C>>>;

export interface FakeApi extends SpyglassApi {
  calls: { channel: Channel; request: unknown }[];
  handle<C extends Channel>(channel: C, handler: Handler<C> | Reply<C>): void;
  fail(channel: Channel, error: IpcError): void;
  emit<E extends EventName>(event: E, payload: Events[E]): void;
  listenerCount(event: EventName): number;
  /** The bridge's event stream opening (onEventsOpen listeners run). */
  openEvents(): void;
}

export function fakeApi(): FakeApi {
  const handlers = new Map<Channel, Handler<Channel>>();
  const listeners = new Map<EventName, Set<(p: never) => void>>();
  const calls: { channel: Channel; request: unknown }[] = [];
  const openListeners = new Set<() => void>();
  return {
    calls,
    async invoke<C extends Channel>(channel: C, request: Request<C>): Promise<IpcResult<Reply<C>>> {
      calls.push({ channel, request });
      const h = handlers.get(channel) as Handler<C> | undefined;
      if (h === undefined) return { ok: false, error: { code: 'internal', message: `fake: no handler for ${channel}` } };
      return h(request);
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E]) => void) {
      let set = listeners.get(event);
      if (set === undefined) listeners.set(event, (set = new Set()));
      set.add(listener as (p: never) => void);
      return () => set.delete(listener as (p: never) => void);
    },
    handle<C extends Channel>(channel: C, handler: Handler<C> | Reply<C>) {
      const h: Handler<C> = typeof handler === 'function' ? (handler as Handler<C>) : () => ({ ok: true, value: handler as Reply<C> });
      handlers.set(channel, h as unknown as Handler<Channel>);
    },
    fail(channel: Channel, error: IpcError) {
      handlers.set(channel, () => ({ ok: false, error }));
    },
    emit<E extends EventName>(event: E, payload: Events[E]) {
      for (const l of listeners.get(event) ?? []) (l as (p: Events[E]) => void)(payload);
    },
    listenerCount(event: EventName) {
      return listeners.get(event)?.size ?? 0;
    },
    onEventsOpen(listener: () => void) {
      openListeners.add(listener);
      return () => openListeners.delete(listener);
    },
    openEvents() {
      for (const l of [...openListeners]) l();
    },
  };
}

export function profileView(over: Partial<ProfileView> = {}): ProfileView {
  return {
    id: 'p1',
    name: 'Home node',
    nodeUrl: 'http://127.0.0.1:8332',
    auth: 'password',
    rpcUser: 'spy',
    cookiePath: '',
    wallet: 'watch',
    indexUrl: 'http://127.0.0.1:8000',
    passwordStorage: 'keychain',
    isDemo: false,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    lastError: null,
    ...over,
  };
}

export function report(over: Partial<ConnectionReport> = {}): ConnectionReport {
  return {
    node: {
      version: 300000,
      subversion: '/Satoshi:30.0.0/',
      chain: 'regtest',
      blocks: 201,
      headers: 201,
      bestBlockHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
      initialBlockDownload: false,
      verificationProgress: 1,
      wallet: 'watch',
      walletKind: 'watch-only',
      walletFrom: 'profile',
      walletsLoaded: ['watch'],
    },
    index: { source: 'index', height: 201, bestBlockHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', genesisHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206' },
    network: 'regtest',
    warnings: [],
    checkedAt: '2025-01-01T00:00:00.000Z',
    ...over,
  };
}
