/** Public descriptor types (port of Bitcoin Core src/script/descriptor.cpp). */

export interface KeyOriginInfo {
  /** 4-byte fingerprint. */
  fingerprint: Uint8Array;
  /** Hardened steps have bit 0x80000000 set. */
  path: number[];
}

export interface ExpandedKey {
  /** 33-byte (or 65-byte uncompressed) public key. */
  pubkey: Uint8Array;
  /** Core's key origin for the key (for a plain hex key: its own HASH160 fingerprint, empty path). */
  origin?: KeyOriginInfo;
  /**
   * A musig() key: the (underived) aggregate and its participants, sorted (what MuSigPubkeyProvider
   * puts in the provider: the participants' keys and origins, and aggregate_pubkeys).
   */
  musig?: { agg: Uint8Array; parts: ExpandedKey[] };
}

export interface Expansion {
  script: Uint8Array;
  pubkeys: ExpandedKey[];
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  /** tr(): 32-byte x-only internal key. */
  internalKey?: Uint8Array;
  /** tr() with a script tree: each leaf's script (leaf version 0xc0) and depth, in tree order. */
  tapLeaves?: { script: Uint8Array; depth: number }[];
}

/** Error thrown by getDescriptorInfo/deriveAddresses with Core's RPC error code. */
export class DescriptorRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'DescriptorRpcError';
  }
}

