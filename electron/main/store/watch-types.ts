// The public types and constants of the watch-only repository (store/watch.ts re-exports them all):
// the watched set, labels, snapshots and their rows, refresh steps and failures. No code.

export type AddressSource = 'node' | 'user';

export interface WatchedAddress {
  address: string;
  source: AddressSource;
  hidden: boolean;
  addedAt: string;
}

export const LABEL_TYPES = ['addr', 'tx', 'output', 'input', 'pubkey', 'xpub'] as const;
export type LabelType = (typeof LABEL_TYPES)[number];

export interface Label {
  type: LabelType;
  ref: string;
  label: string;
  /** BIP329 `spendable` (outputs only); null when not set. */
  spendable: boolean | null;
  /** BIP329 `origin` (key origin of a descriptor); null when not set. */
  origin: string | null;
  updatedAt: string;
}

export interface LabelInput {
  type: LabelType;
  ref: string;
  label: string;
  spendable?: boolean | null;
  origin?: string | null;
}

export type SnapshotStatus = 'ok' | 'partial' | 'failed';
/** The steps of a refresh, in order (electron/main/refresh/engine.ts). */
export const REFRESH_STEPS = ['received', 'addressinfo', 'tips', 'utxos', 'write'] as const;
export type RefreshStep = (typeof REFRESH_STEPS)[number];

export interface Tip {
  height: number;
  hash: string;
}

/**
 * The unit of data (#26): one node wallet (by its name on the node; '' while a profile names none)
 * under one profile (a node connection). Watched addresses, address info, labels and snapshots belong
 * to a wallet.
 */
export interface WalletKey {
  profileId: string;
  wallet: string;
}

/**
 * A wallet, or a profile id standing for the wallet the profile names now (its `wallet` field, trimmed).
 * Code that must not follow a switch made while it runs (a refresh, the monitor) passes a WalletKey.
 */
export type WalletScope = string | WalletKey;

export interface Snapshot {
  id: number;
  profileId: string;
  /** The node wallet it was taken of. */
  wallet: string;
  takenAt: string;
  /** Node tip when the snapshot was taken (null on a failed row when it was not known). */
  node: Tip | null;
  /** Index tip the UTXO lookups are at least as fresh as (null on a failed row when not known). */
  index: Tip | null;
  status: SnapshotStatus;
  failedStep: RefreshStep | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** Totals of a good snapshot (null on a failed row). */
  addressCount: number | null;
  receivedSats: bigint | null;
  balanceSats: bigint | null;
  utxoCount: number | null;
  /**
   * The node wallet's state (getwalletinfo `txcount` and `lastprocessedblock` hash) that the
   * node-unspent digests of this snapshot go with; null when not known (migration 0030).
   */
  walletState: string | null;
}

/**
 * One unconfirmed coin of the node wallet (listunspent minconf 0, `confirmations` 0). `safe` is
 * listunspent's own: our own unconfirmed change (Core's "trusted") when true, a payment from others
 * (getbalances' untrusted_pending) when false.
 */
export interface PendingCoin {
  txid: string;
  vout: number;
  amountSats: bigint;
  safe: boolean;
}

/** The node's unspent outputs of one address (from listunspent), summarized. */
export interface NodeUnspent {
  /** Digest of the sorted confirmed outpoints: equal digests mean the same set. */
  hash: string;
  /** Sum and count of the confirmed ones. */
  sats: bigint;
  count: number;
  /**
   * Its unconfirmed coins (in the node's mempool), sorted by outpoint; null when not known (a row
   * written before schema 98).
   */
  pending: PendingCoin[] | null;
}

/** One listreceivedbyaddress entry. */
export interface ReceivedRecord {
  address: string;
  amountSats: bigint;
  confirmations: number;
  txids: string[];
  nodeLabel: string;
  nodeUnspent: NodeUnspent | null;
}

export interface UtxoRecord {
  txid: string;
  vout: number;
  amountSats: bigint;
  /** Height of the block holding the creating transaction (null if the index lists it unconfirmed). */
  height: number | null;
}

export type FetchState = 'fetched' | 'carried' | 'failed';

