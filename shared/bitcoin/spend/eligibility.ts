/**
 * Which coins automatic selection may use, and the words for those it may not. Rules:
 * - frozen coins (the user's flag) are never auto-selected, nor accepted in coin control;
 * - a coinbase output is spendable by the wallet only at ≥ 101 confirmations: Core's
 *   CWallet::GetTxBlocksToMaturity is max(0, (COINBASE_MATURITY + 1) − depth) with
 *   COINBASE_MATURITY = 100, one block more than consensus needs (real Core 31.99 on regtest lists a
 *   coinbase at 100 confirmations as immature and at 101 as spendable);
 * - unconfirmed coins (0 confirmations: in the mempool) are allowed and flagged, or excluded on request.
 */
import { formatBtc } from '../../amounts';
import type { InputKind } from './size';

/** Core's COINBASE_MATURITY + 1: the wallet's confirmations for a coinbase output to be spendable. */
export const COINBASE_SPENDABLE_CONFIRMATIONS = 101;

/** A coin of the wallet (listunspent), as the spend core needs it. */
export interface SpendableCoin {
  txid: string;
  vout: number;
  value: bigint;
  /** How it is spent (see kind.ts to get it from listunspent's descriptor). */
  kind: InputKind;
  /** 0 while unconfirmed (in the mempool). */
  confirmations: number;
  /** An output of a coinbase transaction (listunspent does not say; gettransaction's `generated` does). */
  coinbase?: boolean;
  /** Frozen by the user: never auto-selected. */
  frozen?: boolean;
}

export type CoinStatus = 'spendable' | 'frozen' | 'immature' | 'unconfirmed-excluded';

export function outpointOf(c: { txid: string; vout: number }): string {
  return `${c.txid}:${c.vout}`;
}

export function isImmature(c: SpendableCoin): boolean {
  return c.coinbase === true && c.confirmations < COINBASE_SPENDABLE_CONFIRMATIONS;
}

export function coinStatus(c: SpendableCoin, includeUnconfirmed: boolean): CoinStatus {
  if (c.frozen) return 'frozen';
  if (isImmature(c)) return 'immature';
  if (c.confirmations < 1 && !includeUnconfirmed) return 'unconfirmed-excluded';
  return 'spendable';
}

export interface Excluded {
  frozen: { count: number; value: bigint };
  immature: { count: number; value: bigint; /** blocks until the first one matures */ nextInBlocks: number | null };
  unconfirmed: { count: number; value: bigint };
}

export function summarizeExcluded(coins: readonly SpendableCoin[], statuses: readonly CoinStatus[]): Excluded {
  const ex: Excluded = {
    frozen: { count: 0, value: 0n },
    immature: { count: 0, value: 0n, nextInBlocks: null },
    unconfirmed: { count: 0, value: 0n },
  };
  statuses.forEach((s, i) => {
    const c = coins[i]!;
    if (s === 'frozen') {
      ex.frozen.count++;
      ex.frozen.value += c.value;
    } else if (s === 'immature') {
      ex.immature.count++;
      ex.immature.value += c.value;
      const wait = COINBASE_SPENDABLE_CONFIRMATIONS - c.confirmations;
      if (ex.immature.nextInBlocks === null || wait < ex.immature.nextInBlocks) ex.immature.nextInBlocks = wait;
    } else if (s === 'unconfirmed-excluded') {
      ex.unconfirmed.count++;
      ex.unconfirmed.value += c.value;
    }
  });
  return ex;
}

export function btc(sats: bigint): string {
  return `${formatBtc(sats)} BTC`;
}

function coins(n: number): string {
  return n === 1 ? '1 coin' : `${n} coins`;
}

/** "3 frozen coins (0.50000000 BTC); 1 immature coinbase coin (50.00000000 BTC, spendable in 12 blocks)…", or '' if none. */
export function describeExcluded(ex: Excluded): string {
  const parts: string[] = [];
  if (ex.frozen.count) parts.push(`${coins(ex.frozen.count)} frozen (${btc(ex.frozen.value)})`);
  if (ex.immature.count) {
    const n = ex.immature.nextInBlocks!;
    parts.push(
      `${coins(ex.immature.count)} from immature coinbase (${btc(ex.immature.value)}; a coinbase output is spendable at ${COINBASE_SPENDABLE_CONFIRMATIONS} confirmations, the next in ${n === 1 ? '1 block' : `${n} blocks`})`,
    );
  }
  if (ex.unconfirmed.count) parts.push(`${coins(ex.unconfirmed.count)} unconfirmed, excluded by your choice (${btc(ex.unconfirmed.value)})`);
  return parts.join('; ');
}
