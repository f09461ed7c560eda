// The one IPC contract: every channel the renderer may invoke, its request schema (validated in main
// before any handler runs) and its reply type; plus the events main may push. The preload, the
// handler table and the loopback bridge all carry exactly these channels.
import { z } from 'zod';
import type { IpcResult } from '../errors';
import { cappedText } from './capped';
import { CHANNEL_NAMES, EVENT_NAMES, type ChannelName, type EventNameOf } from './names';
import type {
  AddAddressesResult,
  AddressDetailView,
  BalancePage,
  HistoryView,
  LabelImportPreview,
  ReconcileIssue,
  RefreshProgress,
  RefreshSummaryView,
  TransactionView,
  WatchOverview,
} from './watch';
import { OVERVIEW_PAGE_MAX } from './watch';
import { SORT_KEYS } from '../balance-query';
import type { PsbtConvertReply, PsbtCrosscheckReply, PsbtQrReply, PsbtReviewPageReply, PsbtReviewReply } from './psbt';
import { QR_PAGE, QR_PAGE_MAX, REVIEW_PAGE_MAX } from './psbt';
import type { NodeWalletsView, ProfileWalletsView, ReceiveAddressView, ReceiveLabelResult, WalletAttachResult, WalletBalancesView, WalletHistoryView, WalletImportResult, WalletPreview, WalletRescanResult, WalletRescanStatus, WalletScanProgress } from './wallet';
import { sendChannels } from './send';
import { signerChannels } from './signer';
import { bumpChannels } from './bump';

export type * from './watch';
export type * from './psbt';
export type * from './wallet';
export type * from './send';
export type * from './signer';

export { CHANNEL_PREFIX, EVENT_PREFIX } from './names';

const URL_RULE = 'Use an http:// or https:// URL without a user name or password in it';
function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}
const url = z.string().trim().min(1, 'A URL is required').max(2048).refine(isHttpUrl, URL_RULE);
/** A URL, or empty for none. */
const optionalUrl = z.string().trim().max(2048).refine((s) => s === '' || isHttpUrl(s), URL_RULE);

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Not a profile id');
const password = z.string().min(1, 'The password is empty').max(1024);

/** What a person types in "Connect your node": no secret in it. */
export const ProfileInputSchema = z.object({
  name: z.string().trim().min(1, 'Give the profile a name').max(100),
  nodeUrl: url,
  auth: z.enum(['password', 'cookie']),
  rpcUser: z.string().max(256).default(''),
  cookiePath: z.string().max(4096).default(''),
  wallet: z.string().max(256).default(''),
  /** Empty: no index; the node's wallet answers what it can (#17). */
  indexUrl: optionalUrl.default(''),
}).strict().superRefine((p, ctx) => {
  if (p.auth === 'password' && p.rpcUser.trim() === '') ctx.addIssue({ code: 'custom', path: ['rpcUser'], message: 'Enter the RPC user name (rpcuser or the user of an rpcauth line)' });
  if (p.auth === 'cookie' && p.cookiePath.trim() === '') ctx.addIssue({ code: 'custom', path: ['cookiePath'], message: 'Enter the path of the node\'s .cookie file' });
});
export type ProfileInput = z.output<typeof ProfileInputSchema>;

/** Where a profile's password lives. `none` for cookie auth or when it was never entered. */
export type PasswordStorage = 'keychain' | 'session' | 'none';

/** A profile as the renderer sees it: never the password. */
export interface ProfileView extends ProfileInput {
  id: string;
  passwordStorage: PasswordStorage;
  isDemo: boolean;
  createdAt: string;
  updatedAt: string;
  /** The last time connecting failed, and why (cleared by a success). */
  lastError: { code: string; message: string; at: string } | null;
}

export const RememberSchema = z.enum(['keychain', 'session']);
export type Remember = z.infer<typeof RememberSchema>;

