/**
 * A descriptor wallet with Bitcoin Core's semantics (v30: descriptor wallets only): active
 * receive/change descriptors per address type, imported descriptors (ranged xpubs, `addr()`,
 * `wsh(multi)`), an address book, wallet transactions found by scanning the chain, and — for
 * wallets that hold keys — real signatures (ECDSA and Schnorr) made with @scure/btc-signer.
 */
import { HDKey } from '@scure/bip32';
import type { Network } from '../../shared/bitcoin/networks';
import { parseDescriptor, type Descriptor } from '../../shared/bitcoin/descriptor';
import { addChecksum } from '../../shared/bitcoin/descriptor-checksum';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import type { Chain } from '../chain/chain';
import { ChainError } from '../chain/chain';
import type { ChainBlock, ChainTx, OutputInfo } from '../chain/types';
import { bytesToHex, hexToBytes } from '../chain/encoding';
import { createTransaction, type SpendOptions } from './spend';
import { Ledger } from './ledger';
import { WalletScanner } from './rescan';
import { listDescriptors, publicDescriptors, type PublicDescriptor } from './descriptor-list';

export { compareDestinations } from './address-order';

export type AddressType = 'legacy' | 'p2sh-segwit' | 'bech32' | 'bech32m';

/**
 * The devnet runs like `bitcoind -keypool=100` (Core's default is 1000): deriving keys in JS costs
 * about 1 ms each, and 100 keeps wallet creation fast while behaving the same way.
 */
export const DEFAULT_KEYPOOL = 100;

/**
 * A wallet coinbase is spendable from this many confirmations on (GetBlocksToMaturity: maturity + 1);
 * the mempool already takes a spend at 100, in the block that brings the 101st.
 */
export const COINBASE_MATURITY_DEPTH = 101;


export const ADDRESS_TYPES: Record<AddressType, { purpose: number; wrap: (k: string) => string }> = {
  legacy: { purpose: 44, wrap: (k) => `pkh(${k})` },
  'p2sh-segwit': { purpose: 49, wrap: (k) => `sh(wpkh(${k}))` },
  bech32: { purpose: 84, wrap: (k) => `wpkh(${k})` },
  bech32m: { purpose: 86, wrap: (k) => `tr(${k})` },
};

export class WalletError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export interface WalletDescriptor {
  readonly desc: Descriptor;
  /** The descriptor with its private keys (listdescriptors true), when the wallet holds them. */
  readonly privateText?: string;
  readonly active: boolean;
  readonly internal: boolean;
  readonly addressType: AddressType | null;
  rangeStart: number;
  rangeEnd: number;
  nextIndex: number;
  readonly timestamp: number;
}

interface ScriptEntry {
  readonly d: WalletDescriptor;
  readonly index: number | null;
  readonly expansion: ReturnType<Descriptor['expand']>[number];
}

export interface AddressBookEntry {
  label: string;
  purpose: 'receive' | 'send';
}

const scriptKey = (s: Uint8Array): string => bytesToHex(s);

export class Wallet {
  readonly descriptors: WalletDescriptor[] = [];
  readonly addressBook = new Map<string, AddressBookEntry>();
  private readonly scripts = new Map<string, ScriptEntry>();
  /** Wallet transactions in the order the wallet first saw them (ledger.ts). */
  readonly txs: Ledger;
  /** Its rescans (rescan.ts). */
  readonly scanner: WalletScanner;
  private readonly master: HDKey | null;

  constructor(
    readonly name: string,
    readonly network: Network,
    readonly chain: Chain,
    opts: { disablePrivateKeys: boolean; blank: boolean; seed?: Uint8Array; keypool?: number },
  ) {
    this.txs = new Ledger(chain);
    this.scanner = new WalletScanner(chain, this);
    this.keypool = opts.keypool ?? DEFAULT_KEYPOOL;
    this.disablePrivateKeys = opts.disablePrivateKeys;
    this.blank = opts.blank;
    this.master = !opts.disablePrivateKeys && opts.seed ? HDKey.fromMasterSeed(opts.seed, this.network.bip32) : null;
    if (this.master && !opts.blank) this.setupDescriptors();
  }
  readonly disablePrivateKeys: boolean;
  readonly blank: boolean;
  /** Unused addresses kept derived ahead of each active descriptor (Core's -keypool). */
  readonly keypool: number;

