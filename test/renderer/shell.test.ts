// The window's side of the desktop shell (renderer/src/lib/shell.ts) with a stand-in preload: menu
// commands route or refresh, and a waiting bitcoin: link is taken at start, on uri:opened and after the
// event stream reopens. The router is a real vue-router over memory history.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryHistory, createRouter, type Router } from 'vue-router';
import { setApi } from '../../renderer/src/api/client';
import { installShell } from '../../renderer/src/lib/shell';
import { fakeApi, type FakeApi } from './fake-api';

let fake: FakeApi;
let router: Router;
let refreshed = 0;
let uninstall: () => void;
const flush = () => new Promise((r) => setTimeout(r, 0));

beforeEach(async () => {
  fake = fakeApi();
  setApi(fake);
  const component = { template: '<div/>' };
  router = createRouter({
    history: createMemoryHistory(),
    routes: ['dashboard', 'balances', 'history', 'labels', 'reconcile', 'psbt', 'settings', 'pay'].map((name) => ({ path: `/${name}`, name, component })),
  });
  await router.push('/dashboard');
  refreshed = 0;
});

afterEach(() => {
  uninstall?.();
  setApi(null);
});

describe('desktop shell in the window', () => {
  it('takes a link waiting at start and opens the payment request', async () => {
    fake.handle('uri:take', { uri: 'bitcoin:bcrt1qabc?amount=1' });
    uninstall = installShell(router, () => refreshed++);
    await flush();
    await flush();
    expect(router.currentRoute.value.name).toBe('pay');
    expect(router.currentRoute.value.query['uri']).toBe('bitcoin:bcrt1qabc?amount=1');
  });

  it('takes a link when main says one waits, and after the event stream reopens', async () => {
    let next: string | null = null;
    fake.handle('uri:take', () => {
      const uri = next;
      next = null;
      return { ok: true, value: { uri } };
    });
    uninstall = installShell(router, () => refreshed++);
    await flush();
    expect(router.currentRoute.value.name).toBe('dashboard');
    next = 'bitcoin:one';
    fake.emit('uri:opened', {});
    await flush();
    await flush();
    expect(router.currentRoute.value.query['uri']).toBe('bitcoin:one');
    next = 'bitcoin:two';
    fake.openEvents();
    await flush();
    await flush();
    expect(router.currentRoute.value.query['uri']).toBe('bitcoin:two');
  });

  it('menu commands go to their screen; Refresh Balances refreshes', async () => {
    fake.handle('uri:take', { uri: null });
    uninstall = installShell(router, () => refreshed++);
    for (const [action, name] of [['go:history', 'history'], ['go:psbt', 'psbt'], ['go:settings', 'settings'], ['go:balances', 'balances']] as const) {
      fake.emit('app:menu', { action });
      await flush();
      expect(router.currentRoute.value.name).toBe(name);
    }
    fake.emit('app:menu', { action: 'refresh' });
    expect(refreshed).toBe(1);
  });
});
