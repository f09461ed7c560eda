import { describe, expect, it } from 'vitest';
import { createBridgeApi, TOKEN_KEY, type BridgeEnv, type EventSourceLike } from '../../renderer/src/api/bridge';

class FakeEventSource implements EventSourceLike {
  static made: FakeEventSource[] = [];
  readonly handlers = new Map<string, ((e: MessageEvent) => void)[]>();
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.made.push(this);
  }
  addEventListener(type: string, listener: (e: MessageEvent) => void): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
  }
  send(type: string, data: string): void {
    for (const h of this.handlers.get(type) ?? []) h({ data } as MessageEvent);
  }
}

function env(search: string, fetchImpl: typeof fetch, stored: string | null = null) {
  const storage = new Map<string, string>();
  if (stored !== null) storage.set(TOKEN_KEY, stored);
  const replaced: string[] = [];
  FakeEventSource.made = [];
  const e: BridgeEnv = {
    location: { search, pathname: '/', hash: '#/settings' },
    history: { state: null, replaceState: (_s: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)) },
    sessionStorage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v) },
    fetch: fetchImpl,
    EventSource: FakeEventSource,
  };
  return { e, storage, replaced };
}

const ok = (value: unknown) => new Response(JSON.stringify({ ok: true, value }), { status: 200, headers: { 'Content-Type': 'application/json' } });

describe('bridge client', () => {
  it('takes the token from the address, keeps it for the tab and strips it, keeping the hash', async () => {
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    const { e, storage, replaced } = env('?bridgeToken=abc123&x=1', async (url, init) => {
      seen.push({ url: String(url), init });
      return ok({ state: 'none' });
    });
    const api = createBridgeApi(e);
    expect(storage.get(TOKEN_KEY)).toBe('abc123');
    expect(replaced).toEqual(['/?x=1#/settings']);
    expect(await api.invoke('connection:status', {})).toEqual({ ok: true, value: { state: 'none' } });
    expect(seen[0]?.url).toBe('/ipc/connection:status');
    expect(seen[0]?.init?.method).toBe('POST');
    expect(seen[0]?.init?.headers).toEqual({ 'Content-Type': 'application/json', Authorization: 'Bearer abc123' });
    expect(seen[0]?.init?.body).toBe('{}');
  });

  it('uses the stored token after a reload', async () => {
    let auth = '';
    const { e, replaced } = env('', async (_url, init) => {
      auth = (init?.headers as Record<string, string>).Authorization ?? '';
      return ok({ state: 'none' });
    }, 'fromsession');
    await createBridgeApi(e).invoke('connection:status', {});
    expect(auth).toBe('Bearer fromsession');
    expect(replaced).toEqual([]);
  });

  it('passes an error envelope through unchanged', async () => {
    const error = { code: 'rpc.unauthorized', message: 'The node refused the user name or password' };
    const { e } = env('?bridgeToken=t', async () => new Response(JSON.stringify({ ok: false, error }), { status: 200 }));
    expect(await createBridgeApi(e).invoke('connection:refresh', {})).toEqual({ ok: false, error });
  });

  it('a network failure, a non-200 or a non-result body becomes an internal "not reachable" error', async () => {
    const cases: [typeof fetch, string][] = [
      [async () => { throw new TypeError('Failed to fetch'); }, 'Failed to fetch'],
      [async () => new Response('nope', { status: 502, statusText: 'Bad Gateway' }), 'HTTP 502'],
      [async () => new Response('nope', { status: 401 }), 'HTTP 401'],
      [async () => new Response('<html>', { status: 200 }), 'not JSON'],
      [async () => new Response('{"hello":1}', { status: 200 }), 'not a Spyglass result'],
    ];
    for (const [f, words] of cases) {
      const { e } = env('?bridgeToken=t', f);
      const r = await createBridgeApi(e).invoke('app:info', {});
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('internal');
      expect(r.error.message).toMatch(/^The Spyglass bridge is not reachable: /);
      expect(r.error.message).toContain(words);
    }
  });

  it('without any token it does not call the bridge', async () => {
    let called = false;
    const { e } = env('', async () => { called = true; return ok(null); });
    const r = await createBridgeApi(e).invoke('app:info', {});
    expect(called).toBe(false);
    expect(r.ok).toBe(false);
  });

  it('shares one EventSource between listeners and delivers parsed payloads', () => {
    const { e } = env('?bridgeToken=a b', async () => ok(null));
    const api = createBridgeApi(e);
    const got1: unknown[] = [];
    const got2: unknown[] = [];
    const off1 = api.on('connection:changed', (p) => got1.push(p));
    api.on('connection:changed', (p) => got2.push(p));
    expect(FakeEventSource.made).toHaveLength(1);
    const es = FakeEventSource.made[0]!;
    expect(es.url).toBe('/events?token=a%20b');
    expect(es.handlers.get('connection:changed')).toHaveLength(1);
    es.send('connection:changed', '{"state":"none"}');
    es.send('connection:changed', 'not json');
    off1();
    es.send('connection:changed', '{"state":"connecting","profileId":"p1"}');
    expect(got1).toEqual([{ state: 'none' }]);
    expect(got2).toEqual([{ state: 'none' }, { state: 'connecting', profileId: 'p1' }]);
  });

  it('onEventsOpen runs on every opening of that same EventSource (the first, and each reconnect)', () => {
    const { e } = env('?bridgeToken=t', async () => ok(null));
    const api = createBridgeApi(e);
    api.on('watch:changed', () => {});
    let opened = 0;
    api.onEventsOpen!(() => opened++);
    expect(FakeEventSource.made).toHaveLength(1);
    const es = FakeEventSource.made[0]!;
    es.send('open', '');
    es.send('open', ''); // EventSource reconnected
    expect(opened).toBe(2);
  });
});
