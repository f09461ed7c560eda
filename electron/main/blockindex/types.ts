// Types of the bitaps-style block index (interface B, shared/spec/index-api.md). Two layers:
// - `Wire*`: the JSON as the server sends it (amounts are JSON integers, inputs/outputs are objects
//   keyed "0", "1", …; optional keys are absent rather than null). Documentation of the contract;
//   nothing is trusted to have this type until validate.ts has checked it.
// - `Index*`: what the client returns after validation: amounts as bigint satoshis (never floats),
//   inputs/outputs as arrays in index order, keys that the server may omit turned into null.

// ---------- wire ----------

/** Success envelope of every endpoint (spec §1). `time` is the server's query time; clients ignore it. */
export interface WireEnvelope<T> {
  data: T;
  time: number;
}

/** Error body of statuses 400/404/500 (spec §7). */
export interface WireErrorBody {
  error_code: number;
  message: string;
  details: string;
}

/** `GET /v1/blockchain/block/<pointer>` (spec §2). */
export interface WireBlock {
  height: number;
  hash: string;
  header: string;
  version: number;
  previousBlockHash: string | null;
  merkleRoot: string;
  bits: number;
  nonce: number;
  weight: number;
  size: number;
  strippedSize: number;
  amount: number;
  target: string;
  miner: { name: string; link: string } | null;
  medianBlockTime: number;
  blockTime: number;
  receivedTimestamp: number;
  adjustedTimestamp: number;
  bitsHex: string;
  nonceHex: string;
  versionHex: string;
  difficulty: number;
  blockDifficulty: number;
  nextBlockHash: string | null;
  estimatedBlockReward: number;
  blockReward: number;
  blockFeeReward: number;
  confirmations: number;
  transactionsCount: number;
  coinbase: string;
}

/** One `vIn["i"]` record (spec §3.2). A coinbase input has only txId, vOut, scriptSig, sequence (+ txInWitness). */
export interface WireTxIn {
  txId: string;
  vOut: number;
  scriptSig: string;
  sequence: number;
  txInWitness?: string[];
  scriptSigOpcodes?: string;
  scriptSigAsm?: string;
  type?: string;
  amount?: number;
  blockHeight?: number | null;
  confirmations?: number | null;
  address?: string;
  scriptPubKey?: string;
  scriptPubKeyOpcodes?: string;
  scriptPubKeyAsm?: string;
}

/** One `vOut["i"]` record (spec §3.3). */
export interface WireTxOut {
  value: number;
  scriptPubKey: string;
  nType: number;
  type: string;
  addressHash?: string;
  reqSigs?: number | null;
  address?: string;
  scriptPubKeyOpcodes: string;
  scriptPubKeyAsm: string;
  spent: { txId: string; vIn: number }[];
}

/** `GET /v1/blockchain/transaction/<txid>` (spec §3.1). */
export interface WireTransaction {
  segwit: boolean;
  rbf: boolean;
  txId: string;
  hash: string;
  version: number;
  size: number;
  vSize: number;
  bSize: number;
  lockTime: number;
  vIn: Record<string, WireTxIn>;
  vOut: Record<string, WireTxOut>;
  rawTx?: string;
  blockHash: string | null;
  confirmations: number | null;
  time: number;
  blockTime: number | null;
  blockIndex: number | null;
  coinbase: boolean;
  fee: number;
  data: string | null;
  amount: number;
  flag?: string;
  weight: number;
  inputsAmount: number;
  outputsAmount: number;
  blockHeight: number | null;
  adjustedTimestamp: number | null;
  merkleProof?: string;
  mempoolRank?: number;
  valid: boolean;
  feeRate: number;
}

/** One entry of `GET /v1/blockchain/address/utxo/<address>` (spec §6). */
export interface WireUtxo {
  txId: string;
  vOut: number;
  block: number;
  txIndex: number;
  amount: number;
  /** Only for P2PKH addresses queried without `type`: "P2PKH" or "PUBKEY". */
  type?: string;
}

// ---------- normalized (what IndexClient returns) ----------

