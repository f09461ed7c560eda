// Preflight, broadcast, tracking and fee bumps (#16). testmempoolaccept first (Core's reject reasons
// in words), the broadcast only on the person's confirmation, offline the signed transaction kept to
// send later; once sent the draft carries the txid, its labels become the transaction's and outputs'
// BIP329 labels, and the draft follows the transaction to its confirmation (or its replacement).
// RBF builds a replacement draft (same inputs, change reduced); CPFP a child of our own output.
import { AppError, isAppError } from '../../../shared/errors';
import { formatSatPerVb, parseSatPerVb } from '../../../shared/bitcoin/spend/feerate';
import { unsignedTxOf } from '../../../shared/bitcoin/psbt';
import { parseTx, type Tx } from '../../../shared/bitcoin/tx';
import { bumpRbf, BumpError, type Bumped } from '../../../shared/send/bump';
import { compareBumps } from '../../../shared/send/bump-compare';
import type { UnsignedTxSpec } from '../../../shared/send/create-psbt';
import { RawJson } from '../../../shared/json';
import type { FeeRate } from '../../../shared/bitcoin/spend/feerate';
import type { ActiveConnection } from '../services';
import { explainReject, reasonOfMessage } from '../../../shared/send/reject';
import type { BroadcastReply, BuildCheckView, DraftView, PreflightView } from '../../../shared/ipc/send';
import type { SendCore } from './core';
import type { DraftService } from './draft-service';
import { newDraftId, type DraftRow } from './drafts-store';
import { readPsbt, toWire } from './jobs';
import { previousTransactions } from './prevtxs';

const NETWORK = /^net\./;

function specOf(tx: Tx): UnsignedTxSpec {
  return { version: tx.version, locktime: tx.locktime, inputs: tx.vin.map((i) => ({ txid: i.prevTxid, vout: i.vout, sequence: i.sequence })), outputs: tx.vout.map((o) => ({ script: o.script, value: o.value })) };
}

export class BroadcastService {
  constructor(
    private readonly core: SendCore,
    private readonly drafts: DraftService,
    /** Called after a broadcast so balances and history show the pending payment. */
    private readonly onSent: () => void = () => undefined,
  ) {}

