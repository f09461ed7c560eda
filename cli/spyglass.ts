/**
 * `npm run -s spyglass -- <command> [options]`: Spyglass without a window (#31). Every command runs
 * on the app's own main-process services and data folder (cli/spyglass/context.ts) and calls the
 * same IPC channels the window does, so `--json` prints the IPC replies' field names and what a
 * script does shows in the app.
 *
 * Exit codes: 0 done; 1 refused (the reason on stderr, one line); 2 bad usage or bad input.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GLOBAL_OPTIONS, parseArgs, Refused, UsageError } from './spyglass/args';
import { COMMON_HELP, type Command } from './spyglass/command';
import { cliDataDir, Ctx, oneLine } from './spyglass/context';
import { PROFILE_COMMANDS } from './spyglass/profile';
import { WALLET_COMMANDS } from './spyglass/wallet';
import { WATCH_COMMANDS } from './spyglass/watch';
import { SEND_COMMANDS } from './spyglass/send';
import { DRAFT_COMMANDS } from './spyglass/drafts';
import { REVIEW_COMMANDS } from './spyglass/review';
import { SIGNER_COMMANDS } from './spyglass/signer';

export const COMMANDS: readonly Command[] = [...PROFILE_COMMANDS, ...WALLET_COMMANDS, ...WATCH_COMMANDS, ...SEND_COMMANDS, ...DRAFT_COMMANDS, ...REVIEW_COMMANDS, ...SIGNER_COMMANDS];

export function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `usage: npm run -s spyglass -- <command> [options]
       Spyglass --cli <command> [options]     (the installed app: the same command, no window)

Spyglass without a window: the app's own services and data folder, for scripts and servers.
Hardware wallets: signer list, signer sign (the program HWI, or SPYGLASS_SIGNER).

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

\`<command> --help\` tells more about each.

${COMMON_HELP}`;
}

/** The command `argv` names (one word, or a group and its subcommand), and the rest of argv. */
export function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | null {
  // the first words that are neither options nor the value of --data-dir
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    if (argv[i] === '--data-dir') i++;
    else if (!argv[i]!.startsWith('--')) words.push(argv[i]!);
  }
  const two = COMMANDS.find((c) => words.length === 2 && c.name === `${words[0]} ${words[1]}`);
  const one = two ?? COMMANDS.find((c) => c.name === words[0]);
  if (!one) return null;
  const rest = [...argv];
  for (const w of one.name.split(' ')) rest.splice(rest.indexOf(w), 1);
  return { command: one, rest };
}

export async function main(argv: readonly string[]): Promise<number> {
  let ctx: Ctx | null = null;
  try {
    const found = findCommand(argv);
    if (!found) {
      const global = parseArgs(argv, {}, topHelp());
      if (global.flags.has('--help') || argv.length === 0) {
        process.stdout.write(`${topHelp()}\n`);
        return argv.length === 0 ? 2 : 0;
      }
      const group = COMMANDS.filter((c) => c.name.startsWith(`${global.positionals[0]} `));
      if (group.length > 0) throw new UsageError(`${global.positionals[0]} needs one of: ${group.map((c) => c.name.split(' ')[1]).join(', ')} (try ${global.positionals[0]} <command> --help)`);
      throw new UsageError(`unknown command "${global.positionals[0] ?? ''}" (try --help)`);
    }
    const { command, rest } = found;
    const p = parseArgs(rest, command.options, command.help);
    if (p.flags.has('--help')) {
      process.stdout.write(`${command.help}\n\n${COMMON_HELP}\n`);
      return 0;
    }
    ctx = new Ctx(cliDataDir(argv), p.flags.has('--json'), p.flags.has('--quiet'));
    const code = await command.run(ctx, p);
    return code ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`spyglass: ${e.message}\n`);
      return 2;
    }
    if (e instanceof Refused) {
      process.stderr.write(`spyglass: ${oneLine(e.message)}\n`);
      return 1;
    }
    process.stderr.write(`spyglass: ${oneLine((e as Error)?.message ?? String(e))}\n`);
    return 1;
  } finally {
    await ctx?.close().catch(() => undefined);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // the services may keep sockets (keep-alive agents) open a moment after close
    setTimeout(() => process.exit(code), 50).unref();
  });
}

export { GLOBAL_OPTIONS };
