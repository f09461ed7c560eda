// Wire types of the watch-only channels (issue 5). Amounts cross IPC as decimal strings of satoshis
// ("12345"): JSON has no bigint and floats are never used for money. The renderer turns them into
// bigint with BigInt() and formats them with shared/amounts.

export type Sats = string;

export interface SnapshotView {
  id: number;
  takenAt: string;
  nodeHeight: number | null;
  nodeHash: string | null;
  indexHeight: number | null;
  indexHash: string | null;
  status: 'ok' | 'partial' | 'failed';
  addressCount: number;
  receivedSats: Sats;
  balanceSats: Sats;
  utxoCount: number;
}

export interface RefreshFailure {
  at: string;
  step: 'received' | 'addressinfo' | 'tips' | 'utxos' | 'write';
  code: string;
  message: string;
}

export interface BalanceRowView {
  address: string;
  /** p2pkh | p2sh | p2wpkh | p2wsh | p2tr | unknown (from the address itself) */
  type: string;
  source: 'node' | 'user';
  hidden: boolean;
  nodeLabel: string | null;
  label: string | null;
  receivedSats: Sats | null;
  receivedConfirmations: number | null;
  receivedTxCount: number | null;
  /** Confirmed: the sum of the unspent outputs the index (or, without one, the node) lists. */
  balanceSats: Sats;
  /**
   * The node wallet's unconfirmed coins at the address: our own change (listunspent `safe`, which
   * getbalances counts as trusted) and payments from others (untrusted_pending). Null when not known
   * (an address outside the node's wallet: the index lists confirmed outputs only) — shown "unknown".
   */
  pendingTrustedSats: Sats | null;
  pendingUntrustedSats: Sats | null;
  pendingCount: number | null;
  utxoCount: number;
  minConfirmations: number | null;
  lastActivityHeight: number | null;
  fetchState: 'fetched' | 'carried' | 'failed';
  fetchedAt: string | null;
  errorCode: string | null;
}

/**
 * The balances rows column by column: entry i of every array belongs to row i (rows in address
 * order), one array per field of BalanceRowView. At 10,000+ rows this is well under half the JSON of
 * one object per row, and faster to build, send and parse. shared/ipc/balance-columns.ts converts
 * between the two.
 */
export type BalanceColumns = { [K in keyof BalanceRowView]: Array<BalanceRowView[K]> };

/** What the Balances table shows: its sort, its filter text, and whether hidden rows are listed. */
export interface BalanceQuery {
  sort: import('../balance-query').SortKey;
  dir: import('../balance-query').SortDir;
  filter: string;
  showHidden: boolean;
}

/**
 * Rows `from`… of a large wallet's balances in the order and filter of `query`, sorted and filtered
 * in main (`watch:overview-page`; the first page comes with `watch:overview`). Every number is of the
 * same rows as `version`: a page of another version belongs to other data (a refresh, a label, another
 * wallet) and is dropped.
 */
export interface BalancePage {
  /** The data the page is of: profile, snapshot and the database's version when it was read. */
  version: string;
  query: BalanceQuery;
  from: number;
  rows: BalanceColumns;
  /** How many rows match the query. */
  count: number;
  /** Of the rows matching the query (what the table's footer shows). */
  totals: BalanceTotals;
  /** Every row of the snapshot, hidden ones included. */
  allRows: number;
  hiddenRows: number;
  /** Of every row, hidden ones included (the amount columns are as wide as these). */
  allTotals: BalanceTotals;
}

export interface WatchOverview {
  /** The latest good snapshot, or null before the first refresh. */
  snapshot: SnapshotView | null;
  /** Not connected: the view is the last snapshot, "offline — as of <snapshot.takenAt>". */
  offline: boolean;
  refreshing: boolean;
  /** The last refresh failure after the latest good snapshot, if any. */
  lastFailure: RefreshFailure | null;
  /**
   * One row per watched address of the snapshot — when there are at most OVERVIEW_FULL_ROWS of them;
   * else none, and `page` holds the first rows in the table's order.
   */
  balances: BalanceColumns;
  /** A large wallet's first page (null: every row is in `balances`). */
  page: BalancePage | null;
  /** Of the rows that are not hidden. */
  totals: BalanceTotals;
}

/** Up to this many rows the overview carries every row (the renderer sorts and filters them); above, it is paged. */
export const OVERVIEW_FULL_ROWS = 5000;
/** Rows of a page: the overview's first, and each one the table asks for. */
export const OVERVIEW_PAGE_ROWS = 200;
/** The most rows one `watch:overview-page` answers. */
export const OVERVIEW_PAGE_MAX = 1000;

/**
 * The table's totals, of the rows that are not hidden. Named as Core's getbalances names them:
 * `trusted` = confirmed + our own unconfirmed change, `untrustedPending` = unconfirmed payments from
 * others; `pendingUnknown` counts the rows whose pending coins are not known (not in the sums).
 */
export interface BalanceTotals {
  receivedSats: Sats;
  balanceSats: Sats;
  pendingTrustedSats: Sats;
  pendingUntrustedSats: Sats;
  trustedSats: Sats;
  pendingUnknown: number;
  utxoCount: number;
  addresses: number;
}

export interface RefreshProgress {
  phase: 'received' | 'addressinfo' | 'tips' | 'utxos' | 'write';
  done: number;
  total: number;
}

