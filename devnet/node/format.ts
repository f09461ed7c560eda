/**
 * How Core writes numbers and serializations the node's replies carry: doubles (`%.16g`), difficulty,
 * chain work, compact sizes, whole blocks, and the size of a block's undo data on disk.
 */
import { RawJson } from '../../shared/json';
import { bitsToTarget } from '../chain/chain';
import type { ChainBlock, OutputInfo } from '../chain/types';

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
export function blockProof(bits: number): bigint {
  const target = bitsToTarget(bits);
  if (target <= 0n) return 0n;
  return ((1n << 256n) - 1n - target) / (target + 1n) + 1n;
}

export const hex64 = (n: bigint): string => n.toString(16).padStart(64, '0');
export const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** A uint256 hex (display order) as its internal byte order, for Core's `uint256 <` comparisons. */
export const internalOrder = (hex: string): string => (hex.match(/../g) ?? []).reverse().join('');

export function compactSize(n: number): Uint8Array {
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


/** Bytes of Core's VARINT (serialize.h WriteVarInt: base 128, most significant first, each byte but the last minus one). */
function varIntSize(n: bigint): number {
  let len = 1;
  while (n > 0x7fn) {
    n = (n >> 7n) - 1n;
    len++;
  }
  return len;
}

const compactSizeLen = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9);

/** CompressAmount (compressor.cpp). */
export function compressAmount(n: bigint): bigint {
  if (n === 0n) return 0n;
  let e = 0n;
  while (n % 10n === 0n && e < 9n) {
    n /= 10n;
    e++;
  }
  if (e < 9n) {
    const d = n % 10n;
    n /= 10n;
    return 1n + (n * 9n + d - 1n) * 10n + e;
  }
  return 1n + (n - 1n) * 10n + 9n;
}

/** Bytes of ScriptCompression: 21 for P2PKH/P2SH, 33 for P2PK, else VARINT(size + 6) + the script. */
function compressedScriptSize(s: Uint8Array): number {
  const p2pkh = s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 20 && s[23] === 0x88 && s[24] === 0xac;
  const p2sh = s.length === 23 && s[0] === 0xa9 && s[1] === 20 && s[22] === 0x87;
  if (p2pkh || p2sh) return 21;
  if (s.length === 35 && s[0] === 33 && s[34] === 0xac && (s[1] === 2 || s[1] === 3)) return 33;
  // An uncompressed P2PK compresses only when its key is a valid point; the devnet's chains hold none.
  return varIntSize(BigInt(s.length + 6)) + s.length;
}

/**
 * Size of a block's undo data (CBlockUndo): for each non-coinbase transaction, the outputs its
 * inputs spent (TxInUndoFormatter: VARINT(height·2 + coinbase), a 0 byte when height > 0, the
 * compressed amount and script).
 */
export function undoSize(block: ChainBlock, prevout: (txid: string, vout: number) => OutputInfo | undefined): number {
  const txs = block.txs.filter((t) => !t.coinbase);
  let size = compactSizeLen(txs.length);
  for (const tx of txs) {
    size += compactSizeLen(tx.vin.length);
    for (const i of tx.vin) {
      const prev = prevout(i.txid, i.vout);
      if (!prev) throw new Error(`undo: unknown output ${i.txid}:${i.vout}`);
      const height = prev.height ?? 0;
      size += varIntSize(BigInt(height * 2 + (prev.coinbase ? 1 : 0))) + (height > 0 ? 1 : 0);
      size += varIntSize(compressAmount(prev.value)) + compressedScriptSize(prev.script);
    }
  }
  return size;
}
