// Fee bumps from any unconfirmed wallet transaction, whoever made it (#28 item 2), behind `bump:*`:
// what is possible and why not (shared/send/bump-options.ts over bump-inspect.ts), an RBF
// replacement draft — built here (same inputs and recipients, our change reduced) and, where the
// node's wallet knows the transaction, by its psbtbumpfee at the same rate, the two compared as the
// draft fee bump does — and a CPFP child draft spending our output of it (plus other coins when it
// alone cannot pay) to a fresh change address, at the rate that lifts the package to the target.
// Both are ordinary drafts: review, export, signatures, finalize, broadcast with confirmation.
import { AppError, isAppError } from '../../../shared/errors';
import { fromHex, toHex } from '../../../shared/bitcoin/hex';
import { unsignedTxOf } from '../../../shared/bitcoin/psbt';
import { isUnspendable } from '../../../shared/bitcoin/script';
import { dustThreshold } from '../../../shared/bitcoin/spend/dust';
import { DEFAULT_MAX_FEE_RATE, feeFor, formatSatPerVb, parseSatPerVb, type FeeRate } from '../../../shared/bitcoin/spend/feerate';
import { checkFeeRate } from '../../../shared/bitcoin/spend/params';
import { estimateTx } from '../../../shared/bitcoin/spend/size';
import { bumpRbf, BumpError, minimumBump, type Bumped } from '../../../shared/send/bump';
import { compareBumps } from '../../../shared/send/bump-compare';
import { cpfpPackage, cpfpVerdict, rbfVerdict, type BumpFacts } from '../../../shared/send/bump-options';
import { checkMinRelay } from '../../../shared/send/warnings';
import type { UnsignedTxSpec } from '../../../shared/send/create-psbt';
import { RawJson } from '../../../shared/json';
import type { BumpInfoView, BumpOptionsView, BumpOutputView } from '../../../shared/ipc/bump';
import type { BuildCheckView, DraftView, SendForm } from '../../../shared/ipc/send';
import type { ComposeService } from './compose-service';
import type { SendCore } from './core';
import type { DraftService } from './draft-service';
import { newDraftId, type DraftSummary } from './drafts-store';
import { changeIndexOf, feeOf, inputsOurs, inspect, signals, type Inspected } from './bump-inspect';
import { kindName } from './coins';
import { readPsbt, toWire } from './jobs';

/** An OP_RETURN output's payload (hex), as the draft views show it: the bytes after OP_RETURN and its push. */
function opReturnPayload(script: Uint8Array): string {
  if (script.length < 2) return '';
  return toHex(script.subarray(script[1]! < 0x4c ? 2 : script[1] === 0x4c ? 3 : 4));
}

const satVb = (rate: bigint): string => formatSatPerVb(rate).replace(' sat/vB', '');
const rateText = (fee: bigint, vsize: number): string => satVb((fee * 1000n) / BigInt(vsize));

function parseRate(text: string, minRelay: string | null): FeeRate {
  try {
    const rate = parseSatPerVb(text);
    checkFeeRate(rate, DEFAULT_MAX_FEE_RATE);
    checkMinRelay(rate, minRelay === null ? null : BigInt(minRelay));
    return rate;
  } catch (e) {
    throw new AppError('input.invalid', (e as Error).message, { field: 'feeRate' });
  }
}

export class BumpAnyService {
  constructor(
    private readonly core: SendCore,
    private readonly drafts: DraftService,
    private readonly compose: ComposeService,
  ) {}

