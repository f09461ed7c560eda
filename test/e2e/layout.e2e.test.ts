// E2E layout check: every screen of the router, against the devnet demo, in the light and the dark
// theme (set through Settings' own channel, applied by the app), at 1280×800 and at 900×600. Each screen
// must fit the window's width (no sideways scrolling of the page) and is saved as a screenshot
// (70-layout-<screen>-<theme>-<size>.png; the committed set with `npm run screenshots`). The width is
// also checked, without screenshots, at the smallest window Electron allows (MIN_WINDOW).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceRowAt } from '../../shared/ipc/balance-columns';
import type { WatchOverview, AddressDetailView } from '../../shared/ipc/watch';
import type { SendCreateReply } from '../../shared/ipc/send';
import { dispatchOk } from '../support/app';
import { MIN_WINDOW } from '../../electron/main/window-state';
import { e2eSkipReason, startRig, SCREENSHOTS, type Rig } from './harness';

const skip = e2eSkipReason();

const THEMES = ['light', 'dark'] as const;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 900, height: 600 },
] as const;
/** The page background each theme must show (tokens.css --bg): proof the theme is applied. */
const BG = { light: 'rgb(246, 247, 249)', dark: 'rgb(20, 23, 28)' } as const;

type PageGlobal = { document: { scrollingElement: { scrollWidth: number; clientWidth: number } | null; documentElement: { dataset: Record<string, string | undefined> }; querySelector(s: string): unknown } };

