/**
 * A descriptor wallet with Bitcoin Core's semantics (v30: descriptor wallets only): active
 * receive/change descriptors per address type, imported descriptors (ranged xpubs, `addr()`,
 * `wsh(multi)`), an address book, wallet transactions found by scanning the chain, and — for
 * wallets that hold keys — real signatures (ECDSA and Schnorr) made with @scure/btc-signer.
 */
import { HDKey } from '@scure/bip32';
import { Transaction } from '@scure/btc-signer';
import type { Network } from '../../shared/bitcoin/networks';
import { parseDescriptor, type Descriptor } from '../../shared/bitcoin/descriptor';
import { decodeDestination, encodeDestination, extractDestination, type Destination } from '../../shared/bitcoin/address';
import type { Chain } from '../chain/chain';
import { ChainError } from '../chain/chain';
import type { ChainTx, OutputInfo } from '../chain/types';
import { bytesToHex, hexToBytes } from '../chain/encoding';
import { parseChainTx } from '../chain/tx';

export type AddressType = 'legacy' | 'p2sh-segwit' | 'bech32' | 'bech32m';

/**
 * The devnet runs like `bitcoind -keypool=100` (Core's default is 1000): deriving keys in JS costs
 * about 1 ms each, and 100 keeps wallet creation fast while behaving the same way.
 */
export const DEFAULT_KEYPOOL = 100;

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

/** CTxDestination variant order in Core (addresstype.h), used for address book ordering. */
const DEST_ORDER: Record<Destination['type'], number> = {
  pubkey: 1,
  pkhash: 2,
  scripthash: 3,
  witness_v0_scripthash: 4,
  witness_v0_keyhash: 5,
  witness_v1_taproot: 6,
  anchor: 7,
  witness_unknown: 8,
};

function destBytes(d: Destination): Uint8Array {
  switch (d.type) {
    case 'pkhash':
    case 'scripthash':
      return d.hash;
    case 'pubkey':
      return d.pubkey;
    case 'anchor':
      return new Uint8Array(0);
    case 'witness_unknown':
      return Uint8Array.from([d.version, ...d.program]);
    default:
      return d.program;
  }
}

