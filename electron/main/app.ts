// Builds the main-process services for one data folder. Used by the Electron shell (index.ts) and by
// the browser entry (web.ts); neither adds logic of its own.
import { join } from 'node:path';
import type { AppInfo, ProfileInput } from '../../shared/ipc/contract';
import { IndexClient } from './blockindex/client';
import { CredentialStore, keytarBackend, readCookie, type SecretBackend } from './credentials';
import type { StartDemo } from './demo';
import { isLoopbackHost } from './net/http';
import { createHandlers, dispatch, type Handlers } from './ipc/handlers';
import { fileLogger, type Logger } from './log';
import { RpcClient } from './rpc/client';
import { Services, type NodeAuth } from './services';
import { openDatabase } from './store/db';
import { ProfileRepository } from './store/profiles';
import { OverviewQuery } from './store/overview';
import { WatchRepository } from './store/watch';
import { WatchService } from './watch/service';
import { PsbtService } from './psbt/service';
import { UriInbox } from './uri';
import { ChainMonitor } from './monitor';
import { pollIntervalOf, SettingsService } from './settings-service';
import { SettingsRepository } from './store/settings';
import { WalletRepository } from './store/wallets';
import { WalletHistoryCache } from './store/history-cache';
import { WalletService } from './wallet/service';
import { WalletExportService } from './wallet/export-service';
import { InlineRunner, sourceWorkerScript, WorkerRunner, type WorkerScript } from './psbt/runner';
import { InlineImportRunner, sourceImportWorkerScript, WorkerImportRunner } from './watch/import-runner';
import { InlineScanRunner, sourceScanWorkerScript, WorkerScanRunner } from './psbt/scan-runner';
import { SendService } from './send/index';
import { SendStore } from './send/store';
import { DraftStore } from './send/drafts-store';
import { SignerService } from './signer/service';
import { signerProgramSetting } from './signer/setting';

export interface AppOptions {
  /** The app's data folder (Electron's userData): spyglass.sqlite and logs/ live here. */
  dataDir: string;
  info: AppInfo;
  startDemo?: StartDemo;
  autoDemo?: boolean;
  /** Defaults to the OS keychain through keytar. */
  secretBackend?: SecretBackend | null;
  /**
   * Where heavy PSBT work runs: the PSBT worker thread's script (index.ts and web.ts pass the built
   * one; from source, worker.ts through tsx), or 'inline' in this thread.
   */
  psbtWorker?: WorkerScript | 'inline';
  /**
   * Where big inputs (label files, address lists, wallet files) are parsed and written: the import
   * worker thread's script (index.ts and web.ts pass the built one; from source, import-worker.ts
   * through tsx), or 'inline' in this thread.
   */
  importWorker?: WorkerScript | 'inline';
  /**
   * Where animated-QR scans are decoded: the scan worker's script (index.ts and web.ts pass the built one;
   * from source, scan-worker.ts through tsx, unless the PSBT work is inline), or 'inline' in this thread.
   */
  scanWorker?: WorkerScript | 'inline';
  /** The chain monitor's poll interval (default: the refresh setting; null: off). */
  pollMs?: number | null;
  /** Largest replies read from the node and the index (defaults: 256 MiB and 64 MiB; tests set small ones). */
  replyLimits?: { nodeBytes?: number; indexBytes?: number };
  log?: Logger;
  /**
   * The signer program's environment and deadlines (#30; tests point SPYGLASS_SIGNER at the test HWI
   * program), the resources folder a bundled HWI is looked for in, and the OS's file dialog (index.ts only).
   */
  signer?: Pick<import('./signer/service').SignerDeps, 'env' | 'timeouts' | 'maxReplyBytes' | 'resourcesDir' | 'pickProgram'>;
}

export interface SpyglassApp {
  services: Services;
  watch: WatchService;
  /** bitcoin: links waiting for the window. */
  uris: UriInbox;
  /** Follows the chain and the connection's health (started by index.ts and web.ts, not by tests). */
  monitor: ChainMonitor;
  handlers: Handlers;
  log: Logger;
  dbFile: string;
  logFile: string;
  dispatch(channel: unknown, payload: unknown): ReturnType<typeof dispatch>;
  close(): Promise<void>;
}

