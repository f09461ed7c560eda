/**
 * Coin selection for a spend, deterministic (equal requests give equal results; the random parts
 * draw from a seedable RNG), after Core's wallet (wallet/spend.cpp, coinselection.cpp):
 *
 * - a changeless solution first: Branch and Bound over effective values (value − the fee of
 *   spending the coin), within the cost of change, least waste;
 * - else the least waste among CoinGrinder (at fee rates above 3 × the long-term rate, as Core;
 *   also whenever nothing else is found), Single Random Draw (seeded) and largest-first;
 * - waste = Σ(fee − long-term fee) + (cost of change, or the excess given to the fee); ties go to
 *   more inputs (Core's SelectionResult::operator<), then to the algorithm order above;
 * - "avoid mixing output types": each type (legacy, p2sh-segwit, bech32, bech32m) alone first, the
 *   least waste of those that can pay; all types together only when none can alone;
 * - confirmed coins first, then with unconfirmed ones (if allowed); never frozen coins, never a
 *   coinbase output under 101 confirmations;
 * - coin control (`manual`): exactly the coins given; send max: one recipient takes what is left.
 *
 * Differences from Core, on purpose: no Knapsack (random, O(1000 × n)); largest-first takes its
 * place as the always-available fallback. Coins are not grouped by address (avoid_partial_spends).
 * Core's "6 confirmations for coins from others" filter needs to know who sent a coin; we only
 * prefer confirmed over unconfirmed.
 */
import { btc, COINBASE_SPENDABLE_CONFIRMATIONS, coinStatus, describeExcluded, outpointOf, summarizeExcluded, type CoinStatus, type SpendableCoin } from './eligibility';
import { branchAndBound, byEffThenWaste, byEffThenWeight, coinGrinder, largestFirst, singleRandomDraw, type Candidate, type SearchResult } from './algorithms';
import { buildParams, minChangeTarget, noInputsVsize, outpointRanks, type Params, type SelectRequest } from './params';
import { finalize, sendMax, type CoinSelection } from './finalize';
import { SpendError } from './errors';
import { feeFor, formatSatPerVb } from './feerate';
import { estimateTx, inputVsize, outputClassOf, type OutputClass } from './size';

export type { SelectRequest, Recipient } from './params';
export type { CoinSelection, SelectionAlgorithm } from './finalize';
export type { SpendableCoin } from './eligibility';

const CLASS_ORDER: OutputClass[] = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'];
const ALGO_ORDER = ['bnb', 'coingrinder', 'srd', 'largest-first'] as const;
type Algo = (typeof ALGO_ORDER)[number];

interface Found {
  algo: Algo;
  picked: Candidate[];
  waste: number;
}

/** Candidates for every coin (all of them; callers filter), in BnB order. */
function candidates(coins: readonly SpendableCoin[], p: Params): Candidate[] {
  // the price of an input depends on its kind only: computed once per kind
  const byKind = new Map<string, { fee: number; ltFee: number; weight: number }>();
  const ord = outpointRanks(coins);
  const out = coins.map((c, i) => {
    const k = c.kind;
    const key =
      k.type === 'path'
        ? `path:${k.witness}:${k.scriptSig}`
        : 'm' in k
          ? `${k.type}:${k.m}:${k.n}:${'uncompressed' in k ? k.uncompressed : ''}`
          : `${k.type}:${'uncompressed' in k ? k.uncompressed : ''}`;
    let price = byKind.get(key);
    if (price === undefined) {
      const vsize = inputVsize(k, { ecdsa: p.ecdsa });
      price = { fee: Number(feeFor(p.rate, vsize)), ltFee: Number(feeFor(p.longTerm, vsize)), weight: vsize * 4 };
      byKind.set(key, price);
    }
    return { coin: i, eff: Number(c.value) - price.fee, fee: price.fee, ltFee: price.ltFee, weight: price.weight, ord: ord[i]! };
  });
  return out.sort(byEffThenWaste);
}

