// Counts in messages for people: "1 block", "3 blocks" (never "1 blocks" or "block(s)").

/** `n` and the noun in the number that goes with it; `many` defaults to `one` + "s". */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
