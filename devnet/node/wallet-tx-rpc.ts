/**
 * The wallet's transaction and balance methods (wallet/rpc/transactions.cpp, coins.cpp,
 * addresses.cpp): gettransaction, listtransactions, listsinceblock, getbalances, getbalance,
 * getreceivedbyaddress, getreceivedbylabel, listlabels, rescanblockchain, abortrescan (rescans:
 * devnet/wallet/rescan.ts) — fields in
 * Core's order for the generation answered as (v30 writes `bip125-replaceable`, 31.99 does not;
 * 31.99's getbalances has `nonmempool`).
 */
import { btcJson } from '../../shared/amounts';
import { decodeDestination } from '../../shared/bitcoin/address';
import { decodeRawTransactionJson } from '../../shared/bitcoin/decode';
import { parseTx } from '../../shared/bitcoin/tx';
import { bytesToHex } from '../chain/encoding';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { getStr, parseHashV } from '../rpc/args';
import type { Wallet } from '../wallet/wallet';
import type { WalletTx } from '../wallet/ledger';
import { amounts, balances, bookEntry, credit, debit, depth, fee, isFromMe, isImmatureCoinbase, isTrusted, type OutputEntry } from '../wallet/accounting';
import type { DevnetNode } from './node';
import { arg, boolArg, intArg, method, strArg } from './rpc-util';

type Entry = Record<string, unknown>;

/** LabelFromValue: any string but "*". */
function labelFromValue(v: Parameters<typeof getStr>[0]): string {
  const label = getStr(v);
  if (label === '*') throw new RpcError(-11, 'Invalid label name');
  return label;
}

export class WalletTxRpc {
  constructor(private readonly node: DevnetNode) {}

  /** RBF status for v30's `bip125-replaceable` (IsRBFOptIn against the mempool). */
  private rbfStatus(wtx: WalletTx, confirms: number): string {
    if (confirms > 0) return 'no';
    const signals = (txid: string): boolean => (this.node.chain.findTx(txid)?.tx ?? wtx.tx).vin.some((i) => i.sequence >>> 0 < 0xfffffffe);
    if (wtx.tx.vin.some((i) => i.sequence >>> 0 < 0xfffffffe)) return 'yes';
    if (!this.node.chain.inMempool(wtx.tx.txid)) return 'unknown';
    const seen = new Set<string>();
    const stack = wtx.tx.vin.map((i) => i.txid);
    while (stack.length) {
      const t = stack.pop()!;
      if (seen.has(t) || !this.node.chain.inMempool(t)) continue;
      seen.add(t);
      if (signals(t)) return 'yes';
      stack.push(...this.node.chain.findTx(t)!.tx.vin.map((i) => i.txid));
    }
    return 'no';
  }

  /** WalletTxToJSON. */
  private txFields(w: Wallet, wtx: WalletTx, e: Entry): void {
    const confirms = depth(w, wtx);
    e.confirmations = confirms;
    if (wtx.tx.coinbase) e.generated = true;
    const found = this.node.chain.findTx(wtx.tx.txid);
    if (confirms > 0 && found?.block) {
      e.blockhash = found.block.hash;
      e.blockheight = found.block.height;
      e.blockindex = found.index;
      e.blocktime = found.block.time;
    } else {
      e.trusted = isTrusted(w, wtx);
    }
    e.txid = wtx.tx.txid;
    e.wtxid = wtx.tx.wtxid;
    e.walletconflicts = w.txs.conflicts(wtx);
    e.mempoolconflicts = this.mempoolConflicts(wtx);
    e.time = wtx.timeSmart || wtx.timeReceived;
    e.timereceived = wtx.timeReceived;
    if (this.node.coreVersion === '30') e['bip125-replaceable'] = this.rbfStatus(wtx, confirms);
    for (const [k, v] of [...wtx.mapValue].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) e[k] = v;
  }

  /** Mempool transactions spending what a transaction out of the mempool spends. */
  private mempoolConflicts(wtx: WalletTx): string[] {
    if (wtx.tx.coinbase || this.node.chain.findTx(wtx.tx.txid)) return [];
    const out = new Set<string>();
    for (const i of wtx.tx.vin) for (const s of this.node.chain.spenders(i.txid, i.vout)) if (!s.confirmed && s.txid !== wtx.tx.txid) out.add(s.txid);
    return [...out];
  }

