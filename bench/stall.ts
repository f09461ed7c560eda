/**
 * The main process never stalls (issue #27; goal: a ping answered within 250 ms while each big input
 * is processed; 100,000 labels imported in ≤ 3 s; 100,000 addresses added in ≤ 3 s).
 *
 * The app's services (createApp, a real SQLite file) connected to the devnet, driven through
 * `dispatch` as the IPC handlers are. A ping is a timer in this process — the one the services run
 * in — due every 10 ms; its worst lateness while a request runs is the longest the app could not
 * answer anything (IPC, the bridge, the monitor's timers). Each input runs twice in the same run:
 * with the import worker (what ships) and with the same jobs inline on the main thread (the baseline:
 * what a ping waited before). Inputs:
 * - labels:import of 100,000 BIP329 lines (replace rule, a fresh profile);
 * - watch:add of 100,000 "address label" lines whose addresses already carry labels (the slow case);
 * - wallet:preview of a 1 MB descriptor file (a descriptor and 15,000 comment lines);
 * - watch:refresh right after that import: the first refresh of the 100,000 user addresses (every one
 *   asked getaddressinfo and looked up in the index, one snapshot of 100,000 rows written). The devnet
 *   runs in a child process here, so that its own work (answering 100,000 lookups) is not counted as
 *   the app's. Baseline: the snapshot written on the main thread (the import runner inline).
 * - watch:overview of that snapshot (100,000 rows) as the Balances table asks it (the first page in its
 *   order, with the totals and counts): the reply's time, and its size. (bench/overview-page.ts
 *   measures the same on a synthetic snapshot, with the pages, sorts and filters after it.)
 *
 * Run alone: npx tsx bench/stall.ts   (or as the `stall` group of npm run bench)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bech32 } from '@scure/base';
import { startDevnet } from '../devnet/index';
import { createApp } from '../electron/main/app';
import { call, withPings, type Sample } from './pings';
import { printTable, type Row } from './table';

const N = Number(process.env.STALL_N ?? 100_000);
const XPUB = 'tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp';

function address(i: number): string {
  const program = new Uint8Array(20);
  new DataView(program.buffer).setUint32(0, i);
  program[19] = 0x5a;
  return bech32.encode('bcrt', [0, ...bech32.toWords(program)]);
}

interface Measured {
  idle: Sample;
  labels: Sample;
  add: Sample;
  preview: Sample;
  refresh: Sample;
  overview: Sample;
  /** The overview reply as JSON (characters), and JSON.stringify's time (ms). */
  overviewChars: number;
  overviewJsonMs: number;
}

