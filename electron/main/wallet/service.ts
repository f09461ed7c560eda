// Watch-only wallets on the node (#17) behind the `wallet:*` channels: an import (an xpub, descriptors,
// a multisig file) becomes a blank watch-only descriptor wallet on the node — checksums checked here
// and by the node, `createwallet` with private keys disabled, `importdescriptors` with the rescan the
// person chose, its progress from `getwalletinfo.scanning`, `abortrescan` to stop it — and is kept in
// SQLite so that receive addresses work offline. Receive (receive.ts): the current unused address until
// it is paid, Next address, labels typed there. History: the node wallet's transactions with a running balance.
// Attaching to a wallet the node already has: attach.ts; rescans a node stop interrupted: rescan.ts.
import { AppError, isAppError } from '../../../shared/errors';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import type { NodeWalletsView, ProfileWalletsView, ReceiveAddressView, ReceiveLabelResult, WalletAttachResult, WalletBalancesView, WalletHistoryView, WalletImportResult, WalletPreview, WalletRescanResult, WalletRescanStatus, WalletScanProgress } from '../../../shared/ipc/wallet';
import type { ConnectionState } from '../../../shared/ipc/contract';
import { walletNameProblem, type ImportOptions } from '../../../shared/wallet/index';
import { InlineImportRunner, type ImportRunner } from '../watch/import-runner';
import type { WalletParseRequest } from './preview';
import type { Logger } from '../log';
import { notConnectedError, type ActiveConnection, type Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { WalletRepository } from '../store/wallets';
import type { WatchRepository } from '../store/watch';
import { ReceiveService } from './receive';
import type { WalletHistoryCache } from '../store/history-cache';
import { walletBalances } from './balances';
import { keptHistory, walletHistory } from './history';
import { historyPage } from '../../../shared/wallet/history-page';
import { attachWallet, listNodeWallets, type KeyWalletAcknowledgements, requireDescriptorWallets, setProfileWallet, watchFromNow } from './attach';
import { listProfileWallets, switchWallet } from './switch';
import { interruptedMessage, isRescanFailure, pollScan, recorded, rescanAgain, rescanStatus, RESCAN_TIMEOUT_MS, startHeightFor } from './rescan';

export interface WalletServiceDeps {
  services: Services;
  wallets: WalletRepository;
  profiles: ProfileRepository;
  /** The last wallet history per profile and node wallet, for offline (store/history-cache.ts). */
  historyCache: WalletHistoryCache;
  log: Logger;
  /** Labels and the watched set, for Receive (receive.ts). */
  watch?: WatchRepository;
  /** The wallets holding private keys each profile acknowledged (its settings; attach.ts). Absent: none can be acknowledged. */
  keyWallets?: KeyWalletAcknowledgements;
  /** Where wallet files are parsed (the import worker in the app); default: inline. */
  imports?: ImportRunner;
}

export interface ImportRequest extends ImportOptions {
  text: string;
  walletName: string;
  /** Rescan from now (a new wallet), from a date (its birthday), or the whole chain. */
  rescan: { from: 'now' } | { from: 'date'; date: string } | { from: 'everything' };
  /** Addresses of each branch the node watches (importdescriptors' range [0, watchAhead − 1]); default 1,000, at most 10,000. */
  watchAhead?: number;
}

export const DEFAULT_WATCH_AHEAD = 1000;
export const MAX_WATCH_AHEAD = 10_000;

/** The import worker's request for the text and import options of `req` (only those: the rest stays here). */
function parseRequest(req: ImportOptions & { text: string }, net: Network): WalletParseRequest {
  const opts: ImportOptions = {};
  if (req.format !== undefined) opts.format = req.format;
  if (req.name !== undefined) opts.name = req.name;
  if (req.scriptType !== undefined) opts.scriptType = req.scriptType;
  if (req.fingerprint !== undefined) opts.fingerprint = req.fingerprint;
  if (req.path !== undefined) opts.path = req.path;
  return { ...opts, text: req.text, chain: net.chain };
}

function networkOf(conn: ActiveConnection): Network {
  const net = NETWORKS[conn.report.node.chain as Network['chain']];
  if (!net) throw new AppError('chain.unsupported', `The node's chain "${conn.report.node.chain}" is not one Spyglass knows.`);
  return net;
}

/** How long the whole history read for a first page answers the `all` call that follows it. */
const HISTORY_REUSE_MS = 10_000;

export class WalletService {
  #lastHistory: { key: string; at: number; view: WalletHistoryView } | null = null;
  #scanning: { walletName: string; started: number } | null = null;
  #receiver: ReceiveService | null = null;

  readonly #imports: ImportRunner;

  constructor(private readonly deps: WalletServiceDeps) {
    this.#imports = deps.imports ?? new InlineImportRunner(null);
  }

  #connected(): ActiveConnection {
    // No live connection: the connection's own failure (refused, 401, wallet not loaded…), not a guess.
    return this.deps.services.requireConnection('reach the node, where the wallet lives');
  }

  /** Parses locally (no node needed once the network is known), in the import worker: what will be created. */
  async preview(req: ImportOptions & { text: string }, network?: Network): Promise<WalletPreview> {
    const conn = this.deps.services.activeConnection();
    const net = network ?? (conn ? networkOf(conn) : null);
    if (!net) throw notConnectedError(this.deps.services.connectionState(), "check the keys against the node's chain (it decides which keys and addresses are valid)");
    return this.#imports.run('wallet-preview', parseRequest(req, net));
  }

  /**
   * Creates the watch-only wallet on the node and imports the descriptors; the active profile then
   * watches it. `onProgress` hears the node's rescan progress while importdescriptors runs.
   */
  async importToNode(req: ImportRequest, onProgress: (p: WalletScanProgress) => void): Promise<WalletImportResult> {
    const conn = this.#connected();
    const net = networkOf(conn);
    const w = await this.#imports.run('wallet-parse', parseRequest(req, net));
    const walletName = req.walletName.trim();
    if (walletName === '') throw new AppError('input.invalid', 'Give the wallet a name (it is its name on the node).', { field: 'walletName' });
    const nameProblem = walletNameProblem(walletName);
    if (nameProblem) throw new AppError('input.invalid', nameProblem, { field: 'walletName' });
    const watchAhead = req.watchAhead ?? DEFAULT_WATCH_AHEAD;
    if (!Number.isInteger(watchAhead) || watchAhead < 1 || watchAhead > MAX_WATCH_AHEAD) {
      throw new AppError('input.invalid', `Addresses watched ahead: ${watchAhead} is not a whole number from 1 to ${MAX_WATCH_AHEAD.toLocaleString('en-US')}.`, { field: 'watchAhead' });
    }
    const call = <T>(method: string, params: unknown[], wallet: boolean | string = false, timeoutMs?: number): Promise<T> =>
      conn.rpc.call<T>(method, params, { wallet, ...(timeoutMs ? { timeoutMs } : {}) });
    await requireDescriptorWallets(conn.rpc);

    // The node checks the checksums too (and its own parser has the last word).
    for (const desc of [w.external, w.internal].filter((d): d is string => d !== null)) {
      const info = await call<{ checksum: string }>('getdescriptorinfo', [desc]);
      if (!desc.endsWith(`#${info.checksum}`)) {
        throw new AppError('input.invalid', `The node computes another checksum for ${desc.slice(0, 40)}… (#${info.checksum}): the descriptor was not imported.`, { field: 'descriptor' });
      }
    }
    const timestamp = req.rescan.from === 'everything' ? 0 : req.rescan.from === 'date' ? Math.floor(Date.parse(req.rescan.date) / 1000) : 'now';
    if (typeof timestamp === 'number' && !Number.isFinite(timestamp)) throw new AppError('input.invalid', `"${(req.rescan as { date: string }).date}" is not a date.`, { field: 'date' });
    // Where a rescan from that time starts (recorded, to run it again after a node stop).
    const rescanFrom = typeof timestamp === 'number' ? { startHeight: await startHeightFor(conn.rpc, timestamp), fromTime: timestamp, kind: 'import' as const } : null;
    const loaded = await call<string[]>('listwallets', []);
    if (loaded.includes(walletName)) {
      throw new AppError('input.invalid', `The node already has a wallet named "${walletName}": choose another name, or attach that wallet instead.`, { field: 'walletName', walletName, canAttach: true, loaded: true });
    }
    try {
      await call('createwallet', [walletName, true, true, '', false, true, true]);
    } catch (e) {
      if (isAppError(e) && e.code === 'rpc.error' && /already exists/i.test(String(e.detail?.coreMessage ?? e.message))) {
        throw new AppError('input.invalid', `The node already has a wallet named "${walletName}" in its wallets directory (not loaded): choose another name, or attach that wallet instead (Spyglass loads it).`, { field: 'walletName', walletName, canAttach: true, loaded: false });
      }
      throw e;
    }

    const range = [0, watchAhead - 1];
    const requests = [
      { desc: w.external, active: true, range, timestamp, internal: false, next_index: 0 },
      ...(w.internal ? [{ desc: w.internal, active: true, range, timestamp, internal: true, next_index: 0 }] : []),
    ];
    const pid = conn.profile.id;
    type ImportReply = Array<{ success: boolean; warnings?: string[]; error?: { message: string } }>;
    const started = new Date();
    this.#scanning = { walletName, started: started.getTime() };
    const stopPoll = pollScan(conn.rpc, walletName, onProgress);
    const importCall = (): Promise<ImportReply> => call<ImportReply>('importdescriptors', [requests], walletName, RESCAN_TIMEOUT_MS).finally(stopPoll);
    let results: ImportReply;
    try {
      results =
        rescanFrom
          ? await recorded(this.deps, pid, walletName, rescanFrom, importCall, () => call('getwalletinfo', [], walletName), () => {
              // The wallet exists on the node: keep it, so that the next connection watches it and says the rescan was cut short.
              this.deps.wallets.save(pid, walletName, w);
              setProfileWallet(this.deps, pid, walletName);
            })
          : await importCall();
    } finally {
      stopPoll();
      this.#scanning = null;
    }
    const failed = results.find((r) => !r.success);
    if (failed && rescanFrom && isRescanFailure(results)) {
      // Core imported the descriptors but its rescan stopped short (a shutdown reaches it so): the wallet
      // is kept and watched, and the rescan is to be run again.
      const rec = this.deps.wallets.startRescan(pid, walletName, rescanFrom, started);
      this.deps.wallets.save(pid, walletName, w);
      await watchFromNow(this.deps, pid, walletName);
      throw new AppError('rpc.error', `${interruptedMessage(rec)} (the node: ${failed.error?.message ?? 'rescan failed'})`, { walletName, rescanInterrupted: true, startHeight: rec.startHeight });
    }
    if (failed) throw new AppError('rpc.error', `The node refused the descriptors: ${failed.error?.message ?? 'no reason given'}. The wallet "${walletName}" was created empty.`, { field: 'descriptor' });
    onProgress({ walletName, scanning: false, progress: 1, durationSeconds: null });

    this.deps.wallets.save(pid, walletName, w);
    // The active profile watches the new wallet from now on.
    await watchFromNow(this.deps, pid, walletName);
    this.deps.log.info(`wallet imported: ${walletName} (${w.format}, ${w.scriptType}, ${requests.length} descriptors, ${watchAhead} addresses ahead, rescan ${req.rescan.from})`);
    return {
      walletName,
      profileId: pid,
      descriptors: requests.length,
      rescan: req.rescan.from === 'now' ? 'none' : req.rescan.from === 'date' ? 'from-date' : 'everything',
      warnings: [...w.warnings, ...results.flatMap((r) => r.warnings ?? [])],
    };
  }

  /** The active profile's wallets, for the switcher (switch.ts). */
  list(): ProfileWalletsView {
    return listProfileWallets(this.deps);
  }

  /** Every screen shows `walletName` from now on (switch.ts). */
  switchTo(walletName: string): Promise<ConnectionState> {
    return switchWallet(this.deps, walletName);
  }

  /** The node's wallets (loaded and on disk), for "Use a wallet already on the node". */
  async nodeWallets(): Promise<NodeWalletsView> {
    return listNodeWallets(this.deps, this.#connected());
  }

  /** Watches a watch-only descriptor wallet the node already has (attach.ts). */
  async attach(walletName: string, opts: { acknowledgeKeys?: boolean } = {}): Promise<WalletAttachResult> {
    const conn = this.#connected();
    return attachWallet(this.deps, conn, networkOf(conn), walletName, opts);
  }

  /** A rescan of the profile's wallet that is recorded and not finished: running, or interrupted by a node stop. */
  async rescanStatus(): Promise<{ status: WalletRescanStatus | null }> {
    const conn = this.deps.services.activeConnection();
    if (!conn) return { status: null };
    return { status: await rescanStatus(this.deps, conn, this.#scanning?.walletName ?? null) };
  }

  /** "Run the rescan again" after an interruption (rescan.ts), with `onProgress` as for an import. */
  async rescan(onProgress: (p: WalletScanProgress) => void): Promise<WalletRescanResult> {
    const conn = this.#connected();
    this.#scanning = { walletName: conn.report.node.wallet ?? '', started: Date.now() };
    try {
      return await rescanAgain(this.deps, conn, onProgress);
    } finally {
      this.#scanning = null;
    }
  }

  /** Stops the node's rescan (the descriptors stay imported; history before the stop may be missing). */
  async abortRescan(): Promise<{ aborted: boolean }> {
    const conn = this.#connected();
    const scanning = this.#scanning;
    const aborted = await conn.rpc.call<boolean>('abortrescan', [], { wallet: scanning?.walletName ?? true });
    return { aborted };
  }

  /** The current unused receive address, the same until it is paid (receive.ts). */
  receive(): Promise<ReceiveAddressView> {
    return this.#receive().current();
  }

  /** "Next address": a fresh receive address on purpose (receive.ts). */
  nextAddress(): Promise<ReceiveAddressView> {
    return this.#receive().next();
  }

  /** A label typed on Receive, saved to the address at once: on the node and here (receive.ts). */
  setReceiveLabel(address: string, label: string): Promise<ReceiveLabelResult> {
    return this.#receive().setLabel(address, label);
  }

  #receive(): ReceiveService {
    if (!this.deps.watch) throw new AppError('internal', 'Receive needs the watched-address store (the wallet service was made without it).');
    this.#receiver ??= new ReceiveService({ ...this.deps, watch: this.deps.watch });
    return this.#receiver;
  }

  /**
   * The wallet's transactions, newest first, with the balance after each; balances split as Core's
   * getbalances. Offline: the last history the node gave for this profile and wallet (history.ts).
   */
  async history(all = true): Promise<WalletHistoryView> {
    // The whole history read for the first page serves the `all` call that follows it (the screen
    // asks for the rest right after its first rows): the node is asked once for both.
    // Offline both calls read the kept history (no node to spare): only a live connection's is reused.
    const conn = this.deps.services.activeConnection();
    const key = conn ? JSON.stringify([conn.profile.id, conn.report.node.wallet]) : null;
    const kept = this.#lastHistory;
    let view: WalletHistoryView;
    if (all && key !== null && kept?.key === key && Date.now() - kept.at < HISTORY_REUSE_MS) {
      view = kept.view;
      this.#lastHistory = null;
    } else {
      view = await walletHistory(this.deps);
      this.#lastHistory = all || key === null ? null : { key, at: Date.now(), view };
    }
    return historyPage(view, all);
  }

  /**
   * The wallet's getbalances split for the Balances page; offline, the split of the last history the
   * node gave for this profile and wallet, with when (`asOf`); null when neither is known.
   */
  async balances(): Promise<WalletBalancesView | null> {
    const live = await walletBalances(this.deps.services);
    if (live || this.deps.services.activeConnection()) return live;
    const kept = keptHistory(this.deps);
    if (!kept) return null;
    const b = kept.view.balance;
    return { wallet: kept.view.wallet, availableSats: b.confirmedSats, incomingSats: b.pendingSats, immatureSats: b.immatureSats, asOf: kept.fetchedAt };
  }
}
