/**
 * The node's mempool methods (rpc/mempool.cpp): getrawmempool, getmempoolentry and
 * getmempoolinfo, with Core's cluster-mempool fields (chunk fee and weight) and order.
 */
import { btcJson } from '../../shared/amounts';
import type { Chain } from '../chain/chain';
import { MAX_DATACARRIER_BYTES, MIN_RELAY_FEE } from '../chain/policy';
import { MempoolUsage } from './mempool-usage';
import type { ChainTx } from '../chain/types';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { parseHashV } from '../rpc/args';
import { HELP_GETMEMPOOLENTRY, HELP_GETRAWMEMPOOL } from '../rpc/help';
import type { CoreVersion } from '../core-version';
import { internalOrder } from './format';
import { arg, boolArg, method } from './rpc-util';

/** A mempool entry with the package numbers entryToJSON prints. */
interface MempoolInfo {
  tx: ChainTx;
  fee: bigint;
  vsize: number;
  time: number;
  height: number;
  parents: Set<string>;
  children: Set<string>;
}

export class MempoolRpc {
  /** Chain height when each mempool transaction entered the mempool (entryToJSON `height`). */
  private readonly entryHeight = new Map<string, number>();
  /** The mempool sequence (getrawmempool mempool_sequence): +1 per addition and per removal. */
  private mempoolSequence = 1;
  private readonly usage: MempoolUsage;

  constructor(
    private readonly chain: Chain,
    private readonly coreVersion: CoreVersion,
  ) {
    this.usage = new MempoolUsage(coreVersion);
    chain.onChange((ev) => {
      if (ev.type === 'tx') {
        this.entryHeight.set(ev.tx.txid, this.chain.tipHeight());
        this.mempoolSequence++;
        this.usage.added();
      } else {
        const gone = ev.type === 'removed' ? ev.txids : ev.block.txs.map((t) => t.txid);
        for (const txid of gone) {
          if (!this.entryHeight.delete(txid)) continue;
          this.mempoolSequence++;
          this.usage.removed();
        }
      }
    });
  }

  /** The mempool with each entry's parents and children, in insertion order. */
  private mempoolInfo(): Map<string, MempoolInfo> {
    const info = new Map<string, MempoolInfo>();
    const tip = this.chain.tipHeight();
    for (const tx of this.chain.mempoolTxs()) {
      info.set(tx.txid, {
        tx,
        fee: this.chain.mempoolFee(tx.txid) ?? 0n,
        vsize: Math.ceil(tx.weight / 4),
        time: this.chain.findTx(tx.txid)?.firstSeen ?? 0,
        height: this.entryHeight.get(tx.txid) ?? tip,
        parents: new Set(),
        children: new Set(),
      });
    }
    for (const e of info.values()) {
      for (const i of e.tx.vin) {
        const parent = info.get(i.txid);
        if (parent) {
          e.parents.add(i.txid);
          parent.children.add(e.tx.txid);
        }
      }
    }
    return info;
  }

