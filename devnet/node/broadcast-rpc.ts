/**
 * Broadcasting (rpc/mempool.cpp, node/transaction.cpp): sendrawtransaction — decoded, its burn
 * checked, already in the UTXO set (-27) or in the mempool (its txid), else a test acceptance, the
 * maxfeerate, and the acceptance — and testmempoolaccept, one result per transaction with Core's
 * reject reasons, fees and effective feerate, "max-fee-exceeded" past maxfeerate and nothing more
 * once one failed.
 */
import { btcJson } from '../../shared/amounts';
import type { UValue } from '../../shared/json';
import { isUnspendable } from '../../shared/bitcoin/script';
import { ChainError, type Chain } from '../chain/chain';
import type { ChainTx } from '../chain/types';
import { hexToBytes } from '../chain/encoding';
import { parseChainTx } from '../chain/tx';
import { feeAt } from '../chain/policy';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { amountFromValue, getStr } from '../rpc/args';
import { arg, method } from './rpc-util';

/** DEFAULT_MAX_RAW_TX_FEE_RATE: 0.10 BTC/kvB. */
const DEFAULT_MAX_FEE_RATE = 10_000_000n;
const MAX_PACKAGE_COUNT = 25;

/** ParseFeeRate (rpc/util.cpp): an amount per kvB below 1 BTC/kvB. */
function parseFeeRate(v: UValue | undefined): bigint {
  if (v === undefined) return DEFAULT_MAX_FEE_RATE;
  const rate = amountFromValue(v);
  if (rate >= 100_000_000n) throw new RpcError(-8, 'Fee rates larger than or equal to 1BTC/kvB are not accepted');
  return rate;
}

function decode(hex: string): ChainTx | null {
  try {
    return parseChainTx(hexToBytes(hex));
  } catch {
    return null;
  }
}

export class BroadcastRpc {
  constructor(private readonly chain: Chain) {}

  /** Whether one of the transaction's outputs is in the UTXO set (a confirmed, unspent output). */
  private inUtxoSet(tx: ChainTx): boolean {
    return tx.vout.some((_, n) => {
      const o = this.chain.output(tx.txid, n);
      return o !== undefined && o.height !== null && !this.chain.spenders(tx.txid, n).some((s) => s.confirmed);
    });
  }

  sendRawTransaction(a: (UValue | undefined)[]): string {
    const maxBurn = a[2] === undefined ? 0n : amountFromValue(a[2]);
    const tx = decode(getStr(a[0]));
    if (!tx) throw new RpcError(-22, 'TX decode failed. Make sure the tx has at least one input.');
    if (tx.vout.some((o) => isUnspendable(o.script) && o.value > maxBurn)) {
      throw new RpcError(-25, 'Unspendable output exceeds maximum configured by user (maxburnamount)');
    }
    const rate = parseFeeRate(a[1]);
    const maxFee = feeAt(rate, Math.ceil(tx.weight / 4));
    if (this.inUtxoSet(tx)) throw new RpcError(-27, 'Transaction outputs already in utxo set');
    if (this.chain.inMempool(tx.txid)) return tx.txid;
    try {
      if (rate > 0n) {
        const v = this.chain.validate(tx);
        if (v.fee > maxFee) throw new RpcError(-25, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)');
      }
      return this.chain.acceptToMempool(tx).txid;
    } catch (e) {
      if (e instanceof ChainError) throw new RpcError(e.code, e.message);
      throw e;
    }
  }

  testMempoolAccept(a: (UValue | undefined)[]): unknown[] {
    const raw = a[0]!.t === 'arr' ? a[0]!.v : [];
    if (raw.length < 1 || raw.length > MAX_PACKAGE_COUNT) throw new RpcError(-8, `Array must contain between 1 and ${MAX_PACKAGE_COUNT} transactions.`);
    const rate = parseFeeRate(a[1]);
    const txs = raw.map((v) => {
      const hex = getStr(v);
      const tx = decode(hex);
      if (!tx) throw new RpcError(-22, `TX decode failed: ${hex} Make sure the tx has at least one input.`);
      return tx;
    });
    const out: Array<Record<string, unknown>> = [];
    let done = false;
    txs.forEach((tx, i) => {
      const r: Record<string, unknown> = { txid: tx.txid, wtxid: tx.wtxid };
      out.push(r);
      if (done) return;
      try {
        const v = this.chain.validate(tx, txs.slice(0, i));
        if (rate > 0n && v.fee > feeAt(rate, v.vsize)) {
          r.allowed = false;
          r['reject-reason'] = 'max-fee-exceeded';
          done = true;
          return;
        }
        r.allowed = true;
        r.vsize = v.vsize;
        r.fees = { base: btcJson(v.fee), 'effective-feerate': btcJson((v.fee * 1000n) / BigInt(v.vsize)), 'effective-includes': [tx.wtxid] };
      } catch (e) {
        if (!(e instanceof ChainError) || !e.reject) throw e;
        r.allowed = false;
        if (e.reject.missingInputs) r['reject-reason'] = 'missing-inputs';
        else {
          r['reject-reason'] = e.reject.reason;
          r['reject-details'] = e.message;
        }
        done = true;
      }
    });
    return out;
  }

  methods(): RpcMethodSpec[] {
    return [
      method('sendrawtransaction', [arg('hexstring', 'str_hex', true), arg('maxfeerate', 'amount'), arg('maxburnamount', 'amount')], (a) => this.sendRawTransaction(a)),
      method('testmempoolaccept', [arg('rawtxs', 'arr', true), arg('maxfeerate', 'amount')], (a) => this.testMempoolAccept(a)),
    ];
  }
}
