/** Test wallets for coin selection: coins with made-up outpoints, scripts of test keys. */
import * as btc from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { toHex } from '../../../shared/bitcoin/hex';
import type { SpendableCoin } from '../../../shared/bitcoin/spend/coins';
import type { InputKind } from '../../../shared/bitcoin/spend/size';
import { estimateTx } from '../../../shared/bitcoin/spend/size';
import { feeFor } from '../../../shared/bitcoin/spend/feerate';
import { NET, testKey } from './signing';

export const P2WPKH: InputKind = { type: 'p2wpkh' };
export const P2TR: InputKind = { type: 'p2tr' };
export const P2PKH: InputKind = { type: 'p2pkh' };
export const P2SH_P2WPKH: InputKind = { type: 'p2sh-p2wpkh' };
export const VAULT: InputKind = { type: 'p2wsh-multi', m: 2, n: 3 };

/** A recipient's p2wpkh script (31-byte output). */
export const DEST = btc.p2wpkh(testKey(500).pub, NET).script;
export const DEST_TR = btc.p2tr(testKey(501).xonly, undefined, NET).script;
export const CHANGE = { script: btc.p2wpkh(testKey(502).pub, NET).script, kind: P2WPKH };

export function coin(id: number | string, value: bigint, kind: InputKind = P2WPKH, extra: Partial<SpendableCoin> = {}): SpendableCoin {
  return { txid: toHex(sha256(utf8ToBytes(`coin ${id}`))), vout: typeof id === 'number' ? id % 4 : 0, value, kind, confirmations: 10, ...extra };
}

/** The fee our estimate asks for these inputs and outputs. */
export function feeOf(rate: bigint, kinds: readonly InputKind[], outputs: readonly Uint8Array[]): bigint {
  return feeFor(rate, estimateTx(kinds, outputs).vsize);
}

/** mulberry32: a deterministic PRNG for random wallets. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
