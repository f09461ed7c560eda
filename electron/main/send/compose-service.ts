// Compose (#15) behind `send:preview` and `send:create` (`send:context`: context.ts). The form is read strictly
// (every field error at once), the coins chosen by the spend core, the transaction built offline and —
// connected — by the node's createpsbt in the node's PSBT version (the two compared byte for byte),
// filled as walletprocesspsbt does for the watch-only wallet with previous transactions that hash to
// their txids, and only then saved as a draft, with the recipients' labels, in one transaction. A
// preview is kept as a plan (plans.ts) that create builds exactly: what you review is what you sign.
import { formatBtc } from '../../../shared/amounts';
import { AppError, isAppError } from '../../../shared/errors';
import { encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { toHex } from '../../../shared/bitcoin/hex';
import { DEFAULT_MAX_FEE_RATE, formatSatPerVb, parseSatPerVb, type FeeRate } from '../../../shared/bitcoin/spend/feerate';
import { checkFeeRate } from '../../../shared/bitcoin/spend/params';
import { SpendError } from '../../../shared/bitcoin/spend/errors';
import { compose, ComposeError, type Composed } from '../../../shared/send/compose';
import { chainNow, chosenPath, pathView } from './paths';
import { cpfpChildRate } from '../../../shared/send/bump';
import { estimateTx } from '../../../shared/bitcoin/spend/size';
import { parseTx } from '../../../shared/bitcoin/tx';
import { parseRecipients, type FieldError, type ParsedRecipient } from '../../../shared/send/recipients';
import { checkMinRelay, composeWarnings } from '../../../shared/send/warnings';
import type { DraftView, InputView, OutputView, SendContextView, SendCreateReply, SendForm, SendPreviewReply, SendPreviewView } from '../../../shared/ipc/send';
import { SendFormSchema } from '../../../shared/ipc/send';
import { kindName } from './coins';
import type { SendCore } from './core';
import { sendContext } from './context';
import { newDraftId, type DraftSummary } from './drafts-store';
import { previousTransactions } from './prevtxs';
import { toWire } from './jobs';
import type { DraftService } from './draft-service';
import { changeMoved, PlanStore, planProblems, type Change, type Prepared } from './plans';
import { selectionWords } from '../../../shared/send/selection-words';


function fieldErrors(e: unknown): FieldError[] | null {
  if (e instanceof ComposeError) return [{ row: e.row, field: e.field, message: e.message }];
  if (e instanceof SpendError) return [{ row: -1, field: 'feeRate', message: e.message }];
  if (isAppError(e) && e.code === 'input.invalid' && typeof e.detail?.['field'] === 'string') return [{ row: -1, field: e.detail['field'] as FieldError['field'], message: e.message }];
  return null;
}

export class ComposeService {
  readonly plans = new PlanStore();

  constructor(
    private readonly core: SendCore,
    private readonly drafts: DraftService,
  ) {}

  context(): Promise<SendContextView> {
    return sendContext(this.core);
  }

  freeze(outpoint: string, frozen: boolean): { frozen: boolean } {
    const { profileId, wallet } = this.core.profileWallet();
    this.core.deps.store.setFrozen(profileId, wallet, outpoint, frozen);
    this.core.forget();
    return { frozen };
  }

  /** Reads and composes the form (its seed given); `real` hands out the change address (create), else a derived one (preview). */
  async #prepare(form: SendForm & { seed: number }, real: boolean): Promise<Prepared> {
    const parsedForm = SendFormSchema.parse(form);
    const seed = form.seed;
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
    const chosen = chosenPath(this.core.policy(f), parsedForm, chainNow(f.facts));
    if ('error' in chosen) errors.push({ row: -1, field: 'coins', message: chosen.error });
    const path = 'path' in chosen ? chosen.path : undefined;
    const all = this.core.coins(f, path?.id);
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
        seed,
        ...(path ? { path } : {}),
      });
    } catch (e) {
      if (e instanceof ComposeError && e.code === 'spend.insufficient_funds' && !manual) throw new FormErrors([insufficientAtAmount(e, r.recipients)]);
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
    return { f, recipients: r.recipients, composed, change, warnings, locktime, seed };
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

  #preview(p: Prepared, plan: { id: string; unsignedTxid: string }): SendPreviewView {
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
      selection: selectionWords(s),
      wasteSats: s.waste.toString(),
      droppedToFeeSats: s.droppedToFee.toString(),
      warnings: p.warnings,
      locktime: p.locktime,
      rbf: p.composed.spec.inputs.some((i) => i.sequence < 0xfffffffe),
      seed: p.seed,
      plan: plan.id,
      unsignedTxid: plan.unsignedTxid,
      ...(p.composed.path ? { path: pathView(p.composed.path) } : {}),
    };
  }

  /**
   * The summary of the form: its random choices drawn here once when the form brings none (and
   * said, for the page to keep), the result kept as a plan that `create` builds exactly.
   */
  async preview(form: SendForm): Promise<SendPreviewReply> {
    const seeded = { ...form, seed: this.core.seed(form.seed) };
    try {
      const p = await this.#prepare(seeded, false);
      const plan = this.plans.keep(seeded, p);
      return { ok: true, preview: this.#preview(p, plan), offline: p.f.offline };
    } catch (e) {
      if (e instanceof FormErrors) return { ok: false, errors: e.errors };
      throw e;
    }
  }

  /**
   * Builds, fills and saves the draft. With `planId` (the preview the person reviewed): exactly that
   * transaction — the form must be the one previewed, its coins still unspent, the node's change
   * address the one shown — else nothing is built and the errors say what changed. Without (CPFP,
   * scripts): the form composed now, with its seed or a random one.
   */
  async create(form: SendForm, planId?: string): Promise<SendCreateReply> {
    const seeded = { ...form, seed: this.core.seed(form.seed) };
    const t = new Phases();
    let p: Prepared;
    try {
      p = planId === undefined ? await this.#prepare(seeded, true) : await this.#fromPlan(planId, form);
    } catch (e) {
      if (e instanceof FormErrors) return { ok: false, errors: e.errors };
      throw e;
    }
    t.mark(planId === undefined ? 'facts+compose' : 'facts+plan check');
    return this.#build(p, planId === undefined ? seeded : { ...form, seed: p.seed }, t);
  }

  /** The preview's plan, checked against the wallet now, with the change address handed out. */
  async #fromPlan(planId: string, form: SendForm): Promise<Prepared> {
    const plan = this.plans.get(planId);
    if (!plan) throw new FormErrors([{ row: -1, field: 'coins', message: 'This summary is no longer kept here (Spyglass restarted, or many summaries were made since): nothing was built. Review the summary again, then create.' }]);
    const f = await this.core.facts({ live: true });
    const problems = planProblems(plan, form, { profileId: f.profileId, wallet: f.wallet, coins: this.core.coins(f) });
    if (problems) {
      this.plans.drop(planId);
      throw new FormErrors(problems);
    }
    const planned = plan.prepared;
    let change = planned.change;
    // Only a change output needs an address handed out; the auto mode's was derived for the preview.
    if (planned.composed.changeIndex !== null && SendFormSchema.parse(form).change.mode === 'auto') {
      change = await this.core.realChange(f, planned.recipients.map((x) => x.script));
      if (change.address !== planned.change.address) {
        this.plans.drop(planId);
        throw new FormErrors(changeMoved(planned.change.address, change.address));
      }
    }
    this.plans.drop(planId);
    return { ...planned, f, change };
  }

  async #build(p: Prepared, seeded: SendForm, t: Phases): Promise<SendCreateReply> {
    const { f, composed } = p;
    const psbtVersion: 0 | 2 = f.facts.coreVersion === 30 ? 0 : 2;
    const nodeBuild = await this.#nodeCreatePsbt(p, psbtVersion);
    t.mark('node createpsbt');
    let prev: Awaited<ReturnType<typeof previousTransactions>>;
    try {
      prev = await previousTransactions(composed.inputs.map((c) => c.txid), { profileId: f.profileId, store: this.core.deps.store, rpc: f.conn?.rpc ?? null, index: f.conn?.index ?? null });
    } catch (e) {
      // an index record that does not hash to its txid: said at the coins, nothing saved
      if (isAppError(e) && e.code === 'input.invalid') return { ok: false, errors: [{ row: -1, field: 'coins', message: e.message }] };
      throw e;
    }
    t.mark('previous transactions');
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
    t.mark('build+fill+compare');
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
      ...(composed.path ? { path: pathView(composed.path) } : {}),
    };
    const id = newDraftId();
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
    t.mark('save');
    this.core.deps.log.info(`send: draft ${id} ${composed.inputs.length} in, ${composed.outputs.length} out, fee ${summary.feeSats} sat, node build ${built.identical === null ? 'not asked' : built.identical ? 'identical' : 'DIFFERENT'}; ${t.text()}`);
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

