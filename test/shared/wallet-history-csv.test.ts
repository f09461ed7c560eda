/** The wallet history's CSV (Transactions → Export CSV): exact amounts, status, formula guard, both units. */
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../shared/csv';
import type { WalletHistoryView } from '../../shared/ipc/wallet';
import { WALLET_HISTORY_CSV_HEADER, walletHistoryCsv } from '../../shared/wallet/history-csv';

const view: WalletHistoryView = {
  wallet: 'vault',
  balance: { confirmedSats: '49990000', pendingSats: '1', immatureSats: '0' },
  rows: [
    { txid: 'b'.repeat(64), time: 1_700_000_600, category: 'receive', amountSats: '1', feeSats: null, confirmations: 0, blockHeight: null, label: '=HYPERLINK("x")', runningSats: '49990001' },
    { txid: 'a'.repeat(64), time: 1_700_000_000, category: 'send', amountSats: '-10000000', feeSats: '-10000', confirmations: 12, blockHeight: 150, label: 'rent, "May"', runningSats: '49990000' },
  ],
};

describe('walletHistoryCsv', () => {
  it('one record per transaction, newest first, amounts exact in BTC, pending spelled out', () => {
    const text = walletHistoryCsv(view);
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(text).rows.map((r) => r.cells);
    expect(rows[0]).toEqual([...WALLET_HISTORY_CSV_HEADER]);
    expect(rows[1]).toEqual(['2023-11-14T22:23:20.000Z', 'b'.repeat(64), 'receive', 'pending', '0', '', '0.00000001', '', '0.49990001', `'=HYPERLINK("x")`, 'BTC']);
    expect(rows[2]).toEqual(['2023-11-14T22:13:20.000Z', 'a'.repeat(64), 'send', 'confirmed', '12', '150', '-0.10000000', '-0.00010000', '0.49990000', 'rent, "May"', 'BTC']);
  });

  it('in satoshis: whole numbers', () => {
    const rows = parseCsv(walletHistoryCsv(view, 'sats')).rows.map((r) => r.cells);
    expect(rows[2]!.slice(6, 9)).toEqual(['-10000000', '-10000', '49990000']);
    expect(rows[2]![10]).toBe('sat');
  });

  it('an empty history: the header alone', () => {
    expect(walletHistoryCsv({ ...view, rows: [] })).toBe(`${WALLET_HISTORY_CSV_HEADER.join(',')}\r\n`);
  });
});
