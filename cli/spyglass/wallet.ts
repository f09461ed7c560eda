// `spyglass wallet import|list|use|export|attach|rescan`: the active profile's watch-only wallets on
// the node (the wallet:* channels of #17 and #26).
import { writeFileSync } from 'node:fs';
import type { WalletPreview } from '../../shared/ipc/contract';
import { intOption, positionals, Refused, UsageError } from './args';
import { table, textOrFile, btc, type Command } from './command';
import { describeState } from './profile';

const FORMATS = ['xpub', 'descriptor', 'sparrow', 'caravan', 'specter', 'bsms', 'coldcard', 'core'] as const;
const SCRIPT_TYPES = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr', 'p2sh', 'p2sh-p2wsh', 'p2wsh'] as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} is one of ${allowed.join(', ')}, not "${value}"`);
  return value as T;
}

function describePreview(p: WalletPreview): string {
  return [
    `${p.formatName}: ${p.scriptTypeName}${p.keys.length > 1 ? `, ${p.threshold} of ${p.keys.length} keys` : ''}`,
    ...p.keys.map((k) => `  key ${k.fingerprint ?? '(no fingerprint)'} ${k.path ?? ''} ${k.xpub}`),
    `  receive: ${p.external}`,
    ...(p.internal ? [`  change:  ${p.internal}`] : []),
    `  first addresses: ${p.firstAddresses.map((a) => a.address).join(' ')}`,
    ...p.warnings.map((w) => `  warning: ${w}`),
  ].join('\n');
}

const importCmd: Command = {
  name: 'wallet import',
  summary: 'import a watch-only wallet (descriptors, xpub or a wallet file) to the node',
  help: `usage: spyglass wallet import <descriptor|xpub|file|-> [options]

Creates a blank watch-only descriptor wallet on the node, imports the descriptors, rescans, and makes
it the wallet the active profile watches. <…> is a descriptor (one per line: receive and change), an
extended public key, or a wallet file (Sparrow, Caravan, Specter, BSMS, Coldcard, Core's
listdescriptors); "-" reads standard input.

  --name NAME          its name on the node (default: the one the input gives, else "Wallet N")
  --preview            print what would be imported and stop (nothing changes)
  --rescan FROM        now (default: only new payments), everything, or a date YYYY-MM-DD
  --watch-ahead N      addresses of each branch watched ahead of the last used one (20…10000, default 1000)
  --format F           ${FORMATS.join('|')} (default: recognized)
  --script-type T      for an xpub: ${SCRIPT_TYPES.join('|')}
  --fingerprint FP     for an xpub: the master key's fingerprint (8 hex)
  --path PATH          for an xpub: its derivation path, e.g. m/84h/0h/0h`,
  options: {
    '--name': { kind: 'value' },
    '--preview': { kind: 'flag' },
    '--rescan': { kind: 'value' },
    '--watch-ahead': { kind: 'value' },
    '--format': { kind: 'value' },
    '--script-type': { kind: 'value' },
    '--fingerprint': { kind: 'value' },
    '--path': { kind: 'value' },
  },
  async run(ctx, p) {
    const [arg] = positionals(p, ['<descriptor|xpub|file>'], importCmd.help);
    const { text } = textOrFile(arg!, 'wallet import');
    const format = oneOf(p.values.get('--format'), FORMATS, '--format');
    const scriptType = oneOf(p.values.get('--script-type'), SCRIPT_TYPES, '--script-type');
    const source = {
      text,
      ...(format ? { format } : {}),
      ...(scriptType ? { scriptType } : {}),
      ...(p.values.has('--fingerprint') ? { fingerprint: p.values.get('--fingerprint')! } : {}),
      ...(p.values.has('--path') ? { path: p.values.get('--path')! } : {}),
    };
    const rescanText = p.values.get('--rescan') ?? 'now';
    const rescan: { from: 'now' } | { from: 'everything' } | { from: 'date'; date: string } | null =
      rescanText === 'now' || rescanText === 'everything'
        ? { from: rescanText }
        : /^\d{4}-\d{2}-\d{2}$/.test(rescanText)
          ? { from: 'date', date: rescanText }
          : null;
    if (!rescan) throw new UsageError(`--rescan is now, everything or a date YYYY-MM-DD, not "${rescanText}"`);
    const watchAhead = intOption(p, '--watch-ahead', 20, 10_000);
    await ctx.connect(!p.flags.has('--preview'));
    const preview = await ctx.call('wallet:preview', source);
    if (p.flags.has('--preview')) {
      ctx.print(() => describePreview(preview), preview);
      return;
    }
    const walletName = p.values.get('--name') ?? preview.name;
    ctx.progress(`importing ${preview.formatName} as "${walletName}" (rescan: ${rescanText})`);
    const result = await ctx.call('wallet:import', { ...source, walletName, rescan, ...(watchAhead !== undefined ? { watchAhead } : {}) });
    ctx.print(
      () => [`imported "${result.walletName}": ${result.descriptors} descriptors, rescan ${result.rescan}; the active profile watches it now`, describePreview(preview), ...result.warnings.map((w) => `warning: ${w}`)].join('\n'),
      { ...result, preview },
    );
  },
};