export interface NodeReport {
  version: number; // networkinfo.version, e.g. 300000
  subversion: string; // "/Satoshi:30.0.0/"
  chain: string; // main | test | testnet4 | signet | regtest
  blocks: number;
  headers: number;
  bestBlockHash: string;
  initialBlockDownload: boolean;
  verificationProgress: number;
  /**
   * The wallet Spyglass watches: the profile's, or — none named — the only loaded wallet when it is a
   * watch-only descriptor wallet. Null: none is watched (none named and none safe to pick, or the one
   * named holds private keys not acknowledged, or is legacy); a warning says so and what to do.
   */
  wallet: string | null;
  /** The watched wallet's kind: 'private-keys' only once acknowledged for this profile; null when none is watched. */
  walletKind: 'watch-only' | 'private-keys' | null;
  /** 'node': the profile named none and this, the node's only loaded wallet, was picked (and written into the profile). */
  walletFrom: 'profile' | 'node' | null;
  walletsLoaded: string[];
}

export interface IndexReport {
  /** 'node': the profile has no index URL, the node's wallet stands in (heights are the node's). */
  source: 'index' | 'node';
  height: number;
  bestBlockHash: string;
  genesisHash: string;
}

export interface Warning {
  /** no-wallet: none is watched (choose one); wallet-holds-keys: the watched wallet holds private keys (acknowledged). */
  code: 'plain-http-remote' | 'node-syncing' | 'index-behind' | 'no-wallet' | 'wallet-holds-keys';
  message: string;
}

export interface ConnectionReport {
  node: NodeReport;
  index: IndexReport;
  /** The address network every validation uses from now on (derived from node.chain). */
  network: 'mainnet' | 'testnet' | 'signet' | 'regtest';
  warnings: Warning[];
  checkedAt: string;
}

export type ConnectionState =
  | { state: 'none' } // first run: no profile
  | { state: 'connecting'; profileId: string }
  | { state: 'connected'; profileId: string; report: ConnectionReport }
  | {
      state: 'failed';
      profileId: string;
      error: import('../errors').IpcError;
      /** When this failure began (ISO time): the same failure seen again keeps its first time ("node down since …"). */
      since: string;
    }
  | { state: 'needs-password'; profileId: string };

export interface KeychainStatus {
  available: boolean;
  /** Why not, in words, when unavailable. */
  reason: string | null;
  backend: string; // "OS keychain (libsecret)", "macOS Keychain", …
}

export interface AppInfo {
  version: string;
  platform: string;
  /** Running in a browser over the loopback bridge instead of Electron. */
  bridge: boolean;
}

const ProfileRef = z.object({ id }).strict();
const empty = z.object({}).strict();
/** The Balances table's sort and filter (BalanceQuery); the filter text is what a filter box holds. */
const BalanceQuerySchema = z
  .object({ sort: z.enum(SORT_KEYS), dir: z.enum(['asc', 'desc']), filter: z.string().max(1000, 'The filter is longer than 1,000 characters'), showHidden: z.boolean() })
  .strict();
const pageCount = z.number().int().min(1).max(OVERVIEW_PAGE_MAX);
/** Shape only (length, charset); the network check happens in main against the node's chain. */
const address = z.string().trim().min(1, 'An address is required').max(128).regex(/^[A-Za-z0-9]+$/, 'Not an address');
const txid = z.string().regex(/^[0-9a-fA-F]{64}$/, 'A txid is 64 hex characters').transform((s) => s.toLowerCase());
const labelType = z.enum(['addr', 'tx', 'output', 'input', 'pubkey', 'xpub']);
export const MergeRuleSchema = z.enum(['replace', 'keep-existing', 'fill-empty']);
export type MergeRule = z.infer<typeof MergeRuleSchema>;
const psbtRequest = z
  .object({ psbt: cappedText('psbt'), encoding: z.enum(['auto', 'base64', 'hex']).default('auto') })
  .strict();

export const AppSettingsSchema = z
  .object({
    unit: z.enum(['btc', 'sats']),
    theme: z.enum(['system', 'light', 'dark']),
    refreshSeconds: z.number().int('Whole seconds').refine((n) => n === 0 || (n >= 5 && n <= 3600), 'Off (0), or 5 s to 1 hour'),
    feeRateWarnSatVb: z.number().positive('Above 0 sat/vB').max(100_000, 'At most 100,000 sat/vB'),
    feePercentWarn: z.number().positive('Above 0 %').max(100, 'At most 100 %'),
    defaultFeePreset: z.enum(['next-block', '30-min', '1-hour', '1-day']),
  })
  .strict();
export const ProfileSettingsSchema = z.object({ notifications: z.boolean(), indexNoticeAcknowledged: z.string().max(2048) }).strict();