  private static closure(info: Map<string, MempoolInfo>, txid: string, edge: 'parents' | 'children'): Set<string> {
    const seen = new Set<string>([txid]);
    const stack = [txid];
    while (stack.length) {
      for (const next of info.get(stack.pop()!)?.[edge] ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return seen;
  }

  /** entryToJSON (rpc/mempool.cpp). */
  private entryJson(info: Map<string, MempoolInfo>, e: MempoolInfo): Record<string, unknown> {
    const ancestors = MempoolRpc.closure(info, e.tx.txid, 'parents');
    const descendants = MempoolRpc.closure(info, e.tx.txid, 'children');
    const sum = (set: Set<string>, f: (m: MempoolInfo) => bigint): bigint => [...set].reduce((a, t) => a + f(info.get(t)!), 0n);
    const signals = (m: MempoolInfo): boolean => m.tx.vin.some((i) => i.sequence >>> 0 < 0xfffffffe);
    const chunk = this.chain.linearization().chunkOf.get(e.tx.txid)!;
    return {
      vsize: e.vsize,
      weight: e.tx.weight,
      time: e.time,
      height: e.height,
      descendantcount: descendants.size,
      descendantsize: Number(sum(descendants, (m) => BigInt(m.vsize))),
      ancestorcount: ancestors.size,
      ancestorsize: Number(sum(ancestors, (m) => BigInt(m.vsize))),
      wtxid: e.tx.wtxid,
      chunkweight: chunk.weight,
      fees: {
        base: btcJson(e.fee),
        modified: btcJson(e.fee),
        ancestor: btcJson(sum(ancestors, (m) => m.fee)),
        descendant: btcJson(sum(descendants, (m) => m.fee)),
        chunk: btcJson(chunk.fee),
      },
      depends: [...e.parents].sort(),
      spentby: [...e.children].sort((a, b) => (internalOrder(a) < internalOrder(b) ? -1 : 1)),
      // 31.99 dropped the field (every transaction is replaceable under full RBF).
      'bip125-replaceable': this.coreVersion === '30' ? [...ancestors].some((t) => signals(info.get(t)!)) : undefined,
      // A node without peers never gets its own transactions acknowledged.
      unbroadcast: true,
    };
  }

  /** The mempool in the cluster mempool's mining order (devnet/chain/cluster.ts), as getrawmempool lists it. */
  private sortedMempool(info: Map<string, MempoolInfo>): MempoolInfo[] {
    return this.chain.linearization().order.map((t) => info.get(t)!);
  }

  rawMempool(verbose: boolean, withSequence: boolean): unknown {
    if (verbose && withSequence) throw new RpcError(-8, 'Verbose results cannot contain mempool sequence values.');
    const info = this.mempoolInfo();
    const sorted = this.sortedMempool(info);
    if (verbose) return Object.fromEntries(sorted.map((e) => [e.tx.txid, this.entryJson(info, e)]));
    const txids = sorted.map((e) => e.tx.txid);
    return withSequence ? { txids, mempool_sequence: this.mempoolSequence } : txids;
  }

  mempoolEntry(txid: string): unknown {
    const info = this.mempoolInfo();
    const e = info.get(txid);
    if (!e) throw new RpcError(-5, 'Transaction not in mempool');
    return this.entryJson(info, e);
  }

  /** getmempoolinfo (rpc/mempool.cpp MempoolInfoToJSON), the fields of the generation answered as. */
  getMempoolInfo(): Record<string, unknown> {
    const txs = this.chain.mempoolTxs();
    let bytes = 0;
    let fees = 0n;
    for (const tx of txs) {
      bytes += Math.ceil(tx.weight / 4);
      fees += this.chain.mempoolFee(tx.txid) ?? 0n;
    }
    const v30 = this.coreVersion === '30';
    return {
      loaded: true,
      size: txs.length,
      bytes,
      usage: this.usage.estimate(txs),
      total_fee: btcJson(fees),
      maxmempool: 300_000_000,
      mempoolminfee: btcJson(MIN_RELAY_FEE),
      minrelaytxfee: btcJson(MIN_RELAY_FEE),
      incrementalrelayfee: btcJson(MIN_RELAY_FEE),
      // A node without peers never gets its own transactions acknowledged.
      unbroadcastcount: txs.length,
      fullrbf: v30 ? true : undefined,
      permitbaremultisig: true,
      maxdatacarriersize: MAX_DATACARRIER_BYTES,
      limitclustercount: 64,
      limitclustersize: 101_000,
      optimal: v30 ? undefined : true,
    };
  }

  methods(): RpcMethodSpec[] {
    return [
      method(
        'getrawmempool',
        [arg('verbose', 'bool'), arg('mempool_sequence', 'bool')],
        (a) => this.rawMempool(boolArg(a[0], false), boolArg(a[1], false)),
        HELP_GETRAWMEMPOOL,
      ),
      method('getmempoolentry', [arg('txid', 'str_hex', true)], (a) => this.mempoolEntry(parseHashV(a[0], 'txid')), HELP_GETMEMPOOLENTRY),
      method('getmempoolinfo', [], () => this.getMempoolInfo()),
    ];
  }
}
