/**
 * Send and the way back (#15, #16) on the real main-process services against a node: the devnet
 * (send-devnet.test.ts) or real Bitcoin Core of both generations (send-core.test.ts, `npm run test:core`).
 * A single-sig watch-only wallet pays with one coin of each type: built twice (the node's createpsbt
 * byte for byte), filled exactly as the node's walletprocesspsbt, exported as v0, signed by a test
 * signer from what the PSBT carries, imported, finalized (the node's finalizepsbt agrees), preflighted,
 * broadcast, mined, labelled; a fee bump replaces a spend in the mempool; a 2-of-3 vault is signed by
 * two cosigners separately (one answering in the other PSBT version), combined, finalized, broadcast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { parseTx, serializeTx } from '../../shared/bitcoin/tx';
import * as btc from '@scure/btc-signer';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { convertPsbtBase64 } from '../../shared/bitcoin/psbt';
import type { BroadcastReply, DraftView, ImportReply, PreflightView, SendContextView, SendCreateReply, SendForm } from '../../shared/ipc/send';
import { connectNode, dispatchOk } from '../support/app';
import { signPsbtBase64 } from '../support/signer';
import { makeSendWallets, type SendNode, type SendWallets } from './send-setup';

export function defineSendSuite(start: () => Promise<SendNode>): void {
  let n: SendNode;
  let w: SendWallets;
  let app: SpyglassApp;
  let profileId = '';
  let payTo = '';
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-send-'));
  const suffix = Date.now().toString(36);
  const has = new Map<string, boolean>();
  const nodeHas = async (method: string): Promise<boolean> => {
    // a call without its arguments: "Method not found" (-32601) or any other answer
    if (!has.has(method)) has.set(method, await n.rpc.call(method, []).then(() => true, (e: { code?: number }) => e.code !== -32601));
    return has.get(method)!;
  };
  const create = (form: SendForm) => dispatchOk<SendCreateReply>(app, 'send:create', { form });
  const useWallet = async (wallet: string) => {
    expect((await connectNode(app, n, wallet, profileId)).state).toBe('connected');
  };
  const signedBy = async (d: DraftView, keys: SendWallets['hotKeys'], version: 0 | 2 = 0) => {
    const exported = await dispatchOk<{ base64: string; version: number }>(app, 'drafts:export', { id: d.id, version });
    expect(exported.version).toBe(version);
    return signPsbtBase64(exported.base64, keys);
  };
  const broadcastAll = async (d: DraftView): Promise<BroadcastReply> => {
    const fin = await dispatchOk<DraftView>(app, 'drafts:finalize', { id: d.id });
    expect(fin.status).toBe('final');
    if (fin.signing.next === 'extractor' && d.status !== 'final') {
      expect(fin.finalCheck).toEqual((await nodeHas('finalizepsbt')) ? "your node's finalizepsbt extracts the same transaction" : expect.stringMatching(/could not check it/));
    }
    const pre = await dispatchOk<PreflightView>(app, 'drafts:preflight', { id: d.id });
    expect(pre, pre.words ?? '').toMatchObject({ allowed: true, tested: await nodeHas('testmempoolaccept'), txid: fin.finalTx!.txid });
    expect(pre.recipients.map((r) => r.amountSats)).toEqual(d.outputs.map((o) => o.amountSats));
    return dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: d.id, confirmed: true });
  };

  beforeAll(async () => {
    n = await start();
    w = await makeSendWallets(n, suffix);
    payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
    app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
    const c = await connectNode(app, n, w.watch);
    profileId = c.profileId;
    expect(c.state).toBe('connected');
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await n?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('compose from a single-sig watch-only wallet', () => {
    let draft: DraftView;

    it("context: the wallet's coins of every type, fee presets or the no-estimate state, the node's PSBT version", async () => {
      const c = await dispatchOk<SendContextView>(app, 'send:context');
      expect(c.wallet).toBe(w.watch);
      expect(c.offline).toBe(false);
      const types = new Set(c.coins.map((x) => x.type));
      expect([...types].sort()).toEqual(['p2pkh', 'p2sh-p2wpkh', 'p2tr', 'p2wpkh']);
      expect(c.coins.every((x) => x.keyPaths && x.unusable === null)).toBe(true);
      expect(c.presets.map((p) => p.id)).toEqual(['next-block', '30-min', '1-hour', '1-day']);
      expect(c.noEstimate).toBe(c.presets.every((p) => p.economical.satVb === null && p.conservative.satVb === null));
      expect(c.nodePsbtVersion).toBe(/Satoshi:30\./.test(c.node) ? 0 : 2);
    });

    it('one coin of each type to one recipient: built twice (the same bytes as createpsbt), filled as walletprocesspsbt', async () => {
      const c = await dispatchOk<SendContextView>(app, 'send:context');
      const r = await create({ rows: [{ kind: 'pay', address: payTo, amount: '3.5', label: 'rent' }], unit: 'btc', feeRate: '2', coins: c.coins.map((x) => x.outpoint), seed: 42, name: 'Rent' });
      expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
      if (!r.ok) return;
      draft = r.draft;
      expect(draft.inputs).toHaveLength(4);
      expect(draft.outputs.map((o) => o.role).sort()).toEqual(['change', 'recipient']);
      expect(draft.status).toBe('unsigned');
      if (await nodeHas('createpsbt')) expect(draft.build, JSON.stringify(draft.build.differences)).toMatchObject({ nodeAvailable: true, identical: true });
      else expect(draft.build.nodeAvailable).toBe(false);
      if (await nodeHas('walletprocesspsbt')) {
        const node = await n.rpc.call<{ psbt: string }>('walletprocesspsbt', [draft.psbt, false, 'DEFAULT', true, false], w.watch);
        expect(draft.psbt).toBe(node.psbt);
      }
      expect(draft.signing.complete).toBe(false);
      if (await nodeHas('analyzepsbt')) {
        const a = await n.rpc.call<{ next: string; inputs: unknown[] }>('analyzepsbt', [draft.psbt]);
        expect(draft.signing.next, JSON.stringify(a.inputs)).toBe(a.next);
      }
      // the review recognises the draft's inputs and change as the wallet's
      const review = await dispatchOk<{ review: { inputs: Array<{ watched: boolean }>; outputs: Array<{ kind: string; amountSats: string }> } }>(app, 'psbt:review', { psbt: draft.psbt });
      expect(review.review.inputs.every((i) => i.watched)).toBe(true);
      expect(review.review.outputs.map((o) => o.kind)).toEqual(draft.outputs.map((o) => (o.role === 'change' ? 'change' : 'external')));
      // the recipient's label is kept as a BIP329 address label
      const labels = await dispatchOk<{ text: string }>(app, 'drafts:labels', { id: draft.id });
      expect(labels.text).toContain(`{"type":"addr","ref":"${payTo}","label":"rent"}`);
      expect((await dispatchOk<{ drafts: Array<{ id: string }> }>(app, 'drafts:list')).drafts.map((d) => d.id)).toContain(draft.id);
    });

    it('bad input gets a message at its field, and nothing is saved', async () => {
      const before = (await dispatchOk<{ drafts: unknown[] }>(app, 'drafts:list')).drafts.length;
      const cases: Array<[SendForm, string, RegExp]> = [
        [{ rows: [{ kind: 'pay', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', amount: '0.1' }], unit: 'btc', feeRate: '2' }, 'address', /mainnet address/],
        [{ rows: [{ kind: 'pay', address: payTo, amount: '100' }], unit: 'sats', feeRate: '2' }, 'amount', /dust/],
        [{ rows: [{ kind: 'pay', address: payTo, amount: '0.123456789' }], unit: 'btc', feeRate: '2' }, 'amount', /8 decimals/],
        [{ rows: [{ kind: 'pay', address: payTo, amount: '500' }], unit: 'btc', feeRate: '2' }, 'amount', /can be sent at this fee rate.*missing/],
        [{ rows: [{ kind: 'pay', address: payTo, amount: '0.1' }], unit: 'btc', feeRate: '0' }, 'feeRate', /above 0/],
        [{ rows: [{ kind: 'pay', address: payTo, amount: '0.1' }], unit: 'btc', feeRate: '20000' }, 'feeRate', /maximum/],
      ];
      for (const [form, field, msg] of cases) {
        const r = await create(form);
        expect(r.ok).toBe(false);
        if (r.ok) continue;
        expect(r.errors[0]!.field).toBe(field);
        expect(r.errors[0]!.message).toMatch(msg);
      }
      expect((await dispatchOk<{ drafts: unknown[] }>(app, 'drafts:list')).drafts).toHaveLength(before);
    });

    it('imports refuse another transaction, a damaged file, the same PSBT twice; an unsigned draft is not broadcast', async () => {
      const other = await create({ rows: [{ kind: 'pay', address: payTo, amount: '0.01' }], unit: 'btc', feeRate: '3', seed: 9 });
      if (!other.ok) throw new Error('compose failed');
      const wrong = await dispatchOk<ImportReply>(app, 'drafts:import', { id: draft.id, texts: [{ text: other.draft.psbt, source: 'other.psbt' }, { text: draft.psbt.slice(0, 60), source: 'cut.psbt' }] });
      expect(wrong.results).toMatchObject([
        // the other draft's PSBT names the draft it belongs to
        { source: 'other.psbt', ok: false, message: expect.stringContaining(`another transaction`) },
        { source: 'cut.psbt', ok: false, message: expect.stringMatching(/^The PSBT is cut short after 45 bytes/), detail: expect.stringMatching(/^decodepsbt: TX decode failed .*end of data/) },
      ]);
      expect(wrong.results[0]!.message).toContain(`It belongs to your draft “${other.draft.name}”: open it there.`);
      expect(wrong.draft.status).toBe('unsigned');
      const nowhere = await app.dispatch('drafts:import', { texts: [{ text: draft.psbt.slice(0, 60), source: 'cut.psbt' }] });
      expect(!nowhere.ok && nowhere.error.message).toMatch(/cut\.psbt/);
      const signed = await signedBy(draft, w.hotKeys);
      const first = await dispatchOk<ImportReply>(app, 'drafts:import', { texts: [{ text: signed.base64, source: 'signed.psbt' }] });
      expect(first.draft.id).toBe(draft.id);
      expect(first.results[0]!.ok).toBe(true);
      const again = await dispatchOk<ImportReply>(app, 'drafts:import', { id: draft.id, texts: [{ text: signed.base64, source: 'signed.psbt' }] });
      expect(again.results[0]).toMatchObject({ ok: false, message: expect.stringMatching(/imported before/) });
      const early = await app.dispatch('drafts:broadcast', { id: other.draft.id, confirmed: true });
      expect(!early.ok && early.error.message).toMatch(/Not fully signed/);
      expect((await app.dispatch('drafts:delete', { id: other.draft.id })).ok).toBe(true);
    });

    it('signed by the test signer from what the PSBT carries: finalize, preflight, broadcast, pending, mined, labelled', async () => {
      const d = await dispatchOk<DraftView>(app, 'drafts:get', { id: draft.id });
      expect(d.status).toBe('signed');
      expect(d.signing.complete).toBe(true);
      const sent = await broadcastAll(d);
      expect(sent.sent, sent.message ?? '').toBe(true);
      const fin = sent.draft.finalTx!;
      // the size estimate: never below the signed transaction, at most 1 vB per input above
      expect(d.vsize).toBeGreaterThanOrEqual(fin.vsize);
      expect(d.vsize - fin.vsize).toBeLessThanOrEqual(d.inputs.length);
      expect(await n.rpc.call<{ vsize: number }>('getmempoolentry', [sent.txid])).toMatchObject({ vsize: fin.vsize });
      expect(sent.draft).toMatchObject({ status: 'sent', txid: sent.txid });
      await n.mine(1);
      const list = await dispatchOk<{ drafts: Array<{ id: string; status: string }> }>(app, 'drafts:list');
      expect(list.drafts.find((x) => x.id === draft.id)!.status).toBe('confirmed');
      const labels = await dispatchOk<{ text: string }>(app, 'drafts:labels', { id: draft.id });
      expect(labels.text).toContain(`{"type":"tx","ref":"${sent.txid}","label":"Rent"}`);
      const recipient = d.outputs.find((o) => o.role === 'recipient')!;
      expect(labels.text).toContain(`{"type":"output","ref":"${sent.txid}:${recipient.index}","label":"rent"}`);
      // broadcasting it again once it is confirmed: said so, nothing sent
      const again = await dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: draft.id, confirmed: true });
      expect(again).toMatchObject({ sent: false, kept: false, message: expect.stringMatching(/already confirmed/), draft: { status: 'confirmed' } });
    });

    it('a fully signed raw transaction pasted back is matched to its draft, checked against the coins, and broadcast', async () => {
      const r = await create({ rows: [{ kind: 'pay', address: payTo, amount: '0.02' }], unit: 'btc', feeRate: '2', seed: 77 });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const exported = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: r.draft.id, version: 0 });
      const tx = btc.Transaction.fromPSBT(base64.decode(signPsbtBase64(exported.base64, w.hotKeys).base64));
      tx.finalize();
      const rawHex = tx.hex;
      // the same transaction with one signature byte changed (inside R: still DER, no longer valid)
      const parsed = parseTx(hex.decode(rawHex));
      const vin = parsed.vin.map((i) => ({ ...i, witness: i.witness.map((x) => Uint8Array.from(x)), scriptSig: Uint8Array.from(i.scriptSig) }));
      const sig = vin[0]!.witness.length ? vin[0]!.witness[0]! : vin[0]!.scriptSig.subarray(1);
      sig[10] = sig[10]! ^ 1;
      const spoilt = hex.encode(serializeTx({ ...parsed, vin }, { witness: true }));
      expect(spoilt).not.toBe(rawHex);
      const bad = await dispatchOk<ImportReply>(app, 'drafts:import', { id: r.draft.id, texts: [{ text: spoilt, source: 'bad-tx.hex' }] });
      expect(bad.results[0]).toMatchObject({ ok: false, message: expect.stringMatching(/does not verify/) });
      expect(bad.draft.status).toBe('unsigned');
      const back = await dispatchOk<ImportReply>(app, 'drafts:import', { texts: [{ text: rawHex, source: 'signed-tx.hex' }] });
      expect(back.results[0]).toMatchObject({ ok: true, message: expect.stringMatching(/fully signed transaction/) });
      expect(back.draft).toMatchObject({ id: r.draft.id, status: 'final' });
      expect(back.draft.finalTx!.hex).toBe(rawHex);
      const sent = await broadcastAll(back.draft);
      expect(sent.sent, sent.message ?? '').toBe(true);
      await n.mine(1);
    });
  });

  describe('the node down', () => {
    // The devnet fakes it (its RPC resets connections); real Core is stopped and started again on its
    // datadir and port (send-core.test.ts), so what was written while it was gone must survive both.
    it('composes from the last facts and the kept previous transactions, finalizes, keeps the signed transaction, broadcasts when the node is back', async (ctx) => {
      if (!n.setDown) return ctx.skip();
      const before = await dispatchOk<SendContextView>(app, 'send:context');
      expect(before.offline).toBe(false);
      await n.setDown(true);
      try {
        // The node's own failure, named: not a wrong password, not the index.
        const failed = await dispatchOk<{ state: string; error?: { code: string; detail?: Record<string, unknown> } }>(app, 'connection:refresh');
        expect(failed).toMatchObject({ state: 'failed', error: { code: n.downError ?? expect.stringMatching(/^net\./) as unknown as string, detail: { peer: 'node' } } });
        const c = await dispatchOk<SendContextView>(app, 'send:context');
        expect(c.offline).toBe(true);
        const r = await create({ rows: [{ kind: 'pay', address: payTo, amount: '0.05', label: 'offline' }], unit: 'btc', feeRate: '2', seed: 21 });
        expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
        if (!r.ok) return;
        expect(r.draft).toMatchObject({ offline: true, build: { nodeAvailable: false } });
        expect(r.draft.prevTxSources.cache).toBe(r.draft.inputs.length);
        await dispatchOk(app, 'drafts:import', { id: r.draft.id, texts: [{ text: (await signedBy(r.draft, w.hotKeys)).base64, source: 'offline.psbt' }] });
        const final = await dispatchOk<DraftView>(app, 'drafts:finalize', { id: r.draft.id });
        expect(final.status).toBe('final');
        expect(await dispatchOk<PreflightView>(app, 'drafts:preflight', { id: r.draft.id })).toMatchObject({ allowed: false, offline: true });
        const kept = await dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: r.draft.id, confirmed: true });
        expect(kept).toMatchObject({ sent: false, kept: true, draft: { status: 'final' } });
        // the app's state failed at the refresh above: nothing was sent, and it says to retry later
        expect(kept.message).toBe('Not connected to your node: nothing was broadcast. The signed transaction is kept; broadcast it when the node is back.');

        await n.setDown(false);
        expect((await dispatchOk<{ state: string }>(app, 'connection:refresh')).state).toBe('connected');
        // Nothing lost while the node was gone: the draft, its signature and its final transaction as they were.
        const back = await dispatchOk<DraftView>(app, 'drafts:get', { id: r.draft.id });
        expect(back).toMatchObject({ id: r.draft.id, status: 'final', finalTx: { txid: final.finalTx!.txid, hex: final.finalTx!.hex } });
        expect((await dispatchOk<{ drafts: Array<{ id: string }> }>(app, 'drafts:list')).drafts.map((d) => d.id)).toContain(r.draft.id);
        expect((await dispatchOk<SendContextView>(app, 'send:context')).offline).toBe(false);
        const sent = await dispatchOk<BroadcastReply>(app, 'drafts:broadcast', { id: r.draft.id, confirmed: true });
        expect(sent.sent, sent.message ?? '').toBe(true);
        expect(await n.rpc.call<string[]>('getrawmempool')).toContain(final.finalTx!.txid);
        // the change derived offline is the node wallet's own
        const change = r.draft.outputs.find((o) => o.role === 'change')!;
        expect(await n.rpc.call<{ ismine: boolean; ischange: boolean }>('getaddressinfo', [change.address], w.watch)).toMatchObject({ ismine: true, ischange: true });
        await n.mine(1);
      } finally {
        await n.setDown(false);
      }
    });
  });

  describe('fee bump', () => {
    it('RBF: same inputs, change reduced, signed again, replaces the first in the mempool', async () => {
      const r = await create({ rows: [{ kind: 'pay', address: payTo, amount: '0.2', label: 'bumped' }], unit: 'btc', feeRate: '1', seed: 5 });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      await dispatchOk(app, 'drafts:import', { id: r.draft.id, texts: [{ text: (await signedBy(r.draft, w.hotKeys)).base64, source: 'a.psbt' }] });
      const first = await broadcastAll(r.draft);
      expect(first.sent, first.message ?? '').toBe(true);
      const low = await app.dispatch('drafts:bump', { id: r.draft.id, method: 'rbf', feeRate: '1.001' });
      expect(!low.ok && low.error.message).toMatch(/a replacement must pay at least/);
      const bump = await dispatchOk<DraftView>(app, 'drafts:bump', { id: r.draft.id, method: 'rbf', feeRate: '12' });
      expect(bump.replaces).toBe(r.draft.id);
      expect(bump.inputs.map((i) => i.outpoint).sort()).toEqual(r.draft.inputs.map((i) => i.outpoint).sort());
      expect(bump.outputs.find((o) => o.role === 'recipient')!.amountSats).toBe('20000000');
      const oldChange = BigInt(r.draft.outputs.find((o) => o.role === 'change')!.amountSats);
      expect(BigInt(bump.outputs.find((o) => o.role === 'change')!.amountSats)).toBe(oldChange - (BigInt(bump.feeSats) - BigInt(r.draft.feeSats)));
      // built twice: the node wallet's own psbtbumpfee spends the same coins and pays the recipient the same
      expect(bump.build.method).toBe('psbtbumpfee');
      if (await nodeHas('psbtbumpfee')) {
        expect(bump.build, bump.build.reason ?? '').toMatchObject({ nodeAvailable: true, identical: true, differences: [] });
        expect(bump.build.note).toMatch(/fee .* here|the same fee/);
      } else expect(bump.build.reason).toMatch(/psbtbumpfee did not bump it/);
      await dispatchOk(app, 'drafts:import', { texts: [{ text: (await signedBy(bump, w.hotKeys)).base64, source: 'bump.psbt' }] });
      const second = await broadcastAll(bump);
      expect(second.sent, second.message ?? '').toBe(true);
      const pool = await n.rpc.call<string[]>('getrawmempool');
      expect(pool).toContain(second.txid);
      expect(pool).not.toContain(first.txid);
      expect((await dispatchOk<DraftView>(app, 'drafts:get', { id: r.draft.id })).status).toBe('replaced');
      // CPFP: a child of the replacement's change pays for both
      const child = await dispatchOk<DraftView>(app, 'drafts:bump', { id: bump.id, method: 'cpfp', feeRate: '30', seed: 4 });
      const changeIndex = bump.outputs.find((o) => o.role === 'change')!.index;
      expect(child.inputs.map((i) => i.outpoint)).toEqual([`${second.txid}:${changeIndex}`]);
      expect(child.outputs).toHaveLength(1);
      await dispatchOk(app, 'drafts:import', { texts: [{ text: (await signedBy(child, w.hotKeys)).base64, source: 'child.psbt' }] });
      const third = await broadcastAll(child);
      expect(third.sent, third.message ?? '').toBe(true);
      const parentVsize = second.draft.finalTx!.vsize;
      const pkgFee = BigInt(second.draft.feeSats) + BigInt(third.draft.feeSats);
      expect(pkgFee * 1000n).toBeGreaterThanOrEqual(30_000n * BigInt(parentVsize + third.draft.finalTx!.vsize));
      expect(await n.rpc.call<string[]>('getrawmempool')).toEqual(expect.arrayContaining([second.txid, third.txid]));
      await n.mine(1);
    });
  });

  describe('the 2-of-3 vault', () => {
    it('compose, two cosigners sign separately (one in the other PSBT version), combine, finalize, broadcast, mined', async () => {
      await useWallet(w.vault);
      const c = await dispatchOk<SendContextView>(app, 'send:context');
      expect(c.coins.map((x) => x.type)).toEqual(['p2wsh 2-of-3', 'p2wsh 2-of-3']);
      const r = await create({ rows: [{ kind: 'pay', address: payTo, amount: '1.25', label: 'supplier' }], unit: 'btc', feeRate: '3', seed: 11, name: 'Vault payment' });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const d = r.draft;
      if (await nodeHas('walletprocesspsbt')) expect(d.psbt).toBe((await n.rpc.call<{ psbt: string }>('walletprocesspsbt', [d.psbt, false, 'DEFAULT', true, false], w.vault)).psbt);
      const one = await signedBy(d, w.cosigners[0]!);
      const two = await signedBy(d, w.cosigners[1]!);
      expect(one.signed.length).toBe(d.inputs.length);
      const twoV2 = convertPsbtBase64(two.base64, 2);
      if (!twoV2.ok) throw new Error(twoV2.message);
      // an invalid signature is named and never finalized
      const bad = await dispatchOk<ImportReply>(app, 'drafts:import', { texts: [{ text: spoil(one.base64), source: 'spoiled.psbt' }] });
      expect(bad.results[0]).toMatchObject({ ok: false, message: expect.stringMatching(/does not verify and was left out: input 0, key [0-9a-f]{66}: /) });
      const refused = await app.dispatch('drafts:finalize', { id: d.id });
      expect(!refused.ok && refused.error.message).toMatch(/Not enough signatures/);
      expect(bad.draft.status).toBe('partial');
      const back = await dispatchOk<ImportReply>(app, 'drafts:import', { texts: [{ text: one.base64, source: 'cosigner1.psbt' }] });
      expect(back.draft.signing.text).toMatch(new RegExp(`1 of 3, missing: (${w.cosignerFps[1]}|${w.cosignerFps[2]})`));
      const both = await dispatchOk<ImportReply>(app, 'drafts:import', { texts: [{ text: twoV2.base64, source: 'cosigner2-v2.psbt' }] });
      expect(both.draft.signing.inputs[0]!.text).toBe(`2 of 3, missing: ${w.cosignerFps[2]} — enough (2 needed)`);
      expect(both.draft.signing.cosigners.find((x) => x.fingerprint === w.cosignerFps[2])).toMatchObject({ signed: 0 });
      expect(both.draft.signing.next).toBe('finalizer');
      const sent = await broadcastAll(both.draft);
      expect(sent.sent, sent.message ?? '').toBe(true);
      await n.mine(1);
      const bal = await n.rpc.call<{ mine: { trusted: number } }>('getbalances', [], w.vault).catch(() => null);
      if (bal) expect(bal.mine.trusted.toFixed(8)).toBe((2.7 - 1.25 - Number(BigInt(sent.draft.feeSats)) / 1e8).toFixed(8));
    });
  });
}

/** A cosigner's PSBT with one partial signature's S changed (still DER): it no longer verifies. */
function spoil(b64: string): string {
  const bytes = base64.decode(b64);
  // the first partial signature (key type 0x02 with a 33-byte key): flip a byte inside its S value
  for (let i = 0; i + 40 < bytes.length; i++) {
    if (bytes[i] === 0x22 && bytes[i + 1] === 0x02 && (bytes[i + 2] === 0x02 || bytes[i + 2] === 0x03) && bytes[i + 36] === 0x30) {
      bytes[i + 36 + 20] = bytes[i + 36 + 20]! ^ 0x01;
      return base64.encode(bytes);
    }
  }
  throw new Error('no partial signature to spoil');
}
