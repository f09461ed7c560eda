/**
 * The cluster mempool's order (Bitcoin Core from 30.99 on, txgraph / cluster_linearize): the
 * mempool splits into clusters (transactions linked by spending each other), each cluster is
 * linearized and cut into chunks — repeatedly the highest-feerate set that includes its in-cluster
 * ancestors, ties going to the smaller set (Core merges a later chunk only when its feerate is
 * strictly higher: equal feerates stay separate chunks) — and blocks take chunks
 * by feerate, highest first. `getrawmempool` lists the mempool in that order, and every entry shows
 * its chunk's fee and weight. Feerates are fee per weight unit, compared exactly.
 */

export interface PoolTx {
  txid: string;
  fee: bigint;
  weight: number;
  /** Txids of the mempool transactions it spends. */
  parents: readonly string[];
  /** Arrival order (ties between equal feerates go to the earlier). */
  seq: number;
}

export interface Chunk {
  fee: bigint;
  weight: number;
  txids: string[];
}

export interface Linearization {
  /** Mining order. */
  order: string[];
  chunkOf: Map<string, Chunk>;
}

/** a's feerate vs b's: > 0 when a is higher. */
const cmpRate = (a: { fee: bigint; weight: number }, b: { fee: bigint; weight: number }): number => {
  const d = a.fee * BigInt(b.weight) - b.fee * BigInt(a.weight);
  return d > 0n ? 1 : d < 0n ? -1 : 0;
};

/** Exhaustive search up to this many transactions left in a cluster; ancestor sets beyond. */
const EXHAUSTIVE = 14;

/**
 * How chunks of equal feerate are ordered across clusters: by arrival (v30's cluster mempool), or —
 * 31.99 — by the weight of the equal-feerate chunks up to and including this one in its cluster,
 * then by the chunk's highest txid in internal byte order (its fallback order).
 */
export type ChunkTieBreak = 'arrival' | 'txid';

/** A display-hex txid in internal byte order, for comparisons. */
const internal = (txid: string): string => (txid.match(/../g) ?? []).reverse().join('');

export function linearize(txs: readonly PoolTx[], tieBreak: ChunkTieBreak = 'arrival'): Linearization {
  const byId = new Map(txs.map((t) => [t.txid, t]));
  // Clusters: connected components of the spend graph.
  const root = new Map<string, string>(txs.map((t) => [t.txid, t.txid]));
  const find = (x: string): string => {
    let r = x;
    while (root.get(r) !== r) r = root.get(r)!;
    root.set(x, r);
    return r;
  };
  for (const t of txs) for (const p of t.parents) if (byId.has(p)) root.set(find(t.txid), find(p));
  const clusters = new Map<string, PoolTx[]>();
  for (const t of txs) {
    const r = find(t.txid);
    const list = clusters.get(r);
    if (list) list.push(t);
    else clusters.set(r, [t]);
  }

  // Each cluster's chunks in its linearization order (feerates never increase along it).
  type Ranked = Chunk & { seq: number; prefix: number; maxTxid: string };
  const perCluster: Ranked[][] = [];
  for (const members of clusters.values()) {
    const left = new Set(members.map((t) => t.txid));
    const list: Ranked[] = [];
    while (left.size > 0) {
      const best = bestClosedSet([...left].map((id) => byId.get(id)!), left);
      for (const id of best) left.delete(id);
      const ordered = topological(best.map((id) => byId.get(id)!));
      const chunk = { fee: ordered.reduce((s, t) => s + t.fee, 0n), weight: ordered.reduce((s, t) => s + t.weight, 0) };
      const before = list[list.length - 1];
      list.push({
        ...chunk,
        txids: ordered.map((t) => t.txid),
        seq: Math.min(...ordered.map((t) => t.seq)),
        prefix: chunk.weight + (before && cmpRate(before, chunk) === 0 ? before.prefix : 0),
        maxTxid: ordered.map((t) => internal(t.txid)).sort().pop()!,
      });
    }
    perCluster.push(list);
  }
  // Blocks take the best next chunk of any cluster: highest feerate, then the tie-break.
  const tie = (a: Ranked, b: Ranked): number =>
    tieBreak === 'arrival' ? a.seq - b.seq : a.prefix - b.prefix || (a.maxTxid < b.maxTxid ? -1 : 1);
  const chunks: Ranked[] = [];
  const heads = perCluster.map(() => 0);
  for (;;) {
    let pick = -1;
    perCluster.forEach((list, i) => {
      const c = list[heads[i]!];
      if (!c) return;
      if (pick < 0) pick = i;
      else {
        const b = perCluster[pick]![heads[pick]!]!;
        const r = cmpRate(c, b);
        if (r > 0 || (r === 0 && tie(c, b) < 0)) pick = i;
      }
    });
    if (pick < 0) break;
    chunks.push(perCluster[pick]![heads[pick]!++]!);
  }
  const chunkOf = new Map<string, Chunk>();
  const order: string[] = [];
  for (const c of chunks) {
    const chunk = { fee: c.fee, weight: c.weight, txids: c.txids };
    for (const id of c.txids) {
      chunkOf.set(id, chunk);
      order.push(id);
    }
  }
  return { order, chunkOf };
}

