// `spyglass profile add|list|use|test|remove`: the node connections (profiles:* and connection:*
// channels). The RPC password never comes from an argument (it would show in `ps` and the shell's
// history): from standard input (--password-stdin), else SPYGLASS_RPC_PASSWORD; it is kept in the OS
// keychain (--remember keychain, the default) or for this run only (--remember session: later runs
// take it from SPYGLASS_RPC_PASSWORD). A `.cookie` file is read when connecting, as the app does.
import type { ConnectionReport, ConnectionState, ProfileInput, ProfileView } from '../../shared/ipc/contract';
import { positionals, Refused, UsageError, type Parsed } from './args';
import { readStdin, table, type Command } from './command';
import { notConnected, PASSWORD_ENV, type Ctx } from './context';

/** The profile a name or id names (exactly one), or bad input. */
export async function findProfile(ctx: Ctx, ref: string): Promise<ProfileView> {
  const { profiles } = await ctx.call('profiles:list', {});
  const byId = profiles.find((p) => p.id === ref);
  if (byId) return byId;
  const named = profiles.filter((p) => p.name === ref);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) throw new UsageError(`${named.length} profiles are named "${ref}": give its id (spyglass profile list)`);
  throw new UsageError(`no profile "${ref}" (spyglass profile list shows them)`);
}

function inputOf(p: ProfileView): ProfileInput {
  return { name: p.name, nodeUrl: p.nodeUrl, auth: p.auth, rpcUser: p.rpcUser, cookiePath: p.cookiePath, wallet: p.wallet, indexUrl: p.indexUrl };
}

/** The password given for this run: standard input (first line) with --password-stdin, else the environment. */
function givenPassword(ctx: Ctx, p: Parsed): string | undefined {
  if (p.flags.has('--password-stdin')) {
    const line = readStdin().split(/\r?\n/)[0] ?? '';
    if (line === '') throw new UsageError('--password-stdin: standard input holds no password');
    return line;
  }
  const env = ctx.env[PASSWORD_ENV];
  return env === undefined || env === '' ? undefined : env;
}

export function describeState(s: ConnectionState): string {
  if (s.state !== 'connected') return notConnected(s);
  return `connected: ${describeReport(s.report)}`;
}

export function describeReport(r: ConnectionReport): string {
  const lines = [
    `node ${r.node.subversion} on ${r.node.chain}, ${r.node.blocks} blocks${r.node.initialBlockDownload ? ' (syncing)' : ''}`,
    `wallet ${r.node.wallet ?? '(none watched)'}`,
    `index ${r.index.source === 'node' ? "none (the node's wallet answers)" : `at height ${r.index.height}`}`,
    ...r.warnings.map((w) => `warning: ${w.message}`),
  ];
  return lines.join('\n  ');
}

const add: Command = {
  name: 'profile add',
  summary: 'save a node connection (and connect to it)',
  help: `usage: spyglass profile add --name NAME --node-url URL (--user USER | --cookie FILE) [options]

Saves a profile and makes it the active one. The connection is tested first: when it fails (the node
down, a wrong password, another chain), nothing is saved and the reason is printed (exit 1).

  --name NAME         the profile's name
  --node-url URL      the node's RPC URL, e.g. http://127.0.0.1:8332
  --user USER         the RPC user (rpcuser, or the user of an rpcauth line); the password is read from
  --password-stdin    standard input (its first line), or else from ${PASSWORD_ENV}. Never an argument.
  --cookie FILE       the node's .cookie file instead of a user and password
  --wallet NAME       the node wallet to watch (default: the node's only loaded watch-only wallet)
  --index-url URL     the block index (Esplora-style); none: the node's wallet answers alone
  --remember WHERE    keychain (default: the OS keychain) or session (this run only; later runs need
                      ${PASSWORD_ENV})
  --no-test           save even when the connection does not work now (it is made active all the same)`,
  options: {
    '--name': { kind: 'value' },
    '--node-url': { kind: 'value' },
    '--user': { kind: 'value' },
    '--cookie': { kind: 'value' },
    '--wallet': { kind: 'value' },
    '--index-url': { kind: 'value' },
    '--password-stdin': { kind: 'flag' },
    '--remember': { kind: 'value' },
    '--no-test': { kind: 'flag' },
  },
  async run(ctx, p) {
    positionals(p, [], add.help);
    const name = p.values.get('--name');
    const nodeUrl = p.values.get('--node-url');
    if (!name) throw new UsageError(`--name is required\n${add.help}`);
    if (!nodeUrl) throw new UsageError(`--node-url is required\n${add.help}`);
    const cookie = p.values.get('--cookie');
    const user = p.values.get('--user');
    if (cookie !== undefined && user !== undefined) throw new UsageError('give --user or --cookie, not both');
    if (cookie === undefined && user === undefined) throw new UsageError('give --user USER (and the password on standard input) or --cookie FILE');
    const remember = p.values.get('--remember') ?? 'keychain';
    if (remember !== 'keychain' && remember !== 'session') throw new UsageError(`--remember is keychain or session, not "${remember}"`);
    const profile: ProfileInput = {
      name,
      nodeUrl,
      auth: cookie !== undefined ? 'cookie' : 'password',
      rpcUser: user ?? '',
      cookiePath: cookie ?? '',
      wallet: p.values.get('--wallet') ?? '',
      indexUrl: p.values.get('--index-url') ?? '',
    };
    const password = profile.auth === 'password' ? givenPassword(ctx, p) : undefined;
    if (profile.auth === 'password' && password === undefined) throw new UsageError(`the RPC password: give it on standard input with --password-stdin, or in ${PASSWORD_ENV}`);
    const { profiles } = await ctx.call('profiles:list', {});
    if (profiles.some((x) => x.name === name.trim())) throw new UsageError(`a profile named "${name.trim()}" exists already: remove it first, or choose another name`);
    let report: ConnectionReport | null = null;
    if (!p.flags.has('--no-test')) {
      ctx.progress(`testing the connection to ${nodeUrl}`);
      report = await ctx.call('connection:test', { profile, ...(password !== undefined ? { password } : {}) });
    }
    const saved = await ctx.call('profiles:save', { profile, ...(password !== undefined ? { password } : {}), remember });
    const state = await ctx.call('profiles:activate', { id: saved.profile.id });
    ctx.print(
      () => `profile "${saved.profile.name}" saved (${saved.profile.id}), password: ${saved.profile.passwordStorage}\n  ${describeState(state)}`,
      { profile: (await findProfile(ctx, saved.profile.id)), state },
    );
    if (report && state.state !== 'connected') return 1;
  },
};