  hasKeys(): boolean {
    return this.master !== null;
  }

  /** Core's SetupDescriptorScriptPubKeyMans: BIP44/49/84/86 receive and change descriptors. */
  private setupDescriptors(): void {
    const master = this.master!;
    const fp = master.fingerprint.toString(16).padStart(8, '0');
    const coin = this.network.chain === 'main' ? 0 : 1;
    const now = this.chain.clock();
    for (const type of Object.keys(ADDRESS_TYPES) as AddressType[]) {
      const { purpose, wrap } = ADDRESS_TYPES[type];
      const account = master.derive(`m/${purpose}'/${coin}'/0'`);
      for (const internal of [false, true]) {
        const text = wrap(`[${fp}/${purpose}h/${coin}h/0h]${account.publicExtendedKey}/${internal ? 1 : 0}/*`);
        // Core keeps the master key with the whole path: pkh(tprv…/44h/1h/0h/0/*).
        const privateText = addChecksum(wrap(`${master.privateExtendedKey}/${purpose}h/${coin}h/0h/${internal ? 1 : 0}/*`));
        this.addDescriptor(parseDescriptor(text, this.network), { active: true, internal, addressType: type, range: [0, this.keypool - 1], timestamp: now, privateText });
      }
    }
  }

  /** Public descriptors, normalized, with checksums (as listdescriptors shows them, unsorted). */
  publicDescriptors(): PublicDescriptor[] {
    return publicDescriptors(this.descriptors);
  }

  /** listdescriptors (descriptor-list.ts). */
  listDescriptors(withPrivateKeys: boolean): Array<Record<string, unknown>> {
    return listDescriptors(this.descriptors, withPrivateKeys);
  }

  addDescriptor(
    desc: Descriptor,
    o: { active: boolean; internal: boolean; addressType: AddressType | null; range: [number, number]; timestamp: number; label?: string; privateText?: string; rescan?: boolean },
  ): WalletDescriptor {
    // Replace an existing descriptor with the same string (Core updates it in place).
    const text = desc.toString();
    const existing = this.descriptors.find((d) => d.desc.toString() === text);
    if (existing) {
      existing.rangeStart = Math.min(existing.rangeStart, o.range[0]);
      existing.rangeEnd = Math.max(existing.rangeEnd, o.range[1]);
      this.expandRange(existing, existing.rangeStart, existing.rangeEnd);
      return existing;
    }
    if (o.active) {
      // Only one active descriptor per (type, internal).
      for (const d of this.descriptors) {
        if (d.active && d.internal === o.internal && d.addressType === o.addressType) (d as { active: boolean }).active = false;
      }
    }
    const wd: WalletDescriptor = {
      desc,
      privateText: o.privateText,
      active: o.active,
      internal: o.internal,
      addressType: o.addressType,
      rangeStart: desc.isRange() ? o.range[0] : 0,
      rangeEnd: desc.isRange() ? o.range[1] : 0,
      nextIndex: desc.isRange() ? o.range[0] : 0,
      timestamp: o.timestamp,
    };
    this.descriptors.push(wd);
    if (desc.isRange()) this.expandRange(wd, wd.rangeStart, wd.rangeEnd);
    else this.expandRange(wd, null, null);
    if (o.label !== undefined && !desc.isRange()) {
      for (const e of desc.expand(0)) {
        const dest = extractDestination(e.script);
        if (dest) this.setAddressBook(encodeDestination(dest, this.network), o.label, 'receive');
      }
    }
    if (o.rescan !== false) this.rescan({ fromTime: o.timestamp });
    return wd;
  }

  private expandRange(wd: WalletDescriptor, from: number | null, to: number | null): void {
    const add = (index: number | null): void => {
      for (const expansion of wd.desc.expand(index ?? 0)) {
        const k = scriptKey(expansion.script);
        if (!this.scripts.has(k)) this.scripts.set(k, { d: wd, index, expansion });
      }
    };
    if (from === null || to === null) add(null);
    else for (let i = from; i <= to; i++) add(i);
  }

  /** What the wallet knows of a script, or undefined when it is not the wallet's. */
  lookup(script: Uint8Array): ScriptEntry | undefined {
    return this.scripts.get(scriptKey(script));
  }

