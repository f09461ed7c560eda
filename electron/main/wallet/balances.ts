// The node wallet's own balances (`getbalances`, mine) for the Balances page's summary: what the
// address rows cannot split by themselves — coins available now (confirmed, and the wallet's own
// unconfirmed change, which Core trusts), incoming payments not yet in a block, and immature coinbase.
import { AppError } from '../../../shared/errors';
import { parseBtc } from '../../../shared/amounts';
import type { WalletBalancesView } from '../../../shared/ipc/wallet';
import type { Services } from '../services';

const sats = (v: unknown, what: string): bigint => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new AppError('rpc.bad_reply', `The node's getbalances has no ${what} amount.`);
  return parseBtc(v.toFixed(8));
};

/** Null when there is no connection or no wallet (the page then shows its snapshot alone). */
export async function walletBalances(services: Pick<Services, 'activeConnection'>): Promise<WalletBalancesView | null> {
  const conn = services.activeConnection();
  if (!conn || !conn.report.node.wallet) return null;
  const reply = await conn.rpc.call<{ mine?: Record<string, unknown> }>('getbalances', []);
  const mine = reply?.mine;
  if (!mine || typeof mine !== 'object') throw new AppError('rpc.bad_reply', 'The node answered getbalances without the wallet\'s own balances ("mine").');
  return {
    wallet: conn.report.node.wallet,
    availableSats: sats(mine.trusted, 'trusted').toString(),
    incomingSats: sats(mine.untrusted_pending, 'untrusted_pending').toString(),
    immatureSats: sats(mine.immature, 'immature').toString(),
  };
}