/** The highest-feerate subset of `txs` closed under their parents in `left` (smallest on ties). */
function bestClosedSet(txs: PoolTx[], left: Set<string>): string[] {
  const inLeft = (t: PoolTx): string[] => t.parents.filter((p) => left.has(p));
  if (txs.length <= EXHAUSTIVE) {
    const index = new Map(txs.map((t, i) => [t.txid, i]));
    const parentMask = txs.map((t) => inLeft(t).reduce((m, p) => m | (1 << index.get(p)!), 0));
    let best = { mask: 0, fee: 0n, weight: 0 };
    for (let mask = 1; mask < 1 << txs.length; mask++) {
      let closed = true;
      let fee = 0n;
      let weight = 0;
      for (let i = 0; i < txs.length && closed; i++) {
        if (!(mask & (1 << i))) continue;
        if ((parentMask[i]! & mask) !== parentMask[i]) closed = false;
        fee += txs[i]!.fee;
        weight += txs[i]!.weight;
      }
      if (!closed) continue;
      const c = best.mask === 0 ? 1 : cmpRate({ fee, weight }, best);
      if (c > 0 || (c === 0 && weight < best.weight)) best = { mask, fee, weight };
    }
    return txs.filter((_, i) => best.mask & (1 << i)).map((t) => t.txid);
  }
  // Large clusters: the best ancestor set.
  const byId = new Map(txs.map((t) => [t.txid, t]));
  const ancestors = (t: PoolTx): Set<string> => {
    const seen = new Set<string>([t.txid]);
    const stack = [t];
    while (stack.length) {
      for (const p of inLeft(stack.pop()!)) {
        if (!seen.has(p)) {
          seen.add(p);
          stack.push(byId.get(p)!);
        }
      }
    }
    return seen;
  };
  let best: { set: Set<string>; fee: bigint; weight: number } | null = null;
  for (const t of txs) {
    const set = ancestors(t);
    let fee = 0n;
    let weight = 0;
    for (const id of set) {
      fee += byId.get(id)!.fee;
      weight += byId.get(id)!.weight;
    }
    const c = best === null ? 1 : cmpRate({ fee, weight }, best);
    if (c > 0 || (c === 0 && best !== null && weight < best.weight)) best = { set, fee, weight };
  }
  return [...best!.set];
}

/** Parents first; among the ready ones, the earliest arrival. */
function topological(txs: PoolTx[]): PoolTx[] {
  const ids = new Set(txs.map((t) => t.txid));
  const done = new Set<string>();
  const out: PoolTx[] = [];
  const pending = [...txs].sort((a, b) => a.seq - b.seq);
  while (out.length < txs.length) {
    const next = pending.find((t) => !done.has(t.txid) && t.parents.every((p) => !ids.has(p) || done.has(p)))!;
    done.add(next.txid);
    out.push(next);
  }
  return out;
}
