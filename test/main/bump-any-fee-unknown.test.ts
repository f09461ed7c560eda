/**
 * CPFP when the parent's fee is not known (#28): a node that does not serve getmempoolentry (a method
 * whitelist, a restricting proxy: test/support/refusing-proxy.ts) and a profile without an index, so
 * the fee of a payment received from another wallet is known neither from the mempool nor from its
 * inputs. The options say so (fee unknown, never 0); the child is refused by name until the person
 * gives the parent's fee, then built on it, signed, broadcast and mined with the parent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { BumpOptionsView } from '../../shared/ipc/bump';
import type { BroadcastReply, DraftView } from '../../shared/ipc/send';
import { dispatchOk } from '../support/app';
import { startDevnetPayer } from '../support/payer-node';
import { startRefusingProxy } from '../support/refusing-proxy';
import { signPsbtBase64 } from '../support/signer';
import { makeSendWallets, type SendNode, type SendWallets } from './send-setup';

let n: SendNode;
let w: SendWallets;
let app: SpyglassApp;
let proxy: Awaited<ReturnType<typeof startRefusingProxy>>;
const dir = mkdtempSync(join(tmpdir(), 'spyglass-bump-unknown-'));

beforeAll(async () => {
  n = await startDevnetPayer('bump-unknown-pw');
  w = await makeSendWallets(n, Date.now().toString(36));
  proxy = await startRefusingProxy(n.rpcUrl, ['getmempoolentry']);
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
  const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
    profile: { name: 'Node', nodeUrl: proxy.url, auth: 'password', rpcUser: n.user, wallet: w.watch, indexUrl: '' },
    password: n.password,
    remember: 'session',
  });
  expect((await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id })).state).toBe('connected');
}, 300_000);
afterAll(async () => {
  await app?.close();
  await proxy?.close();
  await n?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("the parent's fee unknown: said so, the child refused until it is given, then built on it and mined with the parent", async () => {
  const to = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], w.watch);
  const parent = await n.rpc.call<string>('sendtoaddress', { address: to, amount: 0.25, fee_rate: 1 }, n.payer);
  const o = await dispatchOk<BumpOptionsView>(app, 'bump:options', { txid: parent });
  expect(o).toMatchObject({ direction: 'incoming', feeSats: null, feeSource: null, feeRate: null, ancestors: null, cpfp: { possible: true } });
  const out = o.cpfp.outputs.find((x) => x.address === to)!;
  const r = await app.dispatch('bump:cpfp', { txid: parent, vout: out.vout, feeRate: '10' });
  expect(!r.ok && r.error).toMatchObject({ code: 'input.invalid', message: expect.stringMatching(/is not known .* never assumed to be 0/), detail: { field: 'parentFee', reason: 'bump.parent_fee_unknown' } });
  expect(await app.dispatch('bump:cpfp', { txid: parent, vout: out.vout, feeRate: '10', parentFeeSats: '-1' })).toMatchObject({ ok: false, error: { code: 'input.invalid' } });

  const fee = Math.round((await n.rpc.call<{ fees: { base: number } }>('getmempoolentry', [parent])).fees.base * 1e8);
  const child = await dispatchOk<DraftView>(app, 'bump:cpfp', { txid: parent, vout: out.vout, feeRate: '10', parentFeeSats: String(fee), seed: 2 });
  expect(child.bump).toMatchObject({ kind: 'cpfp', parentFeeSats: String(fee), parentFeeSource: 'given', ancestorsVsize: 0 });
  expect(BigInt(child.bump!.packageFeeSats!) * 1000n).toBeGreaterThanOrEqual(10_000n * BigInt(child.bump!.packageVsize!));

  const exported = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: child.id, version: 0 });
  await dispatchOk(app, 'drafts:import', { texts: [{ text: signPsbtBase64(exported.base64, w.hotKeys).base64, source: 'child.psbt' }] });
  await dispatchOk(app, 'drafts:finalize', { id: child.id });
  const sent = await dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: child.id, confirmed: true });
  expect(sent.sent, sent.message ?? '').toBe(true);
  const mempool = await n.rpc.call<{ ancestorsize: number; fees: { ancestor: number } }>('getmempoolentry', [sent.txid]);
  expect(Math.round(mempool.fees.ancestor * 1e8) * 1000).toBeGreaterThanOrEqual(10_000 * mempool.ancestorsize);
  await n.mine(1);
  expect((await n.rpc.call<{ confirmations: number }>('gettransaction', [sent.txid], w.watch)).confirmations).toBe(1);
  expect((await n.rpc.call<{ confirmations: number }>('gettransaction', [parent], w.watch)).confirmations).toBe(1);
});
