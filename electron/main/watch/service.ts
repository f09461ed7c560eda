// Watch-only tracking behind the `watch:*` and `labels:*` channels: the refresh engine of the active
// connection, the snapshot store, labels (BIP329) and the views the screens show. Reads work from the
// latest snapshot with no network ("offline — as of …"); refreshes need the node and the index.
// The views themselves are built beside it: the address page (address-view.ts), the transaction page
// (transaction-view.ts), history, reconciliation and the CSV (reports.ts), shared shapes (views.ts).
import { AppError } from '../../../shared/errors';
import type {
  AddAddressesResult,
  AddressDetailView,
  BalancePage,
  BalanceQuery,
  HistoryView,
  LabelImportPreview,
  MergeRule,
  ReconcileIssue,
  RefreshSummaryView,
  TransactionView,
  WatchOverview,
} from '../../../shared/ipc/contract';
import type { Network } from '../../../shared/bitcoin/networks';
import { serializeBip329 } from '../../../shared/bip329';
import { emptyBalanceColumns } from '../../../shared/ipc/balance-columns';
import { OVERVIEW_FULL_ROWS } from '../../../shared/ipc/watch';
import { RefreshEngine } from '../refresh/engine';
import { IncrementalRefresh } from '../refresh/incremental';
import type { ReceivedOp } from '../refresh/received-job';
import type { LookupJobRequest } from '../refresh/lookup-job';
import { IndexClient } from '../blockindex/client';
import { RpcClient } from '../rpc/client';
import type { Logger } from '../log';
import type { ActiveConnection, Services } from '../services';
import type { OverviewQuery } from '../store/overview';
import type { Label, WatchRepository } from '../store/watch';
import { addressType } from './address-type';
import { addressView } from './address-view';
import { localRecords } from './import-jobs';
import { InlineImportRunner, type ImportRunner } from './import-runner';
import { DEFAULT_QUERY, emptyPage, FIRST_PAGE_ROWS } from './overview-page';
import { noticesBetween, paymentNotices, type PendingPayments } from './notices';
import { balancesCsv, historyView, reconcileIssues } from './reports';
import { transactionView } from './transaction-view';
import { networkOf, s, snapshotView } from './views';
import { walletOf } from '../wallet/key';
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
  /** Where big inputs are parsed and written (the import worker in the app); default: inline, on `repo`. */
  imports?: ImportRunner;
}

export class WatchService {
  private engine: { conn: ActiveConnection; engine: RefreshEngine; incremental: IncrementalRefresh } | null = null;
  private controller: AbortController | null = null;
  private running: Promise<RefreshSummaryView> | null = null;
  /** Incoming payments told as unconfirmed, waiting for their first confirmation (per wallet). */
  private readonly pendingPayments = new Map<string, PendingPayments>();

  readonly #imports: ImportRunner;

  constructor(private readonly deps: WatchServiceDeps) {
    this.#imports = deps.imports ?? new InlineImportRunner(deps.repo);
  }

  // ——— context ———

  /**
   * The active profile's id. The store reads it as the wallet the profile names now (WalletScope): a
   * wallet switch renames the profile's wallet, so every screen follows it at once (#26).
   */
  private profileId(): string | null {
    return this.deps.services.currentProfileId();
  }

  private requireProfileId(): string {
    const id = this.profileId();
    if (!id) throw new AppError('profile.not_found', 'No profile is active: connect to a node first.');
    return id;
  }

  /** The live connection, or the connection's own failure (refused, timeout, 401…) for `purpose`. */
  private connected(purpose: string): ActiveConnection {
    return this.deps.services.requireConnection(purpose);
  }

  private engineFor(conn: ActiveConnection): RefreshEngine {
    return this.enginesFor(conn).engine;
  }

