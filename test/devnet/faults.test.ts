/** Fault and limit modes of the devnet, over real HTTP on loopback (all off by default). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startDevnet, type Devnet } from '../../devnet/index';
import { parseArgs } from '../../devnet/cli-args';
import { spawnSync } from 'node:child_process';

let devnet: Devnet;
const auth = `Basic ${Buffer.from('u:p').toString('base64')}`;
const rpc = (body = '{"jsonrpc":"1.0","id":"x","method":"getblockcount","params":[]}'): Promise<Response> =>
  fetch(devnet.rpcUrl, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'text/plain' }, body });
const index = (path = 'block/0'): Promise<Response> => fetch(`${devnet.indexUrl}/v1/blockchain/${path}`);

/** Raw GET that reports a connection reset instead of throwing. */
function rawGet(url: string): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    });
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end();
  });
}

beforeAll(async () => {
  devnet = await startDevnet({ rpcUser: 'u', rpcPassword: 'p' });
});
afterAll(async () => {
  await devnet?.close();
});

describe('devnet fault modes', () => {
  it('are off by default', async () => {
    expect((await rpc()).status).toBe(200);
    expect((await index()).status).toBe(200);
  });

  it('rate limit: 429 with Ratelimit-Remaining and Ratelimit-Reset after the allowance', async () => {
    devnet.setFaults('index', { rateLimit: { limit: 15, windowSeconds: 5 } });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 17; i++) {
      last = await index();
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 15).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(15)).toEqual([429, 429]);
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(last!.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(5);
    devnet.setFaults('index', {});
    expect((await index()).status).toBe(200);
  });

  it('latency delays replies', async () => {
    devnet.setFaults('rpc', { latencyMs: 150 });
    const t0 = performance.now();
    expect((await rpc()).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    devnet.setFaults('rpc', {});
  });

  it('5xx, HTML error pages, truncated JSON and garbage', async () => {
    devnet.setFaults('index', { mode: 'http503' });
    expect((await index()).status).toBe(503);
    devnet.setFaults('rpc', { mode: 'http503' });
    const r503 = await rpc();
    expect([r503.status, await r503.text()]).toEqual([503, 'Work queue depth exceeded']);
    devnet.setFaults('rpc', { mode: 'html' });
    const html = await rpc();
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('<html>');
    devnet.setFaults('index', { mode: 'truncated' });
    const t = await index();
    expect(t.status).toBe(200);
    const text = await t.text();
    expect(() => JSON.parse(text)).toThrow();
    devnet.setFaults('index', { mode: 'garbage' });
    const g = await index();
    expect(g.status).toBe(200);
    const garbage = await g.text();
    expect(() => JSON.parse(garbage)).toThrow();
    devnet.setFaults('index', {});
    devnet.setFaults('rpc', {});
  });

  it('every Nth request only', async () => {
    devnet.setFaults('index', { mode: 'http500', every: 3 });
    const s: number[] = [];
    for (let i = 0; i < 6; i++) s.push((await index()).status);
    expect(s).toEqual([200, 200, 500, 200, 200, 500]);
    devnet.setFaults('index', {});
  });

  it('connection resets', async () => {
    devnet.setFaults('index', { mode: 'reset' });
    const r = await rawGet(`${devnet.indexUrl}/v1/blockchain/block/0`);
    expect(r.error).toMatch(/ECONNRESET|socket hang up/);
    devnet.setFaults('index', {});
    expect((await rawGet(`${devnet.indexUrl}/v1/blockchain/block/0`)).status).toBe(200);
  });

  it('warm-up: -28 with the warm-up text until it ends', async () => {
    // The end a minute away (no race with a busy machine), then moved to a moment already past.
    devnet.setFaults('rpc', { warmup: { message: 'Loading block index…', untilMs: Date.now() + 60_000 } });
    const r = await rpc();
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ result: null, error: { code: -28, message: 'Loading block index…' }, id: 'x' });
    devnet.setFaults('rpc', { warmup: { message: 'Loading block index…', untilMs: Date.now() - 1 } });
    expect((await rpc()).status).toBe(200);
    devnet.setFaults('rpc', {});
  });

  it('CLI flags map to the same modes and reject bad values', () => {
    const o = parseArgs(['--rpc-port', '0', '--fault-index', 'html', '--rate-limit', '15/5', '--latency-ms', '20', '--warmup-seconds', '3']);
    expect(o.faults?.index?.mode).toBe('html');
    expect(o.faults?.index?.rateLimit).toEqual({ limit: 15, windowSeconds: 5 });
    expect(o.faults?.rpc?.latencyMs).toBe(20);
    expect(o.faults?.rpc?.warmup?.message).toBe('Loading block index…');
    expect(() => parseArgs(['--fault-rpc', 'meteor'])).toThrow(/unknown mode/);
    expect(() => parseArgs(['--rate-limit', 'many'])).toThrow(/N\/SECONDS/);
    expect(() => parseArgs(['--rpc-port', '70000'])).toThrow(/port/);
    expect(() => parseArgs(['--bogus', '1'])).toThrow(/unknown option/);
    expect(parseArgs(['--core-version', '30']).coreVersion).toBe('30');
    expect(parseArgs(['--core-version', '31.99']).coreVersion).toBe('31.99');
    expect(parseArgs([]).coreVersion).toBeUndefined(); // startDevnet's default: 31.99
    expect(() => parseArgs(['--core-version', '29'])).toThrow(/--core-version: '29' is not a Core version \(30, 31\.99\)/);
  });

  it('npm run devnet -- --help prints the usage on stdout and exits 0; a wrong flag exits 2 on stderr', () => {
    const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'devnet/cli.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run devnet -- /);
    expect(help.stdout).toContain('--core-version 30|31.99');
    expect(help.stderr).toBe('');
    const bad = run(['--bogus', '1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown option');
    expect(bad.stdout).toBe('');
  });
});
