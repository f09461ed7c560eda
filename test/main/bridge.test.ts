// The loopback bridge's own guards, over real HTTP: loopback bind, bearer token, Host and Origin
// checks, body cap, channel validation, static files without path traversal, and events.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../electron/main/bridge';
import { silentLogger } from '../../electron/main/log';
import type { ConnectionState } from '../../shared/ipc/contract';

let bridge: Bridge;
let dir: string;
const listeners = new Set<(s: ConnectionState) => void>();
const dispatched: { channel: string; payload: unknown }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-bridge-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Spyglass</title>');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'index-Ab3_x-9Z.js'), 'export {};');
  writeFileSync(join(dir, 'early.js'), ';');
  bridge = await startBridge({
    dispatch: async (channel, payload) => {
      dispatched.push({ channel, payload });
      return { ok: true, value: { echoed: channel } };
    },
    subscribe: (_event, fn) => {
      listeners.add(fn as (s: ConnectionState) => void);
      return () => listeners.delete(fn as (s: ConnectionState) => void);
    },
    staticDir: dir,
    log: silentLogger,
    maxBodyBytes: 1024,
  });
});

afterAll(async () => {
  await bridge?.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: bridge.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const auth = () => ({ Authorization: `Bearer ${bridge.token}`, 'Content-Type': 'application/json' });

describe('bridge', () => {
  it('binds 127.0.0.1 only and hands out a long random token', () => {
    expect(bridge.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bridge.token).toMatch(/^[0-9a-f]{64}$/);
    expect(bridge.pageUrl).toBe(`${bridge.origin}/?bridgeToken=${bridge.token}`);
  });

  it('carries an IPC call with the right token', async () => {
    const r = await request('/ipc/connection:status', { method: 'POST', headers: auth(), body: '{"a":1}' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ok: true, value: { echoed: 'connection:status' } });
    expect(dispatched.at(-1)).toEqual({ channel: 'connection:status', payload: { a: 1 } });
  });

  it.each([
    ['no token', {}, 401],
    ['wrong token', { Authorization: 'Bearer 00' }, 401],
    ['token of the same length but wrong', { Authorization: `Bearer ${'0'.repeat(64)}` }, 401],
  ])('refuses a call with %s', async (_what, headers, status) => {
    const before = dispatched.length;
    const r = await request('/ipc/connection:status', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });
    expect(r.status).toBe(status);
    expect(JSON.parse(r.body).error.message).toContain('bridge token');
    expect(dispatched.length).toBe(before);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin (another site in the browser)', async () => {
    expect((await request('/ipc/connection:status', { method: 'POST', headers: { ...auth(), Host: 'evil.example' }, body: '{}' })).status).toBe(421);
    expect((await request('/ipc/connection:status', { method: 'POST', headers: { ...auth(), Origin: 'https://evil.example' }, body: '{}' })).status).toBe(403);
    expect((await request('/', { headers: { Host: `attacker.test:${bridge.port}` } })).status).toBe(421);
  });

  it('refuses GET on a channel, non-JSON bodies and bodies over the cap', async () => {
    expect((await request('/ipc/connection:status', { headers: auth() })).status).toBe(405);
    expect((await request('/ipc/connection:status', { method: 'POST', headers: { ...auth(), 'Content-Type': 'text/plain' }, body: '{}' })).status).toBe(415);
    const bad = await request('/ipc/connection:status', { method: 'POST', headers: auth(), body: '{not json' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe('The request body is not JSON.');
    const big = await request('/ipc/connection:status', { method: 'POST', headers: auth(), body: JSON.stringify({ x: 'y'.repeat(5000) }) }).catch((e: Error) => ({ status: -1, body: e.message, headers: {} }));
    expect([413, -1]).toContain(big.status); // 413, or the socket closed while we were still sending
  });

  it('serves the renderer with the CSP and no path traversal', async () => {
    const page = await request('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect((await request('/../../etc/passwd')).status).toBe(404);
    expect((await request('/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    expect((await request('/nope.js')).status).toBe(404);
  });

  it('lets the browser keep only the content-hashed build files; the page, early.js and replies stay no-store', async () => {
    const asset = await request('/assets/index-Ab3_x-9Z.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toContain("default-src 'self'");
    for (const path of ['/', '/early.js']) expect((await request(path)).headers['cache-control'], path).toBe('no-store');
  });

  it('streams events only with the token', async () => {
    expect((await request('/events?token=wrong')).status).toBe(401);
    const got = await new Promise<string>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: bridge.port, path: `/events?token=${bridge.token}` }, (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
          if (text.includes('data:')) {
            resolve(text);
            req.destroy();
          }
        });
        setTimeout(() => {
          for (const fn of listeners) fn({ state: 'none' });
        }, 50);
      });
      req.on('error', reject);
    });
    expect(got).toContain('event: connection:changed\ndata: {"state":"none"}');
  });

  it('closing with a page subscribed: the stream unsubscribes at once, and an event during the close writes nothing', async () => {
    // An event between close() and the sockets' close used to write to the ended stream: an 'error' event on
    // the response with no listener, an uncaught exception in the process that runs the bridge.
    const subs = new Set<(s: ConnectionState) => void>();
    const other = await startBridge({
      dispatch: async () => ({ ok: true, value: {} }),
      subscribe: (_event, fn) => {
        subs.add(fn as (s: ConnectionState) => void);
        return () => subs.delete(fn as (s: ConnectionState) => void);
      },
      log: silentLogger,
    });
    const req = http.get({ host: '127.0.0.1', port: other.port, path: `/events?token=${other.token}` });
    req.on('error', () => undefined); // the bridge closes it
    const opened = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    opened.resume();
    await expect.poll(() => subs.size).toBeGreaterThan(0);
    const held = [...subs];
    const closing = other.close();
    expect(subs.size).toBe(0);
    for (const fn of held) fn({ state: 'none' }); // an emitter that still held its listener
    await closing;
    await new Promise((r) => setImmediate(r));
  });
});