  /** ListTransactions: the sent entries, then the received ones. */
  listEntries(w: Wallet, wtx: WalletTx, o: { long: boolean; label: string | null; includeChange?: boolean; minDepth?: number }): Entry[] {
    const ret: Entry[] = [];
    const { sent, received, fee: f } = amounts(w, wtx, o.includeChange ?? false);
    const addr = (e: Entry, x: OutputEntry): void => {
      if (x.address !== null) e.address = x.address;
    };
    if (o.label === null) {
      for (const s of sent) {
        const e: Entry = {};
        addr(e, s);
        e.category = 'send';
        e.amount = btcJson(-s.amount);
        const book = bookEntry(w, s.address);
        if (book) e.label = book.label;
        e.vout = s.vout;
        e.fee = btcJson(-f);
        if (o.long) this.txFields(w, wtx, e);
        e.abandoned = false;
        ret.push(e);
      }
    }
    const dep = depth(w, wtx);
    if (received.length > 0 && dep >= (o.minDepth ?? 0)) {
      for (const r of received) {
        const book = bookEntry(w, r.address);
        const label = book?.label ?? '';
        if (o.label !== null && label !== o.label) continue;
        const e: Entry = {};
        addr(e, r);
        const entry = w.lookup(wtx.tx.vout[r.vout]!.script);
        e.parent_descs = entry ? [entry.d.desc.toString()] : [];
        e.category = wtx.tx.coinbase ? (dep < 1 ? 'orphan' : isImmatureCoinbase(w, wtx) ? 'immature' : 'generate') : 'receive';
        e.amount = btcJson(r.amount);
        if (book) e.label = label;
        e.vout = r.vout;
        e.abandoned = false;
        if (o.long) this.txFields(w, wtx, e);
        ret.push(e);
      }
    }
    return ret;
  }

  getTransaction(w: Wallet, txid: string, verbose: boolean): Entry {
    const wtx = w.txs.get(txid);
    if (!wtx) throw new RpcError(-5, 'Invalid or non-wallet transaction id');
    const net = credit(w, wtx) - debit(w, wtx);
    const f = fee(w, wtx);
    const e: Entry = { amount: btcJson(net - f) };
    if (isFromMe(w, wtx)) e.fee = btcJson(f);
    this.txFields(w, wtx, e);
    e.details = this.listEntries(w, wtx, { long: false, label: null });
    e.hex = bytesToHex(wtx.tx.raw);
    if (verbose) e.decoded = decodeRawTransactionJson(parseTx(wtx.tx.raw, { allowWitness: true }), this.node.network);
    e.lastprocessedblock = this.lastProcessed();
    return e;
  }

  private lastProcessed(): Entry {
    const tip = this.node.chain.tip();
    return { hash: tip.hash, height: tip.height };
  }

  listTransactions(w: Wallet, label: string | null, count: number, skip: number): Entry[] {
    if (count < 0) throw new RpcError(-8, 'Negative count');
    if (skip < 0) throw new RpcError(-8, 'Negative from');
    const ret: Entry[] = [];
    const ordered = w.txs.ordered();
    for (let i = ordered.length - 1; i >= 0; i--) {
      ret.push(...this.listEntries(w, ordered[i]!, { long: true, label }));
      if (ret.length >= count + skip) break;
    }
    const from = Math.min(skip, ret.length);
    const n = Math.min(count, ret.length - from);
    return ret.slice(from, from + n).reverse();
  }

  listSinceBlock(w: Wallet, blockhash: string | null, targetConfirmations: number, includeRemoved: boolean, includeChange: boolean, label: string | null): Entry {
    const chain = this.node.chain;
    let height: number | null = null;
    if (blockhash !== null) {
      const block = chain.blockByHash(blockhash);
      if (!block) throw new RpcError(-5, 'Block not found');
      height = block.height;
    }
    if (targetConfirmations < 1) throw new RpcError(-8, 'Invalid parameter');
    const tip = chain.tipHeight();
    const dep = height === null ? -1 : tip + 1 - height;
    const transactions: Entry[] = [];
    for (const wtx of w.txs.ordered()) {
      if (dep === -1 || Math.abs(depth(w, wtx)) < dep) transactions.push(...this.listEntries(w, wtx, { long: true, label, includeChange }));
    }
    const target = Math.min(targetConfirmations, tip + 1);
    const out: Entry = { transactions };
    // The devnet's chain never reorganizes: nothing was removed.
    if (includeRemoved) out.removed = [];
    out.lastblock = chain.blockAt(tip + 1 - target)!.hash;
    return out;
  }

  /** GetReceived: what the scripts received in transactions of at least `minDepth` confirmations. */
  private received(w: Wallet, scripts: Set<string>, minDepth: number, includeImmature: boolean): bigint {
    let sum = 0n;
    for (const wtx of w.txs.ordered()) {
      const dep = depth(w, wtx);
      if (dep < minDepth || (wtx.tx.coinbase && dep < 1) || (isImmatureCoinbase(w, wtx) && !includeImmature)) continue;
      for (const o of wtx.tx.vout) if (scripts.has(bytesToHex(o.script))) sum += o.value;
    }
    return sum;
  }

