/**
 * Pure builders of the index (interface B) records from the devnet ChainView:
 * block record (spec section 2), transaction record (3.1–3.5), address UTXO list (6).
 * Spec: shared/spec/index-api.md. Records keep the server's key order; amounts are JSON integers
 * (JS numbers, exact below 2^53); Python floats are {@link PyFloat}.
 */
import { base64, bech32, bech32m } from '@scure/base';
import type { ChainBlock, ChainTx, ChainView, OutputInfo } from '../chain/types';
import { MAINNET, REGTEST, type Network } from '../../shared/bitcoin/networks';
import {
  ADDRESS_TYPES,
  base58check,
  firstNullData,
  infoAddress,
  parseScript,
  scriptAsm,
  scriptOpcodes,
  toHex,
} from './pybtc';
import { PyFloat, divToNumber, pyRound, type PyJson } from './pyjson';

/** An API error: HTTP status, bitaps `error_code` and message (spec section 7). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const NOT_FOUND = 0;
export const INTERNAL_SERVER_ERROR = 1;
export const INVALID_BLOCK_POINTER = 2;
export const PARAMETER_ERROR = 5;

/** Regtest halving interval (Bitcoin Core `nSubsidyHalvingInterval` on regtest). */
export const REGTEST_HALVING_INTERVAL = 150;
const COIN = 100_000_000n;

/** max_target = target of bits 0x1d00ffff. */
export const MAX_TARGET = 0xffffn << 208n;

type Rec = { [key: string]: PyJson | undefined };

// ---------- small helpers ----------

function fromHex(h: string): Uint8Array {
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new Error(`bad hex: ${h}`);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Display hex (RPC order) → internal byte order. */
export function internalBytes(displayHex: string): Uint8Array {
  return fromHex(displayHex).reverse();
}

export function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  if (n <= 0xffffffff) return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  const b = new Uint8Array(9);
  b[0] = 0xff;
  let v = BigInt(n);
  for (let i = 1; i < 9; i++) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function num(v: bigint): number {
  return Number(v);
}

/** Python `int(text)` for ASCII input: surrounding whitespace, sign, digits with single underscores. */
export function pyInt(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined) return undefined;
  const t = text.trim();
  if (!/^[+-]?\d+(_\d+)*$/.test(t)) return undefined;
  // Beyond 2^53 the value is approximate, which only matters for lookups that fail anyway.
  const v = Number(t.replace(/_/g, ''));
  return Number.isFinite(v) ? v : undefined;
}

// ---------- block record ----------

/** Target expanded from compact bits (negative flag ignored, as for valid headers). */
export function bitsToTarget(bits: number): bigint {
  const exp = bits >>> 24;
  const mant = BigInt(bits & 0x007fffff);
  return exp <= 3 ? mant >> BigInt(8 * (3 - exp)) : mant << BigInt(8 * (exp - 3));
}

/** pybtc `target_to_difficulty`: max_target / target as a correctly rounded double. */
export function targetToDifficulty(target: bigint): number {
  if (target <= 0n) return 0;
  return divToNumber(MAX_TARGET, target);
}

export function regtestSubsidy(height: number): bigint {
  const halvings = Math.floor(height / REGTEST_HALVING_INTERVAL);
  return halvings >= 64 ? 0n : (50n * COIN) >> BigInt(halvings);
}

/** `int_to_bytes(version).hex()`: minimal big-endian bytes (version taken as uint32). */
export function versionHex(version: number): string {
  let v = version >>> 0;
  let out = '';
  while (v > 0) {
    out = (v & 0xff).toString(16).padStart(2, '0') + out;
    v = Math.floor(v / 256);
  }
  return out;
}

const adjustedCache = new WeakMap<ChainView, Map<string, number>>();

