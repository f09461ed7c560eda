/**
 * Send along a chosen spending path on the real main-process services against a node (issue #32): the
 * devnet (send-path-devnet.test.ts) or real Bitcoin Core of both generations (send-path-core.test.ts).
 * A watch-only wallet of "A, or B after 10 blocks" on the node (imported with importdescriptors, as
 * test/e2e/policy.e2e.test.ts does), funded. Send's context lists the policy's paths and each coin's
 * readiness; previewing the recovery path before its lock is refused with when it becomes possible;
 * asked as a PSBT to sign now and broadcast later, it is built with nSequence 10 and says from when;
 * once the coin has 10 confirmations the recovery spend is previewed and created — the draft's PSBT
 * has nSequence 10 on its input, the preview's fee and txid, and the path's larger input size; the
 * primary path's preview keeps the RBF nSequence and a smaller fee. (Core's listunspent names the
 * coin's miniscript descriptor; the devnet's says addr(), so there the coin is found in the wallet's.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { decodeBase64Core, parsePsbtForReview } from '../../shared/bitcoin/psbt';
import type { SendContextView, SendCreateReply, SendForm, SendPreviewReply } from '../../shared/ipc/send';
import { dispatchOk } from '../support/app';
import type { PayerNode } from '../support/payer-node';

const XA = 'tpubDEw4nZ7PYWjNb8hsDquhRUdQ7HesUBeUwdJSCFkQ91ok6nRtBwY3YSMox6iFB4iWcDwAUVCV9zdio6HQKEGU7xe2RnHqrWqKvRdRA76s9Jr';
const XB = 'tpubDEVLDZmVHbHSdU9xzaMV6tLPEbFZCoXm7MLW5VkLTpx3rZKwPr1PvbTfFcAwvKBHYwmBuGxyrhE1dVdVVVC8fcHQ85ut49Ut6vzd1tVXBup';
const recovery = (branch: number) => `wsh(or_d(pk([e11d7cc1/48h/1h/0h/2h]${XA}/${branch}/*),and_v(v:pkh([e0975ead/48h/1h/0h/2h]${XB}/${branch}/*),older(10))))`;

export function defineSendPathSuite(start: () => Promise<PayerNode>): void {
  describe('Send along a spending path', () => {
  let n: PayerNode;
  let app: SpyglassApp;
  let payTo = '';
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-sendpath-'));
  const form = (path: SendForm['path']): SendForm => ({
    rows: [{ kind: 'pay', address: payTo, amount: '0.3', sendMax: false, label: '' }],
    unit: 'btc',
    feeRate: '2',
    coins: null,
    includeUnconfirmed: false,
    change: { mode: 'auto' },
    rbf: true,
    locktime: null,
    name: '',
    seed: 11,
    path,
  });
  const preview = (f: SendForm) => dispatchOk<SendPreviewReply>(app, 'send:preview', { form: f });

  beforeAll(async () => {
    n = await start();
    await n.rpc.call('createwallet', ['recovery', true, true, '', false, true, false]);
    const withChecksum = async (d: string) => `${d}#${(await n.rpc.call<{ checksum: string }>('getdescriptorinfo', [d])).checksum}`;
    const imported = await n.rpc.call<Array<{ success: boolean }>>(
      'importdescriptors',
      [[
        { desc: await withChecksum(recovery(0)), active: true, range: [0, 20], timestamp: 'now', internal: false },
        { desc: await withChecksum(recovery(1)), active: true, range: [0, 20], timestamp: 'now', internal: true },
      ]],
      'recovery',
    );
    expect(imported.map((r) => r.success)).toEqual([true, true]);
    const [address] = await n.rpc.call<string[]>('deriveaddresses', [await withChecksum(recovery(0)), [0, 0]]);
    await n.rpc.call('sendtoaddress', [address, 1], n.payer);
    await n.mine(3);
    payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Policy', nodeUrl: n.rpcUrl, auth: 'password', rpcUser: n.user, wallet: 'recovery', indexUrl: n.indexUrl },
      password: n.password,
      remember: 'session',
    });
    expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await n?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("Send's context: the policy's paths, and the coin's readiness along each", async () => {
    const ctx = await dispatchOk<SendContextView>(app, 'send:context', {});
    expect(ctx.coins).toHaveLength(1);
    const coin = ctx.coins[0]!;
    expect(coin.unusable).toBeNull();
    expect(coin.type).toBe('p2wsh miniscript');
    expect(ctx.policy!.words).toBe('Key A, or key B after 10 blocks (~1 h 40 min)');
    expect(ctx.policy!.paths).toEqual([
      { id: 'p0', words: 'key A', sequence: null, minLocktime: null },
      { id: 'p1', words: 'key B after 10 blocks (~1 h 40 min)', sequence: 10, minLocktime: null },
    ]);
    expect(ctx.policy!.readiness[coin.outpoint]!['p0']).toBe('');
    expect(ctx.policy!.readiness[coin.outpoint]!['p1']).toMatch(new RegExp(`^possible in 7 blocks \\(height ${ctx.tipHeight + 7}, ~`));
  });

  it('the recovery path before its lock: refused with when; as a PSBT to sign now and broadcast later, built with nSequence 10', async () => {
    const refused = await preview(form({ id: 'p1', signNow: false }));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors[0]).toMatchObject({ field: 'coins', message: expect.stringContaining('No coin can take the path "key B after 10 blocks (~1 h 40 min)" yet: the first is possible in 7 blocks') });
    const later = await preview(form({ id: 'p1', signNow: true }));
    if (!later.ok) throw new Error(JSON.stringify(later.errors));
    expect(later.preview.path).toMatchObject({ id: 'p1', sequence: 10, notBefore: { blocksLeft: 7, estimate: false, words: expect.stringContaining('Cannot be broadcast yet: possible in 7 blocks') } });
  });

  it('after 10 confirmations: the recovery spend is previewed and created exactly, nSequence 10 in its PSBT', async () => {
    await n.mine(7);
    // the page's context asks the node again (previews compose from the facts it fetched)
    const ctx = await dispatchOk<SendContextView>(app, 'send:context', {});
    expect(ctx.policy!.readiness[ctx.coins[0]!.outpoint]).toEqual({ p0: '', p1: '' });
    const primary = await preview(form(null));
    const rec = await preview(form({ id: 'p1', signNow: false }));
    if (!primary.ok || !rec.ok) throw new Error(`preview refused: ${JSON.stringify([primary, rec])}`);
    expect(primary.preview.path).toMatchObject({ id: 'p0', sequence: null, notBefore: null });
    expect(rec.preview.path).toMatchObject({ id: 'p1', sequence: 10, notBefore: null });
    // the recovery witness (signature, key, empty push) is larger than the primary one (a signature)
    expect(rec.preview.vsize).toBeGreaterThan(primary.preview.vsize);
    expect(BigInt(rec.preview.feeSats)).toBeGreaterThan(BigInt(primary.preview.feeSats));
    const created = await dispatchOk<SendCreateReply>(app, 'send:create', { form: { ...form({ id: 'p1', signNow: false }), seed: rec.preview.seed }, plan: rec.preview.plan });
    if (!created.ok) throw new Error(JSON.stringify(created.errors));
    const d = created.draft;
    expect(d.unsignedTxid).toBe(rec.preview.unsignedTxid);
    expect(d.feeSats).toBe(rec.preview.feeSats);
    // the node's createpsbt of the same transaction (sequences and locktime given), byte for byte, where the node has it
    if (d.build.nodeAvailable) expect(d.build.identical).toBe(true);
    const exported = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: d.id, version: 0 });
    const parsed = parsePsbtForReview(decodeBase64Core(exported.base64)!);
    if (!parsed.ok) throw new Error(parsed.message);
    const tx = parsed.psbt.unsignedTx!;
    expect(tx.vin.map((i) => i.sequence)).toEqual([10]);
    expect(tx.version).toBe(2);
    expect(tx.locktime).toBe(rec.preview.locktime);
    expect(d.path).toMatchObject({ id: 'p1', sequence: 10, notBefore: null });
    // filled for the signer: the witness script of the wallet's policy
    expect(parsed.psbt.inputs[0]!.witnessScript?.length).toBeGreaterThan(0);
  });
  });
}