const list: Command = {
  name: 'wallet list',
  summary: "the active profile's wallets (* the one watched)",
  help: 'usage: spyglass wallet list\n\nThe wallets this profile keeps, from the data folder (works offline): kind, last balance, * the one watched.',
  options: {},
  async run(ctx, p) {
    positionals(p, [], list.help);
    const r = await ctx.call('wallet:list', {});
    if (r.profileId === null) throw new Refused('no active profile: add one with `spyglass profile add`');
    ctx.print(
      () =>
        r.wallets.length === 0
          ? `profile "${r.profileName}" keeps no wallet yet (spyglass wallet import / attach)`
          : table([['', 'WALLET', 'KIND', 'BALANCE', 'AS OF'], ...r.wallets.map((w) => [w.active ? '*' : '', w.name, `${w.kind ?? '-'}${w.holdsKeys ? ' (holds keys)' : ''}`, w.balanceSats === null ? '-' : btc(w.balanceSats), w.snapshotAt ?? '-'])]),
      r,
    );
  },
};

const use: Command = {
  name: 'wallet use',
  summary: 'watch another of the profile\'s wallets',
  help: 'usage: spyglass wallet use <wallet>\n\nEvery command (and the app) shows <wallet> from now on: one of `spyglass wallet list`.',
  options: {},
  async run(ctx, p) {
    const [name] = positionals(p, ['<wallet>'], use.help);
    const r = await ctx.call('wallet:list', {});
    if (r.profileId === null) throw new Refused('no active profile: add one with `spyglass profile add`');
    if (!r.wallets.some((w) => w.name === name)) throw new UsageError(`no wallet "${name}" in profile "${r.profileName}" (spyglass wallet list shows them; import or attach it first)`);
    await ctx.connect(false);
    const state = await ctx.call('wallet:switch', { walletName: name! });
    ctx.print(() => `watching "${name}"\n  ${describeState(state)}`, state);
  },
};

const exportCmd: Command = {
  name: 'wallet export',
  summary: 'the watched wallet as descriptors, or a BSMS record (--bsms)',
  help: 'usage: spyglass wallet export [--bsms] [--out FILE]\n\nThe stored wallet back out (works offline): its descriptors, or a BSMS 1.0 descriptor record with --bsms.\n  --out FILE  write the text to FILE instead of standard output',
  options: { '--bsms': { kind: 'flag' }, '--out': { kind: 'value' } },
  async run(ctx, p) {
    positionals(p, [], exportCmd.help);
    await ctx.connect(false);
    const r = await ctx.call('wallet:export', { format: p.flags.has('--bsms') ? 'bsms' : 'descriptors' });
    const out = p.values.get('--out');
    if (out !== undefined) {
      writeFileSync(out, r.text);
      ctx.progress(`wrote ${out}`);
    }
    ctx.print(out !== undefined ? '' : r.text, r);
  },
};

const attach: Command = {
  name: 'wallet attach',
  summary: 'watch a watch-only wallet the node already has',
  help: `usage: spyglass wallet attach <node wallet> [--acknowledge-keys]

Watches a descriptor wallet the node has (loading it when it is only on disk); the active profile
watches it from now on. A wallet holding private keys is refused unless --acknowledge-keys says you
know that anyone with access to the node can spend its coins.`,
  options: { '--acknowledge-keys': { kind: 'flag' } },
  async run(ctx, p) {
    const [name] = positionals(p, ['<node wallet>'], attach.help);
    await ctx.connect(true);
    const r = await ctx.call('wallet:attach', { walletName: name!, ...(p.flags.has('--acknowledge-keys') ? { acknowledgeKeys: true } : {}) });
    ctx.print(() => [`watching "${r.walletName}"${r.loaded ? ' (loaded)' : ''}: ${r.scriptType}${r.keys > 1 ? `, ${r.threshold} of ${r.keys}` : ''}${r.holdsKeys ? ', holds private keys' : ''}`, `  receive: ${r.external}`, ...(r.internal ? [`  change:  ${r.internal}`] : []), ...r.warnings.map((w) => `warning: ${w}`)].join('\n'), r);
  },
};

const rescan: Command = {
  name: 'wallet rescan',
  summary: 'run an interrupted rescan of the watched wallet again',
  help: 'usage: spyglass wallet rescan\n\nWhen a rescan was interrupted (the node stopped), runs it again from its start height; progress on stderr.\nWith none to run, says so (exit 0).',
  options: {},
  async run(ctx, p) {
    positionals(p, [], rescan.help);
    await ctx.connect(true);
    const { status } = await ctx.call('wallet:rescan-status', {});
    if (status === null) {
      ctx.print('no interrupted rescan: nothing to run', { status, rescan: null });
      return;
    }
    ctx.progress(status.message);
    const r = await ctx.call('wallet:rescan', {});
    ctx.print(`rescanned "${r.walletName}" from block ${r.startHeight} to ${r.stopHeight}`, { status, rescan: r });
  },
};

export const WALLET_COMMANDS: readonly Command[] = [importCmd, list, use, exportCmd, attach, rescan];
