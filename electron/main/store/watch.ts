// The watch-only repository (schema 20, migrations/0020-watch.ts): the watched set, getaddressinfo
// replies, local labels, refresh snapshots and the cache of index transaction records. Synchronous
// (better-sqlite3), Electron-free; amounts are bigint satoshis on this API and INTEGER in the file.
//
// A snapshot is written by writeSnapshot() in ONE transaction: the snapshot row, the node's received
// totals, the UTXOs fetched in this refresh, the UTXOs of unchanged addresses copied from the previous
// snapshot (INSERT … SELECT), the watched-set and address-info updates of the refresh, and the totals.
// A process killed during the write leaves the previous snapshot as the latest one and no row of
// the new one (WAL: an uncommitted transaction is rolled back when the file is next opened).
import { AppError } from '../../../shared/errors';
import type { IndexTransaction } from '../blockindex/types';
import type { Database } from './db';
import { applyIncrement, needRecheck, outpointOwners, sameWatchSet, userAddresses, type IncrementalWrite } from './incremental';

// ---------------------------------------------------------------------------------------------
// types

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

export interface Snapshot {
  id: number;
  profileId: string;
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

/** The node's confirmed unspent outputs of one address (from listunspent), summarized. */
export interface NodeUnspent {
  /** Digest of the sorted outpoints: equal digests mean the same set. */
  hash: string;
  sats: bigint;
  count: number;
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

// ---------------------------------------------------------------------------------------------
// rows

interface SnapshotRowDb {
  id: number;
  profile_id: string;
  taken_at: string;
  node_height: number | null;
  node_hash: string | null;
  index_height: number | null;
  index_hash: string | null;
  status: SnapshotStatus;
  failed_step: RefreshStep | null;
  error_code: string | null;
  error_message: string | null;
  address_count: number | null;
  received_sats: number | bigint | null;
  balance_sats: number | bigint | null;
  utxo_count: number | null;
  wallet_state: string | null;
}

interface LabelRowDb {
  type: LabelType;
  ref: string;
  label: string;
  spendable: number | null;
  origin: string | null;
  updated_at: string;
}

interface UtxoRowDb {
  address: string;
  txid: string;
  vout: number;
  amount_sats: number | bigint;
  height: number | null;
}

/** INTEGER → bigint satoshis. Every amount is ≤ 21e14 sats < 2^53, so a JS number holds it exactly. */
function sats(v: number | bigint): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isSafeInteger(v)) throw new AppError('internal', `The database holds an amount that is not a whole number of satoshis (${v}).`);
  return BigInt(v);
}

function satsOrNull(v: number | bigint | null): bigint | null {
  return v === null ? null : sats(v);
}

function tipOf(height: number | null, hash: string | null): Tip | null {
  return height === null || hash === null ? null : { height, hash };
}

/**
 * The rows of the balances table for profile @p and snapshot @s, one per address of the snapshot in
 * address order: f = its fetch state, a = the watched-set entry, r = the node's received entry (null
 * for user addresses), l = its local label, u = its UTXO sum, count and youngest height (null when it
 * has none). Shared by WatchRepository.balances and the overview query (store/overview.ts).
 */
export const BALANCE_ROWS_FROM = `FROM snapshot_fetched f
    LEFT JOIN addresses a ON a.profile_id = @p AND a.address = f.address
    LEFT JOIN snapshot_received r ON r.snapshot_id = f.snapshot_id AND r.address = f.address
    LEFT JOIN labels l ON l.profile_id = @p AND l.type = 'addr' AND l.ref = f.address
    LEFT JOIN (SELECT address, SUM(amount_sats) AS bal, COUNT(*) AS cnt, MAX(height) AS maxh
                 FROM snapshot_utxos WHERE snapshot_id = @s GROUP BY address) u ON u.address = f.address
   WHERE f.snapshot_id = @s
   ORDER BY f.address`;

function toSnapshot(r: SnapshotRowDb): Snapshot {
  return {
    id: r.id,
    profileId: r.profile_id,
    takenAt: r.taken_at,
    node: tipOf(r.node_height, r.node_hash),
    index: tipOf(r.index_height, r.index_hash),
    status: r.status,
    failedStep: r.failed_step,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    addressCount: r.address_count,
    receivedSats: satsOrNull(r.received_sats),
    balanceSats: satsOrNull(r.balance_sats),
    utxoCount: r.utxo_count,
    walletState: r.wallet_state,
  };
}

function toLabel(r: LabelRowDb): Label {
  return { type: r.type, ref: r.ref, label: r.label, spendable: r.spendable === null ? null : r.spendable === 1, origin: r.origin, updatedAt: r.updated_at };
}

function confirmationsAt(tipHeight: number | null, height: number | null): number | null {
  return tipHeight === null || height === null ? null : Math.max(0, tipHeight - height + 1);
}

function toUtxoRow(r: UtxoRowDb, tipHeight: number | null): UtxoRow {
  return { address: r.address, txid: r.txid, vout: r.vout, amountSats: sats(r.amount_sats), height: r.height, confirmations: confirmationsAt(tipHeight, r.height) };
}

const HEX64 = /^[0-9a-f]{64}$/;

function invalid(message: string, field?: string): AppError {
  return new AppError('input.invalid', message, field === undefined ? undefined : { field });
}

/** A watched address as stored: letters and digits only (validation for the chain is the caller's). */
function checkAddress(address: unknown): string {
  if (typeof address !== 'string' || !/^[A-Za-z0-9]{14,100}$/.test(address)) {
    throw invalid(`"${String(address).slice(0, 40)}" is not an address.`, 'address');
  }
  return address;
}

