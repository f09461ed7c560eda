/**
 * The node's chain methods, as Core writes them (rpc/blockchain.cpp, rpc/rawtransaction.cpp,
 * rpc/net.cpp): getblockchaininfo, getnetworkinfo, getblockcount, getbestblockhash, getblockhash,
 * getblock, getblockheader, getrawtransaction, gettxout — shapes per generation (31.99 adds
 * `coinbase_tx` to getblock).
 */
import { btcJson } from '../../shared/amounts';
import type { Network } from '../../shared/bitcoin/networks';
import { decodeRawTransactionJson, type ScriptUnivCache } from '../../shared/bitcoin/decode';
import { scriptToUniv } from '../../shared/bitcoin/script-univ';
import { parseTx } from '../../shared/bitcoin/tx';
import { bitsToTarget, type Chain } from '../chain/chain';
import type { ChainBlock, ChainTx } from '../chain/types';
import { bytesToHex } from '../chain/encoding';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { parseHashV } from '../rpc/args';
import { HELP_GETBLOCK, HELP_GETBLOCKHEADER, HELP_GETTXOUT } from '../rpc/help';
import { NETWORK_IDENTITY, PRE_RELEASE_WARNING, type CoreVersion } from '../core-version';
import { blockProof, coreDouble, difficultyOfBits, hex64, hex8, serializeBlock, undoSize } from './format';
import { arg, boolArg, intArg, method, parseVerbosity } from './rpc-util';

const NETWORKS = ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns'];
/** -listen=0, no proxy: the clearnet networks are reachable, the others limited. */
const REACHABLE = new Set(['ipv4', 'ipv6']);
/** -maxtipage: a tip older than this keeps the node in initial block download. */
const MAX_TIP_AGE = 24 * 60 * 60;
/** The transaction rate regtest's GuessVerificationProgress assumes after the tip (tx/s). */
const REGTEST_TX_RATE = 0.001;

/** getblock's coinbase_tx (31.99): the coinbase's version, locktime, input sequence and script, first witness item. */
function coinbaseTxJson(cb: ChainTx): Record<string, unknown> {
  const input = cb.vin[0]!;
  return {
    version: cb.version,
    locktime: cb.locktime,
    sequence: input.sequence >>> 0,
    coinbase: bytesToHex(input.scriptSig),
    witness: input.witness.length > 0 ? bytesToHex(input.witness[0]!) : undefined,
  };
}

export class ChainRpc {
  /** Cumulative chain work, transaction count and disk use by height (the devnet's chain never reorganizes). */
  private readonly chainWork: bigint[] = [];
  private readonly chainTxs: number[] = [];
  private readonly diskUse: number[] = [];
  /** IsInitialBlockDownload latches to false once the tip was recent. */
  private leftIbd = false;

  constructor(
    private readonly chain: Chain,
    private readonly network: Network,
    private readonly coreVersion: CoreVersion,
  ) {}

  /** GuessVerificationProgress with regtest's chain data: the tip's transaction count against those expected by now. */
  private verificationProgress(): number {
    const tip = this.chain.tip();
    const count = this.cumulative(this.chainTxs, tip.height, (b) => b.txs.length);
    return Math.min(1, count / (count + (this.chain.clock() - tip.time) * REGTEST_TX_RATE));
  }

  /** IsInitialBlockDownload: until the tip was once recent (less than a day old by the node's clock). */
  initialBlockDownload(): boolean {
    if (!this.leftIbd && this.chain.tip().time >= this.chain.clock() - MAX_TIP_AGE) this.leftIbd = true;
    return !this.leftIbd;
  }

  /** Block files (8-byte header + block) and undo files (8-byte header + undo data + 32-byte checksum; none for genesis). */
  private sizeOnDisk(): number {
    return this.cumulative(this.diskUse, this.chain.tipHeight(), (b) => 8 + b.size + (b.height > 0 ? 8 + undoSize(b, (t, v) => this.chain.output(t, v)) + 32 : 0));
  }

  private cumulative(cache: number[], height: number, f: (b: ChainBlock) => number): number {
    for (let h = cache.length; h <= height; h++) cache.push((cache[h - 1] ?? 0) + f(this.chain.blockAt(h)!));
    return cache[height]!;
  }

  blockchainInfo(): unknown {
    const tip = this.chain.tip();
    const target = bitsToTarget(tip.bits);
    const chainwork = (BigInt(this.chain.tipHeight()) + 1n) * 2n;
    return {
      chain: 'regtest',
      blocks: tip.height,
      headers: tip.height,
      bestblockhash: tip.hash,
      bits: tip.bits.toString(16).padStart(8, '0'),
      target: target.toString(16).padStart(64, '0'),
      difficulty: 4.656542373906925e-10,
      time: tip.time,
      mediantime: tip.medianTime,
      verificationprogress: coreDouble(this.verificationProgress()),
      initialblockdownload: this.initialBlockDownload(),
      chainwork: chainwork.toString(16).padStart(64, '0'),
      size_on_disk: this.sizeOnDisk(),
      pruned: false,
      warnings: [PRE_RELEASE_WARNING],
    };
  }

