// The watched wallet: `spyglass refresh|balances|addresses|address|receive|history|labels|reconcile`
// (the watch:*, wallet:* and labels:* channels). Offline, the last snapshot is shown, marked so.
import { writeFileSync } from 'node:fs';
import type { MergeRule } from '../../shared/ipc/contract';
import { balanceRows } from '../../shared/ipc/balance-columns';
import { walletHistoryCsv } from '../../shared/wallet/history-csv';
import { positionals, UsageError } from './args';
import { btc, table, textOrFile, type Command } from './command';

const refresh: Command = {
  name: 'refresh',
  summary: "take a new snapshot of the watched wallet's addresses",
  help: 'usage: spyglass refresh\n\nAsks the node and the index for every watched address (progress on stderr) and keeps the snapshot the app shows.',
  options: {},
  async run(ctx, p) {
    positionals(p, [], refresh.help);
    await ctx.connect(true);
    const r = await ctx.call('watch:refresh', {});
    ctx.print(
      () => `snapshot ${r.snapshotId}: ${r.addresses} addresses; ${r.diff.newUtxos} new coins (${btc(r.diff.newSats)}), ${r.diff.spentUtxos} spent (${btc(r.diff.spentSats)}), ${r.diff.newTxids} new transactions`,
      r,
    );
  },
};

const balances: Command = {
  name: 'balances',
  summary: "the wallet's balances (the node's getbalances) and the snapshot's totals",
  help: `usage: spyglass balances

available / incoming / immature: the node wallet's getbalances (offline: the last history it gave,
with asOf); totals: of the latest snapshot's addresses (spyglass refresh takes one).`,
  options: {},
  async run(ctx, p) {
    positionals(p, [], balances.help);
    await ctx.connect(false);
    const b = await ctx.call('wallet:balances', {});
    const o = await ctx.call('watch:overview', {});
    const view = { balances: b, totals: o.totals, snapshot: o.snapshot, offline: o.offline };
    ctx.print(() => {
      const lines = b
        ? [`wallet ${b.wallet}${b.asOf ? ` (offline, as of ${b.asOf})` : ''}`, `  available  ${btc(b.availableSats)}`, `  incoming   ${btc(b.incomingSats)}`, `  immature   ${btc(b.immatureSats)}`]
        : ['no wallet balances (not connected, no wallet watched)'];
      lines.push(o.snapshot ? `snapshot ${o.snapshot.id} of ${o.snapshot.takenAt}${o.offline ? ' (offline)' : ''}: ${o.totals.addresses} addresses, ${btc(o.totals.balanceSats)} confirmed in ${o.totals.utxoCount} coins` : 'no snapshot yet (spyglass refresh)');
      return lines.join('\n');
    }, view);
  },
};

const addresses: Command = {
  name: 'addresses',
  summary: "the latest snapshot's addresses and their balances",
  help: 'usage: spyglass addresses [--unused]\n\nEvery watched address of the latest snapshot (hidden ones marked).\n  --unused  only the addresses that never received a payment',
  options: { '--unused': { kind: 'flag' } },
  async run(ctx, p) {
    positionals(p, [], addresses.help);
    await ctx.connect(false);
    const o = await ctx.call('watch:overview', {});
    let rows = balanceRows(o.balances);
    if (p.flags.has('--unused')) rows = rows.filter((r) => (r.receivedTxCount ?? 0) === 0 && r.utxoCount === 0 && (r.receivedSats === null || r.receivedSats === '0') && (r.pendingCount ?? 0) === 0);
    ctx.print(
      () => (rows.length === 0 ? (o.snapshot ? 'no addresses' : 'no snapshot yet (spyglass refresh)') : table([['ADDRESS', 'TYPE', 'BALANCE', 'COINS', 'LABEL'], ...rows.map((r) => [r.address + (r.hidden ? ' (hidden)' : ''), r.type, btc(r.balanceSats), String(r.utxoCount), r.label ?? r.nodeLabel ?? ''])])),
      { addresses: rows, snapshot: o.snapshot, offline: o.offline },
    );
  },
};

const address: Command = {
  name: 'address',
  summary: 'one address: balance, coins, what the node knows of it',
  help: 'usage: spyglass address <address>',
  options: {},
  async run(ctx, p) {
    const [addr] = positionals(p, ['<address>'], address.help);
    await ctx.connect(false);
    const r = await ctx.call('watch:address', { address: addr! });
    ctx.print(() => [`${r.address} (${r.type}, ${r.source === 'node' ? "the node's wallet" : 'added'}${r.hidden ? ', hidden' : ''})`, `  balance  ${btc(r.balanceSats)}`, `  received ${btc(r.receivedSats)}`, ...(r.label ? [`  label    ${r.label}`] : [])].join('\n'), r);
  },
};

