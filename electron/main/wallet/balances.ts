// The node wallet's own balances (`getbalances`, mine) for the Balances page's summary and the
// Transactions page: what the address rows cannot split by themselves — coins available now
// (confirmed, and the wallet's own unconfirmed change, which Core trusts), incoming payments not yet
// in a block, and immature coinbase.
import { AppError } from '../../../shared/errors';
import type { WalletBalancesView } from '../../../shared/ipc/wallet';
import type { NodeRpc } from '../connection';
import { btcNumberToSats } from '../refresh/node-replies';
import type { Services } from '../services';

export interface WalletBalances {
  /** Core's "trusted". */
  available: bigint;
  /** Core's "untrusted_pending". */
  incoming: bigint;
  immature: bigint;
}

/** getbalances of the connection's wallet, checked: the wallet's own three amounts. */
export async function readWalletBalances(rpc: NodeRpc): Promise<WalletBalances> {
  const reply = await rpc.call<{ mine?: Record<string, unknown> }>('getbalances', []);
  const mine = reply?.mine;
  if (!mine || typeof mine !== 'object') throw new AppError('rpc.bad_reply', 'The node answered getbalances without the wallet\'s own balances ("mine").');
  const amount = (key: string): bigint => {
    const v = btcNumberToSats(mine[key], `getbalances' ${key}`);
    if (v < 0n) throw new AppError('rpc.bad_reply', `The node's getbalances has a negative ${key} amount.`);
    return v;
  };
  return { available: amount('trusted'), incoming: amount('untrusted_pending'), immature: amount('immature') };
}

/** Null when there is no connection or no wallet (the page then shows its snapshot alone). */
export async function walletBalances(services: Pick<Services, 'activeConnection'>): Promise<WalletBalancesView | null> {
  const conn = services.activeConnection();
  if (!conn || !conn.report.node.wallet) return null;
  const b = await readWalletBalances(conn.rpc);
  return { wallet: conn.report.node.wallet, availableSats: b.available.toString(), incomingSats: b.incoming.toString(), immatureSats: b.immature.toString() };
}
