// E2E in Chromium: the first-run page follows a profile made elsewhere to the dashboard, but never over a
// page the user asked for meanwhile. The race this pins down was seen in CI (hwi-core.e2e on Core 30.99):
// Watch a wallet was asked for while its chunk was still loading, the connection arrived, and Welcome
// replaced it with the dashboard. Here the chunk is held back on purpose until the page has seen the
// connection, so the order is fixed, not left to timing. The same for the app's first navigation: an
// address asked for while it waits for the profile list is where the app lands (seen in CI: wallet.e2e
// asked for Connect your node while the page still opened, and landed on Welcome).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { startDevnet, type Devnet } from '../../devnet/index';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`Welcome follows a new profile, not over a page asked for (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rig: Rig;

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'e2e-welcome-pw' });
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
  });

  it('an address asked for while the app still opens (its first navigation waiting for the profiles) is where it lands', async () => {
    const page = rig.page;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    await page.route('**/ipc/profiles:list', async (route: Route) => {
      asked = true;
      await held;
      await route.continue();
    });
    // A fresh load: its first navigation (to the dashboard, then Welcome: no profile) waits for the profile list.
    await page.goto(rig.web.bridge.pageUrl);
    await expect.poll(() => asked).toBe(true);
    // Meanwhile the address asks for Connect your node (the same document: only the hash changes).
    await page.goto(`${rig.web.bridge.origin}/#/connect`);
    release();
    await page.getByTestId('profile-form').waitFor();
    expect(new URL(page.url()).hash).toBe('#/connect');
    await page.unroute('**/ipc/profiles:list');
    // Back to where the next case starts.
    await page.goto(`${rig.web.bridge.origin}/#/welcome`);
    await page.getByTestId('welcome').waitFor();
  });

  it('Watch a wallet asked for on Welcome, the connection arriving before its page loads: Watch a wallet stays', async () => {
    const page = rig.page;
    await page.getByTestId('welcome').waitFor();

    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    await page.route('**/assets/ImportWalletView-*.js', async (route: Route) => {
      asked = true;
      await held;
      await route.continue();
    });

    await page.goto(`${rig.web.bridge.origin}/#/import`);
    await expect.poll(() => asked).toBe(true);

    const saved = await rig.web.app.dispatch('profiles:save', {
      profile: { name: 'Demo node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl },
      password: 'e2e-welcome-pw',
      remember: 'session',
    });
    if (!saved.ok) throw new Error(saved.error.message);
    const active = await rig.web.app.dispatch('profiles:activate', { id: (saved.value as { profile: { id: string } }).profile.id });
    if (!active.ok) throw new Error(active.error.message);
    // The page has the connected state (the harness records every connection:changed event it gets).
    await page.waitForFunction(`(window.__events || []).some((e) => e.includes('"connected"'))`);
    // Welcome is still what is shown: the asked-for page is still loading.
    expect(await page.getByTestId('welcome').isVisible()).toBe(true);

    release();
    await page.getByTestId('device-import-open').waitFor();
    expect(new URL(page.url()).hash).toBe('#/import');
    await page.unroute('**/assets/ImportWalletView-*.js');
  });

  it('with nothing else asked for, Welcome follows a profile made elsewhere to the dashboard', async () => {
    const page = rig.page;
    const ok = async (channel: string, payload: unknown): Promise<unknown> => {
      const r = await rig.web.app.dispatch(channel, payload);
      if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
      return r.value;
    };
    // The last profile deleted from elsewhere: the app goes back to Welcome.
    const { profiles } = (await ok('profiles:list', {})) as { profiles: Array<{ id: string }> };
    for (const p of profiles) await ok('profiles:delete', { id: p.id });
    await page.goto(`${rig.web.bridge.origin}/#/`);
    await page.getByTestId('welcome').waitFor();
    const saved = (await ok('profiles:save', {
      profile: { name: 'Demo node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: devnet.indexUrl },
      password: 'e2e-welcome-pw',
      remember: 'session',
    })) as { profile: { id: string } };
    await ok('profiles:activate', { id: saved.profile.id });
    await page.waitForURL((u) => !u.hash.includes('welcome'));
    expect(await page.getByTestId('welcome').count()).toBe(0);
  });
});
