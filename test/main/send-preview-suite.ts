/**
 * What you review is what you sign (#28) on the real main-process services against a node — the
 * devnet (send-preview-devnet.test.ts) or real Bitcoin Core 31.99 and 30.99 (send-preview-core.test.ts):
 * a watch-only wallet of six coins of different sizes; 20 rounds of preview → create with automatic
 * selection (the preview draws the random choices, the page carries them and the plan to create), each
 * draft spending exactly the preview's coins in its order, with its outputs, change and fee — and the
 * node's decodepsbt of the draft says the same txid and fee. A coin spent or frozen between preview
 * and create, the change address taken meanwhile, or a form changed after the preview: refused, named,
 * nothing built.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HDKey } from '@scure/bip32';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { BroadcastReply, DraftView, SendCreateReply, SendForm, SendPreviewReply, SendPreviewView } from '../../shared/ipc/send';
import { connectNode, dispatchOk } from '../support/app';
import type { PayerNode } from '../support/payer-node';
import { masters, REGTEST_VERSIONS, signPsbtBase64, xprvsOf } from '../support/signer';

/** Six coins, no two alike (BTC). */
const COINS = ['0.05', '0.3', '0.7', '1.1', '1.9', '2.6'];
/** What the rounds pay (BTC) and at what rate (sat/vB): changeless matches, random draws, several inputs. */
const ROUNDS: Array<[string, string]> = [
  ['0.1', '1'], ['0.25', '2'], ['0.5', '1.5'], ['0.9', '3'], ['1.3', '1'], ['2.0', '2'], ['3.5', '1'], ['0.01', '5'], ['0.6', '2.5'], ['1.05', '1'],
  ['0.29', '1'], ['4.2', '2'], ['0.75', '4'], ['1.5', '1'], ['0.02', '2'], ['2.9', '3'], ['0.33', '1'], ['1.8', '2'], ['0.299995', '1'], ['5.5', '1'],
];

type Listed = { descriptors: Array<{ desc: string; active: boolean; internal?: boolean; range?: [number, number] }> };

