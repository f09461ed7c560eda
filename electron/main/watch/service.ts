// Watch-only tracking behind the `watch:*` and `labels:*` channels: the refresh engine of the active
// connection, the snapshot store, labels (BIP329) and the views the screens show. Reads work from the
// latest snapshot with no network ("offline — as of …"); refreshes need the node and the index.
import { NO_INDEX_HELP } from '../blockindex/node-source';
import { AppError, isAppError } from '../../../shared/errors';
import type {
  AddAddressesResult,
  AddressDetailView,
  HistoryView,
  LabelImportPreview,
  MergeRule,
  ReconcileIssue,
  RefreshSummaryView,
  SnapshotView,
  TransactionView,
  TxIoView,
  UtxoView,
  WatchOverview,
} from '../../../shared/ipc/contract';
import { checkTxInBlock } from '../../../shared/bitcoin/merkle';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import { mergeLabels, parseBip329, serializeBip329, type LabelRecord } from '../../../shared/bip329';
import { toCsv } from '../../../shared/csv';
import { formatBtc, parseBtc } from '../../../shared/amounts';
import { countOf } from '../../../shared/plural';
import { INDEX_ADDRESS_KINDS_TEXT } from '../../../shared/index-address-kinds';
import { parseAddressList } from '../../../shared/watchlist';
import { emptyBalanceColumns } from '../../../shared/ipc/balance-columns';
import { RefreshEngine } from '../refresh/engine';
import { IncrementalRefresh } from '../refresh/incremental';
import type { Logger } from '../log';
import type { ActiveConnection, Services } from '../services';
import type { NodeRpc } from '../connection';
import type { OverviewQuery } from '../store/overview';
import type { Label, Snapshot, UtxoRow, WatchRepository } from '../store/watch';
import { addressType, INDEX_SERVED_TYPES } from './address-type';
import { noticesBetween, paymentNotices, type PendingPayments } from './notices';
import type { ProfileRepository } from '../store/profiles';

export interface WatchServiceDeps {
  services: Services;
  repo: WatchRepository;
  /** The balances overview's query (the same database as `repo`). */
  overview: OverviewQuery;
  profiles: ProfileRepository;
  log: Logger;
  /** Whether a profile wants payment notifications (its setting); default: none are sent. */
  notificationsOn?: (profileId: string) => boolean;
}

const s = (v: bigint): string => v.toString();

function networkOf(conn: ActiveConnection | null): Network | null {
  if (!conn) return null;
  const chain = conn.report.node.chain as Network['chain'];
  return NETWORKS[chain] ?? null;
}

function snapshotView(snap: Snapshot): SnapshotView {
  return {
    id: snap.id,
    takenAt: snap.takenAt,
    nodeHeight: snap.node?.height ?? null,
    nodeHash: snap.node?.hash ?? null,
    indexHeight: snap.index?.height ?? null,
    indexHash: snap.index?.hash ?? null,
    status: snap.status,
    addressCount: snap.addressCount ?? 0,
    receivedSats: s(snap.receivedSats ?? 0n),
    balanceSats: s(snap.balanceSats ?? 0n),
    utxoCount: snap.utxoCount ?? 0,
  };
}

/**
 * Does the node have block `hash` at `height`? Asked with getblockhash; a node that cannot answer
 * does not fail the transaction view: the state says so.
 */
export async function nodeBlockCheck(rpc: Pick<NodeRpc, 'call'>, height: number, hash: string): Promise<NonNullable<TransactionView['nodeBlock']>> {
  let nodeHash: string;
  try {
    nodeHash = await rpc.call<string>('getblockhash', [height]);
  } catch (e) {
    if (isAppError(e) && e.code === 'rpc.error' && e.detail?.coreCode === -8) {
      return { state: 'missing', message: `Your node has no block at height ${height} yet: it is behind the index, so it cannot vouch for this block.` };
    }
    return { state: 'unknown', message: `Your node could not be asked for its block at height ${height}: ${isAppError(e) ? e.message : 'unexpected error'}` };
  }
  if (typeof nodeHash === 'string' && nodeHash.toLowerCase() === hash.toLowerCase()) {
    return { state: 'same', message: `Your node has this block at height ${height}: the transaction is in your node's chain.` };
  }
  return {
    state: 'different',
    message: `Your node has another block at height ${height} (${String(nodeHash)}). The index's block is not in your node's chain — a stale branch or another chain — so do not count this transaction as confirmed.`,
  };
}