/** Per address of a snapshot: where its UTXOs come from and when they were last fetched. */
export interface AddressFetch {
  address: string;
  source: AddressSource;
  state: FetchState;
  /** When the UTXOs were last actually fetched (null: never). */
  fetchedAt: string | null;
  fetchedIndexHeight: number | null;
  errorCode: string | null;
}

export type SnapshotAddress =
  | { address: string; source: AddressSource; state: 'fetched'; utxos: UtxoRecord[] }
  | { address: string; source: AddressSource; state: 'carried' }
  | { address: string; source: AddressSource; state: 'failed'; errorCode: string };

/** A getaddressinfo reply to store: the parsed value, or its JSON text already written (`infoJson`). */
export type InfoRecord = { address: string; info: unknown } | { address: string; infoJson: string };

export interface NewSnapshot {
  takenAt: string;
  node: Tip;
  index: Tip;
  /** The latest good snapshot, whose UTXOs 'carried' and 'failed' addresses keep; null for the first. */
  previousId: number | null;
  /** listreceivedbyaddress: the node addresses of this snapshot (each also in `addresses`). */
  received: ReceivedRecord[];
  /** Every watched address of the snapshot (node and user), once each. */
  addresses: SnapshotAddress[];
  /** getaddressinfo replies fetched in this refresh (stored as JSON text). */
  infos?: ReadonlyArray<InfoRecord>;
  /** The node wallet's state the node-unspent digests of `received` go with (Snapshot.walletState). */
  walletState?: string | null;
}

export interface BalanceRow {
  address: string;
  source: AddressSource;
  hidden: boolean;
  /** The node's label (listreceivedbyaddress); null for user addresses. */
  nodeLabel: string | null;
  /** The local `addr` label; null when none. */
  label: string | null;
  /** Total received per the node; null for user addresses. */
  receivedSats: bigint | null;
  /** Confirmations of the node's most recent receive (0: unconfirmed or none); null for user addresses. */
  receivedConfirmations: number | null;
  /** Transactions paying the address per the node; null for user addresses. */
  receivedTxCount: number | null;
  /** Sum of the index UTXOs. */
  balanceSats: bigint;
  utxoCount: number;
  /** Confirmations of the youngest UTXO against the snapshot's index tip; null without UTXOs. */
  minConfirmations: number | null;
  /** Height of the youngest UTXO (last activity the index shows); null without UTXOs. */
  lastActivityHeight: number | null;
  /** The node's own view of the confirmed UTXOs (reconciliation); null when not asked or user address. */
  nodeUnspentSats: bigint | null;
  nodeUnspentCount: number | null;
  /**
   * The node wallet's unconfirmed coins at the address: our own change (safe, Core's trusted) and
   * payments from others (untrusted_pending). Null when not known: a user address outside the node's
   * wallet (the index lists confirmed outputs only), the spend check off, or a pre-schema-98 row.
   */
  pendingTrustedSats: bigint | null;
  pendingUntrustedSats: bigint | null;
  pendingCount: number | null;
  fetchState: FetchState;
  fetchedAt: string | null;
  errorCode: string | null;
}

export interface UtxoRow extends UtxoRecord {
  address: string;
  /** Against the snapshot's index tip; null when the height is unknown. */
  confirmations: number | null;
}

export interface SnapshotDiff {
  fromId: number | null;
  toId: number;
  newUtxos: UtxoRow[];
  spentUtxos: UtxoRow[];
  /** Txids the new snapshot mentions (node txids, UTXO txids) that the previous one did not. */
  newTxids: string[];
}

export interface DiffSummary {
  newUtxos: number;
  newSats: bigint;
  spentUtxos: number;
  spentSats: bigint;
  newTxids: number;
}

export interface HistoryPoint {
  snapshotId: number;
  takenAt: string;
  status: 'ok' | 'partial';
  nodeHeight: number | null;
  indexHeight: number | null;
  addressCount: number;
  receivedSats: bigint;
  balanceSats: bigint;
  utxoCount: number;
}

export interface FailureRecord {
  takenAt: string;
  step: RefreshStep;
  code: string;
  message: string;
  node?: Tip | null;
  index?: Tip | null;
}

/** Snapshots kept per profile by default (older good snapshots, and failures before them, are pruned). */
export const DEFAULT_KEEP_SNAPSHOTS = 50;