/** adjustedTimestamp = max(blockTime, previous block's adjustedTimestamp), from genesis. */
export function adjustedTimestamp(view: ChainView, block: ChainBlock): number {
  let cache = adjustedCache.get(view);
  if (!cache) {
    cache = new Map();
    adjustedCache.set(view, cache);
  }
  const hit = cache.get(block.hash);
  if (hit !== undefined) return hit;
  // Walk back to a cached ancestor (or genesis), then forward.
  const chain: ChainBlock[] = [block];
  let prev = 0;
  for (;;) {
    const last = chain[chain.length - 1] as ChainBlock;
    if (last.height === 0) break;
    const p = view.blockByHash(last.prevHash) ?? view.blockAt(last.height - 1);
    if (!p) break;
    const c = cache.get(p.hash);
    if (c !== undefined) {
      prev = c;
      break;
    }
    chain.push(p);
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    const b = chain[i] as ChainBlock;
    prev = Math.max(b.time, prev);
    cache.set(b.hash, prev);
  }
  return prev;
}

function sumOutputs(tx: ChainTx): bigint {
  return tx.vout.reduce((a, o) => a + o.value, 0n);
}

/** The full block record (spec section 2), or undefined when there is no block at `height`. */
export function blockRecord(view: ChainView, height: number): Rec | undefined {
  const block = view.blockAt(height);
  if (!block) return undefined;
  return blockRecordOf(view, block);
}

export function blockRecordOf(view: ChainView, block: ChainBlock): Rec {
  const tip = view.tipHeight();
  const coinbaseTx = block.txs[0];
  const cbTotal = coinbaseTx ? sumOutputs(coinbaseTx) : 0n;
  const estimated = regtestSubsidy(block.height);
  const amount = block.txs.reduce((a, tx) => a + sumOutputs(tx), 0n);
  const target = bitsToTarget(block.bits);
  const next = view.blockAt(block.height + 1);
  const cbInput = coinbaseTx?.vin[0];
  return {
    height: block.height,
    hash: block.hash,
    header: base64.encode(concat(block.header, varint(block.txs.length))),
    version: block.version,
    previousBlockHash: block.prevHash,
    merkleRoot: block.merkleRoot,
    bits: block.bits >>> 0,
    nonce: block.nonce >>> 0,
    weight: block.weight,
    size: block.size,
    strippedSize: block.strippedSize,
    amount: num(amount),
    target: target.toString(16).padStart(64, '0'),
    miner: null,
    medianBlockTime: block.medianTime,
    blockTime: block.time,
    receivedTimestamp: block.receivedTime,
    adjustedTimestamp: adjustedTimestamp(view, block),
    bitsHex: (block.bits >>> 0).toString(16).padStart(8, '0'),
    nonceHex: (block.nonce >>> 0).toString(16).padStart(8, '0'),
    versionHex: versionHex(block.version),
    difficulty: new PyFloat(targetToDifficulty(target)),
    blockDifficulty: new PyFloat(targetToDifficulty(BigInt('0x' + block.hash))),
    nextBlockHash: next ? next.hash : null,
    estimatedBlockReward: num(estimated),
    blockReward: num(cbTotal > estimated ? estimated : cbTotal),
    blockFeeReward: num(cbTotal > estimated ? cbTotal - estimated : 0n),
    confirmations: tip - block.height + 1,
    transactionsCount: block.txs.length,
    coinbase: cbInput ? toHex(cbInput.scriptSig) : '',
  };
}

// ---------- merkle proof (shared/bitcoin/merkle.ts) ----------

export { merkleProof, verifyMerkleProof } from '../../shared/bitcoin/merkle';
import { merkleProof } from '../../shared/bitcoin/merkle';

// ---------- transaction record ----------

function scriptRenderings(prefix: 'scriptSig' | 'scriptPubKey', script: Uint8Array): Rec {
  return { [`${prefix}Opcodes`]: scriptOpcodes(script), [`${prefix}Asm`]: scriptAsm(script) };
}

