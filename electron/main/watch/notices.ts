// What a refresh tells the person unasked: a payment that arrived and its first confirmation, from the
// two snapshots a refresh went between (the first snapshot of a profile tells nothing: everything in
// it is old news).
// - A payment still in the mempool is known from the node: a watched address has a new txid in
//   listreceivedbyaddress (minconf 0) and received more. It is remembered as pending.
// - A confirmed payment is known from the index: a new UTXO at a block height. If it was pending (or
//   the node had listed it before), it is its first confirmation; else it arrived and confirmed
//   between two refreshes.
// Change coming back from one of the wallet's own spends (getaddressinfo ischange) is not a payment.
import { formatBtc } from '../../../shared/amounts';
import type { PaymentNotice } from '../../../shared/ipc/contract';
import type { ReceivedRecord, UtxoRow, WalletKey, WatchRepository } from '../store/watch';

/** Incoming payments seen unconfirmed and not yet confirmed, by txid (per profile, in memory). */
export type PendingPayments = Map<string, { sats: bigint; address: string }>;

function isChange(repo: WatchRepository, key: WalletKey, address: string): boolean {
  const info = repo.getInfo(key, address)?.info as { ischange?: unknown } | undefined;
  return info?.ischange === true;
}

function who(repo: WatchRepository, key: WalletKey, address: string): string {
  const label = repo.getLabel(key, 'addr', address)?.label;
  return label ? `${label} (${address.slice(0, 12)}…)` : address;
}

export function paymentNotices(repo: WatchRepository, key: WalletKey, fromId: number | null, toId: number, pending: PendingPayments): PaymentNotice[] {
  if (fromId === null) return [];
  return noticesBetween(repo, key, { before: repo.received(fromId), after: repo.received(toId), newUtxos: repo.diff(fromId, toId).newUtxos }, pending);
}

/** What changed between two states of the same addresses (an incremental refresh knows it without a second snapshot). */
export interface StateChange {
  /** The node's received records before and after, by address. */
  before: ReadonlyMap<string, ReceivedRecord>;
  after: ReadonlyMap<string, ReceivedRecord>;
  /** UTXOs that are new. */
  newUtxos: ReadonlyArray<Pick<UtxoRow, 'address' | 'txid' | 'amountSats' | 'height'>>;
}

export function noticesBetween(repo: WatchRepository, key: WalletKey, change: StateChange, pending: PendingPayments): PaymentNotice[] {
  const notices: PaymentNotice[] = [];
  const notice = (kind: PaymentNotice['kind'], txid: string, title: string, body: string): void => void notices.push({ kind, profileId: key.profileId, wallet: key.wallet, txid, title, body });

  // The node's received records before: a txid in them was known already (perhaps unconfirmed).
  const before = change.before;
  const knownBefore = new Set<string>();
  for (const r of before.values()) for (const t of r.txids) knownBefore.add(t);

  // Confirmed: new UTXOs at a height, by transaction.
  const confirmed = new Map<string, { sats: bigint; address: string; height: number }>();
  for (const u of change.newUtxos) {
    if (u.height === null || isChange(repo, key, u.address)) continue;
    const c = confirmed.get(u.txid);
    confirmed.set(u.txid, { sats: (c?.sats ?? 0n) + u.amountSats, address: c?.address ?? u.address, height: u.height });
  }
  for (const [txid, c] of confirmed) {
    const was = pending.get(txid) ?? knownBefore.has(txid);
    pending.delete(txid);
    if (was) notice('confirmed', txid, 'Payment confirmed', `${formatBtc(c.sats)} BTC to ${who(repo, key, c.address)} is in block ${c.height}`);
    else notice('incoming', txid, 'Payment received', `${formatBtc(c.sats)} BTC to ${who(repo, key, c.address)}, confirmed in block ${c.height}`);
  }

  // In the mempool: the node's received records, a new txid and more received.
  for (const [address, r] of change.after) {
    if (r.confirmations !== 0 || isChange(repo, key, address)) continue;
    const old = before.get(address);
    const fresh = r.txids.filter((t) => !(old?.txids ?? []).includes(t) && !confirmed.has(t) && !pending.has(t));
    const more = r.amountSats - (old?.amountSats ?? 0n);
    if (fresh.length !== 1 || more <= 0n) continue; // several at once: their amounts cannot be told apart
    const txid = fresh[0]!;
    pending.set(txid, { sats: more, address });
    notice('incoming', txid, 'Incoming payment', `${formatBtc(more)} BTC to ${who(repo, key, address)}, not yet confirmed`);
  }
  return notices;
}
