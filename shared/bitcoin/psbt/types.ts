/**
 * The one PSBT model (Core's PartiallySignedTransaction, src/psbt.h): version 0 and version 2
 * alike. The reader (model.ts) fills it, the writer (serialize.ts), the converter, the decodepsbt
 * JSON writers and the review all read it.
 *
 * Byte fields are views into the bytes the PSBT was read from (never copied; do not modify that
 * buffer while the model is in use). Map keys are hex strings chosen so that sorting them as
 * strings gives Core's std::map / std::set order.
 */
import type { ParsedTx, TxOut } from '../tx';

export interface KeyOrigin {
  /** Master key fingerprint (4 bytes). */
  fp: Uint8Array;
  /** Derivation steps, hardened ones ≥ 0x80000000. */
  path: number[];
}

export interface Proprietary {
  identifier: Uint8Array;
  subtype: number;
  /** The whole key (type byte, identifier, subtype, key data). */
  key: Uint8Array;
  value: Uint8Array;
}

export interface TapBip32 {
  /** Leaf hashes (hex), sorted and without repeats (std::set<uint256>). */
  leafHashes: string[];
  origin: KeyOrigin;
}

export interface TapLeafScript {
  script: Uint8Array;
  scriptHex: string;
  ver: number;
  /** Control blocks by hex (Core orders them shortest first, then bytewise). */
  controls: Map<string, Uint8Array>;
}

export interface MusigParticipants {
  /** Aggregate pubkey hex. */
  agg: string;
  parts: string[];
}

export interface MusigDatum {
  part: string;
  agg: string;
  /** Leaf hash hex; 64 zeros for none (key path). */
  leaf: string;
  /** Pubnonce (66 bytes) or partial signature (32 bytes), hex. */
  value: string;
}

export interface PsbtInput {
  /** Previous txid, internal byte order (v0: from the unsigned transaction; v2: PSBT_IN_PREVIOUS_TXID). */
  prevHash: Uint8Array;
  /** Previous txid in display hex. */
  prevTxid: string;
  /** Previous output index (v2: PSBT_IN_OUTPUT_INDEX). */
  vout: number;
  /** nSequence; 0xffffffff when a v2 input has no PSBT_IN_SEQUENCE (see hasSequence). */
  sequence: number;
  /** v0: always; v2: PSBT_IN_SEQUENCE present. */
  hasSequence: boolean;
  /** v2 only: PSBT_IN_REQUIRED_TIME_LOCKTIME / _HEIGHT_LOCKTIME. */
  timeLocktime?: number;
  heightLocktime?: number;

  nonWitnessUtxo?: ParsedTx;
  /** The non_witness_utxo's bytes as read (with its witness, if it had one). */
  nonWitnessUtxoBytes?: Uint8Array;
  witnessUtxo?: TxOut;
  /** Partial signatures by key id (hash160 of the pubkey, hex). */
  partialSigs: Map<string, { pubkey: Uint8Array; sig: Uint8Array }>;
  /** PSBT_IN_SIGHASH as read (int32). */
  sighash?: number;
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  /** BIP32 derivations by pubkey hex. */
  hdKeypaths: Map<string, KeyOrigin>;
  finalScriptSig?: Uint8Array;
  finalScriptWitness?: Uint8Array[];
  /** Preimages by hash hex (key bytes order). */
  ripemd160: Map<string, Uint8Array>;
  sha256: Map<string, Uint8Array>;
  hash160: Map<string, Uint8Array>;
  hash256: Map<string, Uint8Array>;
  tapKeySig?: Uint8Array;
  /** Taproot script-path signatures by x-only key hex + leaf hash hex. */
  tapScriptSigs: Map<string, { pubkey: string; leaf: string; sig: Uint8Array }>;
  /** Taproot leaf scripts by script hex + ':' + leaf version. */
  tapScripts: Map<string, TapLeafScript>;
  /** Taproot BIP32 derivations by x-only key hex. */
  tapBip32: Map<string, TapBip32>;
  tapInternalKey?: Uint8Array;
  tapMerkleRoot?: Uint8Array;
  musigParticipants: Map<string, MusigParticipants>;
  musigPubnonces: Map<string, MusigDatum>;
  musigPartialSigs: Map<string, MusigDatum>;
  /** Proprietary and unknown fields by their whole key's hex. */
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

export interface TapTreeLeaf {
  depth: number;
  ver: number;
  script: Uint8Array;
}

export interface PsbtOutput {
  /** Amount in satoshis (v0: from the unsigned transaction; v2: PSBT_OUT_AMOUNT). */
  value: bigint;
  /** scriptPubKey (v2: PSBT_OUT_SCRIPT). */
  script: Uint8Array;
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  hdKeypaths: Map<string, KeyOrigin>;
  tapInternalKey?: Uint8Array;
  tapTree: TapTreeLeaf[];
  tapBip32: Map<string, TapBip32>;
  musigParticipants: Map<string, MusigParticipants>;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

export interface GlobalXpub {
  /** The 78 serialized bytes (version, depth, parent fingerprint, child, chain code, pubkey). */
  key: Uint8Array;
  /** CExtPubKey order: pubkey then chain code (hex). */
  sort: string;
}

export interface Psbt {
  /** PSBT_GLOBAL_VERSION (0 when absent). */
  version: 0 | 2;
  /** The transaction's nVersion (v0: the unsigned transaction's; v2: PSBT_GLOBAL_TX_VERSION), uint32. */
  txVersion: number;
  /** v0: the unsigned transaction's nLockTime; v2: PSBT_GLOBAL_FALLBACK_LOCKTIME when present. */
  fallbackLocktime?: number;
  /** v2 only: PSBT_GLOBAL_TX_MODIFIABLE (bit 0 inputs, bit 1 outputs, bit 2 has SIGHASH_SINGLE). */
  txModifiable?: number;
  /**
   * The transaction's nLockTime as Core computes it (ComputeTimeLock): v0 the unsigned
   * transaction's; v2 from the inputs' required locktimes, else the fallback, else 0. Null when
   * the inputs require both kinds of locktime and no transaction can satisfy them all.
   */
  locktime: number | null;
  /** v0: the unsigned transaction as read. */
  unsignedTx?: ParsedTx;
  /** Global xpubs grouped by origin (sort key of the origin). */
  xpubs: Map<string, { origin: KeyOrigin; xpubs: GlobalXpub[] }>;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
  inputs: PsbtInput[];
  outputs: PsbtOutput[];
}