export interface SettingsView {
  app: import('../settings').AppSettings;
  profileId: string | null;
  profile: import('../settings').ProfileSettings | null;
}

/** A desktop notification about the active profile's coins. */
export interface PaymentNotice {
  kind: 'incoming' | 'confirmed';
  profileId: string;
  /** The node wallet it is a payment of: a window watching another wallet does not show it. */
  wallet: string;
  txid: string;
  title: string;
  body: string;
}

const walletSource = z.object({
  text: cappedText('walletFile'),
  format: z.enum(['xpub', 'descriptor', 'sparrow', 'caravan', 'specter', 'bsms', 'coldcard', 'core']).optional(),
  name: z.string().trim().max(100).optional(),
  scriptType: z.enum(['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr', 'p2sh', 'p2sh-p2wsh', 'p2wsh']).optional(),
  fingerprint: z.string().trim().max(8).optional(),
  path: z.string().trim().max(200).optional(),
});
const walletName = z.string().trim().min(1, 'Give the wallet a name').max(64, 'At most 64 characters').regex(/^[A-Za-z0-9._ -]+$/, 'Letters, digits, space, dot, dash and underscore only');
const rescan = z.discriminatedUnion('from', [
  z.object({ from: z.literal('now') }).strict(),
  z.object({ from: z.literal('date'), date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'A date as YYYY-MM-DD') }).strict(),
  z.object({ from: z.literal('everything') }).strict(),
]);

/** Addresses of each branch the node watches ahead of the last used one (importdescriptors' range). */
const watchAhead = z.number().int('A whole number of addresses').min(20, 'At least 20 addresses').max(10_000, 'At most 10,000 addresses').default(1000);