/** Core's RecalculateWaste for a selection, given whether it makes change. */
function waste(picked: readonly Candidate[], target: number, p: Params): number {
  let w = 0;
  let eff = 0;
  for (const c of picked) {
    w += c.fee - c.ltFee;
    eff += c.eff;
  }
  const change = eff - target - Number(p.changeFee);
  return w + (change >= Number(p.minViableChange) ? Number(p.costOfChange) : eff - target);
}

function better(a: Found, b: Found): boolean {
  if (a.waste !== b.waste) return a.waste < b.waste;
  if (a.picked.length !== b.picked.length) return a.picked.length > b.picked.length;
  return ALGO_ORDER.indexOf(a.algo) < ALGO_ORDER.indexOf(b.algo);
}

interface Outcome {
  found: Found | null;
  weightExceeded: boolean;
  /** Every search run over the pool the winner came from: what it found, or null. */
  tried?: Array<{ algo: Algo; found: Found | null }>;
}

/** ChooseSelectionResult over one pool (sorted byEffThenWaste, eff > 0). */
function choose(pool: Candidate[], target: number, changeTarget: number, p: Params, maxSelWeight: number): Outcome {
  const results: Found[] = [];
  const tried: Array<{ algo: Algo; found: Found | null }> = [];
  let weightExceeded = false;
  const add = (algo: Algo, r: SearchResult): void => {
    if (r.ok) {
      const f = { algo, picked: r.picked, waste: waste(r.picked, target, p) };
      results.push(f);
      tried.push({ algo, found: f });
    } else {
      weightExceeded ||= r.weightExceeded;
      tried.push({ algo, found: null });
    }
  };
  add('bnb', branchAndBound(pool, target, Number(p.costOfChange), maxSelWeight));
  const withChangeWeight = maxSelWeight - p.changeOutputSize * 4;
  const grind = (): void => add('coingrinder', coinGrinder([...pool].sort(byEffThenWeight), target, changeTarget, withChangeWeight));
  if (p.rate > 3n * p.longTerm) grind();
  add('srd', singleRandomDraw(pool, target, Number(p.changeFee), withChangeWeight, p.rng));
  add('largest-first', largestFirst(pool, target, withChangeWeight));
  if (results.length === 0 && !(p.rate > 3n * p.longTerm)) grind();
  let best: Found | null = null;
  for (const r of results) if (!best || better(r, best)) best = r;
  return { found: best, weightExceeded, tried };
}

/** AttemptSelection: each output class alone, the least waste; all classes together only if none alone can pay. */
function attempt(pool: Candidate[], coins: readonly SpendableCoin[], target: number, changeTarget: number, p: Params, maxSelWeight: number): Outcome {
  const byClass = new Map<OutputClass, Candidate[]>();
  for (const c of pool) {
    const cls = outputClassOf(coins[c.coin]!.kind);
    let list = byClass.get(cls);
    if (!list) byClass.set(cls, (list = []));
    list.push(c);
  }
  let best: Outcome | null = null;
  let weightExceeded = false;
  for (const cls of CLASS_ORDER) {
    const sub = byClass.get(cls);
    if (!sub) continue;
    const o = choose(sub, target, changeTarget, p, maxSelWeight);
    weightExceeded ||= o.weightExceeded;
    if (o.found && (!best?.found || better(o.found, best.found))) best = o;
  }
  if (best || byClass.size <= 1) return { found: best?.found ?? null, weightExceeded, ...(best?.tried ? { tried: best.tried } : {}) };
  const o = choose(pool, target, changeTarget, p, maxSelWeight);
  return { found: o.found, weightExceeded: weightExceeded || o.weightExceeded, ...(o.tried ? { tried: o.tried } : {}) };
}

