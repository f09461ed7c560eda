// The first screen of a wallet's transactions (#26): the newest ones, so the Transactions page shows
// rows at once instead of waiting for the whole history (10,000 transactions: 2.3 MB) to cross from
// the main process; the page then asks for all of them (`all`), for scrolling back and the CSV.

import type { WalletHistoryView } from '../ipc/wallet';

/** Transactions in the first reply: many screens' worth, a small part of a big wallet's history. */
export const HISTORY_FIRST_PAGE = 500;

/** `view` whole (`all`, or small enough), else its newest HISTORY_FIRST_PAGE rows with the wallet's `total`. */
export function historyPage(view: WalletHistoryView, all: boolean): WalletHistoryView {
  if (all || view.rows.length <= HISTORY_FIRST_PAGE) {
    const { total: _total, ...whole } = view;
    return whole;
  }
  return { ...view, rows: view.rows.slice(0, HISTORY_FIRST_PAGE), total: view.rows.length };
}