export interface IndexBlock {
  height: number;
  /** 64 lowercase hex, display order (as in RPC). */
  hash: string;
  /** base64 of the 80-byte header followed by the varint tx count. */
  header: string;
  version: number;
  /** null only if a server writes null for the genesis block (the devnet writes 64 zeros). */
  previousBlockHash: string | null;
  merkleRoot: string;
  bits: number;
  nonce: number;
  weight: number;
  size: number;
  strippedSize: number;
  /** Sum of all outputs of all transactions in the block, satoshis. */
  amount: bigint;
  target: string;
  miner: { name: string; link: string } | null;
  medianBlockTime: number;
  blockTime: number;
  receivedTimestamp: number;
  adjustedTimestamp: number;
  bitsHex: string;
  nonceHex: string;
  versionHex: string;
  difficulty: number;
  blockDifficulty: number;
  /** null at the tip. */
  nextBlockHash: string | null;
  estimatedBlockReward: bigint;
  blockReward: bigint;
  blockFeeReward: bigint;
  confirmations: number;
  transactionsCount: number;
  /** The coinbase input's scriptSig, hex. */
  coinbase: string;
}

export interface IndexTxIn {
  /** Position in the transaction (the key of `vIn`). */
  index: number;
  /** Previous txid (64 zeros for a coinbase input). */
  txId: string;
  /** Previous output index (4294967295 for a coinbase input). */
  vOut: number;
  scriptSig: string;
  sequence: number;
  /** true for the input of a coinbase transaction; then every field below is null. */
  coinbase: boolean;
  /** Witness stack (hex items); null when the server omits it (non-segwit tx). */
  txInWitness: string[] | null;
  scriptSigOpcodes: string | null;
  scriptSigAsm: string | null;
  /** Script type of the spent output (spec §4). */
  type: string | null;
  /** Value of the spent output, satoshis. */
  amount: bigint | null;
  /** Height of the block holding the spent output; null when unconfirmed (or coinbase input). */
  blockHeight: number | null;
  confirmations: number | null;
  /** Address of the spent output; null when its type has none. */
  address: string | null;
  scriptPubKey: string | null;
  scriptPubKeyOpcodes: string | null;
  scriptPubKeyAsm: string | null;
}

export interface IndexTxOut {
  /** Output index (the key of `vOut`). */
  index: number;
  value: bigint;
  scriptPubKey: string;
  nType: number;
  type: string;
  /** null for types without an address (spec §3.3). */
  addressHash: string | null;
  reqSigs: number | null;
  address: string | null;
  scriptPubKeyOpcodes: string;
  scriptPubKeyAsm: string;
  /** Spending transactions and input indexes; empty when unspent. */
  spent: { txId: string; vIn: number }[];
}

export interface IndexTransaction {
  txId: string;
  /** wtxid; equals txId for a non-segwit tx. */
  hash: string;
  segwit: boolean;
  rbf: boolean;
  version: number;
  size: number;
  vSize: number;
  bSize: number;
  weight: number;
  lockTime: number;
  vIn: IndexTxIn[];
  vOut: IndexTxOut[];
  /** Containing block; all six are null while the tx is unconfirmed. */
  blockHash: string | null;
  blockHeight: number | null;
  blockIndex: number | null;
  blockTime: number | null;
  adjustedTimestamp: number | null;
  confirmations: number | null;
  /** First-seen time, UNIX seconds. */
  time: number;
  coinbase: boolean;
  /** Payload of the first NULL_DATA output, hex; null if none. */
  data: string | null;
  amount: bigint;
  inputsAmount: bigint;
  outputsAmount: bigint;
  fee: bigint;
  /** sat/vB, rounded to 2 decimals by the server. */
  feeRate: number;
  valid: boolean;
  /** "01" for segwit transactions; null when absent. */
  flag: string | null;
  /** base64 merkle branch; null when absent (unconfirmed, or the server has proofs off). */
  merkleProof: string | null;
  /** Unconfirmed only: 1 = highest fee rate in the mempool. */
  mempoolRank: number | null;
  /** base64 raw transaction when requested with raw_tx; else null. */
  rawTx: string | null;
}

export interface IndexUtxo {
  txId: string;
  vOut: number;
  /** Height of the block containing the creating tx. */
  block: number;
  /** Position of the creating tx in its block. */
  txIndex: number;
  amount: bigint;
  /** "P2PKH" / "PUBKEY" when the server labels the entries of a P2PKH address (spec §6); null when absent. addressUtxo returns no "PUBKEY" entry. */
  type: string | null;
}