export function compareDestinations(a: Destination, b: Destination): number {
  const t = DEST_ORDER[a.type] - DEST_ORDER[b.type];
  if (t !== 0) return t;
  const x = destBytes(a);
  const y = destBytes(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export class Wallet {
  readonly descriptors: WalletDescriptor[] = [];
  readonly addressBook = new Map<string, AddressBookEntry>();
  private readonly scripts = new Map<string, ScriptEntry>();
  /** Wallet transactions in the order the wallet first saw them. */
  readonly txs = new Map<string, { received: number }>();
  private readonly master: HDKey | null;

  constructor(
    readonly name: string,
    readonly network: Network,
    private readonly chain: Chain,
    opts: { disablePrivateKeys: boolean; blank: boolean; seed?: Uint8Array; keypool?: number },
  ) {
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
    const now = this.chain.medianTimePast();
    for (const type of Object.keys(ADDRESS_TYPES) as AddressType[]) {
      const { purpose, wrap } = ADDRESS_TYPES[type];
      const account = master.derive(`m/${purpose}'/${coin}'/0'`);
      for (const internal of [false, true]) {
        const text = wrap(`[${fp}/${purpose}h/${coin}h/0h]${account.publicExtendedKey}/${internal ? 1 : 0}/*`);
        this.addDescriptor(parseDescriptor(text, this.network), { active: true, internal, addressType: type, range: [0, this.keypool - 1], timestamp: now });
      }
    }
  }

  /** Public descriptors (listdescriptors without private keys), normalized, with checksums. */
  publicDescriptors(): Array<{ desc: string; active: boolean; internal: boolean; range?: [number, number]; next_index?: number; timestamp: number }> {
    return this.descriptors.map((d) => ({
      desc: d.desc.toString(),
      timestamp: d.timestamp,
      active: d.active,
      internal: d.internal,
      ...(d.desc.isRange() ? { range: [d.rangeStart, d.rangeEnd] as [number, number], next_index: d.nextIndex } : {}),
    }));
  }

  addDescriptor(
    desc: Descriptor,
    o: { active: boolean; internal: boolean; addressType: AddressType | null; range: [number, number]; timestamp: number; label?: string },
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
    this.rescan();
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

  /** Next unused address of the active descriptor (getnewaddress / getrawchangeaddress). */
  nextAddress(type: AddressType, internal: boolean): string {
    const d = this.activeDescriptor(type, internal);
    if (!d) {
      throw new WalletError(
        -12,
        internal
          ? 'Error: This wallet has no available keys'
          : 'Error: This wallet has no available keys',
      );
    }
    const index = d.nextIndex;
    d.nextIndex++;
    if (d.nextIndex > d.rangeEnd) {
      // Top up the keypool (Core keeps `keypool` unused addresses derived ahead).
      const from = d.rangeEnd + 1;
      d.rangeEnd = d.nextIndex + this.keypool - 1;
      this.expandRange(d, from, d.rangeEnd);
    }
    const e = d.desc.expand(index)[0]!;
    const dest = extractDestination(e.script);
    if (!dest) throw new WalletError(-4, 'Error: Cannot derive an address');
    return encodeDestination(dest, this.network);
  }

  /** Finds wallet transactions in the whole chain and mempool (used after imports). */
  rescan(): void {
    for (const block of this.chain.blocks) for (const tx of block.txs) this.considerTx(tx, block.time);
    for (const tx of this.chain.mempoolTxs()) this.considerTx(tx, this.chain.findTx(tx.txid)?.firstSeen ?? 0);
  }

  /** Adds `tx` to the wallet when it pays to or spends from the wallet. */
  considerTx(tx: ChainTx, received: number): void {
    if (this.txs.has(tx.txid)) return;
    const relevant =
      tx.vout.some((o) => this.isMine(o.script)) ||
      (!tx.coinbase &&
        tx.vin.some((i) => {
          const prev = this.chain.output(i.txid, i.vout);
          return prev !== undefined && this.isMine(prev.script);
        }));
    if (relevant) this.txs.set(tx.txid, { received });
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
      if (found.tx.coinbase && depth < 100) continue;
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
   * change to a fresh change address. Fee rate in sat/vB.
   */
  createTransaction(
    outputs: Array<{ script: Uint8Array; value: bigint }>,
    opts: { feeRate: bigint; subtractFeeFromOutputs?: number[]; replaceable?: boolean; changeType?: AddressType },
  ): ChainTx {
    if (!this.master) throw new WalletError(-4, 'Error: Private keys are disabled for this wallet');
    const target = outputs.reduce((s, o) => s + o.value, 0n);
    // Confirmed coins, plus unconfirmed change of the wallet's own transactions ("trusted", as Core).
    const coins = this.unspent(0, 9_999_999)
      .filter((c) => c.confirmations > 0 || this.isTrusted(c.txid))
      .sort((a, b) => (b.confirmations > 0 ? 1 : 0) - (a.confirmations > 0 ? 1 : 0) || (b.value > a.value ? 1 : b.value < a.value ? -1 : 0));
    const seq = opts.replaceable === false ? 0xfffffffe : 0xfffffffd;
    const changeAddr = this.nextAddress(opts.changeType ?? 'bech32', true);
    const changeDest = decodeDestination(changeAddr, this.network);
    if (!changeDest.ok) throw new Error(changeDest.error);
    const subtract = opts.subtractFeeFromOutputs ?? [];

    let fee = 0n;
    for (let attempt = 0; attempt < 5; attempt++) {
      const need = subtract.length ? target : target + fee;
      const selected: typeof coins = [];
      let sum = 0n;
      for (const c of coins) {
        if (sum >= need + (subtract.length ? 0n : 0n) && selected.length) break;
        selected.push(c);
        sum += c.value;
      }
      if (sum < need) throw new WalletError(-6, 'Insufficient funds');
      const outs = outputs.map((o, i) => ({
        script: o.script,
        value: subtract.includes(i) ? o.value - fee / BigInt(subtract.length) : o.value,
      }));
      if (outs.some((o) => o.value < 0n)) throw new WalletError(-6, 'The transaction amount is too small to pay the fee');
      const change = sum - outs.reduce((s, o) => s + o.value, 0n) - (subtract.length ? 0n : fee);
      const withChange = change > 546n;
      const finalOuts = withChange ? [...outs, { script: changeDest.script, value: change }] : outs;
      const tx = this.sign(selected, finalOuts, seq, this.chain.tipHeight());
      const vsize = BigInt(Math.ceil(tx.weight / 4));
      const wanted = opts.feeRate * vsize;
      const actual = sum - finalOuts.reduce((s, o) => s + o.value, 0n);
      if (actual >= wanted && (actual - wanted <= 546n || !withChange)) return tx;
      fee = wanted;
    }
    throw new WalletError(-4, 'Transaction too large');
  }

  /** Signs inputs (coins of this wallet) with real keys; returns the finished transaction. */
  sign(coins: OutputInfo[], outputs: Array<{ script: Uint8Array; value: bigint }>, sequence: number, locktime: number): ChainTx {
    const t = new Transaction({ allowUnknownOutputs: true, lockTime: locktime, version: 2 });
    const keys: Uint8Array[] = [];
    for (const c of coins) {
      const entry = this.lookup(c.script);
      if (!entry) throw new Error('not a wallet coin');
      const e = entry.expansion;
      const pub = e.pubkeys[0];
      if (!pub) throw new Error('coin has no key');
      const priv = this.privateKeyFor(entry, pub.pubkey);
      if (!priv) throw new WalletError(-4, 'Signing transaction failed');
      keys.push(priv);
      const input: Parameters<Transaction['addInput']>[0] = {
        txid: c.txid,
        index: c.vout,
        sequence,
        witnessUtxo: { script: c.script, amount: c.value },
      };
      if (e.redeemScript) input.redeemScript = e.redeemScript;
      if (e.witnessScript) input.witnessScript = e.witnessScript;
      if (e.internalKey) input.tapInternalKey = e.internalKey;
      if (c.script[0] === 0x76) {
        // P2PKH needs the whole previous transaction.
        input.nonWitnessUtxo = this.chain.findTx(c.txid)!.tx.raw;
        delete input.witnessUtxo;
      }
      t.addInput(input);
    }
    for (const o of outputs) t.addOutput({ script: o.script, amount: o.value });
    keys.forEach((k, i) => {
      t.signIdx(k, i, undefined, new Uint8Array(32)); // fixed aux randomness: same seed, same chain
      t.finalizeIdx(i);
    });
    return parseChainTx(t.extract());
  }

  /** Sends a signed transaction into the chain's mempool and records it. */
  broadcast(tx: ChainTx): string {
    try {
      this.chain.acceptToMempool(tx);
    } catch (e) {
      if (e instanceof ChainError) throw new WalletError(e.code, e.message);
      throw e;
    }
    this.considerTx(tx, this.chain.clock());
    return tx.txid;
  }
}

export function hexScript(hex: string): Uint8Array {
  return hexToBytes(hex);
}