export const channels = {
  'app:info': { request: z.object({}).strict(), reply: null as unknown as AppInfo },
  'keychain:status': { request: z.object({}).strict(), reply: null as unknown as KeychainStatus },
  'profiles:list': { request: z.object({}).strict(), reply: null as unknown as { profiles: ProfileView[]; activeId: string | null } },
  /** Create (no id) or update a profile. A password is only needed for `auth: password`; omitted on update = keep. */
  'profiles:save': {
    request: z.object({ id: id.optional(), profile: ProfileInputSchema, password: password.optional(), remember: RememberSchema.default('keychain') }).strict(),
    reply: null as unknown as { profile: ProfileView },
  },
  'profiles:delete': { request: ProfileRef, reply: null as unknown as { deleted: true } },
  /** Make a profile the active one and connect to it. */
  'profiles:activate': { request: ProfileRef, reply: null as unknown as ConnectionState },
  /**
   * "Save and connect": the profile becomes the active one only if its connection works; otherwise the
   * active one stays and the profile keeps the failure as its `lastError`.
   */
  'profiles:connect': { request: ProfileRef, reply: null as unknown as { connected: boolean; state: ConnectionState; error: import('../errors').IpcError | null } },
  /** Give the password of a profile whose password was session-only (after a restart). */
  'profiles:unlock': { request: z.object({ id, password, remember: RememberSchema }).strict(), reply: null as unknown as ConnectionState },
  /** Test a connection without saving it. For an existing profile the stored password is used unless one is given. */
  'connection:test': {
    request: z.object({ id: id.optional(), profile: ProfileInputSchema, password: password.optional() }).strict(),
    reply: null as unknown as ConnectionReport,
  },
  'connection:status': { request: z.object({}).strict(), reply: null as unknown as ConnectionState },
  /** Re-run the checks on the active profile. */
  'connection:refresh': { request: z.object({}).strict(), reply: null as unknown as ConnectionState },
  /** Wallets loaded on the node of the given (unsaved) profile, to fill the wallet field. */
  'node:listwallets': {
    request: z.object({ id: id.optional(), profile: ProfileInputSchema, password: password.optional() }).strict(),
    reply: null as unknown as { wallets: string[] },
  },
  /** Start the built-in devnet (`demo` scenario) and connect to it as the "Demo" profile. */
  'demo:start': { request: z.object({}).strict(), reply: null as unknown as ConnectionState },

  // ——— watch-only tracking (the active profile) ———
  /** Balances of the latest snapshot; works offline (marked so). */
  /** Balances of the latest snapshot; works offline (marked so). A large wallet's rows come paged: the first page in `page`'s order and filter. */
  'watch:overview': {
    request: z.object({ page: z.object({ query: BalanceQuerySchema.optional(), count: pageCount.optional() }).strict().optional() }).strict(),
    reply: null as unknown as WatchOverview,
  },
  /** Rows `from`… of a large wallet's balances, sorted and filtered in main (see BalancePage). */
  'watch:overview-page': {
    request: BalanceQuerySchema.extend({ from: z.number().int().min(0).max(100_000_000), count: pageCount }).strict(),
    reply: null as unknown as BalancePage,
  },
  /** Run a refresh (one at a time); progress arrives as `refresh:progress` events. */
  'watch:refresh': { request: empty, reply: null as unknown as RefreshSummaryView },
  'watch:cancel': { request: empty, reply: null as unknown as { cancelled: boolean } },
  'watch:address': { request: z.object({ address }).strict(), reply: null as unknown as AddressDetailView },
  /** An index transaction record (cached), with its merkle proof checked against the block header. */
  'watch:transaction': { request: z.object({ txid }).strict(), reply: null as unknown as TransactionView },
  /** Add addresses (one, a pasted list, a file's text). Nothing is added when any line is invalid. */
  'watch:add': { request: z.object({ text: cappedText('addressList') }).strict(), reply: null as unknown as AddAddressesResult },
  'watch:hide': { request: z.object({ address, hidden: z.boolean() }).strict(), reply: null as unknown as { hidden: boolean } },
  /** Remove a user-added address (node addresses can only be hidden). */
  'watch:remove': { request: z.object({ address }).strict(), reply: null as unknown as { removed: boolean } },
  'watch:history': { request: empty, reply: null as unknown as HistoryView },
  /** Where node and index disagree about the latest snapshot; `snapshotTakenAt` null: no snapshot yet, nothing compared. */
  'watch:reconcile': { request: empty, reply: null as unknown as { issues: ReconcileIssue[]; snapshotTakenAt: string | null } },
  'watch:export-csv': { request: z.object({ unit: z.enum(['btc', 'sats']).default('btc'), includeHidden: z.boolean().default(false) }).strict(), reply: null as unknown as { text: string; rows: number } },
  /** Set a local label; an empty label removes it. */
  'labels:set': { request: z.object({ type: labelType, ref: z.string().min(1).max(256), label: z.string().max(255) }).strict(), reply: null as unknown as { removed: boolean } },
  /** BIP329 JSON lines of every local label (and the node's address labels where there is no local one). */
  'labels:export': { request: empty, reply: null as unknown as { text: string; records: number } },
  'labels:preview': { request: z.object({ text: cappedText('labels'), rule: MergeRuleSchema }).strict(), reply: null as unknown as LabelImportPreview },
  /** Apply a BIP329 import in one transaction, or nothing when any line is invalid. */
  'labels:import': { request: z.object({ text: cappedText('labels'), rule: MergeRuleSchema }).strict(), reply: null as unknown as LabelImportPreview },

  // ——— PSBT review (issue 4): files are read in the renderer and sent as text (base64 or hex) ———
  /** Decode offline (Core's decodepsbt JSON) and review against the active profile's store; works offline. */
  'psbt:review': { request: psbtRequest, reply: null as unknown as PsbtReviewReply },
  /**
   * A range of the rows of the review `key` names (the reply's reviewKey), from the PSBT worker's copy;
   * `psbt` (the same text) lets the worker review it again when that copy is gone.
   */
  'psbt:review-page': {
    request: z
      .object({
        key: z.string().regex(/^[0-9a-f]{64}$/, 'A review key'),
        psbt: cappedText('psbt').optional(),
        encoding: z.enum(['auto', 'base64', 'hex']).default('auto'),
        side: z.enum(['inputs', 'outputs']),
        from: z.number().int().min(0),
        count: z.number().int().min(1).max(REVIEW_PAGE_MAX, `At most ${REVIEW_PAGE_MAX} rows a page`),
      })
      .strict(),
    reply: null as unknown as PsbtReviewPageReply,
  },
  /** Core's decodepsbt JSON of the review `key` names, when too long for the review reply (`psbt` as for psbt:review-page). */
  'psbt:review-core-json': {
    request: z
      .object({ key: z.string().regex(/^[0-9a-f]{64}$/, 'A review key'), psbt: cappedText('psbt').optional(), encoding: z.enum(['auto', 'base64', 'hex']).default('auto') })
      .strict(),
    reply: null as unknown as { json: string | null },
  },
  /** Ask the connected node's `decodepsbt` and compare it with the offline decode. */
  'psbt:crosscheck': { request: psbtRequest, reply: null as unknown as PsbtCrosscheckReply },
  /** Convert between version 0 and version 2 (BIP370) as Core writes each (to 0: required locktimes → nLockTime, noted): signers differ in what they read. */
  /**
   * The PSBT as ur:crypto-psbt parts for a (animated) QR code; `fragmentLength` sets how dense each frame is. Paged:
   * `count` parts from part `from` (0-based; a range past the end is cut at `total`).
   */
  'psbt:qr': {
    request: psbtRequest
      .extend({
        fragmentLength: z.number().int().min(50, 'At least 50 bytes a frame').max(2000, 'At most 2000 bytes a frame').default(250),
        from: z.number().int().min(0).max(2 ** 31).default(0),
        count: z.number().int().min(1).max(QR_PAGE_MAX).default(QR_PAGE),
      })
      .strict(),
    reply: null as unknown as PsbtQrReply,
  },
  'psbt:convert': { request: psbtRequest.extend({ to: z.union([z.literal(0), z.literal(2)]) }).strict(), reply: null as unknown as PsbtConvertReply },

  // ——— the desktop shell ———
  /** The bitcoin: link the OS (or `npm run web -- bitcoin:…`) handed to the app, once; parsed by the renderer (shared/bip21). */
  'uri:take': { request: empty, reply: null as unknown as { uri: string | null } },

  // ——— watch-only wallets on the node (#17) ———
  /** What an import (xpub, descriptors, multisig file) will create; no node call. */
  'wallet:preview': { request: walletSource.strict(), reply: null as unknown as WalletPreview },
  /** Creates a blank watch-only descriptor wallet on the node, imports, rescans (`wallet:scan` events); the active profile then watches it. */
  'wallet:import': { request: walletSource.extend({ walletName, rescan, watchAhead }).strict(), reply: null as unknown as WalletImportResult },
  'wallet:abort-rescan': { request: empty, reply: null as unknown as { aborted: boolean } },
  /** The wallet's current unused receive address: the same one on every visit until it is paid (one the node's wallet watches; offline, derived from the stored wallet). */
  'wallet:receive': { request: empty, reply: null as unknown as ReceiveAddressView },
  /** Skips on purpose to the next fresh receive address (its `gap` says when it is past the gap limit). */
  'wallet:next-address': { request: empty, reply: null as unknown as ReceiveAddressView },
  /** Labels a receive address at once: on the node (setlabel) and here (the BIP329 `addr` label); an empty label removes it. */
  'wallet:receive-label': { request: z.object({ address: z.string().trim().min(1, 'Which address?').max(100), label: z.string().max(255) }).strict(), reply: null as unknown as ReceiveLabelResult },
  /** The newest transactions first (HISTORY_FIRST_PAGE, `total` says how many there are); `all`: every one. */
  'wallet:history': { request: z.object({ all: z.boolean().default(false) }).strict(), reply: null as unknown as WalletHistoryView },
  /** The node wallet's available / incoming / immature balances; null without a connection or wallet. */
  'wallet:balances': { request: empty, reply: null as unknown as WalletBalancesView | null },
  /** The stored wallet back out as descriptors or a BSMS 1.0 record; from SQLite, works offline. */
  'wallet:export': { request: z.object({ format: z.enum(['descriptors', 'bsms']) }).strict(), reply: null as unknown as import('./wallet-export').WalletExportView },
  // attach to a wallet already on the node; a rescan interrupted by a node stop
  /** The node's wallets: loaded (listwallets) and on disk (listwalletdir), each marked. */
  'wallet:node-wallets': { request: empty, reply: null as unknown as NodeWalletsView },
  /** The active profile's wallets for the switcher (#26), from SQLite: works offline. */
  'wallet:list': { request: empty, reply: null as unknown as ProfileWalletsView },
  /** Every screen shows `walletName` (one of the profile's wallets) from now on; its cached data at once. */
  'wallet:switch': { request: z.object({ walletName: z.string().min(1, 'Choose a wallet').max(1024) }).strict(), reply: null as unknown as ConnectionState },
  /**
   * Watch a watch-only descriptor wallet the node already has (loaded first when only on disk); the active profile then watches it.
   * acknowledgeKeys: the person confirmed that this wallet holds private keys on the node (remembered per profile and wallet).
   */
  'wallet:attach': { request: z.object({ walletName: z.string().min(1, 'Choose the wallet to attach').max(1024), acknowledgeKeys: z.boolean().optional() }).strict(), reply: null as unknown as WalletAttachResult },
  /** The profile's wallet's recorded rescan that has not finished (running, or interrupted by a node stop); null when none. */
  'wallet:rescan-status': { request: empty, reply: null as unknown as { status: WalletRescanStatus | null } },
  /** Runs the interrupted rescan again (rescanblockchain from its start height; `wallet:scan` events). */
  'wallet:rescan': { request: empty, reply: null as unknown as WalletRescanResult },

  // ——— settings (SQLite; applied live) ———
  /** The app's settings, and the active profile's (null without one). */
  'settings:get': { request: empty, reply: null as unknown as SettingsView },
  /** Changes some settings; replies with all of them (and `settings:changed` goes to every window). */
  'settings:set': { request: z.object({ app: AppSettingsSchema.partial().strict().optional(), profile: ProfileSettingsSchema.partial().strict().optional() }).strict(), reply: null as unknown as SettingsView },

  // ——— Send (#15) and the way back from the signers (#16): shared/ipc/send.ts ———
  ...sendChannels,
  // ——— fee bumps from any unconfirmed wallet transaction (#28): shared/ipc/bump.ts ———
  ...bumpChannels,
  // ——— hardware wallets over USB through the external signer program (#30): shared/ipc/signer.ts ———
  ...signerChannels,
} as const;