function checkSats(v: bigint, what: string): bigint {
  if (typeof v !== 'bigint' || v < 0n || v > 2_100_000_000_000_000n) throw invalid(`${what} is not an amount in satoshis.`);
  return v;
}

function checkUtxo(u: UtxoRecord, address: string): void {
  if (!HEX64.test(u.txid)) throw invalid(`UTXO of ${address}: "${u.txid}" is not a txid.`);
  if (!Number.isSafeInteger(u.vout) || u.vout < 0) throw invalid(`UTXO of ${address}: vout ${u.vout} is not an output index.`);
  if (u.height !== null && (!Number.isSafeInteger(u.height) || u.height < 0)) throw invalid(`UTXO of ${address}: ${u.height} is not a height.`);
  checkSats(u.amountSats, `UTXO ${u.txid}:${u.vout}`);
}

// ---------------------------------------------------------------------------------------------
// index transaction records: JSON with bigint amounts as {"$sats": "<digits>"}

/** Serializes a record whose amounts are bigints (they become {"$sats": "…"}). */
export function encodeRecord(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $sats: v.toString() } : v));
}

/** The inverse of encodeRecord. */
export function decodeRecord<T>(json: string): T {
  return JSON.parse(json, (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const s = (v as { $sats?: unknown }).$sats;
      if (keys.length === 1 && typeof s === 'string' && /^-?[0-9]+$/.test(s)) return BigInt(s);
    }
    return v;
  }) as T;
}

// ---------------------------------------------------------------------------------------------