/** Not enough coins for an automatic selection: said at the amount, with what the wallet can send. */
function insufficientAtAmount(e: ComposeError, recipients: readonly ParsedRecipient[]): FieldError {
  const available = BigInt(String(e.detail['available'] ?? '0'));
  const fee = BigInt(String(e.detail['fee'] ?? '0'));
  const row = recipients.find((x) => x.kind === 'pay')?.row ?? -1;
  const most = available - fee;
  const lead = most > 0n ? `At most ${formatBtc(most)} BTC can be sent at this fee rate: the spendable coins hold ${formatBtc(available)} BTC, and spending them all costs ${formatBtc(fee)} BTC in fee.` : `Nothing can be sent at this fee rate: the spendable coins hold ${formatBtc(available)} BTC, less than the fee of spending them.`;
  return { row, field: row === -1 ? 'recipients' : 'amount', message: `${lead} ${e.message}` };
}

function defaultName(p: Prepared): string {
  const first = p.recipients.find((r) => r.kind === 'pay');
  const who = first ? first.label || `${first.address.slice(0, 10)}…` : 'OP_RETURN';
  const more = p.recipients.filter((r) => r.kind === 'pay').length - 1;
  return `${who}${more > 0 ? ` +${more}` : ''}`;
}

/** Where a create's time went, for the log (and `npm run bench -- create`). */
export class Phases {
  readonly #start = performance.now();
  #last = this.#start;
  readonly parts: Array<[string, number]> = [];

  mark(name: string): void {
    const now = performance.now();
    this.parts.push([name, now - this.#last]);
    this.#last = now;
  }

  text(): string {
    return `took ${Math.round(this.#last - this.#start)} ms (${this.parts.map(([n, ms]) => `${n} ${Math.round(ms)} ms`).join(', ')})`;
  }
}

export class FormErrors extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}