const receive: Command = {
  name: 'receive',
  summary: 'the current unused receive address (the same until it is paid)',
  help: `usage: spyglass receive [--label LABEL] [--next]

The wallet's current unused receive address, with each key's path to check on a hardware wallet.
  --label LABEL  label it, on the node (setlabel) and here
  --next         skip to the next fresh address on purpose`,
  options: { '--label': { kind: 'value' }, '--next': { kind: 'flag' } },
  async run(ctx, p) {
    positionals(p, [], receive.help);
    await ctx.connect(false);
    const r = await ctx.call(p.flags.has('--next') ? 'wallet:next-address' : 'wallet:receive', {});
    const label = p.values.get('--label');
    const labelled = label === undefined ? null : await ctx.call('wallet:receive-label', { address: r.address, label });
    const view = labelled ? { ...r, label: labelled.label, labelSaved: labelled } : r;
    ctx.print(
      () => [r.address, `  index ${r.index}${r.source === 'offline' ? ' (derived here: the node was not asked)' : ''}`, ...r.paths.map((x) => `  key ${x.fingerprint ?? '?'} ${x.path ?? ''}`), ...(labelled ? [`  label "${labelled.label}": ${labelled.message}`] : r.label ? [`  label ${r.label}`] : []), ...(r.gap.unusedInARow > r.gap.limit ? [`  warning: ${r.gap.unusedInARow} unused addresses in a row, past the gap limit ${r.gap.limit}`] : [])].join('\n'),
      view,
    );
  },
};

const history: Command = {
  name: 'history',
  summary: "the wallet's transactions, newest first",
  help: 'usage: spyglass history [--csv] [--unit btc|sats]\n\nEvery transaction of the node wallet (offline: the last history it gave).\n  --csv        as CSV (the app\'s history export)\n  --unit U     btc (default) or sats, for --csv',
  options: { '--csv': { kind: 'flag' }, '--unit': { kind: 'value' } },
  async run(ctx, p) {
    positionals(p, [], history.help);
    const unit = p.values.get('--unit') ?? 'btc';
    if (unit !== 'btc' && unit !== 'sats') throw new UsageError(`--unit is btc or sats, not "${unit}"`);
    await ctx.connect(false);
    const h = await ctx.call('wallet:history', { all: true });
    if (h.cached) ctx.progress(`offline: the history as of ${h.cached.asOf} (${h.cached.reason.message})`);
    if (p.flags.has('--csv')) {
      process.stdout.write(walletHistoryCsv(h, unit));
      return;
    }
    ctx.print(
      () => (h.rows.length === 0 ? `no transactions in ${h.wallet}` : table([['TXID', 'CATEGORY', 'AMOUNT', 'CONF', 'LABEL'], ...h.rows.map((r) => [r.txid, r.category, btc(r.amountSats), String(r.confirmations), r.label])])),
      h,
    );
  },
};

const labelsExport: Command = {
  name: 'labels export',
  summary: 'every label as BIP329 JSON lines',
  help: 'usage: spyglass labels export [--out FILE]\n\nBIP329 JSON lines of every label (and the node\'s address labels where there is no local one).',
  options: { '--out': { kind: 'value' } },
  async run(ctx, p) {
    positionals(p, [], labelsExport.help);
    await ctx.connect(false);
    const r = await ctx.call('labels:export', {});
    const out = p.values.get('--out');
    if (out !== undefined) {
      writeFileSync(out, r.text);
      ctx.progress(`wrote ${r.records} labels to ${out}`);
    }
    ctx.print(out !== undefined ? '' : r.text, r);
  },
};

const RULES: readonly MergeRule[] = ['replace', 'keep-existing', 'fill-empty'];

const labelsImport: Command = {
  name: 'labels import',
  summary: 'import BIP329 labels (all or nothing)',
  help: `usage: spyglass labels import <file|-> [--merge RULE] [--dry-run]

Applies a BIP329 file in one transaction, or nothing when any line is invalid (exit 2, the line said).
  --merge RULE  replace (default), keep-existing or fill-empty: what a label already set becomes
  --dry-run     print what would change, change nothing`,
  options: { '--merge': { kind: 'value' }, '--dry-run': { kind: 'flag' } },
  async run(ctx, p) {
    const [file] = positionals(p, ['<file>'], labelsImport.help);
    const rule = (p.values.get('--merge') ?? 'replace') as MergeRule;
    if (!RULES.includes(rule)) throw new UsageError(`--merge is ${RULES.join(', ')}, not "${rule}"`);
    const { text } = textOrFile(file!, 'labels import');
    await ctx.connect(false);
    const preview = await ctx.call('labels:preview', { text, rule });
    if (preview.errors.length > 0) throw new UsageError(`nothing imported: line ${preview.errors[0]!.line}: ${preview.errors[0]!.message}${preview.errors.length > 1 ? ` (and ${preview.errors.length - 1} more)` : ''}`);
    const r = p.flags.has('--dry-run') ? preview : await ctx.call('labels:import', { text, rule });
    ctx.print(`${p.flags.has('--dry-run') ? 'would import' : 'imported'} ${r.records} labels: ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged, ${r.conflicts} conflicts`, r);
  },
};

const reconcile: Command = {
  name: 'reconcile',
  summary: 'where the node and the index disagree about the latest snapshot',
  help: 'usage: spyglass reconcile\n\nThe disagreements of the latest snapshot (none: they agree). Exit 0 either way; --json for scripts.',
  options: {},
  async run(ctx, p) {
    positionals(p, [], reconcile.help);
    await ctx.connect(false);
    const r = await ctx.call('watch:reconcile', {});
    ctx.print(() => (r.snapshotTakenAt === null ? 'no snapshot yet (spyglass refresh)' : r.issues.length === 0 ? `node and index agree (snapshot of ${r.snapshotTakenAt})` : r.issues.map((i) => `${i.kind}${i.address ? ` ${i.address}` : ''}: ${i.message}`).join('\n')), r);
  },
};

export const WATCH_COMMANDS: readonly Command[] = [refresh, balances, addresses, address, receive, history, labelsExport, labelsImport, reconcile];