  isMine(script: Uint8Array): boolean {
    return this.scripts.has(scriptKey(script));
  }

  setAddressBook(address: string, label: string, purpose: 'receive' | 'send'): void {
    const e = this.addressBook.get(address);
    if (e) e.label = label;
    else this.addressBook.set(address, { label, purpose });
  }

  private activeDescriptor(type: AddressType, internal: boolean): WalletDescriptor | undefined {
    return this.descriptors.find((d) => d.active && d.internal === internal && d.addressType === type);
  }

  /**
   * Keeps `keypool` addresses derived past the next one (DescriptorScriptPubKeyMan::TopUp): the
   * range (inclusive) reaches nextIndex + keypool − 1.
   */
  topUp(d: WalletDescriptor): void {
    const end = d.nextIndex + this.keypool - 1;
    if (end <= d.rangeEnd) return;
    const from = d.rangeEnd + 1;
    d.rangeEnd = end;
    this.expandRange(d, from, end);
  }

  /**
   * Next unused address of the active descriptor (getnewaddress / getrawchangeaddress): Core tops the
   * keypool up first, then hands out the next index — so a descriptor in use shows keypool − 1 left.
   */
  nextAddress(type: AddressType, internal: boolean): string {
    const next = this.peekAddress(type, internal);
    next.take();
    return next.address;
  }

  /**
   * The address the active descriptor hands out next, after the keypool top-up Core does first;
   * `take()` uses it up (a change address Core reserves but leaves unused stays next).
   */
  peekAddress(type: AddressType, internal: boolean): { address: string; script: Uint8Array; take(): void } {
    const d = this.activeDescriptor(type, internal);
    if (!d) {
      // CanGetAddresses, then GetScriptPubKeyMan(type): no active descriptor at all, or none of this type.
      if (!this.descriptors.some((x) => x.active && x.internal === internal)) throw new WalletError(-4, 'Error: This wallet has no available keys');
      throw new WalletError(-12, `Error: No ${type} addresses available.`);
    }
    this.topUp(d);
    const index = d.nextIndex;
    const e = d.desc.expand(index)[0]!;
    const dest = extractDestination(e.script);
    if (!dest) throw new WalletError(-4, 'Error: Cannot derive an address');
    return {
      address: encodeDestination(dest, this.network),
      script: e.script,
      take: () => {
        if (d.nextIndex === index) d.nextIndex++;
      },
    };
  }

  /**
   * MarkUnusedAddresses: an output paying a ranged descriptor's index at or past its next index marks
   * everything up to it used; the descriptor's keypool is topped up after any payment to it.
   */
  private markUsed(tx: ChainTx): void {
    for (const o of tx.vout) {
      const entry = this.lookup(o.script);
      if (!entry || entry.index === null || !entry.d.desc.isRange()) continue;
      const d = entry.d;
      // Receiving addresses used before they were handed out (this one and those before it) enter the
      // address book, unlabelled.
      // Only an active descriptor tells whether an address is a receiving one (IsInternalScriptPubKeyMan).
      for (; d.nextIndex <= entry.index; d.nextIndex++) {
        if (d.internal || !d.active) continue;
        const dest = extractDestination(d.desc.expand(d.nextIndex)[0]!.script);
        if (!dest) continue;
        const address = encodeDestination(dest, this.network);
        if (!this.addressBook.has(address)) this.setAddressBook(address, '', 'receive');
      }
      this.topUp(d);
    }
  }

  /**
   * Finds wallet transactions in the chain (RescanFromTime: from the first block whose time, or an
   * earlier block's, reaches `fromTime` − 2 h) and in the mempool.
   */
  rescan(opts: { fromTime?: number; fromHeight?: number; toHeight?: number } = {}): { start: number; stop: number } {
    const stop = opts.toHeight ?? this.chain.tipHeight();
    const byTime = this.scanner.startForTime(opts.fromTime ?? 0);
    const start = Math.max(byTime ?? stop + 1, opts.fromHeight ?? 0);
    this.scanner.scanNow(start, stop);
    return { start: start > stop ? -1 : start, stop };
  }

  /** Adds `tx` to the wallet when it pays to or spends from the wallet (AddToWalletIfInvolvingMe). */
  considerTx(tx: ChainTx, at: { block: ChainBlock | null; rescan: boolean }): void {
    this.markUsed(tx);
    if (this.txs.has(tx.txid)) return;
    if (this.isRelevant(tx)) this.txs.add(tx, at);
  }

