/**
 * The node's wallet methods with Core's names, argument rules and result shapes (wallet/rpc/*.cpp):
 * createwallet, loadwallet, unloadwallet, listwallets, getwalletinfo, importdescriptors,
 * listdescriptors, getnewaddress, getrawchangeaddress, setlabel, getaddressinfo,
 * listreceivedbyaddress, listunspent, sendtoaddress; and the descriptor helpers getdescriptorinfo,
 * deriveaddresses.
 */
import { toPlain, RawJson, jsonString } from '../../shared/json';
import { btcJson, formatBtc, parseFixedPoint } from '../../shared/amounts';
import { decodeDestination, encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { getDescriptorInfo, deriveAddresses } from '../../shared/bitcoin/descriptor';
import { addressInfo } from '../../shared/bitcoin/addressinfo';
import { bytesToHex } from '../chain/encoding';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { amountFromValue } from '../rpc/args';
import { HELP_GETADDRESSINFO } from '../rpc/stateless';
import { HELP_LISTWALLETDIR } from '../rpc/help';
import { COINBASE_MATURITY_DEPTH, compareDestinations, type Wallet } from '../wallet/wallet';
import { inferDescriptor } from '../../shared/bitcoin/infer';
import type { DevnetNode } from './node';
import { arg, boolArg, descriptorCall, intArg, method, parseAddressType, strArg } from './rpc-util';
import { importDescriptors } from './import-descriptors';
import { coreDouble } from './format';
import { FeeRpc } from './fee-rpc';

/** getwalletinfo `scanning`: false, or {duration, progress} with the progress written as Core writes doubles. */
function scanningJson(info: false | { duration: number; progress: number }): unknown {
  return info === false ? false : { duration: info.duration, progress: coreDouble(info.progress) };
}

export class WalletRpc {
  private readonly scriptAddress = new Map<string, string | null>();
  private readonly bookOrder = new WeakMap<Wallet, { size: number; rows: ReadonlyArray<{ address: string; e: { label: string }; hex: string }> }>();

  constructor(private readonly node: DevnetNode) {}

  getAddressInfo(w: Wallet, address: string): unknown {
    const d = decodeDestination(address, this.node.network);
    if (!d.ok) throw new RpcError(-5, d.error || 'Invalid address');
    const canonical = encodeDestination(d.dest, this.node.network);
    const entry = w.lookup(d.script);
    const book = w.addressBook.get(canonical);
    return addressInfo({
      address: canonical,
      network: this.node.network,
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
      const d = decodeDestination(o.filter, this.node.network);
      if (!d.ok) throw new RpcError(-4, 'address_filter parameter was invalid');
      filterHex = bytesToHex(d.script);
    }
    // Tally received amounts per address.
    const tally = new Map<string, { amount: bigint; conf: number; txids: string[] }>();
    for (const txid of w.txs.keys()) {
      const found = this.node.chain.findTx(txid);
      if (!found) continue;
      const tx = found.tx;
      const depth = w.depth(txid);
      if (tx.coinbase && depth < 1) continue;
      if (tx.coinbase && depth < COINBASE_MATURITY_DEPTH && !o.includeImmatureCoinbase) continue;
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
      a = dest ? encodeDestination(dest, this.node.network) : null;
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
      .map(([address, e]) => ({ address, e, dest: decodeDestination(address, this.node.network) }))
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
  walletInfo(w: Wallet): Record<string, unknown> {
    let keypool = 0;
    let keypoolInternal = 0;
    let birth = Number.MAX_SAFE_INTEGER;
    for (const d of w.descriptors) {
      birth = Math.min(birth, d.timestamp);
      if (!d.active || !d.desc.isRange()) continue;
      const left = Math.max(0, d.rangeEnd + 1 - d.nextIndex);
      if (d.internal) keypoolInternal += left;
      else keypool += left;
    }
    // WALLET_FLAG_TO_STRING in flag order.
    const flags = ['last_hardened_xpub_cached'];
    if (w.disablePrivateKeys) flags.push('disable_private_keys');
    if (w.blank) flags.push('blank');
    flags.push('descriptor_wallet');
    const tip = this.node.chain.tip();
    return {
      walletname: w.name,
      walletversion: 169900,
      format: 'sqlite',
      txcount: w.txs.size,
      keypoolsize: keypool,
      keypoolsize_hd_internal: keypoolInternal,
      // 31.99 dropped -paytxfee.
      paytxfee: this.node.coreVersion === '30' ? btcJson(0n) : undefined,
      private_keys_enabled: !w.disablePrivateKeys,
      avoid_reuse: false,
      scanning: scanningJson(w.scanner.info()),
      descriptors: true,
      external_signer: false,
      blank: w.blank,
      ...(birth !== Number.MAX_SAFE_INTEGER ? { birthtime: birth } : {}),
      flags,
      lastprocessedblock: { hash: tip.hash, height: this.node.chain.tipHeight() },
    };
  }

  methods(): RpcMethodSpec[] {
    const m = method;
    return [
      m('getaddressinfo', [arg('address', 'str', true)], (a, ctx) => this.getAddressInfo(this.node.selectWallet(ctx), strArg(a[0], '')), HELP_GETADDRESSINFO),
      m(
        'listreceivedbyaddress',
        [arg('minconf', 'num'), arg('include_empty', 'bool'), arg('include_watchonly', 'bool'), arg('address_filter', 'str'), arg('include_immature_coinbase', 'bool')],
        (a, ctx) => {
          const w = this.node.selectWallet(ctx);
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
          const w = this.node.createWallet(name, { disablePrivateKeys: boolArg(a[1], false), blank: boolArg(a[2], false) });
          return { name: w.name };
        },
      ),
      m('loadwallet', [arg('filename', 'str', true), arg('load_on_startup', 'bool')], (a) => {
        const name = strArg(a[0], '');
        if (this.node.wallets.has(name)) throw new RpcError(-35, `Wallet "${name}" is already loaded.`);
        const w = this.node.unloaded.get(name);
        if (!w) throw new RpcError(-18, `Wallet file verification failed. Failed to load database path '${this.node.walletPath(name)}'. Path does not exist.`);
        this.node.unloaded.delete(name);
        this.node.wallets.set(name, w);
        w.rescan();
        return { name };
      }),
      m('unloadwallet', [arg('wallet_name', 'str'), arg('load_on_startup', 'bool')], (a, ctx) => {
        let name: string;
        if (ctx.walletPath !== null) {
          if (a[0] !== undefined && strArg(a[0], '') !== ctx.walletPath) {
            throw new RpcError(-8, 'The RPC endpoint wallet and the wallet name parameter specify different wallets');
          }
          name = ctx.walletPath;
        } else {
          if (a[0] === undefined) throw new RpcError(-8, 'Either the RPC endpoint wallet or the wallet name parameter must be provided');
          name = strArg(a[0], '');
        }
        const w = this.node.wallets.get(name);
        if (!w) throw new RpcError(-18, 'Requested wallet does not exist or is not loaded');
        this.node.wallets.delete(name);
        this.node.unloaded.set(name, w);
        return {};
      }),
      m('listwallets', [], () => [...this.node.wallets.keys()]),
      // Core lists the wallets directory (loaded or not) in its directory order, each with its load warnings (none here).
      m('listwalletdir', [], () => ({ wallets: [...this.node.wallets.keys(), ...this.node.unloaded.keys()].map((name) => ({ name, warnings: [] })) }), HELP_LISTWALLETDIR),
      m('getwalletinfo', [], (_a, ctx) => this.walletInfo(this.node.selectWallet(ctx))),
      m('importdescriptors', [arg('requests', 'arr', true)], (a, ctx) => importDescriptors(this.node, this.node.selectWallet(ctx), a[0]!)),
      m('listdescriptors', [arg('private', 'bool')], (a, ctx) => {
        const w = this.node.selectWallet(ctx);
        const priv = boolArg(a[0], false);
        if (priv && w.disablePrivateKeys) throw new RpcError(-4, 'Can\'t get private descriptor string for watch-only wallets');
        return { wallet_name: w.name, descriptors: w.listDescriptors(priv) };
      }),
      m('getnewaddress', [arg('label', 'str'), arg('address_type', 'str')], (a, ctx) => {
        const w = this.node.selectWallet(ctx);
        const label = strArg(a[0], '');
        if (label === '*') throw new RpcError(-11, 'Invalid label name');
        const addr = w.nextAddress(parseAddressType(a[1], 'bech32'), false);
        w.setAddressBook(addr, label, 'receive');
        return addr;
      }),
      m('getrawchangeaddress', [arg('address_type', 'str')], (a, ctx) => {
        const w = this.node.selectWallet(ctx);
        return w.nextAddress(parseAddressType(a[0], 'bech32'), true);
      }),
      m('setlabel', [arg('address', 'str', true), arg('label', 'str', true)], (a, ctx) => {
        const w = this.node.selectWallet(ctx);
        const address = strArg(a[0], '');
        const d = decodeDestination(address, this.node.network);
        if (!d.ok) throw new RpcError(-5, 'Invalid Bitcoin address');
        const label = strArg(a[1], '');
        if (label === '*') throw new RpcError(-11, 'Invalid label name');
        w.setAddressBook(encodeDestination(d.dest, this.node.network), label, w.isMine(d.script) ? 'receive' : 'send');
        return null;
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
          const w = this.node.selectWallet(ctx);
          const address = strArg(a[0], '');
          const d = decodeDestination(address, this.node.network);
          if (!d.ok) throw new RpcError(-5, `Invalid Bitcoin address: ${address}`);
          const amount = amountFromValue(a[1]!);
          if (amount === 0n) throw new RpcError(-6, 'Transaction amount too small');
          const replaceable = boolArg(a[5], true);
          let fee: { perKvB: bigint; reason: string };
          if (a[9] !== undefined) {
            // fee_rate in sat/vB with up to 3 decimals: the same digits are sat/kvB.
            const r = parseFixedPoint(a[9].t === 'num' || a[9].t === 'str' ? a[9].v : '', 3);
            if (r === null || r < 1000n) throw new RpcError(-3, 'Invalid amount');
            fee = { perKvB: r, reason: 'Fallback fee' };
          } else {
            const target = a[6] === undefined ? undefined : this.node.feeRpc.parseTarget(a[6]);
            const mode = a[7] === undefined ? 'unset' : FeeRpc.parseMode(a[7]) ? 'conservative' : strArg(a[7], '').toLowerCase() === 'economical' ? 'economical' : 'unset';
            fee = this.node.feeRpc.walletFeeRate(target, mode, replaceable);
          }
          const tx = w.createTransaction([{ script: d.script, value: amount }], {
            feeRatePerKvB: fee.perKvB,
            subtractFeeFromOutputs: boolArg(a[4], false) ? [0] : [],
            replaceable,
          });
          const txid = w.broadcast(tx);
          // Comments stay with the wallet transaction (mapValue "comment" and "to"), when not empty.
          const wtx = w.txs.get(txid);
          if (wtx && a[2] !== undefined && strArg(a[2], '') !== '') wtx.mapValue.set('comment', strArg(a[2], ''));
          if (wtx && a[3] !== undefined && strArg(a[3], '') !== '') wtx.mapValue.set('to', strArg(a[3], ''));
          // Like Core, the recipient enters the sender's address book (purpose "send").
          const canonical = encodeDestination(d.dest, this.node.network);
          if (!w.addressBook.has(canonical)) w.setAddressBook(canonical, '', 'send');
          return boolArg(a[10], false) ? { txid, fee_reason: fee.reason } : txid;
        },
      ),
      m('listunspent', [arg('minconf', 'num'), arg('maxconf', 'num'), arg('addresses', 'arr'), arg('include_unsafe', 'bool'), arg('query_options', 'obj')], (a, ctx) => {
        const w = this.node.selectWallet(ctx);
        const minconf = intArg(a[0], 1);
        const maxconf = intArg(a[1], 9_999_999);
        let filter: Set<string> | null = null;
        if (a[2] !== undefined && a[2].t === 'arr') {
          filter = new Set();
          for (const v of a[2].v) {
            const s = strArg(v, '');
            const d = decodeDestination(s, this.node.network);
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
            // Core infers the output's descriptor: one the wallet cannot solve may still be (rawtr, pk).
            let descText: string | null = desc && desc.isSolvable() ? desc.expandedString(entry!.index ?? 0) : null;
            if (descText === null) {
              const inferred = inferDescriptor(u.script, this.node.network);
              if (!/^(addr|raw)\(/.test(inferred)) descText = inferred;
            }
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
              // Descriptor wallets own every script they hold as spendable (watch-only ones too).
              tail:
                `,"spendable":true,"solvable":${descText !== null ? 'true' : 'false'}` +
                (descText !== null ? `,"desc":${jsonString(descText)}` : '') +
                `,"parent_descs":${parent},"safe":`,
            };
            perScript.set(hex, c);
          }
          // Unconfirmed: the transaction's mempool ancestry (ancestorfees in satoshis); safe when the wallet trusts it.
          const anc = u.confirmations === 0 ? this.node.chain.mempoolAncestry(u.txid) : null;
          const ancestry = anc ? `,"ancestorcount":${anc.count},"ancestorsize":${anc.vsize},"ancestorfees":${anc.fees}` : '';
          const safe = u.confirmations > 0 || w.isTrusted(u.txid);
          parts.push(`{"txid":${jsonString(u.txid)},"vout":${JSON.stringify(u.vout)}${c.mid}${formatBtc(u.value)},"confirmations":${JSON.stringify(u.confirmations)}${ancestry}${c.tail}${safe}}`);
        }
        return new RawJson(`[${parts.join(',')}]`);
      }),
      m('getdescriptorinfo', [arg('descriptor', 'str', true)], (a) => descriptorCall(() => getDescriptorInfo(strArg(a[0], ''), this.node.network))),
      m('deriveaddresses', [arg('descriptor', 'str', true), arg('range', 'any')], (a) =>
        descriptorCall(() => deriveAddresses(strArg(a[0], ''), this.node.network, a[1] === undefined ? undefined : toPlain(a[1]))),
      ),
    ];
  }
}