export function outputRecord(view: ChainView, tx: ChainTx, index: number, network: Network = REGTEST): Rec {
  const out = tx.vout[index];
  if (!out) throw new RangeError(`no output ${index}`);
  const info = parseScript(out.script);
  const rec: Rec = {
    value: num(out.value),
    scriptPubKey: toHex(out.script),
    nType: info.nType,
    type: info.type,
  };
  if (ADDRESS_TYPES.has(info.nType) && info.addressHash) {
    rec.addressHash = toHex(info.addressHash);
    rec.reqSigs = info.reqSigs;
    rec.address = infoAddress(info, network);
  }
  Object.assign(rec, scriptRenderings('scriptPubKey', out.script));
  rec.spent = view.spenders(tx.txid, index).map((s) => ({ txId: s.txid, vIn: s.vin }));
  return rec;
}

function inputRecord(view: ChainView, tx: ChainTx, index: number, tip: number, network: Network): { rec: Rec; amount: bigint } {
  const vin = tx.vin[index];
  if (!vin) throw new RangeError(`no input ${index}`);
  const rec: Rec = {
    txId: vin.txid,
    vOut: vin.vout >>> 0,
    scriptSig: toHex(vin.scriptSig),
    sequence: vin.sequence >>> 0,
  };
  if (tx.segwit) rec.txInWitness = vin.witness.map(toHex);
  if (tx.coinbase) return { rec, amount: 0n };
  const prev: OutputInfo | undefined = view.output(vin.txid, vin.vout);
  if (!prev) throw new Error(`spent output ${vin.txid}:${vin.vout} not found`);
  const info = parseScript(prev.script);
  Object.assign(rec, scriptRenderings('scriptSig', vin.scriptSig));
  rec.type = info.type;
  rec.amount = num(prev.value);
  rec.blockHeight = prev.height;
  rec.confirmations = prev.height === null ? null : tip - prev.height + 1;
  const address = infoAddress(info, network);
  if (address !== undefined) rec.address = address;
  rec.scriptPubKey = toHex(prev.script);
  Object.assign(rec, scriptRenderings('scriptPubKey', prev.script));
  return { rec, amount: prev.value };
}

export interface TxRecordOptions {
  /** Add `rawTx` (base64 of the raw tx), as with `?raw_tx=True`. */
  readonly rawTx?: boolean;
  readonly network?: Network;
}

/** Transaction record (spec 3.1–3.5) for a confirmed or mempool tx, or undefined when unknown. */
export function txRecord(view: ChainView, txid: string, opts: TxRecordOptions = {}): Rec | undefined {
  const found = view.findTx(txid);
  if (!found) return undefined;
  return txRecordOf(view, found, opts);
}

