/**
 * The PSBT key types (BIP174, BIP370, BIP371, BIP373) as data: their numbers, which PSBT version
 * allows them, and the exact texts each Core generation fails with (src/psbt.h). The reader
 * (read-*.ts) and the writer (serialize.ts) take their numbers and texts from here.
 */

/** One key type's texts. */
export interface KeySpec {
  /** Core ≥ 31.99: ExpectedKeySize(name, key, size) → "Size of key was not {size} for the type {name}". */
  readonly name: string;
  readonly size: number;
  /** Core v30: the repeated-key text (absent: the type had no check of its own). */
  readonly v30Dup?: string;
  /** Core v30: the wrong-key-size text. */
  readonly v30Size?: string;
  /** BIP370 types: Core ≥ 31.99's text for the type in a version 0 PSBT. */
  readonly notInV0?: string;
}

export const GLOBAL = {
  UNSIGNED_TX: 0x00,
  XPUB: 0x01,
  TX_VERSION: 0x02,
  FALLBACK_LOCKTIME: 0x03,
  INPUT_COUNT: 0x04,
  OUTPUT_COUNT: 0x05,
  TX_MODIFIABLE: 0x06,
  VERSION: 0xfb,
  PROPRIETARY: 0xfc,
} as const;

export const IN = {
  NON_WITNESS_UTXO: 0x00,
  WITNESS_UTXO: 0x01,
  PARTIAL_SIG: 0x02,
  SIGHASH: 0x03,
  REDEEM_SCRIPT: 0x04,
  WITNESS_SCRIPT: 0x05,
  BIP32_DERIVATION: 0x06,
  FINAL_SCRIPTSIG: 0x07,
  FINAL_SCRIPTWITNESS: 0x08,
  RIPEMD160: 0x0a,
  SHA256: 0x0b,
  HASH160: 0x0c,
  HASH256: 0x0d,
  PREVIOUS_TXID: 0x0e,
  OUTPUT_INDEX: 0x0f,
  SEQUENCE: 0x10,
  REQUIRED_TIME_LOCKTIME: 0x11,
  REQUIRED_HEIGHT_LOCKTIME: 0x12,
  TAP_KEY_SIG: 0x13,
  TAP_SCRIPT_SIG: 0x14,
  TAP_LEAF_SCRIPT: 0x15,
  TAP_BIP32_DERIVATION: 0x16,
  TAP_INTERNAL_KEY: 0x17,
  TAP_MERKLE_ROOT: 0x18,
  MUSIG2_PARTICIPANT_PUBKEYS: 0x1a,
  MUSIG2_PUB_NONCE: 0x1b,
  MUSIG2_PARTIAL_SIG: 0x1c,
  PROPRIETARY: 0xfc,
} as const;

export const OUT = {
  REDEEM_SCRIPT: 0x00,
  WITNESS_SCRIPT: 0x01,
  BIP32_DERIVATION: 0x02,
  AMOUNT: 0x03,
  SCRIPT: 0x04,
  TAP_INTERNAL_KEY: 0x05,
  TAP_TREE: 0x06,
  TAP_BIP32_DERIVATION: 0x07,
  MUSIG2_PARTICIPANT_PUBKEYS: 0x08,
  PROPRIETARY: 0xfc,
} as const;

/** The BIP370 (version 2) types of each map: unknown keys to Core v30, checked by Core ≥ 31.99. */
export const V2_GLOBAL_TYPES: ReadonlySet<number> = new Set([0x02, 0x03, 0x04, 0x05, 0x06]);
export const V2_INPUT_TYPES: ReadonlySet<number> = new Set([0x0e, 0x0f, 0x10, 0x11, 0x12]);
export const V2_OUTPUT_TYPES: ReadonlySet<number> = new Set([0x03, 0x04]);

const oneByte = (name: string, v30Dup?: string, v30Size?: string, notInV0?: string): KeySpec => ({ name, size: 1, v30Dup, v30Size, notInV0 });

export const GLOBAL_KEYS = {
  unsignedTx: oneByte('Global Unsigned TX', 'Duplicate Key, unsigned tx already provided', 'Global unsigned tx key is more than one byte type'),
  xpub: { name: 'Global XPUB', size: 79, v30Dup: 'Duplicate key, global xpub already provided', v30Size: 'Size of key was not the expected size for the type global xpub' },
  txVersion: oneByte('Global Transaction Version'),
  fallbackLocktime: oneByte('Global Fallback Locktime'),
  inputCount: oneByte('Global Input Count'),
  outputCount: oneByte('Global Output Count'),
  txModifiable: oneByte('Global TX Modifiable Flags'),
  version: oneByte('Global PSBT Version', 'Duplicate Key, version already provided', 'Global version key is more than one byte type'),
} satisfies Record<string, KeySpec>;

