// `spyglass drafts list|show|export|import|finalize|broadcast`: the way to the signers and back (the
// drafts:* channels of #15/#16). Broadcast sends only with --yes, after printing what will be sent
// (the app's confirmation); without --yes it prints that and exits 1, sending nothing.
import { writeFileSync } from 'node:fs';
import type { DraftSummaryView, DraftView } from '../../shared/ipc/send';
import { Fatal, fileExists, fromFile, looksLikePath, readInputFile, toBase64 } from '../psbt-io';
import { positionals, Refused, UsageError } from './args';
import { btc, table, type Command } from './command';
import type { Ctx } from './context';

const MAX_PSBT_BYTES = 100 * 1024 * 1024;

/** The draft an id or a (unique) name names, or bad input. */
export async function findDraft(ctx: Ctx, ref: string): Promise<DraftSummaryView> {
  const { drafts } = await ctx.call('drafts:list', {});
  const byId = drafts.find((d) => d.id === ref);
  if (byId) return byId;
  const named = drafts.filter((d) => d.name === ref);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) throw new UsageError(`${named.length} drafts are named "${ref}": give its id (spyglass drafts list)`);
  throw new UsageError(`no draft "${ref}" in the watched wallet (spyglass drafts list shows them)`);
}

export function describeDraft(d: DraftView): string {
  return [
    `draft ${d.id} "${d.name}": ${d.status}, wallet ${d.wallet}, PSBT version ${d.psbtVersion}`,
    ...d.inputs.map((i) => `  in   ${i.outpoint}  ${btc(i.amountSats)}  ${i.address}`),
    ...d.outputs.map((o) => `  out  #${o.index} ${o.role.padEnd(9)} ${o.address ?? `OP_RETURN ${o.dataHex}`}  ${btc(o.amountSats)}`),
    `  fee ${btc(d.feeSats)} at ${d.feeRate} sat/vB; ${d.rbf ? 'replaceable' : 'not replaceable'}; locktime ${d.locktime}`,
    `  signatures: ${d.signing.text}`,
    ...(d.finalTx ? [`  final transaction ${d.finalTx.txid} (${d.finalTx.vsize} vB)`] : []),
    ...d.warnings.map((w) => `  warning: ${w.message}`),
  ].join('\n');
}

const list: Command = {
  name: 'drafts list',
  summary: "the watched wallet's drafts",
  help: 'usage: spyglass drafts list',
  options: {},
  async run(ctx, p) {
    positionals(p, [], list.help);
    await ctx.connect(false);
    const r = await ctx.call('drafts:list', {});
    ctx.print(() => (r.drafts.length === 0 ? 'no drafts' : table([['ID', 'NAME', 'STATUS', 'SENT', 'FEE', 'TXID'], ...r.drafts.map((d) => [d.id, d.name, d.status, btc(d.sentSats), btc(d.feeSats), d.txid ?? d.unsignedTxid])])), r);
  },
};

const show: Command = {
  name: 'drafts show',
  summary: 'one draft: inputs, outputs, fee, signatures',
  help: 'usage: spyglass drafts show <draft id|name>',
  options: {},
  async run(ctx, p) {
    const [ref] = positionals(p, ['<draft>'], show.help);
    await ctx.connect(false);
    const d = await ctx.call('drafts:get', { id: (await findDraft(ctx, ref!)).id });
    ctx.print(() => describeDraft(d), d);
  },
};

const exportCmd: Command = {
  name: 'drafts export',
  summary: 'the PSBT to hand to a signer (base64, binary or UR for QR codes)',
  help: `usage: spyglass drafts export <draft> [--format base64|binary|ur] [--psbt-version 0|2] [--combined] [--out FILE]

  --format F          base64 (default, one line), binary (the PSBT file; needs --out, or a pipe), or
                      ur (ur:crypto-psbt parts, one a line, for an animated QR code)
  --psbt-version V    0 (default: most signers read only version 0) or 2 (BIP370)
  --combined          the PSBT with every signature imported so far (default: the unsigned one)
  --out FILE          write to FILE instead of standard output`,
  options: { '--format': { kind: 'value' }, '--psbt-version': { kind: 'value' }, '--combined': { kind: 'flag' }, '--out': { kind: 'value' } },
  async run(ctx, p) {
    const [ref] = positionals(p, ['<draft>'], exportCmd.help);
    const format = p.values.get('--format') ?? 'base64';
    if (format !== 'base64' && format !== 'binary' && format !== 'ur') throw new UsageError(`--format is base64, binary or ur, not "${format}"`);
    const v = p.values.get('--psbt-version') ?? '0';
    if (v !== '0' && v !== '2') throw new UsageError(`--psbt-version is 0 or 2, not "${v}"`);
    const out = p.values.get('--out');
    if (format === 'binary' && out === undefined && process.stdout.isTTY) throw new UsageError('--format binary writes bytes: give --out FILE, or pipe it');
    await ctx.connect(false);
    const id = (await findDraft(ctx, ref!)).id;
    const e = await ctx.call('drafts:export', { id, version: Number(v) as 0 | 2, which: p.flags.has('--combined') ? 'combined' : 'unsigned' });
    for (const n of e.notes) ctx.progress(`note: ${n}`);
    let parts: string[] | null = null;
    if (format === 'ur') {
      parts = [];
      for (let from = 0; ; ) {
        const q = await ctx.call('psbt:qr', { psbt: e.base64, from, count: 1024 });
        parts.push(...q.parts);
        from += q.parts.length;
        if (from >= q.total || q.parts.length === 0) break;
      }
    }
    const bytes = Buffer.from(e.base64, 'base64');
    const text = format === 'ur' ? `${parts!.join('\n')}\n` : format === 'base64' ? `${e.base64}\n` : null;
    if (out !== undefined) {
      writeFileSync(out, text ?? bytes);
      ctx.progress(`wrote ${out} (PSBT version ${e.version}, ${e.bytes} bytes)`);
      ctx.print('', { ...e, ...(parts ? { parts } : {}), file: out });
    } else if (ctx.json) ctx.print('', { ...e, ...(parts ? { parts } : {}) });
    else process.stdout.write(text ?? bytes);
  },
};

