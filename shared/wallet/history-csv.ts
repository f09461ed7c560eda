/**
 * A node wallet's transaction history (#17) as CSV for a spreadsheet: one record per transaction,
 * newest first as shown, amounts in BTC (exact, from satoshis) or satoshis, the status spelled out
 * (pending = 0 confirmations). shared/csv.ts writes it (RFC 4180, formula-like labels guarded).
 */
import { formatBtc } from '../amounts';
import { toCsv, type CsvCell } from '../csv';
import type { WalletHistoryView } from '../ipc/wallet';

export const WALLET_HISTORY_CSV_HEADER = ['date', 'txid', 'type', 'status', 'confirmations', 'block', 'amount', 'fee', 'balance', 'label', 'unit'] as const;

export function walletHistoryCsv(view: WalletHistoryView, unit: 'btc' | 'sats' = 'btc'): string {
  const amount = (s: string | null): CsvCell => (s === null ? '' : unit === 'btc' ? formatBtc(BigInt(s)) : BigInt(s));
  const rows: CsvCell[][] = [[...WALLET_HISTORY_CSV_HEADER]];
  for (const r of view.rows) {
    rows.push([
      new Date(r.time * 1000).toISOString(),
      r.txid,
      r.category,
      r.confirmations === 0 ? 'pending' : r.confirmations < 0 ? 'conflicted' : 'confirmed',
      r.confirmations,
      r.blockHeight ?? '',
      amount(r.amountSats),
      amount(r.feeSats),
      amount(r.runningSats),
      r.label,
      unit === 'btc' ? 'BTC' : 'sat',
    ]);
  }
  return toCsv(rows);
}
