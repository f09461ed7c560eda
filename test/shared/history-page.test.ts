// The first screen of a wallet's transactions (shared/wallet/history-page.ts): the newest page with
// the wallet's total, or the whole history when asked for all or small enough.
import { describe, expect, it } from 'vitest';
import type { WalletHistoryView, WalletTxView } from '../../shared/ipc/wallet';
import { HISTORY_FIRST_PAGE, historyPage } from '../../shared/wallet/history-page';

const tx = (i: number): WalletTxView => ({ txid: i.toString(16).padStart(64, '0'), time: 1_700_000_000 - i, category: 'receive', amountSats: '1000', feeSats: null, confirmations: i + 1, blockHeight: 1000 - i, label: '', runningSats: String(1000 * (5000 - i)) });
const view = (n: number): WalletHistoryView => ({ wallet: 'w', rows: Array.from({ length: n }, (_, i) => tx(i)), balance: { confirmedSats: '1', pendingSats: '0', immatureSats: '0' } });

describe('historyPage', () => {
  it('a big history: the newest page, in order, with the total', () => {
    const v = historyPage(view(HISTORY_FIRST_PAGE * 3 + 7), false);
    expect(v.rows).toHaveLength(HISTORY_FIRST_PAGE);
    expect(v.rows[0]!.txid).toBe(tx(0).txid);
    expect(v.rows.at(-1)!.txid).toBe(tx(HISTORY_FIRST_PAGE - 1).txid);
    expect(v.total).toBe(HISTORY_FIRST_PAGE * 3 + 7);
    expect(v.balance).toEqual(view(1).balance);
  });

  it('all, or a history that fits the first page: every row and no total', () => {
    const all = historyPage(view(HISTORY_FIRST_PAGE + 1), true);
    expect(all.rows).toHaveLength(HISTORY_FIRST_PAGE + 1);
    expect('total' in all).toBe(false);
    const small = historyPage(view(HISTORY_FIRST_PAGE), false);
    expect(small.rows).toHaveLength(HISTORY_FIRST_PAGE);
    expect('total' in small).toBe(false);
  });
});
