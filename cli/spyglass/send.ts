// `spyglass send preview|create`: compose a payment from the watched wallet (the send:* channels of
// #15). What you review is what you sign (#28): `create` previews first in the same run and builds
// exactly that plan (electron/main/send/plans.ts), so what it prints is what it built; with
// `--seed S --expect-txid T` from an earlier `send preview`, it refuses unless the transaction it would
// build now is that very one (same coins, order, change, fee) — a coin spent or a change address
// taken meanwhile changes it.
import type { SendForm, SendPreviewView } from '../../shared/ipc/send';
import type { FieldError } from '../../shared/send/recipients';
import { intOption, positionals, Refused, UsageError, type Parsed } from './args';
import { btc, table, type Command } from './command';
import type { Ctx } from './context';

const OPTIONS = {
  '--to': { kind: 'list' },
  '--fee-rate': { kind: 'value' },
  '--coins': { kind: 'list' },
  '--change': { kind: 'value' },
  '--no-rbf': { kind: 'flag' },
  '--locktime': { kind: 'value' },
  '--psbt-version': { kind: 'value' },
  '--name': { kind: 'value' },
  '--seed': { kind: 'value' },
  '--unit': { kind: 'value' },
  '--confirmed-only': { kind: 'flag' },
} as const;

const FORM_HELP = `  --to ADDR=AMOUNT …   a recipient (repeat, or list several after one --to); AMOUNT in BTC (--unit sats
                       for satoshis), or "max" for everything left
  --fee-rate R         sat/vB (default: the node's estimate for the app's default fee preset)
  --coins OUTPOINT …   spend exactly these coins (txid:vout); default: chosen automatically
  --confirmed-only     leave unconfirmed coins out of the automatic choice
  --change ADDR        the change to this address (default: the wallet's next change address)
  --no-rbf             do not signal replaceability (BIP125)
  --locktime N         nLockTime (default: the tip height, as Core does)
  --unit btc|sats      the unit of the amounts (default btc)
  --seed S             the random choices (coin draw, input order, change position) of a preview
  --name NAME          the draft's name`;

