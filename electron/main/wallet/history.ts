// The node wallet's transactions (`wallet:history`): listtransactions grouped by transaction, oldest
// first for the running balance, returned newest first, with getbalances' split. Each answer is kept
// per profile AND node wallet (store/history-cache.ts); with the node unreachable the last one is
// served, marked with when the node gave it and why it cannot be asked now — never another wallet's.
import { AppError, toIpcError } from '../../../shared/errors';
import type { WalletHistoryView, WalletTxView } from '../../../shared/ipc/wallet';
import type { NodeRpc } from '../connection';
import { btcNumberToSats } from '../refresh/node-replies';
import { notConnectedError, type Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { CachedHistory, WalletHistoryCache } from '../store/history-cache';
import { readWalletBalances } from './balances';

const sats = (amount: unknown): bigint => btcNumberToSats(amount, 'an amount of listtransactions');

/** What reading the history needs from the app. */
export interface HistoryDeps {
  services: Pick<Services, 'activeConnection' | 'connectionState'>;
  profiles: Pick<ProfileRepository, 'get'>;
  historyCache: WalletHistoryCache;
}

/** The node's answer now: every listtransactions page, grouped per transaction, and getbalances. */
export async function readWalletHistory(rpc: NodeRpc, wallet: string): Promise<WalletHistoryView> {
  type Entry = { txid: string; category: string; amount: number; fee?: number; confirmations: number; blockheight?: number; blocktime?: number; time: number; label?: string };
  const entries: Entry[] = [];
  for (let skip = 0; ; skip += 1000) {
    const page = await rpc.call<Entry[]>('listtransactions', ['*', 1000, skip, true]);
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
  const b = await readWalletBalances(rpc);
  return {
    wallet,
    rows: rows.reverse(),
    balance: { confirmedSats: b.available.toString(), pendingSats: b.incoming.toString(), immatureSats: b.immature.toString() },
  };
}

const PURPOSE = "read the wallet's transactions";

/**
 * The history of the active profile's wallet: the node's answer (then kept), or — the node not
 * connected, or failing while asked — the last answer kept for this profile and wallet, with the reason.
 */
export async function walletHistory(deps: HistoryDeps): Promise<WalletHistoryView> {
  const conn = deps.services.activeConnection();
  if (!conn) return cachedOffline(deps);
  const wallet = conn.report.node.wallet;
  if (!wallet) throw new AppError('rpc.wallet_not_specified', 'The profile has no wallet on the node: import one or choose one in the profile.');
  let view: WalletHistoryView;
  try {
    view = await readWalletHistory(conn.rpc, wallet);
  } catch (e) {
    // The node went away (or unloaded the wallet) while asked: the kept history of this wallet, if any.
    const cached = deps.historyCache.get(conn.profile.id, wallet);
    if (!cached) throw e;
    return { ...cached.view, cached: { asOf: cached.fetchedAt, reason: toIpcError(e) } };
  }
  deps.historyCache.save(conn.profile.id, view);
  return view;
}

/** The history kept for the connection state's profile and its wallet, or null. */
export function keptHistory(deps: HistoryDeps): CachedHistory | null {
  const st = deps.services.connectionState();
  const profile = st.state === 'none' ? null : deps.profiles.get(st.profileId);
  if (!profile) return null;
  // Only the wallet the profile names: a profile that names none shows no wallet's history (which one
  // it watched is not known until it connects and names it; #26: nothing of another wallet shows).
  const named = profile.wallet.trim();
  return named !== '' ? deps.historyCache.get(profile.id, named) : null;
}

/** Not connected: the kept history of the profile's wallet under the connection's own failure; without one, that failure. */
function cachedOffline(deps: HistoryDeps): WalletHistoryView {
  const reason = notConnectedError(deps.services.connectionState(), PURPOSE);
  const cached = keptHistory(deps);
  if (!cached) throw reason;
  return { ...cached.view, cached: { asOf: cached.fetchedAt, reason: reason.toIpc() } };
}
