/**
 * The node's wallet methods with Core's names, argument rules and result shapes (wallet/rpc/*.cpp):
 * createwallet, loadwallet, unloadwallet, listwallets, getwalletinfo, importdescriptors,
 * listdescriptors, getnewaddress, getrawchangeaddress, setlabel, getaddressinfo,
 * listreceivedbyaddress, listunspent, sendtoaddress; and the descriptor helpers getdescriptorinfo,
 * deriveaddresses.
 */
import type { UValue } from '../../shared/json';
import { UTYPE_NAME, toPlain, RawJson, jsonString } from '../../shared/json';
import { formatBtc, parseFixedPoint } from '../../shared/amounts';
import { decodeDestination, encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { parseDescriptor, getDescriptorInfo, deriveAddresses } from '../../shared/bitcoin/descriptor';
import { addressInfo } from '../../shared/bitcoin/addressinfo';
import { bytesToHex } from '../chain/encoding';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { amountFromValue } from '../rpc/args';
import { HELP_GETADDRESSINFO } from '../rpc/stateless';
import { compareDestinations, type AddressType, type Wallet } from '../wallet/wallet';
import type { DevnetNode } from './node';
import { arg, boolArg, descriptorCall, intArg, method, parseAddressType, strArg } from './rpc-util';

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
    const tip = this.node.chain.tip();
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
      lastprocessedblock: { hash: tip.hash, height: this.node.chain.tipHeight() },
    };
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
          desc = parseDescriptor(descText.v, this.node.network, { requireChecksum: true });
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
        if (tsV.t === 'str' && tsV.v === 'now') timestamp = this.node.chain.medianTimePast();
        else if (tsV.t === 'num') timestamp = Math.max(intArg(tsV, 0, 'int64'), this.node.chain.blockAt(0)!.time);
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
        if (!w) throw new RpcError(-18, `Wallet file verification failed. Failed to load database path '${name}'. Path does not exist.`);
        this.node.unloaded.delete(name);
        this.node.wallets.set(name, w);
        w.rescan();
        return { name };
      }),
      m('unloadwallet', [arg('wallet_name', 'str'), arg('load_on_startup', 'bool')], (a, ctx) => {
        const name = a[0] !== undefined ? strArg(a[0], '') : this.node.selectWallet(ctx).name;
        const w = this.node.wallets.get(name);
        if (!w) throw new RpcError(-18, 'Requested wallet does not exist or is not loaded');
        this.node.wallets.delete(name);
        this.node.unloaded.set(name, w);
        return {};
      }),
      m('listwallets', [], () => [...this.node.wallets.keys()]),
      m('getwalletinfo', [], (_a, ctx) => this.walletInfo(this.node.selectWallet(ctx))),
      m('importdescriptors', [arg('requests', 'arr', true)], (a, ctx) => this.importDescriptors(this.node.selectWallet(ctx), a[0]!)),
      m('listdescriptors', [arg('private', 'bool')], (a, ctx) => {
        const w = this.node.selectWallet(ctx);
        if (boolArg(a[0], false)) throw new RpcError(-4, 'Can\'t get descriptor string.');
        return { wallet_name: w.name, descriptors: w.publicDescriptors() };
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
          const canonical = encodeDestination(d.dest, this.node.network);
          if (!w.addressBook.has(canonical)) w.setAddressBook(canonical, '', 'send');
          return boolArg(a[10], false) ? { txid, fee_reason: 'Fallback fee' } : txid;
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
      m('getdescriptorinfo', [arg('descriptor', 'str', true)], (a) => descriptorCall(() => getDescriptorInfo(strArg(a[0], ''), this.node.network))),
      m('deriveaddresses', [arg('descriptor', 'str', true), arg('range', 'any')], (a) =>
        descriptorCall(() => deriveAddresses(strArg(a[0], ''), this.node.network, a[1] === undefined ? undefined : toPlain(a[1]))),
      ),
    ];
  }
}
