// Core writes every BTC amount in its replies with exactly 8 decimals (a JSON number token such as
// 0.10000000): what a reply text written by our code must keep.

/** The number tokens of a JSON text that have a fraction but not exactly 8 decimals (strings skipped). */
export function badAmountTokens(text: string): string[] {
  const bad: string[] = [];
  const re = /"(?:[^"\\]|\\.)*"|-?\d+\.\d+(?:[eE][+-]?\d+)?/g;
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (t.startsWith('"')) continue;
    if (!/^-?\d+\.\d{8}$/.test(t)) bad.push(t);
  }
  return bad;
}
