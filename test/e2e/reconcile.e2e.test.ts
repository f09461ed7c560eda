// E2E in Chromium for the Reconciliation screen: the devnet node with the devnet's index FOLLOWING it
// (devnet/follow, as `npm run devnet -- --follow-node` serves it), its polling held back so the test
// decides when it catches up. A payment to a new address and one to a funded address are mined while
// the index is a block behind; the Balances screen's Refresh then records the index behind, and
// Reconcile shows what disagrees. Once the index has caught up, the next Refresh makes them agree.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, startFollower, type Devnet, type RunningFollower } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`reconciliation with a lagging index (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let follower: RunningFollower;
  let rpc: TestRpc;
  let rig: Rig;
  let dataDir: string;
  let fresh = '';

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'e2e-reconcile-pw' });
    rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
    follower = await startFollower({ url: devnet.rpcUrl, user: 'alice', password: 'e2e-reconcile-pw', pollMs: 3_600_000, log: () => undefined });
    await follower.follower.waitFor((s) => s.synced, 30_000);
    dataDir = mkdtempSync(join(tmpdir(), 'spyglass-e2e-reconcile-'));
    rig = await startRig({ dataDir });
    const saved = await rig.web.app.dispatch('profiles:save', {
      profile: { name: 'Own node + index', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'watch', indexUrl: follower.indexUrl },
      password: 'e2e-reconcile-pw',
      remember: 'session',
    });
    if (!saved.ok) throw new Error(saved.error.message);
    await rig.web.app.dispatch('profiles:activate', { id: (saved.value as { profile: { id: string } }).profile.id });
  });

  afterAll(async () => {
    await rig?.close();
    await follower?.close();
    await devnet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Refresh on the Balances screen (freshly loaded, so no earlier summary shows), until this refresh's summary line shows. */
  const refreshInUi = async (): Promise<void> => {
    const page = rig.page;
    await page.goto(`${rig.web.bridge.origin}/#/balances`);
    await page.reload();
    await page.getByTestId('balances-refresh').first().click();
    await page.getByTestId('refresh-summary').waitFor({ timeout: 60_000 });
  };

  const openReconcile = async (): Promise<void> => {
    await rig.page.goto(`${rig.web.bridge.origin}/#/reconcile`);
    await rig.page.locator('[data-testid="reconcile-ok"], [data-testid="reconcile-count"]').first().waitFor({ timeout: 30_000 });
  };

  it('with the index in step, everything agrees', async () => {
    fresh = await rpc.call<string>('getnewaddress', ['fresh'], 'watch');
    await refreshInUi();
    await openReconcile();
    await rig.page.getByTestId('reconcile-ok').waitFor();
  });

  it('a block the index has not seen: the index behind, a payment missing, amounts that differ', async () => {
    const payer = 'miner';
    const funded = await rpc.call<Array<{ address: string }>>('listunspent', [1], 'watch');
    const fundedAddress = funded.find((u) => u.address !== fresh)!.address;
    await rpc.call('sendtoaddress', [fresh, 0.3], payer);
    await rpc.call('sendtoaddress', [fundedAddress, 0.2], payer);
    await rpc.call('generatetoaddress', [1, await rpc.call<string>('getnewaddress', [], payer)]);
    await refreshInUi();
    await openReconcile();
    const page = rig.page;
    const issue = (kind: string, address = ''): ReturnType<typeof page.locator> =>
      page.locator(`[data-testid="reconcile-issue"][data-kind="${kind}"]${address ? `[data-address="${address}"]` : ''}`);
    await issue('index-behind').waitFor();
    expect(await issue('index-behind').getByTestId('reconcile-message').innerText()).toMatch(/index was 1 block behind/);
    expect(await issue('index-missing-tx', fresh).getByTestId('reconcile-message').innerText()).toContain('0.30000000 BTC');
    expect(await issue('amount-mismatch', fundedAddress).count()).toBe(1);
    expect(Number(await page.getByTestId('reconcile-count').getAttribute('data-count'))).toBeGreaterThanOrEqual(3);
    await rig.screenshot('28-reconcile');
  });

  it('once the index has caught up, the next refresh makes them agree', async () => {
    const tip = await rpc.call<string>('getbestblockhash', []);
    follower.follower.poke();
    await follower.follower.waitFor((s) => s.synced && s.nodeHash === tip, 30_000);
    await refreshInUi();
    await openReconcile();
    await rig.page.getByTestId('reconcile-ok').waitFor();
    await rig.page.goto(`${rig.web.bridge.origin}/#/balances`);
    await rig.page.getByTestId('balances-filter').fill(fresh);
    const row = rig.page.locator(`[data-testid="balances-row"][data-address="${fresh}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-balance')).toBe('30000000');
    await rig.screenshot('29-reconcile-caught-up-balances');
  });
});
