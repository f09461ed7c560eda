// The watch-only repository (schema 20, migrations/0020-watch.ts): the watched set, getaddressinfo
// replies, local labels, refresh snapshots and the cache of index transaction records. Synchronous
// (better-sqlite3), Electron-free; amounts are bigint satoshis on this API and INTEGER in the file.
//
// This file is the entry point every importer uses: WatchRepository, whose methods delegate to the
// functions of the modules below (each taking the db), and the re-exported public types and helpers.
//   watch-types.ts     the exported interfaces, types and constants
//   watch-rows.ts      row shapes and their mapping, BALANCE_ROWS_FROM (shared with store/overview.ts)
//   watch-checks.ts    input checks (addresses, UTXOs, labels, new snapshots) and requireProfile
//   watched-set.ts     the watched set and the stored getaddressinfo replies
//   labels.ts          local labels
//   snapshot-write.ts  writeSnapshot (ONE transaction), touchSnapshot, recordFailure, prune
//   snapshot-read.ts   snapshot rows, received entries, fetch states, balances, UTXOs, diff, history
//   index-records.ts   the index transaction cache and its JSON codec (encodeRecord/decodeRecord)
//   incremental.ts     the in-place write of an incremental refresh
import type { IndexTransaction } from '../blockindex/types';
import type { Database } from './db';
import { getIndexTx, putIndexTx } from './index-records';
import { applyIncrement, needRecheck, outpointOwners, sameWatchSet, userAddresses, type IncrementalWrite } from './incremental';
import { deleteLabel, getLabel, listLabels, setLabel, setLabels } from './labels';
import * as read from './snapshot-read';
import { prune, recordFailure, touchSnapshot, writeSnapshot } from './snapshot-write';
import { addAddresses, addressList, getAddress, getInfo, infoFetchedAt, listAddresses, removeAddresses, setHidden, staleInfo, upsertInfos } from './watched-set';
import {
  DEFAULT_KEEP_SNAPSHOTS,
  type AddressFetch,
  type AddressSource,
  type BalanceRow,
  type DiffSummary,
  type FailureRecord,
  type HistoryPoint,
  type InfoRecord,
  type Label,
  type LabelInput,
  type LabelType,
  type NewSnapshot,
  type ReceivedRecord,
  type Snapshot,
  type SnapshotDiff,
  type Tip,
  type UtxoRow,
  type WalletScope,
  type WatchedAddress,
} from './watch-types';

export * from './watch-types';
export { BALANCE_ROWS_FROM, PENDING_COLUMNS_SQL } from './watch-rows';
export { decodeRecord, encodeRecord } from './index-records';

