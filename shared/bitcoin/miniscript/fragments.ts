/**
 * The fragment tables the text parser (parse.ts), the script decoder (decode.ts) and the script
 * writer (script.ts) share, so that a fragment's name, opcode and sizes are written down once.
 */
import type { Fragment } from './types';

/** The one-argument wrappers, by the step name both parsers use (a: ALT, s: SWAP, c: CHECK, …). */
export const WRAPPER_FRAGMENT = {
  ALT: 'wrap_a',
  SWAP: 'wrap_s',
  CHECK: 'wrap_c',
  DUP_IF: 'wrap_d',
  VERIFY: 'wrap_v',
  NON_ZERO: 'wrap_j',
  ZERO_NOTEQUAL: 'wrap_n',
} as const satisfies Record<string, Fragment>;

/** The two-argument fragments, by the step name both parsers use. */
export const BINARY_FRAGMENT = {
  AND_V: 'and_v',
  AND_B: 'and_b',
  OR_B: 'or_b',
  OR_C: 'or_c',
  OR_D: 'or_d',
  OR_I: 'or_i',
} as const satisfies Record<string, Fragment>;

export type HashFragment = 'sha256' | 'ripemd160' | 'hash256' | 'hash160';

/**
 * The hash fragments: their opcode and digest length. Script: SIZE <32> EQUALVERIFY <op> <digest>
 * EQUAL, len + 6 bytes.
 */
export const HASH_FRAGMENTS: readonly { frag: HashFragment; op: number; len: number }[] = [
  { frag: 'sha256', op: 0xa8, len: 32 },
  { frag: 'ripemd160', op: 0xa6, len: 20 },
  { frag: 'hash256', op: 0xaa, len: 32 },
  { frag: 'hash160', op: 0xa9, len: 20 },
];
