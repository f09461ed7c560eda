/**
 * The coin selection in words for the Send summary: which search chose the coins, and why it won —
 * Core's waste metric (Σ(fee − long-term fee) + the cost of change, or the excess given to the fee)
 * picks the least among the searches that found a selection; a tie goes to more inputs, then to the
 * search that ran first. Our searches are Core's Branch and Bound, CoinGrinder and Single Random
 * Draw; largest-first stands where Core runs Knapsack (see shared/bitcoin/spend/coins.ts).
 */
import type { CoinSelection, SelectionAlgorithm } from '../bitcoin/spend/coins';

export const SELECTION_NAMES: Record<SelectionAlgorithm, string> = {
  bnb: 'Branch and Bound',
  coingrinder: 'CoinGrinder',
  srd: 'Single Random Draw',
  'largest-first': 'Largest first',
  manual: 'Coin control',
  'send-max': 'Send max',
};

const WHAT: Record<SelectionAlgorithm, string> = {
  bnb: 'an exact match: no change output',
  coingrinder: 'the lightest inputs that leave change',
  srd: 'coins drawn at random until the amount and a change are covered',
  'largest-first': "the largest coins first (in place of Core's Knapsack)",
  manual: 'exactly the coins you chose',
  'send-max': 'every spendable coin, the recipient takes what the fee leaves',
};

export interface SelectionWords {
  algorithm: SelectionAlgorithm;
  /** "Single Random Draw". */
  name: string;
  /** What the search does ("coins drawn at random until …"). */
  what: string;
  /** Why these coins: the waste of each search that ran, the winner's named first. */
  why: string;
  /** Each search that ran: its waste in satoshis (a decimal string), or null when it found nothing. */
  considered: Array<{ algorithm: SelectionAlgorithm; name: string; wasteSats: string | null; inputs: number }>;
}

const sats = (v: bigint): string => `${v.toLocaleString('en-US')} sat`;

export function selectionWords(s: Pick<CoinSelection, 'algorithm' | 'waste' | 'considered'>): SelectionWords {
  const name = SELECTION_NAMES[s.algorithm];
  const considered = (s.considered ?? []).map((c) => ({ algorithm: c.algorithm, name: SELECTION_NAMES[c.algorithm], wasteSats: c.waste === null ? null : c.waste.toString(), inputs: c.inputs }));
  let why: string;
  if (s.algorithm === 'manual') why = 'You chose the coins (coin control): no search ran.';
  else if (s.algorithm === 'send-max') why = 'Send max spends every coin worth more than the fee of spending it: no search ran.';
  else {
    const found = (s.considered ?? []).filter((c) => c.waste !== null);
    const none = (s.considered ?? []).filter((c) => c.waste === null).map((c) => SELECTION_NAMES[c.algorithm]);
    const others = found.filter((c) => c.algorithm !== s.algorithm);
    const tie = others.filter((c) => c.waste === s.waste);
    const parts: string[] = [];
    if (others.length === 0) parts.push(`the only search that found a selection (waste ${sats(s.waste)})`);
    else if (tie.length) parts.push(`waste ${sats(s.waste)}, tied with ${tie.map((c) => SELECTION_NAMES[c.algorithm]).join(' and ')}: the tie goes to more inputs, then to the search run first`);
    else parts.push(`the least waste: ${sats(s.waste)}, against ${others.map((c) => `${SELECTION_NAMES[c.algorithm]} ${sats(c.waste!)}`).join(', ')}`);
    if (none.length) parts.push(`${none.join(' and ')} found none${none.includes('Branch and Bound') ? ' (no exact match without change)' : ''}`);
    why = `${parts.join('; ')}. Waste, as Core counts it: what the inputs cost now above later, plus the cost of change or the excess given to the fee.`;
  }
  return { algorithm: s.algorithm, name, what: WHAT[s.algorithm], why: why.charAt(0).toUpperCase() + why.slice(1), considered };
}
