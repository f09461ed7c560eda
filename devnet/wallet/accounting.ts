/**
 * What a wallet transaction means to the wallet, by Core's rules (wallet/receive.cpp): debit
 * (the wallet's coins it spends), credit (its outputs paying the wallet; nothing while an immature
 * coinbase), fee, trust, change (an output of ours with no address book entry), the sent and
 * received entries listtransactions writes (CachedTxGetAmounts), and the balances (GetBalance).
 */
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import type { ChainTxOut } from '../chain/types';
import type { WalletTx } from './ledger';
import { COINBASE_MATURITY_DEPTH, type Wallet } from './wallet';

export interface OutputEntry {
  /** The output's address, or null when it has none (e.g. OP_RETURN). */
  address: string | null;
  amount: bigint;
  vout: number;
}

export function depth(w: Wallet, wtx: WalletTx): number {
  return w.txs.depth(wtx);
}

/** IsTxImmatureCoinBase: a coinbase with less than 101 confirmations. */
export function isImmatureCoinbase(w: Wallet, wtx: WalletTx): boolean {
  return wtx.tx.coinbase && depth(w, wtx) < COINBASE_MATURITY_DEPTH;
}

/** The wallet's coins the transaction spends (CachedTxGetDebit). */
export function debit(w: Wallet, wtx: WalletTx): bigint {
  if (wtx.tx.coinbase) return 0n;
  let sum = 0n;
  for (const i of wtx.tx.vin) {
    const parent = w.txs.get(i.txid);
    const out = parent?.tx.vout[i.vout];
    if (out && w.isMine(out.script)) sum += out.value;
  }
  return sum;
}

export const isFromMe = (w: Wallet, wtx: WalletTx): boolean => debit(w, wtx) > 0n;

/** The outputs paying the wallet (CachedTxGetCredit): none while an immature coinbase. */
export function credit(w: Wallet, wtx: WalletTx): bigint {
  if (isImmatureCoinbase(w, wtx)) return 0n;
  return wtx.tx.vout.reduce((s, o) => (w.isMine(o.script) ? s + o.value : s), 0n);
}

const valueOut = (wtx: WalletTx): bigint => wtx.tx.vout.reduce((s, o) => s + o.value, 0n);

/** The fee the wallet paid: negative, 0 when the transaction is not from the wallet. */
export function fee(w: Wallet, wtx: WalletTx): bigint {
  const d = debit(w, wtx);
  return d > 0n ? valueOut(wtx) - d : 0n;
}

export function addressOf(w: Wallet, out: ChainTxOut): string | null {
  const dest = extractDestination(out.script);
  return dest ? encodeDestination(dest, w.network) : null;
}

/**
 * An address book entry that is not change (FindAddressBookEntry without allow_change): Core's
 * entries always carry a label in the devnet's wallets, so every entry counts.
 */
export function bookEntry(w: Wallet, address: string | null): { label: string } | undefined {
  return address === null ? undefined : w.addressBook.get(address);
}

/** ScriptIsChange: ours, and not in the address book (or without an address). */
export function isChange(w: Wallet, out: ChainTxOut): boolean {
  if (!w.isMine(out.script)) return false;
  const address = addressOf(w, out);
  return address === null || bookEntry(w, address) === undefined;
}

/** CachedTxGetAmounts: the sent entries (when the wallet spent), the received ones, and the fee (positive). */
export function amounts(w: Wallet, wtx: WalletTx, includeChange: boolean): { sent: OutputEntry[]; received: OutputEntry[]; fee: bigint } {
  const d = debit(w, wtx);
  const sent: OutputEntry[] = [];
  const received: OutputEntry[] = [];
  wtx.tx.vout.forEach((out, vout) => {
    const mine = w.isMine(out.script);
    if (d > 0n) {
      if (!includeChange && isChange(w, out)) return;
    } else if (!mine) return;
    const entry = { address: addressOf(w, out), amount: out.value, vout };
    if (d > 0n) sent.push(entry);
    if (mine) received.push(entry);
  });
  return { sent, received, fee: d > 0n ? d - valueOut(wtx) : 0n };
}

/** CachedTxIsTrusted: confirmed, or ours, in the mempool, spending only trusted coins of ours. */
export function isTrusted(w: Wallet, wtx: WalletTx, seen = new Set<string>()): boolean {
  const dep = depth(w, wtx);
  if (dep >= 1) return true;
  if (dep < 0) return false;
  if (!isFromMe(w, wtx) || !w.chain.inMempool(wtx.tx.txid)) return false;
  for (const i of wtx.tx.vin) {
    const parent = w.txs.get(i.txid);
    if (!parent) return false;
    const out = parent.tx.vout[i.vout];
    if (!out || !w.isMine(out.script)) return false;
    if (seen.has(i.txid)) continue;
    if (!isTrusted(w, parent, seen)) return false;
    seen.add(i.txid);
  }
  return true;
}

/** Outputs of ours that no active wallet transaction spends (CachedTxGetAvailableCredit). */
function availableCredit(w: Wallet, wtx: WalletTx): bigint {
  if (isImmatureCoinbase(w, wtx)) return 0n;
  let sum = 0n;
  wtx.tx.vout.forEach((out, vout) => {
    if (w.isMine(out.script) && !isSpent(w, wtx.tx.txid, vout)) sum += out.value;
  });
  return sum;
}

/** IsSpent: a wallet transaction in the chain or the mempool spends it. */
export function isSpent(w: Wallet, txid: string, vout: number): boolean {
  return w.chain.spenders(txid, vout).length > 0;
}

export interface Balances {
  trusted: bigint;
  untrustedPending: bigint;
  immature: bigint;
  /**
   * 31.99's `nonmempool`: what wallet transactions dropped from the mempool without a replacement
   * (evicted, expired) change. The devnet's mempool neither evicts nor expires, and a replaced
   * transaction counts for nothing there in Core either: always 0.
   */
  nonmempool: bigint;
}

/** GetBalance(min_depth). */
export function balances(w: Wallet, minDepth: number): Balances {
  const b: Balances = { trusted: 0n, untrustedPending: 0n, immature: 0n, nonmempool: 0n };
  const trustedParents = new Set<string>();
  for (const wtx of w.txs.ordered()) {
    const trusted = isTrusted(w, wtx, trustedParents);
    const dep = depth(w, wtx);
    const available = availableCredit(w, wtx);
    const inMempool = w.chain.inMempool(wtx.tx.txid);
    if (trusted && dep >= minDepth) b.trusted += available;
    if (!trusted && dep === 0 && inMempool) b.untrustedPending += available;
    if (isImmatureCoinbase(w, wtx) && dep > 0) b.immature += wtx.tx.vout.reduce((s, o) => (w.isMine(o.script) ? s + o.value : s), 0n);
  }
  return b;
}