const list: Command = {
  name: 'profile list',
  summary: 'the saved node connections',
  help: 'usage: spyglass profile list\n\nThe profiles (never a password): name, id, node, wallet, where the password is kept; * marks the active one.',
  options: {},
  async run(ctx, p) {
    positionals(p, [], list.help);
    const r = await ctx.call('profiles:list', {});
    ctx.print(
      () =>
        r.profiles.length === 0
          ? 'no profiles (spyglass profile add)'
          : table([['', 'NAME', 'ID', 'NODE', 'WALLET', 'PASSWORD'], ...r.profiles.map((x) => [x.id === r.activeId ? '*' : '', x.name, x.id, x.nodeUrl, x.wallet || '-', x.auth === 'cookie' ? 'cookie' : x.passwordStorage])]),
      r,
    );
  },
};

const use: Command = {
  name: 'profile use',
  summary: 'make a profile the active one (only if it connects)',
  help: `usage: spyglass profile use <name|id>

Connects to the profile and makes it the active one — only when the connection works; otherwise the
active profile stays as it was and the reason is printed (exit 1). A profile whose password is not in
the keychain takes it from ${PASSWORD_ENV}.`,
  options: {},
  async run(ctx, p) {
    const [ref] = positionals(p, ['<name|id>'], use.help);
    const profile = await findProfile(ctx, ref!);
    const env = ctx.env[PASSWORD_ENV];
    let state: ConnectionState;
    if (profile.auth === 'password' && profile.passwordStorage !== 'keychain' && env) {
      await ctx.call('connection:test', { id: profile.id, profile: inputOf(profile), password: env });
      state = await ctx.call('profiles:unlock', { id: profile.id, password: env, remember: 'session' });
    } else {
      const r = await ctx.call('profiles:connect', { id: profile.id });
      if (!r.connected) throw new Refused(r.error ? `the profile was not made active: ${r.error.message}` : `the profile was not made active: ${notConnected(r.state)}`);
      state = r.state;
    }
    if (state.state !== 'connected') throw new Refused(notConnected(state));
    ctx.print(() => `active profile: "${profile.name}" (${profile.id})\n  ${describeState(state)}`, state);
  },
};

const test: Command = {
  name: 'profile test',
  summary: "test a profile's connection without changing anything",
  help: `usage: spyglass profile test [<name|id>]

Tests the connection of the profile (default: the active one) with its saved password, or the one in
${PASSWORD_ENV}; prints the node, wallet and index found. Exit 1 when it fails, with the reason.`,
  options: {},
  async run(ctx, p) {
    const [ref] = positionals(p, ['<name|id>'], test.help, 1);
    let profile: ProfileView;
    if (ref !== undefined) profile = await findProfile(ctx, ref);
    else {
      const { activeId } = await ctx.call('profiles:list', {});
      if (!activeId) throw new Refused('no active profile: add one with `spyglass profile add`');
      profile = await findProfile(ctx, activeId);
    }
    const env = ctx.env[PASSWORD_ENV];
    const password = profile.auth === 'password' && profile.passwordStorage !== 'keychain' ? env : undefined;
    if (profile.auth === 'password' && profile.passwordStorage !== 'keychain' && !password) throw new Refused(`the RPC password of "${profile.name}" is not in the keychain: give it in ${PASSWORD_ENV}`);
    const report = await ctx.call('connection:test', { id: profile.id, profile: inputOf(profile), ...(password ? { password } : {}) });
    ctx.print(() => `"${profile.name}" works: ${describeReport(report)}`, report);
  },
};

const remove: Command = {
  name: 'profile remove',
  summary: 'delete a profile and its saved password',
  help: 'usage: spyglass profile remove <name|id>\n\nDeletes the profile and its password in the keychain. Its node wallets stay on the node.',
  options: {},
  async run(ctx, p) {
    const [ref] = positionals(p, ['<name|id>'], remove.help);
    const profile = await findProfile(ctx, ref!);
    const r = await ctx.call('profiles:delete', { id: profile.id });
    ctx.print(`profile "${profile.name}" (${profile.id}) removed`, { ...r, id: profile.id });
  },
};

export const PROFILE_COMMANDS: readonly Command[] = [add, list, use, test, remove];
