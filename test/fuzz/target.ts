/**
 * What a fuzz target is (test/fuzz/targets/*.ts each default-export one; test/fuzz/run.ts runs them):
 * its name, its input's size cap, seed inputs, how to mutate one, how to run one, and which
 * errors are the parser's typed answers. Anything else thrown by `run` is an untyped failure.
 */
export interface FuzzTarget {
  name: string;
  /** The input's cap (shared/limits.ts): the harness reports the slowest input at or under it. */
  capBytes: number;
  seeds(): string[];
  mutate(input: string, rng: () => number): string;
  run(input: string): Promise<void> | void;
  /** True for the parser's typed answers to bad input (AppError subclasses, Core's error types). */
  typed(err: unknown): boolean;
}

/** A broken invariant found by a target's `run` (an export that does not read back, a result that does not round-trip): never typed. */
export class InvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvariantError';
  }
}
