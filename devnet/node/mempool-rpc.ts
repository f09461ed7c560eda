/**
 * The node's mempool methods (rpc/mempool.cpp): getrawmempool, getmempoolentry and
 * sendrawtransaction, with Core's cluster-mempool fields (chunk fee and weight) and order.
 */
import { btcJson } from '../../shared/amounts';
import { ChainError, type Chain } from '../chain/chain';
import type { ChainTx } from '../chain/types';
import { hexToBytes } from '../chain/encoding';
import { parseChainTx } from '../chain/tx';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { amountFromValue, getStr, parseHashV } from '../rpc/args';
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

  constructor(
    private readonly chain: Chain,
    private readonly coreVersion: CoreVersion,
  ) {
    chain.onChange((ev) => {
      if (ev.type === 'tx') {
        this.entryHeight.set(ev.tx.txid, this.chain.tipHeight());
        this.mempoolSequence++;
      } else if (ev.type === 'removed') {
        for (const txid of ev.txids) if (this.entryHeight.delete(txid)) this.mempoolSequence++;
      } else {
        for (const tx of ev.block.txs) if (this.entryHeight.delete(tx.txid)) this.mempoolSequence++;
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

  /** gettxout: an output of the UTXO set (with the mempool: also mempool outputs, minus mempool-spent ones). */

  /** sendrawtransaction: the hex is decoded before maxfeerate is read; then mempool acceptance. */
  private sendRawTransaction(hex: string, maxFeeRate: () => bigint): string {
    let tx: ChainTx;
    try {
      tx = parseChainTx(hexToBytes(hex));
    } catch {
      throw new RpcError(-22, 'TX decode failed. Make sure the tx has at least one input.');
    }
    const rate = maxFeeRate();
    try {
      return this.chain.acceptToMempool(tx, { maxFeeRateSatPerKvB: rate }).txid;
    } catch (e) {
      if (e instanceof ChainError) throw new RpcError(e.code, e.message);
      throw e;
    }
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
      method('sendrawtransaction', [arg('hexstring', 'str_hex', true), arg('maxfeerate', 'amount'), arg('maxburnamount', 'amount')], (a) =>
        this.sendRawTransaction(getStr(a[0]), () => {
          if (a[1] === undefined) return 10_000_000n; // DEFAULT_MAX_RAW_TX_FEE_RATE: 0.10 BTC/kvB
          // ParseFeeRate (rpc/util.cpp)
          const rate = amountFromValue(a[1]);
          if (rate >= 100_000_000n) throw new RpcError(-8, 'Fee rates larger than or equal to 1BTC/kvB are not accepted');
          return rate;
        }),
      ),
    ];
  }
}
