/**
 * The coin selection searches, after Core's wallet/coinselection.cpp (rules taken, code our own):
 * Branch and Bound (changeless, least waste), CoinGrinder (least weight with change), Single Random
 * Draw (seeded), and a deterministic largest-first accumulation standing in for Core's Knapsack
 * (which is random and O(1000 × n); see coins.ts).
 *
 * Amounts here are satoshis as JavaScript integers, not bigint: the searches visit up to 100,000
 * selections each, and the same Branch and Bound over bigint took 2.7× as long (100,000 tries over
 * 10,000 coins: 2.9 ms against 1.1 ms, measured on this project's machine). Every value is an
 * integer of at most MAX_MONEY (2.1e15) and every sum is of at most all the wallet's coins, which
 * params.ts checks stays within MAX_MONEY; all are exact in a double (integers below 2^53 ≈ 9e15).
 * Amounts enter and leave the spend core as bigint.
 */
import type { Rng } from './rng';

/** One coin as the searches see it. */
export interface Candidate {
  /** Index of the coin in the caller's list. */
  coin: number;
  /** Effective value: the coin's value minus the fee of spending it at the target fee rate. */
  eff: number;
  /** Fee of spending it at the target fee rate. */
  fee: number;
  /** Fee of spending it at the long-term fee rate. */
  ltFee: number;
  /** Input weight (Core's m_weight: its vsize × 4). */
  weight: number;
  /** Rank in the canonical order (by outpoint): the last tie-break, so the coins' order does not matter. */
  ord: number;
}

export type SearchResult = { ok: true; picked: Candidate[]; completed: boolean } | { ok: false; weightExceeded: boolean };

/** Core's TOTAL_TRIES for BnB and CoinGrinder. */
export const TOTAL_TRIES = 100_000;
/** Core's CHANGE_LOWER and CHANGE_UPPER (coinselection.h): the random change target's range. */
export const CHANGE_LOWER = 50_000;
export const CHANGE_UPPER = 1_000_000;

/** BnB order: effective value descending, then lower waste (fee − long-term fee), then outpoint. */
export function byEffThenWaste(a: Candidate, b: Candidate): number {
  return b.eff - a.eff || a.fee - a.ltFee - (b.fee - b.ltFee) || a.ord - b.ord;
}

/** CoinGrinder order: effective value descending, then lower weight, then outpoint. */
export function byEffThenWeight(a: Candidate, b: Candidate): number {
  return b.eff - a.eff || a.weight - b.weight || a.ord - b.ord;
}

/**
 * Branch and Bound (SelectCoinsBnB): depth-first over inclusion/omission of each coin in `pool`
 * (sorted byEffThenWaste, all eff > 0), looking for selections whose effective value lands in
 * [target, target + costOfChange] — no change needed — and keeping the one of least waste
 * (Σ(fee − ltFee) + excess). Ties go to the later one found, as in Core.
 */
export function branchAndBound(pool: readonly Candidate[], target: number, costOfChange: number, maxWeight: number): SearchResult {
  let available = 0;
  for (const c of pool) available += c.eff;
  if (pool.length === 0 || available < target) return { ok: false, weightExceeded: false };
  const sel: number[] = [];
  let value = 0;
  let weight = 0;
  let waste = 0;
  let best: number[] | null = null;
  let bestWaste = Number.MAX_SAFE_INTEGER;
  const feeRateHigh = pool[0]!.fee > pool[0]!.ltFee;
  let weightExceeded = false;
  let tries = 0;
  for (let idx = 0; tries < TOTAL_TRIES; tries++, idx++) {
    let backtrack = false;
    if (value + available < target || value > target + costOfChange || (waste > bestWaste && feeRateHigh)) {
      backtrack = true;
    } else if (weight > maxWeight) {
      weightExceeded = true;
      backtrack = true;
    } else if (value >= target) {
      const w = waste + value - target;
      if (w <= bestWaste) {
        best = sel.slice();
        bestWaste = w;
      }
      backtrack = true;
    }
    if (backtrack) {
      if (sel.length === 0) break;
      const last = sel[sel.length - 1]!;
      for (--idx; idx > last; --idx) available += pool[idx]!.eff;
      const u = pool[idx]!;
      value -= u.eff;
      waste -= u.fee - u.ltFee;
      weight -= u.weight;
      sel.pop();
    } else {
      const u = pool[idx]!;
      available -= u.eff;
      const prev = pool[idx - 1];
      // Skip an inclusion equivalent to one just omitted (same effective value and fee).
      if (sel.length === 0 || idx - 1 === sel[sel.length - 1] || u.eff !== prev!.eff || u.fee !== prev!.fee) {
        sel.push(idx);
        value += u.eff;
        waste += u.fee - u.ltFee;
        weight += u.weight;
      }
    }
  }
  if (!best) return { ok: false, weightExceeded };
  return { ok: true, picked: best.map((i) => pool[i]!), completed: tries < TOTAL_TRIES };
}

/**
 * CoinGrinder: the selection of least weight whose effective value reaches target + changeTarget
 * (a change output is expected), ties broken by the smaller amount. `pool` sorted byEffThenWeight,
 * all eff > 0. Depth-first with Core's cuts (lookahead, minimal tail weight).
 */
