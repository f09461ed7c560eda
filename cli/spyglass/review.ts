// `spyglass review <psbt>`: the review the app's PSBT page shows (psbt:review, every row paged in),
// for a script to gate on: each input and output with its owner (this wallet, change, foreign), the
// spending path, signatures present and missing, fee and rate, and every warning with its code and
// severity. Exit 1 when a warning of severity "danger" is present.
import type { PsbtInputView, PsbtOutputView, PsbtReviewReply } from '../../shared/ipc/psbt';
import { REVIEW_PAGE_MAX } from '../../shared/ipc/psbt';
import { Fatal, readSource, toBase64 } from '../psbt-io';
import { positionals, UsageError } from './args';
import { btc, type Command } from './command';

const MAX_PSBT_BYTES = 100 * 1024 * 1024;

export type InputOwner = 'wallet' | 'foreign';
export type OutputOwner = 'wallet' | 'change' | 'foreign' | 'data';

function inputRow(i: PsbtInputView) {
  const { present, required } = i.signatures;
  return { ...i, owner: (i.watched ? 'wallet' : 'foreign') as InputOwner, signaturesMissing: i.finalized ? 0 : required === null ? null : Math.max(0, required - present) };
}

function outputRow(o: PsbtOutputView) {
  // change: the wallet's own change address; an external output to an address this profile watches is still the wallet's
  const owner: OutputOwner = o.kind === 'op_return' ? 'data' : o.kind === 'change' ? (o.changeReason === 'ischange' ? 'change' : 'wallet') : 'foreign';
  return { ...o, owner };
}

async function allRows(ctx: Parameters<Command['run']>[0], r: PsbtReviewReply, base64: string): Promise<{ inputs: PsbtInputView[]; outputs: PsbtOutputView[] }> {
  const inputs = [...r.review.inputs];
  const outputs = [...r.review.outputs];
  while (inputs.length < r.review.summary.inputCount) {
    const page = await ctx.call('psbt:review-page', { key: r.reviewKey, psbt: base64, side: 'inputs', from: inputs.length, count: REVIEW_PAGE_MAX });
    if (page.inputs.length === 0) break;
    inputs.push(...page.inputs);
  }
  while (outputs.length < r.review.summary.outputCount) {
    const page = await ctx.call('psbt:review-page', { key: r.reviewKey, psbt: base64, side: 'outputs', from: outputs.length, count: REVIEW_PAGE_MAX });
    if (page.outputs.length === 0) break;
    outputs.push(...page.outputs);
  }
  return { inputs, outputs };
}

const review: Command = {
  name: 'review',
  summary: 'review a PSBT against the watched wallet (exit 1 on a danger warning)',
  help: `usage: spyglass review <file|base64|hex|->

The review the app shows: every input and output with its owner (wallet, change, foreign, data), the
spending path, signatures present and missing, fee and fee rate, and every warning with its code and
severity. Exit 1 when a warning of severity "danger" is present; exit 2 when it is not a PSBT.
Works offline (against the last snapshot).`,
  options: {},
  async run(ctx, p) {
    const [arg] = positionals(p, ['<psbt>'], review.help);
    let base64: string;
    try {
      base64 = toBase64(await readSource(arg!, MAX_PSBT_BYTES));
    } catch (e) {
      if (e instanceof Fatal) throw new UsageError(e.message);
      throw e;
    }
    await ctx.connect(false);
    const r = await ctx.call('psbt:review', { psbt: base64 });
    const { inputs, outputs } = await allRows(ctx, r, base64);
    const view = {
      summary: r.review.summary,
      inputs: inputs.map(inputRow),
      outputs: outputs.map(outputRow),
      warnings: r.review.warnings,
      context: r.context,
      danger: r.review.warnings.some((w) => w.severity === 'danger'),
    };
    const s = view.summary;
    ctx.print(
      () =>
        [
          `PSBT version ${s.version}, txid ${s.txid}${s.finalized ? ' (finalized)' : ''}`,
          ...view.inputs.map((i) => `  in  #${i.index} ${i.owner.padEnd(7)} ${i.outpoint} ${btc(i.amountSats)} ${i.spendType}; signatures ${i.finalized ? 'final' : `${i.signatures.present}/${i.signatures.required ?? '?'}`}`),
          ...view.outputs.map((o) => `  out #${o.index} ${o.owner.padEnd(7)} ${o.address ?? 'OP_RETURN'} ${btc(o.amountSats)}`),
          `  fee ${btc(s.feeSats)}${s.feeRate ? ` at ${s.feeRate} sat/vB` : ''}; sent ${btc(s.sentSats)}; ${s.signaturesComplete ? 'fully signed' : 'not fully signed'}`,
          ...view.warnings.map((w) => `  ${w.severity}: ${w.code}: ${w.message}`),
        ].join('\n'),
      view,
    );
    return view.danger ? 1 : 0;
  },
};

export const REVIEW_COMMANDS: readonly Command[] = [review];