export function createApp(opts: AppOptions): SpyglassApp {
  const logFile = join(opts.dataDir, 'logs', 'main.log');
  const log = opts.log ?? fileLogger(logFile);
  const dbFile = join(opts.dataDir, 'spyglass.sqlite');
  const db = openDatabase(dbFile);
  const profiles = new ProfileRepository(db);
  const limits = opts.replyLimits ?? {};
  const credentials = new CredentialStore(opts.secretBackend === undefined ? keytarBackend() : opts.secretBackend);
  const settingsRepo = new SettingsRepository(db);
  // The wallets holding private keys each profile acknowledged watching (its settings; wallet/attach.ts).
  const keyWallets = {
    acknowledged: (profileId: string): readonly string[] => settingsRepo.profile(profileId).keyWalletsAcknowledged,
    acknowledge: (profileId: string, walletName: string): void => {
      const had = settingsRepo.profile(profileId).keyWalletsAcknowledged;
      if (!had.includes(walletName)) settingsRepo.setProfile(profileId, { keyWalletsAcknowledged: [...had, walletName] });
    },
  };
  const services = new Services({
    profiles,
    credentials,
    // Wallet calls go to this wallet only (services.activate passes the one checkConnection chose);
    // with none, the client refuses them rather than let the node pick its single loaded wallet.
    makeRpc: (p: ProfileInput, auth: NodeAuth) =>
      new RpcClient({ url: p.nodeUrl, auth, wallet: p.wallet.trim() || null, readCookie, ...(limits.nodeBytes !== undefined ? { maxReplyBytes: limits.nodeBytes } : {}) }),
    makeIndex: (url: string) => {
      const host = new URL(url);
      const index = new IndexClient({ url, ...(limits.indexBytes !== undefined ? { maxReplyBytes: limits.indexBytes } : {}) });
      return Object.assign(index, { plainHttpRemote: host.protocol === 'http:' && !isLoopbackHost(host.hostname) });
    },
    ...(opts.startDemo ? { startDemo: opts.startDemo } : {}),
    autoDemo: opts.autoDemo ?? false,
    info: opts.info,
    log,
    keyWalletsAcknowledged: keyWallets.acknowledged,
  });
  const settings = new SettingsService(settingsRepo, services);
  const watchRepo = new WatchRepository(db);
  const importScript = opts.importWorker ?? (import.meta.url.endsWith('.ts') ? sourceImportWorkerScript() : 'inline');
  const imports = importScript === 'inline' ? new InlineImportRunner(watchRepo) : new WorkerImportRunner(importScript, dbFile, log);
  const watch = new WatchService({ services, repo: watchRepo, overview: new OverviewQuery(db), profiles, log, notificationsOn: (pid) => settings.profile(pid).notifications, imports });
  const worker = opts.psbtWorker ?? (import.meta.url.endsWith('.ts') ? sourceWorkerScript() : 'inline');
  const drafts = new DraftStore(db);
  const runner = worker === 'inline' ? new InlineRunner({ repo: watchRepo, profiles, drafts }) : new WorkerRunner(worker, dbFile, log);
  const scanWorker = opts.scanWorker ?? (worker !== 'inline' && import.meta.url.endsWith('.ts') ? sourceScanWorkerScript() : 'inline');
  const scans = scanWorker === 'inline' ? new InlineScanRunner() : new WorkerScanRunner(scanWorker, log);
  const psbt = new PsbtService({
    services,
    repo: watchRepo,
    profiles,
    log,
    thresholds: () => {
      const a = settings.app();
      return { feeRateSatVb: a.feeRateWarnSatVb, feePercent: a.feePercentWarn };
    },
    runner,
    walletDescriptors: (pid) => {
      // the wallet's descriptors as imported here, and as the node listed them for Send
      const wallet = profiles.get(pid)?.wallet ?? '';
      const stored = new WalletRepository(db).get(pid, wallet)?.description;
      const listed = new SendStore(db).facts(pid, wallet)?.facts.descriptors.map((d) => d.desc) ?? [];
      return [...(stored ? [stored.external, ...(stored.internal ? [stored.internal] : [])] : []), ...listed];
    },
  });
  const uris = new UriInbox(() => services.emit('uri:opened', {}));
  const monitor = new ChainMonitor({ services, watch, log }, opts.pollMs === undefined ? pollIntervalOf(settings.app()) : opts.pollMs);
  // The interval is a setting, applied at once (unless this app was made with a fixed one, as tests do).
  if (opts.pollMs === undefined) settings.onChange((v) => monitor.setInterval(pollIntervalOf(v.app)));
  const walletService = new WalletService({ services, wallets: new WalletRepository(db), profiles, historyCache: new WalletHistoryCache(db), log, watch: watchRepo, keyWallets, imports });
  const send = new SendService(
    { services, store: new SendStore(db), drafts, watch: watchRepo, profiles, runner, scans, settings: () => settings.app(), log },
    () => void watch.refresh().catch(() => undefined),
  );
  const walletExport = new WalletExportService({ services, wallets: new WalletRepository(db), profiles });
  const storedWallets = new WalletRepository(db);
  const signer = new SignerService({
    services,
    send,
    log,
    setting: signerProgramSetting(db),
    wallets: { descriptors: (pid, wallet) => [storedWallets.get(pid, wallet)?.description].flatMap((d) => (d ? [d.external, ...(d.internal ? [d.internal] : [])] : [])) },
    ...(opts.signer ?? {}),
  });
  const handlers = createHandlers(services, watch, psbt, uris, settings, walletService, send, walletExport, signer);
  return {
    services,
    watch,
    uris,
    monitor,
    handlers,
    log,
    dbFile,
    logFile,
    dispatch: (channel, payload) => dispatch(handlers, channel, payload, log),
    close: async () => {
      await monitor.stop();
      await psbt.close();
      await imports.close();
      await scans.close();
      await services.close();
      db.close();
    },
  };
}