/** One argument of `drafts import`: a file (binary or text), "-", or the PSBT / raw transaction itself. */
async function importText(arg: string): Promise<{ text: string; source: string }> {
  if (arg === '-' || fileExists(arg) || looksLikePath(arg)) {
    try {
      const src = fromFile(await readInputFile(arg, MAX_PSBT_BYTES), arg, MAX_PSBT_BYTES);
      if (src.kind === 'error') throw new UsageError(`${arg}: ${src.message}`);
      return { text: toBase64(src), source: arg === '-' ? 'standard input' : arg };
    } catch (e) {
      if (e instanceof Fatal) throw new UsageError(e.message);
      throw e;
    }
  }
  return { text: arg.trim(), source: 'the command line' };
}

const importCmd: Command = {
  name: 'drafts import',
  summary: "signed PSBTs or a signed raw transaction back: matched to their draft, combined",
  help: `usage: spyglass drafts import <file|psbt|raw tx|-> … [--draft ID]

Each signed PSBT (a file: binary, base64 or hex; or the text) or signed raw transaction is matched to
its draft and combined; every signature is verified. Exit 2 when none could be used (each reason said).
  --draft ID   the draft they belong to (default: found from the transaction)`,
  options: { '--draft': { kind: 'value' } },
  async run(ctx, p) {
    if (p.positionals.length === 0) throw new UsageError(`give the signed PSBTs or transaction\n${importCmd.help}`);
    if (p.positionals.length > 20) throw new UsageError('at most 20 at a time');
    const texts = await Promise.all(p.positionals.map(importText));
    await ctx.connect(false);
    const draftRef = p.values.get('--draft');
    const id = draftRef === undefined ? undefined : (await findDraft(ctx, draftRef)).id;
    const r = await ctx.call('drafts:import', { texts, ...(id ? { id } : {}) });
    ctx.print(() => [...r.results.map((x) => `${x.ok ? 'ok' : 'refused'}: ${x.source}: ${x.message}${x.detail ? ` (${x.detail})` : ''}`), describeDraft(r.draft)].join('\n'), r);
    if (r.results.some((x) => !x.ok)) return 1;
  },
};

const finalize: Command = {
  name: 'drafts finalize',
  summary: 'verify every signature, finalize and extract the transaction',
  help: "usage: spyglass drafts finalize <draft>\n\nVerifies every signature, finalizes and extracts (the node's finalizepsbt cross-checks it).",
  options: {},
  async run(ctx, p) {
    const [ref] = positionals(p, ['<draft>'], finalize.help);
    await ctx.connect(false);
    const id = (await findDraft(ctx, ref!)).id;
    let d: DraftView;
    try {
      d = await ctx.call('drafts:finalize', { id });
    } catch (e) {
      // not enough or bad signatures: the draft is refused as it is, not the command line
      if (e instanceof UsageError) throw new Refused(e.message);
      throw e;
    }
    ctx.print(() => `${describeDraft(d)}\n  ${d.finalCheck ?? ''}`, d);
  },
};

const broadcast: Command = {
  name: 'drafts broadcast',
  summary: 'send a finalized draft (only with --yes, after printing what will be sent)',
  help: `usage: spyglass drafts broadcast <draft> [--yes]

Tests the transaction with the node (testmempoolaccept) and prints what will be sent: recipients,
amounts, fee. Without --yes nothing is sent and the exit code is 1; with --yes it is broadcast.`,
  options: { '--yes': { kind: 'flag' } },
  async run(ctx, p) {
    const [ref] = positionals(p, ['<draft>'], broadcast.help);
    await ctx.connect(true);
    const id = (await findDraft(ctx, ref!)).id;
    const pre = await ctx.call('drafts:preflight', { id });
    const what = [
      `transaction ${pre.txid}${pre.vsize !== null ? ` (${pre.vsize} vB)` : ''} will send:`,
      ...pre.recipients.map((r) => `  ${btc(r.amountSats).padStart(20)}  to ${r.address ?? 'OP_RETURN'}${r.role === 'change' ? ' (change, back to this wallet)' : ''}${r.label ? ` "${r.label}"` : ''}`),
      `  fee ${btc(pre.feeSats)}${pre.feeRate ? ` at ${pre.feeRate} sat/vB` : ''}`,
      pre.tested ? (pre.allowed ? '  the node would accept it' : `  the node would refuse it: ${pre.words ?? pre.reason}`) : '  not tested by the node',
    ].join('\n');
    if (!pre.allowed) {
      process.stderr.write(`${what}\n`);
      throw new Refused(`not sent: ${pre.words ?? pre.reason ?? 'the node would refuse it'}${pre.remedy ? ` — ${pre.remedy}` : ''}`);
    }
    if (!p.flags.has('--yes')) {
      ctx.print(what, { preflight: pre, sent: false });
      throw new Refused('not sent: add --yes to broadcast it');
    }
    process.stderr.write(`${what}\n`);
    const r = await ctx.call('drafts:broadcast', { id, confirmed: true });
    if (!r.sent) throw new Refused(`not sent: ${r.message ?? 'the node refused it'}${r.kept ? ' (kept for a retry)' : ''}`);
    ctx.print(`sent ${r.txid}`, { preflight: pre, ...r });
  },
};

export const DRAFT_COMMANDS: readonly Command[] = [list, show, exportCmd, importCmd, finalize, broadcast];