function insufficient(coins: readonly SpendableCoin[], usable: readonly number[], statuses: readonly CoinStatus[], p: Params, what: string, uneconomic: readonly number[] = []): SpendError {
  const kinds = usable.map((i) => coins[i]!.kind);
  const available = usable.reduce((a, i) => a + coins[i]!.value, 0n);
  const size = estimateTx(kinds, p.scripts, { ecdsa: p.ecdsa });
  const fee = feeFor(p.rate, size.vsize);
  const needed = p.recipientsSum + fee;
  const missing = needed - available;
  let excluded = describeExcluded(summarizeExcluded(coins, statuses));
  if (uneconomic.length) {
    const v = uneconomic.reduce((a, i) => a + coins[i]!.value, 0n);
    excluded += `${excluded ? '; ' : ''}${uneconomic.length === 1 ? '1 coin' : `${uneconomic.length} coins`} worth less than the fee of spending them at this rate (${btc(v)})`;
  }
  return new SpendError(
    'spend.insufficient_funds',
    `Insufficient funds: sending ${btc(p.recipientsSum)} with a fee of ${btc(fee)} (${formatSatPerVb(p.rate)} × ${size.vsize} vB, spending ${what}) needs ${btc(needed)}, and ${what} hold ${btc(available)}: ${btc(missing)} missing.${excluded ? ` Not counted: ${excluded}.` : ''}`,
    { missing: missing.toString(), needed: needed.toString(), available: available.toString(), fee: fee.toString() },
  );
}

function noSpendable(coins: readonly SpendableCoin[], statuses: readonly CoinStatus[]): SpendError {
  if (coins.length === 0) return new SpendError('spend.no_spendable_coins', 'No coins to spend: the wallet has no unspent outputs', { coins: 0 });
  const ex = summarizeExcluded(coins, statuses);
  return new SpendError('spend.no_spendable_coins', `No spendable coins: ${describeExcluded(ex)}`, {
    coins: coins.length,
    frozen: ex.frozen.count,
    immature: ex.immature.count,
    unconfirmedExcluded: ex.unconfirmed.count,
  });
}

/** The coins named by coin control, checked (each in the wallet, not frozen, mature, named once). */
function manualCoins(coins: readonly SpendableCoin[], manual: readonly { txid: string; vout: number }[]): number[] {
  const index = new Map<string, number>();
  coins.forEach((c, i) => index.set(outpointOf(c), i));
  const seen = new Set<string>();
  return manual.map((m) => {
    const op = outpointOf(m);
    const i = index.get(op);
    if (i === undefined) throw new SpendError('spend.coin_not_found', `Coin control: ${op} is not among the wallet's unspent coins (spent already, or another wallet's)`, { coin: op });
    if (seen.has(op)) throw new SpendError('spend.coin_duplicate', `Coin control: ${op} is selected twice`, { coin: op });
    seen.add(op);
    const c = coins[i]!;
    if (c.frozen) throw new SpendError('spend.coin_frozen', `Coin control: ${op} is frozen; unfreeze it to spend it`, { coin: op });
    if (coinStatus(c, true) === 'immature') {
      const wait = COINBASE_SPENDABLE_CONFIRMATIONS - c.confirmations;
      throw new SpendError('spend.coin_immature', `Coin control: ${op} is a coinbase output with ${c.confirmations} confirmations; it can be spent at ${COINBASE_SPENDABLE_CONFIRMATIONS} (in ${wait === 1 ? '1 block' : `${wait} blocks`})`, { coin: op });
    }
    return i;
  });
}

/**
 * Chooses the coins for a spend and settles change and fee. Throws SpendError (see errors.ts) with
 * the reason in words and the numbers in `detail`.
 */