  /** Whether `tx` pays to or spends from the wallet. */
  isRelevant(tx: ChainTx): boolean {
    return (
      tx.vout.some((o) => this.isMine(o.script)) ||
      (!tx.coinbase &&
        tx.vin.some((i) => {
          const prev = this.chain.output(i.txid, i.vout);
          return prev !== undefined && this.isMine(prev.script);
        }))
    );
  }

  /** Depth like Core: confirmations in the chain, 0 in mempool, -1 when gone. */
  depth(txid: string): number {
    const c = this.chain.confirmations(txid);
    if (c > 0) return c;
    return this.chain.inMempool(txid) ? 0 : -1;
  }

  /** Unspent wallet outputs (listunspent), mature coinbase only. */
  unspent(minconf: number, maxconf: number): Array<OutputInfo & { confirmations: number }> {
    const out: Array<OutputInfo & { confirmations: number }> = [];
    for (const txid of this.txs.keys()) {
      const found = this.chain.findTx(txid);
      if (!found) continue;
      const depth = this.depth(txid);
      if (depth < minconf || depth > maxconf) continue;
      if (found.tx.coinbase && depth < COINBASE_MATURITY_DEPTH) continue;
      found.tx.vout.forEach((o, vout) => {
        if (!this.isMine(o.script)) return;
        if (this.chain.isSpent(txid, vout)) return;
        out.push({ ...this.chain.output(txid, vout)!, confirmations: depth });
      });
    }
    return out;
  }

  /** An unconfirmed transaction whose inputs all come from this wallet (Core's CachedTxIsTrusted). */
  isTrusted(txid: string): boolean {
    const found = this.chain.findTx(txid);
    if (!found) return false;
    if (found.block) return true;
    return found.tx.vin.every((i) => {
      const prev = this.chain.output(i.txid, i.vout);
      return prev !== undefined && this.isMine(prev.script) && (prev.height !== null || this.isTrusted(i.txid));
    });
  }

  /** Private key for a script the wallet derived from its own seed. */
  private privateKeyFor(entry: ScriptEntry, pubkey: Uint8Array): Uint8Array | undefined {
    if (!this.master) return undefined;
    const origin = entry.expansion.pubkeys.find((p) => bytesToHex(p.pubkey) === bytesToHex(pubkey))?.origin;
    if (!origin) return undefined;
    const fp = this.master.fingerprint;
    if (origin.fingerprint.length !== 4 || new DataView(origin.fingerprint.buffer, origin.fingerprint.byteOffset, 4).getUint32(0) !== fp) {
      return undefined;
    }
    let k = this.master;
    for (const step of origin.path) k = k.deriveChild(step);
    return k.privateKey ?? undefined;
  }

  /**
   * Builds, signs and returns a transaction paying `outputs` from the wallet's confirmed coins, with
   * change to a fresh change address (spend.ts). Fee rate in sat/vB.
   */
  createTransaction(outputs: Array<{ script: Uint8Array; value: bigint }>, opts: SpendOptions): ChainTx {
    if (!this.master) throw new WalletError(-4, 'Error: Private keys are disabled for this wallet');
    return createTransaction(this, this.chain, outputs, opts);
  }

  /** The private key for a coin's script of this wallet (its first key), if the wallet holds it. */
  signingKey(script: Uint8Array): Uint8Array | undefined {
    const entry = this.lookup(script);
    const pub = entry?.expansion.pubkeys[0];
    return entry && pub ? this.privateKeyFor(entry, pub.pubkey) : undefined;
  }

  /** Whether an active descriptor hands out addresses of this type. */
  hasActiveDescriptor(type: AddressType, internal: boolean): boolean {
    return this.activeDescriptor(type, internal) !== undefined;
  }

  /** Sends a signed transaction into the chain's mempool and records it. */
  broadcast(tx: ChainTx): string {
    try {
      this.chain.acceptToMempool(tx);
    } catch (e) {
      if (e instanceof ChainError) throw new WalletError(e.code, e.message);
      throw e;
    }
    this.considerTx(tx, { block: null, rescan: false });
    return tx.txid;
  }
}

export function hexScript(hex: string): Uint8Array {
  return hexToBytes(hex);
}
