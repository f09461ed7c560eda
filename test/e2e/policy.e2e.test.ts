/**
 * Chromium e2e on the devnet (issue #32 part 3): who can spend a wallet, in words with each key's
 * fingerprint — in "Watch a wallet"'s preview (a Caravan 2-of-3 vault: the importer takes
 * single-key and multisig wallets) and on the wallet's page (Receive) of a watch-only miniscript
 * wallet on the node ("A, or B after 10 blocks", imported into the devnet wallet with
 * importdescriptors through the shared descriptor code; Receive reads its policy from the node's
 * parent_desc of the address); and the PSBT review of a spend of that wallet's coin along the
 * recovery path (nSequence 10, filled by the node's walletprocesspsbt), naming each path, who signed
 * and who is missing (the review reads the wallet's descriptors with listdescriptors); and Send with
 * its path chooser: the recovery path refused before its lock with when it becomes possible, then
 * previewed as a PSBT to sign now and broadcast later (nSequence 10, "cannot be broadcast yet").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { dispatchOk } from '../support/app';
import { TestRpc } from '../support/rpc';
import { FILES } from '../wallet/vectors';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

const XA = 'tpubDEw4nZ7PYWjNb8hsDquhRUdQ7HesUBeUwdJSCFkQ91ok6nRtBwY3YSMox6iFB4iWcDwAUVCV9zdio6HQKEGU7xe2RnHqrWqKvRdRA76s9Jr';
const XB = 'tpubDEVLDZmVHbHSdU9xzaMV6tLPEbFZCoXm7MLW5VkLTpx3rZKwPr1PvbTfFcAwvKBHYwmBuGxyrhE1dVdVVVC8fcHQ85ut49Ut6vzd1tVXBup';
const recovery = (branch: number) =>
  `wsh(or_d(pk([e11d7cc1/48h/1h/0h/2h]${XA}/${branch}/*),and_v(v:pkh([e0975ead/48h/1h/0h/2h]${XB}/${branch}/*),older(10))))`;

describe.skipIf(skip !== null)(`the spending policy in words (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let devnet: Devnet;
  let rig: Rig;
  let rpc: TestRpc;
  const tid = (id: string) => rig.page.getByTestId(id);
  /** A full-page screenshot from the top (the sticky top bar would otherwise sit mid-page). */
  const shot = async (name: string) => {
    await rig.page.evaluate('window.scrollTo(0, 0)');
    await rig.screenshot(name);
  };

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'alice', rpcPassword: 'policy-pw' });
    rpc = new TestRpc(devnet.rpcUrl, 'alice', 'policy-pw');
    // A watch-only wallet of a miniscript policy on the node: receive and change descriptors, active
    await rpc.call('createwallet', ['recovery', true, true, '', false, true, false]);
    const withChecksum = async (d: string) => `${d}#${(await rpc.call<{ checksum: string }>('getdescriptorinfo', [d])).checksum}`;
    const imported = await rpc.call<Array<{ success: boolean }>>(
      'importdescriptors',
      [[
        { desc: await withChecksum(recovery(0)), active: true, range: [0, 20], timestamp: 'now', internal: false },
        { desc: await withChecksum(recovery(1)), active: true, range: [0, 20], timestamp: 'now', internal: true },
      ]],
      'recovery',
    );
    expect(imported.map((r) => r.success)).toEqual([true, true]);
    rig = await startRig();
    const saved = await dispatchOk<{ profile: { id: string } }>(rig.web.app, 'profiles:save', {
      profile: { name: 'Policy node', nodeUrl: devnet.rpcUrl, auth: 'password', rpcUser: 'alice', wallet: 'recovery', indexUrl: devnet.indexUrl },
      password: 'policy-pw',
      remember: 'session',
    });
    await dispatchOk(rig.web.app, 'profiles:activate', { id: saved.profile.id });
    await rig.page.goto(`${rig.web.bridge.origin}/#/`);
    await rig.page.waitForSelector('[data-testid="dashboard-state"][data-state="connected"]', { timeout: 60_000 });
  });
  afterAll(async () => {
    await rig?.close();
    await devnet?.close();
  });

  it("Watch a wallet's preview: the policy in words and each key's fingerprint", async () => {
    await rig.page.goto(`${rig.web.bridge.origin}/#/import`);
    await tid('import-text').fill(FILES.caravan);
    await tid('import-check').click();
    await rig.page.locator('[data-testid="import-preview"][data-stale="false"]').waitFor({ timeout: 30_000 });
    const policy = tid('import-policy');
    expect(await policy.getByTestId('policy-words').innerText()).toBe('2 of A, B, C');
    const keys = await policy.getByTestId('policy-key').allInnerTexts();
    expect(keys.map((k) => k.split('\t').map((c) => c.trim()))).toEqual([
      ['A', 'a74008ce', 'm/48h/1h/0h/1h'],
      ['B', '3eaaf796', 'm/48h/1h/0h/1h'],
      ['C', '77863c36', 'm/48h/1h/0h/1h'],
    ]);
    // the same fingerprints as the preview's key table
    const previewFps = (await tid('import-key').allInnerTexts()).map((r) => r.split('\t')[0]!.trim());
    expect(previewFps).toEqual(['a74008ce', '3eaaf796', '77863c36']);
    await shot('80-policy-import-preview');
  });

  it("the wallet's page (Receive) of a miniscript wallet: key A, or key B after 10 blocks", async () => {
    await rig.page.goto(`${rig.web.bridge.origin}/#/receive`);
    await tid('receive-address').waitFor({ timeout: 60_000 });
    const policy = tid('receive-policy');
    await policy.waitFor({ timeout: 30_000 });
    expect(await policy.getByTestId('policy-words').innerText()).toBe('Key A, or key B after 10 blocks (~1 h 40 min)');
    const keys = await policy.getByTestId('policy-key').allInnerTexts();
    expect(keys.map((k) => k.split('\t').map((c) => c.trim()))).toEqual([
      ['A', 'e11d7cc1', 'm/48h/1h/0h/2h'],
      ['B', 'e0975ead', 'm/48h/1h/0h/2h'],
    ]);
    expect(await policy.getByTestId('policy-path').allInnerTexts()).toEqual(['key A', 'key B after 10 blocks (~1 h 40 min)']);
    await shot('81-policy-wallet-page');
  });

  it('the review names each path of the coin, who signed and who is missing: the recovery path with its timelock set', async () => {
    // a coin of the miniscript wallet, spent along the recovery path (nSequence 10), filled by the node's wallet
    const to = await rpc.call<string>('getnewaddress', [], 'recovery');
    await rpc.call('sendtoaddress', [to, 1], 'miner');
    await rpc.call('generatetoaddress', [1, await rpc.call<string>('getnewaddress', [], 'miner')]);
    const [coin] = await rpc.call<Array<{ txid: string; vout: number; amount: number }>>('listunspent', [1], 'recovery');
    const payTo = await rpc.call<string>('getnewaddress', [], 'miner');
    const unsigned = await rpc.call<string>('createpsbt', [[{ txid: coin!.txid, vout: coin!.vout, sequence: 10 }], [{ [payTo]: 0.9999 }]]);
    const filled = await rpc.call<{ psbt: string }>('walletprocesspsbt', [unsigned, false], 'recovery');

    await rig.page.goto(`${rig.web.bridge.origin}/#/psbt`);
    await tid('psbt-drop').waitFor();
    await tid('psbt-input').fill(filled.psbt);
    await tid('psbt-decode').click();
    await tid('psbt-summary').waitFor({ timeout: 30_000 });
    const paths = tid('psbt-input-paths');
    await paths.waitFor({ timeout: 30_000 });
    const rows = paths.getByTestId('psbt-input-path');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-timelock')).toBe('none');
    expect(await rows.nth(1).getAttribute('data-timelock')).toBe('met');
    expect(await rows.nth(1).getAttribute('data-needed')).toBe('1');
    expect(await rows.nth(1).innerText()).toContain('key B after 10 blocks (~1 h 40 min)');
    expect(await rows.nth(1).innerText()).toContain('needs 1 more of B');
    expect(await rows.nth(0).innerText()).toContain('needs 1 more of A');
    await shot('82-policy-review-recovery-path');
  });

  it('Send with a path chooser: the recovery path not reached yet is refused with when, and built as a PSBT to sign now and broadcast later', async () => {
    // the coin of the review step has 1 confirmation: the recovery path (older(10)) is 9 blocks away
    const payTo = await rpc.call<string>('getnewaddress', [], 'miner');
    await rig.page.goto(`${rig.web.bridge.origin}/#/send?seed=5`);
    await tid('send-path').waitFor({ timeout: 60_000 });
    expect(await tid('send-path-policy').innerText()).toBe('Key A, or key B after 10 blocks (~1 h 40 min)');
    const options = tid('send-path-option');
    expect(await options.count()).toBe(2);
    expect(await options.nth(0).getAttribute('data-checked')).toBe('true');
    expect(await options.nth(1).innerText()).toContain('key B after 10 blocks (~1 h 40 min)');
    expect(await options.nth(1).innerText()).toContain('nSequence 10');
    expect(await options.nth(1).getByTestId('send-path-readiness').innerText()).toMatch(/Not yet — recovery possible in 9 blocks \(height \d+, ~/);
    await tid('send-address').fill(payTo);
    await tid('send-amount').fill('0.2');
    await tid('send-fee-rate').fill('2');
    // primary path: previewed at once
    await rig.page.locator('[data-testid="send-sum-path"][data-path="p0"]').waitFor({ timeout: 30_000 });
    const primaryVsize = Number((await tid('send-sum-vsize').innerText()).split(' ')[0]);
    // recovery: refused, with when it becomes possible
    await options.nth(1).locator('input').check();
    await rig.page.locator('[data-testid="send-coins-error"]').first().waitFor({ timeout: 30_000 });
    expect(await rig.page.locator('[data-testid="send-coins-error"]').first().innerText()).toContain('yet: the first is possible in 9 blocks');
    // asked as a PSBT to sign now and broadcast later: built with nSequence 10, said not broadcastable yet
    await tid('send-path-sign-now').check();
    await rig.page.locator('[data-testid="send-sum-path"][data-path="p1"][data-sequence="10"]').waitFor({ timeout: 30_000 });
    expect(await tid('send-sum-not-before').innerText()).toMatch(/^Cannot be broadcast yet: possible in 9 blocks \(height \d+, ~/);
    expect(Number((await tid('send-sum-vsize').innerText()).split(' ')[0])).toBeGreaterThan(primaryVsize);
    await shot('83-policy-send-path');
  });
});
