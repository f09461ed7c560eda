/**
 * The devnet node (interface A): wallets and chain methods with Bitcoin Core v30's names, argument
 * rules and result shapes, registered into the JSON-RPC framework in devnet/rpc.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { UValue } from '../../shared/json';
import { UTYPE_NAME, toPlain } from '../../shared/json';
import { btcJson, parseFixedPoint } from '../../shared/amounts';
import type { Network } from '../../shared/bitcoin/networks';
import { REGTEST } from '../../shared/bitcoin/networks';
import { decodeDestination, encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { parseDescriptor, getDescriptorInfo, deriveAddresses, DescriptorRpcError } from '../../shared/bitcoin/descriptor';
import { addressInfo } from '../../shared/bitcoin/addressinfo';
import { decodeRawTransactionJson } from '../../shared/bitcoin/decode';
import { parseTx } from '../../shared/bitcoin/tx';
import { Chain, ChainError, bitsToTarget } from '../chain/chain';
import { bytesToHex, hexToBytes } from '../chain/encoding';
import { parseChainTx } from '../chain/tx';
import { RpcError, type RpcContext, type RpcMethodSpec, type ArgSpec } from '../rpc/types';
import { amountFromValue, getBool, getStr, optInt, parseHashV } from '../rpc/args';
import { HELP_GETADDRESSINFO } from '../rpc/stateless';
import { Wallet, WalletError, compareDestinations, type AddressType } from '../wallet/wallet';

export const NODE_VERSION = 309900;
export const NODE_SUBVERSION = '/Satoshi:30.99.0/';

const arg = (name: string, type: ArgSpec['type'], required = false): ArgSpec => ({ name, type, required });

const intArg = (v: UValue | undefined, dflt: number, kind: 'int' | 'int64' = 'int'): number => optInt(v, dflt, kind);
const boolArg = (v: UValue | undefined, dflt: boolean): boolean => (v === undefined ? dflt : getBool(v));
const strArg = (v: UValue | undefined, dflt: string): string => (v === undefined ? dflt : getStr(v));

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
  private readonly seed: string;

  constructor(opts: NodeOptions) {
    this.network = opts.network ?? REGTEST;
    this.seed = opts.seed;
    this.chain = opts.chain ?? new Chain();
    this.chain.onChange((ev) => {
      const txs = ev.type === 'block' ? ev.block.txs : [ev.tx];
      const when = ev.type === 'block' ? ev.block.time : this.chain.clock();
      for (const w of this.wallets.values()) for (const tx of txs) w.considerTx(tx, when);
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
  ): unknown[] {
    let filterScript: Uint8Array | null = null;
    if (o.filter !== null && o.filter !== '') {
      const d = decodeDestination(o.filter, this.network);
      if (!d.ok) throw new RpcError(-4, 'address_filter parameter was invalid');
      filterScript = d.script;
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
        const dest = extractDestination(out.script);
        if (!dest) continue;
        if (filterScript && bytesToHex(filterScript) !== bytesToHex(out.script)) continue;
        if (!w.isMine(out.script)) continue;
        const addr = encodeDestination(dest, this.network);
        const t = tally.get(addr) ?? { amount: 0n, conf: Number.MAX_SAFE_INTEGER, txids: [] };
        t.amount += out.value;
        t.conf = Math.min(t.conf, depth);
        t.txids.push(txid);
        tally.set(addr, t);
      }
    }
    // Rows come from the address book, in CTxDestination order.
    const rows = [...w.addressBook.entries()]
      .map(([address, e]) => ({ address, e, dest: decodeDestination(address, this.network) }))
      .filter((r) => r.dest.ok)
      .sort((a, b) => (a.dest.ok && b.dest.ok ? compareDestinations(a.dest.dest, b.dest.dest) : 0));
    const result: unknown[] = [];
    for (const r of rows) {
      if (!r.dest.ok) continue;
      if (filterScript && bytesToHex(filterScript) !== bytesToHex(r.dest.script)) continue;
      const t = tally.get(r.address);
      if (!t && !o.includeEmpty) continue;
      result.push({
        address: r.address,
        amount: btcJson(t ? t.amount : 0n),
        confirmations: t ? t.conf : 0,
        label: r.e.label,
        txids: t ? t.txids : [],
      });
    }
    return result;
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
    const hex = bytesToHex(found.tx.raw);
    if (verbosity <= 0) return hex;
    const decoded = decodeRawTransactionJson(parseTx(found.tx.raw, { allowWitness: true }), this.network) as Record<string, unknown>;
    const out: Record<string, unknown> = { ...decoded, hex };
    if (found.block) {
      out.blockhash = found.block.hash;
      out.confirmations = this.chain.tipHeight() - found.block.height + 1;
      out.time = found.block.time;
      out.blocktime = found.block.time;
    }
    return out;
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
        return w
          .unspent(minconf, maxconf)
          .filter((u) => !filter || filter.has(bytesToHex(u.script)))
          .map((u) => {
            const dest = extractDestination(u.script);
            const address = dest ? encodeDestination(dest, this.network) : undefined;
            const entry = w.lookup(u.script);
            const book = address ? w.addressBook.get(address) : undefined;
            const desc = entry?.d.desc;
            return {
              txid: u.txid,
              vout: u.vout,
              address,
              label: book?.label,
              redeemScript: entry?.expansion.redeemScript ? bytesToHex(entry.expansion.redeemScript) : undefined,
              witnessScript: entry?.expansion.witnessScript ? bytesToHex(entry.expansion.witnessScript) : undefined,
              scriptPubKey: bytesToHex(u.script),
              amount: btcJson(u.value),
              confirmations: u.confirmations,
              spendable: w.hasKeys(),
              solvable: desc ? desc.isSolvable() : false,
              desc: desc && desc.isSolvable() ? desc.expandedString(entry!.index ?? 0) : undefined,
              parent_descs: desc ? [desc.toString()] : [],
              safe: true,
            };
          });
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
        let verbosity = 0;
        if (a[1] !== undefined) verbosity = a[1].t === 'bool' ? (a[1].v ? 1 : 0) : intArg(a[1], 0);
        const blockhash = a[2] === undefined ? null : parseHashV(a[2], 'parameter 3');
        return this.rawTransaction(txid, verbosity, blockhash);
      }),
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

