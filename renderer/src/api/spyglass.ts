// Typed helpers, one per channel: each returns the reply value or throws an ApiError. The first
// screen's calls may already be on their way (./early.ts): their helpers take that reply once.
import type { BalanceQuery, ConnectionState, Events, MenuAction, Request, SettingsView } from '../../../shared/ipc/contract';
import { call, getApi } from './client';
import { takeEarly } from './early';

export { ApiError, asIpcError } from './client';

export const appInfo = () => call('app:info', {});
export const keychainStatus = () => takeEarly('keychain:status') ?? call('keychain:status', {});
export const listProfiles = () => takeEarly('profiles:list') ?? call('profiles:list', {});
export const saveProfile = (req: Request<'profiles:save'>) => call('profiles:save', req);
export const deleteProfile = (id: string) => call('profiles:delete', { id });
export const activateProfile = (id: string) => call('profiles:activate', { id });
export const connectProfile = (id: string) => call('profiles:connect', { id });
export const unlockProfile = (req: Request<'profiles:unlock'>) => call('profiles:unlock', req);
export const testConnection = (req: Request<'connection:test'>) => call('connection:test', req);
export const connectionStatus = () => takeEarly('connection:status') ?? call('connection:status', {});
export const refreshConnection = () => call('connection:refresh', {});
export const listWallets = (req: Request<'node:listwallets'>) => call('node:listwallets', req);
export const startDemo = () => call('demo:start', {});

const connectionListeners = new Set<(state: ConnectionState) => void>();

export function onConnectionChanged(listener: (state: Events['connection:changed']) => void): () => void {
  connectionListeners.add(listener);
  const off = getApi().on('connection:changed', (s: ConnectionState) => listener(s));
  return () => {
    connectionListeners.delete(listener);
    off();
  };
}

/** Hands a state read with connection:status to the connection:changed listeners, as main's event would have. */
export function deliverConnectionState(state: ConnectionState): void {
  for (const l of [...connectionListeners]) l(state);
}

/** connection:status asked now (never the reply the page started while loading). */
export const connectionStatusNow = () => call('connection:status', {});

/**
 * Runs `listener` when events sent so far may have been missed: each time the bridge's event stream
 * opens, or (Electron) once, right after the caller subscribed — its events arrive from then on.
 */
export function onEventsOpen(listener: () => void): () => void {
  const api = getApi();
  if (api.onEventsOpen) return api.onEventsOpen(listener);
  let live = true;
  queueMicrotask(() => {
    if (live) listener();
  });
  return () => {
    live = false;
  };
}

// ——— watch-only tracking and labels (issue 5) ———
/** A large wallet's balances come paged: the first page in the order and filter of `query`. */
export const watchOverview = (query?: BalanceQuery) => takeEarly('watch:overview') ?? call('watch:overview', { page: query === undefined ? {} : { query } });
export const watchOverviewPage = (req: BalanceQuery & { from: number; count: number }) => call('watch:overview-page', req);
export const watchRefresh = () => call('watch:refresh', {});
export const watchCancel = () => call('watch:cancel', {});
export const watchAddress = (address: string) => call('watch:address', { address });
export const watchTransaction = (txid: string) => call('watch:transaction', { txid });
export const watchAdd = (text: string) => call('watch:add', { text });
export const watchHide = (address: string, hidden: boolean) => call('watch:hide', { address, hidden });
export const watchRemove = (address: string) => call('watch:remove', { address });
export const watchHistory = () => call('watch:history', {});
export const watchReconcile = () => call('watch:reconcile', {});
export const exportCsv = (req: Request<'watch:export-csv'>) => call('watch:export-csv', req);
export const setLabel = (req: Request<'labels:set'>) => call('labels:set', req);
export const exportLabels = () => call('labels:export', {});
export const previewLabels = (req: Request<'labels:preview'>) => call('labels:preview', req);
export const importLabels = (req: Request<'labels:import'>) => call('labels:import', req);

export function onRefreshProgress(listener: (p: Events['refresh:progress']) => void): () => void {
  return getApi().on('refresh:progress', listener);
}

export function onWatchChanged(listener: (p: Events['watch:changed']) => void): () => void {
  return getApi().on('watch:changed', listener);
}

// ——— PSBT review (issue 4): the text goes to main as base64 or hex; files are read in the renderer ———
export const psbtReview = (psbt: string, encoding: Request<'psbt:review'>['encoding'] = 'auto') => call('psbt:review', { psbt, encoding });
export const psbtReviewPage = (req: Request<'psbt:review-page'>) => call('psbt:review-page', req);
export const psbtReviewCoreJson = (req: Request<'psbt:review-core-json'>) => call('psbt:review-core-json', req);
export const psbtCrosscheck = (psbt: string, encoding: Request<'psbt:crosscheck'>['encoding'] = 'auto') => call('psbt:crosscheck', { psbt, encoding });
export const psbtConvert = (psbt: string, to: 0 | 2) => call('psbt:convert', { psbt, to });
/** UR parts of the PSBT: the first page, or `count` parts from part `from`. */
export const psbtQr = (psbt: string, fragmentLength = 250, from = 0, count?: number) => call('psbt:qr', { psbt, fragmentLength, from, ...(count === undefined ? {} : { count }) });

