/**
 * A real regtest chain: Core's regtest genesis block, valid headers with proof of work at regtest
 * difficulty, merkle roots, BIP34 heights, witness commitments, the regtest subsidy schedule and a
 * mempool. Blocks are mined in-process; the chain is the single source of truth for both the node
 * (interface A) and the index (interface B).
 */
import type { ChainBlock, ChainTx, OutputInfo } from './types';
import { bytesKey, IndexedChain, outpointKey as key } from './indexed';
import { concatBytes, hashToHex, hexToBytes, hexToHash, scriptNumPush, sha256d } from './encoding';
import { COINBASE_TXID, makeChainTx, parseChainTx } from './tx';
import { linearize, type ChunkTieBreak, type Linearization } from './cluster';
import { validateTx, type Validated } from './accept';
import { RejectError, type Reject } from './policy';

export const REGTEST_BITS = 0x207fffff;
export const HALVING_INTERVAL = 150;
export const COINBASE_MATURITY = 100;
const BLOCK_VERSION = 0x20000000;

const GENESIS_COINBASE_HEX =
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';
export const REGTEST_GENESIS_HASH = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const GENESIS_TIME = 1296688602;
const GENESIS_NONCE = 2;

export function blockSubsidy(height: number): bigint {
  const halvings = Math.floor(height / HALVING_INTERVAL);
  if (halvings >= 64) return 0n;
  return (50n * 100_000_000n) >> BigInt(halvings);
}

/** Target from compact bits (big-endian bigint). */
export function bitsToTarget(bits: number): bigint {
  const exp = bits >>> 24;
  const mant = BigInt(bits & 0x007fffff);
  return exp <= 3 ? mant >> BigInt(8 * (3 - exp)) : mant << BigInt(8 * (exp - 3));
}

export function merkleRoot(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return new Uint8Array(32);
  let level = hashes;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i]!;
      const b = level[i + 1] ?? a;
      next.push(sha256d(concatBytes(a, b)));
    }
    level = next;
  }
  return level[0]!;
}

function encodeHeader(h: { version: number; prev: Uint8Array; merkle: Uint8Array; time: number; bits: number; nonce: number }): Uint8Array {
  const header = new Uint8Array(80);
  const view = new DataView(header.buffer);
  view.setInt32(0, h.version, true);
  header.set(h.prev, 4);
  header.set(h.merkle, 36);
  view.setUint32(68, h.time, true);
  view.setUint32(72, h.bits, true);
  view.setUint32(76, h.nonce, true);
  return header;
}

/** Grinds the nonce until the header hash meets the target. */
function solve(h: { version: number; prev: Uint8Array; merkle: Uint8Array; time: number; bits: number }): { header: Uint8Array; nonce: number; hash: Uint8Array } {
  const target = bitsToTarget(h.bits);
  const header = encodeHeader({ ...h, nonce: 0 });
  const view = new DataView(header.buffer);
  for (let nonce = 0; nonce <= 0xffffffff; nonce++) {
    view.setUint32(76, nonce, true);
    const hash = sha256d(header);
    if (BigInt('0x' + hashToHex(hash)) <= target) return { header: header.slice(), nonce, hash };
  }
  throw new Error('no nonce found');
}



export class ChainError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** Core's reject reason and details, when the mempool refused a transaction. */
    readonly reject?: Reject,
  ) {
    super(message);
  }
}

export interface ChainOptions {
  /** Clock in UNIX seconds; blocks get max(clock(), median time past + 1). */
  clock?: () => number;
}

/** Incremental relay fee (sat/kvB), for replacements: Core's -incrementalrelayfee default. */
export const INCREMENTAL_RELAY_FEE = 100n;

export type ChainEvent = { type: 'block'; block: ChainBlock } | { type: 'tx'; tx: ChainTx } | { type: 'removed'; txids: string[] };

export class Chain extends IndexedChain {
  private readonly listeners: Array<(ev: ChainEvent) => void> = [];
  clock: () => number;
  /**
   * The coinbase input script after its BIP34 height push: Core before 31.99 always adds OP_0 (an
   * empty extra nonce); 31.99 adds it only where the script would be shorter than 2 bytes (heights 1–16).
   */
  coinbaseExtraNonce: 'always' | 'when-short' = 'always';
  /** How equal-feerate chunks are ordered (cluster.ts): v30 by arrival, 31.99 by txid. */
  chunkTieBreak: ChunkTieBreak = 'arrival';
  private arrivals = 0;
  private linearized: Linearization | null = null;