/** Fee rate in sat/vB with two decimals, computed in integers. */
export function feeRateText(feeSats: bigint, vsize: number): string {
  if (vsize <= 0) return '0.00';
  const hundredths = (feeSats * 100n * 2n + BigInt(vsize)) / (2n * BigInt(vsize)); // rounded half up
  const whole = hundredths / 100n;
  const frac = (hundredths % 100n).toString().padStart(2, '0');
  return `${whole}.${frac}`;
}

export class WatchService {
  private engine: { conn: ActiveConnection; engine: RefreshEngine; incremental: IncrementalRefresh } | null = null;
  private controller: AbortController | null = null;
  private running: Promise<RefreshSummaryView> | null = null;
  /** Incoming payments told as unconfirmed, waiting for their first confirmation (per profile). */
  private readonly pendingPayments = new Map<string, PendingPayments>();

  constructor(private readonly deps: WatchServiceDeps) {}

  // ——— context ———

  private profileId(): string | null {
    const st = this.deps.services.connectionState();
    if (st.state !== 'none') return st.profileId;
    return this.deps.profiles.getActiveId();
  }

  private requireProfileId(): string {
    const id = this.profileId();
    if (!id) throw new AppError('profile.not_found', 'No profile is active: connect to a node first.');
    return id;
  }

  private connected(): ActiveConnection {
    const conn = this.deps.services.activeConnection();
    if (!conn) {
      throw new AppError('credentials.missing', 'Spyglass is not connected to the node and index right now, so it cannot refresh. Check the connection on the Dashboard; the last snapshot stays on screen.');
    }
    return conn;
  }

  private engineFor(conn: ActiveConnection): RefreshEngine {
    return this.enginesFor(conn).engine;
  }

  /** The full refresh engine of the connection and the incremental refresh that falls back to it. */
  private enginesFor(conn: ActiveConnection): { engine: RefreshEngine; incremental: IncrementalRefresh } {
    if (this.engine?.conn !== conn) {
      const engine = new RefreshEngine({ store: this.deps.repo, rpc: conn.rpc, index: conn.index, profileId: conn.profile.id, log: this.deps.log, genesisHash: conn.report.index.genesisHash });
      const incremental = new IncrementalRefresh({ engine, store: this.deps.repo, rpc: conn.rpc, index: conn.index, profileId: conn.profile.id, log: this.deps.log });
      this.engine = { conn, engine, incremental };
    }
    return this.engine;
  }

  private network(): Network | null {
    return networkOf(this.deps.services.activeConnection());
  }

  private requireNetwork(): Network {
    const net = this.network();
    if (!net) throw new AppError('credentials.missing', 'Connect to the node first: Spyglass checks addresses against the chain the node runs.');
    return net;
  }

  // ——— overview ———

  overview(): WatchOverview {
    const pid = this.profileId();
    const offline = this.deps.services.connectionState().state !== 'connected';
    const empty: WatchOverview = { snapshot: null, offline, refreshing: false, lastFailure: null, balances: emptyBalanceColumns(), totals: { receivedSats: '0', balanceSats: '0', utxoCount: 0, addresses: 0 } };
    if (!pid) return empty;
    const refreshing = this.engine?.conn.profile.id === pid && (this.engine.engine.running || this.engine.incremental.running);
    const snap = this.deps.repo.latestSnapshot(pid);
    const attempt = this.deps.repo.lastAttempt(pid);
    const lastFailure =
      attempt && attempt.status === 'failed' && (!snap || attempt.id > snap.id)
        ? { at: attempt.takenAt, step: attempt.failedStep ?? 'received', code: attempt.errorCode ?? 'internal', message: attempt.errorMessage ?? 'The refresh failed.' }
        : null;
    if (!snap) return { ...empty, refreshing, lastFailure };
    const net = this.network();
    const { balances, totals } = this.deps.overview.balances(pid, snap.id, snap.index?.height ?? null, (address) => addressType(address, net), net?.chain ?? 'any');
    return { snapshot: snapshotView(snap), offline, refreshing, lastFailure, balances, totals };
  }