  networkInfo(): unknown {
    return {
      ...NETWORK_IDENTITY[this.coreVersion],
      localservices: '0000000000000c09',
      localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
      localrelay: true,
      timeoffset: 0,
      networkactive: true,
      connections: 0,
      connections_in: 0,
      connections_out: 0,
      networks: NETWORKS.map((name) => ({ name, limited: !REACHABLE.has(name), reachable: REACHABLE.has(name), proxy: '', proxy_randomize_credentials: false })),
      relayfee: btcJson(100n),
      incrementalfee: btcJson(100n),
      localaddresses: [],
      warnings: [PRE_RELEASE_WARNING],
    };
  }

  rawTransaction(txid: string, verbosity: number, blockhash: string | null): unknown {
    let found = this.chain.findTx(txid);
    if (blockhash !== null) {
      const block = this.chain.blockByHash(blockhash);
      if (!block) throw new RpcError(-5, 'Block hash not found');
      const idx = block.txs.findIndex((t) => t.txid === txid);
      if (idx < 0) throw new RpcError(-5, 'No such transaction found in the provided block. Use gettransaction for wallet transactions.');
      found = { tx: block.txs[idx]!, block, index: idx, firstSeen: block.time };
    } else if (found && found.block) {
      // Without -txindex Core finds only mempool transactions (and wallet ones via gettransaction).
      found = undefined;
    }
    if (!found) {
      throw new RpcError(
        -5,
        blockhash === null
          ? 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.'
          : 'No such transaction found in the provided block. Use gettransaction for wallet transactions.',
      );
    }
    if (verbosity <= 0) return bytesToHex(found.tx.raw);
    // getrawtransaction: in_active_chain (with a block hash), then TxToJSON: TxToUniv (+ prevouts and
    // fee at verbosity 2 for a confirmed non-coinbase tx), hex, then the block fields.
    const out: Record<string, unknown> = {};
    if (blockhash !== null) out.in_active_chain = true;
    const undo = verbosity >= 2 && found.block !== null && !found.tx.coinbase;
    Object.assign(out, this.txJson(found.tx, { undo, prevouts: undo }, new Map()));
    if (found.block) {
      out.blockhash = found.block.hash;
      out.confirmations = this.chain.tipHeight() - found.block.height + 1;
      out.time = found.block.time;
      out.blocktime = found.block.time;
    }
    return out;
  }

  /**
   * TxToUniv(tx, block_hash = null, include_hex = true, txundo, verbosity): decoderawtransaction's
   * keys; with undo data each input gets `prevout` (verbosity 3) and the tx gets `fee`; then `hex`.
   */
  txJson(tx: ChainTx, opts: { undo: boolean; prevouts: boolean }, cache: ScriptUnivCache): Record<string, unknown> {
    const base = decodeRawTransactionJson(parseTx(tx.raw, { allowWitness: true }), this.network, cache);
    if (opts.undo && !tx.coinbase) {
      let inSum = 0n;
      const vin = (base.vin as Record<string, unknown>[]).map((entry, i) => {
        const input = tx.vin[i]!;
        const prev = this.chain.output(input.txid, input.vout);
        if (!prev) throw new RpcError(-32603, 'Undo data expected but can\'t be read. This could be due to disk corruption or a conflict with a pruning event.');
        inSum += prev.value;
        if (!opts.prevouts) return entry;
        const { sequence, ...rest } = entry;
        return {
          ...rest,
          prevout: {
            generated: prev.coinbase,
            height: prev.height ?? 0,
            value: btcJson(prev.value),
            scriptPubKey: this.scriptUniv(prev.script, cache),
          },
          sequence,
        };
      });
      base.vin = vin;
      const outSum = tx.vout.reduce((a, o) => a + o.value, 0n);
      base.fee = btcJson(inSum - outSum);
    }
    base.hex = bytesToHex(tx.raw);
    return base;
  }

  private scriptUniv(script: Uint8Array, cache: ScriptUnivCache): Record<string, unknown> {
    const key = bytesToHex(script);
    let v = cache.get(key);
    if (!v) {
      v = scriptToUniv(script, { includeHex: true, includeAddress: true, network: this.network });
      cache.set(key, v);
    }
    return v;
  }

  private chainWorkAt(height: number): bigint {
    for (let h = this.chainWork.length; h <= height; h++) {
      const b = this.chain.blockAt(h)!;
      this.chainWork.push((this.chainWork[h - 1] ?? 0n) + blockProof(b.bits));
    }
    return this.chainWork[height]!;
  }

