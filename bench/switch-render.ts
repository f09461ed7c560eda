/**
 * `npm run bench -- switch`: a wallet switch (#26) in the real app (startWeb on a data folder with
 * one profile and two wallets of 10,000 addresses each, opened offline on their snapshots) in Debian's
 * Chromium. Goal: from the click on the other wallet in the switcher to the first frame showing that
 * wallet's Balances rows ≤ 300 ms (median of 6 switches, back and forth, after a warm-up).
 * Baseline in the same run: the same rows reached the way there was before a switcher — a fresh page
 * load of Balances (navigation start → the first frame with rows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Row } from './table';
import { buildRenderer, firstRowsScript, median, waitFor } from './refresh-render';

const ADDRESSES = 10_000;
const SWITCHES = 6;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A bech32-looking address unique to (wallet, i): only letters and digits, as the store checks. */
const addressOf = (w: string, i: number): string => `bcrt1q${w}${i.toString(36).padStart(8, '0')}${'q'.repeat(24)}`;

async function writeWallets(dataDir: string): Promise<void> {
  const { openDatabase, closeDatabase } = await import('../electron/main/store/db');
  const { ProfileRepository } = await import('../electron/main/store/profiles');
  const { WatchRepository } = await import('../electron/main/store/watch');
  const db = openDatabase(join(dataDir, 'spyglass.sqlite'));
  try {
    const profiles = new ProfileRepository(db);
    const p = profiles.create({ name: 'Bench node', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'alpha', indexUrl: '' }, { passwordStorage: 'none' });
    profiles.setActiveId(p.id);
    const watch = new WatchRepository(db);
    for (const [w, tag] of [['alpha', 'a'], ['beta', 'b']] as const) {
      watch.writeSnapshot(
        { profileId: p.id, wallet: w },
        {
          takenAt: new Date().toISOString(),
          node: { height: 200, hash: 'b'.repeat(64) },
          index: { height: 200, hash: 'b'.repeat(64) },
          previousId: null,
          received: [],
          addresses: Array.from({ length: ADDRESSES }, (_, i) => ({
            address: addressOf(tag, i),
            source: 'user' as const,
            state: 'fetched' as const,
            utxos: [{ txid: (tag === 'a' ? 'a' : 'b').repeat(56) + i.toString(16).padStart(8, '0'), vout: 0, amountSats: BigInt(1000 + i), height: 100 }],
          })),
        },
      );
    }
  } finally {
    closeDatabase(db);
  }
}

/** Clicks `option` and resolves with the ms from the click to the first frame showing `rowSelector`. */
async function timeSwitch(page: Page, option: string, rowSelector: string): Promise<number> {
  await page.click('[data-testid="wallet-switcher-button"]');
  await page.waitForSelector(option);
  await page.evaluate(`
    (() => {
      window.__switch = { clicked: null, shown: null };
      document.addEventListener('click', (e) => { window.__switch.clicked = e.timeStamp; }, { capture: true, once: true });
      const look = () => {
        const el = document.querySelector(${JSON.stringify(rowSelector)});
        if (el && el.getBoundingClientRect().height > 0) {
          requestAnimationFrame(() => setTimeout(() => { window.__switch.shown = performance.now(); }, 0));
          return;
        }
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    })()
  `);
  await page.click(option);
  await waitFor(page, 'window.__switch.shown !== null && window.__switch.clicked !== null', 30_000);
  const s = (await page.evaluate('window.__switch')) as { clicked: number; shown: number };
  return s.shown - s.clicked;
}

export async function benchSwitch(): Promise<Row[]> {
  const { startWeb } = await import('../electron/main/web');
  const { silentLogger } = await import('../electron/main/log');
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-bench-switch-'));
  const dataDir = join(tmp, 'data');
  const staticDir = join(tmp, 'renderer');
  let browser: Browser | null = null;
  let web: Awaited<ReturnType<typeof startWeb>> | null = null;
  try {
    await import('node:fs').then((fs) => fs.mkdirSync(dataDir));
    await writeWallets(dataDir);
    await buildRenderer(staticDir);
    web = await startWeb({ dataDir, staticDir, secretBackend: null, log: silentLogger });
    await web.app.services.start();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      env: { ...process.env, HOME: tmp, XDG_CONFIG_HOME: join(tmp, 'config'), XDG_CACHE_HOME: join(tmp, 'cache') },
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const url = `${web.bridge.pageUrl}#/balances`;
    const rowOf = (tag: string): string => `[data-testid="balances-row"][data-address^="bcrt1q${tag}"]`;

    // Baseline: fresh page loads of Balances (alpha), navigation start → first frame with its rows.
    const loads: number[] = [];
    for (let i = 0; i <= 3; i++) {
      const page = await context.newPage();
      await page.addInitScript(firstRowsScript(rowOf('a')));
      await page.goto(url);
      await waitFor(page, 'window.__firstRowsAt !== null');
      loads.push((await page.evaluate('window.__firstRowsAt')) as number);
      await page.close();
    }

    // Switches, back and forth, in one open window.
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector(rowOf('a'));
    const times: number[] = [];
    for (let i = 0; i <= SWITCHES; i++) {
      const to = i % 2 === 0 ? ['beta', 'b'] : ['alpha', 'a'];
      const ms = await timeSwitch(page, `[data-testid="wallet-option-${to[0]}"]`, rowOf(to[1]!));
      // The other wallet's rows are gone: nothing of the wallet switched away from.
      const stale = await page.locator(rowOf(to[1] === 'a' ? 'b' : 'a')).count();
      if (stale !== 0) throw new Error(`after the switch to ${to[0]}: ${stale} rows of the other wallet still shown`);
      if (i > 0) times.push(ms);
    }
    const base = median(loads.slice(1));
    const ours = median(times);
    return [
      {
        name: `wallet switch to the other wallet's cached Balances, ${ADDRESSES.toLocaleString('en-US')} addresses each (goal ≤ 300 ms)`,
        unit: 'ms',
        ours,
        baseline: base,
        lowerIsBetter: true,
        note: `click → first frame with its rows, median of ${SWITCHES} (${times.map((t) => t.toFixed(0)).join(', ')} ms); baseline: a fresh page load of Balances, median of 3; Chromium ${browser.version()}`,
      },
    ];
  } finally {
    await browser?.close();
    await web?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