  // ——— refresh ———

  /** Whether a refresh is running. */
  get refreshing(): boolean {
    return this.running !== null;
  }

  /** Runs a refresh; while one runs (the chain monitor's, another window's), this joins it. */
  refresh(): Promise<RefreshSummaryView> {
    return (this.running ??= this.runRefresh().finally(() => (this.running = null)));
  }

  private async runRefresh(): Promise<RefreshSummaryView> {
    const conn = this.connected();
    const { engine, incremental } = this.enginesFor(conn);
    if (engine.running || incremental.running) throw new AppError('input.invalid', 'A refresh is already running.');
    const controller = new AbortController();
    this.controller = controller;
    const started = Date.now();
    const pid = conn.profile.id;
    const previous = this.deps.repo.latestSnapshot(pid)?.id ?? null;
    try {
      // Incremental when it can be (electron/main/refresh/incremental.ts), else the full refresh.
      const r = await incremental.run({ signal: controller.signal, onProgress: (p) => this.deps.services.emit('refresh:progress', p) });
      this.deps.services.emit('watch:changed', { snapshotId: r.snapshotId, failed: false });
      if ((r.change !== null || r.snapshotId !== previous) && this.deps.notificationsOn?.(pid)) {
        let pending = this.pendingPayments.get(pid);
        if (!pending) this.pendingPayments.set(pid, (pending = new Map()));
        const notices = r.change !== null ? noticesBetween(this.deps.repo, pid, r.change, pending) : paymentNotices(this.deps.repo, pid, previous, r.snapshotId, pending);
        for (const n of notices) this.deps.services.emit('notify', n);
      }
      return {
        snapshotId: r.snapshotId,
        addresses: r.counts.addresses,
        infosFetched: r.counts.infosFetched,
        utxoLookups: r.counts.utxoLookups,
        carriedForward: r.counts.carriedForward,
        diff: { newUtxos: r.diff.newUtxos, newSats: s(r.diff.newSats), spentUtxos: r.diff.spentUtxos, spentSats: s(r.diff.spentSats), newTxids: r.diff.newTxids },
        ms: Date.now() - started,
      };
    } catch (e) {
      this.deps.services.emit('watch:changed', { snapshotId: null, failed: true });
      throw e;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  cancel(): { cancelled: boolean } {
    if (!this.controller) return { cancelled: false };
    this.controller.abort();
    return { cancelled: true };
  }

  // ——— details ———

  /** The connected profile has no index: its coins come from the node's wallet (blockindex/node-source.ts). */
  #withoutIndex(): boolean {
    return this.deps.services.activeConnection()?.report.index.source === 'node';
  }

  async address(address: string): Promise<AddressDetailView> {
    const pid = this.requireProfileId();
    const watched = this.deps.repo.getAddress(pid, address);
    if (!watched) throw new AppError('input.invalid', `${address} is not a watched address of this profile.`, { field: 'address' });
    const snap = this.deps.repo.latestSnapshot(pid);
    const info = this.deps.repo.getInfo(pid, address);
    const received = snap ? this.deps.repo.received(snap.id).get(address) : undefined;
    const utxos = snap ? this.deps.repo.utxos(pid, address, snap.id) : [];
    const noIndex = this.#withoutIndex();
    return {
      utxoSource: noIndex ? 'node' : 'index',
      needsIndex:
        noIndex && watched.source === 'user' && received === undefined
          ? `This address is not in the node's wallet, and the profile has no index: its coins cannot be looked up. ${NO_INDEX_HELP}`
          : null,
      address,
      type: addressType(address, this.network()),
      source: watched.source,
      hidden: watched.hidden,
      label: this.deps.repo.getLabel(pid, 'addr', address)?.label ?? null,
      nodeLabel: received?.nodeLabel ?? null,
      receivedSats: received ? s(received.amountSats) : null,
      balanceSats: s(utxos.reduce((a, u) => a + u.amountSats, 0n)),
      info: info && typeof info.info === 'object' && info.info !== null ? (info.info as Record<string, unknown>) : null,
      infoFetchedAt: info?.fetchedAt ?? null,
      utxos: utxos.map((u) => this.utxoView(pid, u)),
      txids: received?.txids ?? [],
      transactions: await this.addressTransactions(pid, address, received?.txids ?? []),
    };
  }

  /** What each transaction paid `address`, from the node wallet (gettransaction; the newest 100). Null offline or when the node cannot say. */
  private async addressTransactions(pid: string, address: string, txids: readonly string[]): Promise<AddressDetailView['transactions']> {
    const conn = this.deps.services.activeConnection();
    if (!conn || txids.length === 0) return conn ? [] : null;
    type Tx = { confirmations: number; blockheight?: number; blocktime?: number; time?: number; details: Array<{ address?: string; category: string; amount: number }> };
    try {
      const txs = await conn.rpc.batch<Tx>(txids.slice(0, 100).map((t) => ({ method: 'gettransaction', params: [t, true] })));
      const rows = txs.map((r, i) => {
        if (!r.ok) throw r.error;
        const tx = r.value;
        const sats = tx.details.filter((d) => d.address === address && d.category !== 'send').reduce((a, d) => a + parseBtc(d.amount.toFixed(8)), 0n);
        const txid = txids[i]!;
        return { txid, amountSats: s(sats), confirmations: tx.confirmations, blockHeight: tx.blockheight ?? null, time: tx.blocktime ?? tx.time ?? null, label: this.deps.repo.getLabel(pid, 'tx', txid)?.label ?? null };
      });
      return rows.sort((a, b) => (b.blockHeight ?? Infinity) - (a.blockHeight ?? Infinity));
    } catch (e) {
      this.deps.log.warn(`address transactions: ${(e as Error).message}`);
      return null;
    }
  }

  private utxoView(pid: string, u: UtxoRow): UtxoView {
    return {
      txid: u.txid,
      vout: u.vout,
      amountSats: s(u.amountSats),
      height: u.height,
      confirmations: u.confirmations,
      label: this.deps.repo.getLabel(pid, 'output', `${u.txid}:${u.vout}`)?.label ?? null,
    };
  }

  async transaction(txid: string): Promise<TransactionView> {
    const pid = this.requireProfileId();
    const conn = this.connected();
    const engine = this.engineFor(conn);
    // Asked afresh (not from the cache of confirmed records): the outputs' spenders change over time.
    const { tx } = await engine.transaction(txid, { refresh: true });
    const watchedSet = new Set(this.deps.repo.listAddresses(pid, { includeHidden: true }).map((a) => a.address));
    // The index gives a P2PK output the P2PKH address of its key; it does not pay that address (see IndexClient.addressUtxo).
    const watched = (address: string | null, type: string | null): boolean => address !== null && type !== 'PUBKEY' && watchedSet.has(address);
    const inputs: TxIoView[] = tx.vIn.map((i) => ({
      address: i.address,
      amountSats: s(i.amount ?? 0n),
      outpoint: i.coinbase ? null : `${i.txId}:${i.vOut}`,
      scriptType: i.coinbase ? 'coinbase' : (i.type ?? 'unknown'),
      watched: watched(i.address, i.type),
      spentBy: null,
    }));
    const outputs: TxIoView[] = tx.vOut.map((o) => ({
      address: o.address,
      amountSats: s(o.value),
      outpoint: null,
      scriptType: o.type,
      watched: watched(o.address, o.type),
      spentBy: o.spent.map((x) => ({ txid: x.txId, vin: x.vIn })),
    }));
    if (this.#withoutIndex()) {
      // The node knows whether each output is still unspent (gettxout, mempool included), not who spent it.
      const unspent = await conn.rpc.batch<unknown>(tx.vOut.map((o) => ({ method: 'gettxout', params: [tx.txId, o.index, true] })), { wallet: false });
      unspent.forEach((r, i) => {
        if (r.ok && r.value === null && tx.vOut[i]!.type !== 'NULL_DATA') outputs[i]!.spentBy = null;
      });
    }
    let merkle: TransactionView['merkle'] = { checked: false, valid: false, root: null, message: 'Unconfirmed: not in a block yet.' };
    let confirmations = 0;
    let nodeBlock: TransactionView['nodeBlock'] = null;
    if (tx.blockHash !== null && tx.blockHeight !== null && this.#withoutIndex()) {
      // No index: the node is the only source, so there is nothing independent to check its block against.
      nodeBlock = await nodeBlockCheck(conn.rpc, tx.blockHeight, tx.blockHash);
      confirmations = tx.confirmations ?? 0;
      merkle = { checked: false, valid: false, root: null, message: `Not checked: the profile has no index, and a merkle proof from the node itself would prove nothing the node did not already say. ${NO_INDEX_HELP}` };
    } else if (tx.blockHash !== null && tx.blockHeight !== null) {
      const [block, nodeCheck] = await Promise.all([conn.index.block(tx.blockHash), nodeBlockCheck(conn.rpc, tx.blockHeight, tx.blockHash)]);
      nodeBlock = nodeCheck;
      confirmations = block.confirmations;
      if (tx.merkleProof === null || tx.blockIndex === null) {
        merkle = { checked: false, valid: false, root: block.merkleRoot, message: 'The index sent no merkle proof for this transaction.' };
      } else {
        const check = checkTxInBlock({ txid: tx.txId, blockHash: tx.blockHash, blockIndex: tx.blockIndex, merkleProof: tx.merkleProof, headerBase64: block.header, txCount: block.transactionsCount });
        merkle = { checked: true, ...check };
      }
    }
    return {
      txid: tx.txId,
      blockHeight: tx.blockHeight,
      blockHash: tx.blockHash,
      blockTime: tx.blockTime ?? null,
      firstSeen: tx.time ?? null,
      confirmations,
      inputs,
      outputs,
      feeSats: tx.coinbase ? null : s(tx.fee),
      vsize: tx.vSize,
      feeRate: tx.coinbase ? null : feeRateText(tx.fee, tx.vSize),
      rbf: tx.rbf,
      coinbase: tx.coinbase,
      merkle,
      nodeBlock,
      label: this.deps.repo.getLabel(pid, 'tx', tx.txId)?.label ?? null,
    };
  }

  // ——— the watched set ———

  add(text: string): AddAddressesResult {
    const pid = this.requireProfileId();
    const network = this.requireNetwork();
    const parsed = parseAddressList(text, network);
    const none = { unserved: 0, unservedExamples: [] };
    if (parsed.errors.length > 0) {
      return { added: 0, existing: 0, errors: parsed.errors.map((e) => ({ line: e.line, input: e.input, message: e.hint ? `${e.message} ${e.hint}` : e.message })), ...none };
    }
    if (parsed.addresses.length === 0) return { added: 0, existing: 0, errors: [{ line: 0, input: '', message: 'No address was found in the text.' }], ...none };
    const result = this.deps.repo.transaction(() => {
      const r = this.deps.repo.addAddresses(pid, parsed.addresses, 'user');
      const labels = [...parsed.labels].map(([address, label]) => ({ type: 'addr' as const, ref: address, label }));
      if (labels.length) this.deps.repo.setLabels(pid, labels);
      return r;
    });
    this.deps.log.info(`watch: added ${result.added.length} addresses (${result.existing.length} already watched)`);
    const unserved = result.added.filter((a) => !INDEX_SERVED_TYPES.has(addressType(a, network)));
    return { added: result.added.length, existing: result.existing.length, errors: [], unserved: unserved.length, unservedExamples: unserved.slice(0, 3) };
  }

  hide(address: string, hidden: boolean): { hidden: boolean } {
    const pid = this.requireProfileId();
    if (this.deps.repo.setHidden(pid, [address], hidden) === 0) throw new AppError('input.invalid', `${address} is not a watched address of this profile.`, { field: 'address' });
    return { hidden };
  }

  remove(address: string): { removed: boolean } {
    const pid = this.requireProfileId();
    const a = this.deps.repo.getAddress(pid, address);
    if (!a) return { removed: false };
    if (a.source === 'node') throw new AppError('input.invalid', 'This address belongs to the node\'s wallet; it can be hidden, not removed.', { field: 'address' });
    return { removed: this.deps.repo.removeAddresses(pid, [address]) > 0 };
  }

  // ——— history and reconciliation ———

  history(): HistoryView {
    const pid = this.requireProfileId();
    const rows = [...this.deps.repo.history(pid)].sort((a, b) => a.snapshotId - b.snapshotId);
    const points = rows.map((p, i) => ({ snapshotId: p.snapshotId, number: i + 1, takenAt: p.takenAt, nodeHeight: p.nodeHeight, balanceSats: s(p.balanceSats), receivedSats: s(p.receivedSats), utxoCount: p.utxoCount }));
    const numberOf = new Map(points.map((p) => [p.snapshotId, p.number]));
    const latest = this.deps.repo.latestSnapshot(pid);
    if (!latest) return { points, diff: null };
    const prev = this.deps.repo.previousSnapshot(pid, latest.id);
    const d = this.deps.repo.diff(prev?.id ?? null, latest.id);
    const view = (u: UtxoRow): UtxoView & { address: string } => ({ ...this.utxoView(pid, u), address: u.address });
    return {
      points,
      diff: {
        fromId: d.fromId,
        toId: d.toId,
        fromNumber: d.fromId === null ? null : (numberOf.get(d.fromId) ?? null),
        toNumber: numberOf.get(d.toId) ?? points.length,
        newUtxos: d.newUtxos.map(view),
        spentUtxos: d.spentUtxos.map(view),
        newTxids: d.newTxids,
      },
    };
  }

  reconcile(): { issues: ReconcileIssue[]; snapshotTakenAt: string | null } {
    const pid = this.requireProfileId();
    if (this.#withoutIndex()) {
      throw new AppError('index.not_configured', `Reconciliation compares the node's wallet with an independent block index, and this profile has none: there is nothing to compare. ${NO_INDEX_HELP}`);
    }
    const snap = this.deps.repo.latestSnapshot(pid);
    if (!snap) return { issues: [], snapshotTakenAt: null };
    const issues: ReconcileIssue[] = [];
    if (snap.node && snap.index && snap.index.height < snap.node.height) {
      issues.push({ kind: 'index-behind', address: null, message: `The index was ${countOf(snap.node.height - snap.index.height, 'block')} behind the node at the last refresh (index ${snap.index.height}, node ${snap.node.height}): recent payments may be missing from the balances.` });
    }
    const conn = this.deps.services.activeConnection();
    if (conn && snap.node && conn.report.node.blocks > snap.node.height) {
      issues.push({ kind: 'stale-snapshot', address: null, message: `The node has ${countOf(conn.report.node.blocks - snap.node.height, 'new block')} since the last refresh: refresh to bring the balances up to date.` });
    }
    for (const r of this.deps.repo.balances(pid, snap.id)) {
      if (r.fetchState === 'failed') {
        const why =
          r.errorCode === 'index.invalid'
            ? `The index does not accept this address (a bitaps-style index serves ${INDEX_ADDRESS_KINDS_TEXT} addresses)`
            : `The index refused the UTXO lookup for this address (${r.errorCode ?? 'error'})`;
        const held = r.fetchedAt === null ? 'no balance is known for it' : `the balance shown is from its lookup of ${r.fetchedAt}`;
        issues.push({ kind: 'fetch-failed', address: r.address, message: `${why}; ${held}.` });
        continue;
      }
      if (r.nodeUnspentSats !== null && r.nodeUnspentSats !== r.balanceSats) {
        if (r.nodeUnspentSats > 0n && r.utxoCount === 0) {
          issues.push({ kind: 'index-missing-tx', address: r.address, message: `The node's wallet holds ${formatBtc(r.nodeUnspentSats)} BTC in ${countOf(r.nodeUnspentCount ?? 0, 'output')} at this address, but the index shows no unspent outputs: the index lacks the transactions.` });
        } else {
          issues.push({ kind: 'amount-mismatch', address: r.address, message: `The node's wallet counts ${formatBtc(r.nodeUnspentSats)} BTC unspent at this address (${countOf(r.nodeUnspentCount ?? 0, 'output')}); the index's UTXOs add up to ${formatBtc(r.balanceSats)} BTC (${countOf(r.utxoCount, 'output')}).` });
        }
      } else if (r.receivedSats !== null && r.receivedSats > 0n && r.utxoCount === 0 && r.nodeUnspentSats === null && r.receivedTxCount !== null && r.receivedTxCount > 0 && r.fetchedAt === null) {
        issues.push({ kind: 'index-missing-tx', address: r.address, message: 'The node reports payments to this address but the index was never asked about it.' });
      }
    }
    return { issues, snapshotTakenAt: snap.takenAt };
  }

  exportCsv(unit: 'btc' | 'sats', includeHidden: boolean): { text: string; rows: number } {
    const pid = this.requireProfileId();
    const snap = this.deps.repo.latestSnapshot(pid);
    const rows = snap ? this.deps.repo.balances(pid, snap.id).filter((r) => includeHidden || !r.hidden) : [];
    const amt = (v: bigint | null): string => (v === null ? '' : unit === 'btc' ? formatBtc(v) : v.toString());
    const net = this.network();
    const table = [
      ['label', 'node_label', 'address', 'type', `received_${unit}`, `balance_${unit}`, 'utxos', 'confirmations', 'last_activity_height', 'source'],
      ...rows.map((r) => [r.label ?? '', r.nodeLabel ?? '', r.address, addressType(r.address, net), amt(r.receivedSats), amt(r.balanceSats), r.utxoCount, r.minConfirmations ?? '', r.lastActivityHeight ?? '', r.source]),
    ];
    return { text: toCsv(table, { bom: true }), rows: rows.length };
  }

  // ——— labels ———

  setLabel(type: Label['type'], ref: string, label: string): { removed: boolean } {
    const pid = this.requireProfileId();
    if (label.trim() === '') return { removed: this.deps.repo.deleteLabel(pid, type, ref) };
    this.deps.repo.setLabel(pid, { type, ref, label });
    return { removed: false };
  }

  private localRecords(pid: string): LabelRecord[] {
    return this.deps.repo.listLabels(pid).map((l) => {
      const base = { ref: l.ref, label: l.label, ...(l.origin ? { origin: l.origin } : {}) };
      return l.type === 'output' ? { type: 'output', ...base, ...(l.spendable !== null ? { spendable: l.spendable } : {}) } : { type: l.type, ...base };
    });
  }

  exportLabels(): { text: string; records: number } {
    const pid = this.requireProfileId();
    const records = this.localRecords(pid);
    const have = new Set(records.filter((r) => r.type === 'addr').map((r) => r.ref));
    const snap = this.deps.repo.latestSnapshot(pid);
    if (snap) {
      for (const [address, r] of this.deps.repo.received(snap.id)) {
        if (r.nodeLabel && !have.has(address)) records.push({ type: 'addr', ref: address, label: r.nodeLabel });
      }
    }
    return { text: serializeBip329(records), records: records.length };
  }

  previewLabels(text: string, rule: MergeRule): LabelImportPreview {
    return this.importLabels(text, rule, false);
  }

  importLabels(text: string, rule: MergeRule, apply = true): LabelImportPreview {
    const pid = this.requireProfileId();
    const parsed = parseBip329(text, { network: this.requireNetwork() });
    const base = { records: parsed.records.length, added: 0, updated: 0, unchanged: 0, conflicts: 0 };
    if (parsed.errors.length > 0) return { ...base, errors: parsed.errors.map((e) => ({ line: e.line, message: e.message })), changes: [] };
    const merge = mergeLabels(this.localRecords(pid), parsed.records, rule);
    if (apply) {
      const changes = [...merge.added, ...merge.updated.map((u) => u.after)];
      this.deps.repo.setLabels(
        pid,
        changes.map((r) => ({ type: r.type, ref: r.ref, label: r.label ?? '', spendable: r.type === 'output' ? (r.spendable ?? null) : null, origin: r.origin ?? null })),
      );
      this.deps.log.info(`labels: imported ${merge.added.length} new, ${merge.updated.length} updated`);
    }
    const changes = [
      ...merge.added.map((r) => ({ type: r.type, ref: r.ref, before: null, after: r.label ?? '' })),
      ...merge.updated.map((u) => ({ type: u.after.type, ref: u.after.ref, before: u.before.label ?? '', after: u.after.label ?? '' })),
    ].slice(0, 500);
    return { ...base, added: merge.added.length, updated: merge.updated.length, unchanged: merge.unchanged.length, conflicts: merge.conflicts.length, errors: [], changes };
  }
}
