/**
 * The Transactions page load (navigation start → first frame with rows, 10,000 transactions) of two
 * renderers in the same run: BEFORE=<a checkout's root> (its renderer sources; it resolves its own
 * node_modules, e.g. a `git worktree` with node_modules linked) against this checkout's. Each is
 * built as bench/history-render.ts builds it and served by its own startWeb (the same synthetic
 * history as that bench, the node unreachable); page loads alternate between the two (the order
 * flipped every round, a warm-up round first), so a machine busy with other work weighs on both
 * alike. Prints the medians, the ratio, and how many wallet:history calls each page load made.
 *
 *   BEFORE=/work/main N=8 npx tsx bench/history-ab.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, openRenderBench } from './refresh-render';
import { syntheticHistory } from './history-render';
import { historyPage } from '../shared/wallet/history-page';

async function build(root: string, outDir: string): Promise<void> {
  const { build } = await import('vite');
  const { default: vue } = await import('@vitejs/plugin-vue');
  await build({ configFile: false, root: join(root, 'renderer'), base: './', plugins: [vue()], logLevel: 'error', build: { outDir, emptyOutDir: true, rollupOptions: { input: join(root, 'renderer/index.html') } } });
}

async function main(): Promise<void> {
  const { startWeb } = await import('../electron/main/web');
  const { silentLogger } = await import('../electron/main/log');
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-bench-history-ab-'));
  const history = syntheticHistory(10_000);
  const before = process.env.BEFORE;
  if (!before) throw new Error('BEFORE=<the root of a checkout to compare with> is required');
  const roots = { before, after: join(import.meta.dirname, '..') };
  const webs: Record<string, Awaited<ReturnType<typeof startWeb>>> = {};
  for (const [k, root] of Object.entries(roots)) {
    await build(root, join(tmp, k));
    const web = await startWeb({ dataDir: join(tmp, `data-${k}`), staticDir: join(tmp, k), secretBackend: null, log: silentLogger });
    const saved = await web.app.dispatch('profiles:save', { profile: { name: 'Bench', nodeUrl: 'http://127.0.0.1:9/', auth: 'password', rpcUser: 'u', wallet: 'busy', indexUrl: 'http://127.0.0.1:9/' }, password: 'p', remember: 'session' });
    if (!saved.ok) throw new Error('save');
    await web.app.dispatch('profiles:activate', { id: (saved.value as { profile: { id: string } }).profile.id });
    web.app.handlers['wallet:history'] = (r: { all: boolean }) => historyPage(history, r.all);
    webs[k] = web;
  }
  const bench = await openRenderBench(tmp, { dataPath: '/x', json: '{}', page: '' });
  const res: Record<string, { ms: number[]; mark: number[]; data: number[]; calls: number[] }> = { before: { ms: [], mark: [], data: [], calls: [] }, after: { ms: [], mark: [], data: [], calls: [] } };
  try {
    const load0 = loadavg()[0]!;
    const n = Number(process.env.N ?? 6);
    for (let i = 0; i <= n; i++) {
      for (const k of i % 2 ? ['before', 'after'] : ['after', 'before']) {
        const r = await bench.load(`${webs[k]!.bridge.pageUrl}#/transactions`, '[data-testid="transaction-row"]', '/ipc/wallet:history', 'spyglass:wallet-history-rows');
        await new Promise((ok) => setTimeout(ok, 1500));
        const calls = (await r.page.evaluate(`performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/ipc/wallet:history')).length`)) as number;
        await r.page.close();
        if (i === 0) continue; // warm-up
        res[k]!.ms.push(r.ms);
        res[k]!.mark.push(r.ms - r.rowsAt);
        res[k]!.data.push(r.dataEnd);
        res[k]!.calls.push(calls);
      }
    }
    for (const k of ['before', 'after']) {
      const x = res[k]!;
      console.log(`${k}: nav→rows median ${median(x.ms).toFixed(0)} ms (${x.ms.map((v) => v.toFixed(0)).join('/')}); mark→rows ${median(x.mark).toFixed(0)}; first reply ${median(x.data).toFixed(0)}; wallet:history calls ${x.calls.join('/')}`);
    }
    console.log(`load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
    const paired = res.before!.ms.map((b, i) => b / res.after!.ms[i]!);
    console.log(`ratio before/after: ${(median(res.before!.ms) / median(res.after!.ms)).toFixed(2)} (medians); per round ${paired.map((r) => r.toFixed(2)).join('/')}, median ${median(paired).toFixed(2)}`);
  } finally {
    await bench.browser.close();
    for (const w of Object.values(webs)) await w.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
void main();