  methods(): RpcMethodSpec[] {
    const m = method;
    const wallet = (ctx: Parameters<RpcMethodSpec['handler']>[1]): Wallet => this.node.selectWallet(ctx);
    return [
      m('gettransaction', [arg('txid', 'str', true), arg('include_watchonly', 'bool'), arg('verbose', 'bool')], (a, ctx) =>
        this.getTransaction(wallet(ctx), parseHashV(a[0], 'txid'), boolArg(a[2], false)),
      ),
      m('listtransactions', [arg('label', 'str'), arg('count', 'num'), arg('skip', 'num'), arg('include_watchonly', 'bool')], (a, ctx) => {
        const w = wallet(ctx);
        let label: string | null = null;
        if (a[0] !== undefined && getStr(a[0]) !== '*') {
          label = labelFromValue(a[0]);
          if (label === '') throw new RpcError(-8, 'Label argument must be a valid label name or "*".');
        }
        return this.listTransactions(w, label, intArg(a[1], 10), intArg(a[2], 0));
      }),
      m(
        'listsinceblock',
        [arg('blockhash', 'str'), arg('target_confirmations', 'num'), arg('include_watchonly', 'bool'), arg('include_removed', 'bool'), arg('include_change', 'bool'), arg('label', 'str')],
        (a, ctx) => {
          const w = wallet(ctx);
          const hash = a[0] !== undefined && getStr(a[0]) !== '' ? parseHashV(a[0], 'blockhash') : null;
          return this.listSinceBlock(w, hash, intArg(a[1], 1), boolArg(a[3], true), boolArg(a[4], false), a[5] === undefined ? null : labelFromValue(a[5]));
        },
      ),
      m('getbalances', [], (_a, ctx) => {
        const w = wallet(ctx);
        const b = balances(w, 0);
        const mine: Entry = { trusted: btcJson(b.trusted), untrusted_pending: btcJson(b.untrustedPending), immature: btcJson(b.immature) };
        if (this.node.coreVersion !== '30') mine.nonmempool = btcJson(b.nonmempool);
        return { mine, lastprocessedblock: this.lastProcessed() };
      }),
      m('getbalance', [arg('dummy', 'str'), arg('minconf', 'num'), arg('include_watchonly', 'bool'), arg('avoid_reuse', 'bool')], (a, ctx) => {
        const w = wallet(ctx);
        if (a[0] !== undefined && getStr(a[0]) !== '*') throw new RpcError(-32, 'dummy first argument must be excluded or set to "*".');
        return btcJson(balances(w, intArg(a[1], 0)).trusted);
      }),
      m('getreceivedbyaddress', [arg('address', 'str', true), arg('minconf', 'num'), arg('include_immature_coinbase', 'bool')], (a, ctx) => {
        const w = wallet(ctx);
        const d = decodeDestination(getStr(a[0]), this.node.network);
        if (!d.ok) throw new RpcError(-5, 'Invalid Bitcoin address');
        if (!w.isMine(d.script)) throw new RpcError(-4, 'Address not found in wallet');
        return btcJson(this.received(w, new Set([bytesToHex(d.script)]), intArg(a[1], 1), boolArg(a[2], false)));
      }),
      m('getreceivedbylabel', [arg('label', 'str', true), arg('minconf', 'num'), arg('include_immature_coinbase', 'bool')], (a, ctx) => {
        const w = wallet(ctx);
        const label = labelFromValue(a[0]);
        const scripts = new Set<string>();
        const addresses = [...w.addressBook].filter(([, e]) => e.label === label);
        if (addresses.length === 0) throw new RpcError(-4, 'Label not found in wallet');
        for (const [address] of addresses) {
          const d = decodeDestination(address, this.node.network);
          if (d.ok && w.isMine(d.script)) scripts.add(bytesToHex(d.script));
        }
        return btcJson(this.received(w, scripts, intArg(a[1], 1), boolArg(a[2], false)));
      }),
      m('listlabels', [arg('purpose', 'str')], (a, ctx) => {
        const w = wallet(ctx);
        const purpose = a[0] === undefined ? '' : strArg(a[0], '');
        if (purpose !== '' && !['send', 'receive', 'refund'].includes(purpose)) {
          throw new RpcError(-8, "Invalid 'purpose' argument, must be a known purpose string, typically 'send', or 'receive'.");
        }
        const labels = new Set<string>();
        for (const e of w.addressBook.values()) if (purpose === '' || e.purpose === purpose) labels.add(e.label);
        return [...labels].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      }),
      m('rescanblockchain', [arg('start_height', 'num'), arg('stop_height', 'num')], async (a, ctx) => {
        const w = wallet(ctx);
        if (w.scanner.isScanning()) throw new RpcError(-4, 'Wallet is currently rescanning. Abort existing rescan or wait.');
        const tip = this.node.chain.tipHeight();
        const start = intArg(a[0], 0);
        if (start < 0 || start > tip) throw new RpcError(-8, 'Invalid start_height');
        let stop = tip;
        if (a[1] !== undefined) {
          stop = intArg(a[1], 0);
          if (stop < 0 || stop > tip) throw new RpcError(-8, 'Invalid stop_height');
          if (stop < start) throw new RpcError(-8, 'stop_height must be greater than start_height');
        }
        if ((await w.scanner.scan(start, stop, this.node.rescanDelayMs)) === 'aborted') throw new RpcError(-1, 'Rescan aborted.');
        return { start_height: start, stop_height: stop };
      }),
      m('abortrescan', [], (_a, ctx) => wallet(ctx).scanner.abort()),
    ];
  }
}