  /** The full refresh engine of the connection and the incremental refresh that falls back to it. */
  private enginesFor(conn: ActiveConnection): { engine: RefreshEngine; incremental: IncrementalRefresh } {
    if (this.engine?.conn !== conn) {
      // The connection's wallet, fixed for its engines: a refresh still running when the user switches
      // wallets writes to the wallet it started on, never to the one switched to.
      const { profileId, wallet } = walletOf(conn);
      const rpc = conn.rpc;
      const engine = new RefreshEngine({
        store: this.deps.repo,
        rpc: conn.rpc,
        index: conn.index,
        profileId,
        wallet,
        log: this.deps.log,
        genesisHash: conn.report.index.genesisHash,
        writer: (r) => this.#imports.run('snapshot-write', r),
        writerPart: async (r) => {
          await this.#imports.run('snapshot-part', r);
        },
        // The getaddressinfo batches asked and parsed by the import worker, with a client built from
        // this connection's (credentials handed over in-process, never stored): not on this thread.
        // So are the received step's listreceivedbyaddress and listunspent (refresh/received-job.ts).
        ...(rpc instanceof RpcClient
          ? {
              infoBatches: (r: { session: string; addresses: string[] }) => this.#imports.run('snapshot-infos', { ...r, rpc: rpc.handoff() }),
              receivedJobs: (r: ReceivedOp & { session: string }) => this.#imports.run('snapshot-received', { ...r, rpc: rpc.handoff() }),
            }
          : {}),
        // The index lookups too, by a client built from this connection's, on its budget (refresh/lookup-job.ts).
        ...(conn.index instanceof IndexClient ? { lookupJobs: { index: conn.index, run: (r: LookupJobRequest) => this.#imports.run('snapshot-lookups', r) } } : {}),
      });
      const incremental = new IncrementalRefresh({ engine, store: this.deps.repo, rpc: conn.rpc, index: conn.index, profileId, wallet, log: this.deps.log });
      this.engine = { conn, engine, incremental };
    }
    return this.engine;
  }

  private network(): Network | null {
    return networkOf(this.deps.services.activeConnection());
  }

  private requireNetwork(): Network {
    const net = this.network();
    if (!net) this.connected('check addresses against the chain the node runs'); // throws the connection's own failure
    if (!net) throw new AppError('internal', 'The node reports a chain Spyglass does not know.');
    return net;
  }

  // ——— overview ———

  /**
   * The latest snapshot's balances. Without `page` (the CLI): every row. With it (the Balances table):
   * up to OVERVIEW_FULL_ROWS rows every row too; above, the totals, the counts and the first
   * `page.count` rows in the order and filter of `page.query` — the rest by overviewPage. A large
   * wallet's rows are read in slices (store/overview.ts model): the main process keeps answering.
   */
  async overview(page?: { query?: BalanceQuery; count?: number }): Promise<WatchOverview> {
    const pid = this.profileId();
    const offline = this.deps.services.connectionState().state !== 'connected';
    const empty: WatchOverview = { snapshot: null, offline, refreshing: false, lastFailure: null, balances: emptyBalanceColumns(), page: null, totals: { receivedSats: '0', balanceSats: '0', pendingTrustedSats: '0', pendingUntrustedSats: '0', trustedSats: '0', pendingUnknown: 0, utxoCount: 0, addresses: 0 } };
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
    const args = [pid, snap.id, snap.index?.height ?? null, (address: string) => addressType(address, net), net?.chain ?? 'any'] as const;
    if (!this.deps.overview.hasMoreRows(snap.id, OVERVIEW_FULL_ROWS)) {
      const { balances, totals } = this.deps.overview.balances(...args);
      return { snapshot: snapshotView(snap), offline, refreshing, lastFailure, balances, page: null, totals };
    }
    const query = page?.query ?? DEFAULT_QUERY;
    if (page !== undefined) {
      // The first page and the totals without reading every row (the table's default order, by
      // address, no filter); the other pages, sorts and filters then come from main's copy, read
      // from now on in slices.
      const quick = await this.deps.overview.firstPage(...args, query, page.count ?? FIRST_PAGE_ROWS);
      if (quick !== null) {
        this.deps.overview.model(...args).catch((e: unknown) => this.deps.log.warn(`watch: reading the balances for paging failed: ${e instanceof Error ? e.message : String(e)}`));
        return { snapshot: snapshotView(snap), offline, refreshing, lastFailure, balances: emptyBalanceColumns(), page: quick.page, totals: quick.shown };
      }
    }
    const model = await this.deps.overview.model(...args);
    if (page !== undefined) await model.prepare(query);
    const first = page === undefined ? null : model.page(query, 0, page.count ?? FIRST_PAGE_ROWS);
    return { snapshot: snapshotView(snap), offline, refreshing, lastFailure, balances: first === null ? model.cols : emptyBalanceColumns(), page: first, totals: model.shownTotals };
  }

  /**
   * Rows `from`… of the latest snapshot's balances in the order and filter of `query`. The page names
   * the data it is of (`version`): after a refresh, a label or a wallet switch it differs from the
   * pages before, and the renderer asks for the overview again instead of mixing them.
   */
  async overviewPage(query: BalanceQuery, from: number, count: number): Promise<BalancePage> {
    const pid = this.profileId();
    const snap = pid ? this.deps.repo.latestSnapshot(pid) : null;
    if (!pid || !snap) return emptyPage(`${pid ?? 'none'}:none`, query);
    const net = this.network();
    const model = await this.deps.overview.model(pid, snap.id, snap.index?.height ?? null, (address: string) => addressType(address, net), net?.chain ?? 'any');
    await model.prepare(query);
    return model.page(query, from, count);
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
    const conn = await this.deps.services.awaitConnection('refresh (the last snapshot stays on screen)');
    const { engine, incremental } = this.enginesFor(conn);
    if (engine.running || incremental.running) throw new AppError('input.invalid', 'A refresh is already running.');
    const controller = new AbortController();
    this.controller = controller;
    const started = Date.now();
    const key = walletOf(conn);
    const previous = this.deps.repo.latestSnapshot(key)?.id ?? null;
    try {
      // Incremental when it can be (electron/main/refresh/incremental.ts), else the full refresh.
      const r = await incremental.run({ signal: controller.signal, onProgress: (p) => this.deps.services.emit('refresh:progress', p) });
      this.deps.services.emit('watch:changed', { snapshotId: r.snapshotId, failed: false });
      if ((r.change !== null || r.snapshotId !== previous) && this.deps.notificationsOn?.(key.profileId)) {
        const pendingKey = JSON.stringify([key.profileId, key.wallet]);
        let pending = this.pendingPayments.get(pendingKey);
        if (!pending) this.pendingPayments.set(pendingKey, (pending = new Map()));
        const notices = r.change !== null ? noticesBetween(this.deps.repo, key, r.change, pending) : paymentNotices(this.deps.repo, key, previous, r.snapshotId, pending);
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
    const conn = this.deps.services.activeConnection();
    return addressView({ repo: this.deps.repo, pid, conn, network: this.network(), withoutIndex: this.#withoutIndex(), log: this.deps.log }, address);
  }

  async transaction(txid: string): Promise<TransactionView> {
    const pid = this.requireProfileId();
    const conn = this.connected('read this transaction');
    const engine = this.engineFor(conn);
    return transactionView({ repo: this.deps.repo, pid, conn, engine, withoutIndex: () => this.#withoutIndex() }, txid);
  }

  // ——— the watched set ———

  /** Parses and adds the addresses in the import worker (one transaction; nothing when any line is bad). */
  async add(text: string): Promise<AddAddressesResult> {
    const pid = this.requireProfileId();
    const network = this.requireNetwork();
    const result = await this.#imports.run('add-addresses', { profileId: pid, chain: network.chain, text });
    if (result.errors.length === 0) this.deps.log.info(`watch: added ${result.added} addresses (${result.existing} already watched)`);
    return result;
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
    return historyView(this.deps.repo, this.requireProfileId());
  }

  reconcile(): { issues: ReconcileIssue[]; snapshotTakenAt: string | null } {
    const pid = this.requireProfileId();
    return reconcileIssues({ repo: this.deps.repo, pid, conn: this.deps.services.activeConnection(), withoutIndex: this.#withoutIndex() });
  }

  exportCsv(unit: 'btc' | 'sats', includeHidden: boolean): { text: string; rows: number } {
    const pid = this.requireProfileId();
    return balancesCsv(this.deps.repo, pid, this.network(), unit, includeHidden);
  }

  // ——— labels ———

  setLabel(type: Label['type'], ref: string, label: string): { removed: boolean } {
    const pid = this.requireProfileId();
    if (label.trim() === '') return { removed: this.deps.repo.deleteLabel(pid, type, ref) };
    this.deps.repo.setLabel(pid, { type, ref, label });
    return { removed: false };
  }

  exportLabels(): { text: string; records: number } {
    const pid = this.requireProfileId();
    const records = localRecords(this.deps.repo, pid);
    const have = new Set(records.filter((r) => r.type === 'addr').map((r) => r.ref));
    const snap = this.deps.repo.latestSnapshot(pid);
    if (snap) {
      for (const [address, r] of this.deps.repo.received(snap.id)) {
        if (r.nodeLabel && !have.has(address)) records.push({ type: 'addr', ref: address, label: r.nodeLabel });
      }
    }
    return { text: serializeBip329(records), records: records.length };
  }

  previewLabels(text: string, rule: MergeRule): Promise<LabelImportPreview> {
    return this.importLabels(text, rule, false);
  }

  /** Parses, merges and (when `apply`) writes a BIP329 file in the import worker: one transaction, or nothing when any line is bad. */
  async importLabels(text: string, rule: MergeRule, apply = true): Promise<LabelImportPreview> {
    const pid = this.requireProfileId();
    const network = this.requireNetwork();
    const { preview } = await this.#imports.run('labels', { profileId: pid, chain: network.chain, text, rule, apply });
    if (apply && preview.errors.length === 0) this.deps.log.info(`labels: imported ${preview.added} new, ${preview.updated} updated`);
    return preview;
  }
}