export interface RefreshSummaryView {
  snapshotId: number;
  addresses: number;
  infosFetched: number;
  utxoLookups: number;
  carriedForward: number;
  diff: { newUtxos: number; newSats: Sats; spentUtxos: number; spentSats: Sats; newTxids: number };
  ms: number;
}

export interface UtxoView {
  txid: string;
  vout: number;
  amountSats: Sats;
  height: number | null;
  confirmations: number | null;
  label: string | null;
}

export interface AddressDetailView {
  address: string;
  type: string;
  source: 'node' | 'user';
  hidden: boolean;
  label: string | null;
  nodeLabel: string | null;
  receivedSats: Sats | null;
  balanceSats: Sats;
  /** The node's getaddressinfo reply as received (null for user addresses the wallet does not know). */
  info: Record<string, unknown> | null;
  infoFetchedAt: string | null;
  utxos: UtxoView[];
  /**
   * The node wallet's unconfirmed coins at the address (listunspent, 0 confirmations; `safe`: our own
   * change, which getbalances counts as trusted). Null when not known: an address outside the node's
   * wallet, or no refresh since schema 98.
   */
  pending: Array<{ txid: string; vout: number; amountSats: Sats; safe: boolean; label: string | null }> | null;
  /** Where the UTXOs came from: the index, or the node's wallet (a profile without an index). */
  utxoSource: 'index' | 'node';
  /** Set when the coins cannot be known: a user-added address outside the node's wallet, without an index. */
  needsIndex: string | null;
  /** Txids the node reports paying this address (listreceivedbyaddress). */
  txids: string[];
  /**
   * The same transactions with what each paid this address, when and its label (the node wallet's
   * gettransaction, newest first; the first 100), or null when the node could not be asked.
   */
  transactions: Array<{ txid: string; amountSats: Sats; confirmations: number; blockHeight: number | null; time: number | null; label: string | null }> | null;
}

export interface TxIoView {
  address: string | null;
  /** Null when not known (an input whose previous output the node never saw; a coinbase input): never 0. */
  amountSats: Sats | null;
  /** Inputs: the spent outpoint; outputs: null. */
  outpoint: string | null;
  scriptType: string;
  /** The address is watched and this output pays its script (not a P2PK output of its key). */
  watched: boolean;
  /** Outputs: the transactions spending it, as the index lists them (mempool spenders first; [] = unspent). Inputs: null. */
  /** Outputs: the spending inputs ([] unspent); null when spent but the spender is not known (no index). */
  spentBy: Array<{ txid: string; vin: number }> | null;
}

export interface TransactionView {
  txid: string;
  blockHeight: number | null;
  blockHash: string | null;
  /** The block's time (UNIX seconds), null while unconfirmed; `firstSeen`: when the index first saw it. */
  blockTime: number | null;
  firstSeen: number | null;
  confirmations: number;
  inputs: TxIoView[];
  outputs: TxIoView[];
  feeSats: Sats | null;
  vsize: number;
  /** sat/vB with two decimals, as a string; null when the fee is unknown (an input's amount unknown) or none (coinbase). */
  feeRate: string | null;
  rbf: boolean;
  coinbase: boolean;
  /** The transaction's merkleProof checked against the merkle root of its block header from the index. */
  merkle: { checked: boolean; valid: boolean; root: string | null; message: string };
  /**
   * Whether the user's node has the index's block at that height (getblockhash): with a valid merkle
   * proof, 'same' means the transaction is in the node's own chain. Null while unconfirmed.
   */
  nodeBlock: { state: 'same' | 'different' | 'missing' | 'unknown'; message: string } | null;
  /** Where it came from: the index, or the node (no index, or the index has not seen it yet). */
  source: 'index' | 'node';
  label: string | null;
}

export interface HistoryView {
  /** `number`: the snapshot's place among this profile's (1, 2, …); ids run across profiles. */
  points: Array<{ snapshotId: number; number: number; takenAt: string; nodeHeight: number | null; balanceSats: Sats; receivedSats: Sats; utxoCount: number }>;
  /** What changed between the two latest good snapshots. */
  diff: {
    fromId: number | null;
    toId: number;
    fromNumber: number | null;
    toNumber: number;
    newUtxos: Array<UtxoView & { address: string }>;
    spentUtxos: Array<UtxoView & { address: string }>;
    newTxids: string[];
  } | null;
}

export interface ReconcileIssue {
  kind: 'index-behind' | 'index-missing-tx' | 'amount-mismatch' | 'fetch-failed' | 'node-ahead' | 'stale-snapshot';
  address: string | null;
  message: string;
}

export interface AddAddressesResult {
  added: number;
  existing: number;
  /** Per line; when not empty nothing was added. */
  errors: Array<{ line: number; input: string; message: string }>;
  /** Added addresses of a kind a bitaps-style index does not look up (pay-to-anchor, future segwit versions). */
  unserved: number;
  /** The first few of them. */
  unservedExamples: string[];
}

export interface LabelImportPreview {
  records: number;
  added: number;
  updated: number;
  unchanged: number;
  conflicts: number;
  /** Per line; when not empty the import cannot be applied. */
  errors: Array<{ line: number; message: string }>;
  /** What the import changes, row by row (the first 500): the label before (null: none) and after. */
  changes: Array<{ type: string; ref: string; before: string | null; after: string }>;
}
