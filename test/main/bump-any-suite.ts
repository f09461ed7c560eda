/**
 * Fee bumps from any unconfirmed wallet transaction (#28 item 2) on the real main-process services
 * against a node: the devnet (bump-any-devnet.test.ts) or real Bitcoin Core of both generations
 * (bump-any-core.test.ts, `npm run test:core`). The watch-only wallet imports the public descriptors
 * of the node's key wallet `hot` (send-setup.ts), so the test signer holds its keys:
 *
 * - a payment received at 1 sat/vB from another wallet: no RBF (inputs not ours), CPFP from its
 *   output — the child's package at the chosen rate — signed, broadcast, both mined in the next block;
 * - a payment the node's own key wallet made from the same keys: RBF — built here and by the node's
 *   psbtbumpfee, the two agreeing — signed, broadcast, the original gone from the mempool, the
 *   replacement mined; with a child in the mempool it is no longer replaceable (said why);
 * - a payment that does not signal BIP125: on these nodes (full RBF) replaceable, said so;
 * - refusals by name: a confirmed transaction, one the wallet does not know, an output not ours, a rate
 *   below what a replacement must pay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { formatSatPerVb } from '../../shared/bitcoin/spend/feerate';
import type { BumpOptionsView } from '../../shared/ipc/bump';
import type { BroadcastReply, DraftView, ImportReply, PreflightView } from '../../shared/ipc/send';
import { connectNode, dispatchOk } from '../support/app';
import { signPsbtBase64 } from '../support/signer';
import { makeSendWallets, type SendNode, type SendWallets } from './send-setup';

type WalletTx = { confirmations: number; blockhash?: string };

export function defineBumpAnySuite(start: () => Promise<SendNode>): void {
  let n: SendNode;
  let w: SendWallets;
  let app: SpyglassApp;
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-bump-'));
  const suffix = Date.now().toString(36);
  const hot = `hot-${suffix}`;
  /** Core's wallets learn of a mempool transaction asynchronously: wait until every wallet has it. */
  const settle = () => n.rpc.call('syncwithvalidationinterfacequeue');
  const options = async (txid: string) => {
    await settle();
    return dispatchOk<BumpOptionsView>(app, 'bump:options', { txid });
  };
  const signAndBroadcast = async (d: DraftView): Promise<BroadcastReply> => {
    const exported = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: d.id, version: 0 });
    const signed = signPsbtBase64(exported.base64, w.hotKeys);
    expect(signed.signed.length).toBe(d.inputs.length);
    const back = await dispatchOk<ImportReply>(app, 'drafts:import', { texts: [{ text: signed.base64, source: 'signed.psbt' }] });
    expect(back.draft.id).toBe(d.id);
    const fin = await dispatchOk<DraftView>(app, 'drafts:finalize', { id: d.id });
    expect(fin.status).toBe('final');
    const pre = await dispatchOk<PreflightView>(app, 'drafts:preflight', { id: d.id });
    expect(pre, pre.words ?? '').toMatchObject({ allowed: true, txid: fin.finalTx!.txid });
    const sent = await dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: d.id, confirmed: true });
    expect(sent.sent, sent.message ?? '').toBe(true);
    return sent;
  };
  const refused = async (channel: string, payload: unknown): Promise<{ code: string; message: string; detail?: Record<string, unknown> }> => {
    const r = await app.dispatch(channel, payload);
    if (r.ok) throw new Error(`${channel} was not refused`);
    return r.error as { code: string; message: string; detail?: Record<string, unknown> };
  };

  beforeAll(async () => {
    n = await start();
    w = await makeSendWallets(n, suffix);
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    expect((await connectNode(app, n, w.watch)).state).toBe('connected');
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await n?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('CPFP of a payment received at 1 sat/vB', () => {
    it('no RBF (the inputs are the sender’s); a child of our output lifts the package to the rate; both mined in the next block', async () => {
      const to = await n.rpc.call<string>('getnewaddress', ['slow payment', 'bech32'], w.watch);
      const parent = await n.rpc.call<string>('sendtoaddress', { address: to, amount: 0.4, fee_rate: 1, replaceable: true }, n.payer);
      const o = await options(parent);
      expect(o).toMatchObject({ txid: parent, confirmations: 0, direction: 'incoming', feeSource: 'mempool', rbf: { possible: false }, cpfp: { possible: true, reason: null } });
      expect(o.rbf.reason).toMatch(/^Inputs not ours/);
      const entry = await n.rpc.call<{ vsize: number; fees: { base: number } }>('getmempoolentry', [parent]);
      expect(o.vsize).toBe(entry.vsize);
      expect(o.feeSats).toBe(Math.round(entry.fees.base * 1e8).toString());
      // The sender's wallet pays 1 sat/vB on its size estimate; a signature a byte shorter than estimated
      // (Core's low-R grinding gives 71 bytes, now and then 70) leaves the real rate a little above 1.
      // The shown rate is the mempool's fee over its vsize, in thousandths, rounded down.
      const milli = (BigInt(o.feeSats!) * 1000n) / BigInt(entry.vsize);
      expect(o.feeRate).toBe(formatSatPerVb(milli).replace(' sat/vB', ''));
      expect(milli).toBeGreaterThanOrEqual(1000n);
      expect(milli).toBeLessThan(1010n);
      const out = o.cpfp.outputs.find((x) => x.address === to)!;
      expect(out).toMatchObject({ role: 'receive', amountSats: '40000000' });

      // a rate below the node's minimum relay fee, an output that is not ours: refused by name
      expect((await refused('bump:cpfp', { txid: parent, vout: out.vout, feeRate: '0.01' })).message).toMatch(/minimum relay fee/);
      const notOurs = o.cpfp.outputs.length === 1 ? 1 - out.vout : 99;
      expect(await refused('bump:cpfp', { txid: parent, vout: notOurs, feeRate: '10' })).toMatchObject({ code: 'input.invalid', message: expect.stringMatching(/is not an unspent output of yours/) });

      const child = await dispatchOk<DraftView>(app, 'bump:cpfp', { txid: parent, vout: out.vout, feeRate: '10', seed: 3 });
      expect(child.inputs.map((i) => i.outpoint)).toEqual([`${parent}:${out.vout}`]);
      expect(child.outputs).toHaveLength(1);
      expect(child.bump).toMatchObject({ kind: 'cpfp', txid: parent, targetRate: '10', parentVsize: entry.vsize, parentFeeSats: o.feeSats, parentFeeSource: 'mempool', childVsize: child.vsize, childFeeSats: child.feeSats });
      const b = child.bump!;
      expect(b.packageVsize).toBe(entry.vsize + child.vsize + b.ancestorsVsize!);
      expect(BigInt(b.packageFeeSats!)).toBe(BigInt(o.feeSats!) + BigInt(child.feeSats) + BigInt(b.ancestorsFeeSats!));
      // the package pays the rate, and not a sat/vB more than rounding needs
      expect(BigInt(b.packageFeeSats!) * 1000n).toBeGreaterThanOrEqual(10_000n * BigInt(b.packageVsize!));
      expect(BigInt(b.packageFeeSats!)).toBeLessThan((10n * BigInt(b.packageVsize!)) + BigInt(child.vsize));
      // the child's PSBT carries the parent itself (it hashes to its txid) and our key path: the signer signs it
      expect(child.noKeyPaths).toEqual([]);
      expect(child.prevTxSources.node + child.prevTxSources.cache + child.prevTxSources.index).toBe(1);

      const sent = await signAndBroadcast(child);
      const pool = await n.rpc.call<string[]>('getrawmempool');
      expect(pool).toEqual(expect.arrayContaining([parent, sent.txid]));
      const childEntry = await n.rpc.call<{ ancestorsize: number; fees: { ancestor: number } }>('getmempoolentry', [sent.txid]);
      expect(Math.round(childEntry.fees.ancestor * 1e8) * 1000).toBeGreaterThanOrEqual(10_000 * childEntry.ancestorsize);
      // now the parent has a child: options say so
      const after = await options(parent);
      expect(after.cpfp.outputs.map((x) => x.vout)).not.toContain(out.vout);

      await n.mine(1);
      const p = await n.rpc.call<WalletTx>('gettransaction', [parent], w.watch);
      const c = await n.rpc.call<WalletTx>('gettransaction', [sent.txid], w.watch);
      expect(p.confirmations).toBe(1);
      expect(c).toMatchObject({ confirmations: 1, blockhash: p.blockhash });
      expect((await options(parent)).rbf.reason).toMatch(/^Confirmed \(1 confirmation\)/);
      expect((await options(parent)).cpfp).toMatchObject({ possible: false, reason: expect.stringMatching(/^Confirmed/) });
    });
  });

  describe("RBF of a payment made by the node's own wallet from the same keys", () => {
    it('built here and by psbtbumpfee (they agree), signed by the test signer, replaces the original, mined', async () => {
      const payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
      const original = await n.rpc.call<string>('sendtoaddress', { address: payTo, amount: 0.3, fee_rate: 1, replaceable: true }, hot);
      const o = await options(original);
      expect(o).toMatchObject({ direction: 'outgoing', signals: true, feeSource: 'mempool', rbf: { possible: true, reason: null, note: null } });
      const low = await refused('bump:rbf', { txid: original, feeRate: '1' });
      expect(low).toMatchObject({ code: 'input.invalid', message: expect.stringMatching(/a replacement must pay at least/) });
      expect(o.rbf.minRate).not.toBeNull();

      const bump = await dispatchOk<DraftView>(app, 'bump:rbf', { txid: original, feeRate: '5' });
      expect(bump.bump).toMatchObject({ kind: 'rbf', txid: original, targetRate: '5', oldFeeSats: o.feeSats });
      const raw = await n.rpc.call<{ vin: Array<{ txid: string; vout: number }>; vout: Array<{ value: number; scriptPubKey: { address?: string } }> }>('getrawtransaction', [original, true]);
      expect(bump.inputs.map((i) => i.outpoint).sort()).toEqual(raw.vin.map((i) => `${i.txid}:${i.vout}`).sort());
      const recipient = bump.outputs.find((x) => x.role === 'recipient')!;
      expect(recipient).toMatchObject({ address: payTo, amountSats: '30000000' });
      const oldChange = raw.vout.find((x) => x.scriptPubKey.address !== payTo)!;
      const change = bump.outputs.find((x) => x.role === 'change')!;
      expect(BigInt(change.amountSats)).toBe(BigInt(Math.round(oldChange.value * 1e8)) - (BigInt(bump.feeSats) - BigInt(o.feeSats!)));
      expect(bump.build, bump.build.reason ?? '').toMatchObject({ method: 'psbtbumpfee', nodeAvailable: true, identical: true, differences: [] });
      expect(bump.noKeyPaths).toEqual([]);

      const sent = await signAndBroadcast(bump);
      const pool = await n.rpc.call<string[]>('getrawmempool');
      expect(pool).toContain(sent.txid);
      expect(pool).not.toContain(original);
      expect((await options(original)).rbf).toMatchObject({ possible: false });

      // a child of the replacement's change in the mempool: RBF no longer (it would evict the child)
      const withChild = await options(sent.txid);
      const childOf = withChild.cpfp.outputs.find((x) => x.role === 'change')!;
      const child = await dispatchOk<DraftView>(app, 'bump:cpfp', { txid: sent.txid, vout: childOf.vout, feeRate: '8', seed: 1 });
      const childSent = await signAndBroadcast(child);
      const blocked = await options(sent.txid);
      expect(blocked.rbf).toMatchObject({ possible: false, reason: expect.stringMatching(/descendants in the mempool/) });
      expect(blocked.rbf.reason).toContain(childSent.txid.slice(0, 12));

      await n.mine(1);
      expect((await n.rpc.call<WalletTx>('gettransaction', [sent.txid], w.watch)).confirmations).toBe(1);
      expect((await n.rpc.call<WalletTx>('gettransaction', [original], w.watch)).confirmations).toBe(-1);
    });

    it('a payment that does not signal BIP125: replaceable on a full-RBF node, said so', async () => {
      const payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
      const original = await n.rpc.call<string>('sendtoaddress', { address: payTo, amount: 0.1, fee_rate: 2, replaceable: false }, hot);
      const o = await options(original);
      expect(o).toMatchObject({ signals: false, fullRbf: true, rbf: { possible: true, note: expect.stringMatching(/does not signal replaceability.*full RBF/) } });
      const bump = await dispatchOk<DraftView>(app, 'bump:rbf', { txid: original, feeRate: '6' });
      expect(bump.rbf).toBe(true);
      expect(bump.build).toMatchObject({ nodeAvailable: true, identical: true });
      const sent = await signAndBroadcast(bump);
      expect(await n.rpc.call<string[]>('getrawmempool')).not.toContain(original);
      await n.mine(1);
      expect((await n.rpc.call<WalletTx>('gettransaction', [sent.txid], w.watch)).confirmations).toBe(1);
    });

    it('a transaction the wallet does not know is refused by name', async () => {
      const other = await n.rpc.call<string>('sendtoaddress', { address: await n.rpc.call<string>('getnewaddress', [], n.payer), amount: 0.01 }, n.payer);
      expect(await refused('bump:options', { txid: other })).toMatchObject({ code: 'input.invalid', message: expect.stringMatching(/is not a transaction of the wallet/) });
      await n.mine(1);
    });
  });
}