describe.skipIf(skip !== null)(`layout of every screen (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let rig: Rig;
  /** Route name → hash path, filled once the demo is connected (ids and addresses come from it). */
  const routes = new Map<string, string>();

  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  const ok = <T>(channel: string, payload: unknown = {}): Promise<T> => dispatchOk<T>(rig.web.app, channel, payload);

  async function useTheme(theme: (typeof THEMES)[number]): Promise<void> {
    await ok('settings:set', { app: { theme } });
    await rig.page.waitForFunction((t) => (globalThis as unknown as PageGlobal).document.documentElement.dataset['theme'] === t, theme);
  }

  /** Opens `path`, waits for its heading, saves a screenshot of the window; how much wider than the window the page is (0: fits). */
  async function visit(name: string, path: string, theme: (typeof THEMES)[number], size: { width: number; height: number }, shoot = true): Promise<number> {
    const page = rig.page;
    await page.setViewportSize(size);
    // The screen before is marked: its heading must not pass for the new one's (the next view's chunk loads first).
    // (Not when the screen is already the one asked for: the router then keeps it.)
    await page.evaluate((hash) => {
      const g = globalThis as unknown as { location: { hash: string }; document: { querySelectorAll(s: string): Array<{ setAttribute(n: string, v: string): void }> } };
      if (g.location.hash === hash) return;
      for (const h of g.document.querySelectorAll('#main h1')) h.setAttribute('data-layout-old', '');
    }, `#${path}`);
    await page.goto(`${rig.web.bridge.origin}/#${path}`);
    await page.locator('#main h1:not([data-layout-old])').first().waitFor();
    // Whatever the screen loads (its data, a lazy chunk's stylesheet) has arrived: no "Loading…", no spinner left.
    await page
      .waitForFunction(
        () => {
          const d = (globalThis as unknown as { document: { body: { innerText: string }; querySelector(s: string): unknown } }).document;
          return !/Loading…/.test(d.body.innerText) && d.querySelector('.spinner') === null;
        },
        undefined,
        { timeout: 20_000 },
      )
      .catch(() => {});
    await page.evaluate('window.scrollTo(0, 0)');
    const m = await page.evaluate(() => {
      const d = (globalThis as unknown as PageGlobal).document;
      const bodyBg = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle((d as unknown as { body: unknown }).body).backgroundColor;
      return { scrollWidth: d.scrollingElement!.scrollWidth, clientWidth: d.scrollingElement!.clientWidth, theme: d.documentElement.dataset['theme'], bodyBg };
    });
    expect(m.theme, `${name}: theme`).toBe(theme);
    expect(m.bodyBg, `${name}: page background in the ${theme} theme`).toBe(BG[theme]);
    if (shoot) await page.screenshot({ path: join(SCREENSHOTS, `70-layout-${name}-${theme}-${size.width}x${size.height}.png`) });
    return Math.max(0, m.scrollWidth - m.clientWidth);
  }

  /** Visits every screen; the ones wider than the window, with by how many pixels (all of them, not only the first). */
  async function overflowing(list: Iterable<[string, string]>, theme: (typeof THEMES)[number], size: { width: number; height: number }, shoot = true): Promise<string[]> {
    const wide: string[] = [];
    for (const [name, path] of list) {
      const over = await visit(name, path, theme, size, shoot);
      if (over > 0) wide.push(`${name} +${over}px`);
    }
    return wide;
  }

  it('the welcome screen (no profile yet) fits both sizes in both themes', async () => {
    for (const theme of THEMES) {
      await useTheme(theme);
      for (const size of SIZES) expect(await overflowing([['welcome', '/welcome']], theme, size)).toEqual([]);
    }
  });

  it('the demo connects; every route gets a real address, transaction, profile and draft', async () => {
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/welcome`);
    await page.getByTestId('welcome-demo').click();
    await page.waitForSelector('[data-testid="dashboard-state"][data-state="connected"]', { timeout: 60_000 });
    await ok('watch:refresh');
    const overview = await ok<WatchOverview>('watch:overview');
    const address = balanceRowAt(overview.balances, 0).address;
    const detail = await ok<AddressDetailView>('watch:address', { address });
    const txid = detail.txids[0];
    expect(txid, 'the demo address has a transaction').toBeDefined();
    const { activeId } = await ok<{ activeId: string | null }>('profiles:list');
    const created = await ok<SendCreateReply>('send:create', { form: { rows: [{ kind: 'pay', address, amount: '0.001' }], unit: 'btc', feeRate: '2', name: 'Layout check' } });
    if (!created.ok) throw new Error(`send:create: ${JSON.stringify(created.errors)}`);
    const pay = encodeURIComponent(`bitcoin:${address}?amount=0.00123&label=Layout`);
    for (const [name, path] of [
      ['dashboard', '/'],
      ['connect', '/connect'],
      ['edit-profile', `/profiles/${activeId}/edit`],
      ['settings', '/settings'],
      ['balances', '/balances'],
      ['address', `/address/${address}`],
      ['tx', `/tx/${txid}`],
      ['history', '/history'],
      ['reconcile', '/reconcile'],
      ['labels', '/labels'],
      ['psbt', '/psbt'],
      ['pay', `/pay?uri=${pay}`],
      ['import', '/import'],
      ['receive', '/receive'],
      ['transactions', '/transactions'],
      ['send', '/send'],
      ['drafts', '/drafts'],
      ['draft', `/drafts/${created.draft.id}`],
    ] as const)
      routes.set(name, path);
  });

  for (const theme of THEMES) {
    for (const size of SIZES) {
      it(`every screen fits ${size.width}×${size.height} in the ${theme} theme`, async () => {
        expect(routes.size).toBe(18);
        await useTheme(theme);
        expect(await overflowing(routes, theme, size), 'screens wider than the window').toEqual([]);
      });
    }
  }

  it(`every screen fits the smallest window Electron allows (${MIN_WINDOW.width}×${MIN_WINDOW.height})`, async () => {
    expect(routes.size).toBe(18);
    await useTheme('light');
    expect(await overflowing(routes, 'light', MIN_WINDOW, false), 'screens wider than the window').toEqual([]);
  });

  it('the router has no screen this check leaves out', () => {
    // The route names, read from the router's source (importing it needs Vue's compiler): all visited above, or welcome.
    const src = readFileSync(new URL('../../renderer/src/router.ts', import.meta.url), 'utf8');
    const names = [...src.matchAll(/name: '([a-z-]+)'/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(15);
    expect(names.filter((n) => n !== 'welcome' && !routes.has(n))).toEqual([]);
  });
});