// ——— the desktop shell: bitcoin: links the OS hands over, and the application menu ———
export const takeUri = () => call('uri:take', {});

export function onUriOpened(listener: () => void): () => void {
  return getApi().on('uri:opened', () => listener());
}

export function onMenuAction(listener: (action: MenuAction) => void): () => void {
  return getApi().on('app:menu', (p) => listener(p.action));
}

// ——— settings and notices ———
export const getSettings = () => call('settings:get', {});
export const setSettings = (req: Request<'settings:set'>) => call('settings:set', req);

export function onSettingsChanged(listener: (v: SettingsView) => void): () => void {
  return getApi().on('settings:changed', listener);
}

export function onNotify(listener: (n: Events['notify']) => void): () => void {
  return getApi().on('notify', listener);
}

// ——— watch-only wallets on the node (#17) ———
export const walletPreview = (req: Request<'wallet:preview'>) => call('wallet:preview', req);
export const walletImport = (req: Request<'wallet:import'>) => call('wallet:import', req);
export const walletAbortRescan = () => call('wallet:abort-rescan', {});
export const walletReceive = () => call('wallet:receive', {});
export const walletNextAddress = () => call('wallet:next-address', {});
export const walletReceiveLabel = (address: string, label: string) => call('wallet:receive-label', { address, label });
export const walletBalances = () => call('wallet:balances', {});
/** The early call's reply when the app opened on Transactions; if that one failed (sent before the connection was up), asked again. */
/** The newest transactions (the early call's, when the app opened on Transactions); `all`: every one. */
export const walletHistory = (all = false) =>
  all ? call('wallet:history', { all: true }) : (takeEarly('wallet:history')?.catch(() => call('wallet:history', {})) ?? call('wallet:history', {}));
export const walletExport = (format: 'descriptors' | 'bsms') => call('wallet:export', { format });
export const walletNodeWallets = () => call('wallet:node-wallets', {});
export const walletAttach = (walletName: string, acknowledgeKeys = false) => call('wallet:attach', acknowledgeKeys ? { walletName, acknowledgeKeys } : { walletName });
export const walletRescanStatus = () => call('wallet:rescan-status', {});
export const walletRescan = () => call('wallet:rescan', {});
export const walletList = () => call('wallet:list', {});
export const walletSwitch = (walletName: string) => call('wallet:switch', { walletName });

export function onWalletScan(listener: (p: Events['wallet:scan']) => void): () => void {
  return getApi().on('wallet:scan', listener);
}

// ——— Send (#15) and the way back from the signers (#16) ———
export const sendContext = () => call('send:context', {});
export const sendPreview = (form: Request<'send:preview'>['form']) => call('send:preview', { form });
export const sendCreate = (form: Request<'send:create'>['form'], plan?: string) => call('send:create', plan === undefined ? { form } : { form, plan });
export const sendFreeze = (outpoint: string, frozen: boolean) => call('send:freeze', { outpoint, frozen });
export const draftsList = () => call('drafts:list', {});
export const draftGet = (id: string) => call('drafts:get', { id });
export const draftRename = (id: string, name: string) => call('drafts:rename', { id, name });
export const draftDelete = (id: string) => call('drafts:delete', { id });
export const draftExport = (req: Request<'drafts:export'>) => call('drafts:export', req);
export const draftLabels = (id: string) => call('drafts:labels', { id });
export const draftImport = (req: Request<'drafts:import'>) => call('drafts:import', req);
export const draftFinalize = (id: string) => call('drafts:finalize', { id });
export const draftPreflight = (id: string) => call('drafts:preflight', { id });
export const draftBroadcast = (id: string) => call('drafts:broadcast', { id, confirmed: true });
export const draftBump = (req: Request<'drafts:bump'>) => call('drafts:bump', req);
export const scanFrame = (session: string, text: string) => call('scan:frame', { session, text });
// fee bumps from any unconfirmed wallet transaction (#28)
export const bumpOptions = (txid: string) => call('bump:options', { txid });
export const bumpRbf = (req: Request<'bump:rbf'>) => call('bump:rbf', req);
export const bumpCpfp = (req: Request<'bump:cpfp'>) => call('bump:cpfp', req);

// ——— hardware wallets over USB through the external signer program (#30) ———
export const signerList = () => call('signer:list', {});
export const signerDescriptors = (fingerprint: string, account: number, op?: string) => call('signer:descriptors', op ? { fingerprint, account, op } : { fingerprint, account });
export const signerXpub = (fingerprint: string, path: string, op?: string) => call('signer:xpub', op ? { fingerprint, path, op } : { fingerprint, path });
export const signerDisplayAddress = (address: string, op?: string, fingerprint?: string) => call('signer:display-address', { address, ...(op ? { op } : {}), ...(fingerprint ? { fingerprint } : {}) });
export const signerSign = (id: string, fingerprint: string, op?: string) => call('signer:sign', op ? { id, fingerprint, op } : { id, fingerprint });
export const signerCancel = (op: string) => call('signer:cancel', { op });
export const signerSetProgram = (file: string | null) => call('signer:set-program', { file });
export const signerProgram = () => call('signer:program', {});
/** The OS's file dialog (Electron only: signerProgram() says whether there is one); the file picked is checked and kept in main. */
export const signerPickProgram = () => call('signer:pick-program', {});