export function txRecordOf(
  view: ChainView,
  found: NonNullable<ReturnType<ChainView['findTx']>>,
  opts: TxRecordOptions = {},
): Rec {
  const network = opts.network ?? REGTEST;
  const { tx, block, index, firstSeen } = found;
  const tip = view.tipHeight();
  const vIn: Record<string, Rec> = {};
  let inputsAmount = 0n;
  tx.vin.forEach((_, i) => {
    const { rec, amount } = inputRecord(view, tx, i, tip, network);
    vIn[String(i)] = rec;
    inputsAmount += amount;
  });
  const vOut: Record<string, Rec> = {};
  tx.vout.forEach((_, i) => {
    vOut[String(i)] = outputRecord(view, tx, i, network);
  });
  const amount = sumOutputs(tx);
  const fee = tx.coinbase ? 0n : inputsAmount - amount;
  const vSize = Math.ceil(tx.weight / 4);
  const confirmed = block !== null && index !== null;
  const rec: Rec = {
    segwit: tx.segwit,
    rbf: tx.vin.some((v) => v.sequence >>> 0 < 0xfffffffe),
    txId: tx.txid,
    hash: tx.wtxid,
    version: tx.version >>> 0,
    size: tx.size,
    vSize,
    bSize: tx.strippedSize,
    lockTime: tx.locktime >>> 0,
    vIn,
    vOut,
  };
  if (opts.rawTx) rec.rawTx = base64.encode(tx.raw);
  Object.assign(rec, {
    blockHash: confirmed ? block.hash : null,
    confirmations: confirmed ? tip - block.height + 1 : null,
    time: firstSeen,
    blockTime: confirmed ? block.time : null,
    blockIndex: confirmed ? index : null,
    coinbase: tx.coinbase,
    fee: num(fee),
    data: firstNullData(tx.vout.map((o) => o.script)),
    amount: num(amount),
  });
  if (tx.segwit) rec.flag = '01';
  Object.assign(rec, {
    weight: tx.weight,
    inputsAmount: num(inputsAmount),
    outputsAmount: num(amount),
    blockHeight: confirmed ? block.height : null,
    adjustedTimestamp: confirmed ? adjustedTimestamp(view, block) : null,
  });
  if (confirmed) {
    rec.merkleProof = merkleProof(
      block.txs.map((t) => t.txid),
      index,
    );
  } else {
    const rank = view.mempoolByFeeRate().indexOf(tx.txid);
    if (rank >= 0) rec.mempoolRank = rank + 1;
  }
  rec.valid = true;
  rec.feeRate = new PyFloat(vSize > 0 ? pyRound(num(fee) / vSize, 2) : 0);
  return rec;
}

// ---------- address UTXO ----------

export interface DecodedAddress {
  /** pybtc address type: 0 P2PKH, 1 P2SH, 5 P2WPKH, 6 P2WSH, 9 P2TR. */
  readonly nType: number;
  readonly script: Uint8Array;
}

const invalidAddress = (): ApiError => new ApiError(400, PARAMETER_ERROR, 'invalid address');
const mainnetAddress = (): ApiError => new ApiError(400, PARAMETER_ERROR, 'mainnet address is invalid for testnet');

function decodeBech32Any(address: string): { prefix: string; version: number; program: Uint8Array } | undefined {
  for (const coder of [bech32, bech32m]) {
    try {
      const { prefix, words } = coder.decode(address as `${string}1${string}`, 90);
      const [version, ...rest] = words;
      if (version === undefined || version > 16) return undefined;
      if ((version === 0) !== (coder === bech32)) continue;
      return { prefix, version, program: coder.fromWords(rest) };
    } catch {
      // try the other encoding
    }
  }
  return undefined;
}

function segwitScript(version: number, program: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(version === 0 ? 0 : 0x50 + version, program.length), program);
}

/**
 * Parses an address for `/address/utxo/` on the regtest devnet: regtest encodings are accepted
 * (P2PKH, P2SH, P2WPKH, P2WSH, P2TR); valid mainnet ones are rejected with the testnet-server
 * message; anything else (bad checksum, other kinds, other networks) is `invalid address`.
 */
export function decodeAddress(address: string, network: Network = REGTEST): DecodedAddress {
  const lower = address.toLowerCase();
  if (lower.includes('1') && /^[a-z0-9]+$/i.test(address) && lower.lastIndexOf('1') > 0) {
    const d = decodeBech32Any(address);
    if (d) {
      const kind =
        d.version === 0 && d.program.length === 20 ? 5
        : d.version === 0 && d.program.length === 32 ? 6
        : d.version === 1 && d.program.length === 32 ? 9
        : undefined;
      if (d.prefix === network.bech32 && kind !== undefined) return { nType: kind, script: segwitScript(d.version, d.program) };
      if (d.prefix === MAINNET.bech32 && kind !== undefined) throw mainnetAddress();
      throw invalidAddress();
    }
  }
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    throw invalidAddress();
  }
  if (payload.length !== 21) throw invalidAddress();
  const version = payload[0];
  const hash = payload.slice(1);
  if (version === network.pubKeyHash) {
    return { nType: 0, script: concat(Uint8Array.of(0x76, 0xa9, 0x14), hash, Uint8Array.of(0x88, 0xac)) };
  }
  if (version === network.scriptHash) return { nType: 1, script: concat(Uint8Array.of(0xa9, 0x14), hash, Uint8Array.of(0x87)) };
  if (version === MAINNET.pubKeyHash || version === MAINNET.scriptHash) throw mainnetAddress();
  throw invalidAddress();
}