async function measure(mode: 'worker' | 'inline', rpcUrl: string, indexUrl: string): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), `spyglass-bench-stall-${mode}-`));
  const app = createApp({ dataDir: dir, info: { version: 'bench', platform: process.platform, bridge: true }, secretBackend: null, pollMs: null, ...(mode === 'inline' ? { importWorker: 'inline' as const } : {}) });
  try {
    const saved = await call<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Bench', nodeUrl: rpcUrl, auth: 'password', rpcUser: 'u', wallet: 'watch', indexUrl },
      password: 'p',
      remember: 'session',
    });
    const { state } = await call<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id });
    if (state !== 'connected') throw new Error(`not connected: ${state}`);
    // A worker's first job starts the thread (and, from source, tsx): warm it on a small input, as
    // the app does once per run.
    await call(app, 'labels:preview', { text: JSON.stringify({ type: 'addr', ref: address(0), label: 'warm' }), rule: 'replace' });

    // The machine's own scheduling noise: the worst ping while nothing runs.
    const idle = await withPings(() => new Promise((r) => setTimeout(r, 2_000)));

    const labelText = Array.from({ length: N }, (_, i) => JSON.stringify({ type: 'addr', ref: address(i), label: `payer ${i}` })).join('\n');
    let imported = 0;
    const labels = await withPings(async () => {
      imported = (await call<{ added: number }>(app, 'labels:import', { text: labelText, rule: 'replace' })).added;
    });
    if (imported !== N) throw new Error(`labels: ${imported} imported`);

    const addText = Array.from({ length: N }, (_, i) => `${address(i)} shop ${i}`).join('\n');
    let added = 0;
    const add = await withPings(async () => {
      added = (await call<{ added: number }>(app, 'watch:add', { text: addText })).added;
    });
    if (added !== N) throw new Error(`add: ${added} added`);

    let wallet = `wpkh(${XPUB}/0/*)\n`;
    for (let i = 0; wallet.length < 1024 * 1024 - 200; i++) wallet += `# note ${i} ${'x'.repeat(50)}\n`;
    const preview = await withPings(async () => {
      await call(app, 'wallet:preview', { text: wallet });
    });
    let summary = '';
    const refresh = await withPings(async () => {
      summary = JSON.stringify(await call(app, 'watch:refresh', {}));
    });
    console.error(`stall bench (${mode}): refresh ${summary}`);
    try {
      const log = readFileSync(join(dir, 'logs', 'main.log'), 'utf8');
      for (const l of log.split('\n')) if (l.includes('refresh:')) console.error(`  ${l.slice(0, 240)}`);
    } catch {
      // no log file
    }
    let reply: unknown = null;
    const overview = await withPings(async () => {
      reply = await call(app, 'watch:overview', { page: { query: { sort: 'balance', dir: 'desc', filter: '', showHidden: false } } });
    });
    const j0 = performance.now();
    const overviewChars = JSON.stringify(reply).length;
    const overviewJsonMs = performance.now() - j0;
    return { idle, labels, add, preview, refresh, overview, overviewChars, overviewJsonMs };
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The devnet (demo scenario) in a child process: its URLs and a close(). */
async function devnetChild(): Promise<{ rpcUrl: string; indexUrl: string; close(): Promise<void> }> {
  const cli = fileURLToPath(new URL('../devnet/cli.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--rpc-port', '0', '--index-port', '0', '--rpcuser', 'u', '--rpcpassword', 'p', '--scenario', 'demo'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  let rpcUrl = '';
  let indexUrl = '';
  for await (const l of lines) {
    const rpc = /JSON-RPC\): (\S+)/.exec(l);
    const idx = /index \(REST\):\s+(\S+?)\/v1\/blockchain\//.exec(l);
    if (rpc) rpcUrl = rpc[1]!;
    if (idx) indexUrl = idx[1]!;
    if (rpcUrl && indexUrl) break;
  }
  if (!rpcUrl || !indexUrl) throw new Error('the devnet child did not print its URLs');
  return {
    rpcUrl,
    indexUrl,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function benchStall(): Promise<Row[]> {
  const devnet = process.env.STALL_DEVNET_INLINE ? await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' }) : await devnetChild();
  try {
    const base = await measure('inline', devnet.rpcUrl, devnet.indexUrl);
    const ours = await measure('worker', devnet.rpcUrl, devnet.indexUrl);
    const rows: Row[] = [
      { name: 'nothing running, 2 s: worst ping (the machine\'s noise)', unit: 'ms', ours: ours.idle.worstPingMs, baseline: base.idle.worstPingMs, lowerIsBetter: true, note: 'the inline run\'s app, idle' },
    ];
    const what: Array<[Exclude<keyof Measured, 'idle' | 'overviewChars' | 'overviewJsonMs'>, string]> = [
      ['labels', `labels:import, ${N.toLocaleString('en-US')} BIP329 lines`],
      ['add', `watch:add, ${N.toLocaleString('en-US')} addresses with labels, labels present`],
      ['preview', 'wallet:preview, 1 MB descriptor file'],
      ['refresh', `watch:refresh right after adding ${N.toLocaleString('en-US')} addresses (devnet in a child process)`],
      ['overview', `watch:overview of those ${N.toLocaleString('en-US')} rows (dispatch → reply)`],
    ];
    for (const [k, name] of what) {
      rows.push({ name: `${name}: worst ping (goal < 250)`, unit: 'ms', ours: ours[k].worstPingMs, baseline: base[k].worstPingMs, lowerIsBetter: true, note: 'the same jobs inline on the main thread' });
      const goal = k === 'labels' || k === 'add' ? ' (goal ≤ 3,000)' : k === 'overview' ? ' (goal ≤ 1,000)' : '';
      rows.push({ name: `${name}: duration${goal}`, unit: 'ms', ours: ours[k].ms, baseline: base[k].ms, lowerIsBetter: true, note: 'the same jobs inline on the main thread' });
      rows.push({ name: `${name}: CPU time, all threads`, unit: 'ms', ours: ours[k].cpuMs, baseline: base[k].cpuMs, lowerIsBetter: true, note: 'the same jobs inline on the main thread' });
    }
    rows.push({ name: `watch:overview reply of ${N.toLocaleString('en-US')} rows, as JSON`, unit: 'MB', ours: ours.overviewChars / 1e6, baseline: base.overviewChars / 1e6, lowerIsBetter: true, note: `JSON.stringify ${ours.overviewJsonMs.toFixed(0)} ms (baseline run: ${base.overviewJsonMs.toFixed(0)} ms)` });
    return rows;
  } finally {
    await devnet.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  void benchStall().then((rows) => printTable('stall', rows));
}
