// The command line of `npm run -s spyglass`, read strictly: every option a command takes is declared,
// an unknown option or a missing value is bad usage (exit 2) that says so, never ignored.

/** Bad usage or bad input: exit 2, the message on stderr. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Refused (the node is down, a wrong password, a danger warning, no --yes): exit 1, the reason on stderr. */
export class Refused extends Error {
  override name = 'Refused';
}

export interface OptionSpec {
  /** `flag`: present or not; `value`: one value (the last given wins); `list`: each occurrence adds values (comma-separated too). */
  kind: 'flag' | 'value' | 'list';
}

export type OptionSpecs = Record<string, OptionSpec>;

export interface Parsed {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string>;
  lists: Map<string, string[]>;
}

/** Options every command takes (read by spyglass.ts). */
export const GLOBAL_OPTIONS: OptionSpecs = {
  '--data-dir': { kind: 'value' },
  '--json': { kind: 'flag' },
  '--help': { kind: 'flag' },
  '--quiet': { kind: 'flag' },
};

/**
 * Reads `argv` against the command's options and the global ones. `--opt=value` and `--opt value` are
 * both accepted; a `list` option also takes the values that follow it up to the next option
 * (`--to A=1 B=2`); `--` ends the options.
 */
export function parseArgs(argv: readonly string[], specs: OptionSpecs, usage: string): Parsed {
  const all: OptionSpecs = { ...GLOBAL_OPTIONS, ...specs };
  const out: Parsed = { positionals: [], flags: new Set(), values: new Map(), lists: new Map() };
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (onlyPositionals || !a.startsWith('--') || a === '-') {
      out.positionals.push(a);
      continue;
    }
    if (a === '--') {
      onlyPositionals = true;
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq === -1 ? a : a.slice(0, eq);
    const inline = eq === -1 ? undefined : a.slice(eq + 1);
    const spec = all[name];
    if (!spec) throw new UsageError(`unknown option ${name}\n${usage}`);
    if (spec.kind === 'flag') {
      if (inline !== undefined) throw new UsageError(`${name} takes no value\n${usage}`);
      out.flags.add(name);
      continue;
    }
    const take = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[i + 1];
      if (v === undefined || (v.startsWith('--') && v.length > 2)) throw new UsageError(`${name} needs a value\n${usage}`);
      i++;
      return v;
    };
    const v = take();
    if (spec.kind === 'value') {
      out.values.set(name, v);
      continue;
    }
    const list = out.lists.get(name) ?? [];
    list.push(...v.split(',').filter((s) => s !== ''));
    // the values that follow, up to the next option
    if (inline === undefined) {
      while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) list.push(...argv[++i]!.split(',').filter((s) => s !== ''));
    }
    out.lists.set(name, list);
  }
  return out;
}

/** A whole number option within [min, max], or undefined when absent. */
export function intOption(p: Parsed, name: string, min: number, max: number): number | undefined {
  const v = p.values.get(name);
  if (v === undefined) return undefined;
  if (!/^[0-9]+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`${name} needs a whole number from ${min} to ${max}, not "${v}"`);
  return Number(v);
}

/** Exactly `n` positionals (after the subcommand), named in the message when missing or extra. */
export function positionals(p: Parsed, names: readonly string[], usage: string, optional = 0): string[] {
  const need = names.length - optional;
  if (p.positionals.length < need) throw new UsageError(`missing ${names.slice(p.positionals.length, need).join(' ')}\n${usage}`);
  if (p.positionals.length > names.length) throw new UsageError(`unexpected argument "${p.positionals[names.length]}"\n${usage}`);
  return p.positionals;
}