export interface UtxoQuery {
  get(name: string): string | null;
}

export interface UtxoOptions {
  /** Server page limit (`get_block_utxo_page_limit`), 5000 by default. */
  readonly maxLimit?: number;
  readonly network?: Network;
}

/**
 * `/address/utxo/<address>` entries (spec section 6). Throws {@link ApiError} for bad addresses.
 * A P2PKH address asked without `type` also gets the outputs paying its key directly (P2PK, the
 * script in the view's p2pk map), merged in pointer order, and then every entry carries `type`
 * ("P2PKH" or "PUBKEY"), as the server's `address_confirmed_utxo` does; `type=P2PKH` asks for the
 * P2PKH outputs only and `type=PUBKEY` for the P2PK ones only, both without the `type` key.
 * Devnet deviation: mempool-spent outputs are excluded before paging.
 */
export function utxoRecords(view: ChainView, address: string, query: UtxoQuery, opts: UtxoOptions = {}): Rec[] {
  const maxLimit = opts.maxLimit ?? 5000;
  const typeParam = query.get('type');
  const type = typeParam === 'P2PKH' ? 0 : typeParam === 'PUBKEY' ? 2 : null;
  const fromBlock = pyInt(query.get('from_block')) ?? 0;
  const orderParam = query.get('order');
  const order = orderParam === null || orderParam === 'asc' ? 'asc' : 'desc';
  const obaParam = query.get('order_by_amount');
  const byAmount = obaParam === 'True' || obaParam === '1';
  let limit = pyInt(query.get('limit'));
  if (limit === undefined || !(limit > 0 && limit <= maxLimit)) limit = maxLimit;
  let page = pyInt(query.get('page'));
  if (page === undefined || page <= 0) page = 1;

  const decoded = decodeAddress(address, opts.network ?? REGTEST);
  const isP2pkh = decoded.nType === 0;
  const p2pk = isP2pkh && type !== 0 ? view.p2pkScript(decoded.script.subarray(3, 23)) : undefined;
  const pubkeyOuts = p2pk === undefined ? [] : view.unspentForScript(p2pk);
  let outs: OutputInfo[] = isP2pkh && type === 2 ? [...pubkeyOuts] : [...view.unspentForScript(decoded.script), ...pubkeyOuts];
  outs = outs.filter((o) => o.height !== null && o.txIndex !== null);
  if (fromBlock) outs = outs.filter((o) => (o.height as number) >= fromBlock);
  const byPointer = (a: OutputInfo, b: OutputInfo): number =>
    (a.height as number) - (b.height as number) || (a.txIndex as number) - (b.txIndex as number) || a.vout - b.vout;
  const cmp = byAmount
    ? (a: OutputInfo, b: OutputInfo): number => (a.value < b.value ? -1 : a.value > b.value ? 1 : byPointer(a, b))
    : byPointer;
  outs.sort(order === 'asc' ? cmp : (a, b) => cmp(b, a));
  const pageItems = outs.slice(limit * (page - 1), limit * page);
  const withType = isP2pkh && type === null;
  return pageItems.map((o) => {
    const rec: Rec = {
      txId: o.txid,
      vOut: o.vout,
      block: o.height as number,
      txIndex: o.txIndex as number,
      amount: num(o.value),
    };
    if (withType) rec.type = o.script.length === 25 ? 'P2PKH' : 'PUBKEY';
    return rec;
  });
}