export class WatchRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  // ---------------------------------------------------------------- watched set

  listAddresses(profileId: string, opts: { includeHidden?: boolean; source?: AddressSource } = {}): WatchedAddress[] {
    const rows = this.#db
      .prepare<[string], { address: string; source: AddressSource; hidden: number; added_at: string }>(
        'SELECT address, source, hidden, added_at FROM addresses WHERE profile_id = ? ORDER BY added_at, address',
      )
      .all(profileId);
    return rows
      .filter((r) => (opts.includeHidden ?? true) || r.hidden === 0)
      .filter((r) => opts.source === undefined || r.source === opts.source)
      .map((r) => ({ address: r.address, source: r.source, hidden: r.hidden === 1, addedAt: r.added_at }));
  }

  getAddress(profileId: string, address: string): WatchedAddress | null {
    const r = this.#db
      .prepare<[string, string], { address: string; source: AddressSource; hidden: number; added_at: string }>(
        'SELECT address, source, hidden, added_at FROM addresses WHERE profile_id = ? AND address = ?',
      )
      .get(profileId, address);
    return r === undefined ? null : { address: r.address, source: r.source, hidden: r.hidden === 1, addedAt: r.added_at };
  }

  /**
   * Adds addresses in one transaction (all or none: one malformed entry throws before anything is
   * written). An address already watched stays as it is (a 'user' entry for a node address keeps
   * 'node'; a node entry for a user address upgrades it to 'node'). Checking that each address
   * belongs to the node's chain is the caller's job.
   */
  addAddresses(profileId: string, addresses: readonly string[], source: AddressSource = 'user', at = new Date().toISOString()): { added: string[]; existing: string[] } {
    const list = addresses.map(checkAddress);
    return this.transaction(() => {
      this.#requireProfile(profileId);
      const insert = this.#db.prepare(
        `INSERT INTO addresses (profile_id, address, source, hidden, added_at) VALUES (?, ?, ?, 0, ?)
         ON CONFLICT (profile_id, address) DO UPDATE SET source = 'node' WHERE excluded.source = 'node' AND source <> 'node'`,
      );
      const exists = this.#db.prepare<[string, string], { x: number }>('SELECT 1 AS x FROM addresses WHERE profile_id = ? AND address = ?');
      const added: string[] = [];
      const existing: string[] = [];
      const seen = new Set<string>();
      for (const a of list) {
        if (seen.has(a)) continue;
        seen.add(a);
        if (exists.get(profileId, a) !== undefined) existing.push(a);
        else added.push(a);
        insert.run(profileId, a, source, at);
      }
      return { added, existing };
    });
  }

  /** Hides or shows addresses (they stay tracked). Returns how many rows changed. */
  setHidden(profileId: string, addresses: readonly string[], hidden: boolean): number {
    return this.transaction(() => {
      const st = this.#db.prepare('UPDATE addresses SET hidden = ? WHERE profile_id = ? AND address = ? AND hidden <> ?');
      let n = 0;
      for (const a of addresses) n += st.run(hidden ? 1 : 0, profileId, a, hidden ? 1 : 0).changes;
      return n;
    });
  }

  /**
   * Removes user-added addresses (and their address info) in one transaction. A node address would
   * come back with the next refresh, so asking to remove one throws (nothing removed): hide it instead.
   * Labels and past snapshots are kept. Returns how many were removed.
   */
  removeAddresses(profileId: string, addresses: readonly string[]): number {
    return this.transaction(() => {
      const get = this.#db.prepare<[string, string], { source: AddressSource }>('SELECT source FROM addresses WHERE profile_id = ? AND address = ?');
      for (const a of addresses) {
        if (get.get(profileId, a)?.source === 'node') {
          throw invalid(`${a} belongs to the node's wallet and would come back with the next refresh; hide it instead.`, 'address');
        }
      }
      const del = this.#db.prepare('DELETE FROM addresses WHERE profile_id = ? AND address = ?');
      let n = 0;
      for (const a of addresses) n += del.run(profileId, a).changes;
      return n;
    });
  }

  // ---------------------------------------------------------------- address info

  /** Stores getaddressinfo replies (the address must be watched). */
  upsertInfos(profileId: string, infos: ReadonlyArray<InfoRecord>, at = new Date().toISOString()): void {
    this.transaction(() => {
      const st = this.#db.prepare(
        `INSERT INTO address_info (profile_id, address, info_json, fetched_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (profile_id, address) DO UPDATE SET info_json = excluded.info_json, fetched_at = excluded.fetched_at`,
      );
      for (const r of infos) st.run(profileId, r.address, 'infoJson' in r ? r.infoJson : JSON.stringify(r.info), at);
    });
  }

  getInfo(profileId: string, address: string): { info: unknown; fetchedAt: string } | null {
    const r = this.#db
      .prepare<[string, string], { info_json: string; fetched_at: string }>('SELECT info_json, fetched_at FROM address_info WHERE profile_id = ? AND address = ?')
      .get(profileId, address);
    return r === undefined ? null : { info: JSON.parse(r.info_json) as unknown, fetchedAt: r.fetched_at };
  }

  /** address → when its info was fetched. */
  infoFetchedAt(profileId: string): Map<string, string> {
    const rows = this.#db.prepare<[string], { address: string; fetched_at: string }>('SELECT address, fetched_at FROM address_info WHERE profile_id = ?').all(profileId);
    return new Map(rows.map((r) => [r.address, r.fetched_at]));
  }

  /** The addresses among `addresses` with no info, or info fetched more than `maxAgeMs` before `nowMs`. */
  staleInfo(profileId: string, addresses: readonly string[], maxAgeMs: number, nowMs = Date.now()): string[] {
    const fetched = this.infoFetchedAt(profileId);
    const limit = nowMs - maxAgeMs;
    return addresses.filter((a) => {
      const at = fetched.get(a);
      if (at === undefined) return true;
      const t = Date.parse(at);
      return !Number.isFinite(t) || t < limit || t > nowMs; // a time in the future (clock moved back): refetch
    });
  }

  // ---------------------------------------------------------------- labels

  /** Creates or replaces the label of (type, ref). An empty label with no spendable/origin deletes it (returns null). */
  setLabel(profileId: string, input: LabelInput, at = new Date().toISOString()): Label | null {
    const l = checkLabel(input);
    return this.transaction(() => {
      this.#requireProfile(profileId);
      if (l.label === '' && l.spendable === null && l.origin === null) {
        this.deleteLabel(profileId, l.type, l.ref);
        return null;
      }
      this.#db
        .prepare(
          `INSERT INTO labels (profile_id, type, ref, label, spendable, origin, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (profile_id, type, ref) DO UPDATE SET label = excluded.label, spendable = excluded.spendable, origin = excluded.origin, updated_at = excluded.updated_at`,
        )
        .run(profileId, l.type, l.ref, l.label, l.spendable === null ? null : l.spendable ? 1 : 0, l.origin, at);
      return this.getLabel(profileId, l.type, l.ref);
    });
  }

  /** Sets many labels in one transaction (all or none: an invalid entry throws before anything changes). */
  setLabels(profileId: string, inputs: readonly LabelInput[], at = new Date().toISOString()): number {
    inputs.forEach(checkLabel);
    return this.transaction(() => {
      let n = 0;
      for (const i of inputs) {
        this.setLabel(profileId, i, at);
        n++;
      }
      return n;
    });
  }

  getLabel(profileId: string, type: LabelType, ref: string): Label | null {
    const r = this.#db
      .prepare<[string, string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND type = ? AND ref = ?')
      .get(profileId, type, ref);
    return r === undefined ? null : toLabel(r);
  }

  listLabels(profileId: string, type?: LabelType): Label[] {
    const rows =
      type === undefined
        ? this.#db.prepare<[string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? ORDER BY type, ref').all(profileId)
        : this.#db
            .prepare<[string, string], LabelRowDb>('SELECT type, ref, label, spendable, origin, updated_at FROM labels WHERE profile_id = ? AND type = ? ORDER BY ref')
            .all(profileId, type);
    return rows.map(toLabel);
  }

  deleteLabel(profileId: string, type: LabelType, ref: string): boolean {
    return this.#db.prepare('DELETE FROM labels WHERE profile_id = ? AND type = ? AND ref = ?').run(profileId, type, ref).changes > 0;
  }

  // ---------------------------------------------------------------- snapshots: write

  /**
   * Writes a good snapshot ('ok', or 'partial' when some lookup failed) in ONE transaction and returns
   * its id. 'carried' and 'failed' addresses keep their UTXOs of `previousId`, copied with one
   * INSERT … SELECT. Node addresses of `received` join the watched set; `infos` are stored.
   */
  writeSnapshot(profileId: string, s: NewSnapshot): number {
    checkNewSnapshot(s);
    const db = this.#db;
    return this.transaction(() => {
      this.#requireProfile(profileId);
      if (s.previousId !== null) {
        const prev = this.getSnapshot(s.previousId);
        if (prev === null || prev.profileId !== profileId || prev.status === 'failed') {
          throw invalid(`Snapshot ${s.previousId} is not a good snapshot of this profile; nothing can be carried forward from it.`);
        }
      }
      // The watched set: node addresses join (or are upgraded from 'user').
      const addAddress = db.prepare(
        `INSERT INTO addresses (profile_id, address, source, hidden, added_at) VALUES (?, ?, ?, 0, ?)
         ON CONFLICT (profile_id, address) DO UPDATE SET source = 'node' WHERE excluded.source = 'node' AND source <> 'node'`,
      );
      const known = new Map(
        db
          .prepare<[string], { address: string; source: AddressSource }>('SELECT address, source FROM addresses WHERE profile_id = ?')
          .all(profileId)
          .map((r) => [r.address, r.source]),
      );
      for (const a of s.addresses) {
        const was = known.get(a.address);
        if (was === undefined || (a.source === 'node' && was !== 'node')) addAddress.run(profileId, a.address, a.source, s.takenAt);
      }
      if (s.infos !== undefined && s.infos.length > 0) this.upsertInfos(profileId, s.infos, s.takenAt);

      const partial = s.addresses.some((a) => a.state === 'failed');
      const id = Number(
        db
          .prepare(
            `INSERT INTO snapshots (profile_id, taken_at, node_height, node_hash, index_height, index_hash, status, wallet_state)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(profileId, s.takenAt, s.node.height, s.node.hash, s.index.height, s.index.hash, partial ? 'partial' : 'ok', s.walletState ?? null).lastInsertRowid,
      );

      const insReceived = db.prepare(
        `INSERT INTO snapshot_received (snapshot_id, address, amount_sats, confirmations, txids, node_label, node_unspent_hash, node_unspent_sats, node_unspent_count)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const r of s.received) {
        insReceived.run(id, r.address, r.amountSats, r.confirmations, JSON.stringify(r.txids), r.nodeLabel, r.nodeUnspent?.hash ?? null, r.nodeUnspent?.sats ?? null, r.nodeUnspent?.count ?? null);
      }

      const insFetched = db.prepare(
        `INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at, fetched_index_height, error_code) VALUES (?, ?, ?, 'fetched', ?, ?, NULL)`,
      );
      // An outpoint belongs to one script; should an index list it under two addresses, the first keeps it.
      const insUtxo = db.prepare('INSERT OR IGNORE INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height) VALUES (?, ?, ?, ?, ?, ?)');
      const kept: Array<[string, AddressSource, FetchState, string | null]> = [];
      for (const a of s.addresses) {
        if (a.state === 'fetched') {
          insFetched.run(id, a.address, a.source, s.takenAt, s.index.height);
          for (const u of a.utxos) insUtxo.run(id, a.address, u.txid, u.vout, u.amountSats, u.height);
        } else {
          kept.push([a.address, a.source, a.state, a.state === 'failed' ? a.errorCode : null]);
        }
      }
      // Carried and failed addresses keep the fetch time of the previous snapshot (one statement for all).
      if (kept.length > 0) {
        db.prepare(
          `INSERT INTO snapshot_fetched (snapshot_id, address, source, state, fetched_at, fetched_index_height, error_code)
           SELECT @id, k.value ->> 0, k.value ->> 1, k.value ->> 2, p.fetched_at, p.fetched_index_height, k.value ->> 3
             FROM json_each(@kept) k
             LEFT JOIN snapshot_fetched p ON p.snapshot_id = @prev AND p.address = k.value ->> 0`,
        ).run({ id, prev: s.previousId, kept: JSON.stringify(kept) });
      }
      if (s.previousId !== null) {
        db.prepare(
          `INSERT OR IGNORE INTO snapshot_utxos (snapshot_id, address, txid, vout, amount_sats, height)
           SELECT @id, u.address, u.txid, u.vout, u.amount_sats, u.height
             FROM snapshot_fetched f
             JOIN snapshot_utxos u ON u.snapshot_id = @prev AND u.address = f.address
            WHERE f.snapshot_id = @id AND f.state IN ('carried', 'failed')`,
        ).run({ id, prev: s.previousId });
      }

      db.prepare(
        `UPDATE snapshots SET
           address_count = (SELECT COUNT(*) FROM snapshot_fetched WHERE snapshot_id = @id),
           received_sats = (SELECT COALESCE(SUM(amount_sats), 0) FROM snapshot_received WHERE snapshot_id = @id),
           balance_sats  = (SELECT COALESCE(SUM(amount_sats), 0) FROM snapshot_utxos WHERE snapshot_id = @id),
           utxo_count    = (SELECT COUNT(*) FROM snapshot_utxos WHERE snapshot_id = @id)
         WHERE id = @id`,
      ).run({ id });
      return id;
    });
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
    profileId: string,
    id: number,
    c: { takenAt: string; node: Tip; index: Tip; received: readonly ReceivedRecord[]; walletState?: string | null; refetched?: readonly string[] },
  ): void {
    checkWalletState(c.walletState);
    for (const t of [c.node, c.index]) {
      if (!Number.isSafeInteger(t.height) || t.height < 0 || !HEX64.test(t.hash)) throw invalid(`${JSON.stringify(t)} is not a block tip.`);
    }
    if (Number.isNaN(Date.parse(c.takenAt))) throw invalid(`"${c.takenAt}" is not a time.`);
    const db = this.#db;
    this.transaction(() => {
      const latest = this.latestSnapshot(profileId);
      const last = this.lastAttempt(profileId);
      if (latest === null || latest.id !== id || last?.id !== id) throw invalid(`Snapshot ${id} is not the last refresh of this profile; it cannot be updated in place.`);
      db.prepare('UPDATE snapshots SET taken_at = ?, node_height = ?, node_hash = ?, index_height = ?, index_hash = ?, wallet_state = ? WHERE id = ?').run(
        c.takenAt,
        c.node.height,
        c.node.hash,
        c.index.height,
        c.index.hash,
        c.walletState ?? null,
        id,
      );
      const upd = db.prepare(
        `UPDATE snapshot_received SET confirmations = @confirmations, txids = @txids, node_label = @label
          WHERE snapshot_id = @id AND address = @address AND (confirmations <> @confirmations OR txids <> @txids OR node_label <> @label)`,
      );
      const exists = db.prepare<[number, string], { x: number }>('SELECT 1 AS x FROM snapshot_received WHERE snapshot_id = ? AND address = ?');
      for (const r of c.received) {
        if (!Number.isSafeInteger(r.confirmations) || r.confirmations < 0) throw invalid(`${r.address}: ${r.confirmations} is not a number of confirmations.`);
        const txids = JSON.stringify(r.txids);
        if (upd.run({ id, address: r.address, confirmations: r.confirmations, txids, label: r.nodeLabel }).changes === 0 && exists.get(id, r.address) === undefined) {
          throw invalid(`${r.address} is not a node address of snapshot ${id}.`);
        }
      }
      // Looked up again with the same UTXOs as the snapshot holds: they are now that fresh.
      const fetched = db.prepare(
        `UPDATE snapshot_fetched SET state = 'fetched', fetched_at = @at, fetched_index_height = @height, error_code = NULL WHERE snapshot_id = @id AND address = @address`,
      );
      for (const address of c.refetched ?? []) {
        if (fetched.run({ id, address, at: c.takenAt, height: c.index.height }).changes === 0) throw invalid(`${address} is not an address of snapshot ${id}.`);
      }
    });
  }

  /** Brings the latest snapshot up to date in place (incremental refresh; store/incremental.ts). */
  applyIncrement(profileId: string, w: IncrementalWrite): void {
    applyIncrement(this.#db, profileId, w);
  }

  /** Node addresses of snapshot `id` to look up again although the node shows nothing new (store/incremental.ts). */
  needRecheck(id: number, walletHeight: number): string[] {
    return needRecheck(this.#db, id, walletHeight);
  }

  /** Whether the profile's watched set is exactly snapshot `id`'s (addresses and sources). */
  sameWatchSet(profileId: string, id: number): boolean {
    return sameWatchSet(this.#db, profileId, id);
  }

  /** The user-added addresses of snapshot `id`. */
  userAddressesOf(id: number): string[] {
    return userAddresses(this.#db, id);
  }

  /** The node's received entries of snapshot `id` for `addresses` only (absent: not a node address of it). */
  receivedOf(id: number, addresses: Iterable<string>): Map<string, ReceivedRecord> {
    const out = new Map<string, ReceivedRecord>();
    const st = this.#db.prepare<[number, string], { amount_sats: number | bigint; confirmations: number; txids: string; node_label: string; node_unspent_hash: string | null; node_unspent_sats: number | bigint | null; node_unspent_count: number | null }>(
      'SELECT amount_sats, confirmations, txids, node_label, node_unspent_hash, node_unspent_sats, node_unspent_count FROM snapshot_received WHERE snapshot_id = ? AND address = ?',
    );
    for (const address of addresses) {
      if (out.has(address)) continue;
      const r = st.get(id, address);
      if (r === undefined) continue;
      out.set(address, {
        address,
        amountSats: sats(r.amount_sats),
        confirmations: r.confirmations,
        txids: JSON.parse(r.txids) as string[],
        nodeLabel: r.node_label,
        nodeUnspent:
          r.node_unspent_hash === null || r.node_unspent_sats === null || r.node_unspent_count === null
            ? null
            : { hash: r.node_unspent_hash, sats: sats(r.node_unspent_sats), count: r.node_unspent_count },
      });
    }
    return out;
  }

  /** Which address of snapshot `id` holds each outpoint ("txid:vout"). */
  outpointOwners(id: number, keys: readonly string[]): Map<string, string> {
    return outpointOwners(this.#db, id, keys);
  }

  /** Records a refresh that failed at `step` (the latest good snapshot stays as it is). Returns the row id. */
  recordFailure(profileId: string, f: FailureRecord): number {
    if (!(REFRESH_STEPS as readonly string[]).includes(f.step)) throw invalid(`Unknown refresh step "${String(f.step)}".`);
    return this.transaction(() => {
      this.#requireProfile(profileId);
      return Number(
        this.#db
          .prepare(
            `INSERT INTO snapshots (profile_id, taken_at, node_height, node_hash, index_height, index_hash, status, failed_step, error_code, error_message)
             VALUES (?, ?, ?, ?, ?, ?, 'failed', ?, ?, ?)`,
          )
          .run(profileId, f.takenAt, f.node?.height ?? null, f.node?.hash ?? null, f.index?.height ?? null, f.index?.hash ?? null, f.step, f.code, f.message.slice(0, 1000))
          .lastInsertRowid,
      );
    });
  }

  /**
   * Deletes old snapshots: keeps the `keep` newest good ones and the failures after the oldest kept
   * one. Returns the number of snapshot rows deleted (their rows go with them).
   */
  prune(profileId: string, keep = DEFAULT_KEEP_SNAPSHOTS): number {
    if (!Number.isSafeInteger(keep) || keep < 1) throw invalid('keep must be a whole number ≥ 1.');
    return this.transaction(() => {
      const oldestKept = this.#db
        .prepare<[string, number], { id: number }>(
          "SELECT id FROM snapshots WHERE profile_id = ? AND status IN ('ok', 'partial') ORDER BY id DESC LIMIT 1 OFFSET ?",
        )
        .get(profileId, keep - 1);
      if (oldestKept === undefined) return 0;
      return this.#db.prepare('DELETE FROM snapshots WHERE profile_id = ? AND id < ?').run(profileId, oldestKept.id).changes;
    });
  }

  // ---------------------------------------------------------------- snapshots: read

  getSnapshot(id: number): Snapshot | null {
    const r = this.#db.prepare<[number], SnapshotRowDb>('SELECT * FROM snapshots WHERE id = ?').get(id);
    return r === undefined ? null : toSnapshot(r);
  }

  /** The latest good ('ok' or 'partial') snapshot of the profile: what the screens show. */
  latestSnapshot(profileId: string): Snapshot | null {
    const r = this.#db
      .prepare<[string], SnapshotRowDb>("SELECT * FROM snapshots WHERE profile_id = ? AND status IN ('ok', 'partial') ORDER BY id DESC LIMIT 1")
      .get(profileId);
    return r === undefined ? null : toSnapshot(r);
  }

  /** The good snapshot before `id` (or before the latest one when `id` is omitted). */
  previousSnapshot(profileId: string, id?: number): Snapshot | null {
    const before = id ?? this.latestSnapshot(profileId)?.id;
    if (before === undefined) return null;
    const r = this.#db
      .prepare<[string, number], SnapshotRowDb>("SELECT * FROM snapshots WHERE profile_id = ? AND status IN ('ok', 'partial') AND id < ? ORDER BY id DESC LIMIT 1")
      .get(profileId, before);
    return r === undefined ? null : toSnapshot(r);
  }

  /** The most recent refresh of any outcome (a failure after the latest good snapshot shows here). */
  lastAttempt(profileId: string): Snapshot | null {
    const r = this.#db.prepare<[string], SnapshotRowDb>('SELECT * FROM snapshots WHERE profile_id = ? ORDER BY id DESC LIMIT 1').get(profileId);
    return r === undefined ? null : toSnapshot(r);
  }

  /** Every snapshot row of the profile, newest first (failed ones included). */
  listSnapshots(profileId: string): Snapshot[] {
    return this.#db.prepare<[string], SnapshotRowDb>('SELECT * FROM snapshots WHERE profile_id = ? ORDER BY id DESC').all(profileId).map(toSnapshot);
  }

  /** The node's listreceivedbyaddress entries of a snapshot, by address. */
  received(snapshotId: number): Map<string, ReceivedRecord> {
    const rows = this.#db
      .prepare<
        [number],
        {
          address: string;
          amount_sats: number | bigint;
          confirmations: number;
          txids: string;
          node_label: string;
          node_unspent_hash: string | null;
          node_unspent_sats: number | bigint | null;
          node_unspent_count: number | null;
        }
      >('SELECT address, amount_sats, confirmations, txids, node_label, node_unspent_hash, node_unspent_sats, node_unspent_count FROM snapshot_received WHERE snapshot_id = ?')
      .all(snapshotId);
    const out = new Map<string, ReceivedRecord>();
    for (const r of rows) {
      out.set(r.address, {
        address: r.address,
        amountSats: sats(r.amount_sats),
        confirmations: r.confirmations,
        txids: JSON.parse(r.txids) as string[],
        nodeLabel: r.node_label,
        nodeUnspent:
          r.node_unspent_hash === null || r.node_unspent_sats === null || r.node_unspent_count === null
            ? null
            : { hash: r.node_unspent_hash, sats: sats(r.node_unspent_sats), count: r.node_unspent_count },
      });
    }
    return out;
  }

  /** Per address of a snapshot: where its UTXOs come from and when they were last fetched. */
  fetchStates(snapshotId: number): Map<string, AddressFetch> {
    const rows = this.#db
      .prepare<
        [number],
        { address: string; source: AddressSource; state: FetchState; fetched_at: string | null; fetched_index_height: number | null; error_code: string | null }
      >('SELECT address, source, state, fetched_at, fetched_index_height, error_code FROM snapshot_fetched WHERE snapshot_id = ?')
      .all(snapshotId);
    return new Map(
      rows.map((r) => [
        r.address,
        { address: r.address, source: r.source, state: r.state, fetchedAt: r.fetched_at, fetchedIndexHeight: r.fetched_index_height, errorCode: r.error_code },
      ]),
    );
  }

  /** The balances table of a snapshot: one row per watched address of the snapshot, by address. */
  balances(profileId: string, snapshotId: number): BalanceRow[] {
    const snap = this.#requireSnapshot(profileId, snapshotId);
    const rows = this.#db
      .prepare<
        { p: string; s: number },
        {
          address: string;
          source: AddressSource;
          state: FetchState;
          fetched_at: string | null;
          error_code: string | null;
          hidden: number | null;
          received: number | bigint | null;
          rconf: number | null;
          tx_count: number | null;
          node_label: string | null;
          node_unspent_sats: number | bigint | null;
          node_unspent_count: number | null;
          label: string | null;
          bal: number | bigint | null;
          cnt: number | null;
          maxh: number | null;
        }
      >(
        `SELECT f.address, f.source, f.state, f.fetched_at, f.error_code, a.hidden,
                r.amount_sats AS received, r.confirmations AS rconf, json_array_length(r.txids) AS tx_count, r.node_label,
                r.node_unspent_sats, r.node_unspent_count,
                l.label, u.bal, u.cnt, u.maxh
         ${BALANCE_ROWS_FROM}`,
      )
      .all({ p: profileId, s: snapshotId });
    const tip = snap.index?.height ?? null;
    return rows.map((r) => ({
      address: r.address,
      source: r.source,
      hidden: r.hidden === 1,
      nodeLabel: r.node_label,
      label: r.label,
      receivedSats: satsOrNull(r.received),
      receivedConfirmations: r.rconf,
      receivedTxCount: r.tx_count,
      balanceSats: r.bal === null ? 0n : sats(r.bal),
      utxoCount: r.cnt ?? 0,
      minConfirmations: confirmationsAt(tip, r.maxh),
      lastActivityHeight: r.maxh,
      nodeUnspentSats: satsOrNull(r.node_unspent_sats),
      nodeUnspentCount: r.node_unspent_count,
      fetchState: r.state,
      fetchedAt: r.fetched_at,
      errorCode: r.error_code,
    }));
  }

  /** Per address of snapshot `snapshotId` with UTXOs: their sum and count (addresses without any are absent). */
  utxoTotals(snapshotId: number): Map<string, { sats: bigint; count: number }> {
    const rows = this.#db
      .prepare<[number], [string, number | bigint, number]>('SELECT address, SUM(amount_sats), COUNT(*) FROM snapshot_utxos WHERE snapshot_id = ? GROUP BY address')
      .raw(true)
      .all(snapshotId);
    return new Map(rows.map(([address, sum, count]) => [address, { sats: sats(sum), count }]));
  }

  /** The UTXOs of a snapshot (default: the latest good one), of one address or of all, oldest first. */
  utxos(profileId: string, address: string | null, snapshotId?: number): UtxoRow[] {
    const snap = snapshotId === undefined ? this.latestSnapshot(profileId) : this.#requireSnapshot(profileId, snapshotId);
    if (snap === null) return [];
    const rows =
      address === null
        ? this.#db
            .prepare<[number], UtxoRowDb>('SELECT address, txid, vout, amount_sats, height FROM snapshot_utxos WHERE snapshot_id = ? ORDER BY height, txid, vout')
            .all(snap.id)
        : this.#db
            .prepare<[number, string], UtxoRowDb>(
              'SELECT address, txid, vout, amount_sats, height FROM snapshot_utxos WHERE snapshot_id = ? AND address = ? ORDER BY height, txid, vout',
            )
            .all(snap.id, address);
    const tip = snap.index?.height ?? null;
    return rows.map((r) => toUtxoRow(r, tip));
  }

  /** What changed from `fromId` (null: nothing before) to `toId`. */
  diff(fromId: number | null, toId: number): SnapshotDiff {
    const to = this.getSnapshot(toId);
    if (to === null) throw invalid(`There is no snapshot ${toId}.`);
    const from = fromId === null ? null : this.getSnapshot(fromId);
    if (fromId !== null && from === null) throw invalid(`There is no snapshot ${fromId}.`);
    const prev = fromId ?? -1;
    const onlyIn = (a: number, b: number, tip: number | null): UtxoRow[] =>
      this.#db
        .prepare<[number, number], UtxoRowDb>(
          `SELECT n.address, n.txid, n.vout, n.amount_sats, n.height FROM snapshot_utxos n
            WHERE n.snapshot_id = ? AND NOT EXISTS (SELECT 1 FROM snapshot_utxos p WHERE p.snapshot_id = ? AND p.txid = n.txid AND p.vout = n.vout)
            ORDER BY n.height, n.txid, n.vout`,
        )
        .all(a, b)
        .map((r) => toUtxoRow(r, tip));
    const newTxids = this.#db
      .prepare<[number, number, number, number], { txid: string }>(
        `SELECT txid FROM (
           SELECT j.value AS txid FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
           UNION SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?
         ) EXCEPT SELECT txid FROM (
           SELECT j.value AS txid FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
           UNION SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?
         ) ORDER BY txid`,
      )
      .all(toId, toId, prev, prev)
      .map((r) => r.txid);
    return {
      fromId,
      toId,
      newUtxos: onlyIn(toId, prev, to.index?.height ?? null),
      spentUtxos: onlyIn(prev, toId, from?.index?.height ?? null),
      newTxids,
    };
  }

  /** Counts and sums of diff() without loading the rows. */
  diffSummary(fromId: number | null, toId: number): DiffSummary {
    const prev = fromId ?? -1;
    const side = (a: number, b: number): { n: number; s: number | bigint | null } =>
      this.#db
        .prepare<[number, number], { n: number; s: number | bigint | null }>(
          `SELECT COUNT(*) AS n, SUM(n.amount_sats) AS s FROM snapshot_utxos n
            WHERE n.snapshot_id = ? AND NOT EXISTS (SELECT 1 FROM snapshot_utxos p WHERE p.snapshot_id = ? AND p.txid = n.txid AND p.vout = n.vout)`,
        )
        .get(a, b)!;
    const added = side(toId, prev);
    const spent = side(prev, toId);
    const txs = this.#db
      .prepare<[number, number, number, number], { n: number }>(
        `SELECT COUNT(*) AS n FROM (
           SELECT j.value AS txid FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
           UNION SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?
           EXCEPT SELECT j.value FROM snapshot_received r, json_each(r.txids) j WHERE r.snapshot_id = ?
           EXCEPT SELECT txid FROM snapshot_utxos WHERE snapshot_id = ?)`,
      )
      .get(toId, toId, prev, prev)!;
    return { newUtxos: added.n, newSats: added.s === null ? 0n : sats(added.s), spentUtxos: spent.n, spentSats: spent.s === null ? 0n : sats(spent.s), newTxids: txs.n };
  }

  /** The totals of every good snapshot of the profile, oldest first (the balance-over-time chart). */
  history(profileId: string): HistoryPoint[] {
    return this.#db
      .prepare<[string], SnapshotRowDb>("SELECT * FROM snapshots WHERE profile_id = ? AND status IN ('ok', 'partial') ORDER BY id")
      .all(profileId)
      .map((r) => ({
        snapshotId: r.id,
        takenAt: r.taken_at,
        status: r.status as 'ok' | 'partial',
        nodeHeight: r.node_height,
        indexHeight: r.index_height,
        addressCount: r.address_count ?? 0,
        receivedSats: r.received_sats === null ? 0n : sats(r.received_sats),
        balanceSats: r.balance_sats === null ? 0n : sats(r.balance_sats),
        utxoCount: r.utxo_count ?? 0,
      }));
  }

  // ---------------------------------------------------------------- index transaction cache

  getIndexTx(genesisHash: string, txid: string): { tx: IndexTransaction; fetchedAt: string } | null {
    const r = this.#db
      .prepare<[string, string], { json: string; fetched_at: string }>('SELECT json, fetched_at FROM index_txs WHERE genesis_hash = ? AND txid = ?')
      .get(genesisHash, txid);
    return r === undefined ? null : { tx: decodeRecord<IndexTransaction>(r.json), fetchedAt: r.fetched_at };
  }

  putIndexTx(genesisHash: string, tx: IndexTransaction, at = new Date().toISOString()): void {
    this.#db
      .prepare(
        `INSERT INTO index_txs (genesis_hash, txid, json, fetched_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (genesis_hash, txid) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at`,
      )
      .run(genesisHash, tx.txId, encodeRecord(tx), at);
  }

  // ---------------------------------------------------------------- helpers

  #requireProfile(profileId: string): void {
    if (this.#db.prepare<[string], { x: number }>('SELECT 1 AS x FROM profiles WHERE id = ?').get(profileId) === undefined) {
      throw new AppError('profile.not_found', 'This profile no longer exists. It may have been deleted in another window.', { id: profileId });
    }
  }

  #requireSnapshot(profileId: string, snapshotId: number): Snapshot {
    const snap = this.getSnapshot(snapshotId);
    if (snap === null || snap.profileId !== profileId) throw invalid(`There is no snapshot ${snapshotId} of this profile.`);
    return snap;
  }
}

function checkLabel(input: LabelInput): { type: LabelType; ref: string; label: string; spendable: boolean | null; origin: string | null } {
  if (!(LABEL_TYPES as readonly string[]).includes(input.type)) throw invalid(`"${String(input.type)}" is not a label type (${LABEL_TYPES.join(', ')}).`, 'type');
  if (typeof input.ref !== 'string' || input.ref === '' || input.ref.length > 4096) throw invalid('A label needs a reference (an address, txid, outpoint, …).', 'ref');
  if (typeof input.label !== 'string' || input.label.length > 10_000) throw invalid('The label must be text of at most 10,000 characters.', 'label');
  const spendable = input.spendable ?? null;
  if (spendable !== null && typeof spendable !== 'boolean') throw invalid('spendable must be true, false or absent.', 'spendable');
  const origin = input.origin ?? null;
  if (origin !== null && typeof origin !== 'string') throw invalid('origin must be text or absent.', 'origin');
  return { type: input.type, ref: input.ref, label: input.label, spendable, origin };
}

function checkWalletState(w: string | null | undefined): void {
  if (w !== undefined && w !== null && (typeof w !== 'string' || w.length === 0 || w.length > 200)) throw invalid('The wallet state is not a short text.');
}

function checkNewSnapshot(s: NewSnapshot): void {
  for (const t of [s.node, s.index]) {
    if (!Number.isSafeInteger(t.height) || t.height < 0 || !HEX64.test(t.hash)) throw invalid(`${JSON.stringify(t)} is not a block tip.`);
  }
  if (Number.isNaN(Date.parse(s.takenAt))) throw invalid(`"${s.takenAt}" is not a time.`);
  checkWalletState(s.walletState);
  const seen = new Map<string, SnapshotAddress>();
  for (const a of s.addresses) {
    checkAddress(a.address);
    if (seen.has(a.address)) throw invalid(`${a.address} is listed twice in the snapshot.`);
    seen.set(a.address, a);
    if (a.state === 'fetched') for (const u of a.utxos) checkUtxo(u, a.address);
    if (a.state === 'carried' && s.previousId === null) {
      throw invalid(`${a.address} cannot be carried forward: there is no previous snapshot.`);
    }
  }
  const rec = new Set<string>();
  for (const r of s.received) {
    if (rec.has(r.address)) throw invalid(`${r.address} is listed twice by the node.`);
    rec.add(r.address);
    const a = seen.get(r.address);
    if (a === undefined || a.source !== 'node') throw invalid(`${r.address} is a node address but not one of the snapshot's node addresses.`);
    checkSats(r.amountSats, `The amount received by ${r.address}`);
    if (!Number.isSafeInteger(r.confirmations) || r.confirmations < 0) throw invalid(`${r.address}: ${r.confirmations} is not a number of confirmations.`);
    if (!Array.isArray(r.txids) || !r.txids.every((t) => HEX64.test(t))) throw invalid(`${r.address}: the txids are not 64-hex strings.`);
  }
}