export const INPUT_KEYS = {
  nonWitnessUtxo: oneByte('Input Non-witness UTXO', 'Duplicate Key, input non-witness utxo already provided', 'Non-witness utxo key is more than one byte type'),
  witnessUtxo: oneByte('Input Witness UTXO', 'Duplicate Key, input witness utxo already provided', 'Witness utxo key is more than one byte type'),
  sighash: oneByte('Input Sighash Type', 'Duplicate Key, input sighash type already provided', 'Sighash type key is more than one byte type'),
  redeemScript: oneByte('Input redeemScript', 'Duplicate Key, input redeemScript already provided', 'Input redeemScript key is more than one byte type'),
  witnessScript: oneByte('Input witnessScript', 'Duplicate Key, input witnessScript already provided', 'Input witnessScript key is more than one byte type'),
  finalScriptSig: oneByte('Input Final scriptSig', 'Duplicate Key, input final scriptSig already provided', 'Final scriptSig key is more than one byte type'),
  finalScriptWitness: oneByte('Input Final scriptWitness', 'Duplicate Key, input final scriptWitness already provided', 'Final scriptWitness key is more than one byte type'),
  ripemd160: { name: 'Input RIPEMD160 Preimage', size: 21, v30Dup: 'Duplicate Key, input ripemd160 preimage already provided', v30Size: 'Size of key was not the expected size for the type ripemd160 preimage' },
  sha256: { name: 'Input SHA256 Preimage', size: 33, v30Dup: 'Duplicate Key, input sha256 preimage already provided', v30Size: 'Size of key was not the expected size for the type sha256 preimage' },
  hash160: { name: 'Input Hash160 Preimage', size: 21, v30Dup: 'Duplicate Key, input hash160 preimage already provided', v30Size: 'Size of key was not the expected size for the type hash160 preimage' },
  hash256: { name: 'Input Hash256 Preimage', size: 33, v30Dup: 'Duplicate Key, input hash256 preimage already provided', v30Size: 'Size of key was not the expected size for the type hash256 preimage' },
  previousTxid: oneByte('Input Previous TXID', undefined, undefined, 'Previous txid is not allowed in PSBTv0'),
  outputIndex: oneByte("Input Previous Output's Index", undefined, undefined, "Previous output's index is not allowed in PSBTv0"),
  sequence: oneByte('Input Sequence', undefined, undefined, 'Sequence is not allowed in PSBTv0'),
  timeLocktime: oneByte('Input Required Time Based Locktime', undefined, undefined, 'Required time based locktime is not allowed in PSBTv0'),
  heightLocktime: oneByte('Input Required Height Based Locktime', undefined, undefined, 'Required height based locktime is not allowed in PSBTv0'),
  tapKeySig: oneByte('Input Taproot Key Path Signature', 'Duplicate Key, input Taproot key signature already provided', 'Input Taproot key signature key is more than one byte type'),
  tapScriptSig: { name: 'Input Taproot Script Path Signature', size: 65, v30Dup: 'Duplicate Key, input Taproot script signature already provided', v30Size: 'Input Taproot script signature key is not 65 bytes' },
  tapBip32: { name: 'Input Taproot BIP32 Keypath', size: 33, v30Dup: 'Duplicate Key, input Taproot BIP32 keypath already provided', v30Size: 'Input Taproot BIP32 keypath key is not at 33 bytes' },
  tapInternalKey: oneByte('Input Taproot Internal Key', 'Duplicate Key, input Taproot internal key already provided', 'Input Taproot internal key key is more than one byte type'),
  tapMerkleRoot: oneByte('Input Taproot Merkle Root', 'Duplicate Key, input Taproot merkle root already provided', 'Input Taproot merkle root key is more than one byte type'),
  musigParticipants: {
    name: 'Input MuSig2 Participants Pubkeys',
    size: 34,
    v30Dup: 'Duplicate Key, input participant pubkeys for an aggregate key already provided',
    v30Size: 'Input musig2 participants pubkeys aggregate key is not 34 bytes',
  },
} satisfies Record<string, KeySpec>;

export const OUTPUT_KEYS = {
  redeemScript: oneByte('Output redeemScript', 'Duplicate Key, output redeemScript already provided', 'Output redeemScript key is more than one byte type'),
  witnessScript: oneByte('Output witnessScript', 'Duplicate Key, output witnessScript already provided', 'Output witnessScript key is more than one byte type'),
  amount: oneByte('Output Amount', undefined, undefined, 'Output amount is not allowed in PSBTv0'),
  script: oneByte('Output Script', undefined, undefined, 'Output script is not allowed in PSBTv0'),
  tapInternalKey: oneByte('Output Taproot Internal Key', 'Duplicate Key, output Taproot internal key already provided', 'Output Taproot internal key key is more than one byte type'),
  tapTree: oneByte('Output Taproot Tree Key', 'Duplicate Key, output Taproot tree already provided', 'Output Taproot tree key is more than one byte type'),
  tapBip32: { name: 'Output Taproot BIP32 Keypath', size: 33, v30Dup: 'Duplicate Key, output Taproot BIP32 keypath already provided', v30Size: 'Output Taproot BIP32 keypath key is not at 33 bytes' },
  musigParticipants: {
    name: 'Output MuSig2 Participants Pubkeys',
    size: 34,
    v30Dup: 'Duplicate Key, output participant pubkeys for an aggregate key already provided',
    v30Size: 'Output musig2 participants pubkeys aggregate key is not 34 bytes',
  },
} satisfies Record<string, KeySpec>;

/** The three maps, as Core names them in "Duplicate Key, {map} key … already provided". */
export type MapName = 'global' | 'input' | 'output';
