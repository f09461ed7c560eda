/**
 * Differences from real Core that the devnet keeps on purpose, each with its reason; the README's
 * "Deliberate differences from Bitcoin Core" section lists the same. The parity test fails on any
 * other difference, and on an entry here that no longer occurs (then it is fixed: remove it).
 */
import type { CoreVersion } from '../../../devnet/core-version';
import type { Difference } from './compare';

export interface Deliberate {
  id: string;
  reason: string;
  /** The generations where it occurs. */
  generations: CoreVersion[];
  matches(d: Difference): boolean;
}

/** The method name a help text starts with (its usage line's first word). */
const helpOf = (message: string): string | null => /^([a-z]+)(?: |\n)/.exec(message)?.[1] ?? null;

export const DELIBERATE: Deliberate[] = [
  {
    id: 'help-text',
    reason:
      'A wrong argument count is answered -1 with the method’s help text. Core generates that text from each ' +
      'method’s documentation (RPCHelpMan), and it changes with every release; no client reads it. The devnet ' +
      'carries Core’s text for the methods of the first contract (createrawtransaction, decodepsbt, getaddressinfo) ' +
      'and a usage line naming the arguments for the others. The code (-1) is compared as usual.',
    generations: ['30', '31.99'],
    matches: (d) =>
      d.path === 'body.error.message' && /\n(Arguments|Result):\n/.test(d.core) && helpOf(d.core) !== null && helpOf(d.core) === helpOf(d.devnet),
  },
  {
    id: 'combo-descriptor',
    reason:
      'combo(KEY) stands for up to four scripts at once (P2PK, P2PKH, and for a compressed key P2WPKH and ' +
      'P2SH-P2WPKH). The descriptor code in shared/ expands a descriptor to one script per index; Spyglass ' +
      'neither creates nor imports combo(), so the devnet (getdescriptorinfo, deriveaddresses, importdescriptors) ' +
      'refuses it with -5 where Core answers.',
    generations: ['30', '31.99'],
    matches: (d) => /^(getdescriptorinfo|deriveaddresses) combo\(/.test(d.step) && ['status', 'body.result', 'body.error'].includes(d.path),
  },
];

export function deliberateOf(d: Difference): Deliberate | undefined {
  return DELIBERATE.find((x) => x.matches(d));
}

