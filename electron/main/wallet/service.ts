// Watch-only wallets on the node (#17) behind the `wallet:*` channels: an import (an xpub, descriptors,
// a multisig file) becomes a blank watch-only descriptor wallet on the node — checksums checked here
// and by the node, `createwallet` with private keys disabled, `importdescriptors` with the rescan the
// person chose, its progress from `getwalletinfo.scanning`, `abortrescan` to stop it — and is kept in
// SQLite so that receive addresses work offline. Receive: the node's next address (or the next one
// derived here, offline). History: the node wallet's transactions with a running balance.
// Attaching to a wallet the node already has: attach.ts; rescans a node stop interrupted: rescan.ts.
import { AppError, isAppError } from '../../../shared/errors';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import type { NodeWalletsView, ReceiveAddressView, WalletAttachResult, WalletHistoryView, WalletImportResult, WalletPreview, WalletRescanResult, WalletRescanStatus, WalletScanProgress, WalletTxView } from '../../../shared/ipc/wallet';
import { FORMAT_NAMES, SCRIPT_TYPE_NAMES, WalletAddresses, importWallet, type ImportOptions, type WalletDescription } from '../../../shared/wallet/index';
import type { Logger } from '../log';
import type { ActiveConnection, Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { WalletRepository } from '../store/wallets';
import { btcNumberToSats } from '../refresh/node-replies';
import { readWalletBalances } from './balances';
import { attachWallet, listNodeWallets, requireDescriptorWallets, setProfileWallet, watchFromNow } from './attach';
import { interruptedMessage, isRescanFailure, pollScan, recorded, rescanAgain, rescanStatus, RESCAN_TIMEOUT_MS, startHeightFor } from './rescan';

export interface WalletServiceDeps {
  services: Services;
  wallets: WalletRepository;
  profiles: ProfileRepository;
  log: Logger;
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
/** The receive-index search derives this many addresses, then lets the event loop run. */
const SEARCH_CHUNK = 1000;

/** getnewaddress's address_type for each wallet type (the active descriptor of that type answers). */
const CORE_ADDRESS_TYPE: Record<WalletDescription['scriptType'], string> = {
  p2pkh: 'legacy',
  'p2sh-p2wpkh': 'p2sh-segwit',
  p2wpkh: 'bech32',
  p2tr: 'bech32m',
  p2sh: 'legacy',
  'p2sh-p2wsh': 'p2sh-segwit',
  p2wsh: 'bech32',
};

const sats = (amount: unknown): bigint => btcNumberToSats(amount, 'an amount of listtransactions');

function networkOf(conn: ActiveConnection): Network {
  const net = NETWORKS[conn.report.node.chain as Network['chain']];
  if (!net) throw new AppError('chain.unsupported', `The node's chain "${conn.report.node.chain}" is not one Spyglass knows.`);
  return net;
}

export class WalletService {
  #scanning: { walletName: string; started: number } | null = null;

  constructor(private readonly deps: WalletServiceDeps) {}

  #connected(): ActiveConnection {
    const conn = this.deps.services.activeConnection();
    if (!conn) throw new AppError('credentials.missing', 'Connect to the node first: the wallet is created there.');
    return conn;
  }

  /** Parses locally (no node needed once the network is known): what will be created. */
  preview(req: ImportOptions & { text: string }, network?: Network): WalletPreview {
    const conn = this.deps.services.activeConnection();
    const net = network ?? (conn ? networkOf(conn) : null);
    if (!net) throw new AppError('credentials.missing', "Connect to the node first: its chain decides which keys and addresses are valid.");
    const w = importWallet(req.text, net, req);
    const derive = WalletAddresses.of(w);
    const firstAddresses = [0, 1, 2].map((i) => {
      const d = derive.details('receive', i);
      return { index: i, address: d.address, path: d.keys[0]?.path ?? null };
    });
    return {
      format: w.format,
      formatName: FORMAT_NAMES[w.format],
      name: w.name,
      scriptType: w.scriptType,
      scriptTypeName: SCRIPT_TYPE_NAMES[w.scriptType],
      threshold: w.threshold,
      keys: w.keys.map((k) => ({ xpub: k.xpub, fingerprint: k.fingerprint, path: k.path, label: k.label ?? null })),
      external: w.external,
      internal: w.internal,
      warnings: w.warnings,
      birthdayTime: w.birthday?.kind === 'time' ? w.birthday.time : null,
      firstAddresses,
    };
  }

  /**
   * Creates the watch-only wallet on the node and imports the descriptors; the active profile then
   * watches it. `onProgress` hears the node's rescan progress while importdescriptors runs.
   */
  async importToNode(req: ImportRequest, onProgress: (p: WalletScanProgress) => void): Promise<WalletImportResult> {
    const conn = this.#connected();
    const net = networkOf(conn);
    const w = importWallet(req.text, net, req);
    const walletName = req.walletName.trim();
    if (walletName === '') throw new AppError('input.invalid', 'Give the wallet a name (it is its name on the node).', { field: 'walletName' });
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
    const importCall = (): Promise<ImportReply> => call('importdescriptors', [requests], walletName, RESCAN_TIMEOUT_MS);
    const started = new Date();
    this.#scanning = { walletName, started: started.getTime() };
    const stopPoll = pollScan(conn.rpc, walletName, onProgress);
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

  /** The node's wallets (loaded and on disk), for "Use a wallet already on the node". */
  async nodeWallets(): Promise<NodeWalletsView> {
    return listNodeWallets(this.deps, this.#connected());
  }

  /** Watches a watch-only descriptor wallet the node already has (attach.ts). */
  async attach(walletName: string): Promise<WalletAttachResult> {
    const conn = this.#connected();
    return attachWallet(this.deps, conn, networkOf(conn), walletName);
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

  #stored(conn: ActiveConnection): { walletName: string; description: WalletDescription; receiveNext: number } | null {
    const walletName = conn.report.node.wallet;
    if (!walletName) return null;
    const s = this.deps.wallets.get(conn.profile.id, walletName);
    return s ? { walletName, description: s.description, receiveNext: s.receiveNext } : null;
  }

  /** The next receive address: the node's (getnewaddress with the label), checked against the stored descriptors when known. */
  async receive(label: string): Promise<ReceiveAddressView> {
    const conn = this.deps.services.activeConnection();
    if (!conn) return this.#receiveOffline(label);
    const stored = this.#stored(conn);
    // Core hands out the type of its -addresstype (bech32) unless told: the wallet's own type.
    const address = await conn.rpc.call<string>('getnewaddress', stored ? [label, CORE_ADDRESS_TYPE[stored.description.scriptType]] : [label]);
    const info = await conn.rpc.call<{ desc?: string; hdkeypath?: string; hdmasterfingerprint?: string }>('getaddressinfo', [address]);
    const received = await conn.rpc.call<Array<{ address: string; amount: number }>>('listreceivedbyaddress', [], { wallet: true }).catch(() => []);
    const used = received.some((r) => r.address === address && r.amount > 0);
    let index = Number(info.hdkeypath?.split('/').pop() ?? NaN);
    let paths: ReceiveAddressView['paths'] = [{ fingerprint: info.hdmasterfingerprint ?? null, path: info.hdkeypath ?? null }];
    if (stored) {
      const derive = WalletAddresses.of(stored.description);
      if (!Number.isInteger(index) || derive.address('receive', index) !== address) index = await findReceiveIndex(derive, address, stored.receiveNext);
      paths = derive.details('receive', index).keys.map((k) => ({ fingerprint: k.fingerprint, path: k.path }));
      this.deps.wallets.bumpReceive(conn.profile.id, stored.walletName, index + 1);
    }
    return { address, index: Number.isInteger(index) ? index : -1, paths, descriptor: info.desc ?? '', used, label, source: 'node' };
  }

  /** Offline: the next address of the stored receive descriptor not handed out here before. */
  #receiveOffline(label: string): ReceiveAddressView {
    const pid = this.deps.services.connectionState().state === 'none' ? null : (this.deps.services.connectionState() as { profileId: string }).profileId;
    const profile = pid ? this.deps.profiles.get(pid) : null;
    const stored = profile ? this.deps.wallets.get(profile.id, profile.wallet) : null;
    if (!profile || !stored) throw new AppError('credentials.missing', 'Not connected, and this profile has no imported wallet to derive addresses from: connect to the node.');
    const derive = WalletAddresses.of(stored.description);
    const index = stored.receiveNext;
    const d = derive.details('receive', index);
    this.deps.wallets.bumpReceive(profile.id, stored.nodeWallet, index + 1);
    return { address: d.address, index, paths: d.keys.map((k) => ({ fingerprint: k.fingerprint, path: k.path })), descriptor: d.descriptor, used: false, label, source: 'offline' };
  }

  /** The wallet's transactions, newest first, with the balance after each; balances split confirmed / pending. */
  async history(): Promise<WalletHistoryView> {
    const conn = this.#connected();
    const wallet = conn.report.node.wallet;
    if (!wallet) throw new AppError('rpc.wallet_not_specified', 'The profile has no wallet on the node: import one or choose one in the profile.');
    type Entry = { txid: string; category: string; amount: number; fee?: number; confirmations: number; blockheight?: number; blocktime?: number; time: number; label?: string };
    const entries: Entry[] = [];
    for (let skip = 0; ; skip += 1000) {
      const page = await conn.rpc.call<Entry[]>('listtransactions', ['*', 1000, skip, true]);
      entries.push(...page);
      if (page.length < 1000) break;
    }
    const byTx = new Map<string, { amount: bigint; fee: bigint | null; cats: Set<string>; e: Entry; label: string }>();
    for (const e of entries) {
      const t = byTx.get(e.txid) ?? { amount: 0n, fee: null, cats: new Set<string>(), e, label: '' };
      t.amount += sats(e.amount);
      if (e.fee !== undefined && t.fee === null) t.fee = -sats(e.fee);
      t.cats.add(e.category);
      if (!t.label && e.label) t.label = e.label;
      byTx.set(e.txid, t);
    }
    const order = [...byTx.values()].sort((a, b) => (a.e.blockheight ?? Infinity) - (b.e.blockheight ?? Infinity) || a.e.time - b.e.time);
    let running = 0n;
    const rows: WalletTxView[] = order.map((t) => {
      const net = t.amount - (t.fee ?? 0n);
      running += net;
      const category = (t.cats.has('send') && t.cats.has('receive') ? 'self' : t.cats.has('send') ? 'send' : [...t.cats][0]) as WalletTxView['category'];
      return {
        txid: t.e.txid,
        time: t.e.blocktime ?? t.e.time,
        category,
        amountSats: t.amount.toString(),
        feeSats: t.fee === null ? null : t.fee.toString(),
        confirmations: t.e.confirmations,
        blockHeight: t.e.blockheight ?? null,
        label: t.label,
        runningSats: running.toString(),
      };
    });
    const b = await readWalletBalances(conn.rpc);
    return {
      wallet,
      rows: rows.reverse(),
      balance: { confirmedSats: b.available.toString(), pendingSats: b.incoming.toString(), immatureSats: b.immature.toString() },
    };
  }
}

/**
 * The receive index of `address`, searched around `from` (the next index handed out here) in chunks of
 * SEARCH_CHUNK addresses with the event loop let run between them: a wallet watching 10,000 addresses
 * ahead must not freeze the main process while its addresses are derived.
 */
export async function findReceiveIndex(derive: WalletAddresses, address: string, from: number, limit = from + MAX_WATCH_AHEAD + 10 * SEARCH_CHUNK): Promise<number> {
  for (let start = Math.max(0, from - SEARCH_CHUNK); start < limit; start += SEARCH_CHUNK) {
    const i = derive.addresses('receive', start, SEARCH_CHUNK).indexOf(address);
    if (i >= 0) return start + i;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new AppError('internal', `The node's new address ${address} is not one of this wallet's receive addresses: the node's wallet is not the imported one.`);
}
