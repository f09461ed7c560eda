// How the PSBT review is shown: Core's JSON indented, warning titles and severities, sizes in
// words. Pure helpers of the PSBT review store (stores/psbt.ts, which re-exports them).
import type { PsbtReviewView, PsbtWarningCode, PsbtWarningView, WarningSeverity } from '../../../shared/ipc/contract';

/** "576 bytes", "1.4 kB", "10.2 MB" (decimal units, one decimal). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/**
 * Core's compact JSON indented for reading. Only whitespace is added between tokens: every string
 * and number stays exactly as Core wrote it (0.00100000 is not turned into 0.001).
 */
export function indentJson(text: string, indent = '  '): string {
  const out: string[] = [];
  let depth = 0;
  let i = 0;
  const n = text.length;
  const newline = (): void => {
    out.push('\n', indent.repeat(depth));
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out.push(c, close);
        i += 2;
        continue;
      }
      depth++;
      out.push(c);
      newline();
    } else if (c === '}' || c === ']') {
      depth--;
      newline();
      out.push(c);
    } else if (c === ',') {
      out.push(',');
      newline();
    } else if (c === ':') {
      out.push(': ');
    } else if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') {
      let j = i;
      while (j < n && !'{}[],:" \n\r\t'.includes(text[j]!)) j++;
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    i++;
  }
  return out.join('');
}

/** Short titles of the review's warning codes (shared/bitcoin/psbt-review.ts); the message says the rest. */
export const WARNING_TITLES: Record<PsbtWarningCode, string> = {
  'non-witness-utxo-txid-mismatch': 'UTXO data is for another transaction',
  'segwit-amount-mismatch': 'Input amounts disagree (segwit fee attack)',
  'fee-negative': 'Outputs exceed inputs',
  'fee-unknown': 'Fee unknown',
  'fee-rate-high': 'Fee rate too high',
  'fee-percent-high': 'Fee is a large share of the payment',
  'sighash-nonstandard': 'Sighash other than ALL',
  'input-not-watched': 'Inputs outside your watched set',
  'output-to-used-address': 'Payment to a used address',
  'dust-output': 'Dust output',
  'unknown-fields': 'Unknown fields',
  'proprietary-fields': 'Proprietary fields',
  'locktime-future': 'Locktime in the future',
  rbf: 'Replace-by-fee',
};

export const SEVERITY_LABELS: Record<WarningSeverity, string> = { danger: 'Danger', warning: 'Warning', info: 'Note' };

export const SEVERITY_RANK: Record<WarningSeverity, number> = { danger: 0, warning: 1, info: 2 };

/** Most severe first; the order main gave is kept within a severity. */
export function sortWarnings(ws: readonly PsbtWarningView[]): PsbtWarningView[] {
  return ws
    .map((w, i) => ({ w, i }))
    .sort((a, b) => SEVERITY_RANK[a.w.severity] - SEVERITY_RANK[b.w.severity] || a.i - b.i)
    .map((x) => x.w);
}

/** Distinct destinations of the external outputs (by address, or script for scripts without one). */
export function externalDestinations(r: PsbtReviewView): number {
  return r.summary.externalDestinations;
}
