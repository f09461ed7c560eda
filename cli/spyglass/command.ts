// What a command module gives the entry (cli/spyglass.ts): its name, help and options, and run().
import { readFileSync } from 'node:fs';
import { formatBtc } from '../../shared/amounts';
import type { OptionSpecs, Parsed } from './args';
import { UsageError } from './args';
import type { Ctx } from './context';

export interface Command {
  /** 'profile add', 'refresh', … */
  name: string;
  summary: string;
  /** The whole `--help` text (usage line first). */
  help: string;
  options: OptionSpecs;
  /** The exit code (0 unless said). */
  run(ctx: Ctx, p: Parsed): Promise<number | void>;
}

/** Options every command takes, for the help texts. */
export const COMMON_HELP = `common options:
  --json            one JSON document on stdout (the app's IPC reply field names); progress goes to stderr
  --data-dir DIR    the data folder (also SPYGLASS_DATA_DIR; default: the desktop app's)
  --quiet           no progress on stderr
  --help            this text
exit codes: 0 done, 1 refused (the reason on stderr, one line), 2 bad usage or bad input`;

/** "1.23456789 BTC" from satoshis as a decimal string. */
export function btc(sats: string | null | undefined): string {
  if (sats === null || sats === undefined) return 'unknown';
  return `${formatBtc(BigInt(sats))} BTC`;
}

/** Columns padded to their widest cell. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Standard input, whole (for --password-stdin and `-` arguments). */
export function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    throw new UsageError(`standard input could not be read: ${(e as Error).message}`);
  }
}

/** A text argument that names a file when one exists there (or `-`: standard input), else the text itself. */
export function textOrFile(arg: string, what: string): { text: string; file: string | null } {
  if (arg === '-') return { text: readStdin(), file: '-' };
  try {
    return { text: readFileSync(arg, 'utf8'), file: arg };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENAMETOOLONG') {
      if (/^[./~]/.test(arg) || /\.(json|txt|bsms|jsonl|csv|psbt)$/i.test(arg)) throw new UsageError(`${what}: no file ${arg}`);
      return { text: arg, file: null };
    }
    throw new UsageError(`${what}: ${arg} could not be read (${code ?? (e as Error).message})`);
  }
}
