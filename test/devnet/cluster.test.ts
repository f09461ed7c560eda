/**
 * The cluster mempool's order (devnet/chain/cluster.ts), without a node: chunks are the
 * highest-feerate ancestor-closed sets, the smaller one on equal feerate (a chain of equal feerates
 * stays a chunk per transaction, as real Core chunks it); blocks take chunks by feerate.
 * (bitcoind-parity compares the same against real Core.)
 */
import { describe, expect, it } from 'vitest';
import { linearize, type PoolTx } from '../../devnet/chain/cluster';

const tx = (txid: string, fee: number, weight: number, parents: string[] = [], seq = 0): PoolTx => ({ txid, fee: BigInt(fee), weight, parents, seq });

describe('cluster linearization', () => {
  it('a child paying for its parent forms one chunk, mined before a lone transaction of lower feerate', () => {
    const l = linearize([tx('p', 100, 400, [], 1), tx('c', 10_000, 400, ['p'], 2), tx('x', 2_000, 400, [], 3)]);
    expect(l.order).toEqual(['p', 'c', 'x']);
    expect(l.chunkOf.get('p')).toEqual({ fee: 10_100n, weight: 800, txids: ['p', 'c'] });
    expect(l.chunkOf.get('x')).toEqual({ fee: 2_000n, weight: 400, txids: ['x'] });
  });

  it('a parent that pays more than its child is a chunk of its own', () => {
    const l = linearize([tx('p', 5_000, 400, [], 1), tx('c', 100, 400, ['p'], 2)]);
    expect(l.order).toEqual(['p', 'c']);
    expect(l.chunkOf.get('c')!.txids).toEqual(['c']);
  });

  it('higher feerate first across clusters; arrival order breaks ties; equal feerates in a cluster stay separate chunks', () => {
    const l = linearize([tx('a', 1_000, 400, [], 2), tx('b', 1_000, 400, [], 1), tx('c', 4_000, 400, [], 3), tx('d', 1_000, 400, ['a'], 4)]);
    expect(l.order).toEqual(['c', 'b', 'a', 'd']);
    expect(l.chunkOf.get('a')).toEqual({ fee: 1_000n, weight: 400, txids: ['a'] });
    expect(l.chunkOf.get('d')).toEqual({ fee: 1_000n, weight: 400, txids: ['d'] });
  });

  it('the best of several children is taken with the parent first; the others follow by feerate', () => {
    const l = linearize([tx('p', 0, 400, [], 1), tx('c1', 1_000, 400, ['p'], 2), tx('c2', 9_000, 400, ['p'], 3)]);
    expect(l.order).toEqual(['p', 'c2', 'c1']);
    expect(l.chunkOf.get('p')!.txids).toEqual(['p', 'c2']);
  });

  it('31.99 orders equal-feerate chunks by their equal-feerate prefix in the cluster, then by highest txid (internal order); v30 by arrival', () => {
    // A chain of equal feerates (a1 → a2 → a3) and a lone transaction b of the same feerate, b first to arrive.
    const id = (c: string): string => c.repeat(64);
    const pool = [tx(id('f'), 1_000, 400, [], 1), tx(id('1'), 1_000, 400, [], 2), tx(id('2'), 1_000, 400, [id('1')], 3), tx(id('3'), 1_000, 400, [id('2')], 4)];
    expect(linearize(pool, 'txid').order).toEqual([id('1'), id('f'), id('2'), id('3')]);
    expect(linearize(pool, 'arrival').order).toEqual([id('f'), id('1'), id('2'), id('3')]);
    for (const t of [id('1'), id('2'), id('3'), id('f')]) expect(linearize(pool, 'txid').chunkOf.get(t)!.txids).toEqual([t]);
  });
});