  constructor(opts: ChainOptions = {}) {
    super();
    this.clock = opts.clock ?? (() => Math.floor(Date.now() / 1000));
    const coinbase = parseChainTx(hexToBytes(GENESIS_COINBASE_HEX));
    const header = encodeHeader({
      version: 1,
      prev: new Uint8Array(32),
      merkle: hexToHash(coinbase.txid),
      time: GENESIS_TIME,
      bits: REGTEST_BITS,
      nonce: GENESIS_NONCE,
    });
    const hash = hashToHex(sha256d(header));
    if (hash !== REGTEST_GENESIS_HASH) throw new Error(`genesis hash mismatch: ${hash}`);
    this.connect({
      height: 0,
      hash,
      header,
      version: 1,
      prevHash: '0'.repeat(64),
      merkleRoot: coinbase.txid,
      time: GENESIS_TIME,
      bits: REGTEST_BITS,
      nonce: GENESIS_NONCE,
      txs: [coinbase],
      ...blockSizes([coinbase]),
      medianTime: GENESIS_TIME,
      receivedTime: GENESIS_TIME,
    });
  }

  onChange(fn: (ev: ChainEvent) => void): void {
    this.listeners.push(fn);
  }

  tip(): ChainBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  // ---- extra queries for the node ----
  confirmations(txid: string): number {
    const loc = this.txLoc.get(txid);
    return loc ? this.tipHeight() - loc.block.height + 1 : 0;
  }
  mempoolTxs(): ChainTx[] {
    return [...this.mempool.values()].map((e) => e.tx);
  }
  mempoolFee(txid: string): bigint | undefined {
    return this.mempool.get(txid)?.fee;
  }
  /** All outputs paying `script` (any state), for wallet scans. */
  outputsForScript(script: Uint8Array): OutputInfo[] {
    return [...(this.byScript.get(bytesKey(script)) ?? [])].map((k) => this.outputs.get(k)!);
  }
  isSpent(txid: string, vout: number): boolean {
    return (this.spentBy.get(key(txid, vout)) ?? []).length > 0;
  }
  /** Median time past of the tip (Core getblockchaininfo `mediantime`). */
  medianTimePast(): number {
    return this.tip().medianTime;
  }

  // ---- mempool ----
  /**
   * Accepts a transaction into the mempool after Core's checks (accept.ts: policy, replacement,
   * every input's script and signature); replaced transactions leave first. Throws a ChainError
   * carrying Core's reject reason and details. A transaction already in the mempool is returned as it is.
   */
  acceptToMempool(tx: ChainTx): { txid: string; fee: bigint } {
    if (this.mempool.has(tx.txid)) return { txid: tx.txid, fee: this.mempool.get(tx.txid)!.fee };
    const v = this.validate(tx);
    if (v.replaced.length > 0) {
      const removed = v.conflicts.flatMap((t) => this.removeMempoolTx(t));
      this.linearized = null;
      for (const l of this.listeners) l({ type: 'removed', txids: removed });
    }
    const now = this.clock();
    this.mempool.set(tx.txid, { tx, fee: v.fee, firstSeen: now, seq: ++this.arrivals });
    this.linearized = null;
    this.firstSeen.set(tx.txid, now);
    this.indexOutputs(tx, null, null);
    tx.vin.forEach((i, n) => this.addSpender(key(i.txid, i.vout), { txid: tx.txid, vin: n, confirmed: false }));
    for (const l of this.listeners) l({ type: 'tx', tx });
    return { txid: tx.txid, fee: v.fee };
  }

  /** Mempool acceptance without adding (testmempoolaccept); throws a ChainError with Core's reason. */
  validate(tx: ChainTx, pkg: readonly ChainTx[] = []): Validated {
    try {
      return validateTx(this, tx, pkg);
    } catch (e) {
      if (e instanceof RejectError) throw new ChainError(e.reject.code ?? -26, e.message, e.reject);
      throw e;
    }
  }

  /** A mempool transaction with its mempool ancestors: how many, their vsize and fees (getTransactionAncestry). */
  mempoolAncestry(txid: string): { count: number; vsize: number; fees: bigint } | null {
    if (!this.mempool.has(txid)) return null;
    const seen = new Set<string>();
    const stack = [txid];
    let vsize = 0;
    let fees = 0n;
    while (stack.length) {
      const t = stack.pop()!;
      if (seen.has(t)) continue;
      seen.add(t);
      const e = this.mempool.get(t)!;
      vsize += Math.ceil(e.tx.weight / 4);
      fees += e.fee;
      for (const i of e.tx.vin) if (this.mempool.has(i.txid)) stack.push(i.txid);
    }
    return { count: seen.size, vsize, fees };
  }

