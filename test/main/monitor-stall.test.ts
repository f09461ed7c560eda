// The chain monitor when the app itself is busy (issue #27): the main thread blocked for longer than a
// poll's timeout (as a big synchronous import did) makes the node's reply late to be read, not the node
// lost. On the real services, a real SQLite file and the devnet over loopback; the test blocks the
// thread with Atomics.wait right after the poll has asked the node. The first test shows that such a
// block does make the request time out, so the second one shows the monitor telling the two apart.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import { ChainMonitor } from '../../electron/main/monitor';
import type { ConnectionState } from '../../shared/ipc/contract';
import { startProfiledApp } from '../support/app';

const TIMEOUT_MS = 1_000;
const BLOCK_MS = 3 * TIMEOUT_MS;

let devnet: Devnet;
let app: SpyglassApp;
let dir: string;
let monitor: ChainMonitor;
const states: ConnectionState[] = [];
const warnings: string[] = [];

/**
 * Blocks this thread (its event loop) for `ms`, as a long synchronous job does — on the loop's next
 * turn, when the requests started now are on their way (their timers set).
 */
function blockThreadSoon(ms: number): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      resolve();
    }),
  );
}

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  let s: string;
  ({ app, dir, state: s } = await startProfiledApp({ prefix: 'monitor-stall', name: 'Demo node', nodeUrl: devnet.rpcUrl, indexUrl: devnet.indexUrl, rpcUser: 'u', password: 'p' }));
  expect(s).toBe('connected');
  const log = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
  monitor = new ChainMonitor({ services: app.services, watch: { refresh: async () => undefined, refreshing: false }, log, pollTimeoutMs: TIMEOUT_MS }, null);
  app.services.on('connection:changed', (x) => states.push(x));
});

afterAll(async () => {
  await monitor?.stop();
  await app?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('chain monitor while the app is busy', () => {
  it('the blocked thread makes a request time out (what the monitor must not take for a lost node)', async () => {
    const conn = app.services.activeConnection()!;
    const call = conn.rpc.call<string>('getbestblockhash', [], { wallet: false, timeoutMs: TIMEOUT_MS });
    await blockThreadSoon(BLOCK_MS);
    await expect(call).rejects.toMatchObject({ code: 'net.timeout' });
  });

  it('a poll during which the thread is blocked past its timeout keeps the node connected', async () => {
    await monitor.tick(); // the first poll: nothing blocked
    states.length = 0;
    for (let i = 0; i < 2; i++) {
      const poll = monitor.tick();
      await blockThreadSoon(BLOCK_MS);
      await poll;
      expect(app.services.connectionState().state).toBe('connected');
    }
    expect(states.filter((s) => s.state === 'failed')).toEqual([]);
  });

  it('a node that is really gone is still declared lost (asked twice, then the connection ends)', async () => {
    await devnet.close();
    states.length = 0;
    await monitor.tick();
    const s = app.services.connectionState();
    expect(s.state).toBe('failed');
    if (s.state === 'failed') expect(s.error.code).toMatch(/^net\./);
  });
});