export type Channel = keyof typeof channels;
export type Request<C extends Channel> = z.input<(typeof channels)[C]['request']>;
export type ParsedRequest<C extends Channel> = z.output<(typeof channels)[C]['request']>;
export type Reply<C extends Channel> = (typeof channels)[C]['reply'];

export const channelNames: readonly Channel[] = CHANNEL_NAMES;
// Compile-time: names.ts lists exactly the channels of the table above.
const _sameChannels: [Exclude<Channel, ChannelName>, Exclude<ChannelName, Channel>] extends [never, never] ? true : never = true;
void _sameChannels;

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name);
}

/** What an application-menu item asks the window to do. */
export type MenuAction = 'go:dashboard' | 'go:balances' | 'go:history' | 'go:labels' | 'go:reconcile' | 'go:psbt' | 'go:settings' | 'refresh';

/** Events pushed from main to the renderer. */
export interface Events {
  'connection:changed': ConnectionState;
  'refresh:progress': RefreshProgress;
  /** A new snapshot was written (or a refresh failed): reload the overview. */
  'watch:changed': { snapshotId: number | null; failed: boolean };
  /** A bitcoin: link is waiting: take it with `uri:take`. */
  'uri:opened': Record<string, never>;
  /** An application-menu item was chosen (Electron only). */
  'app:menu': { action: MenuAction };
  'settings:changed': SettingsView;
  /** An incoming payment or its first confirmation (when the profile's notifications are on). */
  'notify': PaymentNotice;
  /** The node's rescan while a wallet is imported. */
  'wallet:scan': WalletScanProgress;
}
export type EventName = keyof Events;
export const eventNames: readonly EventName[] = EVENT_NAMES;
const _sameEvents: [Exclude<EventName, EventNameOf>, Exclude<EventNameOf, EventName>] extends [never, never] ? true : never = true;
void _sameEvents;

/** What the preload exposes as `window.api`, and what the bridge client implements in a browser. */
export interface SpyglassApi {
  invoke<C extends Channel>(channel: C, request: Request<C>): Promise<IpcResult<Reply<C>>>;
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void;
  /**
   * The bridge only: `listener` runs each time its event stream opens (the first time, and after a
   * reconnect). Events sent before that were missed, so the renderer asks for the state again then.
   * Electron's IPC needs no stream; the renderer asks once right after subscribing instead.
   */
  onEventsOpen?(listener: () => void): () => void;
}
