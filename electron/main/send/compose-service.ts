// Compose (#15) behind `send:context`, `send:preview` and `send:create`. The form is read strictly
// (every field error at once), the coins chosen by the spend core, the transaction built offline and —
// connected — by the node's createpsbt in the node's PSBT version (the two compared byte for byte),
// filled as walletprocesspsbt does for the watch-only wallet with previous transactions that hash to
// their txids, and only then saved as a draft, with the recipients' labels, in one transaction.
import { randomBytes } from 'node:crypto';
import { formatBtc } from '../../../shared/amounts';
import { AppError, isAppError } from '../../../shared/errors';
import { encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { toHex } from '../../../shared/bitcoin/hex';
import { DEFAULT_MAX_FEE_RATE, formatSatPerVb, parseSatPerVb, type FeeRate } from '../../../shared/bitcoin/spend/feerate';
import { checkFeeRate } from '../../../shared/bitcoin/spend/params';
import { SpendError } from '../../../shared/bitcoin/spend/errors';
import { compose, ComposeError, type Composed } from '../../../shared/send/compose';
import { cpfpChildRate } from '../../../shared/send/bump';
import { estimateTx } from '../../../shared/bitcoin/spend/size';
import { parseTx } from '../../../shared/bitcoin/tx';
import { parseRecipients, type FieldError, type ParsedRecipient } from '../../../shared/send/recipients';
import { checkMinRelay, composeWarnings, type ComposeWarning } from '../../../shared/send/warnings';
import type { DraftView, FeePresetView, InputView, OutputView, SendContextView, SendCreateReply, SendForm, SendPreviewReply, SendPreviewView } from '../../../shared/ipc/send';
import { SendFormSchema } from '../../../shared/ipc/send';
import { kindName } from './coins';
import type { SendCore, FactsAt } from './core';
import type { DraftSummary } from './drafts-store';
import { PRESETS } from './facts';
import { previousTransactions } from './prevtxs';
import { toWire } from './jobs';
import type { DraftService } from './draft-service';

/** How long the Send page's first load waits for the previous transactions to be kept (then it goes on). */
const PREFETCH_WAIT_MS = 3000;
const satVb = (rate: string | null): string | null => (rate === null ? null : formatSatPerVb(BigInt(rate)).replace(' sat/vB', ''));
const NETWORK_NAMES = { main: 'mainnet', test: 'testnet', testnet4: 'testnet', signet: 'signet', regtest: 'regtest' } as const;

type Change = { script: Uint8Array; kind: import('../../../shared/bitcoin/spend/size').InputKind; address: string; index: number | null };

interface Prepared {
  f: FactsAt;
  recipients: ParsedRecipient[];
  composed: Composed;
  change: Change;
  warnings: ComposeWarning[];
  locktime: number;
}

function fieldErrors(e: unknown): FieldError[] | null {
  if (e instanceof ComposeError) return [{ row: e.row, field: e.field, message: e.message }];
  if (e instanceof SpendError) return [{ row: -1, field: 'feeRate', message: e.message }];
  if (isAppError(e) && e.code === 'input.invalid' && typeof e.detail?.['field'] === 'string') return [{ row: -1, field: e.detail['field'] as FieldError['field'], message: e.message }];
  return null;
}

export class ComposeService {
  constructor(
    private readonly core: SendCore,
    private readonly drafts: DraftService,
  ) {}

  async context(): Promise<SendContextView> {
    const f = await this.core.facts({ live: true });
    if (f.conn) await this.#prefetch(f);
    const presets: FeePresetView[] = PRESETS.map((p) => {
      const of = (mode: 'economical' | 'conservative') => {
        const e = f.facts.estimates.find((x) => x.target === p.target && x.mode === mode);
        return { satVb: satVb(e?.rate ?? null), blocks: e?.blocks ?? null };
      };
      return { id: p.id, target: p.target, economical: of('economical'), conservative: of('conservative') };
    });
    return {
      wallet: f.wallet,
      network: NETWORK_NAMES[f.facts.chain as keyof typeof NETWORK_NAMES] ?? 'regtest',
      offline: f.offline,
      asOf: f.asOf,
      tipHeight: f.facts.tipHeight,
      coins: this.core.coins(f).map((c) => c.view),
      presets,
      noEstimate: presets.every((p) => p.economical.satVb === null && p.conservative.satVb === null),
      minRelaySatVb: satVb(f.facts.minRelay),
      mempoolMinSatVb: satVb(f.facts.mempoolMin),
      incrementalSatVb: satVb(f.facts.incremental),
      maxDataCarrierBytes: f.facts.maxDataCarrier,
      nodePsbtVersion: f.facts.coreVersion === 30 ? 0 : 2,
      node: f.facts.subversion,
    };
  }

  /**
   * Keeps the previous transactions of the wallet's coins here (verified), so that a payment can be
   * composed and filled offline later: waited for a moment, then finished in the background.
   */
  async #prefetch(f: FactsAt): Promise<void> {
    const txids = [...new Set(f.facts.unspent.map((u) => u.txid))];
    const missing = txids.filter((t) => !this.core.deps.store.prevTxs(f.profileId, [t]).has(t));
    if (missing.length === 0) return;
    const work = previousTransactions(missing, { profileId: f.profileId, store: this.core.deps.store, rpc: f.conn?.rpc ?? null, index: f.conn?.index ?? null }).then(
      (r) => this.core.deps.log.info(`send: kept ${r.txs.size} previous transactions for offline use`),
      (e: unknown) => this.core.deps.log.warn(`send: previous transactions not kept: ${isAppError(e) ? e.message : String(e)}`),
    );
    await Promise.race([work, new Promise((r) => setTimeout(r, PREFETCH_WAIT_MS).unref())]);
  }

  freeze(outpoint: string, frozen: boolean): { frozen: boolean } {
    const { profileId, wallet } = this.core.profileWallet();
    this.core.deps.store.setFrozen(profileId, wallet, outpoint, frozen);
    this.core.forget();
    return { frozen };
  }

  /** Reads and composes the form; `real` hands out the change address (create), else a derived one (preview). */
  async #prepare(form: SendForm, real: boolean): Promise<Prepared> {
    const parsedForm = SendFormSchema.parse(form);
    const f = await this.core.facts({ live: real });
    const network = this.core.network(f);
    const errors: FieldError[] = [];
    const r = parseRecipients(parsedForm.rows, { network, unit: parsedForm.unit, ...(f.facts.maxDataCarrier !== null ? { maxDataCarrierBytes: f.facts.maxDataCarrier } : {}) });
    if (!r.ok) errors.push(...r.errors);
    let rate: FeeRate | null = null;
    try {
      rate = parseSatPerVb(parsedForm.feeRate);
      checkFeeRate(rate, DEFAULT_MAX_FEE_RATE);
      checkMinRelay(rate, f.facts.minRelay === null ? null : BigInt(f.facts.minRelay));
    } catch (e) {
      const fe = fieldErrors(e);
      if (!fe) throw e;
      errors.push(...fe.map((x) => ({ ...x, field: 'feeRate' as const })));
      rate = null;
    }
    const all = this.core.coins(f);
    const usable = all.filter((c) => c.view.unusable === null);
    const manual = parsedForm.coins?.map((op) => {
      const [txid, vout] = op.split(':');
      return { txid: txid!, vout: Number(vout) };
    });
    for (const m of manual ?? []) {
      const c = all.find((x) => x.coin.txid === m.txid && x.coin.vout === m.vout);
      if (c && c.view.unusable) errors.push({ row: -1, field: 'coins', message: `Coin control: ${c.view.outpoint} cannot be spent here: ${c.view.unusable}` });
    }
    if (errors.length || !r.ok || rate === null) throw new FormErrors(errors);
    const scripts = r.recipients.map((x) => x.script);
    let change: Change;
    try {
      change = parsedForm.change.mode === 'address' ? this.core.pickedChange(f, parsedForm.change.address) : real ? await this.core.realChange(f, scripts) : this.core.previewChange(f, scripts);
    } catch (e) {
      const fe = fieldErrors(e);
      if (fe) throw new FormErrors(fe.map((x) => ({ ...x, field: 'change' as const })));
      throw e;
    }
    const locktime = parsedForm.locktime ?? f.facts.tipHeight;
    let composed: Composed;
    try {
      composed = compose({
        coins: usable.map((c) => c.coin),
        recipients: r.recipients,
        feeRate: rate,
        change: { script: change.script, kind: change.kind },
        ...(manual ? { manual } : {}),
        includeUnconfirmed: parsedForm.includeUnconfirmed,
        rbf: parsedForm.rbf,
        locktime,
        seed: parsedForm.seed ?? 0,
      });
    } catch (e) {
      const fe = fieldErrors(e);
      if (fe) throw new FormErrors(fe);
      throw e;
    }
    const a = this.core.deps.settings();
    const warnings = composeWarnings(composed, {
      mempoolMinFee: f.facts.mempoolMin === null ? null : BigInt(f.facts.mempoolMin),
      feeRateWarn: BigInt(Math.round(a.feeRateWarnSatVb * 1000)),
      feePercentWarn: String(a.feePercentWarn),
      isOwn: (s) => this.core.isOwn(f, s),
    });
    return { f, recipients: r.recipients, composed, change, warnings, locktime };
  }

  #views(p: Prepared): { inputs: InputView[]; outputs: OutputView[] } {
    const net = this.core.network(p.f);
    const coins = new Map(this.core.coins(p.f).map((c) => [c.view.outpoint, c]));
    const inputs = p.composed.inputs.map((c) => {
      const w = coins.get(`${c.txid}:${c.vout}`)!;
      return { outpoint: w.view.outpoint, address: w.view.address, amountSats: w.view.amountSats, type: kindName(c.kind), label: w.view.label, unconfirmed: c.confirmations < 1 };
    });
    const byRow = new Map(p.recipients.map((r) => [r.row, r]));
    const outputs = p.composed.outputs.map((o, index) => {
      const dest = extractDestination(o.script);
      const r = o.row === null ? null : byRow.get(o.row)!;
      return {
        index,
        role: o.role,
        address: o.role === 'data' ? null : r ? r.address : dest ? encodeDestination(dest, net) : null,
        amountSats: o.value.toString(),
        label: r ? r.label : 'change',
        dataHex: r?.dataHex ?? null,
      };
    });
    return { inputs, outputs };
  }

  #preview(p: Prepared): SendPreviewView {
    const s = p.composed.selection;
    return {
      feeSats: s.fee.toString(),
      feeRate: formatSatPerVb(s.feeRate).replace(' sat/vB', ''),
      vsize: s.vsize,
      weight: s.weight,
      feePercent: p.composed.feePercent,
      sentSats: p.composed.sent.toString(),
      ...this.#views(p),
      algorithm: s.algorithm,
      wasteSats: s.waste.toString(),
      droppedToFeeSats: s.droppedToFee.toString(),
      warnings: p.warnings,
      locktime: p.locktime,
      rbf: p.composed.spec.inputs.some((i) => i.sequence < 0xfffffffe),
    };
  }

  async preview(form: SendForm): Promise<SendPreviewReply> {
    try {
      const p = await this.#prepare({ ...form, seed: form.seed ?? 0 }, false);
      return { ok: true, preview: this.#preview(p), offline: p.f.offline };
    } catch (e) {
      if (e instanceof FormErrors) return { ok: false, errors: e.errors };
      throw e;
    }
  }

  async create(form: SendForm): Promise<SendCreateReply> {
    const seeded = { ...form, seed: this.core.seed(form.seed) };
    let p: Prepared;
    try {
      p = await this.#prepare(seeded, true);
    } catch (e) {
      if (e instanceof FormErrors) return { ok: false, errors: e.errors };
      throw e;
    }
    const { f, composed } = p;
    const psbtVersion: 0 | 2 = f.facts.coreVersion === 30 ? 0 : 2;
    const nodeBuild = await this.#nodeCreatePsbt(p, psbtVersion);
    let prev: Awaited<ReturnType<typeof previousTransactions>>;
    try {
      prev = await previousTransactions(composed.inputs.map((c) => c.txid), { profileId: f.profileId, store: this.core.deps.store, rpc: f.conn?.rpc ?? null, index: f.conn?.index ?? null });
    } catch (e) {
      // an index record that does not hash to its txid: said at the coins, nothing saved
      if (isAppError(e) && e.code === 'input.invalid') return { ok: false, errors: [{ row: -1, field: 'coins', message: e.message }] };
      throw e;
    }
    const lacking = composed.inputs.filter((c) => !prev.txs.has(c.txid)).map((c) => `${c.txid}:${c.vout}`);
    if (lacking.length) {
      return {
        ok: false,
        errors: [{ row: -1, field: 'coins', message: `The previous transaction of ${lacking.length === 1 ? 'coin' : 'coins'} ${lacking.slice(0, 3).join(', ')}${lacking.length > 3 ? '…' : ''} is not known here${f.offline ? ' (offline, and never fetched before)' : ' (neither the node nor the index has it)'}: a PSBT without it cannot be checked by your signer` }],
      };
    }
    const built = await this.core.deps.runner.run('send-build', {
      spec: toWire(composed.spec),
      psbtVersion,
      chain: f.facts.chain,
      coreVersion: f.facts.coreVersion,
      nodePsbt: nodeBuild.psbt,
      descriptors: f.facts.descriptors,
      prevtxs: Object.fromEntries(prev.txs),
    });
    const views = this.#views(p);
    const summary: DraftSummary = {
      feeSats: composed.selection.fee.toString(),
      feeRate: formatSatPerVb(composed.selection.feeRate).replace(' sat/vB', ''),
      vsize: composed.selection.vsize,
      feePercent: composed.feePercent,
      sentSats: composed.sent.toString(),
      rbf: composed.spec.inputs.some((i) => i.sequence < 0xfffffffe),
      locktime: p.locktime,
      psbtVersion,
      changeIndex: composed.changeIndex,
      outputs: views.outputs,
      inputs: views.inputs,
      warnings: p.warnings,
      build: { nodeAvailable: nodeBuild.psbt !== null, reason: nodeBuild.reason, identical: built.identical ?? false, version: psbtVersion, node: f.conn ? f.facts.subversion : null, differences: built.differences },
      prevTxSources: prev.sources,
      noKeyPaths: built.noKeyPaths,
      offline: f.offline,
    };
    const id = `d_${randomBytes(12).toString('base64url')}`;
    const name = SendFormSchema.parse(seeded).name.trim() || defaultName(p);
    const draft = await this.drafts.save({
      id,
      profileId: f.profileId,
      wallet: f.wallet,
      name,
      status: 'unsigned',
      unsignedTxid: built.unsignedTxid,
      psbt: built.filled,
      form: seeded,
      summary,
      replaces: null,
      createdAt: new Date().toISOString(),
    });
    this.core.deps.log.info(`send: draft ${id} ${composed.inputs.length} in, ${composed.outputs.length} out, fee ${summary.feeSats} sat, node build ${built.identical === null ? 'not asked' : built.identical ? 'identical' : 'DIFFERENT'}`);
    return { ok: true, draft };
  }

  /**
   * CPFP: a child spending an output of ours of a broadcast draft (its change first), everything to
   * a fresh change address, at the rate that brings parent and child together to `feeRateText`.
   */
  async cpfp(id: string, feeRateText: string, seed?: number): Promise<DraftView> {
    const d = this.drafts.require(id);
    if (!d.txid || !d.finalTx || d.status !== 'sent') throw new AppError('input.invalid', 'CPFP needs a broadcast, unconfirmed payment: its child spends one of its outputs.', { field: 'draft' });
    let target: FeeRate;
    try {
      target = parseSatPerVb(feeRateText);
    } catch (e) {
      throw new AppError('input.invalid', (e as Error).message, { field: 'feeRate' });
    }
    const f = await this.core.facts({ live: true });
    const ours = this.core.coins(f).filter((c) => c.coin.txid === d.txid && c.view.unusable === null);
    if (ours.length === 0) throw new AppError('input.invalid', 'No output of this transaction is yours and unspent: there is nothing a child could spend.', { field: 'draft' });
    const changeIndex = d.summary.changeIndex;
    const pick = ours.find((c) => c.coin.vout === changeIndex) ?? ours.sort((a, b) => (b.coin.value > a.coin.value ? 1 : -1))[0]!;
    const to = await this.core.realChange(f, []);
    const childVsize = estimateTx([pick.coin.kind], [to.script]).vsize;
    const parentVsize = parseTx(Buffer.from(d.finalTx, 'hex')).vsize;
    const { rate } = cpfpChildRate(BigInt(d.summary.feeSats), parentVsize, childVsize, target);
    const r = await this.create({
      rows: [{ kind: 'pay', address: to.address, amount: '', sendMax: true, label: `CPFP for ${d.name}` }],
      unit: 'btc',
      feeRate: formatSatPerVb(rate).replace(' sat/vB', ''),
      coins: [pick.view.outpoint],
      includeUnconfirmed: true,
      change: { mode: 'auto' },
      rbf: true,
      locktime: null,
      name: `${d.name} (CPFP)`,
      ...(seed !== undefined ? { seed } : {}),
    });
    if (!r.ok) throw new AppError('input.invalid', `The child cannot be built: ${r.errors.map((e) => e.message).join('; ')}`, { field: 'feeRate' });
    return r.draft;
  }

  /** The node's createpsbt of the same transaction (same sequences, locktime, versions); null offline. */
  async #nodeCreatePsbt(p: Prepared, psbtVersion: 0 | 2): Promise<{ psbt: string | null; reason: string | null }> {
    const conn = p.f.conn;
    if (!conn) return { psbt: null, reason: `Offline: composed from the coins the node listed at ${p.f.asOf}; the node's createpsbt could not be asked` };
    const net = this.core.network(p.f);
    const spec = p.composed.spec;
    const outputs = spec.outputs.map((o) => {
      const d = extractDestination(o.script);
      if (d) return { [encodeDestination(d, net)]: formatBtc(o.value) };
      return { data: toHex(o.script.subarray(o.script[1]! < 0x4c ? 2 : o.script[1] === 0x4c ? 3 : 4)) };
    });
    const params: unknown[] = [spec.inputs.map((i) => ({ txid: i.txid, vout: i.vout, sequence: i.sequence })), outputs, spec.locktime, p.composed.spec.inputs.some((i) => i.sequence < 0xfffffffe), spec.version];
    if (psbtVersion === 2 || p.f.facts.coreVersion !== 30) params.push(psbtVersion);
    try {
      return { psbt: await conn.rpc.call<string>('createpsbt', params, { wallet: false }), reason: null };
    } catch (e) {
      const msg = isAppError(e) ? e.message : 'no answer';
      this.core.deps.log.warn(`send: the node's createpsbt failed: ${msg}`);
      return { psbt: null, reason: `The node's createpsbt did not build it: ${msg}` };
    }
  }
}

function defaultName(p: Prepared): string {
  const first = p.recipients.find((r) => r.kind === 'pay');
  const who = first ? first.label || `${first.address.slice(0, 10)}…` : 'OP_RETURN';
  const more = p.recipients.filter((r) => r.kind === 'pay').length - 1;
  return `${who}${more > 0 ? ` +${more}` : ''}`;
}

export class FormErrors extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}