export function definePreviewSuite(start: () => Promise<PayerNode>): void {
  let n: PayerNode;
  let app: SpyglassApp;
  let payTo = '';
  let watch = '';
  let keys: HDKey[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-preview-'));
  const suffix = Date.now().toString(36);
  const preview = async (form: SendForm): Promise<SendPreviewView> => {
    const r = await dispatchOk<SendPreviewReply>(app, 'send:preview', { form });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return r.preview;
  };
  /** As the Send page does: the form with the preview's seed, and the preview's plan. */
  const createFrom = (form: SendForm, p: SendPreviewView) => dispatchOk<SendCreateReply>(app, 'send:create', { form: { ...form, seed: p.seed }, plan: p.plan });
  const payForm = (amount: string, feeRate: string): SendForm => ({ rows: [{ kind: 'pay', address: payTo, amount, label: `pay ${amount}` }], unit: 'btc', feeRate });

  beforeAll(async () => {
    n = await start();
    const hot = `phot-${suffix}`;
    watch = `pwatch-${suffix}`;
    await n.rpc.call('createwallet', [hot]);
    await n.rpc.call('createwallet', [watch, true, true, '', false, true, true]);
    const pub = await n.rpc.call<Listed>('listdescriptors', [], hot);
    const imported = await n.rpc.call<Array<{ success: boolean }>>(
      'importdescriptors',
      [pub.descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, range: d.range, timestamp: 'now', next_index: 0 }))],
      watch,
    );
    expect(imported.every((r) => r.success)).toBe(true);
    keys = masters(xprvsOf((await n.rpc.call<Listed>('listdescriptors', [true], hot)).descriptors), REGTEST_VERSIONS);
    for (const amount of COINS) await n.rpc.call('sendtoaddress', [await n.rpc.call<string>('getnewaddress', ['', 'bech32'], watch), Number(amount)], n.payer);
    await n.mine(1);
    payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    expect((await connectNode(app, n, watch)).state).toBe('connected');
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await n?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('20 rounds of preview → create, automatic selection: each draft is the preview — inputs in order, outputs, change, fee, txid', async () => {
    const c = await dispatchOk<{ coins: Array<{ amountSats: string }> }>(app, 'send:context');
    expect(new Set(c.coins.map((x) => x.amountSats)).size).toBe(COINS.length);
    const seeds = new Set<number>();
    let matched = 0;
    for (const [amount, rate] of ROUNDS) {
      const form = payForm(amount, rate);
      const p = await preview(form);
      seeds.add(p.seed);
      // the seed is drawn at random per form: a failure names it (a preview with that seed draws the same again)
      const at = `${amount} BTC at ${rate} sat/vB, seed ${p.seed}`;
      expect(p.selection.why, at).toMatch(/waste/i);
      // the search named won on Core's waste metric: none of the others found less
      const wastes = p.selection.considered.filter((c) => c.wasteSats !== null).map((c) => BigInt(c.wasteSats!));
      const won = p.selection.considered.find((c) => c.algorithm === p.selection.algorithm)!;
      expect(wastes.every((w) => BigInt(won.wasteSats!) <= w), at).toBe(true);
      const r = await createFrom(form, p);
      expect(r.ok, `${at}: ${JSON.stringify(!r.ok && r.errors)}`).toBe(true);
      if (!r.ok) continue;
      const d: DraftView = r.draft;
      expect(d.inputs.map((i) => i.outpoint), at).toEqual(p.inputs.map((i) => i.outpoint));
      expect(d.outputs, at).toEqual(p.outputs);
      expect(d.feeSats, at).toBe(p.feeSats);
      expect(d.vsize, at).toBe(p.vsize);
      expect(d.locktime, at).toBe(p.locktime);
      expect(d.unsignedTxid, at).toBe(p.unsignedTxid);
      // the node reads the draft's PSBT (as version 0: its unsigned transaction whole) as that transaction, paying that fee
      const v0 = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: d.id, version: 0 });
      const decoded = await n.rpc.call<{ tx: { txid: string }; fee?: number }>('decodepsbt', [v0.base64]);
      expect(decoded.tx.txid, at).toBe(p.unsignedTxid);
      if (decoded.fee !== undefined) expect(Math.round(decoded.fee * 1e8).toString(), at).toBe(p.feeSats);
      const change = p.outputs.find((o) => o.role === 'change');
      if (change) expect(await n.rpc.call<{ ismine: boolean; ischange: boolean }>('getaddressinfo', [change.address], watch), at).toMatchObject({ ismine: true, ischange: true });
      if (d.build.nodeAvailable) expect(d.build, `${at}: ${JSON.stringify(d.build.differences)}`).toMatchObject({ identical: true });
      matched++;
    }
    expect(matched).toBe(ROUNDS.length);
    // the random choices are drawn per form, not fixed
    expect(seeds.size).toBeGreaterThan(1);
  }, 600_000);

  it('the same form and seed preview the same transaction; create without a plan builds it from the seed too', async () => {
    const form = payForm('0.8', '2');
    const a = await preview(form);
    const b = await preview({ ...form, seed: a.seed });
    expect(b.unsignedTxid).toBe(a.unsignedTxid);
    expect(b.plan).not.toBe(a.plan);
    const r = await dispatchOk<SendCreateReply>(app, 'send:create', { form: { ...form, seed: a.seed } });
    expect(r.ok && r.draft.unsignedTxid).toBe(a.unsignedTxid);
  });

  it('a form changed after its preview, a plan used twice, or an unknown plan: refused, nothing built', async () => {
    const before = (await dispatchOk<{ drafts: unknown[] }>(app, 'drafts:list')).drafts.length;
    const form = payForm('0.4', '1');
    const p = await preview(form);
    const changed = await createFrom({ ...form, feeRate: '2' }, p);
    expect(!changed.ok && changed.errors[0]).toMatchObject({ field: 'recipients', message: expect.stringMatching(/form changed after the summary/) });
    const p2 = await preview(form);
    expect((await createFrom(form, p2)).ok).toBe(true);
    const twice = await createFrom(form, p2);
    expect(!twice.ok && twice.errors[0]!.message).toMatch(/no longer kept/);
    const unknown = await dispatchOk<SendCreateReply>(app, 'send:create', { form, plan: 'p_AAAAAAAAAAAAAAAA' });
    expect(!unknown.ok && unknown.errors[0]!.message).toMatch(/no longer kept/);
    expect((await dispatchOk<{ drafts: unknown[] }>(app, 'drafts:list')).drafts).toHaveLength(before + 1);
  });

  it('the change address taken by another program between preview and create: refused, then the next preview shows the next one', async () => {
    const form = payForm('0.45', '1');
    const p = await preview(form);
    const shown = p.outputs.find((o) => o.role === 'change');
    expect(shown).toBeDefined();
    const taken = await n.rpc.call<string>('getrawchangeaddress', ['bech32'], watch);
    expect(taken).toBe(shown!.address);
    const r = await createFrom(form, p);
    expect(!r.ok && r.errors[0]).toMatchObject({ field: 'change', message: expect.stringContaining(`not ${taken}`) });
    const again = await preview(form);
    const next = again.outputs.find((o) => o.role === 'change')!;
    expect(next.address).not.toBe(taken);
    const ok = await createFrom(form, again);
    expect(ok.ok && ok.draft.unsignedTxid).toBe(again.unsignedTxid);
  });

  it('a coin frozen, or spent, between preview and create: refused at the coins, naming the coin; nothing drawn again', async () => {
    const form = payForm('1.7', '1');
    const p = await preview(form);
    const coin = p.inputs[0]!.outpoint;
    await dispatchOk(app, 'send:freeze', { outpoint: coin, frozen: true });
    const frozen = await createFrom(form, p);
    expect(!frozen.ok && frozen.errors[0]).toMatchObject({ field: 'coins', message: expect.stringContaining(`${coin} the summary spends was frozen`) });
    await dispatchOk(app, 'send:freeze', { outpoint: coin, frozen: false });

    // spend the coin through the app itself (coin control, signed by the hot wallet's keys, broadcast)
    const p2 = await preview(form);
    const target = p2.inputs[0]!.outpoint;
    const spend = await dispatchOk<SendCreateReply>(app, 'send:create', { form: { rows: [{ kind: 'pay', address: payTo, amount: '', sendMax: true }], unit: 'btc', feeRate: '1', coins: [target] } });
    if (!spend.ok) throw new Error(JSON.stringify(spend.errors));
    const exported = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: spend.draft.id, version: 0 });
    await dispatchOk(app, 'drafts:import', { id: spend.draft.id, texts: [{ text: signPsbtBase64(exported.base64, keys).base64, source: 'spend.psbt' }] });
    await dispatchOk(app, 'drafts:finalize', { id: spend.draft.id });
    const sent = await dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: spend.draft.id, confirmed: true });
    expect(sent.sent, sent.message ?? '').toBe(true);
    const before = (await dispatchOk<{ drafts: unknown[] }>(app, 'drafts:list')).drafts.length;
    const gone = await createFrom(form, p2);
    expect(!gone.ok && gone.errors[0]).toMatchObject({ field: 'coins', message: expect.stringContaining(`${target} (`) });
    expect(!gone.ok && gone.errors[0]!.message).toMatch(/no longer among the wallet's unspent coins/);
    expect((await dispatchOk<{ drafts: unknown[] }>(app, 'drafts:list')).drafts).toHaveLength(before);
    await n.mine(1);
  });

  it('not enough coins: said at the amount, with what can be sent at this rate', async () => {
    const r = await dispatchOk<SendPreviewReply>(app, 'send:preview', { form: payForm('500', '1') });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]).toMatchObject({ row: 0, field: 'amount', message: expect.stringMatching(/^At most \d+\.\d{8} BTC can be sent at this fee rate: the spendable coins hold \d+\.\d{8} BTC/) });
  });
}
