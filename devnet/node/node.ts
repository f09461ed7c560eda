/**
 * The devnet node (interface A): wallets and chain methods with Bitcoin Core v30's names, argument
 * rules and result shapes, registered into the JSON-RPC framework in devnet/rpc.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { UValue } from '../../shared/json';
import { UTYPE_NAME, toPlain } from '../../shared/json';
import { btcJson, formatBtc, parseFixedPoint } from '../../shared/amounts';
import type { Network } from '../../shared/bitcoin/networks';
import { REGTEST } from '../../shared/bitcoin/networks';
import { decodeDestination, encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { parseDescriptor, getDescriptorInfo, deriveAddresses, DescriptorRpcError } from '../../shared/bitcoin/descriptor';
import { addressInfo } from '../../shared/bitcoin/addressinfo';
import { decodeRawTransactionJson, type ScriptUnivCache } from '../../shared/bitcoin/decode';
import { scriptToUniv } from '../../shared/bitcoin/script-univ';
import { parseTx } from '../../shared/bitcoin/tx';
import { RawJson, jsonString } from '../../shared/json';
import { Chain, ChainError, bitsToTarget } from '../chain/chain';
import type { ChainBlock, ChainTx } from '../chain/types';
import { bytesToHex, hexToBytes } from '../chain/encoding';
import { parseChainTx } from '../chain/tx';
import { RpcError, type RpcContext, type RpcMethodSpec, type ArgSpec } from '../rpc/types';
import { amountFromValue, getBool, getStr, optInt, parseHashV, type IntKind } from '../rpc/args';
import { HELP_GETADDRESSINFO } from '../rpc/stateless';
import { HELP_GETBLOCK, HELP_GETBLOCKHEADER, HELP_GETMEMPOOLENTRY, HELP_GETRAWMEMPOOL, HELP_GETTXOUT } from '../rpc/help';
import { Wallet, WalletError, compareDestinations, type AddressType } from '../wallet/wallet';

export const NODE_VERSION = 309900;
export const NODE_SUBVERSION = '/Satoshi:30.99.0/';

const arg = (name: string, type: ArgSpec['type'], required = false): ArgSpec => ({ name, type, required });

const intArg = (v: UValue | undefined, dflt: number, kind: IntKind = 'int'): number => optInt(v, dflt, kind);
const boolArg = (v: UValue | undefined, dflt: boolean): boolean => (v === undefined ? dflt : getBool(v));
const strArg = (v: UValue | undefined, dflt: string): string => (v === undefined ? dflt : getStr(v));
/** ParseVerbosity(arg, default, allow_bool = true) (rpc/util.cpp). */
const parseVerbosity = (v: UValue | undefined, dflt: number): number =>
  v === undefined || v.t === 'null' ? dflt : v.t === 'bool' ? (v.v ? 1 : 0) : intArg(v, dflt);

const ADDRESS_TYPE_NAMES: Record<string, AddressType> = {
  legacy: 'legacy',
  'p2sh-segwit': 'p2sh-segwit',
  bech32: 'bech32',
  bech32m: 'bech32m',
};

function parseAddressType(v: UValue | undefined, dflt: AddressType): AddressType {
  if (v === undefined) return dflt;
  const s = strArg(v, '');
  const t = ADDRESS_TYPE_NAMES[s];
  if (!t) throw new RpcError(-5, `Unknown address type '${s}'`);
  return t;
}

/** A short help text for helper methods (the contract methods carry Core's verbatim help). */
function help(name: string, args: ArgSpec[]): string {
  return `${name} ${args.map((a) => (a.required ? `"${a.name}"` : `( ${a.name} )`)).join(' ')}`.trim() + '\n';
}

/** Runs a shared/bitcoin descriptor RPC, turning its errors into RPC errors with Core's codes. */
function descriptorCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DescriptorRpcError) throw new RpcError(e.code, e.message);
    throw e;
  }
}

/** A double written as Core's UniValue writes it (`%.16g`, e.g. `4.656542373906925e-10`). */
export function coreDouble(d: number): RawJson {
  if (!Number.isFinite(d)) throw new TypeError('non-finite double');
  if (d === 0) return new RawJson('0');
  const [mant = '', expText = '0'] = d.toExponential(15).split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const m = mant.includes('.') ? mant.replace(/\.?0+$/, '') : mant;
    return new RawJson(`${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`);
  }
  const fixed = d.toFixed(Math.max(0, 15 - exp));
  return new RawJson(fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed);
}