export function coinGrinder(pool: readonly Candidate[], target: number, changeTarget: number, maxWeight: number): SearchResult {
  const n = pool.length;
  if (n === 0) return { ok: false, weightExceeded: false };
  const lookahead = new Float64Array(n);
  const minTailWeight = new Float64Array(n);
  let total = 0;
  let minW = Number.MAX_SAFE_INTEGER;
  for (let i = n - 1; i >= 0; i--) {
    lookahead[i] = total;
    minTailWeight[i] = minW;
    total += pool[i]!.eff;
    minW = Math.min(minW, pool[i]!.weight);
  }
  const totalTarget = target + changeTarget;
  if (total < totalTarget) return { ok: false, weightExceeded: false };

  const sel: number[] = [];
  let best: number[] | null = null;
  let amount = 0;
  let bestAmount = Number.MAX_SAFE_INTEGER;
  let weight = 0;
  let bestWeight = maxWeight;
  let weightExceeded = false;
  let next = 0;
  let tries = 0;
  let completed = false;
  const deselectLast = (): void => {
    const u = pool[sel.pop()!]!;
    amount -= u.eff;
    weight -= u.weight;
  };
  for (;;) {
    let shift = false;
    let cut = false;
    const u = pool[next]!;
    amount += u.eff;
    weight += u.weight;
    sel.push(next);
    next++;
    tries++;
    const tail = sel[sel.length - 1]!;
    if (amount + lookahead[tail]! < totalTarget) {
      cut = true; // even with everything after, not enough
    } else if (weight > bestWeight) {
      if (weight > maxWeight) weightExceeded = true;
      if (pool[tail]!.weight <= minTailWeight[tail]!) cut = true;
      else shift = true;
    } else if (amount >= totalTarget) {
      shift = true;
      if (weight < bestWeight || (weight === bestWeight && amount < bestAmount)) {
        best = sel.slice();
        bestWeight = weight;
        bestAmount = amount;
      }
    } else if (best !== null && weight + minTailWeight[tail]! * Math.ceil((totalTarget - amount) / pool[tail]!.eff) > bestWeight) {
      // even the lightest remaining coins cannot reach the target lighter than the best
      if (pool[tail]!.weight <= minTailWeight[tail]!) cut = true;
      else shift = true;
    }
    if (tries >= TOTAL_TRIES) break;
    if (next === n) cut = true;
    if (cut) {
      deselectLast();
      shift = true;
    }
    let done = false;
    while (shift) {
      if (sel.length === 0) {
        done = true;
        completed = true;
        break;
      }
      next = sel[sel.length - 1]! + 1;
      deselectLast();
      shift = false;
      // skip coins equal to the one just omitted: the same subtree was searched with it
      while (pool[next - 1]!.eff === pool[next]!.eff) {
        if (next >= n - 1) {
          shift = true;
          break;
        }
        next++;
      }
    }
    if (done) break;
  }
  if (!best) return { ok: false, weightExceeded };
  return { ok: true, picked: best.map((i) => pool[i]!), completed };
}

/**
 * Single Random Draw (SelectCoinsSRD): coins in random order until the effective value reaches
 * target + CHANGE_LOWER + changeFee; past the weight limit the smallest picked so far are dropped.
 */
export function singleRandomDraw(pool: readonly Candidate[], target: number, changeFee: number, maxWeight: number, rng: Rng): SearchResult {
  const goal = target + CHANGE_LOWER + changeFee;
  const order = rng.shuffle(Array.from(pool.keys()));
  // a min-heap of picked indices by effective value (then canonical order)
  const heap: number[] = [];
  const less = (a: number, b: number): boolean => pool[a]!.eff < pool[b]!.eff || (pool[a]!.eff === pool[b]!.eff && pool[a]!.ord > pool[b]!.ord);
  const push = (i: number): void => {
    heap.push(i);
    for (let k = heap.length - 1; k > 0; ) {
      const p = (k - 1) >> 1;
      if (!less(heap[k]!, heap[p]!)) break;
      [heap[k], heap[p]] = [heap[p]!, heap[k]!];
      k = p;
    }
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      for (let k = 0; ; ) {
        const l = 2 * k + 1;
        const r = l + 1;
        let m = k;
        if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
        if (m === k) break;
        [heap[k], heap[m]] = [heap[m]!, heap[k]!];
        k = m;
      }
    }
    return top;
  };
  let value = 0;
  let weight = 0;
  let weightExceeded = false;
  for (const i of order) {
    const c = pool[i]!;
    push(i);
    value += c.eff;
    weight += c.weight;
    if (weight > maxWeight) {
      weightExceeded = true;
      do {
        const r = pool[pop()]!;
        value -= r.eff;
        weight -= r.weight;
      } while (heap.length && weight > maxWeight);
    }
    if (value >= goal) return { ok: true, picked: heap.map((k) => pool[k]!), completed: true };
  }
  return { ok: false, weightExceeded };
}

/**
 * Largest first: coins by effective value, descending, until the target is reached; a coin that
 * would pass the weight limit is skipped for the next lighter ones. Deterministic; with the weight
 * limit far away it finds a selection whenever the coins' effective value allows one, which Core
 * gets from Knapsack when BnB, CoinGrinder and SRD all fail (e.g. funds only just enough).
 */
export function largestFirst(pool: readonly Candidate[], target: number, maxWeight: number): SearchResult {
  const picked: Candidate[] = [];
  let value = 0;
  let weight = 0;
  let skipped = false;
  for (const c of pool) {
    if (weight + c.weight > maxWeight) {
      skipped = true;
      continue;
    }
    picked.push(c);
    value += c.eff;
    weight += c.weight;
    if (value >= target) return { ok: true, picked, completed: true };
  }
  return { ok: false, weightExceeded: skipped };
}