  #facts(x: Inspected): BumpFacts {
    return {
      confirmations: x.confirmations,
      replacedBy: x.replacedBy,
      inputsOurs: inputsOurs(x),
      signals: signals(x),
      fullRbf: x.fullRbf,
      descendants: x.mempool?.descendants ?? [],
      inMempool: x.inMempool,
      hasChange: changeIndexOf(x) !== null,
      spendableOutputs: this.#spendable(x).length,
    };
  }

  /** Our unspent outputs of it (the node's listunspent with 0-conf), change first, then the largest. */
  #spendable(x: Inspected) {
    return this.core
      .coins(x.f)
      .filter((c) => c.coin.txid === x.txid && c.view.unusable === null)
      .map((c) => ({ c, change: x.outputs[c.coin.vout]?.owned?.internal === true }))
      .sort((a, b) => (a.change !== b.change ? (a.change ? -1 : 1) : b.c.coin.value > a.c.coin.value ? 1 : b.c.coin.value < a.c.coin.value ? -1 : a.c.coin.vout - b.c.coin.vout));
  }

  /** The signed-size estimate of the replacement (the same inputs and outputs), as compose estimates. */
  #replacementVsize(x: Inspected): number {
    return estimateTx(
      x.inputs.map((i) => i.owned!.kind),
      x.outputs.map((o) => o.script),
    ).vsize;
  }

  async options(txid: string): Promise<BumpOptionsView> {
    const x = await inspect(this.core, txid);
    const facts = this.#facts(x);
    const rbf = rbfVerdict(facts);
    const cpfp = cpfpVerdict(facts);
    const fee = feeOf(x);
    const vsize = x.mempool?.vsize ?? x.tx.vsize;
    const incremental = x.f.facts.incremental === null ? 1000n : BigInt(x.f.facts.incremental);
    const changeIndex = changeIndexOf(x);
    let rbfFigures: Pick<BumpOptionsView['rbf'], 'minRate' | 'vsize' | 'changeSats'> = { minRate: null, vsize: null, changeSats: null };
    if (rbf.possible) {
      const est = this.#replacementVsize(x);
      rbfFigures = { vsize: est, minRate: fee ? satVb(minimumBump(fee.fee, est, incremental).rate) : null, changeSats: changeIndex === null ? null : x.outputs[changeIndex]!.value.toString() };
    }
    const preview = this.#childDestination(x);
    const outputs: BumpOutputView[] = this.#spendable(x).map(({ c, change }) => ({
      vout: c.coin.vout,
      address: c.view.address,
      amountSats: c.view.amountSats,
      role: change ? 'change' : 'receive',
      // to the wallet's next change address (without one — no CPFP, below — to a script like the coin's)
      childVsize: estimateTx([c.coin.kind], [preview ?? fromHex(c.fact.scriptPubKey)]).vsize,
      label: c.view.label,
    }));
    const mine = facts.inputsOurs;
    const outsOurs = x.outputs.filter((o) => o.owned !== null || isUnspendable(o.script)).length;
    return {
      txid,
      wallet: x.f.wallet,
      confirmations: x.confirmations,
      direction: mine === 'none' ? 'incoming' : mine === 'some' ? 'mixed' : outsOurs === x.outputs.length ? 'self' : 'outgoing',
      vsize,
      feeSats: fee ? fee.fee.toString() : null,
      feeSource: fee?.source ?? null,
      feeRate: fee ? rateText(fee.fee, vsize) : null,
      ancestors: x.mempool ? { count: x.mempool.ancestors.count, vsize: x.mempool.ancestors.vsize, feeSats: x.mempool.ancestors.fee.toString() } : null,
      signals: facts.signals,
      fullRbf: x.fullRbf,
      incrementalSatVb: x.f.facts.incremental === null ? null : satVb(BigInt(x.f.facts.incremental)),
      mempoolMinSatVb: x.f.facts.mempoolMin === null ? null : satVb(BigInt(x.f.facts.mempoolMin)),
      rbf: { ...rbf, ...rbfFigures },
      // a child needs somewhere of ours to go: the wallet's change descriptor
      cpfp: cpfp.possible && !preview ? { possible: false, reason: 'This wallet has no change descriptor (an internal one) for the child to pay to.', outputs } : { possible: cpfp.possible, reason: cpfp.reason, outputs },
    };
  }

  /** The script a child pays: the wallet's next change address (derived, for a size estimate). */
  #childDestination(x: Inspected): Uint8Array | null {
    try {
      return this.core.previewChange(x.f, []).script;
    } catch {
      return null;
    }
  }

  async rbf(txid: string, feeRateText: string): Promise<DraftView> {
    const x = await inspect(this.core, txid);
    const verdict = rbfVerdict(this.#facts(x));
    if (!verdict.possible) throw new AppError('input.invalid', `No RBF: ${verdict.reason}`, { field: 'txid', reason: 'bump.rbf_impossible' });
    const rate = parseRate(feeRateText, x.f.facts.minRelay);
    const fee = feeOf(x);
    if (!fee) throw new AppError('input.invalid', `The fee of ${txid} is not known here, so the least fee a replacement must pay is not either: no RBF.`, { field: 'txid', reason: 'bump.fee_unknown' });
    const vsize = this.#replacementVsize(x);
    const spec: UnsignedTxSpec = {
      version: x.tx.version,
      locktime: x.tx.locktime,
      // signalling, as Core's psbtbumpfee makes it (replaceable: true)
      inputs: x.inputs.map((i) => ({ txid: i.txid, vout: i.vout, sequence: 0xfffffffd })),
      outputs: x.outputs.map((o) => ({ script: o.script, value: o.value })),
    };
    let bumped: Bumped;
    try {
      bumped = bumpRbf({ spec, oldFee: fee.fee, vsize, changeIndex: changeIndexOf(x), newRate: rate, incrementalRelayFee: x.f.facts.incremental === null ? 1000n : BigInt(x.f.facts.incremental) });
    } catch (e) {
      if (e instanceof BumpError) throw new AppError('input.invalid', e.message, { field: 'feeRate', reason: e.code, ...e.detail });
      throw e;
    }
    const f = x.f;
    const psbtVersion: 0 | 2 = f.facts.coreVersion === 30 ? 0 : 2;
    const built = await this.core.deps.runner.run('send-build', {
      spec: toWire(bumped.spec),
      psbtVersion,
      chain: f.facts.chain,
      coreVersion: f.facts.coreVersion,
      nodePsbt: null,
      descriptors: f.facts.descriptors,
      prevtxs: Object.fromEntries(x.prevtxs),
    });
    const nodeCheck = await this.#nodeBump(x, rate, bumped);
    const label = (address: string | null): string => (address ? this.core.label(f.profileId, 'addr', address) : '');
    const dropped = changeIndexOf(x) !== null && bumped.changeIndex === null ? changeIndexOf(x) : null;
    const outputs: DraftSummary['outputs'] = x.outputs
      .map((o, i) => ({ o, i }))
      .filter(({ i }) => i !== dropped)
      .map(({ o, i }, index) => ({
        index,
        role: isUnspendable(o.script) ? ('data' as const) : i === changeIndexOf(x) ? ('change' as const) : ('recipient' as const),
        address: o.address,
        amountSats: bumped.spec.outputs[index]!.value.toString(),
        label: i === changeIndexOf(x) ? 'change' : label(o.address),
        dataHex: isUnspendable(o.script) ? opReturnPayload(o.script) : null,
      }));
    const sent = outputs.filter((o) => o.role === 'recipient').reduce((s, o) => s + BigInt(o.amountSats), 0n);
    const txLabel = this.core.label(f.profileId, 'tx', txid);
    const bump: BumpInfoView = { kind: 'rbf', txid, targetRate: satVb(rate), oldFeeSats: fee.fee.toString() };
    const summary: DraftSummary = {
      feeSats: bumped.fee.toString(),
      feeRate: satVb(rate),
      vsize,
      feePercent: sent > 0n ? ((bumped.fee * 10_000n) / sent).toString().padStart(3, '0').replace(/(\d\d)$/, '.$1') : '0.00',
      sentSats: sent.toString(),
      rbf: true,
      locktime: bumped.spec.locktime,
      psbtVersion,
      changeIndex: bumped.changeIndex,
      outputs,
      inputs: x.inputs.map((i) => ({
        outpoint: `${i.txid}:${i.vout}`,
        address: i.prevout!.address ?? '',
        amountSats: i.prevout!.value.toString(),
        type: kindName(i.owned!.kind),
        label: this.core.label(f.profileId, 'output', `${i.txid}:${i.vout}`) || label(i.prevout!.address),
        unconfirmed: x.mempool?.depends.includes(i.txid) ?? false,
      })),
      warnings: [],
      build: { nodeAvailable: nodeCheck.nodeAvailable, reason: nodeCheck.reason, identical: nodeCheck.identical, version: psbtVersion, node: f.facts.subversion, differences: nodeCheck.differences },
      prevTxSources: x.prevTxSources,
      noKeyPaths: built.noKeyPaths,
      offline: false,
      bump,
    };
    Object.assign(summary.build, { method: nodeCheck.method, note: nodeCheck.note });
    const original = this.core.deps.drafts.pending(f.profileId).find((d) => d.txid === txid) ?? null;
    const name = `${txLabel || original?.name || `${txid.slice(0, 10)}…`} (fee bump)`;
    return this.drafts.save({
      id: newDraftId(),
      profileId: f.profileId,
      wallet: f.wallet,
      name,
      status: 'unsigned',
      unsignedTxid: built.unsignedTxid,
      psbt: built.filled,
      form: {
        rows: outputs.flatMap((o): SendForm['rows'] =>
          o.role === 'recipient' ? [{ kind: 'pay', address: o.address ?? '', amount: o.amountSats, sendMax: false, label: o.label }] : o.role === 'data' ? [{ kind: 'data', data: o.dataHex ?? '', encoding: 'hex' }] : [],
        ),
        unit: 'sats',
        feeRate: satVb(rate),
        coins: x.inputs.map((i) => `${i.txid}:${i.vout}`),
        includeUnconfirmed: true,
        change: { mode: 'auto' },
        rbf: true,
        locktime: bumped.spec.locktime,
        name,
      },
      summary,
      replaces: original?.id ?? null,
      createdAt: new Date().toISOString(),
    });
  }

  /** The node wallet's psbtbumpfee at the same rate, compared with ours (the same coins, every recipient paid the same). */
  async #nodeBump(x: Inspected, rate: FeeRate, bumped: Bumped): Promise<Pick<BuildCheckView, 'nodeAvailable' | 'identical' | 'reason' | 'differences' | 'method' | 'note'>> {
    try {
      const r = await x.conn.rpc.call<{ psbt: string }>('psbtbumpfee', [x.txid, { fee_rate: new RawJson(satVb(rate)) }], { wallet: true });
      const tx = unsignedTxOf(readPsbt(r.psbt, "The node's replacement"))!;
      const nodeSpec: UnsignedTxSpec = { version: tx.version, locktime: tx.locktime, inputs: tx.vin.map((i) => ({ txid: i.prevTxid, vout: i.vout, sequence: i.sequence })), outputs: tx.vout.map((o) => ({ script: o.script, value: o.value })) };
      const c = compareBumps(bumped.spec, bumped.fee, bumped.changeIndex, nodeSpec);
      return { nodeAvailable: true, identical: c.same, reason: null, differences: c.differences, method: 'psbtbumpfee', note: c.note };
    } catch (e) {
      const msg = isAppError(e) ? e.message : 'no answer';
      this.core.deps.log.warn(`bump: the node's psbtbumpfee failed: ${msg}`);
      return { nodeAvailable: false, identical: false, differences: [], method: 'psbtbumpfee', note: null, reason: `Your node's psbtbumpfee did not bump it (${msg}): built here only: the same inputs and recipients, the change reduced` };
    }
  }

  async cpfp(req: { txid: string; vout: number; feeRate: string; parentFeeSats?: string | undefined; seed?: number | undefined }): Promise<DraftView> {
    const x = await inspect(this.core, req.txid);
    const verdict = cpfpVerdict(this.#facts(x));
    if (!verdict.possible) throw new AppError('input.invalid', `No CPFP: ${verdict.reason}`, { field: 'txid', reason: 'bump.cpfp_impossible' });
    const target = parseRate(req.feeRate, x.f.facts.minRelay);
    const spendable = this.#spendable(x);
    const chosen = spendable.find((s) => s.c.coin.vout === req.vout);
    if (!chosen) throw new AppError('input.invalid', `Output ${req.vout} of ${req.txid} is not an unspent output of yours: a child can spend only ${spendable.map((s) => s.c.coin.vout).join(', ') || 'none'}.`, { field: 'vout' });
    const known = feeOf(x);
    let parent: { fee: bigint; source: NonNullable<BumpInfoView['parentFeeSource']> };
    if (known) parent = known;
    else if (req.parentFeeSats !== undefined) parent = { fee: BigInt(req.parentFeeSats), source: 'given' };
    else {
      throw new AppError('input.invalid', `The fee ${req.txid} paid is not known (your node's mempool does not report it, and the amounts of its inputs are not known here): give the parent's fee to build the child. It is never assumed to be 0.`, {
        field: 'parentFee',
        reason: 'bump.parent_fee_unknown',
      });
    }
    const parentVsize = x.mempool?.vsize ?? x.tx.vsize;
    const anc = x.mempool?.ancestors ?? { count: 0, vsize: 0, fee: 0n };
    const f = x.f;
    // sized with the wallet's next change script; the address is handed out only once the child is affordable
    const dest = this.#childDestination(x);
    if (!dest) throw new AppError('input.invalid', 'This wallet has no change descriptor (an internal one) for the child to pay to.', { field: 'txid', reason: 'bump.cpfp_impossible' });
    // the chosen output first; other coins only when it alone cannot pay — confirmed ones (an unconfirmed
    // one would bring its own ancestors into the package), the largest first
    const others = this.core
      .coins(f)
      .filter((c) => c.view.unusable === null && !c.coin.frozen && c.coin.confirmations > 0 && c.view.outpoint !== chosen.c.view.outpoint)
      .sort((a, b) => (b.coin.value > a.coin.value ? 1 : b.coin.value < a.coin.value ? -1 : 0));
    const picked = [chosen.c];
    let pkg = null as ReturnType<typeof cpfpPackage> | null;
    for (;;) {
      const childVsize = estimateTx(picked.map((c) => c.coin.kind), [dest]).vsize;
      const p = cpfpPackage({ parentVsize, parentFee: parent.fee, ancestorsVsize: anc.vsize, ancestorsFee: anc.fee, childVsize, target });
      const total = picked.reduce((s, c) => s + c.coin.value, 0n);
      if (total - feeFor(p.childRate, childVsize) >= dustThreshold(dest)) {
        pkg = p;
        break;
      }
      const next = others.shift();
      if (!next) {
        throw new AppError('input.invalid', `At ${satVb(target)} sat/vB the child must pay ${p.childFee} sats, more than output ${req.vout} and the wallet's other coins hold: choose a lower rate.`, { field: 'feeRate', reason: 'bump.child_unaffordable' });
      }
      picked.push(next);
    }
    const to = await this.core.realChange(f, []);
    const name = `${this.core.label(f.profileId, 'tx', req.txid) || `${req.txid.slice(0, 10)}…`} (CPFP)`;
    const r = await this.compose.create({
      rows: [{ kind: 'pay', address: to.address, amount: '', sendMax: true, label: `CPFP for ${req.txid.slice(0, 10)}…` }],
      unit: 'btc',
      feeRate: satVb(pkg.childRate),
      coins: picked.map((c) => c.view.outpoint),
      includeUnconfirmed: true,
      change: { mode: 'auto' },
      rbf: true,
      locktime: null,
      name,
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
    });
    if (!r.ok) throw new AppError('input.invalid', `The child cannot be built: ${r.errors.map((e) => e.message).join('; ')}`, { field: 'feeRate' });
    const childFee = BigInt(r.draft.feeSats);
    const packageVsize = anc.vsize + parentVsize + r.draft.vsize;
    const packageFee = anc.fee + parent.fee + childFee;
    const bump: BumpInfoView = {
      kind: 'cpfp',
      txid: req.txid,
      targetRate: satVb(target),
      parentVsize,
      parentFeeSats: parent.fee.toString(),
      parentFeeSource: parent.source,
      ancestorsVsize: anc.vsize,
      ancestorsFeeSats: anc.fee.toString(),
      childVsize: r.draft.vsize,
      childFeeSats: childFee.toString(),
      packageVsize,
      packageFeeSats: packageFee.toString(),
      packageRate: rateText(packageFee, packageVsize),
    };
    const row = this.drafts.require(r.draft.id);
    this.core.deps.drafts.update(row.id, { summary: { ...row.summary, bump } });
    this.core.deps.log.info(`bump: CPFP child ${row.id} of ${req.txid}: package ${packageVsize} vB, ${packageFee} sat`);
    return this.drafts.get(row.id);
  }
}