  #final(d: DraftRow): string {
    if (d.finalTx) return d.finalTx;
    throw new AppError('input.invalid', d.status === 'signed' ? 'Finalize it first: the signatures are there, the transaction is not extracted yet.' : 'Not fully signed yet: import the signed PSBTs, then finalize. Nothing was broadcast.', { field: 'signatures' });
  }

  #recipients(d: DraftRow): PreflightView['recipients'] {
    return d.summary.outputs.map((o) => ({ address: o.address, amountSats: o.amountSats, label: o.label, role: o.role }));
  }

  async preflight(id: string): Promise<PreflightView> {
    const d = this.drafts.require(id);
    const hex = this.#final(d);
    const tx = parseTx(Buffer.from(hex, 'hex'));
    const base = { txid: tx.txid, recipients: this.#recipients(d), vsize: tx.vsize, feeSats: d.summary.feeSats, feeRate: formatSatPerVb((BigInt(d.summary.feeSats) * 1000n) / BigInt(tx.vsize)).replace(' sat/vB', '') };
    const conn = this.core.deps.services.activeConnection();
    if (!conn) return { ...base, allowed: false, tested: false, offline: true, reason: null, words: 'Spyglass is not connected to your node: the signed transaction is kept; broadcast it when the node is back.', remedy: 'Connect, then broadcast' };
    let r: Array<{ allowed: boolean; 'reject-reason'?: string; 'reject-details'?: string; vsize?: number }>;
    try {
      r = await conn.rpc.call('testmempoolaccept', [[hex]], { wallet: false });
    } catch (e) {
      if (isAppError(e) && e.code === 'rpc.method_not_found') {
        return { ...base, allowed: true, tested: false, offline: false, reason: null, words: 'Your node does not offer testmempoolaccept: it cannot check the transaction before it is sent, so the broadcast itself is the check.', remedy: null };
      }
      if (isAppError(e) && NETWORK.test(e.code)) return { ...base, allowed: false, tested: false, offline: true, reason: null, words: `Your node could not be reached (${e.message}): the signed transaction is kept.`, remedy: 'Try again when the node is back' };
      throw e;
    }
    const t = r[0]!;
    if (t.allowed) return { ...base, allowed: true, tested: true, offline: false, reason: null, words: null, remedy: null, vsize: t.vsize ?? base.vsize };
    const x = explainReject(t['reject-reason'] ?? 'unknown', t['reject-details'] ?? '');
    return { ...base, allowed: false, tested: true, offline: false, reason: x.core, words: x.words, remedy: x.remedy };
  }

  async broadcast(id: string): Promise<BroadcastReply> {
    const d = this.drafts.require(id);
    const hex = this.#final(d);
    const txid = parseTx(Buffer.from(hex, 'hex')).txid;
    const conn = this.core.deps.services.activeConnection();
    const kept = async (message: string): Promise<BroadcastReply> => ({ sent: false, txid, message, kept: true, draft: await this.drafts.get(id) });
    if (!conn) return kept('Not connected to your node: nothing was broadcast. The signed transaction is kept; broadcast it when the node is back.');
    try {
      await conn.rpc.call<string>('sendrawtransaction', [hex], { wallet: false });
    } catch (e) {
      if (!isAppError(e)) throw e;
      if (NETWORK.test(e.code)) return kept(`Your node could not be reached (${e.message}): nothing was broadcast. The signed transaction is kept; try again.`);
      const core = typeof e.detail?.['coreMessage'] === 'string' ? e.detail['coreMessage'] : e.message;
      if (e.detail?.['coreCode'] === -27) {
        this.#markSent(d, txid, 'confirmed');
        return { sent: false, txid, message: 'This transaction is already confirmed in the block chain: nothing to send.', kept: false, draft: await this.drafts.get(id) };
      }
      const x = explainReject(reasonOfMessage(core), core);
      return { sent: false, txid, message: `The node refused it: ${x.words} (${x.core}). ${x.remedy}.`, kept: true, draft: await this.drafts.get(id) };
    }
    this.#markSent(d, txid, 'sent');
    this.core.deps.log.info(`send: draft ${d.id} broadcast ${txid}`);
    this.core.forget();
    this.onSent();
    return { sent: true, txid, message: null, kept: false, draft: await this.drafts.get(id) };
  }

  /** The draft carries the txid; its labels become the transaction's and its outputs'; a replaced draft says so. */
  #markSent(d: DraftRow, txid: string, status: 'sent' | 'confirmed'): void {
    const store = this.core.deps.drafts;
    store.transaction(() => {
      store.update(d.id, { status, txid, sentAt: new Date().toISOString() });
      const watch = this.core.deps.watch;
      if (!watch.getLabel({ profileId: d.profileId, wallet: d.wallet }, 'tx', txid)) watch.setLabel({ profileId: d.profileId, wallet: d.wallet }, { type: 'tx', ref: txid, label: d.name });
      for (const o of d.summary.outputs) if (o.label) watch.setLabel({ profileId: d.profileId, wallet: d.wallet }, { type: 'output', ref: `${txid}:${o.index}`, label: o.label });
      if (d.replaces) store.update(d.replaces, { status: 'replaced' });
    });
  }

  /** Sent drafts whose transaction the node (its wallet, else the index) now reports confirmed (or replaced). */
  async track(): Promise<number> {
    const conn = this.core.deps.services.activeConnection();
    if (!conn) return 0;
    const { profileId } = this.core.profileWallet();
    let changed = 0;
    for (const d of this.core.deps.drafts.pending(profileId)) {
      let confirmations: number | null = null;
      let replaced = false;
      try {
        const t = await conn.rpc.call<{ confirmations: number; replaced_by_txid?: string }>('gettransaction', [d.txid], { wallet: true });
        confirmations = t.confirmations;
        replaced = t.confirmations < 0 || t.replaced_by_txid !== undefined;
      } catch (e) {
        if (!isAppError(e) || NETWORK.test(e.code)) break;
        // a node wallet without the transaction's record (or without gettransaction): ask the index
        confirmations = await conn.index.transaction(d.txid!).then((t) => t.confirmations ?? 0, () => null);
      }
      if (replaced) this.core.deps.drafts.update(d.id, { status: 'replaced' });
      else if (confirmations !== null && confirmations > 0) this.core.deps.drafts.update(d.id, { status: 'confirmed' });
      else continue;
      changed++;
    }
    return changed;
  }

  /**
   * The node wallet's own replacement of the payment at the same rate (`psbtbumpfee`), compared with
   * ours: the same coins and recipients must come out (shared/send/bump-compare.ts). Built here only
   * when the node is away, does not know the payment, or cannot bump it — said so.
   */
  async #nodeBump(conn: ActiveConnection | null, txid: string | null, rate: FeeRate, bumped: Bumped): Promise<Pick<BuildCheckView, 'nodeAvailable' | 'identical' | 'reason' | 'differences' | 'method' | 'note'>> {
    const here = 'built here only: the same inputs and recipients, the change reduced';
    const none = { nodeAvailable: false, identical: false, differences: [], method: 'psbtbumpfee' as const, note: null };
    if (!conn) return { ...none, reason: `Offline: ${here}; your node's psbtbumpfee could not be asked` };
    if (!txid) return { ...none, reason: `Not broadcast, so your node's wallet does not know the payment and its psbtbumpfee cannot be asked: ${here}` };
    try {
      const r = await conn.rpc.call<{ psbt: string }>('psbtbumpfee', [txid, { fee_rate: new RawJson(formatSatPerVb(rate).replace(' sat/vB', '')) }], { wallet: true });
      const c = compareBumps(bumped.spec, bumped.fee, bumped.changeIndex, specOf(unsignedTxOf(readPsbt(r.psbt, "The node's replacement"))!));
      return { nodeAvailable: true, identical: c.same, reason: null, differences: c.differences, method: 'psbtbumpfee', note: c.note };
    } catch (e) {
      const msg = isAppError(e) ? e.message : 'no answer';
      this.core.deps.log.warn(`send: the node's psbtbumpfee failed: ${msg}`);
      return { ...none, reason: `Your node's psbtbumpfee did not bump it (${msg}): ${here}` };
    }
  }

  /** RBF: a replacement draft (same inputs and recipients, the change reduced) at `feeRate`. */
  async bumpRbf(id: string, feeRateText: string): Promise<DraftView> {
    const d = this.drafts.require(id);
    if (d.status !== 'sent' && d.status !== 'final' && d.status !== 'signed') throw new AppError('input.invalid', 'Only a signed or broadcast payment can be bumped; an unsigned draft can simply be composed again.', { field: 'draft' });
    const rate = (() => {
      try {
        return parseSatPerVb(feeRateText);
      } catch (e) {
        throw new AppError('input.invalid', (e as Error).message, { field: 'feeRate' });
      }
    })();
    const f = await this.core.facts({ live: true });
    const p = readPsbt(d.psbt);
    const spec = specOf(unsignedTxOf(p)!);
    let bumped;
    try {
      bumped = bumpRbf({ spec, oldFee: BigInt(d.summary.feeSats), vsize: d.summary.vsize, changeIndex: d.summary.changeIndex, newRate: rate, incrementalRelayFee: f.facts.incremental === null ? 1000n : BigInt(f.facts.incremental) });
    } catch (e) {
      if (e instanceof BumpError) throw new AppError('input.invalid', e.message, { field: 'feeRate', reason: e.code });
      throw e;
    }
    const prev = await previousTransactions(spec.inputs.map((i) => i.txid), { profileId: d.profileId, store: this.core.deps.store, rpc: f.conn?.rpc ?? null, index: f.conn?.index ?? null });
    const built = await this.core.deps.runner.run('send-build', {
      spec: toWire(bumped.spec),
      psbtVersion: d.summary.psbtVersion,
      chain: f.facts.chain,
      coreVersion: f.facts.coreVersion,
      nodePsbt: null,
      descriptors: f.facts.descriptors,
      prevtxs: Object.fromEntries(prev.txs),
    });
    const nodeCheck = await this.#nodeBump(f.conn, d.txid, rate, bumped);
    const outputs = d.summary.outputs.filter((o) => bumped.changeIndex !== null || o.role !== 'change').map((o, index) => ({ ...o, index, amountSats: o.role === 'change' ? bumped.change!.toString() : o.amountSats }));
    const sent = BigInt(d.summary.sentSats);
    const summary = {
      ...d.summary,
      feeSats: bumped.fee.toString(),
      feeRate: formatSatPerVb(rate).replace(' sat/vB', ''),
      feePercent: sent > 0n ? ((bumped.fee * 10_000n) / sent).toString().padStart(3, '0').replace(/(\d\d)$/, '.$1') : '0.00',
      changeIndex: bumped.changeIndex,
      outputs,
      warnings: [],
      build: { ...d.summary.build, ...nodeCheck, node: f.conn ? f.facts.subversion : null },
      prevTxSources: prev.sources,
      offline: f.offline,
    };
    return this.drafts.save({
      id: newDraftId(),
      profileId: d.profileId,
      wallet: d.wallet,
      name: `${d.name} (fee bump)`,
      status: 'unsigned',
      unsignedTxid: built.unsignedTxid,
      psbt: built.filled,
      form: { ...d.form, feeRate: feeRateText },
      summary,
      replaces: d.id,
      createdAt: new Date().toISOString(),
    });
  }
}