/** GetDifficulty (rpc/blockchain.cpp). */
export function difficultyOfBits(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

/** GetBlockProof (chain.cpp): ~target / (target + 1) + 1. */
function blockProof(bits: number): bigint {
  const target = bitsToTarget(bits);
  if (target <= 0n) return 0n;
  return ((1n << 256n) - 1n - target) / (target + 1n) + 1n;
}

const hex64 = (n: bigint): string => n.toString(16).padStart(64, '0');
const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** A uint256 hex (display order) as its internal byte order, for Core's `uint256 <` comparisons. */
const internalOrder = (hex: string): string => (hex.match(/../g) ?? []).reverse().join('');

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/** The block as Core serializes it (header, tx count, transactions with witness). */
export function serializeBlock(block: ChainBlock): Uint8Array {
  const count = compactSize(block.txs.length);
  const out = new Uint8Array(block.header.length + count.length + block.txs.reduce((a, t) => a + t.raw.length, 0));
  out.set(block.header, 0);
  out.set(count, block.header.length);
  let o = block.header.length + count.length;
  for (const t of block.txs) {
    out.set(t.raw, o);
    o += t.raw.length;
  }
  return out;
}

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

export interface NodeOptions {
  network?: Network;
  /** Deterministic key material: same seed → same wallets and chain. */
  seed: string;
  chain?: Chain;
}

export class DevnetNode {
  readonly chain: Chain;
  readonly network: Network;
  readonly wallets = new Map<string, Wallet>();
  /** Wallets that exist "on disk" but are not loaded (unloadwallet). */
  private readonly unloaded = new Map<string, Wallet>();
  private readonly scriptAddress = new Map<string, string | null>();
  private readonly bookOrder = new WeakMap<Wallet, { size: number; rows: ReadonlyArray<{ address: string; e: { label: string }; hex: string }> }>();
  private readonly seed: string;
  /** Chain height when each mempool transaction entered the mempool (entryToJSON `height`). */
  private readonly entryHeight = new Map<string, number>();
  /** The mempool sequence (getrawmempool mempool_sequence): +1 per addition and per removal. */
  private mempoolSequence = 1;
  /** Cumulative chain work by height (the devnet's chain never reorganizes). */
  private readonly chainWork: bigint[] = [];

  constructor(opts: NodeOptions) {
    this.network = opts.network ?? REGTEST;
    this.seed = opts.seed;
    this.chain = opts.chain ?? new Chain();
    this.chain.onChange((ev) => {
      const txs = ev.type === 'block' ? ev.block.txs : [ev.tx];
      const when = ev.type === 'block' ? ev.block.time : this.chain.clock();
      for (const w of this.wallets.values()) for (const tx of txs) w.considerTx(tx, when);
    });
    this.chain.onChange((ev) => {
      if (ev.type === 'tx') {
        this.entryHeight.set(ev.tx.txid, this.chain.tipHeight());
        this.mempoolSequence++;
        return;
      }
      for (const tx of ev.block.txs) {
        if (this.entryHeight.delete(tx.txid)) this.mempoolSequence++;
      }
    });
  }

  walletSeed(name: string): Uint8Array {
    return sha256(utf8ToBytes(`spyglass-devnet/${this.seed}/wallet/${name}`));
  }

  createWallet(name: string, opts: { disablePrivateKeys?: boolean; blank?: boolean } = {}): Wallet {
    if (this.wallets.has(name) || this.unloaded.has(name)) {
      throw new RpcError(-4, `Wallet file verification failed. Failed to create database path '${name}'. Database already exists.`);
    }
    const w = new Wallet(name, this.network, this.chain, {
      disablePrivateKeys: opts.disablePrivateKeys ?? false,
      blank: opts.blank ?? false,
      seed: this.walletSeed(name),
    });
    this.wallets.set(name, w);
    return w;
  }

  /** Core's GetWalletForJSONRPCRequest. */
  selectWallet(ctx: RpcContext): Wallet {
    if (ctx.walletPath !== null) {
      const w = this.wallets.get(ctx.walletPath);
      if (!w) throw new RpcError(-18, 'Requested wallet does not exist or is not loaded');
      return w;
    }
    if (this.wallets.size === 1) return [...this.wallets.values()][0]!;
    if (this.wallets.size === 0) {
      throw new RpcError(
        -18,
        'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)',
      );
    }
    throw new RpcError(
      -19,
      'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.',
    );
  }

  /** Mines `n` blocks to `script`; returns their hashes. */
  mine(n: number, script: Uint8Array): string[] {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) hashes.push(this.chain.mineBlock(script).hash);
    return hashes;
  }

  private decodeAddressOrThrow(address: string, code = -5): Uint8Array {
    const d = decodeDestination(address, this.network);
    if (!d.ok) throw new RpcError(code, d.error || 'Invalid address');
    return d.script;
  }

  // ---------------------------------------------------------------- wallet methods
  getAddressInfo(w: Wallet, address: string): unknown {
    const d = decodeDestination(address, this.network);
    if (!d.ok) throw new RpcError(-5, d.error || 'Invalid address');
    const canonical = encodeDestination(d.dest, this.network);
    const entry = w.lookup(d.script);
    const book = w.addressBook.get(canonical);
    return addressInfo({
      address: canonical,
      network: this.network,
      wallet: entry
        ? {
            descriptor: entry.d.desc,
            index: entry.index,
            timestamp: entry.d.timestamp,
            label: book ? book.label : null,
          }
        : undefined,
      label: book ? book.label : null,
    });
  }

  listReceivedByAddress(
    w: Wallet,
    o: { minconf: number; includeEmpty: boolean; filter: string | null; includeImmatureCoinbase: boolean },
  ): RawJson {
    let filterHex: string | null = null;
    if (o.filter !== null && o.filter !== '') {
      const d = decodeDestination(o.filter, this.network);
      if (!d.ok) throw new RpcError(-4, 'address_filter parameter was invalid');
      filterHex = bytesToHex(d.script);
    }
    // Tally received amounts per address.
    const tally = new Map<string, { amount: bigint; conf: number; txids: string[] }>();
    for (const txid of w.txs.keys()) {
      const found = this.chain.findTx(txid);
      if (!found) continue;
      const tx = found.tx;
      const depth = w.depth(txid);
      if (tx.coinbase && depth < 1) continue;
      if (tx.coinbase && depth < 100 && !o.includeImmatureCoinbase) continue;
      if (depth < o.minconf) continue;
      for (const out of tx.vout) {
        const hex = bytesToHex(out.script);
        if (filterHex !== null && filterHex !== hex) continue;
        const addr = this.addressOfScript(hex, out.script);
        if (addr === null || !w.isMine(out.script)) continue;
        const t = tally.get(addr) ?? { amount: 0n, conf: Number.MAX_SAFE_INTEGER, txids: [] };
        t.amount += out.value;
        t.conf = Math.min(t.conf, depth);
        t.txids.push(txid);
        tally.set(addr, t);
      }
    }
    // Rows come from the address book, in CTxDestination order; written straight to JSON text (the
    // bytes writeJson would write for {address, amount, confirmations, label, txids}).
    const parts: string[] = [];
    for (const r of this.addressBookOrder(w)) {
      if (filterHex !== null && filterHex !== r.hex) continue;
      const t = tally.get(r.address);
      if (!t && !o.includeEmpty) continue;
      parts.push(
        `{"address":${jsonString(r.address)},"amount":${formatBtc(t ? t.amount : 0n)},"confirmations":${JSON.stringify(t ? t.conf : 0)}` +
          `,"label":${jsonString(r.e.label)},"txids":[${t ? t.txids.map((x) => jsonString(x)).join(',') : ''}]}`,
      );
    }
    return new RawJson(`[${parts.join(',')}]`);
  }

  /**
   * ExtractDestination + EncodeDestination of a script (null: no address), remembered by script hex:
   * a pure function of the script on this node's network, asked for every output of every call of
   * listreceivedbyaddress and listunspent. The memo is emptied when it grows past 1M scripts.
   */
  private addressOfScript(hex: string, script: Uint8Array): string | null {
    let a = this.scriptAddress.get(hex);
    if (a === undefined) {
      const dest = extractDestination(script);
      a = dest ? encodeDestination(dest, this.network) : null;
      if (this.scriptAddress.size >= 1_000_000) this.scriptAddress.clear();
      this.scriptAddress.set(hex, a);
    }
    return a;
  }

  /**
   * The wallet's address book entries that decode, in CTxDestination order (listreceivedbyaddress),
   * kept between calls while the book's size is unchanged: entries are only ever added (setAddressBook
   * updates an entry's label in place), so the same size means the same addresses and entry objects.
   */
  private addressBookOrder(w: Wallet): ReadonlyArray<{ address: string; e: { label: string }; hex: string }> {
    const cached = this.bookOrder.get(w);
    if (cached !== undefined && cached.size === w.addressBook.size) return cached.rows;
    const rows = [...w.addressBook.entries()]
      .map(([address, e]) => ({ address, e, dest: decodeDestination(address, this.network) }))
      .filter((r) => r.dest.ok)
      .sort((a, b) => (a.dest.ok && b.dest.ok ? compareDestinations(a.dest.dest, b.dest.dest) : 0))
      .map((r) => ({ address: r.address, e: r.e, hex: r.dest.ok ? bytesToHex(r.dest.script) : '' }));
    this.bookOrder.set(w, { size: w.addressBook.size, rows });
    return rows;
  }

  /**
   * getwalletinfo as Core v30 writes it for a descriptor wallet [inferred: no recording; fields and
   * order from wallet/rpc/wallet.cpp]. `txcount` is the number of wallet transactions (mapWallet:
   * every transaction paying to or spending from the wallet) and `lastprocessedblock` the tip the
   * wallet has processed (the devnet's wallets process each block as it connects) — together what a
   * client compares to learn that nothing in the wallet changed.
   */
  private walletInfo(w: Wallet): Record<string, unknown> {
    let keypool = 0;
    let keypoolInternal = 0;
    let hasInternal = false;
    let birth = Number.MAX_SAFE_INTEGER;
    for (const d of w.descriptors) {
      birth = Math.min(birth, d.timestamp);
      if (!d.active || !d.desc.isRange()) continue;
      const left = Math.max(0, d.rangeEnd + 1 - d.nextIndex);
      if (d.internal) {
        hasInternal = true;
        keypoolInternal += left;
      } else {
        keypool += left;
      }
    }
    const flags: string[] = [];
    if (w.disablePrivateKeys) flags.push('disable_private_keys');
    if (w.blank) flags.push('blank_wallet');
    flags.push('descriptor_wallet', 'last_hardened_xpub_cached');
    const tip = this.chain.tip();
    return {
      walletname: w.name,
      walletversion: 169900,
      format: 'sqlite',
      txcount: w.txs.size,
      keypoolsize: keypool,
      ...(hasInternal ? { keypoolsize_hd_internal: keypoolInternal } : {}),
      private_keys_enabled: !w.disablePrivateKeys,
      avoid_reuse: false,
      scanning: false,
      descriptors: true,
      external_signer: false,
      blank: w.blank,
      ...(birth !== Number.MAX_SAFE_INTEGER ? { birthtime: birth } : {}),
      flags,
      lastprocessedblock: { hash: tip.hash, height: this.chain.tipHeight() },
    };
  }

  // ---------------------------------------------------------------- chain methods
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
      verificationprogress: 1,
      initialblockdownload: tip.height === 0,
      chainwork: chainwork.toString(16).padStart(64, '0'),
      size_on_disk: this.chain.blocks.reduce((s, b) => s + b.size, 0),
      pruned: false,
      warnings: [],
    };
  }

  networkInfo(): unknown {
    return {
      version: NODE_VERSION,
      subversion: NODE_SUBVERSION,
      protocolversion: 70016,
      localservices: '0000000000000c09',
      localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
      localrelay: true,
      timeoffset: 0,
      networkactive: true,
      connections: 0,
      connections_in: 0,
      connections_out: 0,
      networks: [],
      relayfee: btcJson(100n),
      incrementalfee: btcJson(100n),
      localaddresses: [],
      warnings: [],
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

  // ---------------------------------------------------------------- blocks, mempool, UTXOs (Core v30 shapes)
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

  private blockOrThrow(hash: string): ChainBlock {
    const block = this.chain.blockByHash(hash);
    if (!block) throw new RpcError(-5, 'Block not found');
    return block;
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
    const ancestors = DevnetNode.closure(info, e.tx.txid, 'parents');
    const descendants = DevnetNode.closure(info, e.tx.txid, 'children');
    const sum = (set: Set<string>, f: (m: MempoolInfo) => bigint): bigint => [...set].reduce((a, t) => a + f(info.get(t)!), 0n);
    const signals = (m: MempoolInfo): boolean => m.tx.vin.some((i) => i.sequence >>> 0 < 0xfffffffe);
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
      fees: {
        base: btcJson(e.fee),
        modified: btcJson(e.fee),
        ancestor: btcJson(sum(ancestors, (m) => m.fee)),
        descendant: btcJson(sum(descendants, (m) => m.fee)),
      },
      depends: [...e.parents].sort(),
      spentby: [...e.children].sort((a, b) => (internalOrder(a) < internalOrder(b) ? -1 : 1)),
      'bip125-replaceable': [...ancestors].some((t) => signals(info.get(t)!)),
      // A node without peers never gets its own transactions acknowledged.
      unbroadcast: true,
    };
  }

  /** Mempool txids in Core's queryHashes order: ancestor count, then fee rate (highest first), then hash. */
  private sortedMempool(info: Map<string, MempoolInfo>): MempoolInfo[] {
    const count = new Map([...info.keys()].map((t) => [t, DevnetNode.closure(info, t, 'parents').size]));
    return [...info.values()].sort((a, b) => {
      const d = count.get(a.tx.txid)! - count.get(b.tx.txid)!;
      if (d !== 0) return d;
      const f = a.fee * BigInt(b.vsize) - b.fee * BigInt(a.vsize);
      if (f !== 0n) return f > 0n ? -1 : 1;
      return internalOrder(b.tx.txid) < internalOrder(a.tx.txid) ? -1 : 1;
    });
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

  sendRawTransaction(hex: string, maxFeeRate: bigint): string {
    let tx;
    try {
      tx = parseChainTx(hexToBytes(hex));
    } catch {
      throw new RpcError(-22, 'TX decode failed. Make sure the tx has at least one input.');
    }
    try {
      return this.chain.acceptToMempool(tx, { maxFeeRateSatPerKvB: maxFeeRate }).txid;
    } catch (e) {
      if (e instanceof ChainError) throw new RpcError(e.code, e.message);
      throw e;
    }
  }

  // ---------------------------------------------------------------- registration
  methods(): RpcMethodSpec[] {
    const m = (
      name: string,
      args: ArgSpec[],
      handler: (a: (UValue | undefined)[], ctx: RpcContext) => unknown,
      helpText?: string,
    ): RpcMethodSpec => ({
      name,
      args,
      help: helpText ?? help(name, args),
      handler: (a, ctx) => {
        try {
          return handler(a, ctx);
        } catch (e) {
          if (e instanceof WalletError) throw new RpcError(e.code, e.message);
          throw e;
        }
      },
    });

    return [
      m('getaddressinfo', [arg('address', 'str', true)], (a, ctx) => this.getAddressInfo(this.selectWallet(ctx), strArg(a[0], '')), HELP_GETADDRESSINFO),
      m(
        'listreceivedbyaddress',
        [arg('minconf', 'num'), arg('include_empty', 'bool'), arg('include_watchonly', 'bool'), arg('address_filter', 'str'), arg('include_immature_coinbase', 'bool')],
        (a, ctx) => {
          const w = this.selectWallet(ctx);
          return this.listReceivedByAddress(w, {
            minconf: intArg(a[0], 1),
            includeEmpty: boolArg(a[1], false),
            filter: a[3] === undefined ? null : strArg(a[3], ''),
            includeImmatureCoinbase: boolArg(a[4], false),
          });
        },
      ),
      m(
        'createwallet',
        [
          arg('wallet_name', 'str', true),
          arg('disable_private_keys', 'bool'),
          arg('blank', 'bool'),
          arg('passphrase', 'str'),
          arg('avoid_reuse', 'bool'),
          arg('descriptors', 'bool'),
          arg('load_on_startup', 'bool'),
          arg('external_signer', 'bool'),
        ],
        (a) => {
          const name = strArg(a[0], '');
          if (a[5] !== undefined && !boolArg(a[5], true)) {
            throw new RpcError(-4, 'descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.');
          }
          const w = this.createWallet(name, { disablePrivateKeys: boolArg(a[1], false), blank: boolArg(a[2], false) });
          return { name: w.name };
        },
      ),
      m('loadwallet', [arg('filename', 'str', true), arg('load_on_startup', 'bool')], (a) => {
        const name = strArg(a[0], '');
        if (this.wallets.has(name)) throw new RpcError(-35, `Wallet "${name}" is already loaded.`);
        const w = this.unloaded.get(name);
        if (!w) throw new RpcError(-18, `Wallet file verification failed. Failed to load database path '${name}'. Path does not exist.`);
        this.unloaded.delete(name);
        this.wallets.set(name, w);
        w.rescan();
        return { name };
      }),
      m('unloadwallet', [arg('wallet_name', 'str'), arg('load_on_startup', 'bool')], (a, ctx) => {
        const name = a[0] !== undefined ? strArg(a[0], '') : this.selectWallet(ctx).name;
        const w = this.wallets.get(name);
        if (!w) throw new RpcError(-18, 'Requested wallet does not exist or is not loaded');
        this.wallets.delete(name);
        this.unloaded.set(name, w);
        return {};
      }),
      m('listwallets', [], () => [...this.wallets.keys()]),
      m('getwalletinfo', [], (_a, ctx) => this.walletInfo(this.selectWallet(ctx))),
      m('importdescriptors', [arg('requests', 'arr', true)], (a, ctx) => this.importDescriptors(this.selectWallet(ctx), a[0]!)),
      m('listdescriptors', [arg('private', 'bool')], (a, ctx) => {
        const w = this.selectWallet(ctx);
        if (boolArg(a[0], false)) throw new RpcError(-4, 'Can\'t get descriptor string.');
        return { wallet_name: w.name, descriptors: w.publicDescriptors() };
      }),
      m('getnewaddress', [arg('label', 'str'), arg('address_type', 'str')], (a, ctx) => {
        const w = this.selectWallet(ctx);
        const label = strArg(a[0], '');
        if (label === '*') throw new RpcError(-11, 'Invalid label name');
        const addr = w.nextAddress(parseAddressType(a[1], 'bech32'), false);
        w.setAddressBook(addr, label, 'receive');
        return addr;
      }),
      m('getrawchangeaddress', [arg('address_type', 'str')], (a, ctx) => {
        const w = this.selectWallet(ctx);
        return w.nextAddress(parseAddressType(a[0], 'bech32'), true);
      }),
      m('setlabel', [arg('address', 'str', true), arg('label', 'str', true)], (a, ctx) => {
        const w = this.selectWallet(ctx);
        const address = strArg(a[0], '');
        const d = decodeDestination(address, this.network);
        if (!d.ok) throw new RpcError(-5, 'Invalid Bitcoin address');
        const label = strArg(a[1], '');
        if (label === '*') throw new RpcError(-11, 'Invalid label name');
        w.setAddressBook(encodeDestination(d.dest, this.network), label, w.isMine(d.script) ? 'receive' : 'send');
        return null;
      }),
      m('generatetoaddress', [arg('nblocks', 'num', true), arg('address', 'str', true), arg('maxtries', 'num')], (a) => {
        const n = intArg(a[0], 0);
        const address = strArg(a[1], '');
        const d = decodeDestination(address, this.network);
        if (!d.ok) throw new RpcError(-5, 'Error: Invalid address');
        return this.mine(Math.max(0, n), d.script);
      }),
      m(
        'sendtoaddress',
        [
          arg('address', 'str', true),
          arg('amount', 'amount', true),
          arg('comment', 'str'),
          arg('comment_to', 'str'),
          arg('subtractfeefromamount', 'bool'),
          arg('replaceable', 'bool'),
          arg('conf_target', 'num'),
          arg('estimate_mode', 'str'),
          arg('avoid_reuse', 'bool'),
          arg('fee_rate', 'amount'),
          arg('verbose', 'bool'),
        ],
        (a, ctx) => {
          const w = this.selectWallet(ctx);
          const address = strArg(a[0], '');
          const d = decodeDestination(address, this.network);
          if (!d.ok) throw new RpcError(-5, d.error || 'Invalid address');
          const amount = amountFromValue(a[1]!);
          if (amount <= 0n) throw new RpcError(-3, 'Invalid amount for send');
          let feeRate = 20n; // -fallbackfee=0.0002 BTC/kvB
          if (a[9] !== undefined) {
            const r = parseFixedPoint(a[9].t === 'num' || a[9].t === 'str' ? a[9].v : '', 3);
            if (r === null || r < 1000n) throw new RpcError(-3, 'Invalid amount');
            feeRate = (r + 999n) / 1000n;
          }
          const tx = w.createTransaction([{ script: d.script, value: amount }], {
            feeRate,
            subtractFeeFromOutputs: boolArg(a[4], false) ? [0] : [],
            replaceable: boolArg(a[5], true),
          });
          const txid = w.broadcast(tx);
          // Like Core, the recipient enters the sender's address book (purpose "send").
          const canonical = encodeDestination(d.dest, this.network);
          if (!w.addressBook.has(canonical)) w.setAddressBook(canonical, '', 'send');
          return boolArg(a[10], false) ? { txid, fee_reason: 'Fallback fee' } : txid;
        },
      ),
      m('listunspent', [arg('minconf', 'num'), arg('maxconf', 'num'), arg('addresses', 'arr'), arg('include_unsafe', 'bool'), arg('query_options', 'obj')], (a, ctx) => {
        const w = this.selectWallet(ctx);
        const minconf = intArg(a[0], 1);
        const maxconf = intArg(a[1], 9_999_999);
        let filter: Set<string> | null = null;
        if (a[2] !== undefined && a[2].t === 'arr') {
          filter = new Set();
          for (const v of a[2].v) {
            const s = strArg(v, '');
            const d = decodeDestination(s, this.network);
            if (!d.ok) throw new RpcError(-5, `Invalid Bitcoin address: ${s}`);
            if (filter.has(bytesToHex(d.script))) throw new RpcError(-8, `Invalid parameter, duplicated address: ${s}`);
            filter.add(bytesToHex(d.script));
          }
        }
        // Written straight to JSON text (the same bytes writeJson would write for the entry objects,
        // keys in Core's order, absent members skipped): what depends only on the script — address,
        // label, scripts, descriptors — is worked out once per script, not once per output.
        const perScript = new Map<string, { mid: string; tail: string }>();
        const parentText = new Map<object, string>();
        const spendable = w.hasKeys() ? 'true' : 'false';
        const parts: string[] = [];
        for (const u of w.unspent(minconf, maxconf)) {
          const hex = bytesToHex(u.script);
          if (filter && !filter.has(hex)) continue;
          let c = perScript.get(hex);
          if (c === undefined) {
            const address = this.addressOfScript(hex, u.script) ?? undefined;
            const entry = w.lookup(u.script);
            const book = address ? w.addressBook.get(address) : undefined;
            const desc = entry?.d.desc;
            const solvable = desc ? desc.isSolvable() : false;
            let parent = '[]';
            if (desc) {
              let t = parentText.get(desc);
              if (t === undefined) parentText.set(desc, (t = `[${jsonString(desc.toString())}]`));
              parent = t;
            }
            const label = book?.label;
            const redeem = entry?.expansion.redeemScript;
            const witness = entry?.expansion.witnessScript;
            c = {
              mid:
                (address === undefined ? '' : `,"address":${jsonString(address)}`) +
                (label === undefined ? '' : `,"label":${jsonString(label)}`) +
                (redeem ? `,"redeemScript":"${bytesToHex(redeem)}"` : '') +
                (witness ? `,"witnessScript":"${bytesToHex(witness)}"` : '') +
                `,"scriptPubKey":"${hex}","amount":`,
              tail:
                `,"spendable":${spendable},"solvable":${solvable ? 'true' : 'false'}` +
                (desc && solvable ? `,"desc":${jsonString(desc.expandedString(entry!.index ?? 0))}` : '') +
                `,"parent_descs":${parent},"safe":true}`,
            };
            perScript.set(hex, c);
          }
          parts.push(`{"txid":${jsonString(u.txid)},"vout":${JSON.stringify(u.vout)}${c.mid}${formatBtc(u.value)},"confirmations":${JSON.stringify(u.confirmations)}${c.tail}`);
        }
        return new RawJson(`[${parts.join(',')}]`);
      }),
      m('getblockchaininfo', [], () => this.blockchainInfo()),
      m('getblockcount', [], () => this.chain.tipHeight()),
      m('getbestblockhash', [], () => this.chain.tip().hash),
      m('getblockhash', [arg('height', 'num', true)], (a) => {
        const h = intArg(a[0], 0);
        const b = this.chain.blockAt(h);
        if (!b) throw new RpcError(-8, 'Block height out of range');
        return b.hash;
      }),
      m('getnetworkinfo', [], () => this.networkInfo()),
      m('getrawtransaction', [arg('txid', 'str_hex', true), arg('verbosity', 'any'), arg('blockhash', 'str_hex')], (a) => {
        const txid = parseHashV(a[0], 'parameter 1');
        const verbosity = parseVerbosity(a[1], 0);
        const blockhash = a[2] === undefined ? null : parseHashV(a[2], 'parameter 3');
        return this.rawTransaction(txid, verbosity, blockhash);
      }),
      m(
        'getblock',
        [arg('blockhash', 'str_hex', true), arg('verbosity|verbose', 'any')],
        (a) => {
          const hash = parseHashV(a[0], 'blockhash');
          const verbosity = parseVerbosity(a[1], 1);
          return this.blockJson(this.blockOrThrow(hash), verbosity);
        },
        HELP_GETBLOCK,
      ),
      m(
        'getblockheader',
        [arg('blockhash', 'str_hex', true), arg('verbose', 'bool')],
        (a) => {
          const block = this.blockOrThrow(parseHashV(a[0], 'hash'));
          return boolArg(a[1], true) ? this.blockHeaderJson(block) : bytesToHex(block.header);
        },
        HELP_GETBLOCKHEADER,
      ),
      m(
        'getrawmempool',
        [arg('verbose', 'bool'), arg('mempool_sequence', 'bool')],
        (a) => this.rawMempool(boolArg(a[0], false), boolArg(a[1], false)),
        HELP_GETRAWMEMPOOL,
      ),
      m('getmempoolentry', [arg('txid', 'str_hex', true)], (a) => this.mempoolEntry(parseHashV(a[0], 'txid')), HELP_GETMEMPOOLENTRY),
      m(
        'gettxout',
        [arg('txid', 'str', true), arg('n', 'num', true), arg('include_mempool', 'bool')],
        (a) => this.txOut(parseHashV(a[0], 'txid'), intArg(a[1], 0, 'uint32'), boolArg(a[2], true)),
        HELP_GETTXOUT,
      ),
      m('sendrawtransaction', [arg('hexstring', 'str_hex', true), arg('maxfeerate', 'amount'), arg('maxburnamount', 'amount')], (a) => {
        const hex = strArg(a[0], '');
        const rate = a[1] === undefined ? 10_000_000n : amountFromValue(a[1]);
        return this.sendRawTransaction(hex, rate);
      }),
      m('getdescriptorinfo', [arg('descriptor', 'str', true)], (a) => descriptorCall(() => getDescriptorInfo(strArg(a[0], ''), this.network))),
      m('deriveaddresses', [arg('descriptor', 'str', true), arg('range', 'any')], (a) =>
        descriptorCall(() => deriveAddresses(strArg(a[0], ''), this.network, a[1] === undefined ? undefined : toPlain(a[1]))),
      ),
    ];
  }

  importDescriptors(w: Wallet, requests: UValue): unknown[] {
    if (requests.t !== 'arr') throw new RpcError(-3, 'JSON value of type object is not of expected type array');
    const results: unknown[] = [];
    for (const req of requests.v) {
      try {
        if (req.t !== 'obj') throw new RpcError(-3, `JSON value of type ${UTYPE_NAME[req.t]} is not of expected type object`);
        const get = (k: string): UValue | undefined => {
          const i = req.k.indexOf(k);
          return i < 0 ? undefined : req.v[i];
        };
        const descText = get('desc');
        if (descText === undefined || descText.t !== 'str') throw new RpcError(-8, 'Descriptor not found.');
        let desc;
        try {
          desc = parseDescriptor(descText.v, this.network, { requireChecksum: true });
        } catch (e) {
          throw new RpcError(-5, (e as Error).message);
        }
        const active = boolArg(get('active'), false);
        const internal = boolArg(get('internal'), false);
        const labelV = get('label');
        const label = labelV === undefined ? undefined : strArg(labelV, '');
        const tsV = get('timestamp');
        if (tsV === undefined) throw new RpcError(-8, 'Missing required timestamp field for key');
        let timestamp: number;
        if (tsV.t === 'str' && tsV.v === 'now') timestamp = this.chain.medianTimePast();
        else if (tsV.t === 'num') timestamp = Math.max(intArg(tsV, 0, 'int64'), this.chain.blockAt(0)!.time);
        else throw new RpcError(-3, `Expected number or "now" timestamp value for key. got type ${UTYPE_NAME[tsV.t]}`);
        let range: [number, number] = [0, w.keypool - 1];
        const warnings: string[] = [];
        const rangeV = get('range');
        if (desc.isRange()) {
          if (rangeV !== undefined) {
            if (rangeV.t === 'num') range = [0, intArg(rangeV, 0)];
            else if (rangeV.t === 'arr' && rangeV.v.length === 2) range = [intArg(rangeV.v[0], 0), intArg(rangeV.v[1], 0)];
            else throw new RpcError(-1, 'Range must be specified as end or as [begin,end]');
            if (range[0] < 0 || range[1] < 0) throw new RpcError(-8, 'Range should be greater or equal than 0');
            if (range[0] > range[1]) throw new RpcError(-8, 'Range specified as [begin,end] must not have begin after end');
          } else {
            warnings.push('Range not given, using default keypool range');
          }
          if (label !== undefined) throw new RpcError(-8, 'Ranged descriptors should not have a label');
        } else {
          if (rangeV !== undefined) throw new RpcError(-8, 'Range should not be specified for an un-ranged descriptor');
          if (active) throw new RpcError(-8, 'Active descriptors must be ranged');
        }
        if (active && internal && label !== undefined) throw new RpcError(-8, 'Internal addresses should not have a label');
        if (w.hasKeys() && !desc.hasPrivateKeys) {
          throw new RpcError(-4, 'Cannot import descriptor without private keys to a wallet with private keys enabled');
        }
        if (!w.hasKeys() && desc.hasPrivateKeys) {
          throw new RpcError(-4, 'Cannot import private keys to a wallet with private keys disabled');
        }
        const typeOf = (): AddressType | null => {
          const text = desc.toString();
          if (text.startsWith('pkh(')) return 'legacy';
          if (text.startsWith('sh(wpkh(')) return 'p2sh-segwit';
          if (text.startsWith('wpkh(')) return 'bech32';
          if (text.startsWith('tr(')) return 'bech32m';
          return null;
        };
        w.addDescriptor(desc, { active, internal, addressType: active ? typeOf() : null, range, timestamp, label });
        if (desc.isRange() && active) {
          const wd = w.descriptors.find((d) => d.desc.toString() === desc.toString());
          if (wd) wd.nextIndex = Math.max(wd.nextIndex, range[0]);
        }
        results.push(warnings.length ? { success: true, warnings } : { success: true });
      } catch (e) {
        if (!(e instanceof RpcError)) throw e;
        results.push({ success: false, error: { code: e.code, message: e.message } });
      }
    }
    return results;
  }

  /** Checks that an address is valid for this node's network (used by the CLI and scenarios). */
  scriptFor(address: string): Uint8Array {
    return this.decodeAddressOrThrow(address);
  }
}