  /** The cluster mempool's linearization (mining order, chunks), kept until the mempool changes. */
  linearization(): Linearization {
    if (this.linearized === null) {
      this.linearized = linearize(
        [...this.mempool.values()].map((e) => ({
          txid: e.tx.txid,
          fee: e.fee,
          weight: e.tx.weight,
          parents: [...new Set(e.tx.vin.map((i) => i.txid).filter((t) => this.mempool.has(t)))],
          seq: e.seq ?? 0,
        })),
        this.chunkTieBreak,
      );
    }
    return this.linearized;
  }

  // ---- mining ----
  /** Mines one block paying `script`, with every mempool transaction (or `txs` when given). */
  mineBlock(script: Uint8Array, opts: { txs?: ChainTx[]; time?: number } = {}): ChainBlock {
    const prev = this.tip();
    const height = prev.height + 1;
    const txs = opts.txs ?? this.linearization().order.map((t) => this.mempool.get(t)!.tx);
    let fees = 0n;
    for (const t of txs) {
      const f = this.mempool.get(t.txid)?.fee;
      if (f === undefined) throw new Error(`tx ${t.txid} is not in the mempool`);
      fees += f;
    }
    // Witness commitment over wtxids (coinbase counts as zero).
    const wtxids = [new Uint8Array(32), ...txs.map((t) => hexToHash(t.wtxid))];
    const reserved = new Uint8Array(32);
    const commitment = sha256d(concatBytes(merkleRoot(wtxids), reserved));
    const coinbase = makeChainTx({
      version: 2,
      locktime: height - 1,
      vin: [
        {
          txid: COINBASE_TXID,
          vout: 0xffffffff,
          scriptSig: coinbaseScript(height, this.coinbaseExtraNonce),
          sequence: 0xfffffffe,
          witness: [reserved],
        },
      ],
      vout: [
        { value: blockSubsidy(height) + fees, script },
        { value: 0n, script: concatBytes(hexToBytes('6a24aa21a9ed'), commitment) },
      ],
    });
    const all = [coinbase, ...txs];
    const merkle = merkleRoot(all.map((t) => hexToHash(t.txid)));
    const mtpPrev = prev.medianTime;
    const time = Math.max(opts.time ?? this.clock(), mtpPrev + 1);
    const { header, nonce, hash } = solve({ version: BLOCK_VERSION, prev: hexToHash(prev.hash), merkle, time, bits: REGTEST_BITS });
    const times = [time, ...this.blocks.slice(Math.max(0, height - 10)).map((b) => b.time)].sort((a, b) => a - b);
    const block: ChainBlock = {
      height,
      hash: hashToHex(hash),
      header,
      version: BLOCK_VERSION,
      prevHash: prev.hash,
      merkleRoot: hashToHex(merkle),
      time,
      bits: REGTEST_BITS,
      nonce,
      txs: all,
      ...blockSizes(all),
      medianTime: times[Math.floor(times.length / 2)]!,
      receivedTime: Math.max(this.clock(), time),
    };
    for (const t of txs) this.mempool.delete(t.txid);
    this.linearized = null;
    this.connect(block);
    for (const l of this.listeners) l({ type: 'block', block });
    return block;
  }

  private connect(block: ChainBlock): void {
    this.blocks.push(block);
    this.byHash.set(block.hash, block);
    block.txs.forEach((tx, index) => {
      if (!this.firstSeen.has(tx.txid)) this.firstSeen.set(tx.txid, block.time);
      this.indexBlockTx(block, tx, index);
    });
  }
}

function blockSizes(txs: ChainTx[]): { size: number; strippedSize: number; weight: number } {
  const cs = txs.length < 0xfd ? 1 : txs.length <= 0xffff ? 3 : 5;
  const size = 80 + cs + txs.reduce((s, t) => s + t.size, 0);
  const strippedSize = 80 + cs + txs.reduce((s, t) => s + t.strippedSize, 0);
  return { size, strippedSize, weight: strippedSize * 3 + size };
}


/** FormatMoney (util/moneystr.cpp): 8 decimals, trailing zeros trimmed down to 2 (`50.00`, `0.00005`). */
export function formatMoney(sats: bigint): string {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  const text = `${abs / 100_000_000n}.${(abs % 100_000_000n).toString().padStart(8, '0')}`.replace(/(\.[0-9]{2}[0-9]*?)0+$/, '$1');
  return neg ? `-${text}` : text;
}

/** The coinbase input script: the BIP34 height push, then OP_0 always or only to reach 2 bytes. */
export function coinbaseScript(height: number, extraNonce: 'always' | 'when-short'): Uint8Array {
  const push = scriptNumPush(height);
  return extraNonce === 'always' || push.length < 2 ? concatBytes(push, Uint8Array.of(0x00)) : push;
}
