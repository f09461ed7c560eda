/**
 * The cluster mempool's order (devnet/chain/cluster.ts), without a node: chunks are the
 * highest-feerate ancestor-closed sets, merged on equal feerate; blocks take chunks by feerate.
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

  it('higher feerate first across clusters; arrival order breaks ties; equal feerates in a cluster merge', () => {
    const l = linearize([tx('a', 1_000, 400, [], 2), tx('b', 1_000, 400, [], 1), tx('c', 4_000, 400, [], 3), tx('d', 1_000, 400, ['a'], 4)]);
    expect(l.order).toEqual(['c', 'b', 'a', 'd']);
    expect(l.chunkOf.get('a')).toEqual({ fee: 2_000n, weight: 800, txids: ['a', 'd'] });
  });

  it('the best of several children is taken with the parent first; the others follow by feerate', () => {
    const l = linearize([tx('p', 0, 400, [], 1), tx('c1', 1_000, 400, ['p'], 2), tx('c2', 9_000, 400, ['p'], 3)]);
    expect(l.order).toEqual(['p', 'c2', 'c1']);
    expect(l.chunkOf.get('p')!.txids).toEqual(['p', 'c2']);
  });
});
