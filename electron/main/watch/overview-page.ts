// The Balances overview of a large wallet, paged (`watch:overview` answers the first page, and
// `watch:overview-page` the rest as the user scrolls, sorts or filters): the rows live in main
// (store/overview-model.ts), sorted and filtered there; only the rows shown cross IPC. A wallet of at
// most OVERVIEW_FULL_ROWS rows gets every row in the overview instead, and the renderer sorts and
// filters them itself (measured: BENCHMARKS.md, "The overview of 100,000 rows").
import type { BalancePage, BalanceQuery } from '../../../shared/ipc/contract';
import { OVERVIEW_PAGE_ROWS } from '../../../shared/ipc/watch';

/** The first page when the overview is asked without a query (public/early.js asks before the store exists). */
export const DEFAULT_QUERY: BalanceQuery = { sort: 'balance', dir: 'desc', filter: '', showHidden: false };
/** Rows in the first page when the request names no count: the table's page (several screenfuls). */
export const FIRST_PAGE_ROWS = OVERVIEW_PAGE_ROWS;

/** An empty page of `query` (no snapshot yet). */
export function emptyPage(version: string, query: BalanceQuery): BalancePage {
  const zero = { receivedSats: '0', balanceSats: '0', pendingTrustedSats: '0', pendingUntrustedSats: '0', trustedSats: '0', pendingUnknown: 0, utxoCount: 0, addresses: 0 };
  const rows = { address: [], type: [], source: [], hidden: [], nodeLabel: [], label: [], receivedSats: [], receivedConfirmations: [], receivedTxCount: [], balanceSats: [], pendingTrustedSats: [], pendingUntrustedSats: [], pendingCount: [], utxoCount: [], minConfirmations: [], lastActivityHeight: [], fetchState: [], fetchedAt: [], errorCode: [] };
  return { version, query, from: 0, rows, count: 0, totals: zero, allRows: 0, hiddenRows: 0, allTotals: zero };
}
