/**
 * Text mutations for the fuzz targets: character edits, token insertions from a dictionary,
 * chunk duplication and deletion, line edits, splices with other seeds, case changes, odd
 * characters, and a run repeated many times (large inputs, still under a target's cap).
 * Everything is drawn from the `rng` the harness gives (a pure function of seed, target and case).
 */
export type Rng = () => number;

export function int(rng: Rng, max: number): number {
  return max <= 1 ? 0 : Math.floor(rng() * max);
}

export function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[int(rng, xs.length)]!;
}

const ODD = ['\u0000', '\uFEFF', '\u00e9', '\u200b', '\ud83d\ude00', '\ud800', '\r', '\r\n', '\t', ' ', '\\', '"', "'", '%', '%zz', '%00', '\u2028'];
const DIGITS = ['0', '1', '-1', '4294967295', '4294967296', '2147483648', '9007199254740993', '1e308', '0x10', '00', '21000000', '2100000000000001'];

export interface TextMutateOptions {
  /** Tokens of the format (function names, keys, separators…), inserted or substituted. */
  dictionary: readonly string[];
  /** Other inputs to splice with. */
  seeds: readonly string[];
  /** The target's cap: a repetition stays at or under it. */
  capBytes: number;
}

function at(rng: Rng, s: string): number {
  return int(rng, s.length + 1);
}

/** One text edit. */
export function mutateTextOnce(s: string, rng: Rng, o: TextMutateOptions): string {
  const p = at(rng, s);
  switch (int(rng, 16)) {
    case 0: // replace a character with a printable one
      return s.slice(0, p) + String.fromCharCode(32 + int(rng, 95)) + s.slice(p + 1);
    case 1: // delete a few characters
      return s.slice(0, p) + s.slice(p + 1 + int(rng, 8));
    case 2: // insert a token
    case 3:
      return s.slice(0, p) + pick(rng, o.dictionary) + s.slice(p);
    case 4: { // replace a token where it occurs
      const from = pick(rng, o.dictionary);
      const i = s.indexOf(from);
      return i < 0 ? s.slice(0, p) + from + s.slice(p) : s.slice(0, i) + pick(rng, o.dictionary) + s.slice(i + from.length);
    }
    case 5: // an odd character
      return s.slice(0, p) + pick(rng, ODD) + s.slice(p);
    case 6: // a number where a number is
      return s.replace(/[0-9]+/g, (m) => (rng() < 0.3 ? pick(rng, DIGITS) : m));
    case 7: // truncate
      return s.slice(0, p);
    case 8: { // duplicate a chunk
      const q = at(rng, s);
      const [a, b] = p < q ? [p, q] : [q, p];
      return s.slice(0, b) + s.slice(a, b) + s.slice(b);
    }
    case 9: { // delete a chunk
      const q = at(rng, s);
      const [a, b] = p < q ? [p, q] : [q, p];
      return s.slice(0, a) + s.slice(b);
    }
    case 10: { // lines: drop, duplicate or swap one
      const lines = s.split('\n');
      const i = int(rng, lines.length);
      const j = int(rng, lines.length);
      const k = int(rng, 3);
      if (k === 0) lines.splice(i, 1);
      else if (k === 1) lines.splice(i, 0, lines[j]!);
      else [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      return lines.join('\n');
    }
    case 11: { // splice with another seed
      const other = pick(rng, o.seeds);
      return s.slice(0, p) + other.slice(at(rng, other));
    }
    case 12: // case change of a stretch
      return s.slice(0, p) + (rng() < 0.5 ? s.slice(p, p + 40).toUpperCase() : s.slice(p, p + 40).toLowerCase()) + s.slice(p + 40);
    case 13: // a comment line
      return s.slice(0, p) + pick(rng, ['\n#', '# ', '\n# note\n', '#']) + s.slice(p);
    case 14: { // a run repeated: large input (up to the cap)
      const len = 1 + int(rng, 64);
      const run = s.slice(p, p + len) || pick(rng, o.dictionary);
      const room = Math.max(0, o.capBytes - s.length);
      // Mostly a few repeats; one in twenty a large input (up to the cap) — the slow path of a parser.
      const want = rng() < 0.05 ? pick(rng, [1000, 10_000, 100_000, 1_000_000]) : pick(rng, [2, 3, 10, 100]);
      const times = Math.min(want, Math.floor(room / Math.max(1, run.length)));
      return s.slice(0, p) + run.repeat(times) + s.slice(p);
    }
    default: // whitespace
      return s.slice(0, p) + pick(rng, [' ', '\n', '\t', '\r\n', '  ', '\n\n']) + s.slice(p);
  }
}

/** 1 edit half of the time, then geometrically more (at most 8). */
export function mutateText(s: string, rng: Rng, o: TextMutateOptions): string {
  let out = s;
  let n = 1;
  while (n < 8 && rng() < 0.5) n++;
  for (let i = 0; i < n; i++) out = mutateTextOnce(out, rng, o);
  return out;
}