  /** blockheaderToJSON (rpc/blockchain.cpp, v29+ with `target`). */
  blockHeaderJson(block: ChainBlock): Record<string, unknown> {
    const next = this.chain.blockAt(block.height + 1);
    return {
      hash: block.hash,
      confirmations: this.chain.tipHeight() - block.height + 1,
      height: block.height,
      version: block.version | 0,
      versionHex: hex8(block.version),
      merkleroot: block.merkleRoot,
      time: block.time,
      mediantime: block.medianTime,
      nonce: block.nonce >>> 0,
      bits: hex8(block.bits),
      target: hex64(bitsToTarget(block.bits)),
      difficulty: coreDouble(difficultyOfBits(block.bits)),
      chainwork: hex64(this.chainWorkAt(block.height)),
      nTx: block.txs.length,
      previousblockhash: block.height > 0 ? block.prevHash : undefined,
      nextblockhash: next?.hash,
    };
  }

  /** getblock: verbosity ≤ 0 hex, 1 txids, 2 transactions (+ fee), ≥ 3 also each input's prevout. */
  blockJson(block: ChainBlock, verbosity: number): unknown {
    if (verbosity <= 0) return bytesToHex(serializeBlock(block));
    const out = this.blockHeaderJson(block);
    out.strippedsize = block.strippedSize;
    out.size = block.size;
    out.weight = block.weight;
    if (this.coreVersion !== '30') out.coinbase_tx = coinbaseTxJson(block.txs[0]!);
    if (verbosity === 1) {
      out.tx = block.txs.map((t) => t.txid);
    } else {
      // The genesis block has no undo data (it only holds the coinbase, which never has any).
      const cache: ScriptUnivCache = new Map();
      const undo = block.height > 0;
      out.tx = block.txs.map((t) => this.txJson(t, { undo, prevouts: undo && verbosity >= 3 }, cache));
    }
    return out;
  }

  blockOrThrow(hash: string): ChainBlock {
    const block = this.chain.blockByHash(hash);
    if (!block) throw new RpcError(-5, 'Block not found');
    return block;
  }

  txOut(txid: string, n: number, includeMempool: boolean): unknown {
    const o = this.chain.output(txid, n);
    if (!o) return null;
    // Never in the UTXO set: the genesis coinbase and provably unspendable scripts.
    if (o.height === 0 || (o.script.length > 0 && o.script[0] === 0x6a) || o.script.length > 10_000) return null;
    const spenders = this.chain.spenders(txid, n);
    if (includeMempool ? spenders.length > 0 : o.height === null || spenders.some((s) => s.confirmed)) return null;
    const tip = this.chain.tip();
    return {
      bestblock: tip.hash,
      confirmations: o.height === null ? 0 : tip.height - o.height + 1,
      value: btcJson(o.value),
      scriptPubKey: scriptToUniv(o.script, { includeHex: true, includeAddress: true, network: this.network }),
      coinbase: o.coinbase,
    };
  }

  methods(): RpcMethodSpec[] {
    return [
      method('getblockchaininfo', [], () => this.blockchainInfo()),
      method('getblockcount', [], () => this.chain.tipHeight()),
      method('getbestblockhash', [], () => this.chain.tip().hash),
      method('getblockhash', [arg('height', 'num', true)], (a) => {
        const b = this.chain.blockAt(intArg(a[0], 0));
        if (!b) throw new RpcError(-8, 'Block height out of range');
        return b.hash;
      }),
      method('getnetworkinfo', [], () => this.networkInfo()),
      method('getrawtransaction', [arg('txid', 'str_hex', true), arg('verbosity', 'any'), arg('blockhash', 'str_hex')], (a) => {
        const txid = parseHashV(a[0], 'parameter 1');
        const verbosity = parseVerbosity(a[1], 0);
        const blockhash = a[2] === undefined ? null : parseHashV(a[2], 'parameter 3');
        return this.rawTransaction(txid, verbosity, blockhash);
      }),
      method(
        'getblock',
        [arg('blockhash', 'str_hex', true), arg('verbosity|verbose', 'any')],
        (a) => this.blockJson(this.blockOrThrow(parseHashV(a[0], 'blockhash')), parseVerbosity(a[1], 1)),
        HELP_GETBLOCK,
      ),
      method(
        'getblockheader',
        [arg('blockhash', 'str_hex', true), arg('verbose', 'bool')],
        (a) => {
          const block = this.blockOrThrow(parseHashV(a[0], 'hash'));
          return boolArg(a[1], true) ? this.blockHeaderJson(block) : bytesToHex(block.header);
        },
        HELP_GETBLOCKHEADER,
      ),
      method(
        'gettxout',
        [arg('txid', 'str', true), arg('n', 'num', true), arg('include_mempool', 'bool')],
        (a) => this.txOut(parseHashV(a[0], 'txid'), intArg(a[1], 0, 'uint32'), boolArg(a[2], true)),
        HELP_GETTXOUT,
      ),
    ];
  }
}
