/**
 * The block record of the devnet index (spec section 2, shared/spec/index-api.md) from the devnet
 * ChainView, with pybtc's target, difficulty, subsidy and adjusted-timestamp rules.
 */
import { base64 } from '@scure/base';
import type { ChainBlock, ChainView } from '../chain/types';
import { toHex } from './pybtc';
import { PyFloat, divToNumber } from './pyjson';
import { concat, num, sumOutputs, varint, type Rec } from './records';

/** Regtest halving interval (Bitcoin Core `nSubsidyHalvingInterval` on regtest). */
export const REGTEST_HALVING_INTERVAL = 150;
const COIN = 100_000_000n;

/** max_target = target of bits 0x1d00ffff. */
export const MAX_TARGET = 0xffffn << 208n;

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