export class WatchRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  // ---------------------------------------------------------------- watched set (watched-set.ts)

  listAddresses(scope: WalletScope, opts: { includeHidden?: boolean; source?: AddressSource } = {}): WatchedAddress[] {
    return listAddresses(this.#db, scope, opts);
  }

  /** The addresses of one source as strings, in listAddresses' order (hidden ones included). */
  addressList(scope: WalletScope, source: AddressSource): string[] {
    return addressList(this.#db, scope, source);
  }

  getAddress(scope: WalletScope, address: string): WatchedAddress | null {
    return getAddress(this.#db, scope, address);
  }

  /**
   * Adds addresses in one transaction (all or none: one malformed entry throws before anything is
   * written). An address already watched stays as it is (a 'user' entry for a node address keeps
   * 'node'; a node entry for a user address upgrades it to 'node'). Checking that each address
   * belongs to the node's chain is the caller's job.
   */
  addAddresses(scope: WalletScope, addresses: readonly string[], source: AddressSource = 'user', at = new Date().toISOString()): { added: string[]; existing: string[] } {
    return addAddresses(this.#db, scope, addresses, source, at);
  }

  /** Hides or shows addresses (they stay tracked). Returns how many rows changed. */
  setHidden(scope: WalletScope, addresses: readonly string[], hidden: boolean): number {
    return setHidden(this.#db, scope, addresses, hidden);
  }

  /**
   * Removes user-added addresses (and their address info) in one transaction. A node address would
   * come back with the next refresh, so asking to remove one throws (nothing removed): hide it instead.
   * Labels and past snapshots are kept. Returns how many were removed.
   */
  removeAddresses(scope: WalletScope, addresses: readonly string[]): number {
    return removeAddresses(this.#db, scope, addresses);
  }

  // ---------------------------------------------------------------- address info (watched-set.ts)

  /** Stores getaddressinfo replies (the address must be watched). */
  upsertInfos(scope: WalletScope, infos: ReadonlyArray<InfoRecord>, at = new Date().toISOString()): void {
    upsertInfos(this.#db, scope, infos, at);
  }

  getInfo(scope: WalletScope, address: string): { info: unknown; fetchedAt: string } | null {
    return getInfo(this.#db, scope, address);
  }

  /** address → when its info was fetched. */
  infoFetchedAt(scope: WalletScope): Map<string, string> {
    return infoFetchedAt(this.#db, scope);
  }

  /** The addresses among `addresses` with no info, or info fetched more than `maxAgeMs` before `nowMs`. */
  staleInfo(scope: WalletScope, addresses: readonly string[], maxAgeMs: number, nowMs = Date.now()): string[] {
    return staleInfo(this.#db, scope, addresses, maxAgeMs, nowMs);
  }

  // ---------------------------------------------------------------- labels (labels.ts)

  /** Creates or replaces the label of (type, ref). An empty label with no spendable/origin deletes it (returns null). */
  setLabel(scope: WalletScope, input: LabelInput, at = new Date().toISOString()): Label | null {
    return setLabel(this.#db, scope, input, at);
  }

  /** Sets many labels in one transaction (all or none: an invalid entry throws before anything changes). */
  setLabels(scope: WalletScope, inputs: readonly LabelInput[], at = new Date().toISOString()): number {
    return setLabels(this.#db, scope, inputs, at);
  }

  getLabel(scope: WalletScope, type: LabelType, ref: string): Label | null {
    return getLabel(this.#db, scope, type, ref);
  }

  listLabels(scope: WalletScope, type?: LabelType): Label[] {
    return listLabels(this.#db, scope, type);
  }

  deleteLabel(scope: WalletScope, type: LabelType, ref: string): boolean {
    return deleteLabel(this.#db, scope, type, ref);
  }

  // ---------------------------------------------------------------- snapshots: write (snapshot-write.ts)

  /**
   * Writes a good snapshot ('ok', or 'partial' when some lookup failed) in ONE transaction and returns
   * its id. 'carried' and 'failed' addresses keep their UTXOs of `previousId`, copied with one
   * INSERT … SELECT. Node addresses of `received` join the watched set; `infos` are stored.
   */
  writeSnapshot(scope: WalletScope, s: NewSnapshot): number {
    return writeSnapshot(this.#db, scope, s);
  }

  /**
   * Records a refresh that found nothing changed, without a new snapshot (ONE transaction): the latest
   * good snapshot `id` — which must also be the profile's last attempt, so that no failure recorded
   * after it would be hidden — takes the check's time, tips and wallet state, and the node's entries whose
   * confirmations, label or txid order moved are updated in place. Its UTXO rows are not touched.
   * So the history gets no identical snapshot, the latest one's `takenAt` is the last successful
   * check, and the diff of the latest snapshot stays what changed when it was first written.
   * The caller guarantees that the UTXO set, fetch states, received amounts, txid sets and
   * node-unspent digests are those of `id`; a received address the snapshot lacks is refused.
   * `refetched`: addresses looked up again by this check that got exactly the UTXOs `id` holds for
   * them: their fetch time and index height become the check's (state 'fetched').
   */
  touchSnapshot(
    scope: WalletScope,
    id: number,
    c: { takenAt: string; node: Tip; index: Tip; received: readonly ReceivedRecord[]; walletState?: string | null; refetched?: readonly string[] },
  ): void {
    touchSnapshot(this.#db, scope, id, c);
  }

  /** Brings the latest snapshot up to date in place (incremental refresh; store/incremental.ts). */
  applyIncrement(scope: WalletScope, w: IncrementalWrite): void {
    applyIncrement(this.#db, scope, w);
  }

  /** Node addresses of snapshot `id` to look up again although the node shows nothing new (store/incremental.ts). */
  needRecheck(id: number, walletHeight: number): string[] {
    return needRecheck(this.#db, id, walletHeight);
  }

  /** Whether the profile's watched set is exactly snapshot `id`'s (addresses and sources). */
  sameWatchSet(scope: WalletScope, id: number): boolean {
    return sameWatchSet(this.#db, scope, id);
  }

  /** The user-added addresses of snapshot `id`. */
  userAddressesOf(id: number): string[] {
    return userAddresses(this.#db, id);
  }

  /** The node's received entries of snapshot `id` for `addresses` only (absent: not a node address of it). */
  receivedOf(id: number, addresses: Iterable<string>): Map<string, ReceivedRecord> {
    return read.receivedOf(this.#db, id, addresses);
  }

  /** Which address of snapshot `id` holds each outpoint ("txid:vout"). */
  outpointOwners(id: number, keys: readonly string[]): Map<string, string> {
    return outpointOwners(this.#db, id, keys);
  }

  /** Records a refresh that failed at `step` (the latest good snapshot stays as it is). Returns the row id. */
  recordFailure(scope: WalletScope, f: FailureRecord): number {
    return recordFailure(this.#db, scope, f);
  }

  /**
   * Deletes old snapshots: keeps the `keep` newest good ones and the failures after the oldest kept
   * one. Returns the number of snapshot rows deleted (their rows go with them).
   */
  prune(scope: WalletScope, keep = DEFAULT_KEEP_SNAPSHOTS): number {
    return prune(this.#db, scope, keep);
  }

  // ---------------------------------------------------------------- snapshots: read (snapshot-read.ts)

  getSnapshot(id: number): Snapshot | null {
    return read.getSnapshot(this.#db, id);
  }

  /** The latest good ('ok' or 'partial') snapshot of the profile: what the screens show. */
  latestSnapshot(scope: WalletScope): Snapshot | null {
    return read.latestSnapshot(this.#db, scope);
  }

  /** The good snapshot before `id` (or before the latest one when `id` is omitted). */
  previousSnapshot(scope: WalletScope, id?: number): Snapshot | null {
    return read.previousSnapshot(this.#db, scope, id);
  }

  /** The most recent refresh of any outcome (a failure after the latest good snapshot shows here). */
  lastAttempt(scope: WalletScope): Snapshot | null {
    return read.lastAttempt(this.#db, scope);
  }

  /** Every snapshot row of the profile, newest first (failed ones included). */
  listSnapshots(scope: WalletScope): Snapshot[] {
    return read.listSnapshots(this.#db, scope);
  }

  /** The node's listreceivedbyaddress entries of a snapshot, by address. */
  received(snapshotId: number): Map<string, ReceivedRecord> {
    return read.received(this.#db, snapshotId);
  }

  /** Per address of a snapshot: where its UTXOs come from and when they were last fetched. */
  fetchStates(snapshotId: number): Map<string, AddressFetch> {
    return read.fetchStates(this.#db, snapshotId);
  }

  /** A slice of received(): at most `limit` entries in address order after `after` (null: from the first). */
  receivedSlice(snapshotId: number, after: string | null, limit: number): ReceivedRecord[] {
    return read.receivedSlice(this.#db, snapshotId, after, limit);
  }

  /** A slice of fetchStates(), as receivedSlice. */
  fetchStatesSlice(snapshotId: number, after: string | null, limit: number): AddressFetch[] {
    return read.fetchStatesSlice(this.#db, snapshotId, after, limit);
  }

  /** The balances table of a snapshot: one row per watched address of the snapshot, by address. */
  balances(scope: WalletScope, snapshotId: number): BalanceRow[] {
    return read.balances(this.#db, scope, snapshotId);
  }

  /** Per address of snapshot `snapshotId` with UTXOs: their sum and count (addresses without any are absent). */
  utxoTotals(snapshotId: number): Map<string, { sats: bigint; count: number }> {
    return read.utxoTotals(this.#db, snapshotId);
  }

  /** The UTXOs of a snapshot (default: the latest good one), of one address or of all, oldest first. */
  utxos(scope: WalletScope, address: string | null, snapshotId?: number): UtxoRow[] {
    return read.utxos(this.#db, scope, address, snapshotId);
  }

  /** What changed from `fromId` (null: nothing before) to `toId`. */
  diff(fromId: number | null, toId: number): SnapshotDiff {
    return read.diff(this.#db, fromId, toId);
  }

  /** Counts and sums of diff() without loading the rows. */
  diffSummary(fromId: number | null, toId: number): DiffSummary {
    return read.diffSummary(this.#db, fromId, toId);
  }

  /** The totals of every good snapshot of the profile, oldest first (the balance-over-time chart). */
  history(scope: WalletScope): HistoryPoint[] {
    return read.history(this.#db, scope);
  }

  // ---------------------------------------------------------------- index transaction cache (index-records.ts)

  getIndexTx(genesisHash: string, txid: string): { tx: IndexTransaction; fetchedAt: string } | null {
    return getIndexTx(this.#db, genesisHash, txid);
  }

  putIndexTx(genesisHash: string, tx: IndexTransaction, at = new Date().toISOString()): void {
    putIndexTx(this.#db, genesisHash, tx, at);
  }
}
