// Merkle proofs in the index's format (spec index-api §3.5: base64 of the 32-byte sibling hashes, leaf
// level up, internal byte order) and block-header checks, so the app can verify an index transaction
// record against the block header the index serves.
import { base64 } from '@scure/base';
import { fromHex, toHex } from './hex';
import { sha256d } from './tx';

function internal(displayHex: string): Uint8Array {
  return fromHex(displayHex).reverse();
}

function pair(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(64);
  out.set(a, 0);
  out.set(b, 32);
  return sha256d(out);
}

/** Depth of the merkle tree of a block with `txCount` transactions (0 for a lone coinbase). */
export function merkleDepth(txCount: number): number {
  let depth = 0;
  for (let n = txCount; n > 1; n = Math.ceil(n / 2)) depth++;
  return depth;
}

/** Spec 3.5: the proof of the transaction at `index` among `txids` (display hex). */
export function merkleProof(txids: readonly string[], index: number): string {
  let level = txids.map(internal);
  const proof: Uint8Array[] = [];
  let i = index;
  while (level.length > 1) {
    const sibling = i % 2 === 1 ? level[i - 1] : (level[i + 1] ?? level[i]);
    if (!sibling) throw new RangeError('merkle index out of range');
    proof.push(sibling);
    const next: Uint8Array[] = [];
    for (let j = 0; j < level.length; j += 2) next.push(pair(level[j]!, level[j + 1] ?? level[j]!));
    level = next;
    i = Math.floor(i / 2);
  }
  const out = new Uint8Array(proof.length * 32);
  proof.forEach((p, k) => out.set(p, k * 32));
  return base64.encode(out);
}

/** The merkle root (display hex) a proof leads to, or null when the proof is malformed. */
export function merkleRootFromProof(txid: string, index: number, proofBase64: string): string | null {
  let proof: Uint8Array;
  try {
    proof = base64.decode(proofBase64);
  } catch {
    return null;
  }
  if (proof.length % 32 !== 0 || !/^[0-9a-fA-F]{64}$/.test(txid) || !Number.isInteger(index) || index < 0) return null;
  let h = internal(txid);
  let i = index;
  for (let o = 0; o < proof.length; o += 32) {
    const sib = proof.subarray(o, o + 32);
    h = i % 2 === 1 ? pair(sib, h) : pair(h, sib);
    i = Math.floor(i / 2);
  }
  if (i !== 0) return null;
  return toHex(h.reverse());
}

/** True when the proof leads from `txid` at `index` to `merkleRootHex` (display order). */
export function verifyMerkleProof(txid: string, index: number, proofBase64: string, merkleRootHex: string): boolean {
  return merkleRootFromProof(txid, index, proofBase64) === merkleRootHex.toLowerCase();
}

export interface BlockHeader {
  hash: string;
  version: number;
  previousBlockHash: string;
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
}

/** Parses an 80-byte block header (the index sends it base64, followed by the tx count varint). */
export function parseBlockHeader(bytes: Uint8Array): BlockHeader {
  if (bytes.length < 80) throw new RangeError(`a block header is 80 bytes, got ${bytes.length}`);
  const h = bytes.subarray(0, 80);
  const dv = new DataView(h.buffer, h.byteOffset, 80);
  return {
    hash: toHex(sha256d(h).reverse()),
    version: dv.getInt32(0, true),
    previousBlockHash: toHex(h.slice(4, 36).reverse()),
    merkleRoot: toHex(h.slice(36, 68).reverse()),
    time: dv.getUint32(68, true),
    bits: dv.getUint32(72, true),
    nonce: dv.getUint32(76, true),
  };
}

export interface MerkleCheck {
  valid: boolean;
  /** The merkle root of the header (display hex), when the header could be read. */
  root: string | null;
  message: string;
}

/**
 * Checks an index transaction record against the block header the index serves for its block: the
 * header hashes to the block hash, and the proof leads from the txid to the header's merkle root with
 * exactly the depth the block's transaction count implies.
 */
export function checkTxInBlock(opts: { txid: string; blockHash: string; blockIndex: number; merkleProof: string; headerBase64: string; txCount: number }): MerkleCheck {
  let header: BlockHeader;
  try {
    header = parseBlockHeader(base64.decode(opts.headerBase64));
  } catch (e) {
    return { valid: false, root: null, message: `The index's block header cannot be read: ${(e as Error).message}.` };
  }
  if (header.hash !== opts.blockHash.toLowerCase()) {
    return { valid: false, root: header.merkleRoot, message: `The block header hashes to ${header.hash}, not to the block ${opts.blockHash} the transaction claims.` };
  }
  const proofLen = (() => {
    try {
      return base64.decode(opts.merkleProof).length / 32;
    } catch {
      return -1;
    }
  })();
  const depth = merkleDepth(opts.txCount);
  if (proofLen !== depth) {
    return { valid: false, root: header.merkleRoot, message: `The merkle proof has ${proofLen < 0 ? 'no readable' : proofLen} levels; a block of ${opts.txCount} transactions needs ${depth}.` };
  }
  const root = merkleRootFromProof(opts.txid, opts.blockIndex, opts.merkleProof);
  if (root === null) return { valid: false, root: header.merkleRoot, message: 'The merkle proof is malformed.' };
  if (root !== header.merkleRoot) {
    return { valid: false, root: header.merkleRoot, message: `The merkle proof leads to ${root}, but the block header's merkle root is ${header.merkleRoot}.` };
  }
  return { valid: true, root, message: `The transaction is in block ${opts.blockHash}: its merkle proof matches the header's merkle root.` };
}
