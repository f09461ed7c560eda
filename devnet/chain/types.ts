/**
 * The devnet's chain model, shared by the node (interface A) and the index (interface B).
 * Hashes are kept as display-order hex (what RPC and the index print); raw bytes where scripts are.
 */

export interface ChainTxIn {
  /** Previous txid, display hex; 64 zeros for a coinbase. */
  readonly txid: string;
  /** Previous output index; 0xffffffff for a coinbase. */
  readonly vout: number;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  /** Witness stack items; empty array when none. */
  readonly witness: readonly Uint8Array[];
}

export interface ChainTxOut {
  readonly value: bigint;
  readonly script: Uint8Array;
}

export interface ChainTx {
  readonly txid: string;
  /** wtxid (display hex); equals txid when the tx has no witness. */
  readonly wtxid: string;
  readonly version: number;
  readonly locktime: number;
  readonly vin: readonly ChainTxIn[];
  readonly vout: readonly ChainTxOut[];
  /** Full serialization (with witness when any). */
  readonly raw: Uint8Array;
  /** Serialized size with witness. */
  readonly size: number;
  /** Size without witness (bSize / stripped size). */
  readonly strippedSize: number;
  /** 3 * strippedSize + size */
  readonly weight: number;
  /** Serialized with segwit marker and flag. */
  readonly segwit: boolean;
  readonly coinbase: boolean;
}

export interface ChainBlock {
  readonly height: number;
  /** Block hash, display hex. */
  readonly hash: string;
  /** The 80-byte header. */
  readonly header: Uint8Array;
  readonly version: number;
  readonly prevHash: string;
  readonly merkleRoot: string;
  readonly time: number;
  readonly bits: number;
  readonly nonce: number;
  readonly txs: readonly ChainTx[];
  /** Serialized block size with witness, without witness, and weight. */
  readonly size: number;
  readonly strippedSize: number;
  readonly weight: number;
  /** Median time past (median of this block's and up to 10 previous blocks' times). */
  readonly medianTime: number;
  /** Wall-clock second when the devnet made/stored the block. */
  readonly receivedTime: number;
}

/** Where an output was created and who spends it. */
export interface OutputInfo {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly script: Uint8Array;
  /** Height of the block holding the creating tx; null while unconfirmed. */
  readonly height: number | null;
  /** Position of the creating tx in its block; null while unconfirmed. */
  readonly txIndex: number | null;
  readonly coinbase: boolean;
}

export interface Spender {
  readonly txid: string;
  readonly vin: number;
  /** true when the spending tx is in a block, false when it is in the mempool. */
  readonly confirmed: boolean;
}

/** Read-only view of the chain the index server renders. Implemented by devnet/chain/chain.ts. */
export interface ChainView {
  tipHeight(): number;
  blockAt(height: number): ChainBlock | undefined;
  blockByHash(hash: string): ChainBlock | undefined;
  /** Finds a confirmed or mempool tx by txid. `firstSeen` is when the devnet first saw it. */
  findTx(txid: string):
    | { tx: ChainTx; block: ChainBlock | null; index: number | null; firstSeen: number }
    | undefined;
  /** The output `txid:vout` (confirmed or mempool), or undefined. */
  output(txid: string, vout: number): OutputInfo | undefined;
  /** Spenders of an output: mempool spenders first, then the confirmed one. */
  spenders(txid: string, vout: number): readonly Spender[];
  /**
   * Confirmed outputs paying exactly `script` that no confirmed or mempool tx spends,
   * ascending by (height, txIndex, vout).
   */
  unspentForScript(script: Uint8Array): readonly OutputInfo[];
  /**
   * The pay-to-pubkey script (`<key> OP_CHECKSIG`) first seen in a block for the key whose hash160
   * is `keyHash`: the server's p2pk map (`connector_p2pk_map`), which lets a P2PKH address's UTXO
   * query also find the outputs paying its key directly. Kept once seen, like the server's table.
   */
  p2pkScript(keyHash: Uint8Array): Uint8Array | undefined;
  /** Mempool txids ordered by fee rate, highest first (for mempoolRank). */
  mempoolByFeeRate(): readonly string[];
}