export function selectCoins(req: SelectRequest): CoinSelection {
  const p = buildParams(req);
  const coins = req.coins;
  const includeUnconfirmed = req.includeUnconfirmed ?? true;
  const statuses = coins.map((c) => coinStatus(c, includeUnconfirmed));
  const all = candidates(coins, p);

  if (req.manual) {
    if (req.manual.length === 0) throw new SpendError('spend.no_spendable_coins', 'Coin control: no coins are selected', { coins: 0 });
    const chosen = new Set(manualCoins(coins, req.manual));
    const picked = all.filter((c) => chosen.has(c.coin));
    if (p.sendMax >= 0) return sendMax(coins, picked, [], p, 'manual');
    const target = Number(p.recipientsSum + feeFor(p.rate, noInputsVsize(p, picked.length)));
    const eff = picked.reduce((a, c) => a + c.eff, 0);
    if (eff < target) {
      const r = finalize(coins, picked, target, p, 'manual', null);
      if (r) return r; // the exact size covers what the per-part rounding did not
      throw insufficient(coins, [...chosen], [], p, 'the selected coins');
    }
    return finalize(coins, picked, target, p, 'manual', waste(picked, target, p))!;
  }

  const usable = all.filter((c) => statuses[c.coin] === 'spendable');
  if (usable.length === 0) throw noSpendable(coins, statuses);
  const positive = usable.filter((c) => c.eff > 0);

  if (p.sendMax >= 0) {
    const leftBehind = usable.filter((c) => c.eff <= 0);
    if (positive.length === 0) throw insufficient(coins, [], statuses, p, 'the spendable coins', leftBehind.map((c) => c.coin));
    return sendMax(coins, positive, leftBehind, p, 'send-max');
  }

  const changeTarget = Number(minChangeTarget(p));
  const available = positive.reduce((a, c) => a + c.eff, 0);
  const run = (inputs: number): { outcome: Outcome; target: number } => {
    const noInputs = noInputsVsize(p, inputs);
    const target = Number(p.recipientsSum + feeFor(p.rate, noInputs));
    const maxSelWeight = p.maxWeight - noInputs * 4;
    if (available < target || maxSelWeight <= 0) return { outcome: { found: null, weightExceeded: maxSelWeight <= 0 }, target };
    // Core's eligibility filters in order: confirmed coins (each type alone, then mixed), then with
    // the unconfirmed ones too. (Core's first filter, confirmed and not mixed, is the first half of
    // its second here: we cannot tell coins from others, which it wants at 6 confirmations.)
    const confirmed = positive.filter((c) => coins[c.coin]!.confirmations > 0);
    const stages = confirmed.length < positive.length ? [confirmed, positive] : [confirmed];
    let weightExceeded = false;
    for (const pool of stages) {
      if (pool.length === 0) continue;
      const o = attempt(pool, coins, target, changeTarget, p, maxSelWeight);
      weightExceeded ||= o.weightExceeded;
      if (o.found) return { outcome: o, target };
    }
    return { outcome: { found: null, weightExceeded }, target };
  };
  let { outcome, target } = run(1);
  // From 253 inputs the input count takes 3 bytes: select again with that in the target.
  if (outcome.found && outcome.found.picked.length >= 253) ({ outcome, target } = run(outcome.found.picked.length));
  if (!outcome.found) {
    const tooLarge = new SpendError(
      'spend.too_large',
      `The inputs needed exceed the maximum transaction weight (${p.maxWeight.toLocaleString('en-US')} WU). Send a smaller amount, or consolidate your coins first (spend many small ones to yourself)`,
      { maxWeight: p.maxWeight },
    );
    if (outcome.weightExceeded) throw tooLarge;
    // The per-part rounding of effective values can be a few satoshis above the exact size: every
    // coin, without change, may still pay.
    const weight = positive.reduce((a, c) => a + c.weight, 0);
    if (positive.length && weight > p.maxWeight) throw tooLarge;
    const everything = finalize(coins, positive, target, p, 'largest-first', null);
    if (everything) return everything;
    throw insufficient(
      coins,
      positive.map((c) => c.coin),
      statuses,
      p,
      'the spendable coins',
      usable.filter((c) => c.eff <= 0).map((c) => c.coin),
    );
  }
  const f = outcome.found;
  const result = finalize(coins, f.picked, target, p, f.algo, f.waste);
  if (!result) throw new Error(`internal: a ${f.algo} selection does not cover its own fee`);
  if (outcome.tried) result.considered = outcome.tried.map((t) => ({ algorithm: t.algo, waste: t.found ? BigInt(t.found.waste) : null, inputs: t.found?.picked.length ?? 0 }));
  return result;
}