/** The send form the options describe (the Send page's form). */
async function formOf(ctx: Ctx, p: Parsed): Promise<SendForm> {
  const to = p.lists.get('--to') ?? [];
  if (to.length === 0) throw new UsageError('give at least one recipient: --to ADDRESS=AMOUNT');
  const rows = to.map((t) => {
    const eq = t.lastIndexOf('=');
    if (eq <= 0 || eq === t.length - 1) throw new UsageError(`--to ${t}: write ADDRESS=AMOUNT`);
    const amount = t.slice(eq + 1);
    const sendMax = amount.toLowerCase() === 'max';
    return { kind: 'pay' as const, address: t.slice(0, eq), amount: sendMax ? '' : amount, sendMax, label: '' };
  });
  const unit = p.values.get('--unit') ?? 'btc';
  if (unit !== 'btc' && unit !== 'sats') throw new UsageError(`--unit is btc or sats, not "${unit}"`);
  const coins = p.lists.get('--coins');
  const change = p.values.get('--change');
  const locktime = intOption(p, '--locktime', 0, 0xffffffff);
  const seed = intOption(p, '--seed', 0, 0xffffffff);
  let feeRate = p.values.get('--fee-rate');
  if (feeRate === undefined) {
    const [c, s] = [await ctx.call('send:context', {}), await ctx.call('settings:get', {})];
    const preset = c.presets.find((x) => x.id === s.app.defaultFeePreset);
    feeRate = preset?.economical.satVb ?? preset?.conservative.satVb ?? undefined;
    if (feeRate === undefined) throw new UsageError('the node has no fee estimate yet: give --fee-rate R (sat/vB)');
    ctx.progress(`fee rate ${feeRate} sat/vB (the node's ${preset!.id} estimate)`);
  }
  return {
    rows,
    unit,
    feeRate,
    coins: coins && coins.length > 0 ? coins : null,
    includeUnconfirmed: !p.flags.has('--confirmed-only'),
    change: change === undefined ? { mode: 'auto' } : { mode: 'address', address: change },
    rbf: !p.flags.has('--no-rbf'),
    locktime: locktime ?? null,
    name: p.values.get('--name') ?? '',
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** The form's field errors as the one-line reason (bad input: exit 2). */
function formErrors(errors: readonly FieldError[]): UsageError {
  const where = (e: FieldError): string => (e.row >= 0 ? `recipient ${e.row + 1} ${e.field}` : e.field);
  return new UsageError(`nothing was built: ${errors.map((e) => `${where(e)}: ${e.message}`).join('; ')}`);
}

export function describePreview(v: SendPreviewView): string {
  return [
    `inputs (${v.inputs.length}):`,
    table(v.inputs.map((i) => [`  ${i.outpoint}`, btc(i.amountSats), i.address, i.unconfirmed ? 'unconfirmed' : ''])),
    `outputs (${v.outputs.length}):`,
    table(v.outputs.map((o) => [`  #${o.index}`, o.role, o.address ?? `OP_RETURN ${o.dataHex}`, btc(o.amountSats)])),
    `fee ${btc(v.feeSats)} at ${v.feeRate} sat/vB (${v.vsize} vB, ${v.feePercent} % of the amount sent); sent ${btc(v.sentSats)}`,
    `locktime ${v.locktime}, ${v.rbf ? 'replaceable (RBF)' : 'not replaceable'}; ${v.algorithm}`,
    ...v.warnings.map((w) => `warning: ${w.message}`),
    `unsigned txid ${v.unsignedTxid}, seed ${v.seed}`,
  ].join('\n');
}

async function previewOf(ctx: Ctx, form: SendForm): Promise<SendPreviewView> {
  const r = await ctx.call('send:preview', { form });
  if (!r.ok) throw formErrors(r.errors);
  if (r.offline) throw new Refused('the node cannot be reached: a payment is composed from its live coins only');
  return r.preview;
}

const preview: Command = {
  name: 'send preview',
  summary: 'what a payment would spend, pay and cost (nothing is built)',
  help: `usage: spyglass send preview --to ADDR=AMOUNT … [options]

The coins, outputs, fee and warnings of the payment, and the seed and unsigned txid that
\`spyglass send create\` with the same options and --seed S --expect-txid T builds exactly.

${FORM_HELP}`,
  options: OPTIONS,
  async run(ctx, p) {
    positionals(p, [], preview.help);
    await ctx.connect(true);
    const v = await previewOf(ctx, await formOf(ctx, p));
    ctx.print(() => `${describePreview(v)}\nto build exactly this: spyglass send create … --seed ${v.seed} --expect-txid ${v.unsignedTxid}`, v);
  },
};

const create: Command = {
  name: 'send create',
  summary: 'build the payment as a draft PSBT (prints the draft id)',
  help: `usage: spyglass send create --to ADDR=AMOUNT … [options]

Previews, then builds exactly that preview (the node's createpsbt cross-checks it) and saves it as a
draft; prints what it built and the draft id. Export it to a signer with \`spyglass drafts export\`.

${FORM_HELP}
  --expect-txid T      refuse (exit 1, nothing built) unless the transaction is the one a preview
                       printed (give that preview's --seed too)
  --psbt-version 0|2   also print the PSBT in this version (the draft keeps the node's own)`,
  options: { ...OPTIONS, '--expect-txid': { kind: 'value' } },
  async run(ctx, p) {
    positionals(p, [], create.help);
    const version = p.values.get('--psbt-version');
    if (version !== undefined && version !== '0' && version !== '2') throw new UsageError(`--psbt-version is 0 or 2, not "${version}"`);
    const expect = p.values.get('--expect-txid')?.toLowerCase();
    if (expect !== undefined && !/^[0-9a-f]{64}$/.test(expect)) throw new UsageError('--expect-txid needs a txid (64 hex characters)');
    if (expect !== undefined && !p.values.has('--seed')) throw new UsageError('--expect-txid needs the preview\'s --seed too');
    await ctx.connect(true);
    const form = await formOf(ctx, p);
    const v = await previewOf(ctx, form);
    if (expect !== undefined && v.unsignedTxid !== expect) {
      throw new Refused(`nothing was built: the payment now is ${v.unsignedTxid}, not the previewed ${expect} (a coin was spent or the change address was taken meanwhile); preview again`);
    }
    const r = await ctx.call('send:create', { form: { ...form, seed: v.seed }, plan: v.plan });
    if (!r.ok) throw formErrors(r.errors);
    const d = r.draft;
    if (d.unsignedTxid !== v.unsignedTxid) throw new Refused(`internal: the draft ${d.id} is ${d.unsignedTxid}, not the previewed ${v.unsignedTxid}`);
    const exported = version === undefined ? null : await ctx.call('drafts:export', { id: d.id, version: Number(version) as 0 | 2 });
    ctx.print(
      () => `${describePreview(v)}\ndraft ${d.id} "${d.name}" created (${d.status}; PSBT version ${d.psbtVersion}; ${d.build.nodeAvailable ? (d.build.identical ? "the node's createpsbt builds the same bytes" : 'the node built it differently: see --json build') : `not cross-checked: ${d.build.reason ?? ''}`})${exported ? `\n${exported.base64}` : ''}`,
      { draft: d, preview: v, ...(exported ? { exported } : {}) },
    );
  },
};

export const SEND_COMMANDS: readonly Command[] = [preview, create];
